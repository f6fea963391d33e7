"""The replay index: a sidecar file that lets a replay skip decoding most journal lines.

``<data_dir>/<session_id>.jsonl.idx`` describes the first ``length`` bytes of the journal:
for every line there that decoded to a record of a lazy kind (:mod:`asks.store.lazy`), a row
with its position, ``seq``, ``ts`` and facts. A replay that trusts the index builds those
records lazily (their lines are decoded on first read) and decodes every other line as usual.

File format: a header line, a JSON line, then columns of machine values::

    asks-replay-index <FORMAT> <CRC-32 of everything after this line, 8 hex digits>\n
    {"app": …, "fingerprint": …, "byteorder": …, "length": L,
     "crc32": <CRC-32 of journal[:L]>, "rows": R, "facts": F, "items": I,
     "lines": <complete lines in journal[:L]>, "warnings": [the replay's, for those lines],
     "ref_ids": [the id of each ref], "strings": [the facts' strings, in row order],
     "snapshot": {scalars and the length of each snapshot column}}\n
    per row: number, start, end, seq (int64), ts (float64), kind (byte), fact (int32, -1)
    per ref: incarnation (int64)
    per row with facts (F): ref count (uint16), flag (byte), first item, first string (int32)
    per ref of those rows, in row order (I): ref position (int32), resolution kind (byte)
    the snapshot's columns (:data:`SNAPSHOT_COLUMNS`, :mod:`asks.store.snapshot`)

Every record of ``journal[:L]`` has a row (FORMAT 5), so record ``n`` is row ``n``; and the
index holds the **snapshot**: the projection that folding those records gives
(:mod:`asks.store.snapshot`), so that a trusted open builds no record it does not read.

Invariants:

* **Never trusted unverified.** A replay uses an index only if the header names this
  ``FORMAT``, the body's CRC-32 matches (a side file checked for a torn write or damage,
  like the journal's prefix below, not against a hostile writer: ~4 ms for the 8 MB of a
  100k-line journal's index where SHA-256 took ~10), ``app`` and ``fingerprint`` (the tags,
  fields and field types of the entry and value classes, the enums' values) are this code's,
  ``L`` ends on a newline inside the journal's complete lines, the CRC-32 of ``journal[:L]``
  matches (a guard against change and damage, not against a hostile writer, who could as
  well rewrite the journal; or the journal's stamp knows it, :mod:`asks.store.stamp`), and
  every row begins after a newline and ends at one, inside ``L``, with facts as its kind has
  (checked when the row's record is built: a row that does not raises).
  Anything else: the index is ignored and the journal replayed in full, as if there were
  none. An index is never repaired; a stale one is replaced by the next writer. ``FORMAT``
  changes whenever the decoding or folding rules do.
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

import sys
import zlib
from array import array
from collections.abc import Sequence
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
from asks.store.lazy import RefTable, Row, row_of

__all__ = ["INDEX_MIN_BYTES", "Index", "build", "index_path", "parse"]

# 4: rows for wait_opened and withdrawn lines; 5: every line, the snapshot; 6: CRC-32 header
FORMAT: Final = 6
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
# The snapshot's columns (asks/store/snapshot.py says what they hold): name, array type.
SNAPSHOT_COLUMNS: Final = (
    ("by_ref", "i"),  # ref position of each question state, in by_ref's order
    ("by_ref_group", "i"),  # the record of its group, and its position there
    ("by_ref_position", "i"),
    ("by_ref_saved", "i"),  # the record that saved its resolution (-1), and its position
    ("by_ref_saved_position", "i"),
    ("by_ref_status", "b"),  # position in QuestionStatus
    ("by_ref_delivered", "b"),
    ("current", "i"),  # ref position of each current[id], in current's order
    ("pending", "i"),  # ref positions, in order
    ("calls", "i"),  # the record (group or wait) that made each call, in calls' order
    ("calls_result", "i"),  # the record of its result (-1)
    ("open_calls", "i"),  # positions in calls, in order
    ("undelivered", "i"),  # the record of each unit (its resolved or note line), in order
    ("undelivered_position", "i"),  # the resolution's position there (-1: a note)
    ("notes", "i"),  # the record of each note, in order
    ("notes_delivered", "b"),
    ("offered", "i"),  # the record of each offer and the position of the ref there
    ("offered_position", "i"),
    ("conversation", "i"),  # records, in order
)


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
    fact: array[int] = attrs.Factory(lambda: array("i"))
    counts: array[int] = attrs.Factory(lambda: array("H"))
    flags: bytearray = attrs.Factory(bytearray)
    item_at: array[int] = attrs.Factory(lambda: array("i"))
    string_at: array[int] = attrs.Factory(lambda: array("i"))
    items: array[int] = attrs.Factory(lambda: array("i"))
    item_kinds: bytearray = attrs.Factory(bytearray)
    lines: int = 0
    warnings: list[str] = attrs.Factory(list)
    snapshot: dict[str, Any] = attrs.Factory(dict)  # the scalars
    columns_of_snapshot: dict[str, array[int]] = attrs.Factory(
        lambda: {name: array(code) for name, code in SNAPSHOT_COLUMNS}
    )

    def add(self, row: Row) -> None:
        number, start, end, seq, ts, kind, facts = row
        for name, value in zip(_ROW_COLUMNS, (number, start, end, seq, ts, kind), strict=True):
            getattr(self, name).append(value)
        if facts is None:
            self.fact.append(-1)
            return
        strings, refs, flag, kinds = facts
        self.fact.append(len(self.counts))
        self.item_at.append(len(self.items))
        self.string_at.append(len(self.strings))
        self.strings.extend(strings)
        self.counts.append(len(refs))
        self.flags.append(flag)
        self.items.extend(refs)
        self.item_kinds.extend(kinds)

    def columns(self) -> list[bytes]:
        """The columns after the JSON line, in file order."""
        names = (*_COLUMNS, *(name for name, _ in SNAPSHOT_COLUMNS))
        return [bytes(self._column(name)) for name in names]

    def _column(self, name: str) -> array[Any] | bytearray:
        if name == "incarnations":
            return self.table.incarnations
        if name in self.columns_of_snapshot:
            return self.columns_of_snapshot[name]
        column: array[Any] | bytearray = getattr(self, name)
        return column


_COLUMNS: Final = (
    *_ROW_COLUMNS,
    "fact",
    "incarnations",
    "counts",
    "flags",
    "item_at",
    "string_at",
    "items",
    "item_kinds",
)


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
    if head[len(_MAGIC) :] != _check(body):
        return None
    try:
        raw = orjson.loads(view[head_end + 1 : meta_end])
        current = (raw["app"], raw["fingerprint"], raw["byteorder"]) == (
            __version__,
            FINGERPRINT,
            sys.byteorder,
        )
        sizes = (raw["length"], raw["crc32"], raw["rows"], raw["facts"], raw["items"])
        ids, strings, warnings = raw["ref_ids"], raw["strings"], raw["warnings"]
        snapshot, lines = raw["snapshot"], raw["lines"]
        if not current or any(type(size) is not int for size in (*sizes, lines)):
            return None
        if any(type(value) is not list for value in (ids, strings, warnings)):
            return None
        if type(snapshot) is not dict:
            return None
        index = Index(sizes[0], sizes[1], RefTable(), strings, lines=lines, warnings=warnings)
        index.table.ids = ids
        index.snapshot = snapshot
        _read_columns(index, view[meta_end + 1 :], *sizes[2:])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return index


def _read_columns(index: Index, columns: memoryview, rows: int, facts: int, items: int) -> None:
    counts = {
        **dict.fromkeys(_ROW_COLUMNS, rows),
        "fact": rows,
        "incarnations": len(index.table.ids),
        **dict.fromkeys(("counts", "flags", "item_at", "string_at"), facts),
        "items": items,
        "item_kinds": items,
    }
    sizes = index.snapshot["sizes"]
    for name, _ in SNAPSHOT_COLUMNS:
        if type(sizes[name]) is not int:
            raise ValueError(f"no size for the snapshot's {name}")
        counts[name] = sizes[name]
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
    if sum(index.counts) != items:  # (a row's fact is checked against its kind when read)
        raise ValueError("the fact columns do not match the rows")


def build(
    length: int,
    crc: int,
    kept: Index | None,
    fresh: Sequence[tuple[int, int, int, Record]],
    *,
    lines: int,
    warnings: Sequence[str],
    records: Sequence[Record] | None = None,
) -> tuple[bytes, Index]:
    """The index (file bytes and parsed) of a journal's first ``length`` bytes, whose CRC-32
    is ``crc``, ``lines`` complete lines and replay ``warnings``: the rows of ``kept`` (a
    trusted index of a prefix), then one per record of ``fresh`` (decoded lines ``(number,
    start, end, record)``, all past it and inside the length), and the snapshot of all of
    them. ``records``: the records of those rows, record ``n`` = row ``n`` (the fresh ones
    last; by default the fresh ones alone, for an index without ``kept``)."""
    from asks.store.snapshot import fill  # noqa: PLC0415 (it imports this module's users)

    table = RefTable(kept.table.ids, kept.table.incarnations) if kept else RefTable()
    index = Index(length, crc, table, lines=lines, warnings=list(warnings))
    covered = 0
    if kept is not None:
        covered = kept.length
        for name in (*_ROW_COLUMNS, "strings", *_COLUMNS[len(_ROW_COLUMNS) :]):
            if name != "incarnations":
                getattr(index, name).extend(getattr(kept, name))
    for number, start, end, record in fresh:
        if not (covered <= start and end < length):
            raise ValueError("a fresh record outside the bytes indexed")
        index.add(row_of(number, start, end, record, table))
    if records is None:
        if kept is not None:
            raise ValueError("the records of the rows kept are needed")
        records = [record for _, _, _, record in fresh]
    fill(index, kept, records, len(kept.kind) if kept is not None else 0)
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
            "lines": lines,
            "warnings": index.warnings,
            "ref_ids": table.ids,
            "strings": index.strings,
            "snapshot": index.snapshot,
        }
    )
    body = b"".join([meta, b"\n", *index.columns()])
    return _MAGIC + _check(body) + b"\n" + body, index


def _check(body: bytes | memoryview) -> bytes:
    """The header's check of the body: its CRC-32, in 8 hex digits."""
    return b"%08x" % zlib.crc32(body)
