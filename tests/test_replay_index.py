"""The replay index (asks/store/index.py) and lazy records: a replay that trusts an index
gives the records, warnings and projection of a full replay; an index that does not check
out (damaged, stale, for other code, naming the wrong lines) is ignored."""

from __future__ import annotations

import itertools
import random
import shutil
import tempfile
import zlib
from pathlib import Path
from typing import Any
from unittest import mock

import attrs
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.journals import (
    SID,
    NoFsync,
    covered,
    cycle,
    damage,
    is_lazy,
    journal_bytes,
    state,
    write_big_journal,
)

from asks.core.model import Resolution
from asks.store import index as index_file
from asks.store import indexer
from asks.store import lazy as lazy_records
from asks.store.deferred import pending_of
from asks.store.entries import (
    ChatMessage,
    DecodeError,
    GroupAsked,
    ModelChosen,
    NoteSent,
    Resolved,
    SessionStarted,
    WaitOpened,
    Withdrawn,
    encode,
)
from asks.store.journal import FileOps, Journal, read_records
from asks.store.projection import Projection
from asks.store.records import Records
from asks.store.replay import Replay, replay_lines


def index_of(data: bytes, length: int | None = None) -> index_file.Index:
    end = data.rfind(b"\n") + 1 if length is None else length
    cold = replay_lines(data[:end])
    blob, _ = index_file.build(
        end, cold.crc, None, cold.fresh, lines=cold.lines, warnings=cold.line_warnings
    )
    parsed = index_file.parse(blob)
    assert parsed is not None
    return parsed


def assert_same_replay(indexed: Replay, cold: Replay) -> None:
    assert indexed.warnings == cold.warnings
    assert indexed.good_length == cold.good_length
    assert len(indexed.records) == len(cold.records)
    for lazy, eager in zip(indexed.records, cold.records, strict=True):
        assert type(lazy.entry) is type(eager.entry)
        assert (lazy.seq, lazy.ts) == (eager.seq, eager.ts)
        assert attrs.asdict(lazy.entry) == attrs.asdict(eager.entry)
        assert lazy == eager and repr(lazy) == repr(eager)


@pytest.mark.parametrize("damaged", [False, True], ids=["clean", "damaged"])
def test_indexed_replay_equals_the_full_replay(damaged: bool) -> None:
    data = journal_bytes(300)
    data = damage(data) if damaged else data
    cold = replay_lines(data)
    indexed = replay_lines(data, index_of(data))
    assert is_lazy(indexed)
    assert_same_replay(indexed, cold)
    if damaged:
        assert len(cold.warnings) == 3  # the corrupt line, the seq, the torn tail


@pytest.mark.parametrize("one_by_one", [False, True], ids=["apply_all", "apply"])
def test_projection_of_lazy_records_equals_the_eager_one(one_by_one: bool) -> None:
    data = damage(journal_bytes(300))
    lazy, eager = Projection(), Projection()
    records = replay_lines(data, index_of(data)).records
    if one_by_one:
        for record in records:
            lazy.apply(record)
    else:
        lazy.apply_all(records)
    eager.apply_all(replay_lines(data).records)
    assert lazy.undelivered
    assert all(isinstance(r, Resolution | NoteSent) for r in lazy.undelivered.values())
    assert state(lazy) == state(eager)


def test_lazy_entries_decode_field_by_field_on_first_read() -> None:
    data = journal_bytes(20)
    records = replay_lines(data, index_of(data)).records
    chat = next(r.entry for r in records if isinstance(r.entry, ChatMessage))
    assert pending_of(chat) is not None
    assert chat.content.startswith("message 0\n")  # the first read decodes the line
    assert pending_of(chat) is None
    group = next(r.entry for r in records if isinstance(r.entry, GroupAsked))
    assert group.call_id == "call-0" and pending_of(group) is not None  # a fact: no decode
    assert group.questions[0].spec.header == "H0" and pending_of(group) is None
    resolved = next(r.entry for r in records if isinstance(r.entry, Resolved))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        getattr(resolved, "nope")  # noqa: B009 (a name no entry has)
    assert pending_of(resolved) is None and resolved.source in ("web", "panel")


def test_lazy_question_states_read_their_question_and_resolution_on_demand() -> None:
    data = journal_bytes(40)
    records = replay_lines(data, index_of(data)).records
    projection = Projection()
    projection.apply_all(records)
    eager = Projection()
    eager.apply_all(replay_lines(data).records)
    for ref, lazy_state in projection.by_ref.items():
        assert lazy_state.resolution == eager.by_ref[ref].resolution
        assert lazy_state.question == eager.by_ref[ref].question
    refs = list(eager.by_ref)
    assert projection.group_notes(refs) == eager.group_notes(refs)
    assert any(note for note, _ in eager.group_notes(refs))  # the journal has some to read


def test_an_index_of_resolved_lines_without_the_group_note_field_is_not_trusted() -> None:
    """The group note (issue 19) changed ``resolved``'s fields: the fingerprint says so, so an
    index written before it (which could not know the field) is never used."""
    [resolved] = [p for p in index_file.FINGERPRINT.split(";") if p.startswith("resolved:")]
    assert ",group_note=" in resolved


def rewrite(blob: bytes, change: Any) -> bytes:
    """``blob`` with its JSON line changed by ``change`` and its checksum made right again."""
    head, _, body = blob.partition(b"\n")
    meta, _, columns = body.partition(b"\n")
    raw = orjson.loads(meta)
    change(raw)
    body = orjson.dumps(raw) + b"\n" + columns
    magic = head.rsplit(b" ", 1)[0]
    return magic + b" " + b"%08x" % zlib.crc32(body) + b"\n" + body


def good_blob(data: bytes) -> bytes:
    cold = replay_lines(data)
    return index_file.build(
        cold.good_length, cold.crc, None, cold.fresh, lines=cold.lines, warnings=cold.line_warnings
    )[0]


def test_an_index_that_does_not_check_out_is_ignored() -> None:
    data = journal_bytes(60)
    blob = good_blob(data)
    cold = replay_lines(data)
    flipped = bytearray(blob)
    flipped[len(blob) // 2] ^= 0x20
    cases = {
        "truncated": blob[: len(blob) // 2],
        "a damaged byte": bytes(flipped),
        "another version": rewrite(blob, lambda raw: raw.update(app="0.0.0-other")),
        "other entry fields": rewrite(blob, lambda raw: raw.update(fingerprint="v1;x")),
        "not an index": b"hello\n",
    }
    for name, bad in cases.items():
        assert index_file.parse(bad) is None, name
    # Well-formed, but about other bytes: the replay ignores it.
    wrong = [
        rewrite(blob, lambda raw: raw.update(crc32=raw["crc32"] ^ 1)),
        rewrite(blob, lambda raw: raw.update(length=raw["length"] + 10**9)),
    ]
    for bad in wrong:
        parsed = index_file.parse(bad)
        assert parsed is not None
        replay = replay_lines(data, parsed)
        assert not is_lazy(replay)
        assert_same_replay(replay, cold)


def test_rows_naming_the_wrong_lines_are_caught_when_their_record_is_built() -> None:
    """A row is checked when its record is first built (a trusted open builds only the
    records it reads): one not starting after a newline and ending at one raises."""
    data = journal_bytes(60)
    for column, delta in (("start", 1), ("end", -1), ("start", -1)):
        index = index_of(data)
        getattr(index, column)[3] += delta
        replay = replay_lines(data, index)
        with pytest.raises(ValueError, match="row 3 names no line"):
            _ = replay.records[3]
        assert replay.records[4] == replay_lines(data).records[4]
    index = index_of(data)
    chat = index.kind.index(lazy_records.CHAT)
    index.kind[chat] = 1  # a tool result's kind, without its facts
    with pytest.raises(ValueError, match="facts do not match its kind"):
        _ = replay_lines(data, index).records[chat]


def test_a_changed_journal_makes_the_index_stale() -> None:
    data = journal_bytes(60)
    index = index_of(data)
    changed = data.replace(b"message 7", b"massage 7")  # same length, still valid JSON
    replay = replay_lines(changed, index)
    assert not is_lazy(replay)
    assert_same_replay(replay, replay_lines(changed))
    cut = data[: index.length // 2]  # a journal shorter than the index
    assert_same_replay(replay_lines(cut, index), replay_lines(cut))


def test_an_index_of_a_prefix_serves_a_longer_journal() -> None:
    data = journal_bytes(80)
    longer = data + journal_bytes(100)[len(data) :]
    replay = replay_lines(longer, index_of(data))
    assert is_lazy(replay) and replay.covered == len(data)
    assert_same_replay(replay, replay_lines(longer))
    # A new index for the longer journal keeps the old rows and adds the new ones.
    assert replay.crc == zlib.crc32(longer) and replay.lines == longer.count(b"\n")
    blob, built = index_file.build(
        replay.good_length,
        replay.crc,
        replay.index,
        replay.fresh,
        lines=replay.lines,
        warnings=replay.line_warnings,
        records=replay.records,
    )
    again = index_file.parse(blob)
    assert again is not None and again.kind == built.kind
    assert again is not None
    assert again.kind == index_of(longer).kind and again.start == index_of(longer).start
    assert_same_replay(replay_lines(longer, again), replay_lines(longer))


def test_a_closed_journal_lets_go_of_its_lock_while_its_lazy_records_live(tmp_path: Path) -> None:
    """The lazy records keep views of the mapped journal; the mapping must not hold the
    writer's lock: the session reopens at once (the REPL's --resume after a close, an
    embedding program reopening a session)."""
    write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()  # writes the index
    journal, records = Journal.open(SID, data_dir=tmp_path)
    journal.close()
    assert any(pending_of(r.entry) is not None for r in records)  # views of the mapping
    again, replayed = Journal.open(SID, data_dir=tmp_path)
    again.close()
    assert replayed == records


def test_open_writes_the_index_and_the_next_open_uses_it(tmp_path: Path) -> None:
    path = write_big_journal(tmp_path)
    side = index_file.index_path(path)
    first, cold = Journal.open(SID, data_dir=tmp_path)
    first.close()
    assert side.exists() and not first.warnings
    before = side.read_bytes()
    records = read_records(SID, data_dir=tmp_path)  # read-only: uses it, writes nothing
    assert records == cold and side.read_bytes() == before
    second, lazy = Journal.open(SID, data_dir=tmp_path)
    assert any(pending_of(r.entry) is not None for r in lazy if isinstance(r.entry, ChatMessage))
    assert lazy == cold == records and second.next_seq == first.next_seq
    second.append(ChatMessage("user", "after"))
    second.close()
    third, grown = Journal.open(SID, data_dir=tmp_path)
    third.close()
    assert grown[:-1] == cold and grown[-1].entry == ChatMessage("user", "after")


def test_the_index_is_kept_current_as_lines_are_appended(tmp_path: Path) -> None:
    """Once 1 MiB is not covered, the append that made it so writes the index: a crash (or a
    close) leaves less than that to decode, and a close has nothing to index."""
    journal = Journal.create(data_dir=tmp_path, session_id=SID, file_ops=NoFsync())
    rng = random.Random(3)
    entries = itertools.chain.from_iterable(cycle(n, rng) for n in itertools.count())
    side = index_file.index_path(journal.path)
    while not side.exists() and journal.path.stat().st_size < 2 * index_file.INDEX_MIN_BYTES:
        journal.append(next(entries))
    assert side.exists()
    written = journal.path.stat().st_size
    assert written >= index_file.INDEX_MIN_BYTES
    assert covered(journal.path) == written  # the whole file, the last append included
    blob = side.read_bytes()
    while journal.path.stat().st_size < written + index_file.INDEX_MIN_BYTES // 2:
        journal.append(next(entries))
    assert side.read_bytes() == blob  # not due again yet
    journal.close()
    assert side.read_bytes() == blob  # nothing to index at close
    again, records = Journal.open(SID, data_dir=tmp_path, file_ops=NoFsync())
    assert side.read_bytes() == blob  # the open decoded the short tail, wrote nothing
    lazy = [r for r in records if pending_of(r.entry) is not None]
    assert len(lazy) > len(records) // 2
    assert records == replay_lines(journal.path.read_bytes()).records
    for _ in range(len(records)):  # as much again: covered again as it goes
        again.append(next(entries))
    assert covered(journal.path) > journal.path.stat().st_size - index_file.INDEX_MIN_BYTES
    again.close()
    third, grown = Journal.open(SID, data_dir=tmp_path)
    third.close()
    assert grown == replay_lines(journal.path.read_bytes()).records
    assert grown[: len(records)] == records


def test_a_failing_index_write_is_not_an_error(tmp_path: Path) -> None:
    class NoSideFiles(FileOps):
        def replace_file(self, path: Path, data: bytes) -> None:
            raise OSError(28, "No space left on device")

    write_big_journal(tmp_path)
    journal, records = Journal.open(SID, data_dir=tmp_path, file_ops=NoSideFiles())
    journal.close()
    assert records and not journal.warnings
    assert not index_file.index_path(journal.path).exists()


def test_a_torn_index_file_left_by_a_crash_is_ignored_and_replaced(tmp_path: Path) -> None:
    path = write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()
    side = index_file.index_path(path)
    side.write_bytes(side.read_bytes()[:1000])
    journal, records = Journal.open(SID, data_dir=tmp_path)
    journal.close()
    assert records == replay_lines(path.read_bytes()).records and not journal.warnings
    assert index_file.parse(side.read_bytes()) is not None


@settings(max_examples=25, deadline=None)
@given(
    cycles=st.integers(0, 30),
    seed=st.integers(0, 1000),
    cut=st.floats(0, 1),
    grow=st.integers(0, 10),
)
def test_any_prefix_index_gives_the_full_replay(
    cycles: int, seed: int, cut: float, grow: int
) -> None:
    data = journal_bytes(cycles + grow, seed)
    prefix = journal_bytes(cycles, seed)
    length = prefix.rfind(b"\n", 0, max(1, int(len(prefix) * cut))) + 1
    cold = replay_lines(data)
    if length == 0:
        return
    indexed = replay_lines(data, index_of(data, length))
    assert_same_replay(indexed, cold)
    lazy, eager = Projection(), Projection()
    lazy.apply_all(indexed.records)
    eager.apply_all(cold.records)
    assert state(lazy) == state(eager)


def test_a_failed_fill_changes_nothing_and_the_read_raises() -> None:
    entry = lazy_records.chat_message(b'{"v":1,"seq":1')  # a line that cannot decode
    for _ in range(2):
        with pytest.raises(DecodeError):
            _ = entry.role
        assert pending_of(entry) is not None
    good = lazy_records.chat_message(encode(1, 1.0, ChatMessage("user", "hi"))[:-1])
    assert good == ChatMessage("user", "hi") and pending_of(good) is None


@settings(max_examples=20, deadline=None)
@given(
    cycles=st.integers(1, 50),
    threshold=st.integers(300, 30_000),
    resumes=st.lists(st.integers(0, 400), max_size=3),
    seed=st.integers(0, 100),
)
def test_after_a_crash_the_index_is_current_and_the_replay_the_full_one(
    cycles: int, threshold: int, resumes: list[int], seed: int
) -> None:
    """Appends one by one (closed and resumed now and then), then a crash: the files as it
    leaves them have an index covering all but less than the threshold, and opening them
    (mapped, the index trusted) gives the records, warnings and projection of a full replay."""
    rng = random.Random(seed)
    entries = list(itertools.chain(*(cycle(n, rng) for n in range(cycles))))
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch.object(indexer, "INDEX_MIN_BYTES", threshold),
    ):
        data_dir, crashed = Path(tmp) / "data", Path(tmp) / "crashed"
        crashed.mkdir()
        journal = Journal.create(data_dir=data_dir, session_id=SID, file_ops=NoFsync())
        for number, entry in enumerate(entries):
            journal.append(entry)
            if number in resumes:
                journal.close()
                journal, _ = Journal.open(SID, data_dir=data_dir, file_ops=NoFsync())
        for path in data_dir.iterdir():  # what a crash leaves: the files before any close
            shutil.copy(path, crashed / path.name)
        journal.close()
        path = crashed / f"{SID}.jsonl"
        data = path.read_bytes()
        if len(data) >= threshold:
            assert covered(path) > len(data) - threshold
        opened, records = Journal.open(SID, data_dir=crashed)
        opened.close()
        cold = replay_lines(data)
        assert records == cold.records
        assert list(opened.warnings) == cold.warnings
        lazy, eager = Projection(), Projection()
        lazy.apply_all(records)
        eager.apply_all(cold.records)
        assert state(lazy) == state(eager)


def test_a_trusted_replay_builds_no_record_and_decodes_no_line_until_read() -> None:
    """Every line has a row (FORMAT 5): a trusted replay of the indexed bytes decodes none
    and builds no record; a record is built when read (wait and withdrawal entries whole,
    from the index; session and model lines decoded then)."""
    data = journal_bytes(60)
    indexed = replay_lines(data, index_of(data))
    assert indexed.fresh == [] and isinstance(indexed.records, Records)
    assert indexed.records._made == [None] * len(indexed.records)
    built = [r.entry for r in indexed.records if isinstance(r.entry, WaitOpened | Withdrawn)]
    assert len(built) > 5 and all(pending_of(entry) is None for entry in built)
    kinds = {type(r.entry) for r in indexed.records}
    assert {SessionStarted, ModelChosen} <= kinds
    assert_same_replay(indexed, replay_lines(data))


def test_an_index_of_an_older_format_is_replaced_after_a_full_replay(tmp_path: Path) -> None:
    """An index an older asks wrote (FORMAT 5: a SHA-256 header) is never
    trusted: the open replays in full, gives what a full replay gives, and writes a current
    index that the next open trusts."""
    path = write_big_journal(tmp_path)
    side = index_file.index_path(path)
    cold = replay_lines(path.read_bytes())
    current = good_blob(path.read_bytes())
    older = current.replace(b"asks-replay-index 6 ", b"asks-replay-index 5 ", 1)
    assert current.startswith(b"asks-replay-index 6 ") and index_file.parse(older) is None
    side.write_bytes(older)
    journal, records = Journal.open(SID, data_dir=tmp_path)
    journal.close()
    assert records == cold.records and list(journal.warnings) == cold.warnings
    assert not any(pending_of(r.entry) is not None for r in records)
    assert side.read_bytes() == current
    again, lazy = Journal.open(SID, data_dir=tmp_path)
    again.close()
    assert is_lazy(Replay(lazy, [], 0))  # before the comparison reads every field
    assert lazy == cold.records
