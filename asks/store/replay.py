"""Replaying a journal's bytes into records, with or without a checkpoint.

:func:`replay_lines` decodes every complete line of ``data`` in order (damaged lines and lines
whose ``seq`` does not increase are skipped with a warning naming the line; a torn last line
is reported). Given a :class:`~asks.store.checkpoint.Checkpoint` that covers the first bytes
(:meth:`~asks.store.checkpoint.Checkpoint.covers`), the records of those bytes are the
checkpoint's, decoded from their lines when first read (:class:`~asks.store.records.Records`),
the warnings about them are the checkpoint's, and only the lines past it are decoded. The
records, the warnings and (folded) the projection are the same as without it.

``data`` may be mapped (:meth:`~asks.store.files.FileOps.map_all`): the records of a
checkpoint keep it, and read their lines from it when first built.
"""

from __future__ import annotations

import zlib

import attrs

from asks.store.checkpoint import Checkpoint
from asks.store.entries import DecodeError, Record, decode
from asks.store.files import Data
from asks.store.records import Lines, Records, Table

__all__ = ["Replay", "replay_lines"]

Fresh = tuple[int, int, int, Record]  # a decoded line: number, start, end (its "\n"), record


@attrs.define(eq=False)
class Replay:
    records: Records
    warnings: list[str]
    good_length: int  # bytes up to and including the last complete line
    fresh: list[Fresh] = attrs.Factory(list)  # the records decoded here, with their lines
    checkpoint: Checkpoint | None = None  # the checkpoint used, when it covered the bytes
    crc: int = 0  # CRC-32 of data[:good_length]
    lines: int = 0  # complete lines
    torn: bool = False  # the last warning is about a torn tail

    @property
    def line_warnings(self) -> list[str]:
        """The warnings about complete lines (all but the torn tail's)."""
        return self.warnings[:-1] if self.torn else list(self.warnings)

    def table(self) -> Table:
        """Where every record's line is (a copy: the journal's to extend)."""
        table = Table()
        if self.checkpoint is not None:
            table.extend(self.checkpoint.table)
        for _number, start, _end, record in self.fresh:
            table.add(start, record)
        return table


def replay_lines(data: Data, checkpoint: Checkpoint | None = None) -> Replay:
    """The replay of ``data`` (module docstring), with ``checkpoint`` if it covers it."""
    good_length = data.rfind(b"\n") + 1
    if checkpoint is not None and checkpoint.covers(data, good_length):
        lines = Lines(data, checkpoint.table)
        replay = Replay(Records((), lines, checkpoint), list(checkpoint.warnings), good_length)
        replay.checkpoint = checkpoint
        last = checkpoint.table.seqs[-1] if len(checkpoint.table) else None
        start, number, crc = checkpoint.length, checkpoint.lines + 1, checkpoint.crc
    else:
        replay = Replay(Records(), [], good_length)
        last, start, number, crc = None, 0, 1, 0
    replay.lines = _decode_span(replay, data, start, good_length, number, last) - 1
    replay.crc = zlib.crc32(memoryview(data)[start:good_length], crc)
    if replay.good_length < len(data):
        replay.torn = True
        replay.warnings.append(
            f"line {replay.lines + 1}: torn last line ({len(data) - replay.good_length} bytes "
            "without a newline) ignored and truncated"
        )
    return replay


def _decode_span(  # noqa: PLR0917 (one loop, all of it needed)
    replay: Replay, data: Data, start: int, end: int, number: int, last: int | None = None
) -> int:
    """Decode the complete lines of ``data[start:end]``, the first numbered ``number``, after
    the replay's last record (or one of seq ``last``); the number of the next line."""
    lines = data[start:end].split(b"\n")  # no copy of ``data`` for the whole of it
    lines.pop()  # the empty piece after the last newline
    records, fresh = replay.records, replay.fresh
    for line in lines:
        line_end = start + len(line)
        try:
            record = decode(line)
        except DecodeError as exc:
            replay.warnings.append(f"line {number}: skipped, does not decode: {exc}")
        else:
            if last is not None and record.seq <= last:
                replay.warnings.append(
                    f"line {number}: skipped, seq {record.seq} does not follow seq {last}"
                )
            else:
                records.append(record)
                fresh.append((number, start, line_end, record))
                last = record.seq
        start = line_end + 1
        number += 1
    return number
