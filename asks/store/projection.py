"""The projection: in-memory state derived from a session's journal records.

:meth:`Projection.apply` folds one record into the state in O(1) (a group adds at most four
questions). It is used both for replay at open and, afterwards, for every record appended, so
the projection always equals "what is on disk" — the host never changes it any other way.

What it knows:

* every question incarnation ever asked (``by_ref``) and the current incarnation per id;
* which questions are pending, in arrival order (``pending``);
* tool calls (``calls``): their questions, whether blocking, and whether a result closed them;
  ``open_calls`` are the ones without a result (dangling, if found at replay);
* resolutions (answers, declines) and whether each was delivered (named by a receipt);
  ``undelivered`` keeps the saved-but-undelivered ones in save order;
* the conversation records (chat messages, tool results, feedback) for transcript rebuild.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from asks.core.model import Question, QuestionRef, QuestionStatus, Resolution, ResolutionKind
from asks.store.entries import (
    ChatMessage,
    FeedbackDelivered,
    GroupAsked,
    Record,
    Resolved,
    SessionStarted,
    ToolResult,
    UnknownEntry,
    WaitOpened,
    Withdrawn,
)
from asks.store.journal import paused_gc


@attrs.define(eq=False)
class QuestionState:
    """One question incarnation and what happened to it."""

    question: Question
    status: QuestionStatus = QuestionStatus.PENDING
    resolution: Resolution | None = None
    delivered: bool = False
    source: str | None = None  # where the resolution was given (panel, web, line, …)


@attrs.define(eq=False)
class CallState:
    """One ``ask_user_question`` tool call."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    blocking: bool
    group_asked: GroupAsked | None = None
    result: ToolResult | None = None


@attrs.define(eq=False)
class Projection:
    """State derived from journal records (see module docstring)."""

    session_id: str = ""
    by_ref: dict[QuestionRef, QuestionState] = attrs.Factory(dict)
    current: dict[str, QuestionRef] = attrs.Factory(dict)
    pending: dict[QuestionRef, None] = attrs.Factory(dict)
    calls: dict[str, CallState] = attrs.Factory(dict)
    open_calls: dict[str, CallState] = attrs.Factory(dict)
    undelivered: dict[QuestionRef, Resolution] = attrs.Factory(dict)
    conversation: list[Record] = attrs.Factory(list)
    unknown: int = 0
    duplicate_receipts: int = 0
    records: int = 0

    def apply_all(self, records: Iterable[Record]) -> None:
        """Replay: fold many records (with the cyclic GC paused while they pile up)."""
        with paused_gc():
            for record in records:
                self.apply(record)

    def apply(self, record: Record) -> None:
        """Fold one record into the state. O(1)."""
        self.records += 1
        entry = record.entry
        # Most frequent first: the cases are tried in order (chat messages are ~half a session).
        match entry:
            case ChatMessage():
                self.conversation.append(record)
            case ToolResult():
                self._tool_result(entry)
                self.conversation.append(record)
            case GroupAsked():
                self._group_asked(entry)
            case Resolved():
                for resolution in entry.resolutions:
                    self._resolved(resolution, entry.source)
            case FeedbackDelivered():
                self._mark_delivered(entry.delivered)
                self.conversation.append(record)
            case WaitOpened():
                self._open_call(CallState(entry.call_id, entry.refs, blocking=True))
            case Withdrawn():
                for ref in entry.refs:
                    self._close(ref, QuestionStatus.WITHDRAWN)
            case SessionStarted():
                self.session_id = entry.session_id
            case UnknownEntry():
                self.unknown += 1

    # -- folding helpers --------------------------------------------------------------------
    def _group_asked(self, entry: GroupAsked) -> None:
        refs = []
        for question in entry.questions:
            ref = question.ref
            self.by_ref[ref] = QuestionState(question)
            self.current[ref.id] = ref
            self.pending[ref] = None
            refs.append(ref)
        self._open_call(CallState(entry.call_id, tuple(refs), entry.blocking, group_asked=entry))

    def _open_call(self, call: CallState) -> None:
        self.calls[call.call_id] = call
        self.open_calls[call.call_id] = call

    def _tool_result(self, entry: ToolResult) -> None:
        call = self.calls.get(entry.call_id)
        if call is not None:
            call.result = entry
        self.open_calls.pop(entry.call_id, None)
        self._mark_delivered(entry.delivered)

    def _resolved(self, resolution: Resolution, source: str) -> None:
        state = self.by_ref.get(resolution.ref)
        if state is None or state.status is not QuestionStatus.PENDING:
            return
        state.resolution = resolution
        state.source = source
        answered = resolution.kind is ResolutionKind.ANSWERED
        status = QuestionStatus.ANSWERED if answered else QuestionStatus.DECLINED
        self._close(resolution.ref, status)
        self.undelivered[resolution.ref] = resolution

    def _close(self, ref: QuestionRef, status: QuestionStatus) -> None:
        state = self.by_ref.get(ref)
        if state is None or state.status is not QuestionStatus.PENDING:
            return
        state.status = status
        self.pending.pop(ref, None)

    def _mark_delivered(self, refs: tuple[QuestionRef, ...]) -> None:
        for ref in refs:
            state = self.by_ref.get(ref)
            if state is None:
                continue
            if state.delivered:
                self.duplicate_receipts += 1
            state.delivered = True
            self.undelivered.pop(ref, None)

    # -- queries ---------------------------------------------------------------------------
    def question(self, ref: QuestionRef) -> Question:
        return self.by_ref[ref].question

    def state_of(self, question_id: str) -> QuestionState | None:
        ref = self.current.get(question_id)
        return None if ref is None else self.by_ref[ref]
