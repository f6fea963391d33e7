"""Replaying a journal's bytes into records (no I/O here; :mod:`asks.store.journal` reads).

* Only complete lines count: a last line without ``\\n`` is a **torn tail** (never
  acknowledged), reported in ``warnings`` and excluded from ``good_length`` so the journal can
  cut it off.
* A complete line that does not decode, or whose ``seq`` does not increase, is skipped with a
  warning naming its line number. Replay never fails on content.
* With a replay index (:mod:`asks.store.index`) that checks out against ``data``, the records
  of the bytes it covers are a :class:`~asks.store.records.Records` built on access from its
  rows (:class:`RowReader`: a lazy record of :mod:`asks.store.lazy`, its row checked against
  ``data`` then), carrying the index's snapshot of their projection
  (:mod:`asks.store.snapshot`), its warnings are the index's, and only the lines past it are
  decoded. The records (compared field by field), the warnings and the projection are the
  same as without it. An index that does not check out is ignored.
* ``known`` (from the journal's stamp, :mod:`asks.store.stamp`) gives the CRC-32 of some
  prefixes of ``data``: those are not computed. Without it every CRC is computed.
* ``data`` may be mapped (:meth:`~asks.store.files.FileOps.map_all`): a lazy record keeps a
  view of its line (decoded from a copy when first read), so the records hold no copies.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Final

import attrs

from asks.core.model import QuestionRef
from asks.store.entries import DecodeError, Record, decode
from asks.store.files import Data
from asks.store.index import Index
from asks.store.lazy import BUILDERS, CHAT, KIND_TYPES, OTHER, record
from asks.store.records import Records
from asks.store.snapshot import Snapshot

__all__ = ["Fresh", "Replay", "decode_tail", "replay_lines"]

_NEWLINE: Final = 10
_NOTHING_KNOWN: Final[Mapping[int, int]] = {}
Fresh = tuple[int, int, int, Record]  # a decoded line: number, start, end (its "\n"), record


@attrs.define(eq=False)
class Replay:
    records: Records | list[Record]
    warnings: list[str]
    good_length: int  # bytes up to and including the last complete line
    fresh: list[Fresh] = attrs.Factory(list)  # the records decoded here, with their lines
    index: Index | None = None  # the index used, when it checked out
    crc: int = 0  # CRC-32 of data[:good_length]
    lines: int = 0  # complete lines
    torn: bool = False  # the last warning is about a torn tail

    @property
    def line_warnings(self) -> list[str]:
        """The warnings about complete lines (all but the torn tail's)."""
        return self.warnings[:-1] if self.torn else list(self.warnings)

    @property
    def covered(self) -> int:
        """Bytes described by the index used (0 without one)."""
        return 0 if self.index is None else self.index.length


def replay_lines(
    data: Data, index: Index | None = None, known: Mapping[int, int] = _NOTHING_KNOWN
) -> Replay:
    """The replay of ``data`` (module docstring); ``known``: CRC-32s of its prefixes, by
    length, that need not be computed."""
    if index is not None and (replay := _replay_indexed(data, index, known)) is not None:
        return replay
    replay = Replay(Records(), [], data.rfind(b"\n") + 1)
    replay.lines = _decode_span(replay, data, 0, replay.good_length, 1) - 1
    replay.crc = _crc(data, 0, replay.good_length, 0, known)
    _warn_torn_tail(replay, data, replay.lines + 1)
    return replay


def decode_tail(
    tail: bytes, offset: int, number: int, last_seq: int | None
) -> tuple[list[Fresh], list[str]]:
    """The records of the complete lines of ``tail`` (a journal's bytes from ``offset``, the
    first being its line ``number``) as a replay decodes them after a record ``last_seq``,
    and the replay's warnings about them."""
    replay = Replay([], [], tail.rfind(b"\n") + 1)
    _decode_span(replay, tail, 0, replay.good_length, number, last_seq)
    fresh = [(n, start + offset, end + offset, record) for n, start, end, record in replay.fresh]
    return fresh, replay.warnings


def _decode_span(  # noqa: PLR0917 (one loop, all of it needed)
    replay: Replay, data: Data, start: int, end: int, number: int, last: int | None = None
) -> int:
    """Decode the complete lines of ``data[start:end]``, the first numbered ``number``, after
    the replay's last record (or one of seq ``last``); the number of the next line."""
    lines = data[start:end].split(b"\n")  # no copy of ``data`` for the whole of it
    lines.pop()  # the empty piece after the last newline
    records, fresh = replay.records, replay.fresh
    if last is None and records:
        last = records[-1].seq
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


def _warn_torn_tail(replay: Replay, data: Data, number: int) -> None:
    if replay.good_length < len(data):
        replay.torn = True
        replay.warnings.append(
            f"line {number}: torn last line ({len(data) - replay.good_length} bytes "
            "without a newline) ignored and truncated"
        )


def _crc(data: Data, start: int, end: int, crc: int, known: Mapping[int, int]) -> int:
    """The CRC-32 of ``data[:end]``, ``crc`` being that of ``data[:start]``: ``known`` (by
    length) or computed over ``data[start:end]``."""
    found = known.get(end)
    return zlib.crc32(memoryview(data)[start:end], crc) if found is None else found


def _replay_indexed(data: Data, index: Index, known: Mapping[int, int]) -> Replay | None:
    """The replay of ``data`` using ``index``, or ``None`` if the index does not check out:
    its rows' records built on access, its snapshot for their projection, the lines past it
    decoded."""
    good_length = data.rfind(b"\n") + 1
    length = index.length
    if not 0 < length <= good_length or data[length - 1] != _NEWLINE:
        return None
    if _crc(data, 0, length, 0, known) != index.crc32:
        return None
    rows = len(index.kind)
    records = Records([None] * rows, RowReader(index, data), (index.kind, KIND_TYPES))
    records.snapshot = Snapshot(index, records)
    replay = Replay(records, list(index.warnings), good_length, index=index)
    last = index.seq[-1] if rows else None
    number = _decode_span(replay, data, length, good_length, index.lines + 1, last)
    replay.lines = number - 1
    replay.crc = _crc(data, length, good_length, index.crc32, known)
    _warn_torn_tail(replay, data, number)
    return replay


class RowReader:
    """Record ``n`` of an index's rows, built from its columns and a view of its line."""

    __slots__ = ("data", "index", "refs", "view")

    def __init__(self, index: Index, data: Data) -> None:
        self.index, self.data, self.view = index, data, memoryview(data)
        self.refs: list[QuestionRef | None] = [None] * len(index.table.ids)

    def ref(self, position: int) -> QuestionRef:
        ref = self.refs[position]
        if ref is None:
            table = self.index.table
            ref = self.refs[position] = QuestionRef(
                table.ids[position], table.incarnations[position]
            )
        return ref

    def __call__(self, n: int) -> Record:
        index, data = self.index, self.data
        start, end, kind = index.start[n], index.end[n], index.kind[n]
        if not (0 <= start <= end < index.length and data[end] == _NEWLINE) or (
            start and data[start - 1] != _NEWLINE
        ):
            raise ValueError(f"replay index row {n} names no line of the journal")
        line = self.view[start:end]
        fact = index.fact[n]
        if (fact < 0) != (kind == CHAT or kind >= OTHER) or fact >= len(index.counts):
            raise ValueError(f"replay index row {n}: its facts do not match its kind")
        if fact < 0:
            entry = BUILDERS[kind](line, iter(()), [], 0, b"")
        else:
            first = index.item_at[fact]
            last = first + index.counts[fact]
            strings = index.strings[index.string_at[fact] : index.string_at[fact] + 2]
            refs = [self.ref(p) for p in index.items[first:last]]
            entry = BUILDERS[kind](
                line, iter(strings), refs, index.flags[fact], bytes(index.item_kinds[first:last])
            )
        return record(index.seq[n], index.ts[n], entry)
