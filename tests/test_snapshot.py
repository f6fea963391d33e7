"""The projection snapshot of the replay index (asks/store/snapshot.py, records.py,
lazymap.py): a trusted open builds only the records its small maps name, and the projection
it gives, then folds into, is a full replay's, value for value and in every map's order."""

from __future__ import annotations

import itertools
import random
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st
from support.journals import SID, NoFsync, cycle, journal_bytes, state

from asks.store import index as index_file
from asks.store import indexer, snapshot
from asks.store.entries import (
    ChatMessage,
    Entry,
    ModelChosen,
    PermissionDecided,
    Record,
    ToolResult,
)
from asks.store.journal import Journal
from asks.store.lazymap import LazyMap
from asks.store.projection import Projection
from asks.store.records import Records
from asks.store.replay import replay_lines


def full_state(path: Path) -> tuple[Any, ...]:
    data = path.read_bytes()
    projection = Projection()
    projection.apply_all(replay_lines(data[: data.rfind(b"\n") + 1]).records)
    return state(projection)


def opened(data_dir: Path) -> tuple[Journal, Records, Projection]:
    journal, records = Journal.open(SID, data_dir=data_dir, file_ops=NoFsync())
    projection = Projection(session_id=journal.session_id)
    projection.apply_all(records)
    return journal, records, projection


def built(records: Records) -> int:
    return sum(record is not None for record in records._made)


def indexed_session(data_dir: Path, cycles: int, seed: int = 1) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / f"{SID}.jsonl"
    path.write_bytes(journal_bytes(cycles, seed))
    with mock.patch.object(indexer, "INDEX_MIN_BYTES", 1):
        Journal.open(SID, data_dir=data_dir)[0].close()  # writes the index and its snapshot
    return path


def test_a_trusted_open_builds_the_records_its_small_maps_name_not_all(tmp_path: Path) -> None:
    counts = []
    for cycles in (100, 400):
        path = indexed_session(tmp_path / str(cycles), cycles)
        journal, records, projection = opened(path.parent)
        journal.close()
        small = len(projection.undelivered) + len(projection.notes) + len(projection.offered)
        named = 3 * len(projection.pending) + 2 * len(projection.open_calls)
        assert built(records) <= small + named
        counts.append((built(records), len(records)))
        assert state(projection) == full_state(path)
    (_, all_small), (more, all_large) = counts
    assert all_large > 3 * all_small and more < all_large // 4


@settings(max_examples=15, deadline=None)
@given(
    cycles=st.integers(1, 60),
    threshold=st.integers(500, 20_000),
    later=st.integers(0, 15),
    seed=st.integers(0, 100),
)
def test_a_resumed_projection_folds_on_as_a_full_replay(
    cycles: int, threshold: int, later: int, seed: int
) -> None:
    """Open with the snapshot, then append and fold record by record as the host does (the
    live entries, not decoded ones): the projection is always the full replay's of the file;
    a resume after that (new index or not), too."""
    rng = random.Random(seed)
    entries = itertools.chain.from_iterable(cycle(n, rng) for n in itertools.count())
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(indexer, "INDEX_MIN_BYTES", threshold),
    ):
        data_dir = Path(tmp)
        journal = Journal.create(data_dir=data_dir, session_id=SID, file_ops=NoFsync())
        for entry in itertools.islice(entries, cycles * 7):
            journal.append(entry)
        journal.close()
        journal, _, projection = opened(data_dir)
        assert state(projection) == full_state(journal.path)
        for entry in itertools.islice(entries, later * 7):
            projection.apply(journal.append(entry))
        assert state(projection) == full_state(journal.path)
        journal.close()
        again, _, resumed = opened(data_dir)
        again.close()
        assert state(resumed) == full_state(journal.path)


def test_a_torn_tail_after_the_snapshot_is_cut_and_the_rest_folded(tmp_path: Path) -> None:
    path = indexed_session(tmp_path, 80)
    old, new = journal_bytes(80), journal_bytes(90)
    assert new.startswith(old)
    with path.open("ab") as stream:  # lines past the index, then half a line: a crash
        stream.write(new[len(old) :] + b'{"v":1,"seq":')
    journal, records, projection = opened(tmp_path)
    journal.close()
    assert any("torn" in warning for warning in journal.warnings)
    assert records.snapshot is not None and len(records) > records.snapshot.rows
    assert state(projection) == full_state(path)


def test_the_conversation_copied_at_resume_builds_no_record(tmp_path: Path) -> None:
    path = indexed_session(tmp_path, 100)
    journal, records, projection = opened(path.parent)
    journal.close()
    before = built(records)
    copy = projection.conversation.copy()
    projection.conversation.append(records[0])
    assert built(records) <= before + 1 and len(copy) == len(projection.conversation) - 1
    assert list(copy) == list(projection.conversation)[:-1]


def test_a_record_is_one_object_however_it_is_reached(tmp_path: Path) -> None:
    """The states name the entries of the records (the group note of a delivery reads the
    line that saved it): the same objects as the records give."""
    path = indexed_session(tmp_path, 60)
    journal, records, projection = opened(path.parent)
    journal.close()
    for ref, question_state in projection.by_ref.items():
        if question_state.saved_in is not None:
            assert any(r.entry is question_state.saved_in for r in records), ref
    base = projection.conversation.base
    assert base and all(
        record is records[n]
        for n, record in zip(base, list(projection.conversation)[: len(base)], strict=True)
    )


OPS = st.lists(
    st.tuples(
        st.sampled_from(["get", "set", "del", "contains", "len", "iter", "pop"]),
        st.integers(0, 12),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(0, 8),
    ops=OPS,
    seed=st.sampled_from([(), (0,), (1, 3)]),
    normed=st.booleans(),
)
def test_a_lazy_map_is_the_dict_it_stands_for(
    size: int, ops: list[tuple[str, int]], seed: tuple[int, ...], normed: bool
) -> None:
    base = {f"k{i}": [i] for i in range(size)}
    made: list[int] = []

    def make(i: int) -> list[int]:
        made.append(i)
        return [i]

    def norm(key: str) -> Any:
        return ("pair", key) if normed else key

    lazy: LazyMap[str, list[int]] = LazyMap(
        size,
        lambda i: f"k{i}",
        make,
        lambda: {norm(f"k{i}"): i for i in range(size)},
        seed={norm(f"k{i}"): i for i in seed if i < size},
        norm=norm if normed else None,
    )
    plain = dict(base)
    for op, n in ops:
        key = f"k{n}"
        if op == "get":
            assert lazy.get(key) == plain.get(key)
            if key in plain:
                assert lazy[key] is lazy[key]  # one object, kept
        elif op == "set":
            lazy[key] = plain[key] = [100 + n]
        elif op == "del" and key in plain:
            del lazy[key], plain[key]
        elif op == "pop":
            assert lazy.pop(key, None) == plain.pop(key, None)
        elif op == "contains":
            assert (key in lazy) == (key in plain)
        elif op == "len":
            assert len(lazy) == len(plain)
        elif op == "iter":
            assert list(lazy.items()) == list(plain.items())
    assert list(lazy.items()) == list(plain.items())
    assert len(made) == len(set(made))  # never built twice


def test_an_open_session_folds_appends_into_the_snapshot_it_adopted(tmp_path: Path) -> None:
    """The host's own path: QuestionHost folds the records Journal.open gave, then every
    record it appends; a resume then sees the same."""
    path = indexed_session(tmp_path, 50)
    journal, _, projection = opened(tmp_path)
    extra: list[Entry] = [ChatMessage("user", "after the snapshot"), *cycle(500, random.Random(2))]
    for entry in extra:
        projection.apply(journal.append(entry))
    journal.close()
    assert state(projection) == full_state(path)
    _, _, again = opened(tmp_path)
    assert state(again) == state(projection)


def test_an_index_that_cannot_be_built_leaves_the_old_one_and_the_append_stands(
    tmp_path: Path,
) -> None:
    """The index is written after the append was acknowledged: if building it fails (a row
    of the old index that does not match its line, say), the append is not an error and the
    old index stays, to be checked at the next open as any other."""
    path = indexed_session(tmp_path, 60)
    side = index_file.index_path(path)
    before = side.read_bytes()
    journal, _, projection = opened(tmp_path)
    with (
        mock.patch.object(indexer, "INDEX_MIN_BYTES", 1),
        mock.patch.object(snapshot, "fill", side_effect=ValueError("a row names no line")),
    ):
        record = journal.append(ChatMessage("user", "saved all the same"))
    projection.apply(record)
    journal.close()
    assert side.read_bytes() == before
    assert state(projection) == full_state(path)
    again, _, resumed = opened(tmp_path)
    again.close()
    assert state(resumed) == full_state(path)


def test_the_last_model_choice_is_found_by_the_rows_kinds(tmp_path: Path) -> None:
    """``last_choice`` at a resume: the last ``model_chosen`` of 100 cycles' journal (the
    one of cycle 99), found without building the records after it, or one appended since."""
    path = indexed_session(tmp_path, 100)
    journal, records, _ = opened(tmp_path)
    journal.close()
    cold = replay_lines(path.read_bytes()).records
    expected = next(r for r in reversed(cold) if isinstance(r.entry, ModelChosen))
    built_before = built(records)
    found = records.last_of(ModelChosen)
    assert found == expected and built(records) - built_before <= 3
    assert records.last_of(ToolResult) == next(
        r for r in reversed(cold) if isinstance(r.entry, ToolResult)
    )
    assert records.last_of(PermissionDecided) is None
    appended = Record(10**6, 1.0, ModelChosen("scripted", "later"))
    records.append(appended)
    assert records.last_of(ModelChosen) is appended
