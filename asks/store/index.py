"""The replay index: a sidecar file that lets a replay skip decoding most journal lines.

``<data_dir>/<session_id>.jsonl.idx`` describes the first ``length`` bytes of the journal:
for every line there that decoded to a record of a lazy kind (:mod:`asks.store.lazy`), a row
with its position, ``seq``, ``ts`` and facts. A replay that trusts the index builds those
records lazily (their lines are decoded on first read) and decodes every other line as usual.

File format: a header line, a JSON line, then the rows as columns of machine values::

    asks-replay-index <FORMAT> <sha256 of everything after this line, hex>\n
    {"app": …, "fingerprint": …, "byteorder": …, "length": L,
     "crc32": <CRC-32 of journal[:L]>, "rows": N,
     "refs": [[id, incarnation], …], "facts": [facts of each row not a chat message, …]}\n
    number, start, end, seq: N int64 each; ts: N float64; kind: N bytes

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
import orjson

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

FORMAT: Final = 2
INDEX_SUFFIX: Final = ".idx"
# A replay writes a new index when it decoded at least this many bytes the old one did not
# cover (below that, a full decode costs ~10 ms and a file is not worth it).
INDEX_MIN_BYTES: Final = 1 << 20
_MAGIC: Final = b"asks-replay-index %d " % FORMAT
_INTS: Final = ("number", "start", "end", "seq")


def _fields(cls: type[Any]) -> str:
    return ",".join(f"{field.name}={field.type}" for field in attrs.fields(cls))


_VALUE_CLASSES: Final = (Question, QuestionSpec, Option, QuestionRef, Resolution, Answer)
_ENUMS: Final = (Outcome, ResolutionKind, AnswerKind, SessionMode)
# What decides whether and how a line decodes, besides the decoding code (FORMAT, app version).
FINGERPRINT: Final = f"v{SCHEMA_VERSION};" + ";".join([
    *(f"{tag}:{_fields(cls)}" for cls, tag in TAGS.items()),
    *(f"{cls.__name__}:{_fields(cls)}" for cls in _VALUE_CLASSES),
    *(f"{cls.__name__}:{','.join(member.value for member in cls)}" for cls in _ENUMS),
])


@attrs.define(eq=False)
class Index:
    """A parsed index whose file checked out (the journal bytes are checked by the replay).
    The rows are columns: row ``n`` is ``(number[n], start[n], end[n], seq[n], ts[n],
    kind[n])`` plus the next of ``facts`` unless ``kind[n]`` is a chat message."""

    length: int
    crc32: int
    refs: list[list[Any]]
    facts: list[Any]
    number: array[int] = attrs.Factory(lambda: array("q"))
    start: array[int] = attrs.Factory(lambda: array("q"))
    end: array[int] = attrs.Factory(lambda: array("q"))
    seq: array[int] = attrs.Factory(lambda: array("q"))
    ts: array[float] = attrs.Factory(lambda: array("d"))
    kind: bytearray = attrs.Factory(bytearray)

    def add(self, row: Row) -> None:
        number, start, end, seq, ts, kind, facts = row
        self.number.append(number)
        self.start.append(start)
        self.end.append(end)
        self.seq.append(seq)
        self.ts.append(ts)
        self.kind.append(kind)
        if kind != CHAT:
            self.facts.append(facts)


def index_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + INDEX_SUFFIX)


def parse(blob: bytes) -> Index | None:
    """The index in ``blob``, or ``None`` if it is not one this code wrote (module docstring)."""
    view = memoryview(blob)  # no copies of the 6 MB of a 100k-line journal's index
    head_end = blob.find(b"\n")
    meta_end = blob.find(b"\n", head_end + 1)
    head, body = blob[:head_end], view[head_end + 1:]
    if head_end < 0 or meta_end < 0 or not head.startswith(_MAGIC):
        return None
    if head[len(_MAGIC):] != hashlib.sha256(body).hexdigest().encode():
        return None
    try:
        raw = orjson.loads(view[head_end + 1:meta_end])
        current = (raw["app"], raw["fingerprint"], raw["byteorder"]) == (
            __version__, FINGERPRINT, sys.byteorder
        )
        index = Index(raw["length"], raw["crc32"], raw["refs"], raw["facts"])
        rows = raw["rows"]
        numbers = (index.length, index.crc32, rows)
        if not current or any(type(number) is not int for number in numbers):
            return None
        _read_columns(index, view[meta_end + 1:], rows)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None
    return index if type(index.refs) is list and type(index.facts) is list else None


def _read_columns(index: Index, columns: memoryview, rows: int) -> None:
    if len(columns) != rows * 41:
        raise ValueError("columns do not match the row count")
    offset = 0
    for name in (*_INTS, "ts"):
        getattr(index, name).frombytes(columns[offset:offset + 8 * rows])
        offset += 8 * rows
    index.kind = bytearray(columns[offset:])


def build(
    length: int, crc: int, kept: Index | None, fresh: list[tuple[int, int, int, Record]]
) -> tuple[bytes, Index]:
    """The index (file bytes and parsed) of a journal's first ``length`` bytes, whose CRC-32
    is ``crc``: the rows of ``kept`` (a trusted index of a prefix), then one per record of
    ``fresh`` (decoded lines ``(number, start, end, record)``) past it and inside the length."""
    table = RefTable(kept.refs if kept is not None else ())
    index = Index(length, crc, table.rows, [])
    covered = 0
    if kept is not None:
        covered = kept.length
        for name in (*_INTS, "ts", "kind", "facts"):
            getattr(index, name).extend(getattr(kept, name))
    for number, start, end, record in fresh:
        inside = covered <= start and end < length
        if inside and (row := row_of(number, start, end, record, table)) is not None:
            index.add(row)
    meta = orjson.dumps({
        "app": __version__,
        "fingerprint": FINGERPRINT,
        "byteorder": sys.byteorder,
        "length": length,
        "crc32": crc,
        "rows": len(index.kind),
        "refs": table.rows,
        "facts": index.facts,
    })
    columns = [getattr(index, name).tobytes() for name in (*_INTS, "ts")]
    body = b"".join([meta, b"\n", *columns, bytes(index.kind)])
    return _MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body, index
