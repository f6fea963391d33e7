"""Replaying a journal's bytes into records (no I/O here; :mod:`asks.store.journal` reads).

* Only complete lines count: a last line without ``\\n`` is a **torn tail** (never
  acknowledged), reported in ``warnings`` and excluded from ``good_length`` so the journal can
  cut it off.
* A complete line that does not decode, or whose ``seq`` does not increase, is skipped with a
  warning naming its line number. Replay never fails on content.
* With a replay index (:mod:`asks.store.index`) that checks out against ``data``, the lines it
  has rows for become lazy records (:mod:`asks.store.lazy`) and only the others are decoded;
  the records (compared field by field) and the warnings are the same as without it. An index
  that does not check out is ignored.
* ``known`` (from the journal's stamp, :mod:`asks.store.stamp`) gives the CRC-32 of some
  prefixes of ``data``: those are not computed. Without it every CRC is computed.
* ``data`` may be mapped (:meth:`~asks.store.files.FileOps.map_all`): a lazy record keeps a
  view of its line (decoded from a copy when first read), so the records hold no copies.
* The cyclic GC is paused while the records are built (:func:`asks.core.gcpause.paused_gc`).
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Final

import attrs

from asks.core.gcpause import paused_gc
from asks.core.model import QuestionRef
from asks.store.entries import ChatMessage, DecodeError, Record, decode
from asks.store.files import Data
from asks.store.index import Index
from asks.store.lazy import BUILDERS, CHAT, set_entry, set_pending, set_seq, set_ts

__all__ = ["Fresh", "Replay", "decode_tail", "replay_lines"]

_NEWLINE: Final = 10
_NOTHING_KNOWN: Final[Mapping[int, int]] = {}
Fresh = tuple[int, int, int, Record]  # a decoded line: number, start, end (its "\n"), record


@attrs.define(eq=False)
class Replay:
    records: list[Record]
    warnings: list[str]
    good_length: int  # bytes up to and including the last complete line
    fresh: list[Fresh] = attrs.Factory(list)  # the records decoded here, with their lines
    index: Index | None = None  # the index used, when it checked out
    crc: int = 0  # CRC-32 of data[:good_length]
    lines: int = 0  # complete lines

    @property
    def covered(self) -> int:
        """Bytes described by the index used (0 without one)."""
        return 0 if self.index is None else self.index.length


def replay_lines(
    data: Data, index: Index | None = None, known: Mapping[int, int] = _NOTHING_KNOWN
) -> Replay:
    """The replay of ``data`` (module docstring); ``known``: CRC-32s of its prefixes, by
    length, that need not be computed."""
    with paused_gc():
        if index is not None and (replay := _replay_indexed(data, index, known)) is not None:
            return replay
        replay = Replay([], [], data.rfind(b"\n") + 1)
        replay.lines = _decode_span(replay, data, 0, replay.good_length, 1) - 1
        replay.crc = _crc(data, 0, replay.good_length, 0, known)
        _warn_torn_tail(replay, data, replay.lines + 1)
        return replay


def decode_tail(tail: bytes, offset: int, number: int, last_seq: int | None) -> list[Fresh]:
    """The records of the complete lines of ``tail`` (a journal's bytes from ``offset``, the
    first being its line ``number``) as a replay decodes them after a record ``last_seq``."""
    replay = Replay([], [], tail.rfind(b"\n") + 1)
    _decode_span(replay, tail, 0, replay.good_length, number, last_seq)
    return [(n, start + offset, end + offset, record) for n, start, end, record in replay.fresh]


def _decode_span(  # noqa: PLR0917 (one loop, all of it needed)
    replay: Replay, data: Data, start: int, end: int, number: int, last: int | None = None
) -> int:
    """Decode the complete lines of ``data[start:end]``, the first numbered ``number``, after
    the replay's last record (or one of seq ``last``); the number of the next line."""
    lines = data[start:end].split(b"\n")  # no copy of ``data`` for the whole of it
    lines.pop()  # the empty piece after the last newline
    records, fresh = replay.records, replay.fresh
    if records:
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
    """The replay of ``data`` using ``index``, or ``None`` if the index does not check out."""
    good_length = data.rfind(b"\n") + 1
    length = index.length
    if not 0 < length <= good_length or data[length - 1] != _NEWLINE:
        return None
    if _crc(data, 0, length, 0, known) != index.crc32:
        return None
    replay = Replay([], [], good_length, index=index)
    try:
        table = index.table
        refs = [
            QuestionRef(ref_id, n) for ref_id, n in zip(table.ids, table.incarnations, strict=True)
        ]
        position, number = _lazy_rows(replay, data, index, [refs[n] for n in index.items])
    except (ValueError, TypeError, KeyError, IndexError, StopIteration):
        return None
    if position < 0:
        return None
    number = _decode_span(replay, data, position, good_length, number)
    replay.lines = number - 1
    replay.crc = _crc(data, length, good_length, index.crc32, known)
    _warn_torn_tail(replay, data, number)
    return replay


def _lazy_rows(
    replay: Replay, data: Data, index: Index, items: list[QuestionRef]
) -> tuple[int, int]:
    """Fold the index's rows (and the lines between them) into ``replay``; the position and
    number of the first line after the last row, or ``(-1, 0)`` if a row does not begin after
    a newline and end at one inside the indexed bytes, in order, at the number it claims."""
    records, warnings = replay.records, replay.warnings
    position, number, length = 0, 1, index.length
    last: int | None = None
    build, new, strings = BUILDERS, object.__new__, iter(index.strings)
    view = memoryview(data)  # a lazy record keeps a view of its line, not a copy
    counts, flags, kinds = index.counts, index.flags, index.item_kinds
    fact, item = 0, 0  # the next row with facts, the next of its refs
    rows = zip(index.number, index.start, index.end, index.seq, index.ts, index.kind, strict=True)
    for row_number, start, end, seq, ts, kind in rows:
        if start != position:
            if start < position or data[start - 1] != _NEWLINE:
                return -1, 0
            number = _decode_span(replay, data, position, start, number)
            last = records[-1].seq if records else None
        if row_number != number or end >= length or data[end] != _NEWLINE:
            return -1, 0
        if kind == CHAT:  # half the rows: built here, without the calls (~10 ms in 100k)
            entry = new(ChatMessage)
            set_pending(entry, (view[start:end], None))
        else:
            end_item = item + counts[fact]
            entry = build[kind](
                view[start:end], strings, items[item:end_item], flags[fact], kinds[item:end_item]
            )
            fact, item = fact + 1, end_item
        if last is not None and seq <= last:
            warnings.append(f"line {number}: skipped, seq {seq} does not follow seq {last}")
        else:
            made = new(Record)
            set_seq(made, seq)
            set_ts(made, ts)
            set_entry(made, entry)
            records.append(made)
            last = seq
        position, number = end + 1, number + 1
    whole = fact == len(counts) and next(strings, None) is None
    return (position, number) if whole else (-1, 0)
