"""The replay index: a sidecar file that lets a replay skip decoding most journal lines.

``<data_dir>/<session_id>.jsonl.idx`` describes the first ``length`` bytes of the journal:
for every line there that decoded to a record of a lazy kind (:mod:`asks.store.lazy`), a row
with its position, ``seq``, ``ts`` and facts. A replay that trusts the index builds those
records lazily (their lines are decoded on first read) and decodes every other line as usual.

File format: a header line, a JSON line, then columns of machine values::

    asks-replay-index <FORMAT> <sha256 of everything after this line, hex>\n
    {"app": …, "fingerprint": …, "byteorder": …, "length": L,
     "crc32": <CRC-32 of journal[:L]>, "rows": R, "facts": F, "items": I,
     "ref_ids": [the id of each ref], "strings": [the facts' strings, in row order]}\n
    per row: number, start, end, seq (int64), ts (float64), kind (byte)
    per ref: incarnation (int64)
    per row that is not a chat message (F): ref count (uint16), flag (byte)
    per ref of those rows, in row order (I): ref position (int32), resolution kind (byte)

Invariants:

* **Never trusted unverified.** A replay uses an index only if the header names this
  ``FORMAT``, the body's digest matches, ``app`` and ``fingerprint`` (the tags, fields and
  field types of the entry and value classes, the enums' values) are this code's, ``L`` ends
  on a newline inside the journal's complete lines, the CRC-32 of ``journal[:L]`` matches (a
  guard against change and damage, not against a hostile writer, who could as well rewrite
  the journal), and every row begins after a newline and ends at one, in order, at the line
  number it claims (:func:`asks.store.replay.replay_lines` checks the rows). Anything else:
  the index is ignored and the journal replayed in full, as if there were none. An index is
  never repaired; a stale one is replaced by the next writer. ``FORMAT`` changes whenever
  the decoding rules do.
* **What a row asserts.** Line ``number`` decoded, with this code, to a record of that kind
  with that ``seq``, ``ts`` and facts; rows come only from such decodes (:func:`build`). So a
  replay with a trusted index yields records equal to a full replay, and the same warnings
  (lines without a row are decoded again, numbered the same way).
* **Crash-safe by verification.** Only the journal's one writer (it holds the lock) writes
  the index, to a temporary file renamed over the old one, without fsync: after a crash the
  file is the old index, the new one, a partial one or none, and the first three are
  checked like any other. The journal itself never depends on it.
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from pathlib import Path
from typing import Any, Final

import attrs

from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.core.version import __version__
from asks.store.entries import SCHEMA_VERSION, TAGS, Record, SessionMode
from asks.store.lazy import CHAT, RefTable, Row, row_of

__all__ = ["INDEX_MIN_BYTES", "Index", "build", "index_path", "parse"]

FORMAT: Final = 4  # 4: rows for wait_opened and withdrawn lines
INDEX_SUFFIX: Final = ".idx"
# A replay writes a new index when it decoded at least this many bytes the old one did not
# cover (below that, a full decode costs ~10 ms and a file is not worth it).
INDEX_MIN_BYTES: Final = 1 << 20
_MAGIC: Final = b"asks-replay-index %d " % FORMAT


def _fields(cls: type[Any]) -> str:
    return ",".join(f"{field.name}={field.type}" for field in attrs.fields(cls))


_VALUE_CLASSES: Final = (Question, QuestionSpec, Option, QuestionRef, Resolution, Answer)
_ENUMS: Final = (Outcome, ResolutionKind, AnswerKind, SessionMode)
# What decides whether and how a line decodes, besides the decoding code (FORMAT, app version).
FINGERPRINT: Final = f"v{SCHEMA_VERSION};" + ";".join(
    [
        *(f"{tag}:{_fields(cls)}" for cls, tag in TAGS.items()),
        *(f"{cls.__name__}:{_fields(cls)}" for cls in _VALUE_CLASSES),
        *(f"{cls.__name__}:{','.join(member.value for member in cls)}" for cls in _ENUMS),
    ]
)


_ROW_COLUMNS: Final = ("number", "start", "end", "seq", "ts", "kind")


@attrs.define(eq=False)
class Index:
    """A parsed index whose file checked out (the journal bytes are checked by the replay):
    its columns (module docstring). Row ``n`` is ``number[n], start[n], end[n], seq[n],
    ts[n], kind[n]``; the rows that are not chat messages take, in order, their ``counts``
    (and ``flags``) and that many ``items`` (and ``item_kinds``), and their strings."""

    length: int
    crc32: int
    table: RefTable
    strings: list[str] = attrs.Factory(list)
    number: array[int] = attrs.Factory(lambda: array("q"))
    start: array[int] = attrs.Factory(lambda: array("q"))
    end: array[int] = attrs.Factory(lambda: array("q"))
    seq: array[int] = attrs.Factory(lambda: array("q"))
    ts: array[float] = attrs.Factory(lambda: array("d"))
    kind: bytearray = attrs.Factory(bytearray)
    counts: array[int] = attrs.Factory(lambda: array("H"))
    flags: bytearray = attrs.Factory(bytearray)
    items: array[int] = attrs.Factory(lambda: array("i"))
    item_kinds: bytearray = attrs.Factory(bytearray)

    def add(self, row: Row) -> None:
        number, start, end, seq, ts, kind, facts = row
        if facts is not None and len(facts[1]) > 0xFFFF:
            return  # not a lazy line then: decoded at every replay
        for name, value in zip(_ROW_COLUMNS, (number, start, end, seq, ts, kind), strict=True):
            getattr(self, name).append(value)
        if facts is not None:
            strings, refs, flag, kinds = facts
            self.strings.extend(strings)
            self.counts.append(len(refs))
            self.flags.append(flag)
            self.items.extend(refs)
            self.item_kinds.extend(kinds)

    def columns(self) -> list[bytes]:
        """The columns after the JSON line, in file order."""
        names = (*_ROW_COLUMNS, "incarnations", "counts", "flags", "items", "item_kinds")
        return [bytes(self._column(name)) for name in names]

    def _column(self, name: str) -> array[Any] | bytearray:
        return self.table.incarnations if name == "incarnations" else getattr(self, name)


def index_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + INDEX_SUFFIX)


def parse(blob: bytes) -> Index | None:
    """The index in ``blob``, or ``None`` if it is not one this code wrote (module docstring)."""
    import orjson  # noqa: PLC0415 (not before a new session's first frame: asks/store/entries.py)

    view = memoryview(blob)  # no copies of the 6 MB of a 100k-line journal's index
    head_end = blob.find(b"\n")
    meta_end = blob.find(b"\n", head_end + 1)
    head, body = blob[:head_end], view[head_end + 1 :]
    if head_end < 0 or meta_end < 0 or not head.startswith(_MAGIC):
        return None
    if head[len(_MAGIC) :] != hashlib.sha256(body).hexdigest().encode():
        return None
    try:
        raw = orjson.loads(view[head_end + 1 : meta_end])
        current = (raw["app"], raw["fingerprint"], raw["byteorder"]) == (
            __version__,
            FINGERPRINT,
            sys.byteorder,
        )
        sizes = (raw["length"], raw["crc32"], raw["rows"], raw["facts"], raw["items"])
        ids, strings = raw["ref_ids"], raw["strings"]
        if not current or any(type(size) is not int for size in sizes):
            return None
        if type(ids) is not list or type(strings) is not list:
            return None
        index = Index(sizes[0], sizes[1], RefTable(), strings)
        index.table.ids = ids
        _read_columns(index, view[meta_end + 1 :], *sizes[2:])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return index


def _read_columns(index: Index, columns: memoryview, rows: int, facts: int, items: int) -> None:
    counts = {
        "number": rows,
        "start": rows,
        "end": rows,
        "seq": rows,
        "ts": rows,
        "kind": rows,
        "incarnations": len(index.table.ids),
        "counts": facts,
        "flags": facts,
        "items": items,
        "item_kinds": items,
    }
    offset = 0
    for name, count in counts.items():
        column = index._column(name)
        size = count * (1 if isinstance(column, bytearray) else column.itemsize)
        chunk = columns[offset : offset + size]
        if isinstance(column, bytearray):
            column[:] = chunk
        else:
            column.frombytes(chunk)
        offset += size
    if offset != len(columns) or len(index.start) != rows or len(index.item_kinds) != items:
        raise ValueError("the columns do not match their counts")
    if sum(index.counts) != items or index.kind.count(CHAT) != rows - facts:
        raise ValueError("the fact columns do not match the rows")


def build(
    length: int, crc: int, kept: Index | None, fresh: list[tuple[int, int, int, Record]]
) -> tuple[bytes, Index]:
    """The index (file bytes and parsed) of a journal's first ``length`` bytes, whose CRC-32
    is ``crc``: the rows of ``kept`` (a trusted index of a prefix), then one per record of
    ``fresh`` (decoded lines ``(number, start, end, record)``) past it and inside the length."""
    table = RefTable(kept.table.ids, kept.table.incarnations) if kept else RefTable()
    index = Index(length, crc, table)
    covered = 0
    if kept is not None:
        covered = kept.length
        for name in (*_ROW_COLUMNS, "strings", "counts", "flags", "items", "item_kinds"):
            getattr(index, name).extend(getattr(kept, name))
    for number, start, end, record in fresh:
        inside = covered <= start and end < length
        if inside and (row := row_of(number, start, end, record, table)) is not None:
            index.add(row)
    import orjson  # noqa: PLC0415 (not before a new session's first frame: asks/store/entries.py)

    meta = orjson.dumps(
        {
            "app": __version__,
            "fingerprint": FINGERPRINT,
            "byteorder": sys.byteorder,
            "length": length,
            "crc32": crc,
            "rows": len(index.kind),
            "facts": len(index.counts),
            "items": len(index.items),
            "ref_ids": table.ids,
            "strings": index.strings,
        }
    )
    body = b"".join([meta, b"\n", *index.columns()])
    return _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body, index
