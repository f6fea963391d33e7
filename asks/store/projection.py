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

Every record is folded by :meth:`Projection.apply`, one at a time, in journal order; the
projection counts them (``records``), so each state also knows the *number* of the records
it came from (0-based, in file order: ``asked_in``, ``saved_at``, ``made_in``, …). Those
numbers are what a checkpoint (:mod:`asks.store.checkpoint`) saves instead of the values: a
resume restores the state from a checkpoint and reads the values from those records, on first
use (the maps are :class:`~asks.store.lazymap.LazyMap`\\ s, the conversation a
:class:`~asks.store.records.Conversation` over the journal's records). Nothing else about a
projection depends on where its state came from. A host's projection, given the journal's
reader (:meth:`Projection.read_back`), keeps the tool results it folds from then on by their
number too, read back when asked for (docs/fleet-scale.md, "The lean pending state").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Final, Protocol

import attrs

from asks.core.model import (
    Question,
    QuestionRef,
    QuestionStatus,
    Resolution,
    ResolutionKind,
)
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
from asks.store.records import (
    Conversation,
    Read,
    RecentGroups,
    read_group,
    read_question,
    read_result,
)

if TYPE_CHECKING:
    from asks.core.brief import QuestionBrief

NO_RECORD = -1  # a state's record number when no record gave it that value
Brief = tuple[str, str | None, str | None]  # a QuestionBrief's fields, as a checkpoint keeps them


@attrs.define(eq=False)
class QuestionState:
    """One question incarnation and what happened to it; ``asked_in`` is the number of the
    record of the group that asked it, ``saved_at`` that of ``saved_in``. The question is
    held, or, kept by number (:meth:`keep_by_number`), read back from record ``asked_in``
    when asked for (:class:`~asks.store.records.RecordUnreadable` if it cannot be), its brief
    held (docs/fleet-scale.md, "Questions by number")."""

    _question: Question | None
    status: QuestionStatus = QuestionStatus.PENDING
    resolution: Resolution | None = None
    delivered: bool = False
    source: str | None = None  # where the resolution was given (panel, web, line, …)
    saved_in: Resolved | None = None  # the line that saved the resolution (its group note)
    asked_in: int = NO_RECORD
    saved_at: int = NO_RECORD
    _ref: QuestionRef | None = attrs.field(default=None, init=False)
    _brief: Brief | None = attrs.field(default=None, init=False)
    _read: Read | None = attrs.field(default=None, init=False)

    @property
    def question(self) -> Question:
        """The question as asked (read back if kept by number)."""
        held = self._question
        if held is not None:
            return held
        assert self._read is not None and self._ref is not None  # kept by number
        return read_question(self._read, self.asked_in, self._ref)

    @property
    def briefed(self) -> Brief:
        """Its brief's fields: header, who asked it, who its answer goes to (never read back
        when kept by number)."""
        if self._brief is not None:
            return self._brief
        question = self.question
        return (question.spec.header, question.source, question.recipient)

    def keep_by_number(self, ref: QuestionRef, brief: Brief, read: Read) -> None:
        """From now on keep the question as record ``asked_in``'s, read back with ``read``."""
        self._ref, self._brief, self._read, self._question = ref, brief, read, None


@attrs.define(eq=False)
class NoteState:
    """One note of the person to a hub agent, and whether a receipt named it."""

    note: NoteSent
    delivered: bool = False
    sent_in: int = NO_RECORD  # the number of the note's record


class _ByNumber:
    """What a call keeps in place of its group when it keeps it by number."""

    __slots__ = ()


BY_NUMBER: Final = _ByNumber()


@attrs.define(eq=False)
class CallState:
    """One ``ask_user_question`` tool call. Its result is held, or, closed by
    :meth:`close` with a reader, kept as its record's number and read back when asked for
    (:class:`~asks.store.records.RecordUnreadable` if it cannot be); so is its group
    (``group_asked``, record ``made_in``) once :meth:`keep_group_by_number` was called, and
    then the time it was saved (``asked_at``, that record's ``ts``). The result's number is
    kept as its distance from ``made_in`` (an async call's is 1: no int object per call)."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    blocking: bool
    _group_asked: GroupAsked | _ByNumber | None = None
    _result: ToolResult | None = None
    _asked_at: float | None = None  # its record's ``ts``: when the call was saved
    made_in: int = NO_RECORD  # the number of that record (a group or a wait)
    _result_after: int | None = attrs.field(default=None, init=False)  # result_in - made_in
    _read: Read | None = attrs.field(default=None, init=False)  # the results'
    _groups: Read | None = attrs.field(default=None, init=False)  # the group's

    @property
    def result_in(self) -> int:
        """The number of the result's record (:data:`NO_RECORD` while open)."""
        after = self._result_after
        return NO_RECORD if after is None else self.made_in + after

    @property
    def asked_at(self) -> float | None:
        """When the call was saved (its record's ``ts``; read back if its group is kept by
        number)."""
        if not isinstance(self._group_asked, _ByNumber):
            return self._asked_at
        assert self._groups is not None
        record = self._groups(self.made_in)
        read_group(lambda _: record, self.made_in, self.call_id)  # it is that call's group
        return record.ts

    @property
    def result(self) -> ToolResult | None:
        """The result that closed it, if any (read back if kept by number)."""
        if self._read is None:
            return self._result
        return read_result(self._read, self.result_in, self.call_id)

    @property
    def group_asked(self) -> GroupAsked | None:
        """The line that asked its questions (None for a wait; read back if kept by number)."""
        asked = self._group_asked
        if not isinstance(asked, _ByNumber):
            return asked
        assert self._groups is not None
        return read_group(self._groups, self.made_in, self.call_id)

    @property
    def asks_group(self) -> bool:
        """Whether a ``group_asked`` line made it (not a wait), without reading it."""
        return self._group_asked is not None

    def keep_group_by_number(self, read: Read) -> None:
        """From now on keep the group as record ``made_in``'s, read back with ``read``."""
        if self._group_asked is not None:
            self._group_asked, self._groups, self._asked_at = BY_NUMBER, read, None

    def close(self, result: ToolResult, number: int, read: Read | None) -> None:
        """Record ``number``, ``result``, closed the call: held, or by number with ``read``."""
        self._result_after = number - self.made_in
        self._result, self._read = (result, None) if read is None else (None, read)


@attrs.define(eq=False)
class Changes:
    """The keys of ``by_ref``, ``current`` and ``calls`` whose value the fold set or changed
    since they were last cleared: what a checkpoint writer re-encodes
    (:class:`asks.store.checkpoint.Encoder`) instead of every value. Lists, a key as often
    as it changed (8 bytes a change, not a set's slot per key: a hub keeps thousands between
    two checkpoints); the writer re-encodes a key's row once per listing, the same row."""

    refs: list[QuestionRef] = attrs.Factory(list)
    ids: list[str] = attrs.Factory(list)
    calls: list[str] = attrs.Factory(list)

    def clear(self) -> None:
        self.refs.clear()
        self.ids.clear()
        self.calls.clear()


class QuestionStateView(Protocol):
    """A question incarnation as a reader sees it: :class:`QuestionState` read-only."""

    @property
    def question(self) -> Question:
        """The question as asked."""

    @property
    def status(self) -> QuestionStatus:
        """Pending, answered, declined or withdrawn."""

    @property
    def resolution(self) -> Resolution | None:
        """The saved answer or decline, if any."""

    @property
    def delivered(self) -> bool:
        """Whether a receipt named its resolution."""

    @property
    def source(self) -> str | None:
        """Where the resolution was given (panel, web, line, …)."""

    @property
    def saved_in(self) -> Resolved | None:
        """The line that saved the resolution (its group note)."""

    @property
    def asked_in(self) -> int:
        """The number of the record that asked it."""

    @property
    def saved_at(self) -> int:
        """The number of the record that saved its resolution."""


class NoteStateView(Protocol):
    """A note to a hub agent as a reader sees it: :class:`NoteState` read-only."""

    @property
    def note(self) -> NoteSent:
        """The note as saved."""

    @property
    def delivered(self) -> bool:
        """Whether a receipt named it."""

    @property
    def sent_in(self) -> int:
        """The number of the note's record."""


class CallStateView(Protocol):
    """A tool call as a reader sees it: :class:`CallState` read-only."""

    @property
    def call_id(self) -> str:
        """The call's id."""

    @property
    def refs(self) -> tuple[QuestionRef, ...]:
        """Its questions."""

    @property
    def blocking(self) -> bool:
        """Whether the call waits for its answers."""

    @property
    def group_asked(self) -> GroupAsked | None:
        """The line that asked its questions (None for a wait on earlier ones)."""

    @property
    def result(self) -> ToolResult | None:
        """The result that closed it, if any."""

    @property
    def asked_at(self) -> float | None:
        """When the call was saved (its record's ``ts``)."""

    @property
    def made_in(self) -> int:
        """The number of its record (a group or a wait)."""

    @property
    def result_in(self) -> int:
        """The number of the result's record."""


class ProjectionView(Protocol):
    """What is on disk as a reader sees it (the panel, the surfaces, the agent loop): queries
    and read-only mappings. :class:`Projection` is one; the host hands it out typed as this
    view, so only the fold of journal records changes it."""

    @property
    def session_id(self) -> str:
        """The journal's session id."""

    @property
    def by_ref(self) -> Mapping[QuestionRef, QuestionStateView]:
        """Every question asked, by reference."""

    @property
    def current(self) -> Mapping[str, QuestionRef]:
        """A question id → the reference of its latest asking."""

    @property
    def pending(self) -> Mapping[QuestionRef, None]:
        """The questions still pending, in the order they were asked."""

    @property
    def calls(self) -> Mapping[str, CallStateView]:
        """Every tool call by call id."""

    @property
    def undelivered(self) -> Mapping[QuestionRef, Resolution | NoteSent]:
        """Saved resolutions and notes not yet delivered to their agent."""

    @property
    def notes(self) -> Mapping[QuestionRef, NoteStateView]:
        """The notes sent to hub agents."""

    @property
    def conversation(self) -> Conversation:
        """The chat messages and tool results, in journal order."""

    def question(self, ref: QuestionRef) -> Question:
        """The question ``ref`` (any state)."""

    def brief(self, ref: QuestionRef) -> QuestionBrief:
        """Its header, who asked it, who its answer goes to (any state), without decoding it
        when a resume has not yet."""

    def answer_to(self, ref: QuestionRef) -> str | None:
        """Who question ``ref``'s answer goes to (its brief's ``recipient``), never read back."""

    def group_notes(self, refs: Iterable[QuestionRef]) -> list[tuple[str, tuple[QuestionRef, ...]]]:
        """The person's group notes of ``refs``, each with the questions it covers."""


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
    changes: Changes = attrs.field(factory=Changes, init=False, repr=False)
    # After a checkpoint's restore: a question's brief fields from the checkpoint's columns
    # while it is not decoded, else None (:meth:`brief`; ``LazyMap.peek`` of ``by_ref``).
    peek: Callable[[QuestionRef], Brief | None] | None = attrs.field(
        default=None, init=False, repr=False
    )
    _senders: tuple[int, int] = attrs.field(default=(-1, 0), init=False, repr=False)
    # the journal's records read back by number (:meth:`read_back`), else None
    read: Read | None = attrs.field(default=None, init=False, repr=False)
    # the groups read back, the last ones kept (:meth:`read_back`), else None
    groups: Read | None = attrs.field(default=None, init=False, repr=False)
    # one brief per distinct (header, source, recipient) of the questions kept by number
    _briefs: dict[Brief, Brief] = attrs.field(factory=dict, init=False, repr=False)

    def read_back(self, read: Read) -> None:
        """From now on, keep the tool results folded by their number only, read back with
        ``read`` (record ``n`` as this projection numbers it) when asked for (docs/fleet-scale.md,
        "The lean pending state"), and so the questions and groups (through
        :class:`~asks.store.records.RecentGroups`: "Questions by number"); those folded
        before stay held."""
        self.read = read
        self.groups = RecentGroups(read)
        self.conversation.read_back(read)

    def apply_all(self, records: Iterable[Record]) -> None:
        """Fold each of ``records`` in turn (:meth:`apply`). An empty projection given the
        records of a replay that trusted a checkpoint first restores the checkpoint's state
        (:func:`asks.store.checkpoint.restore`) and folds the records past it."""
        checkpoint = getattr(records, "checkpoint", None)
        if checkpoint is not None and self.records == 0 and isinstance(records, Sequence):
            from asks.store.checkpoint import restore  # noqa: PLC0415 (it imports this module)

            restore(self, checkpoint.state, records)
            records = records[self.records :]
        apply = self.apply
        for record in records:
            apply(record)

    def apply(self, record: Record) -> None:
        """Fold the next record of the journal into the state. O(1)."""
        number = self.records
        self.records = number + 1
        entry = record.entry
        # Most frequent first: the cases are tried in order (chat messages are ~half a session).
        match entry:
            case ChatMessage():
                self.conversation.append(record, number)
            case ToolResult():
                self._tool_result(entry, number)
                self.conversation.append(record, number)
            case GroupAsked():
                self._group_asked(entry, record.ts, number)
            case Resolved():
                for resolution in entry.resolutions:
                    self._resolved(resolution, entry, number)
            case FeedbackDelivered():
                self._mark_delivered(entry.delivered)
                self.conversation.append(record, number)
            case PermissionDecided():
                self.conversation.append(record, number)
            case WaitOpened():
                call = CallState(entry.call_id, entry.refs, True, None, None, record.ts, number)
                self._open_call(call)
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
                    self.notes[entry.ref] = NoteState(entry, sent_in=number)
                    self.undelivered[entry.ref] = entry
            case SessionStarted():
                self.session_id = entry.session_id
            case UnknownEntry():
                self.unknown += 1

    # -- folding helpers --------------------------------------------------------------------
    def _group_asked(self, entry: GroupAsked, ts: float, number: int) -> None:
        by_ref, current, pending = self.by_ref, self.current, self.pending
        refs = tuple([question.ref for question in entry.questions])
        # by number: an async group's (a blocking one's are few, and its wait's result reads them)
        groups = self.groups if self.read is not None and not entry.blocking else None
        for ref, question in zip(refs, entry.questions, strict=True):
            state = by_ref[ref] = QuestionState(question, asked_in=number)
            if groups is not None:
                state.keep_by_number(ref, self._brief_of(question), groups)
            current[ref.id] = ref
            pending[ref] = None
        self.changes.refs.extend(refs)
        self.changes.ids.extend([ref.id for ref in refs])
        call = CallState(entry.call_id, refs, entry.blocking, entry, None, ts, number)
        if groups is not None:
            call.keep_group_by_number(groups)
        self._open_call(call)

    def _brief_of(self, question: Question) -> Brief:
        """``question``'s brief's fields, one tuple per distinct brief."""
        key = (question.spec.header, question.source, question.recipient)
        return self._briefs.setdefault(key, key)

    def _open_call(self, call: CallState) -> None:
        self.calls[call.call_id] = call
        self.open_calls[call.call_id] = call
        self.changes.calls.append(call.call_id)

    def _tool_result(self, entry: ToolResult, number: int) -> None:
        call = self.calls.get(entry.call_id)
        if call is not None:
            call.close(entry, number, self.read)
            self.changes.calls.append(entry.call_id)
        self.open_calls.pop(entry.call_id, None)
        self._mark_delivered(entry.delivered)

    def _resolved(self, resolution: Resolution, entry: Resolved, number: int) -> None:
        state = self.by_ref.get(resolution.ref)
        if state is None or state.status is not QuestionStatus.PENDING:
            return
        state.resolution = resolution
        state.source = entry.source
        state.saved_in = entry
        state.saved_at = number
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
        self.changes.refs.append(ref)

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
            self.changes.refs.append(ref)

    # -- queries ---------------------------------------------------------------------------
    def question(self, ref: QuestionRef) -> Question:
        return self.by_ref[ref].question

    def brief(self, ref: QuestionRef) -> QuestionBrief:
        """The brief of question ``ref`` (any state): after a resume, read from the
        checkpoint's columns while the question is not decoded (:attr:`peek`)."""
        from asks.core.brief import QuestionBrief  # noqa: PLC0415 (off the launch)

        return QuestionBrief(*self._briefed(ref))

    def _briefed(self, ref: QuestionRef) -> Brief:
        """The brief's fields of question ``ref``, never read back (:meth:`brief`)."""
        if self.peek is not None and (found := self.peek(ref)) is not None:
            return found
        return self.by_ref[ref].briefed

    def asker(self, ref: QuestionRef) -> str | None:
        """Who asked question ``ref`` (its brief's ``source``), read as :meth:`brief` is."""
        return self._briefed(ref)[1]

    def pending_senders(self) -> int:
        """How many recipients (agents) the pending questions are from, when some are hub
        agents' (else 0); remembered until the next record."""
        if self._senders[0] != self.records:
            found = {self.answer_to(ref) for ref in self.pending}
            self._senders = (self.records, len(found) if found - {None} else 0)
        return self._senders[1]

    def answer_to(self, ref: QuestionRef) -> str | None:
        """Who question ``ref``'s answer goes to, read as :meth:`brief` is."""
        return self._briefed(ref)[2]

    def askers(self) -> Iterator[str | None]:
        """The source of each group asked, in journal order (reads each group's line: for
        seeding an order once, stopped as soon as it has what it needs)."""
        for call in self.calls.values():
            if call.asks_group and call.refs:
                yield self.asker(call.refs[0])

    def recipient(self, ref: QuestionRef) -> str | None:
        """Who unit ``ref`` (a question's resolution or a note) is delivered to."""
        state = self.by_ref.get(ref)
        return state.briefed[2] if state is not None else self.notes[ref].note.recipient

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
