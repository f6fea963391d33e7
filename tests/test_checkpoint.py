"""The resume checkpoint (asks/store/checkpoint.py, records.py, lazymap.py): purely a cache.
Whatever history of appends, closes, crashes, torn tails and edits a journal went through, an
open gives the records, warnings and projection of a full replay of the bytes it finds; a
trusted checkpoint only makes it build fewer records."""

from __future__ import annotations

import itertools
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.journals import SID, NoFsync, cycle, damage, journal_bytes, state

from asks.core.model import Outcome
from asks.store import checkpoint as checkpoint_file
from asks.store import journal as journal_module
from asks.store.checkpoint import checkpoint_path, parse, state_of
from asks.store.entries import (
    ChatMessage,
    FeedbackDelivered,
    ModelChosen,
    NoteSent,
    PermissionDecided,
    Record,
    ToolResult,
    Withdrawn,
)
from asks.store.journal import FileOps, Journal
from asks.store.lazymap import LazyMap
from asks.store.projection import Projection
from asks.store.records import Records
from asks.store.replay import replay_lines


def kept_session(data_dir: Path) -> tuple[Journal, Projection]:
    """A new session whose projection folds every record, as the host's does."""
    journal = Journal.create(data_dir=data_dir, session_id=SID, file_ops=NoFsync())
    projection = Projection()
    projection.apply_all(journal.first_records)
    journal.keep_checkpoint(projection)
    return journal, projection


def opened(data_dir: Path) -> tuple[Journal, Records, Projection]:
    journal, records = Journal.open(SID, data_dir=data_dir, file_ops=NoFsync())
    projection = Projection(session_id=journal.session_id)
    projection.apply_all(records)
    journal.keep_checkpoint(projection)
    return journal, records, projection


def appended(journal: Journal, projection: Projection, entries: Any) -> None:
    for entry in entries:
        projection.apply(journal.append(entry))


def built(records: Records) -> int:
    return sum(record is not None for record in records._made)


def full_replay(path: Path) -> tuple[Any, Projection, list[str]]:
    data = path.read_bytes()
    cold = replay_lines(data)
    projection = Projection()
    projection.apply_all(cold.records)
    return cold.records, projection, cold.line_warnings


def as_full_replay(data_dir: Path) -> tuple[Journal, Records, Projection]:
    """Open the session and check it against a full replay of its bytes."""
    records, expected, warnings = full_replay(data_dir / f"{SID}.jsonl")
    journal, got, projection = opened(data_dir)
    assert got == records
    assert [w for w in journal.warnings if "torn" not in w] == warnings
    assert state(projection) == state(expected)
    return journal, got, projection


def checkpointed_session(data_dir: Path, cycles: int, seed: int = 1) -> Path:
    """A closed session of ``cycles`` question cycles, its checkpoint current."""
    data_dir.mkdir(parents=True, exist_ok=True)
    journal, projection = kept_session(data_dir)
    rng = random.Random(seed)
    appended(journal, projection, itertools.chain(*(cycle(n, rng) for n in range(cycles))))
    journal.close()
    assert checkpoint_path(journal.path).exists()
    return journal.path


def test_a_trusted_open_builds_the_records_its_small_maps_name_not_all(tmp_path: Path) -> None:
    counts = []
    for cycles in (100, 400):
        path = checkpointed_session(tmp_path / str(cycles), cycles)
        journal, records, projection = opened(path.parent)
        journal.close()
        assert records.checkpoint is not None
        small = len(projection.undelivered) + len(projection.notes)
        named = 3 * len(projection.pending) + 2 * len(projection.open_calls)
        assert built(records) <= small + named
        counts.append((built(records), len(records)))
        assert state(projection) == state(full_replay(path)[1])
    (_, all_small), (more, all_large) = counts
    assert all_large > 3 * all_small and more < all_large // 4


@settings(max_examples=20, deadline=None)
@given(
    cycles=st.integers(1, 40),
    every=st.integers(500, 20_000),
    later=st.integers(0, 12),
    seed=st.integers(0, 100),
    scans=st.sampled_from([0, 1 << 30]),
)
def test_checkpoint_then_fold_is_the_full_replay(
    cycles: int, every: int, later: int, seed: int, scans: int
) -> None:
    """Checkpoints saved every ``every`` bytes and at close; a resume restores one and folds
    the rest, then appends and folds as the host does (the live entries, not decoded ones):
    the projection is always the full replay's, and so is the checkpoint saved from it. The
    pending questions found either way (``scans``: a scan each, or one map of all)."""
    rng = random.Random(seed)
    entries = itertools.chain.from_iterable(cycle(n, rng) for n in itertools.count())
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(journal_module, "CHECKPOINT_EVERY", every),
        mock.patch.object(checkpoint_file, "PENDING_SCANS", scans),
    ):
        data_dir = Path(tmp)
        journal, projection = kept_session(data_dir)
        appended(journal, projection, itertools.islice(entries, cycles * 7))
        journal.close()
        journal, records, projection = opened(data_dir)
        assert records.checkpoint is not None
        # Change restored states: deliver what waits, withdraw what is pending.
        units = [ref for ref in projection.undelivered if ref not in projection.notes]
        waiting = list(projection.pending)
        receipts = [FeedbackDelivered(tuple(units[::2]), "late", "wake")] if units else []
        withdrawals = [Withdrawn(tuple(waiting[::2]), "late")] if waiting else []
        appended(journal, projection, [*receipts, *withdrawals])
        appended(journal, projection, itertools.islice(entries, later * 7))
        full = full_replay(journal.path)[1]
        assert state_of(projection) == state_of(full)  # rows never built are copied right
        assert state(projection) == state(full)
        journal.close()
        saved = parse(checkpoint_path(journal.path).read_bytes())
        assert saved is not None and saved.state == state_of(full)  # re-encoded as it changed
        as_full_replay(data_dir)[0].close()


@settings(max_examples=25, deadline=None)
@given(
    cycles=st.integers(2, 25),
    every=st.integers(300, 10_000),
    steps=st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(["resume", "crash", "edit", "edit open"])),
        max_size=4,
    ),
    seed=st.integers(0, 100),
)
def test_any_history_of_closes_crashes_and_edits_opens_as_a_full_replay(
    cycles: int, every: int, steps: list[tuple[float, str]], seed: int
) -> None:
    """Appends one by one; now and then a clean close and resume, a crash (the files as
    they were before the close), or a foreign same-size edit of a line (after a close, or
    while the session runs): every open gives the records, warnings and projection of a
    full replay of the bytes it finds."""
    rng = random.Random(seed)
    entries = list(itertools.chain(*(cycle(n, rng) for n in range(cycles))))
    at = {int(where * len(entries)): step for where, step in steps}
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(journal_module, "CHECKPOINT_EVERY", every),
    ):
        data_dir, spare = Path(tmp) / "data", Path(tmp) / "spare"
        path = data_dir / f"{SID}.jsonl"
        journal, projection = kept_session(data_dir)
        for number, entry in enumerate(entries):
            projection.apply(journal.append(entry))
            step = at.get(number)
            if step == "edit open":
                edit_a_line(path, rng)
            if step == "crash":  # the session dies: its files as they are now
                shutil.rmtree(spare, ignore_errors=True)
                shutil.copytree(data_dir, spare)
            if step is not None:
                journal.close()
            if step == "crash":
                shutil.rmtree(data_dir)
                shutil.move(spare, data_dir)
            if step == "edit":
                edit_a_line(path, rng)
            if step is not None:
                journal, _, projection = as_full_replay(data_dir)
        journal.close()
        saved = parse(checkpoint_path(path).read_bytes())
        assert saved is None or saved.state == state_of(full_replay(path)[1])
        as_full_replay(data_dir)[0].close()


EDITS = (  # same size: a text, a fact the projection folds, a line that no longer decodes
    (b"message ", b"massage "),
    (b'"source":"web"', b'"source":"wab"'),
    (b'{"v":1,', b'{"v":#,'),
)


def edit_a_line(path: Path, rng: random.Random) -> None:
    """Another program changes a few bytes of one line, in place, keeping the size."""
    data = path.read_bytes()
    old, new = rng.choice(EDITS)
    spots = [m for m in range(len(data)) if data.startswith(old, m)]
    if spots:
        with path.open("r+b") as stream:
            stream.seek(rng.choice(spots[1:] or spots))
            stream.write(new)


def test_damage_and_a_torn_tail_past_the_checkpoint_open_as_the_full_replay(
    tmp_path: Path,
) -> None:
    """Damaged lines before the checkpoint keep their warnings (the checkpoint's); lines
    past it and half a line (a crash) are decoded and cut as a full replay does."""
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(damage(journal_bytes(60))[: -len(b'{"v":1,"seq":')])
    journal, records, _ = opened(tmp_path)
    assert records.checkpoint is None and len(journal.warnings) == 2
    journal.close()  # saves the checkpoint
    assert checkpoint_path(path).exists()
    old, new = journal_bytes(60), journal_bytes(70)
    with path.open("ab") as stream:
        stream.write(new[len(old) :] + b'{"v":1,"seq":')
    journal, records, _ = as_full_replay(tmp_path)
    journal.close()
    assert records.checkpoint is not None
    assert any("torn" in warning for warning in journal.warnings)
    assert len(records) > len(records.checkpoint.table)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda blob: blob[: len(blob) // 2],  # torn by a crash
        lambda blob: blob.replace(b"asks-checkpoint 2 ", b"asks-checkpoint 1 "),  # another format
        lambda blob: blob[:-1] + bytes([blob[-1] ^ 1]),  # damaged: its CRC fails
        lambda blob: b"",
    ],
)
def test_a_checkpoint_that_does_not_check_out_is_a_full_replay(tmp_path: Path, spoil: Any) -> None:
    path = checkpointed_session(tmp_path, 30)
    side = checkpoint_path(path)
    side.write_bytes(spoil(side.read_bytes()))
    assert parse(side.read_bytes()) is None
    journal, records, _ = as_full_replay(tmp_path)
    journal.close()  # saves a new one: the next open trusts it
    assert records.checkpoint is None
    journal, records, _ = as_full_replay(tmp_path)
    journal.close()
    assert records.checkpoint is not None


def test_a_checkpoint_of_another_version_is_a_full_replay(tmp_path: Path) -> None:
    path = checkpointed_session(tmp_path, 20)
    with mock.patch.object(checkpoint_file, "_IDENTITY", ("0.0.0", "", "little", (3, 0))):
        assert parse(checkpoint_path(path).read_bytes()) is None
        journal, records, _ = as_full_replay(tmp_path)
        journal.close()
    assert records.checkpoint is None


def test_a_checkpoint_write_that_fails_is_not_an_error(tmp_path: Path) -> None:
    class NoSideFiles(NoFsync):
        def replace_file(self, path: Path, data: bytes) -> None:
            raise OSError(28, "No space left on device")

    journal = Journal.create(data_dir=tmp_path, session_id=SID, file_ops=NoSideFiles())
    projection = Projection()
    projection.apply_all(journal.first_records)
    journal.keep_checkpoint(projection)
    appended(journal, projection, cycle(1, random.Random(1)))
    journal.close()
    assert not checkpoint_path(journal.path).exists()
    as_full_replay(tmp_path)[0].close()


def test_no_checkpoint_of_a_projection_that_missed_records(tmp_path: Path) -> None:
    """Record numbers name the journal's records: a projection that did not fold all of
    them (here the first) is never saved."""
    journal = Journal.create(data_dir=tmp_path, session_id=SID, file_ops=NoFsync())
    projection = Projection()
    journal.keep_checkpoint(projection)
    appended(journal, projection, cycle(1, random.Random(1)))
    journal.close()
    assert not checkpoint_path(journal.path).exists()


def test_a_record_is_one_object_however_it_is_reached(tmp_path: Path) -> None:
    """The states name the entries of the records (the group note of a delivery reads the
    line that saved it): the same objects as the records give."""
    checkpointed_session(tmp_path, 60)
    journal, records, projection = opened(tmp_path)
    journal.close()
    for ref, question_state in projection.by_ref.items():
        if question_state.saved_in is not None:
            assert records[question_state.saved_at].entry is question_state.saved_in, ref
    numbers = projection.conversation.numbers
    assert numbers and all(
        record is records[n]
        for n, record in zip(numbers, list(projection.conversation), strict=True)
    )


def test_the_conversation_copied_at_resume_builds_no_record(tmp_path: Path) -> None:
    checkpointed_session(tmp_path, 100)
    journal, records, projection = opened(tmp_path)
    journal.close()
    before = built(records)
    copy = projection.conversation.copy()
    projection.conversation.append(records[0], 0)
    assert built(records) <= before + 1 and len(copy) == len(projection.conversation) - 1
    assert list(copy) == list(projection.conversation)[:-1]


def test_a_line_that_is_not_the_checkpoint_s_raises_when_its_record_is_built(
    tmp_path: Path,
) -> None:
    """Past the open's check (a journal changed under a running session): a record whose
    line no longer holds the checkpoint's seq and kind is refused, not made up."""
    path = checkpointed_session(tmp_path, 10)
    journal, records, _ = opened(tmp_path)
    journal.close()
    data = path.read_bytes()
    start = data.index(b'"type":"chat_message"')
    assert records._lines is not None
    n = next(i for i, at in enumerate(records._lines.table.starts) if at > start) - 1
    records._made[n] = None
    edited = data.replace(b'"type":"chat_message"', b'"type":"tool_result"', 1)
    records._lines.data = edited
    with pytest.raises(ValueError, match="is not the journal's line"):
        records[n]


def test_the_last_model_choice_is_found_by_the_kinds(tmp_path: Path) -> None:
    """``last_choice`` at a resume: the last ``model_chosen`` of 100 cycles' journal (the
    one of cycle 99), found without building the records after it, or one appended since."""
    path = checkpointed_session(tmp_path, 100)
    journal, records, _ = opened(tmp_path)
    journal.close()
    cold = replay_lines(path.read_bytes()).records
    expected = next(r for r in reversed(cold) if isinstance(r.entry, ModelChosen))
    built_before = built(records)
    found = records.last_of(ModelChosen)
    assert found == expected and built(records) - built_before <= 1
    assert records.last_of(ToolResult) == next(
        r for r in reversed(cold) if isinstance(r.entry, ToolResult)
    )
    assert records.last_of(PermissionDecided) is None
    appended_record = Record(10**6, 1.0, ModelChosen("scripted", "later"))
    records.append(appended_record)
    assert records.last_of(ModelChosen) is appended_record


def test_the_records_of_some_kinds_are_found_by_the_kinds(tmp_path: Path) -> None:
    """What a hub resume retells: the records of a few kinds, in order, the checkpoint's
    built only when chosen, then those appended since."""
    path = checkpointed_session(tmp_path, 60)
    journal, records, _ = opened(tmp_path)
    journal.close()
    records.append(Record(10**6, 1.0, ToolResult("c", Outcome.QUEUED, "later", {})))
    wanted = (ToolResult, NoteSent)
    cold = [*replay_lines(path.read_bytes()).records, records[-1]]
    before = built(records)
    found = list(records.of_kinds(wanted))
    assert found == [r for r in cold if type(r.entry) in wanted] and found
    assert built(records) - before <= len(found)


def test_a_session_that_appended_little_since_its_checkpoint_keeps_it_until_close(
    tmp_path: Path,
) -> None:
    """Before an append, a checkpoint is saved once ``CHECKPOINT_EVERY`` bytes were appended
    past the last one; at close, whenever anything was."""
    path = checkpointed_session(tmp_path, 5)
    side = checkpoint_path(path)
    before = side.read_bytes()
    journal, _, projection = opened(tmp_path)
    projection.apply(journal.append(ChatMessage("user", "one more")))
    assert side.read_bytes() == before
    journal.close()
    assert side.read_bytes() != before
    with mock.patch.object(journal_module, "CHECKPOINT_EVERY", 1):
        journal, _, projection = opened(tmp_path)
        projection.apply(journal.append(ChatMessage("user", "and another")))
        assert parse(side.read_bytes()) is not None and side.read_bytes() != before
        journal.close()
    as_full_replay(tmp_path)[0].close()


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
    assert list(lazy) == list(plain) and not made  # the keys iterate, no value built
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


def test_file_ops_is_the_seam_of_the_side_file(tmp_path: Path) -> None:
    """The checkpoint is written through the journal's FileOps (tests inject faults there)."""
    written: list[Path] = []

    class Watching(FileOps):
        def replace_file(self, path: Path, data: bytes) -> None:
            written.append(path)
            super().replace_file(path, data)

    journal = Journal.create(data_dir=tmp_path, session_id=SID, file_ops=Watching())
    projection = Projection()
    projection.apply_all(journal.first_records)
    journal.keep_checkpoint(projection)
    journal.close()
    assert written == [checkpoint_path(journal.path)]


def test_a_closed_journal_lets_go_of_its_lock_while_its_records_live(tmp_path: Path) -> None:
    """A checkpoint's records read their lines from the mapped journal; the mapping must not
    hold the writer's lock: the session reopens at once (the REPL's --resume after a close,
    an embedding program reopening a session)."""
    checkpointed_session(tmp_path, 20)
    journal, records = Journal.open(SID, data_dir=tmp_path)
    journal.close()
    assert records.checkpoint is not None and built(records) == 1  # the last: its seq
    again, replayed = Journal.open(SID, data_dir=tmp_path)
    again.close()
    assert replayed == records
