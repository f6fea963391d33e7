"""The resume checkpoint: a cache of a projection's state and of where the journal's records
are, for the first ``length`` bytes of the journal (docs/resume-checkpoint.md).

``<data_dir>/<session_id>.jsonl.checkpoint`` is purely a cache: the journal is the truth, and
an open with no checkpoint, or one that does not check out, replays the journal in full and
gets the same records, warnings and projection. File format::

    asks-checkpoint <FORMAT> <CRC-32 of the body, 8 hex digits>\\n
    <body: marshal of plain tuples, lists, strings, numbers and bytes>

The body is ``(app version, fingerprint, byte order, Python version, length, CRC-32 of the
covered prefix, lines, warnings, starts, seqs, kinds, state)``:
the line of record ``n`` starts at ``starts[n]`` and holds ``seqs[n]`` and an entry of kind
``kinds[n]`` (:data:`asks.store.records.KINDS`); ``lines`` and ``warnings`` are the replay's
for those bytes; ``state`` is the projection after folding those records, each value named
by the number of the record that holds it (:func:`state_of`): question states as rows
``(id, incarnation, asked_in, status, delivered, saved_at, brief)`` (``brief``: a pending
question's :class:`~asks.core.brief.QuestionBrief` fields, read without decoding it:
:meth:`~asks.store.projection.Projection.brief`; ``None`` for the others),
calls as ``(call_id, made_in, result_in)``, notes as ``(sent_in, delivered)``, the small maps
by value, the conversation as record numbers.

Invariants:

* **Trusted only on an exact match** (:meth:`Checkpoint.covers`): the header names this
  ``FORMAT`` and the body's CRC-32 (a torn or damaged file), the app version, the
  fingerprint of the entry classes, the byte order and Python's version (marshal's) are this
  code's, ``length`` ends on a newline within the journal's complete lines, and the CRC-32
  of the journal's first ``length`` bytes is the checkpoint's (~15 ms for the 87 MB of a
  100k-entry session: a guard against change and damage, not against a hostile writer, who
  could as well rewrite the journal). Anything else: a full replay, as if there were no
  checkpoint. A record is still checked when it is built (its seq and kind are the
  checkpoint's: :mod:`asks.store.records`).
* **Restoring** (:func:`restore`) gives the empty projection the state a fold of those
  records gives: the small maps at once, ``by_ref``, ``current`` and ``calls`` as
  :class:`~asks.store.lazymap.LazyMap`\\ s (a value is built from its row and the records it
  names on first use), the conversation over the records by number. The records past
  ``length`` are then folded as usual. Tests: tests/test_checkpoint.py.
* **Written** by the journal's one writer (:meth:`asks.store.journal.Journal.keep_checkpoint`)
  only when the projection has folded every record of the file, to a temporary file renamed
  over the old one, without fsync: after a crash the file is the old one, the new one, a
  partial one (its CRC fails) or none.
"""

from __future__ import annotations

import marshal
import sys
import zlib
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from itertools import islice
from operator import attrgetter
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
    QuestionStatus,
    Resolution,
    ResolutionKind,
)
from asks.core.version import __version__
from asks.store.entries import (
    SCHEMA_VERSION,
    TAGS,
    GroupAsked,
    NoteSent,
    Record,
    Resolved,
    SessionMode,
    ToolResult,
    WaitOpened,
    converter,
)
from asks.store.files import Data
from asks.store.lazymap import LazyMap
from asks.store.projection import CallState, NoteState, Projection, QuestionState
from asks.store.records import Conversation, Table

__all__ = ["Checkpoint", "checkpoint_path", "encode", "parse", "restore"]

FORMAT: Final = 2  # 2: the questions' briefs
SUFFIX: Final = ".checkpoint"
# Pending questions a restore finds by a scan of the ids each; past this, by one map of all.
PENDING_SCANS: Final = 16
_MAGIC: Final = b"asks-checkpoint %d " % FORMAT
_STATUSES: Final = tuple(QuestionStatus)
# A status's code by its value (a str hashes in C, an enum member in Python).
_STATUS_CODE: Final = {status.value: n for n, status in enumerate(_STATUSES)}
_STATUS_VALUE: Final = attrgetter("status._value_")
_PENDING_CODE: Final = _STATUS_CODE[QuestionStatus.PENDING.value]


def _fields(cls: type[Any]) -> str:
    return ",".join(f"{field.name}={field.type}" for field in attrs.fields(cls))


_VALUE_CLASSES: Final = (Question, QuestionSpec, Option, QuestionRef, Resolution, Answer)
_ENUMS: Final = (Outcome, ResolutionKind, AnswerKind, SessionMode, QuestionStatus)
_STATE_CLASSES: Final = (QuestionState, CallState, NoteState)
# What decides how a line decodes and what a fold makes of it, besides the code (app version).
FINGERPRINT: Final = f"v{SCHEMA_VERSION};" + ";".join(
    [
        *(f"{tag}:{_fields(cls)}" for cls, tag in TAGS.items()),
        *(f"{cls.__name__}:{_fields(cls)}" for cls in (*_VALUE_CLASSES, *_STATE_CLASSES)),
        *(f"{cls.__name__}:{','.join(member.value for member in cls)}" for cls in _ENUMS),
    ]
)
_IDENTITY: Final = (__version__, FINGERPRINT, sys.byteorder, tuple(sys.version_info[:2]))


def checkpoint_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + SUFFIX)


@attrs.define(eq=False)
class Checkpoint:
    """A parsed checkpoint whose file checked out (module docstring)."""

    length: int
    crc: int  # CRC-32 of the journal's first ``length`` bytes
    lines: int
    warnings: list[str]
    table: Table
    state: tuple[Any, ...]

    def covers(self, data: Data, good_length: int) -> bool:
        """Whether this checkpoint describes the first bytes of ``data`` (complete lines up
        to ``good_length``): module docstring."""
        length = self.length
        if not 0 < length <= good_length or data[length - 1] != ord("\n"):
            return False
        return zlib.crc32(memoryview(data)[:length]) == self.crc


def parse(blob: bytes) -> Checkpoint | None:
    """The checkpoint in ``blob``, or ``None`` if it is not one this code wrote."""
    head_end = blob.find(b"\n")
    if head_end < 0 or not blob.startswith(_MAGIC):
        return None
    body = memoryview(blob)[head_end + 1 :]
    if blob[len(_MAGIC) : head_end] != b"%08x" % zlib.crc32(body):
        return None
    try:
        raw = marshal.loads(body)
        identity, (length, crc, lines, warnings, starts, seqs, kinds, state) = raw
        if tuple(identity) != _IDENTITY:
            return None
        table = Table(starts, seqs, kinds)
    except (EOFError, ValueError, TypeError):
        return None
    if not len(table.starts) == len(table.seqs) == len(table.kinds):
        return None
    return Checkpoint(length, crc, lines, warnings, table, state)


# -- writing ------------------------------------------------------------------------------


def encode(
    projection: Projection,
    *,
    encoder: Encoder | None = None,
    length: int,
    crc: int,
    lines: int,
    warnings: Sequence[str],
    table: Table,
) -> bytes:
    """The checkpoint file of a journal's first ``length`` bytes (CRC-32 ``crc``, ``lines``
    complete lines, the replay's ``warnings`` about them), whose records are
    ``table`` (starts, seqs, kinds) and whose fold is ``projection``. Raises
    :class:`ValueError` for a state no record names (then there is no checkpoint)."""
    if projection.records != len(table):
        raise ValueError("the projection has not folded every record")
    body = marshal.dumps(
        (
            _IDENTITY,
            (
                length,
                crc,
                lines,
                list(warnings),
                *table.columns(),
                (encoder or Encoder()).state(projection),
            ),
        )
    )
    return _MAGIC + b"%08x" % zlib.crc32(body) + b"\n" + body


def state_of(projection: Projection) -> tuple[Any, ...]:
    """The projection's state as plain values and record numbers (module docstring), read
    whole; its :attr:`~asks.store.projection.Projection.changes` are left to their encoder."""
    return Encoder().state(projection, clear=False)


class Encoder:
    """Encodes the state of one projection, again and again: the journal's writer keeps one.
    The first encoding reads every value (a restored map: only those built since,
    :func:`_columns`); each later one takes the columns of the one before and re-encodes
    only the keys the fold changed since (:attr:`Projection.changes`, cleared here), then
    appends the keys added since (maps only grow: the fold never deletes from them)."""

    def __init__(self) -> None:
        self._projection: Projection | None = None
        self._maps = {
            "by_ref": _MapCache(_question_columns),
            "current": _MapCache(_current_columns),
            "calls": _MapCache(_call_columns),
        }

    def state(self, projection: Projection, *, clear: bool = True) -> tuple[Any, ...]:
        """The state (:func:`state_of`); the projection's changes are then cleared, unless
        ``clear`` is false (an encoder whose next encoding reads everything anyway)."""
        p = projection
        if p is not self._projection:
            self._projection = p
            for cache in self._maps.values():
                cache.reset()
        changes = p.changes
        try:
            questions = self._maps["by_ref"].encode(p.by_ref, changes.refs)
            current = self._maps["current"].encode(p.current, changes.ids)
            calls = self._maps["calls"].encode(p.calls, changes.calls)
            if len(questions[2]) and min(questions[2]) < 0:
                raise ValueError("a question state names no record")
            if len(calls[1]) and min(calls[1]) < 0:
                raise ValueError("a call names no record")
        except BaseException:
            for cache in self._maps.values():
                cache.reset()
            raise
        if clear:
            changes.clear()
        return (
            p.session_id,
            p.unknown,
            p.duplicate_receipts,
            p.records,
            _dumpable(questions),
            _dumpable(current),
            [(ref.id, ref.incarnation) for ref in p.pending],
            _dumpable(calls),
            list(p.open_calls),
            [_unit_row(ref, unit) for ref, unit in p.undelivered.items()],
            [_note_row(state) for state in p.notes.values()],
            [(ref.id, ref.incarnation, offer) for ref, offer in p.offered.items()],
            p.conversation.numbers.tobytes(),
        )


class _MapCache:
    """The last columns of one map and where each key's row is (:class:`Encoder`)."""

    def __init__(self, of: Callable[[list[Any], list[Any]], Columns]) -> None:
        self._of = of
        self._columns: Columns | None = None
        self._positions: dict[Any, int] = {}  # of every key (a dict), or of those inserted
        self._lazy = False  # whether the map was a restored map not thawed, at the last time

    def reset(self) -> None:
        self._columns, self._positions = None, {}

    def encode(self, mapping: Mapping[Any, Any], changed: Collection[Any]) -> Columns:
        lazy = isinstance(mapping, LazyMap) and mapping.thawed is None
        columns = self._columns
        if columns is None or lazy != self._lazy:
            self._lazy, self._positions = lazy, {}
            if isinstance(mapping, LazyMap) and lazy:  # the rows of the keys inserted
                self._positions = {key: mapping.count + n for n, key in enumerate(mapping.inserted)}
            self._columns = columns = _columns(mapping, self._of)
            return columns
        size = len(columns[0])
        self._write_over(columns, mapping, changed, size)
        added = list(_keys_past(mapping, size))
        if added:
            for column, values in zip(
                columns, self._of(added, _values(mapping, added)), strict=True
            ):
                column.extend(values)
            if self._positions or lazy:
                self._positions.update(zip(added, range(size, size + len(added)), strict=True))
        return columns

    def _write_over(
        self, columns: Columns, mapping: Mapping[Any, Any], changed: Collection[Any], size: int
    ) -> None:
        """Re-encode the rows of the ``changed`` keys already in ``columns``."""
        if not changed:
            return
        if isinstance(mapping, LazyMap) and mapping.thawed is None:
            lazy_map = mapping

            def position(key: Any) -> int | None:
                found = lazy_map.position(key)
                return found if found is not None else self._positions.get(key)

        else:
            if not self._positions:
                self._positions = {key: n for n, key in enumerate(mapping)}
            positions = self._positions

            def position(key: Any) -> int | None:
                return positions.get(key)

        keys_ = dict.fromkeys(changed)  # a key listed once per change: its row once
        rows = [(n, key) for key in keys_ if (n := position(key)) is not None and n < size]
        if not rows:
            return
        keys = [key for _, key in rows]
        fresh = self._of(keys, _values(mapping, keys))
        for column, values in zip(columns, fresh, strict=True):
            for (n, _), value in zip(rows, values, strict=True):
                column[n] = value


def _keys_past(mapping: Mapping[Any, Any], size: int) -> Iterator[Any]:
    """The keys of ``mapping`` after its first ``size`` (those added since)."""
    if isinstance(mapping, LazyMap) and mapping.thawed is None:
        return islice(mapping.inserted.keys(), size - mapping.count, None)
    return islice(mapping.keys(), size, None)


def _values(mapping: Mapping[Any, Any], keys: list[Any]) -> list[Any]:
    return [mapping[key] for key in keys]


Columns = list[Any]  # lists of strings, arrays of int64, bytearrays: one item per key
_ID, _INCARNATION = attrgetter("id"), attrgetter("incarnation")


def _question_columns(refs: list[QuestionRef], states: list[QuestionState]) -> Columns:
    """ids, incarnations, asked_in, status codes, delivered, saved_at (in C, no loop here),
    and the pending questions' briefs (:func:`_briefs`)."""
    codes = bytearray(map(_STATUS_CODE.__getitem__, map(_STATUS_VALUE, states)))
    return [
        list(map(_ID, refs)),
        array("q", map(_INCARNATION, refs)),
        array("q", map(attrgetter("asked_in"), states)),
        codes,
        bytearray(map(attrgetter("delivered"), states)),
        array("q", map(attrgetter("saved_at"), states)),
        _briefs(states, codes),
    ]


def _briefs(states: list[QuestionState], codes: bytearray) -> list[Any]:
    """The briefs of the pending questions as tuples ``(header, source, recipient)``, ``None``
    in the rows of the others (a question that is not pending has its brief read from itself;
    one slot per row, a tuple per pending one), each label one object (a few agents label
    thousands of questions: marshal then saves each once); a brief whose labels are those
    objects already is the question's own tuple, shared (the encoder keeps its columns). A
    loop over the pending rows only, found in C."""
    briefs: list[tuple[str, str | None, str | None] | None] = [None] * len(states)
    seen: dict[str | None, str | None] = {}
    row = codes.find(_PENDING_CODE)
    while row >= 0:
        brief = states[row].briefed  # nothing read back
        header, source, recipient = brief
        asker, to = seen.setdefault(source, source), seen.setdefault(recipient, recipient)
        briefs[row] = brief if asker is source and to is recipient else (header, asker, to)
        row = codes.find(_PENDING_CODE, row + 1)
    return briefs


def _current_columns(ids: list[str], refs: list[QuestionRef]) -> Columns:
    return [list(ids), array("q", map(_INCARNATION, refs))]


def _call_columns(ids: list[str], calls: list[CallState]) -> Columns:
    return [
        list(ids),
        array("q", map(attrgetter("made_in"), calls)),
        array("q", map(attrgetter("result_in"), calls)),
    ]


def _columns(mapping: Mapping[Any, Any], of: Callable[[list[Any], list[Any]], Columns]) -> Columns:
    """The columns of ``mapping``'s items; of a map restored from columns and not thawed, its
    columns with the values built since written over theirs (a value never built cannot
    have changed) and the keys inserted since appended."""
    if not isinstance(mapping, LazyMap) or mapping.thawed is not None:
        return of(list(mapping.keys()), list(mapping.values()))
    columns = [column[:] for column in mapping.source]
    made = mapping.made
    if made:
        positions = list(made)
        changed = of([mapping.key_at(n) for n in positions], [made[n] for n in positions])
        for column, values in zip(columns, changed, strict=True):
            for position, value in zip(positions, values, strict=True):
                column[position] = value
    if mapping.inserted:
        added = of(list(mapping.inserted.keys()), list(mapping.inserted.values()))
        for column, values in zip(columns, added, strict=True):
            column.extend(values)
    return columns


def _dumpable(columns: Columns) -> list[Any]:
    return [column if type(column) is list else bytes(column) for column in columns]


def _loaded(columns: list[Any], codes: str) -> Columns:
    """The columns :func:`_dumpable` saved: ``codes`` says each one's kind (``s``: strings,
    ``t``: tuples or ``None``, ``q``: int64, ``b``: bytes)."""
    loaded: Columns = []
    for column, code in zip(columns, codes, strict=True):
        if code in "st":  # strings; tuples of plain values or None
            loaded.append(list(column))
        elif code == "b":
            loaded.append(bytearray(column))
        else:
            ints = array("q")
            ints.frombytes(column)
            loaded.append(ints)
    if len({len(column) for column in loaded}) > 1:
        raise ValueError("the checkpoint's columns differ in length")
    return loaded


def _unit_row(ref: QuestionRef, unit: Resolution | NoteSent) -> tuple[Any, ...]:
    """An undelivered unit: a note by its ref (it is in ``notes``), a resolution by value
    (its question may have been asked again since, under the same ref), as the
    JSON of its journal line."""
    if isinstance(unit, NoteSent):
        return (ref.id, ref.incarnation, None)
    import orjson  # noqa: PLC0415 (as the journal's lines: asks/store/entries.py)

    return (ref.id, ref.incarnation, orjson.dumps(converter().unstructure(unit, Resolution)))


def _note_row(state: NoteState) -> tuple[Any, ...]:
    if state.sent_in < 0:
        raise ValueError(f"the note {state.note.ref} names no record")
    return (state.sent_in, state.delivered)


# -- restoring ----------------------------------------------------------------------------


def restore(projection: Projection, state: tuple[Any, ...], records: Sequence[Record]) -> None:
    """Make the empty ``projection`` the fold of the first records of ``records`` that the
    checkpoint's ``state`` describes (module docstring)."""
    (
        projection.session_id,
        projection.unknown,
        projection.duplicate_receipts,
        projection.records,
        questions,
        current,
        pending,
        calls,
        open_calls,
        undelivered,
        notes,
        offered,
        conversation,
    ) = state
    entry = _entries(records)
    projection.by_ref = _question_map(_loaded(questions, "sqqbbqt"), pending, entry)
    projection.peek = projection.by_ref.peek
    ids, incarnations = _loaded(current, "sq")
    projection.current = LazyMap(
        len(ids),
        ids.__getitem__,
        lambda n: QuestionRef(ids[n], incarnations[n]),
        lambda: dict(zip(ids, range(len(ids)), strict=True)),
        source=[ids, incarnations],
    )
    projection.pending = dict.fromkeys([QuestionRef(i, n) for i, n in pending])
    call_columns = _loaded(calls, "sqq")
    call_ids = call_columns[0]
    projection.calls = LazyMap(
        len(call_ids),
        call_ids.__getitem__,
        lambda n: _call(n, call_columns, records),
        lambda: dict(zip(call_ids, range(len(call_ids)), strict=True)),
        source=call_columns,
    )
    projection.open_calls = {call_id: projection.calls[call_id] for call_id in open_calls}
    projection.notes = {}
    for number, delivered in notes:
        note = entry(number, NoteSent)
        projection.notes[note.ref] = NoteState(note, delivered, number)
    projection.undelivered = {}
    for ref_id, incarnation, saved in undelivered:
        ref = QuestionRef(ref_id, incarnation)
        if saved is None:
            projection.undelivered[ref] = projection.notes[ref].note
        else:
            projection.undelivered[ref] = _resolution(saved)
    projection.offered = {QuestionRef(i, n): offer for i, n, offer in offered}
    numbers = array("q")
    numbers.frombytes(conversation)
    projection.conversation = Conversation(records, numbers)


def _question_map(
    columns: Columns, pending: list[Any], entry: Callable[[int, type[Any]], Any]
) -> LazyMap[QuestionRef, QuestionState]:
    """``by_ref`` over its columns, the positions of the pending questions known at once:
    each found by a scan of the ids (in C) while they are at most :data:`PENDING_SCANS`;
    past that, the positions of every question, built once (in C), instead of a scan each."""
    ids, incarnations = columns[0], columns[1]
    seed: dict[Any, int] = {}
    if len(pending) > PENDING_SCANS:
        seed = _positions(ids, incarnations)
        return _by_ref(columns, entry, seed, lambda: seed)
    for ref_id, incarnation in pending:
        position = ids.index(ref_id)
        while incarnations[position] != incarnation:
            position = ids.index(ref_id, position + 1)
        seed[(ref_id, incarnation)] = position
    return _by_ref(columns, entry, seed, lambda: _positions(ids, incarnations))


def _by_ref(
    columns: Columns,
    entry: Callable[[int, type[Any]], Any],
    seed: dict[Any, int],
    positions: Callable[[], dict[Any, int]],
) -> LazyMap[QuestionRef, QuestionState]:
    ids, incarnations = columns[0], columns[1]
    briefs = columns[6]
    return LazyMap(
        len(ids),
        lambda n: QuestionRef(ids[n], incarnations[n]),
        lambda n: _question_state(n, columns, entry),
        positions,
        seed=seed,
        norm=_ref_pair,
        source=columns,
        peek=briefs.__getitem__,
    )


def _resolution(saved: bytes) -> Resolution:
    import orjson  # noqa: PLC0415 (as the journal's lines: asks/store/entries.py)

    resolution: Resolution = converter().structure(orjson.loads(saved), Resolution)
    return resolution


def _ref_pair(ref: QuestionRef) -> tuple[str, int]:
    return (ref.id, ref.incarnation)


def _entries(records: Sequence[Record]) -> Callable[[int, type[Any]], Any]:
    def entry(number: int, cls: type[Any]) -> Any:
        found = records[number].entry
        if type(found) is not cls:
            raise ValueError(f"the checkpoint's record {number} is not a {cls.__name__}")
        return found

    return entry


def _positions(ids: list[str], incarnations: array[int]) -> dict[tuple[str, int], int]:
    """``(id, incarnation)`` → position, built in C."""
    pairs = zip(ids, incarnations.tolist(), strict=True)
    return dict(zip(pairs, range(len(ids)), strict=True))


def _question_state(
    n: int, columns: Columns, entry: Callable[[int, type[Any]], Any]
) -> QuestionState:
    ids, incarnations, asked, statuses, delivered, saved = columns[:6]
    ref = QuestionRef(ids[n], incarnations[n])
    group: GroupAsked = entry(asked[n], GroupAsked)
    question = next((q for q in group.questions if q.ref == ref), None)
    if question is None:
        raise ValueError(f"the checkpoint's group {asked[n]} did not ask {ref}")
    state = QuestionState(
        question, _STATUSES[statuses[n]], delivered=bool(delivered[n]), asked_in=asked[n]
    )
    if saved[n] >= 0:
        resolved: Resolved = entry(saved[n], Resolved)
        state.resolution = next((r for r in resolved.resolutions if r.ref == ref), None)
        if state.resolution is None:
            raise ValueError(f"the checkpoint's record {saved[n]} did not resolve {ref}")
        state.source, state.saved_in, state.saved_at = resolved.source, resolved, saved[n]
    return state


def _call(n: int, columns: Columns, records: Sequence[Record]) -> CallState:
    call_id, made_in, result_in = columns[0][n], columns[1][n], columns[2][n]
    origin = records[made_in]
    made = origin.entry
    if isinstance(made, GroupAsked):
        refs = tuple([question.ref for question in made.questions])
        call = CallState(call_id, refs, made.blocking, made, None, origin.ts, made_in)
    elif isinstance(made, WaitOpened):
        call = CallState(call_id, made.refs, True, None, None, origin.ts, made_in)
    else:
        raise ValueError(f"the checkpoint's record {made_in} made no call")
    if result_in >= 0:
        result = records[result_in].entry
        if not isinstance(result, ToolResult):
            raise ValueError(f"the checkpoint's record {result_in} is no tool result")
        call.close(result, result_in, None)  # the replay's records keep it anyway
    return call
