"""Keeping a session's replay index (:mod:`asks.store.index`) current, for its one writer.

The :class:`~asks.store.journal.Journal` that holds the lock owns one :class:`IndexKeeper`.
It knows the index that describes the file's first bytes (the one the open trusted, or one it
wrote since), the lines decoded past it, and the CRC-32 and line count of the whole file,
updated at every acknowledged append (O(1)). A new index is written when at least
:data:`~asks.store.index.INDEX_MIN_BYTES` are not covered:

* **after the open's replay** (lines appended by a run that did not close, or by another
  version), from what the replay decoded;
* **after an append** (:meth:`IndexKeeper.after_append`, once the append is acknowledged),
  for the lines appended since the index was written: they are read back and decoded as a
  replay would decode them, so each row comes from a decode of the bytes on disk, never from
  the entry objects that were encoded. So the index is current while the session runs: a
  crash leaves less than ``INDEX_MIN_BYTES`` for the next open to decode, and a close has
  nothing to index (NOTES "Long sessions (issue 21)");
* **at close**, the same, if an earlier write failed and enough is still not covered.

At close it also writes the journal's stamp (:mod:`asks.store.stamp`): the CRC-32s of the
whole file and of the index's prefix, for the file's stat then, if that stat is the one it
took after the open's replay or its own last append (:meth:`IndexKeeper.observe`): so a
stamp only ever describes bytes this writer knows, and the next open checks the index
without reading the journal.

Each is best effort: any error leaves the old index (or none) and the old stamp (or none),
which a replay checks before use anyway.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from asks.store.entries import Record
from asks.store.files import FileOps
from asks.store.index import INDEX_MIN_BYTES, Index, build, index_path
from asks.store.records import Records
from asks.store.replay import Fresh, Replay, RowReader, decode_tail
from asks.store.stamp import StatKey, encode, stamp_path, stat_key

__all__ = ["IndexKeeper"]


@attrs.define(eq=False)
class IndexKeeper:
    """The replay index of one open journal (module docstring)."""

    path: Path  # the journal's
    index: Index | None = None
    fresh: list[Fresh] = attrs.Factory(list)  # decoded lines past the index
    decoded: int = 0  # bytes decoded (at the open, or for the last index): the rest follows
    length: int = 0  # bytes in the file, all complete lines
    crc: int = 0  # CRC-32 of those bytes
    lines: int = 0
    last_seq: int | None = None  # of the last record decoded
    seen: StatKey | None = None  # the file's stat after the open or this writer's last append
    warnings: list[str] = attrs.Factory(list)  # the replay's, about the lines decoded

    @classmethod
    def after_replay(cls, ops: FileOps, path: Path, replay: Replay) -> IndexKeeper:
        """The keeper of a journal just replayed; writes a new index if that one is due."""
        keeper = cls(
            path,
            replay.index,
            replay.fresh,
            replay.good_length,
            replay.good_length,
            replay.crc,
            replay.lines,
        )
        keeper.last_seq = replay.records[-1].seq if replay.records else None
        keeper.warnings = replay.line_warnings
        keeper._write_if_due(ops, keeper.fresh, keeper.warnings, replay.records)
        return keeper

    def appended(self, line: bytes) -> None:
        """An append of ``line`` was acknowledged."""
        self.length += len(line)
        self.crc = zlib.crc32(line, self.crc)
        self.lines += 1

    def observe(self, ops: FileOps, fd: int) -> None:
        """Take the file's stat now that this writer's bytes are on disk (after the open's
        replay and repair, after each acknowledged append)."""
        try:
            self.seen = stat_key(ops.status(fd))
        except OSError:
            self.seen = None

    def after_append(self, ops: FileOps, fd: int) -> None:
        """Index what was appended since the last index, if enough is not covered."""
        self.observe(ops, fd)
        if not self._due():
            return
        try:
            tail = ops.read_from(fd, self.decoded)[: self.length - self.decoded]
        except OSError:
            return
        number = self.lines - tail.count(b"\n") + 1
        appended, skipped = decode_tail(tail, self.decoded, number, self.last_seq)
        fresh, warnings = [*self.fresh, *appended], [*self.warnings, *skipped]
        try:
            rows = self._rows(ops, fd)
        except OSError:
            return
        if self._write_if_due(ops, fresh, warnings, _Chain(rows, fresh)):
            self.decoded = self.length
            if fresh:
                self.last_seq = fresh[-1][3].seq

    def _rows(self, ops: FileOps, fd: int) -> Sequence[Record]:
        """The records of the index's rows, built on access from the file mapped now."""
        if self.index is None:
            return ()
        rows = len(self.index.kind)
        return Records([None] * rows, RowReader(self.index, ops.map_all(fd, self.path)))

    def at_close(self, ops: FileOps, fd: int) -> None:
        """Index what is still not covered at close (when an earlier write failed), then
        stamp the file if nobody else wrote it since this writer's last stat."""
        seen = self.seen
        self.after_append(ops, fd)
        if seen is None or self.seen != seen or self.seen[2] != self.length:
            return
        crcs = {self.length: self.crc}
        if self.index is not None:
            crcs[self.index.length] = self.index.crc32
        try:
            ops.replace_file(stamp_path(self.path), encode(seen, crcs))
        except OSError:
            return

    def _due(self) -> bool:
        covered = 0 if self.index is None else self.index.length
        return self.length - covered >= INDEX_MIN_BYTES

    def _write_if_due(
        self, ops: FileOps, fresh: list[Fresh], warnings: list[str], records: Sequence[Record]
    ) -> bool:
        """Write the index of the whole file if due (``records``: those of the rows, then
        of ``fresh``); whether it was written."""
        if not self._due():
            return False
        try:
            blob, index = build(
                self.length,
                self.crc,
                self.index,
                fresh,
                lines=self.lines,
                warnings=warnings,
                records=records,
            )
            ops.replace_file(index_path(self.path), blob)
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            # After an acknowledged append: a row of the old index that does not match its
            # line, or a fold the snapshot's encoder does not know, leaves the old index.
            return False
        self.index, self.fresh, self.warnings = index, [], warnings
        return True


class _Chain(Sequence[Record]):
    """The records of an index's rows, then the fresh ones (record ``n`` = row ``n``)."""

    def __init__(self, rows: Sequence[Record], fresh: list[Fresh]) -> None:
        self._rows, self._fresh = rows, fresh

    def __len__(self) -> int:
        return len(self._rows) + len(self._fresh)

    def __getitem__(self, n: Any) -> Any:
        if isinstance(n, slice):
            return [self[i] for i in range(*n.indices(len(self)))]
        if n < 0:
            n += len(self)
        return self._rows[n] if n < len(self._rows) else self._fresh[n - len(self._rows)][3]
