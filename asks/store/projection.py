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
  ``undelivered`` keeps the saved-but-undelivered ones in save order; each state keeps the
  ``resolved`` entry that saved it (``saved_in``), whose ``group_note`` :meth:`group_notes`
  reads for the units being delivered;
* the conversation records (chat messages, tool results, feedback, permission decisions) for
  transcript rebuild;
* the hub's open offers (``offered``: unit → offer id): in a live session, units handed to a
  response whose receipt is not written yet; after a replay, units that may or may not have
  reached their agent, to be delivered again saying so;
* the person's notes to hub agents (``notes``): each a delivery unit beside the resolutions,
  in ``undelivered`` (in save order with them) until a receipt names it. Its ref is not a
  question's: ``by_ref``, ``current`` and ``pending`` never hold it, so no ``{questionId}``,
  withdrawal or tab can name a note; :meth:`Projection.recipient` knows both kinds.

Records of a replay index (:mod:`asks.store.lazy`) are folded from their facts, without
decoding their lines: a question state then takes its ``question`` and ``resolution`` from
the group and resolved entries on first read (:mod:`asks.store.deferred`), and the values of
``undelivered`` are read from those states before :meth:`Projection.apply` or
:meth:`Projection.apply_all` returns. The state is the same as from decoded records.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any, Final, cast

import attrs

from asks.core.model import Question, QuestionRef, QuestionStatus, Resolution, ResolutionKind
from asks.store.deferred import Deferred, is_unset, pending_of, set_pending
from asks.store.entries import (
    ChatMessage,
    FeedbackDelivered,
    FeedbackOffered,
    GroupAsked,
    NoteSent,
    OfferDelivered,
    OfferReleased,
    PermissionDecided,
    Record,
    Resolved,
    SessionStarted,
    ToolResult,
    UnknownEntry,
    WaitOpened,
    Withdrawn,
)
from asks.store.lazy import group_refs, resolved_facts
from asks.store.records import Conversation, Records

# Stands for a resolution still in its undecoded line while records are folded.
_UNSETTLED: Final = cast(Resolution, object())
_PENDING: Final = QuestionStatus.PENDING
_ANSWERED: Final = QuestionStatus.ANSWERED
_DECLINED: Final = QuestionStatus.DECLINED


@attrs.define(eq=False)
class QuestionState(Deferred):
    """One question incarnation and what happened to it.

    From a lazy record, ``question`` and ``resolution`` may be pending: ``{field: (entry,
    position)}`` names the group (its ``questions``) or resolved entry (its ``resolutions``).
    """

    question: Question
    status: QuestionStatus = QuestionStatus.PENDING
    resolution: Resolution | None = None
    delivered: bool = False
    source: str | None = None  # where the resolution was given (panel, web, line, …)
    saved_in: Resolved | None = None  # the line that saved the resolution (its group note)

    def defer_resolution(self, resolved: Resolved, position: int) -> None:
        """Take ``resolution`` from ``resolved.resolutions[position]`` on first read."""
        del self.resolution
        pending: dict[str, tuple[Any, int]] | None = pending_of(self)
        if pending is None:
            set_pending(self, {"resolution": (resolved, position)})
        else:
            pending["resolution"] = (resolved, position)

    def _fill(
        self, pending: dict[str, tuple[Any, int]], name: str
    ) -> dict[str, tuple[Any, int]] | None:
        if name not in pending:
            return pending
        if is_unset(self, name):
            entry, position = pending[name]
            values = entry.questions if name == "question" else entry.resolutions
            object.__setattr__(self, name, values[position])
        return {key: value for key, value in pending.items() if key != name} or None


# Slot setters, called directly (a group of a replay index makes ~2 states of ~10⁵).
_set_status = QuestionState.__dict__["status"].__set__
_set_resolution = QuestionState.__dict__["resolution"].__set__
_set_delivered = QuestionState.__dict__["delivered"].__set__
_set_source = QuestionState.__dict__["source"].__set__
_set_saved_in = QuestionState.__dict__["saved_in"].__set__


def _deferred_state(group: GroupAsked, position: int) -> QuestionState:
    """A pending state whose question is ``group.questions[position]``, not read yet."""
    state: QuestionState = object.__new__(QuestionState)
    _set_status(state, _PENDING)
    _set_resolution(state, None)
    _set_delivered(state, False)
    _set_source(state, None)
    _set_saved_in(state, None)
    set_pending(state, {"question": (group, position)})
    return state


def restored_state(
    group: GroupAsked,
    position: int,
    status: QuestionStatus,
    delivered: bool,
    saved: tuple[Resolved, int] | None,
) -> QuestionState:
    """The state of ``group.questions[position]`` with that status and ``delivered``, its
    resolution ``saved[0].resolutions[saved[1]]`` (saved by that line), as folding gave it
    (:mod:`asks.store.snapshot`); its question and resolution read on first use."""
    state = _deferred_state(group, position)
    _set_status(state, status)
    _set_delivered(state, delivered)
    if saved is not None:
        resolved, at = saved
        state.defer_resolution(resolved, at)
        _set_source(state, resolved.source)
        _set_saved_in(state, resolved)
    return state


@attrs.define(eq=False)
class NoteState:
    """One note of the person to a hub agent, and whether a receipt named it."""

    note: NoteSent
    delivered: bool = False


@attrs.define(eq=False)
class CallState:
    """One ``ask_user_question`` tool call."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    blocking: bool
    group_asked: GroupAsked | None = None
    result: ToolResult | None = None
    asked_at: float | None = None  # its record's ``ts``: when the call was saved


@attrs.define(eq=False)
class Projection:
    """State derived from journal records (see module docstring)."""

    session_id: str = ""
    by_ref: MutableMapping[QuestionRef, QuestionState] = attrs.Factory(dict)
    current: MutableMapping[str, QuestionRef] = attrs.Factory(dict)
    pending: dict[QuestionRef, None] = attrs.Factory(dict)
    calls: MutableMapping[str, CallState] = attrs.Factory(dict)
    open_calls: dict[str, CallState] = attrs.Factory(dict)
    undelivered: dict[QuestionRef, Resolution | NoteSent] = attrs.Factory(dict)
    notes: dict[QuestionRef, NoteState] = attrs.Factory(dict)
    offered: dict[QuestionRef, str] = attrs.Factory(dict)
    conversation: Conversation = attrs.Factory(Conversation)
    unknown: int = 0
    duplicate_receipts: int = 0
    records: int = 0
    _unsettled: list[QuestionRef] = attrs.field(factory=list, init=False, repr=False)
    _senders: tuple[int, int] = attrs.field(default=(-1, 0), init=False, repr=False)

    def apply_all(self, records: Iterable[Record]) -> None:
        """Replay: fold many records. An empty
        projection given a trusted replay's records takes their snapshot's state for the
        records it covers (:mod:`asks.store.snapshot`) and folds only the others."""
        if isinstance(records, Records) and records.snapshot is not None and self._empty():
            from asks.store.snapshot import adopt  # noqa: PLC0415 (it imports this module)

            snapshot = records.snapshot
            adopt(self, snapshot)
            records = records[snapshot.rows :]
        fold, conversation, count = self._fold, self.conversation.append, 0
        for record in records:  # chat messages (~half a session) without a call
            count += 1
            if type(record.entry) is ChatMessage:
                conversation(record)
            else:
                fold(record)
        self.records += count
        self._settle()

    def _empty(self) -> bool:
        return self.records == 0 and not self.by_ref and not self.conversation

    def apply(self, record: Record) -> None:
        """Fold one record into the state. O(1)."""
        self.records += 1
        self._fold(record)
        if self._unsettled:
            self._settle()

    def _settle(self) -> None:
        """Give ``undelivered`` the resolutions still standing in their lines."""
        undelivered = self.undelivered
        for ref in self._unsettled:
            if undelivered.get(ref) is _UNSETTLED:
                undelivered[ref] = self.by_ref[ref].resolution  # type: ignore[assignment]
        self._unsettled.clear()

    def _fold(self, record: Record) -> None:
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
                self.calls[entry.call_id].asked_at = record.ts
            case Resolved():
                self._resolved_entry(entry)
            case FeedbackDelivered():
                self._mark_delivered(entry.delivered)
                self.conversation.append(record)
            case PermissionDecided():
                self.conversation.append(record)
            case WaitOpened():
                self._open_call(CallState(entry.call_id, entry.refs, True, asked_at=record.ts))
            case Withdrawn():
                for ref in entry.refs:
                    self._close(ref, QuestionStatus.WITHDRAWN)
            case FeedbackOffered():
                self.offered.update(dict.fromkeys(entry.refs, entry.offer_id))
            case OfferDelivered():
                self._end_offer(entry.offer_id, entry.refs)
                self._mark_delivered(entry.refs)
            case OfferReleased():
                self._end_offer(entry.offer_id, entry.refs)
            case NoteSent():
                if entry.ref not in self.notes and entry.ref not in self.by_ref:
                    self.notes[entry.ref] = NoteState(entry)
                    self.undelivered[entry.ref] = entry
            case SessionStarted():
                self.session_id = entry.session_id
            case UnknownEntry():
                self.unknown += 1

    # -- folding helpers --------------------------------------------------------------------
    def _group_asked(self, entry: GroupAsked) -> None:
        refs = group_refs(entry)
        by_ref, current, pending = self.by_ref, self.current, self.pending
        if refs is None:
            refs = tuple([question.ref for question in entry.questions])
            for ref, question in zip(refs, entry.questions, strict=True):
                by_ref[ref] = QuestionState(question)
                current[ref.id] = ref
                pending[ref] = None
        else:
            for position, ref in enumerate(refs):
                by_ref[ref] = _deferred_state(entry, position)
                current[ref.id] = ref
                pending[ref] = None
        call = CallState(entry.call_id, refs, entry.blocking, entry)
        self.calls[call.call_id] = call
        self.open_calls[call.call_id] = call

    def _resolved_entry(self, entry: Resolved) -> None:
        facts = resolved_facts(entry)
        if facts is None:
            for resolution in entry.resolutions:
                self._resolved(resolution, entry)
            return
        # As _resolved for each, without reading the resolutions (module docstring).
        by_ref, pending, source = self.by_ref, self.pending, entry.source
        for position, (ref, kind) in enumerate(facts):
            state = by_ref.get(ref)
            if state is None or state.status is not _PENDING:
                continue
            state.defer_resolution(entry, position)
            state.source = source
            state.saved_in = entry
            state.status = _ANSWERED if kind is ResolutionKind.ANSWERED else _DECLINED
            pending.pop(ref, None)
            self.undelivered[ref] = _UNSETTLED
            self._unsettled.append(ref)

    def _open_call(self, call: CallState) -> None:
        self.calls[call.call_id] = call
        self.open_calls[call.call_id] = call

    def _tool_result(self, entry: ToolResult) -> None:
        call = self.calls.get(entry.call_id)
        if call is not None:
            call.result = entry
        self.open_calls.pop(entry.call_id, None)
        self._mark_delivered(entry.delivered)

    def _resolved(self, resolution: Resolution, entry: Resolved) -> None:
        state = self.by_ref.get(resolution.ref)
        if state is None or state.status is not QuestionStatus.PENDING:
            return
        state.resolution = resolution
        state.source = entry.source
        state.saved_in = entry
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

    def _end_offer(self, offer_id: str, refs: tuple[QuestionRef, ...]) -> None:
        for ref in refs:
            if self.offered.get(ref) == offer_id:
                del self.offered[ref]

    def _mark_delivered(self, refs: tuple[QuestionRef, ...]) -> None:
        for ref in refs:
            state: QuestionState | NoteState | None = self.by_ref.get(ref) or self.notes.get(ref)
            if state is None:
                continue
            if state.delivered:
                self.duplicate_receipts += 1
            state.delivered = True
            self.undelivered.pop(ref, None)

    # -- queries ---------------------------------------------------------------------------
    def question(self, ref: QuestionRef) -> Question:
        return self.by_ref[ref].question

    def pending_senders(self) -> int:
        """How many recipients (agents) the pending questions are from, when some are hub
        agents' (else 0); remembered until the next record."""
        if self._senders[0] != self.records:
            by_ref = self.by_ref
            found = {by_ref[ref].question.recipient for ref in self.pending}
            self._senders = (self.records, len(found) if found - {None} else 0)
        return self._senders[1]

    def askers(self) -> Iterator[str | None]:
        """The source of each group asked, in journal order (reads each group's line: for
        seeding an order once, stopped as soon as it has what it needs)."""
        for call in self.calls.values():
            if call.group_asked is not None and call.group_asked.questions:
                yield call.group_asked.questions[0].source

    def recipient(self, ref: QuestionRef) -> str | None:
        """Who unit ``ref`` (a question's resolution or a note) is delivered to."""
        state = self.by_ref.get(ref)
        return state.question.recipient if state is not None else self.notes[ref].note.recipient

    def group_notes(self, refs: Iterable[QuestionRef]) -> list[tuple[str, tuple[QuestionRef, ...]]]:
        """The group notes saved with the resolutions of ``refs``: ``(note, the refs its line
        resolved)`` once per line that has one, in the order of ``refs``."""
        seen: dict[int, None] = {}
        found = []
        for ref in refs:
            state = self.by_ref.get(ref)
            entry = None if state is None else state.saved_in
            if entry is None or id(entry) in seen:
                continue
            seen[id(entry)] = None
            if entry.group_note:
                found.append((entry.group_note, tuple(r.ref for r in entry.resolutions)))
        return found

    def state_of(self, question_id: str) -> QuestionState | None:
        ref = self.current.get(question_id)
        return None if ref is None else self.by_ref[ref]
