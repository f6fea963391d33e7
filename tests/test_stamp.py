"""The journal's stamp (asks/store/stamp.py): after a clean close the next open checks the
replay index without reading the journal for its CRC, and a journal changed in any way
since (by asks or anyone else, before or after the close) is checked by its bytes again:
the records, warnings and projection are always a full replay's."""

from __future__ import annotations

import itertools
import os
import random
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.journals import (
    SID,
    NoFsync,
    covered,
    cycle,
    is_lazy,
    journal_bytes,
    state,
    write_big_journal,
)

from asks.store import index as index_file
from asks.store import indexer, replay
from asks.store import stamp as stamp_file
from asks.store.entries import ChatMessage
from asks.store.journal import FileOps, Journal, StorageError, read_records
from asks.store.projection import Projection
from asks.store.replay import replay_lines


class Counted:
    """``zlib.crc32`` for asks/store/replay.py, counting the bytes it reads."""

    def __init__(self) -> None:
        self.read = 0

    def crc32(self, data: Any, value: int = 0) -> int:
        self.read += len(data)
        return zlib.crc32(data, value)


def open_counting(data_dir: Path, ops: FileOps | None = None) -> tuple[Journal, list[Any], int]:
    """``Journal.open`` of the test session, and how many bytes its CRCs read."""
    counted = Counted()
    with mock.patch.object(replay, "zlib", counted):
        journal, records = Journal.open(SID, data_dir=data_dir, file_ops=ops)
    return journal, records, counted.read


def stamp_of(path: Path) -> Path:
    return stamp_file.stamp_path(path)


def test_after_a_clean_close_the_open_reads_no_byte_for_its_check(tmp_path: Path) -> None:
    path = write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()  # writes the index, then the stamp
    assert stamp_of(path).exists()
    journal, records, read = open_counting(tmp_path)
    cold = replay_lines(path.read_bytes())
    assert read == 0 and is_lazy(replay.Replay(records, [], 0))
    journal.append(ChatMessage("user", "one more"))
    journal.close()
    again, grown, read = open_counting(tmp_path)
    again.close()
    assert read == 0  # the close stamped the grown file: its CRC and the index's
    assert records == cold.records and grown == replay_lines(path.read_bytes()).records
    assert list(again.warnings) == []
    listing = read_records(SID, data_dir=tmp_path)  # the read-only replay uses it too
    assert listing == grown


def test_no_stamp_is_the_old_check(tmp_path: Path) -> None:
    path = write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()
    stamp_of(path).unlink()
    journal, records, read = open_counting(tmp_path)
    journal.close()
    assert read == path.stat().st_size  # the whole file's CRC, as before stamps
    assert records == replay_lines(path.read_bytes()).records


def edits(data: bytes) -> Iterator[tuple[str, bytes]]:
    """Ways the journal may change after it was stamped: what the next open must see."""
    yield "same size, valid JSON", data.replace(b"message 7", b"massage 7", 1)
    yield "a damaged byte", data[:500] + bytes([data[500] ^ 0x01]) + data[501:]
    yield "cut short", data[: data.rfind(b"\n", 0, len(data) // 2) + 1]
    yield "appended by another", data + journal_bytes(3)[len(journal_bytes(2)) :]
    yield "the same bytes again", data


@pytest.mark.parametrize("how", ["in place", "replaced"])
def test_a_journal_changed_after_its_stamp_is_checked_by_its_bytes(
    tmp_path: Path, how: str
) -> None:
    path = write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()
    original, side, stamp = path.read_bytes(), index_file.index_path(path), stamp_of(path)
    files = {p: p.read_bytes() for p in (side, stamp)}
    for name, changed in edits(original):
        for p, blob in files.items():  # the index and the stamp of the original
            p.write_bytes(blob)
        if how == "in place":
            with path.open("r+b") as stream:
                stream.write(changed)
                stream.truncate(len(changed))
        else:
            path.with_name("new").write_bytes(changed)
            os.replace(path.with_name("new"), path)
        journal, records, read = open_counting(tmp_path)
        journal.close()
        cold = replay_lines(changed)
        assert read >= min(len(changed), covered_by(files[side])), name
        assert records == cold.records and list(journal.warnings) == cold.warnings, name
        path.write_bytes(original)


def covered_by(blob: bytes) -> int:
    parsed = index_file.parse(blob)
    assert parsed is not None
    return parsed.length


def test_a_write_by_another_while_the_session_runs_leaves_no_stamp(tmp_path: Path) -> None:
    """The writer stamps only a file it alone wrote since its last stat: a foreign write of
    the same size before the close is seen at the next open, which checks the bytes."""
    path = write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()
    journal, _ = Journal.open(SID, data_dir=tmp_path)
    journal.append(ChatMessage("user", "mine"))
    data = path.read_bytes()
    changed = data.replace(b"message 7", b"massage 7", 1)
    with path.open("r+b") as stream:  # another program, ignoring the lock
        stream.write(changed)
    journal.close()
    again, records, read = open_counting(tmp_path)
    again.close()
    assert read >= covered(path) or read == len(changed)
    assert records == replay_lines(changed).records


@pytest.mark.parametrize(
    "blob",
    [b"", b"asks-journal-stamp 1 ", b"asks-journal-stamp 1 00000000 1 2 3 4 5\n", b"hello\n"],
)
def test_a_torn_or_foreign_stamp_is_ignored(tmp_path: Path, blob: bytes) -> None:
    path = write_big_journal(tmp_path)
    Journal.open(SID, data_dir=tmp_path)[0].close()
    good = stamp_of(path).read_bytes()
    for bad in (blob, good[: len(good) // 2], good[:-1], good.replace(b" ", b"  ", 1)):
        stamp_of(path).write_bytes(bad)
        journal, records, read = open_counting(tmp_path)
        journal.close()
        assert read == path.stat().st_size
        assert records == replay_lines(path.read_bytes()).records


def test_a_stamp_is_only_for_its_stat() -> None:
    key = (1, 2, 300, 4, 5)
    blob = stamp_file.encode(key, {300: 7, 100: 8})
    assert stamp_file.known_crcs(blob, key) == {300: 7, 100: 8}
    for n in range(5):
        other = tuple(v + (i == n) for i, v in enumerate(key))
        assert stamp_file.known_crcs(blob, other) == {}  # type: ignore[arg-type]


@settings(max_examples=20, deadline=None)
@given(
    cycles=st.integers(1, 40),
    threshold=st.integers(300, 10_000),
    steps=st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(["resume", "crash", "edit", "edit open"])),
        max_size=4,
    ),
    seed=st.integers(0, 100),
)
def test_any_history_of_closes_crashes_and_edits_opens_as_a_full_replay(
    cycles: int, threshold: int, steps: list[tuple[float, str]], seed: int
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
        mock.patch.object(indexer, "INDEX_MIN_BYTES", threshold),
    ):
        data_dir, spare = Path(tmp) / "data", Path(tmp) / "spare"
        path = data_dir / f"{SID}.jsonl"
        journal = Journal.create(data_dir=data_dir, session_id=SID, file_ops=NoFsync())
        for number, entry in enumerate(entries):
            journal.append(entry)
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
                journal = reopened_as_full_replay(data_dir, path)
        journal.close()
        reopened_as_full_replay(data_dir, path).close()


EDITS = (  # same size: a text, a fact the index has a row column for, a line that breaks
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


def reopened_as_full_replay(data_dir: Path, path: Path) -> Journal:
    data = path.read_bytes()
    journal, records = Journal.open(SID, data_dir=data_dir, file_ops=NoFsync())
    cold = replay_lines(data[: data.rfind(b"\n") + 1])
    assert records == cold.records
    assert [w for w in journal.warnings if "torn" not in w] == cold.warnings
    lazy, eager = Projection(), Projection()
    lazy.apply_all(records)
    eager.apply_all(cold.records)
    assert state(lazy) == state(eager)
    return journal


def test_a_session_that_could_not_be_created_leaves_no_stamp(tmp_path: Path) -> None:
    """The first line was written and stat'd, then the directory's fsync failed: the new
    file is removed, and so is the stamp its close wrote."""

    class NoDirFsync(FileOps):
        def fsync_dir(self, path: Path) -> None:
            raise OSError(5, "Input/output error")

    with pytest.raises(StorageError, match="nothing was saved"):
        Journal.create(data_dir=tmp_path, session_id=SID, file_ops=NoDirFsync())
    assert list(tmp_path.iterdir()) == []
