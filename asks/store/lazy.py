"""Lazy records: entries built from a replay-index row before (or without) decoding their line.

A *row* describes one journal line that a full decode turned into a record of a *lazy kind*
(chat message, tool result, feedback receipt, group asked, resolved). It holds the line's
position, the record's ``seq`` and ``ts``, and the entry's **facts**: the fields the projection
folds (call ids, ``blocking``, ``source``, the refs of questions, resolutions and receipts,
the kind of each resolution). Everything else (texts, question specs, answers, tool calls)
stays in the line's bytes until first read (:mod:`asks.store.deferred`).

A row is ``(number, start, end, seq, ts, kind, facts)``: the line's number (from 1), the
offsets of its first byte and of its ``\n``, the record's envelope, the entry's kind and its
facts (refs are positions in the index's table of ``[id, incarnation]``)::

    kind 0  chat_message        None
    kind 1  tool_result         [call_id, [ref, …]]          (the refs it delivered)
    kind 2  feedback_delivered  [[ref, …]]                   (the refs it delivered)
    kind 3  group_asked         [call_id, group_id, blocking, [ref, …]]
    kind 4  resolved            [source, [ref, …], [resolution kind value, …]]

Invariant: a lazy record equals the record :func:`asks.store.entries.decode` makes of the
same line, field for field; its facts are set eagerly to the decoded values (they were taken
from a decode of the same bytes), the other fields are decoded on first read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from asks.core.model import QuestionRef, ResolutionKind
from asks.store.deferred import Deferred, pending_of
from asks.store.entries import (
    ChatMessage,
    Entry,
    FeedbackDelivered,
    GroupAsked,
    Record,
    Resolved,
    ToolResult,
)

__all__ = ["BUILDERS", "CHAT", "RefTable", "Row", "chat_message", "group_refs", "record",
           "resolved_facts", "row_of", "set_entry", "set_pending", "set_seq", "set_ts"]

Facts = list[Any] | None
Row = tuple[int, int, int, int, float, int, Facts]
_new = object.__new__
_set = object.__setattr__
_KINDS: Final = {kind.value: kind for kind in ResolutionKind}
CHAT: Final = 0


class RefTable:
    """The index's table of refs: each distinct ``(id, incarnation)`` once, by position."""

    def __init__(self, rows: Sequence[Sequence[Any]] = ()) -> None:
        self.rows: list[list[Any]] = [list(row) for row in rows]
        self._position = {(row[0], row[1]): n for n, row in enumerate(self.rows)}

    def add(self, ref: QuestionRef) -> int:
        key = (ref.id, ref.incarnation)
        position = self._position.get(key)
        if position is None:
            position = self._position[key] = len(self.rows)
            self.rows.append([ref.id, ref.incarnation])
        return position

    def refs(self, refs: Sequence[QuestionRef]) -> list[int]:
        return [self.add(ref) for ref in refs]


def row_of(number: int, start: int, end: int, record: Record, table: RefTable) -> Row | None:
    """The row of a decoded record of a lazy kind, ``None`` for the other kinds."""
    kind, facts = _facts(record.entry, table)
    return None if kind < 0 else (number, start, end, record.seq, record.ts, kind, facts)


def _facts(entry: object, table: RefTable) -> tuple[int, Facts]:
    match entry:
        case ChatMessage():
            return CHAT, None
        case ToolResult(call_id=call_id, delivered=delivered):
            return 1, [call_id, table.refs(delivered)]
        case FeedbackDelivered(delivered=delivered):
            return 2, [table.refs(delivered)]
        case GroupAsked(call_id=call_id, group_id=group_id, blocking=blocking, questions=qs):
            return 3, [call_id, group_id, blocking, table.refs([q.ref for q in qs])]
        case Resolved(resolutions=resolutions, source=source):
            kinds = [r.kind.value for r in resolutions]
            return 4, [source, table.refs([r.ref for r in resolutions]), kinds]
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


def chat_message(line: bytes) -> ChatMessage:
    """A chat message whose line is ``line`` (kind 0: no facts)."""
    entry: ChatMessage = _new(ChatMessage)
    set_pending(entry, (line, None))
    return entry


def _tool_result(line: bytes, facts: list[Any], refs: list[QuestionRef]) -> Entry:
    entry: ToolResult = _new(ToolResult)
    _set(entry, "call_id", facts[0])
    _set(entry, "delivered", tuple([refs[n] for n in facts[1]]))
    set_pending(entry, (line, None))
    return entry


def _feedback(line: bytes, facts: list[Any], refs: list[QuestionRef]) -> Entry:
    entry: FeedbackDelivered = _new(FeedbackDelivered)
    _set(entry, "delivered", tuple([refs[n] for n in facts[0]]))
    set_pending(entry, (line, None))
    return entry


def _group(line: bytes, facts: list[Any], refs: list[QuestionRef]) -> Entry:
    entry: GroupAsked = _new(GroupAsked)
    _set(entry, "call_id", facts[0])
    _set(entry, "group_id", facts[1])
    _set(entry, "blocking", facts[2])
    set_pending(entry, (line, tuple([refs[n] for n in facts[3]])))
    return entry


def _resolved(line: bytes, facts: list[Any], refs: list[QuestionRef]) -> Entry:
    entry: Resolved = _new(Resolved)
    _set(entry, "source", facts[0])
    pairs = tuple([(refs[n], _KINDS[k]) for n, k in zip(facts[1], facts[2], strict=True)])
    set_pending(entry, (line, pairs))
    return entry


def _chat(line: bytes, _facts: list[Any], _refs: list[QuestionRef]) -> Entry:
    return chat_message(line)


# The entry of a row of kind ``n`` is ``BUILDERS[n](line, facts, refs)``: the line's bytes,
# the row's facts, the index's refs (module docstring).
BUILDERS: Final[tuple[Callable[[bytes, list[Any], list[QuestionRef]], Entry], ...]] = (
    _chat, _tool_result, _feedback, _group, _resolved
)


def group_refs(entry: GroupAsked) -> tuple[QuestionRef, ...] | None:
    """The question refs of a group whose questions are not decoded yet, else ``None``."""
    pending = pending_of(entry)
    return None if pending is None else pending[1]


def resolved_facts(entry: Resolved) -> tuple[tuple[QuestionRef, ResolutionKind], ...] | None:
    """``(ref, kind)`` of each resolution not decoded yet, else ``None``."""
    pending = pending_of(entry)
    return None if pending is None else pending[1]
