"""Lazy records: entries built from a replay-index row before (or without) decoding their line.

A *row* describes one journal line that a full decode turned into a record of a *lazy kind*
(chat message, tool result, feedback receipt, group asked, resolved, wait opened, withdrawn).
It holds the line's
position, the record's ``seq`` and ``ts``, and the entry's **facts**: the fields the projection
folds (call ids, ``blocking``, ``source``, the refs of questions, resolutions and receipts,
the kind of each resolution). Everything else (texts, question specs, answers, tool calls)
stays in the line's bytes until first read (:mod:`asks.store.deferred`).

A row is ``(number, start, end, seq, ts, kind, facts)``: the line's number (from 1), the
offsets of its first byte and of its ``\n``, the record's envelope, the entry's kind and its
facts ``(strings, refs, flag, kinds)``: its strings in order, its refs (positions in the
index's table of refs), a flag and one resolution kind (position in :class:`ResolutionKind`)
per ref::

    kind 0  chat_message        None
    kind 1  tool_result         (call_id,), the refs it delivered, 0, zeros
    kind 2  feedback_delivered  (), the refs it delivered, 0, zeros
    kind 3  group_asked         (call_id, group_id), its questions' refs, blocking, zeros
    kind 4  resolved            (source,), its resolutions' refs, 0, their kinds
    kind 5  wait_opened         (call_id,), its refs, 0, zeros
    kind 6  withdrawn           (reason,), its refs, 0, zeros
    kind 7  any other line      None (decoded whole when its record is first read)
    kind 8  model_chosen        None (likewise; its own kind so that the last one is found
                                without decoding the others)

Every record has a row (FORMAT 5): record ``n`` of the indexed bytes is row ``n``, so the
records are a sequence built on access (:mod:`asks.store.records`, :class:`RowReader`).

Kinds 5 and 6 have no field besides their facts: their entries are built whole, with no
line to decode later (they were ~1 % of a long session's lines and ~10 % of its open when
every replay decoded them).

The index stores them as columns, so that a replay builds no object per fact but the ones the
entries hold (:mod:`asks.store.index`).

Invariant: a lazy record equals the record :func:`asks.store.entries.decode` makes of the
same line, field for field; its facts are set eagerly to the decoded values (they were taken
from a decode of the same bytes), the other fields are decoded on first read.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from asks.core.model import QuestionRef, ResolutionKind
from asks.store.deferred import Deferred, pending_of
from asks.store.entries import (
    ChatMessage,
    Entry,
    FeedbackDelivered,
    GroupAsked,
    ModelChosen,
    Record,
    Resolved,
    ToolResult,
    UnknownEntry,
    WaitOpened,
    Withdrawn,
    decode,
)

__all__ = [
    "BUILDERS",
    "CHAT",
    "RESOLUTION_KINDS",
    "RefTable",
    "Row",
    "chat_message",
    "group_refs",
    "record",
    "resolved_facts",
    "row_of",
    "set_entry",
    "set_pending",
    "set_seq",
    "set_ts",
]

Facts = tuple[tuple[str, ...], list[int], int, list[int]] | None
Row = tuple[int, int, int, int, float, int, Facts]
Line = bytes | memoryview  # a line's bytes, or a view of them in the replayed data
RESOLUTION_KINDS: Final = tuple(ResolutionKind)  # a kind's code is its position
_new = object.__new__
_set = object.__setattr__
CHAT: Final = 0
OTHER: Final = 7
MODEL: Final = 8
# The entry class of each kind (None: any of the other classes).
KIND_TYPES: Final[tuple[type[Any] | None, ...]] = (
    ChatMessage,
    ToolResult,
    FeedbackDelivered,
    GroupAsked,
    Resolved,
    WaitOpened,
    Withdrawn,
    None,
    ModelChosen,
)


class RefTable:
    """The index's table of refs: each distinct ``(id, incarnation)`` once, by position."""

    def __init__(self, ids: Sequence[str] = (), incarnations: Sequence[int] = ()) -> None:
        self.ids: list[str] = list(ids)
        self.incarnations: array[int] = array("q", incarnations)
        pairs = zip(self.ids, self.incarnations, strict=True)
        self._position = {key: n for n, key in enumerate(pairs)}

    def add(self, ref: QuestionRef) -> int:
        key = (ref.id, ref.incarnation)
        position = self._position.get(key)
        if position is None:
            position = self._position[key] = len(self.ids)
            self.ids.append(ref.id)
            self.incarnations.append(ref.incarnation)
        return position

    def refs(self, refs: Sequence[QuestionRef]) -> list[int]:
        return [self.add(ref) for ref in refs]


def row_of(number: int, start: int, end: int, record: Record, table: RefTable) -> Row:
    """The row of a decoded record (kinds :data:`OTHER` and :data:`MODEL` without facts)."""
    kind, facts = _facts(record.entry, table)
    if kind < 0 or (facts is not None and len(facts[1]) > 0xFFFF):
        kind, facts = (MODEL if type(record.entry) is ModelChosen else OTHER), None
    return (number, start, end, record.seq, record.ts, kind, facts)


def _facts(entry: object, table: RefTable) -> tuple[int, Facts]:
    match entry:
        case ChatMessage():
            return CHAT, None
        case ToolResult(call_id=call_id, delivered=delivered):
            return 1, ((call_id,), table.refs(delivered), 0, [0] * len(delivered))
        case FeedbackDelivered(delivered=delivered):
            return 2, ((), table.refs(delivered), 0, [0] * len(delivered))
        case GroupAsked(call_id=call_id, group_id=group_id, blocking=blocking, questions=qs):
            refs = table.refs([q.ref for q in qs])
            return 3, ((call_id, group_id), refs, int(blocking), [0] * len(refs))
        case Resolved(resolutions=resolutions, source=source):
            kinds = [RESOLUTION_KINDS.index(r.kind) for r in resolutions]
            return 4, ((source,), table.refs([r.ref for r in resolutions]), 0, kinds)
        case WaitOpened(call_id=call_id, refs=refs):
            return 5, ((call_id,), table.refs(refs), 0, [0] * len(refs))
        case Withdrawn(refs=refs, reason=reason):
            return 6, ((reason,), table.refs(refs), 0, [0] * len(refs))
    return -1, None


# Slot setters, called directly: ~0.1 µs a record less than ``Record(...)`` (100k records).
set_pending: Final = Deferred.__dict__["_pending"].__set__
set_seq: Final = Record.__dict__["seq"].__set__
set_ts: Final = Record.__dict__["ts"].__set__
set_entry: Final = Record.__dict__["entry"].__set__


def record(seq: int, ts: float, entry: Entry) -> Record:
    """``Record(seq, ts, entry)``, built faster."""
    made: Record = _new(Record)
    set_seq(made, seq)
    set_ts(made, ts)
    set_entry(made, entry)
    return made


def chat_message(line: Line) -> ChatMessage:
    """A chat message whose line is ``line`` (kind 0: no facts)."""
    entry: ChatMessage = _new(ChatMessage)
    set_pending(entry, (line, None))
    return entry


Strings = Iterator[str]


def _tool_result(line: Line, strings: Strings, refs: list[Any], _flag: int, _k: bytes) -> Entry:
    entry: ToolResult = _new(ToolResult)
    _set(entry, "call_id", next(strings))
    _set(entry, "delivered", tuple(refs))
    set_pending(entry, (line, None))
    return entry


def _feedback(line: Line, _strings: Strings, refs: list[Any], _flag: int, _k: bytes) -> Entry:
    entry: FeedbackDelivered = _new(FeedbackDelivered)
    _set(entry, "delivered", tuple(refs))
    set_pending(entry, (line, None))
    return entry


def _group(line: Line, strings: Strings, refs: list[Any], flag: int, _k: bytes) -> Entry:
    entry: GroupAsked = _new(GroupAsked)
    _set(entry, "call_id", next(strings))
    _set(entry, "group_id", next(strings))
    _set(entry, "blocking", flag == 1)
    set_pending(entry, (line, tuple(refs)))
    return entry


def _resolved(line: Line, strings: Strings, refs: list[Any], _flag: int, kinds: bytes) -> Entry:
    entry: Resolved = _new(Resolved)
    _set(entry, "source", next(strings))
    pairs = tuple([(ref, RESOLUTION_KINDS[k]) for ref, k in zip(refs, kinds, strict=True)])
    set_pending(entry, (line, pairs))
    return entry


def _wait(_line: Line, strings: Strings, refs: list[Any], _flag: int, _k: bytes) -> Entry:
    entry: WaitOpened = _new(WaitOpened)
    _set(entry, "call_id", next(strings))
    _set(entry, "refs", tuple(refs))
    return entry


def _withdrawn(_line: Line, strings: Strings, refs: list[Any], _flag: int, _k: bytes) -> Entry:
    entry: Withdrawn = _new(Withdrawn)
    _set(entry, "refs", tuple(refs))
    _set(entry, "reason", next(strings))
    return entry


def _chat(line: Line, _strings: Strings, _refs: list[Any], _flag: int, _k: bytes) -> Entry:
    return chat_message(line)


def _other(line: Line, _strings: Strings, _refs: list[Any], _flag: int, _k: bytes) -> Entry:
    entry: Entry | UnknownEntry = decode(bytes(line)).entry
    return entry  # type: ignore[return-value]  # an unknown entry is a record's entry too


# The entry of a row of kind ``n`` is ``BUILDERS[n](line, strings, refs, flag, kinds)``: the
# line's bytes, the index's strings (it takes its own), the row's refs, flag and kinds.
BUILDERS: Final[tuple[Callable[[Line, Strings, list[Any], int, bytes], Entry], ...]] = (
    _chat,
    _tool_result,
    _feedback,
    _group,
    _resolved,
    _wait,
    _withdrawn,
    _other,
    _other,
)


def group_refs(entry: GroupAsked) -> tuple[QuestionRef, ...] | None:
    """The question refs of a group whose questions are not decoded yet, else ``None``."""
    pending = pending_of(entry)
    return None if pending is None else pending[1]


def resolved_facts(entry: Resolved) -> tuple[tuple[QuestionRef, ResolutionKind], ...] | None:
    """``(ref, kind)`` of each resolution not decoded yet, else ``None``."""
    pending = pending_of(entry)
    return None if pending is None else pending[1]
