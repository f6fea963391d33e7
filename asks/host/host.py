"""The question host: one state object for the questions of a session.

It owns the journal (what must last), the projection (what is on disk, in memory), the live
waits (blocking tool calls), drafts, tabs, the panel mode and focus. Events flow one way: a tool
call, key command or agent signal comes in; the host journals what must last (save before
notify), folds it into the projection, adjusts waits, focus and the outbox, then calls its
listeners so views re-render. Views never decide policy; the host never knows urwid.

Sync ``*_nowait`` methods serve widget callbacks; async methods (:meth:`QuestionHost.ask`,
:meth:`QuestionHost.wait_for_feedback`) serve the agent. The state model and the eight focus
rules are in NOTES.md ("State model").

Storage failures never raise out of the host: the draft stays, :attr:`HostStatistics.notice`
says what happened, the agent gets a ``storage_failed`` error where it asked for something, and
nothing is reported as saved or delivered unless its journal line is durable.
"""

from __future__ import annotations

import enum
import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs
import trio

from asks import contract
from asks.contract import NewQuestions, ResultEnvelope, ToolError
from asks.core.drafts import Draft, answer_at_cursor, custom_row, move, toggle
from asks.core.focus import Focus, FocusTarget, Route
from asks.core.model import (
    MAX_CUSTOM_TEXT,
    Answer,
    AnswerKind,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    QuestionStatus,
    Resolution,
    ResolutionKind,
    question_id,
)
from asks.core.tabs import ReviewKey, TabKey, TabStrip
from asks.store.entries import (
    ChatMessage,
    Entry,
    FeedbackDelivered,
    GroupAsked,
    Record,
    Resolved,
    ToolResult,
    WaitOpened,
    Withdrawn,
)
from asks.store.journal import Journal, StorageError, StorageState
from asks.store.outbox import DeliveryMode, Feedback, Outbox
from asks.store.projection import CallState, Projection

ToolReply = ResultEnvelope | ToolError


class PanelCommand(enum.StrEnum):
    """Commands the panel's keymap maps keys to."""

    NEXT_TAB = "next_tab"
    PREV_TAB = "prev_tab"
    UP = "up"
    DOWN = "down"
    CONFIRM = "confirm"
    TOGGLE = "toggle"
    PAUSE = "pause"
    COLLAPSE = "collapse"
    DECLINE = "decline"
    DEFER = "defer"
    CLEAR_DRAFT = "clear_draft"


class AnswerRefusal(enum.StrEnum):
    """Why :meth:`QuestionHost.answer_from_nowait` saved nothing."""

    UNKNOWN_QUESTION = "unknown_question"  # no such question incarnation
    ALREADY_ANSWERED = "already_answered"  # answered or declined (terminal, another tab, …)
    WITHDRAWN = "withdrawn"  # the agent took it back
    INVALID_ANSWER = "invalid_answer"  # does not fit the question (see :func:`answer_problem`)
    NOT_SAVED = "not_saved"  # the journal append failed (see ``statistics().notice``)


def answer_problem(spec: QuestionSpec, answer: Answer) -> str | None:
    """Why ``answer`` cannot answer ``spec`` (a sentence for a person), or ``None`` if it can.

    The shapes the panel produces: ``option`` = exactly one option of a single-select question;
    ``multi`` = distinct options (sorted) of a multi-select question and/or custom text, at least
    one of them; ``custom`` = non-empty text for a single-select or free-text question. Custom
    text and notes are at most ``MAX_CUSTOM_TEXT`` characters.
    """
    indices = answer.option_indices
    if any(i < 0 or i >= len(spec.options) for i in indices):
        return "That option does not exist."
    if answer.custom_text is not None and len(answer.custom_text) > MAX_CUSTOM_TEXT:
        return f"The answer is longer than {MAX_CUSTOM_TEXT} characters."
    if len(answer.notes) > MAX_CUSTOM_TEXT:
        return f"The notes are longer than {MAX_CUSTOM_TEXT} characters."
    has_text = bool(answer.custom_text and answer.custom_text.strip())
    match answer.kind:
        case AnswerKind.OPTION if spec.multi_select or len(indices) != 1:
            return "Choose exactly one option."
        case AnswerKind.MULTI if not spec.multi_select:
            return "This question takes one answer."
        case AnswerKind.MULTI if list(indices) != sorted(set(indices)) or not (indices or has_text):
            return "Check at least one option or type an answer."
        case AnswerKind.CUSTOM if spec.multi_select or indices or not has_text:
            return "Type an answer first."
    return None


class PanelMode(enum.StrEnum):
    EXPANDED = "expanded"
    PAUSED = "paused"
    COLLAPSED = "collapsed"


@attrs.define(eq=False)
class Wait:
    """A live lease: one blocking tool call waiting on 1–4 questions."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    reply: ToolReply | None = None
    _done: trio.Event = attrs.Factory(trio.Event)

    @property
    def done(self) -> bool:
        return self.reply is not None

    @property
    def staged(self) -> bool:
        """Multi-question waits collect answers and save them together at Review."""
        return len(self.refs) > 1

    async def result(self) -> ToolReply:
        await self._done.wait()
        assert self.reply is not None
        return self.reply

    def finish(self, reply: ToolReply) -> None:
        self.reply = reply
        self._done.set()


@attrs.frozen
class HostStatistics:
    """Snapshot for the status line."""

    pending: int
    saved_undelivered: int
    live_waits: int
    storage: StorageState
    agent_running: bool
    focus_owner: str
    mode: PanelMode
    notice: str | None


_EMPTY_DRAFT: Final = Draft()  # frozen: one shared value for "nothing typed yet"


def _group_id(session_id: str, call_id: str) -> str:
    digest = hashlib.blake2s(f"{session_id}\x00{call_id}".encode(), digest_size=5).hexdigest()
    return f"g-{digest}"


def _same_request(call: CallState, request: contract.Call) -> bool:
    """Is ``request`` a retry of ``call`` (same kind, same questions)?"""
    asked = call.group_asked
    if isinstance(request, NewQuestions):
        return (
            asked is not None
            and request.blocking == asked.blocking
            and request.specs == tuple(q.spec for q in asked.questions)
        )
    return asked is None and request.question_ids == tuple(r.id for r in call.refs)


class QuestionHost:
    """Questions, waits, drafts, tabs and focus for one session (see module docstring)."""

    def __init__(
        self,
        journal: Journal,
        records: Iterable[Record] = (),
        *,
        focus: Focus | None = None,
        clock: Callable[[], float] = time.monotonic,
        ui_attached: bool = True,
    ) -> None:
        self.journal = journal
        self.projection = Projection(session_id=journal.session_id)
        self.projection.apply_all(records)
        self.focus = focus or Focus(FocusTarget("chat"), FocusTarget("panel"))
        self.outbox = Outbox(self.projection)
        self.ui_attached = ui_attached
        self.mode = PanelMode.EXPANDED
        self.notice: str | None = None
        self.agent_running = False
        self._clock = clock
        self._waits: dict[str, Wait] = {}
        self._wait_of: dict[QuestionRef, Wait] = {}
        self._drafts: dict[QuestionRef, Draft] = {}
        self._strip = TabStrip()
        self._listeners: list[Callable[[], None]] = []
        self._close_dangling_calls()
        self._changed()

    # ====================================================================== observation
    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every state change; returns an unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def statistics(self) -> HostStatistics:
        return HostStatistics(
            pending=len(self.projection.pending),
            saved_undelivered=len(self.outbox),
            live_waits=len(self._waits),
            storage=self.journal.state,
            agent_running=self.agent_running,
            focus_owner=self.focus.owner.name,
            mode=self.mode,
            notice=self.notice,
        )

    @property
    def tabs(self) -> tuple[TabKey, ...]:
        return self._strip.tabs

    @property
    def selected(self) -> TabKey | None:
        return self._strip.selected

    def question(self, ref: QuestionRef) -> Question:
        return self.projection.question(ref)

    def draft(self, ref: QuestionRef) -> Draft:
        return self._drafts.get(ref, _EMPTY_DRAFT)

    def wait_for(self, ref: QuestionRef) -> Wait | None:
        return self._wait_of.get(ref)

    def wait_of_call(self, call_id: str) -> Wait | None:
        """The live wait of a tool call (e.g. behind a Review tab)."""
        return self._waits.get(call_id)

    @property
    def live_waits(self) -> tuple[Wait, ...]:
        return tuple(self._waits.values())

    def is_required(self, tab: TabKey) -> bool:
        return isinstance(tab, ReviewKey) or tab in self._wait_of

    # ====================================================================== agent side
    async def ask(self, call_id: str, arguments: object) -> ToolReply:
        """Run one ``ask_user_question`` call; blocks until a blocking wait ends.

        Cancelling this coroutine ends its wait as ``interrupted`` (journaled).
        """
        started = self.start_call_nowait(call_id, arguments)
        if not isinstance(started, Wait):
            return started
        try:
            return await started.result()
        finally:
            if not started.done:
                self._finish_wait(started, Outcome.INTERRUPTED, "the tool call was cancelled")
                self._changed()

    def start_call_nowait(self, call_id: str, arguments: object) -> ToolReply | Wait:
        """Validate and save a call; return its immediate reply or the live :class:`Wait`."""
        if not self.ui_attached:
            return contract.no_ui()
        call = contract.validate_call(arguments)
        if isinstance(call, ToolError):
            return call
        existing = self.projection.calls.get(call_id)
        if existing is not None:
            return self._repeat_call(existing, call_id, call)
        if isinstance(call, NewQuestions):
            return self._new_group(call_id, call)
        return self._wait_on(call_id, call.question_ids)

    def withdraw_nowait(self, question_ids: Sequence[str], reason: str = "") -> ToolError | None:
        """The agent takes pending questions back (journaled; drafts dropped)."""
        refs = [self.projection.current.get(qid) for qid in question_ids]
        unknown = [
            qid for qid, ref in zip(question_ids, refs, strict=True)
            if ref is None or ref not in self.projection.pending
        ]
        if unknown or not refs:
            return contract.unknown_question(unknown)
        known = tuple(r for r in refs if r is not None)
        if self._append(Withdrawn(known, reason)) is None:
            return contract.storage_failed(self.journal.state.value)
        for ref in known:
            self._drafts.pop(ref, None)
        self._settle_waits(known)
        self._changed()
        return None

    def interrupt_nowait(self, reason: str = "the turn was interrupted") -> None:
        """End every live wait as ``interrupted``; questions stay pending (Ctrl+C, shutdown)."""
        for wait in list(self._waits.values()):
            self._finish_wait(wait, Outcome.INTERRUPTED, reason)
        self._changed()

    def detach_ui_nowait(self) -> None:
        """No UI any more: live waits end ``interrupted``; later calls get ``no_ui``."""
        self.ui_attached = False
        self.interrupt_nowait("the question panel was detached")

    # ====================================================================== other surfaces
    def answer_from_nowait(
        self,
        question_id: str,
        incarnation: int,
        answer: Answer | None,
        source: str = "web",
    ) -> AnswerRefusal | None:
        """Save an answer (``None``: a decline) given on another surface, e.g. the web bridge.

        The same path as the panel: one ``resolved`` line (tagged ``source``) is appended and
        fsync'd before anything is told; then a wait whose questions are now all closed ends
        (its tool result delivers them), else the unit goes to the outbox — or, if the
        question belongs to a live multi-question wait, it is claimed by that wait, which
        delivers it when it ends (NOTES.md, "Web bridge"). Only this question is resolved: a
        decline here declines this question alone. Its own draft is dropped (it is saved
        now); drafts of other questions, staged or not, are never touched. Returns ``None``
        when saved, else why nothing was saved.
        """
        ref = QuestionRef(question_id, incarnation)
        state = self.projection.by_ref.get(ref)
        if state is None:
            return AnswerRefusal.UNKNOWN_QUESTION
        if state.status is QuestionStatus.WITHDRAWN:
            return AnswerRefusal.WITHDRAWN
        if state.status is not QuestionStatus.PENDING:
            return AnswerRefusal.ALREADY_ANSWERED
        if answer is not None and answer_problem(state.question.spec, answer) is not None:
            return AnswerRefusal.INVALID_ANSWER
        kind = ResolutionKind.DECLINED if answer is None else ResolutionKind.ANSWERED
        wait = self._wait_of.get(ref)
        if wait is not None:
            self.outbox.claimed.add(ref)  # the wait's tool result will deliver it
        if not self._save([Resolution(ref, kind, answer)], source):
            self.outbox.claimed.discard(ref)
            self._changed()
            return AnswerRefusal.NOT_SAVED
        self._settle_waits([ref])
        self._changed()
        return None

    def record_message_nowait(self, message: ChatMessage) -> bool:
        """Journal a conversation message of the agent loop; False if it was not saved."""
        return self._append(message) is not None

    # -- delivery ----------------------------------------------------------------------------
    def turn_started_nowait(self) -> None:
        self.agent_running = True
        self._notify()

    def turn_ended_nowait(self) -> None:
        self.agent_running = False
        self.outbox.signal()
        self._notify()

    def take_feedback_nowait(self) -> Feedback | None:
        """Drain the outbox into one feedback message; its receipt is durable on return."""
        refs = self.outbox.refs()
        if not refs:
            return None
        items = [self._item(ref) for ref in refs]
        text = contract.feedback_text(items)
        mode = DeliveryMode.STEER if self.agent_running else DeliveryMode.WAKE
        record = self._append(FeedbackDelivered(refs, text, mode.value))
        if record is None:
            return None
        self._notify()
        return Feedback(text, refs, mode, record.seq)

    async def wait_for_feedback(self) -> None:
        """Return once something is deliverable (an idle agent awaits this to be woken)."""
        await self.outbox.wait_ready()

    # ====================================================================== UI side
    def key_route(self, now: float) -> Route:
        """Where a key read at ``now`` goes (the arrival guard, focus rule 7)."""
        return self.focus.route(now, self.selected if self.focus.panel_focused else None)

    def command_nowait(self, command: PanelCommand, tab: TabKey | None = None) -> None:
        """Apply a panel command to ``tab`` (default: the selected tab)."""
        target = tab if tab is not None and tab in self._strip else self.selected
        self.notice = None
        handler = _COMMANDS[command]
        handler(self, target)
        self._changed()

    def set_custom_text_nowait(
        self, text: str, caret: int | None = None, tab: TabKey | None = None
    ) -> None:
        """The reply editor changed (the widget owns the text; the host keeps the draft)."""
        where = len(text) if caret is None else caret
        self._edit_draft(lambda d: attrs.evolve(d, custom_text=text, caret=where), tab)

    def set_notes_nowait(self, notes: str, tab: TabKey | None = None) -> None:
        self._edit_draft(lambda d: attrs.evolve(d, notes=notes), tab)

    def set_cursor_nowait(self, row: int, tab: TabKey | None = None) -> None:
        self._edit_draft(lambda d: attrs.evolve(d, cursor=row), tab)

    def enter_panel_nowait(self, question_id: str | None = None) -> str | None:
        """Open the panel with focus (``/asks``, focus toggle); returns a notice on refusal."""
        self.notice = None
        if not self.tabs:
            return self._say("No pending questions.")
        if self.focus.foreign_active:
            return self._say("Finish the open prompt first.")
        if question_id is not None:
            ref = self.projection.current.get(question_id)
            if ref is None or ref not in self._strip:
                return self._say(f"No pending question with id {question_id}.")
            self._strip.selected = ref
        if not self.focus.enter_panel():
            return self._say("Finish the open prompt first.")
        self.mode = PanelMode.EXPANDED
        self._changed()
        return None

    def toggle_focus_nowait(self) -> str | None:
        """The focus-toggle key: chat → panel; panel → back to the origin, or while a
        blocker is pending, to the next required tab (rule 4)."""
        self.notice = None
        if not self.focus.panel_focused:
            return self.enter_panel_nowait()
        if self._waits:
            self._select_required(step=1)
        else:
            self.focus.leave_panel()
        self._changed()
        return None

    def toggle_collapse_nowait(self) -> str | None:
        """The collapse key from outside the panel (or inside: see ``COLLAPSE``)."""
        self.notice = None
        if self._waits:
            return self._say("A required question is waiting; it cannot be collapsed.")
        if self.mode is PanelMode.COLLAPSED:
            self.mode = PanelMode.EXPANDED
        else:
            self.mode = PanelMode.COLLAPSED
            self.focus.leave_panel()
        self._changed()
        return None

    def begin_foreign_nowait(self, prompt: FocusTarget) -> None:
        self.focus.begin_foreign(prompt)
        self._changed()

    def end_foreign_nowait(self, prompt: FocusTarget) -> None:
        self.focus.end_foreign(prompt)
        self._changed()

    def mount_nowait(self, target: FocusTarget) -> None:
        self.focus.mount(target)

    def focus_target_nowait(self, target: FocusTarget) -> str | None:
        """The embedding app moves the keyboard to one of its own (mounted) editors.

        Refused while a foreign prompt is up, or while a blocker holds the panel (rule 4).
        """
        if self.focus.foreign_active:
            return self._say("Finish the open prompt first.")
        if self._waits:
            return self._say("A required question is waiting: answer, Decline or Defer it.")
        self.focus.give(target)
        self._changed()
        return None

    def unmount_nowait(self, target: FocusTarget) -> None:
        self.focus.unmount(target)
        self._changed()

    # ====================================================================== calls
    def _new_group(self, call_id: str, call: NewQuestions) -> ToolReply | Wait:
        session = self.projection.session_id
        incarnation = self.journal.next_seq
        group_id = _group_id(session, call_id)
        questions = tuple(
            Question(QuestionRef(question_id(session, call_id, i), incarnation), group_id, i, spec)
            for i, spec in enumerate(call.specs)
        )
        entry = GroupAsked(call_id, group_id, questions, call.blocking)
        if self._append(entry) is None:
            return contract.storage_failed(self.journal.state.value)
        refs = tuple(q.ref for q in questions)
        if call.blocking:
            return self._open_wait(call_id, refs)
        envelope = contract.queued_result(call_id, questions)
        self._append(ToolResult(call_id, envelope.outcome, envelope.text, envelope.details))
        self._changed()
        return envelope

    def _wait_on(self, call_id: str, question_ids: Sequence[str]) -> ToolReply | Wait:
        states = [self.projection.state_of(qid) for qid in question_ids]
        unknown = [
            qid for qid, st in zip(question_ids, states, strict=True)
            if st is None or st.status is QuestionStatus.WITHDRAWN
        ]
        if unknown:
            return contract.unknown_question(unknown)
        live = [st for st in states if st is not None]
        busy = [st.question.id for st in live if st.question.ref in self._wait_of]
        if busy:
            return contract.already_waiting(busy)
        refs = tuple(st.question.ref for st in live if not st.delivered)
        if not refs:
            return self._reply_only(
                call_id, contract.already_received_result(call_id, [s.question for s in live])
            )
        if self._append(WaitOpened(call_id, refs)) is None:
            return contract.storage_failed(self.journal.state.value)
        return self._open_wait(call_id, refs)

    def _repeat_call(
        self, call: CallState, call_id: str, request: contract.Call
    ) -> ToolReply | Wait:
        """A call id seen before: a retry gets the same answer; a reuse needs closed questions."""
        if _same_request(call, request):
            live = self._waits.get(call_id)
            if live is not None:
                return live
            if call.result is not None:
                return self._repeat_result(call.result, call)
        if all(r not in self.projection.pending for r in call.refs) and isinstance(
            request, NewQuestions
        ):
            return self._new_group(call_id, request)
        return contract.call_conflict(call_id)

    def _repeat_result(self, result: ToolResult, call: CallState) -> ToolReply:
        if result.delivered:
            questions = [self.projection.question(r) for r in call.refs]
            return contract.already_received_result(call.call_id, questions)
        return ResultEnvelope(result.outcome, result.text, result.details)

    def _reply_only(self, call_id: str, envelope: ResultEnvelope) -> ToolReply:
        """Journal a result that opens nothing (keeps the conversation complete)."""
        self._append(ToolResult(call_id, envelope.outcome, envelope.text, envelope.details))
        return envelope

    # ====================================================================== waits
    def _open_wait(self, call_id: str, refs: tuple[QuestionRef, ...]) -> Wait:
        wait = Wait(call_id, refs)
        self._strip.dirty = True
        resolved = [r for r in refs if r not in self.projection.pending]
        if len(resolved) == len(refs):
            self._waits[call_id] = wait
            self._finish_wait(wait, Outcome.ANSWERED)
            self._changed()
            return wait
        self._waits[call_id] = wait
        for ref in refs:
            if ref in self.projection.pending:
                self._wait_of[ref] = wait
            else:
                self.outbox.claimed.add(ref)
        self._changed()  # claims focus (or waits behind a foreign prompt)
        return wait

    def _settle_waits(self, refs: Iterable[QuestionRef]) -> None:
        """Finish every wait whose questions are all closed now."""
        for wait in {self._wait_of[r] for r in refs if r in self._wait_of}:
            if all(r not in self.projection.pending for r in wait.refs):
                self._finish_wait(wait, self._closed_outcome(wait))

    def _closed_outcome(self, wait: Wait) -> Outcome:
        kinds = [self.projection.by_ref[r].status for r in wait.refs]
        if all(k is QuestionStatus.WITHDRAWN for k in kinds):
            return Outcome.WITHDRAWN
        if all(k is QuestionStatus.DECLINED for k in kinds):
            return Outcome.DECLINED
        return Outcome.ANSWERED

    def _finish_wait(self, wait: Wait, outcome: Outcome, reason: str = "") -> None:
        """Write the tool result (the receipt), end the lease, then move focus."""
        envelope, delivered = self._wait_envelope(wait, outcome, reason)
        record = self._append(
            ToolResult(wait.call_id, envelope.outcome, envelope.text, envelope.details, delivered)
        )
        self._waits.pop(wait.call_id, None)
        self._strip.dirty = True
        for ref in wait.refs:
            if self._wait_of.get(ref) is wait:
                del self._wait_of[ref]
            self.outbox.claimed.discard(ref)
        reply: ToolReply = envelope if record is not None else contract.result_not_saved(
            self.journal.state.value
        )
        wait.finish(reply)
        self.outbox.signal()
        if not self._waits:
            self._after_last_wait(outcome)

    def _wait_envelope(
        self, wait: Wait, outcome: Outcome, reason: str
    ) -> tuple[ResultEnvelope, tuple[QuestionRef, ...]]:
        states = [self.projection.by_ref[r] for r in wait.refs]
        questions = [s.question for s in states]
        pending = [s.question for s in states if s.status is QuestionStatus.PENDING]
        resolved = tuple(s.question.ref for s in states if s.resolution is not None)
        call_id = wait.call_id
        match outcome:
            case Outcome.ANSWERED | Outcome.PARTIAL:
                items = [self._item(r) for r in resolved]
                return contract.answered_result(call_id, items, pending), resolved
            case Outcome.DECLINED:
                return contract.declined_result(call_id, questions), resolved
            case Outcome.DEFERRED:
                return contract.deferred_result(call_id, pending), ()
            case Outcome.WITHDRAWN:
                return contract.withdrawn_result(call_id, questions), ()
            case _:
                return contract.interrupted_result(call_id, pending, reason), ()

    def _after_last_wait(self, outcome: Outcome) -> None:
        """Rules 5 and 6: where focus goes when the last blocker is done."""
        claim = self.focus.end_claim()
        if claim is None:
            return
        self._recompute_tabs()
        remaining = self._strip.questions()
        prior = claim.prior_tab if claim.prior_tab in self._strip else None
        prior = prior if isinstance(prior, QuestionRef) else None
        if outcome in (Outcome.ANSWERED, Outcome.PARTIAL) and remaining:
            self._strip.selected = prior or remaining[0]
        elif prior is not None:
            self._strip.selected = prior
        elif self.focus.panel_focused:
            self.focus.leave_panel()
        else:  # a foreign prompt sits on top of the panel: it will return to the origin
            self.focus.return_foreign_to_origin()

    def _close_dangling_calls(self) -> None:
        """Resume: a call with no result gets one (interrupted if blocking); never replayed."""
        for call in list(self.projection.open_calls.values()):
            questions = [self.projection.question(r) for r in call.refs]
            if call.blocking:
                pending = [q for q in questions if q.ref in self.projection.pending]
                envelope = contract.interrupted_result(
                    call.call_id, pending, "the session was restarted"
                )
            else:
                envelope = contract.queued_result(call.call_id, questions)
            self._reply_only(call.call_id, envelope)

    # ====================================================================== saving
    def _append(self, entry: Entry) -> Record | None:
        """Journal then project; on failure set a notice and return ``None``."""
        try:
            record = self.journal.append(entry)
        except StorageError as exc:
            self._say(f"Not saved: {exc}")
            return None
        self.projection.apply(record)
        self._strip.dirty = True
        return record

    def _save(self, resolutions: Sequence[Resolution], source: str = "panel") -> bool:
        """Save resolutions (one line); on success drop their drafts and signal the outbox."""
        if self._append(Resolved(tuple(resolutions), source)) is None:
            self._say(f"{self.notice} Your draft is kept.")
            return False
        refs = [r.ref for r in resolutions]
        for ref in refs:
            self._drafts.pop(ref, None)
        self.outbox.signal()
        return True

    def _item(self, ref: QuestionRef) -> tuple[Question, Resolution]:
        state = self.projection.by_ref[ref]
        assert state.resolution is not None
        return state.question, state.resolution

    # ====================================================================== commands
    def _cmd_next_tab(self, tab: TabKey | None) -> None:
        self._select_relative(tab, 1)

    def _cmd_prev_tab(self, tab: TabKey | None) -> None:
        self._select_relative(tab, -1)

    def _cmd_up(self, tab: TabKey | None) -> None:
        if isinstance(tab, QuestionRef):
            self._drafts[tab] = move(self.draft(tab), self.question(tab).spec, -1)

    def _cmd_down(self, tab: TabKey | None) -> None:
        if isinstance(tab, QuestionRef):
            self._drafts[tab] = move(self.draft(tab), self.question(tab).spec, 1)

    def _cmd_toggle(self, tab: TabKey | None) -> None:
        if isinstance(tab, QuestionRef):
            self._drafts[tab] = toggle(self.draft(tab), self.question(tab).spec)

    def _cmd_clear_draft(self, tab: TabKey | None) -> None:
        """Ctrl+U: forget what was typed, selected and checked; the cursor stays put."""
        if isinstance(tab, QuestionRef):
            self._drafts[tab] = Draft(cursor=self.draft(tab).cursor)

    def _cmd_confirm(self, tab: TabKey | None) -> None:
        if isinstance(tab, ReviewKey):
            self._submit_review(self._waits[tab.call_id])
            return
        if tab is None:
            return
        spec = self.question(tab).spec
        draft = self.draft(tab)
        if spec.multi_select and draft.cursor < len(spec.options):
            self._drafts[tab] = toggle(draft, spec)
            return
        if spec.multi_select and draft.cursor == custom_row(spec):
            draft = attrs.evolve(draft, cursor=custom_row(spec) + 1)  # the Next row
        answer = answer_at_cursor(draft, spec)
        if isinstance(answer, str):
            self._say(answer)
        else:
            self._answer(tab, answer)

    def _answer(self, ref: QuestionRef, answer: Answer) -> None:
        wait = self._wait_of.get(ref)
        if wait is not None and wait.staged:
            self._drafts[ref] = attrs.evolve(self.draft(ref), staged=answer)
            self._select_next_unstaged(wait)
            return
        if self._save([Resolution(ref, ResolutionKind.ANSWERED, answer)]):
            self._settle_waits([ref])

    def _submit_review(self, wait: Wait) -> None:
        staged = [
            Resolution(r, ResolutionKind.ANSWERED, self.draft(r).staged)
            for r in wait.refs
            if r in self.projection.pending and self.draft(r).staged is not None
        ]
        if not staged:
            self._say("Answer at least one question first, or Decline or Defer.")
            return
        if not self._save(staged):
            return
        if any(r in self.projection.pending for r in wait.refs):
            self._finish_wait(wait, Outcome.PARTIAL)
        else:
            self._finish_wait(wait, Outcome.ANSWERED)

    def _cmd_decline(self, tab: TabKey | None) -> None:
        wait = self._wait_for_tab(tab)
        if wait is not None:
            refs = [r for r in wait.refs if r in self.projection.pending]
        elif isinstance(tab, QuestionRef):
            refs = [tab]
        else:
            return
        if self._save([Resolution(r, ResolutionKind.DECLINED) for r in refs]):
            self._settle_waits(refs)

    def _cmd_defer(self, tab: TabKey | None) -> None:
        wait = self._wait_for_tab(tab)
        if wait is None:
            self._say("This question is not blocking; it simply stays pending.")
            return
        self._finish_wait(wait, Outcome.DEFERRED)

    def _cmd_pause(self, tab: TabKey | None) -> None:
        if self._waits:
            if tab is not None and not self.is_required(tab):
                self._select_required(step=0)
            else:
                self._say("A required question is waiting: answer, Decline or Defer it.")
            return
        self.focus.leave_panel()
        self.mode = PanelMode.PAUSED

    def _cmd_collapse(self, tab: TabKey | None) -> None:
        self.toggle_collapse_nowait()

    # ====================================================================== tabs
    def _wait_for_tab(self, tab: TabKey | None) -> Wait | None:
        if isinstance(tab, ReviewKey):
            return self._waits.get(tab.call_id)
        return None if tab is None else self._wait_of.get(tab)

    def _select_relative(self, tab: TabKey | None, step: int) -> None:
        self._strip.step(tab, step)

    def _select_required(self, step: int) -> None:
        """Select a required tab: the first (step 0) or the next one after the selection."""
        self._strip.select_matching(self.is_required, step)

    def _select_next_unstaged(self, wait: Wait) -> None:
        for ref in wait.refs:
            if ref in self.projection.pending and self.draft(ref).staged is None:
                self._strip.selected = ref
                return
        self._strip.selected = ReviewKey(wait.call_id)

    def _recompute_tabs(self) -> None:
        staged = [(w.call_id, w.refs) for w in self._waits.values() if w.staged]
        self._strip.rebuild(self.projection.pending, staged)

    # ====================================================================== plumbing
    def _edit_draft(self, edit: Callable[[Draft], Draft], tab: TabKey | None = None) -> None:
        """Edit the draft of ``tab`` (default: the selected tab) if it is a pending question."""
        tab = tab if tab is not None and tab in self._strip else self.selected
        if isinstance(tab, QuestionRef):
            self._drafts[tab] = edit(self.draft(tab))
            self._notify()

    def _say(self, notice: str) -> str:
        self.notice = notice
        self._notify()
        return notice

    def _changed(self) -> None:
        """Re-derive tabs and focus consistency after any change, then notify listeners."""
        self._recompute_tabs()
        if self.focus.panel_focused and not self.tabs:
            self.focus.leave_panel()
        if self._waits and self.focus.claim is None:
            self._claim()
        self._notify()

    def _claim(self) -> None:
        """Rule 3: claim focus for live waits now, or wait behind a foreign prompt."""
        self.focus.request_claim(self._clock(), self.selected)
        if self.focus.claim is not None:
            self.mode = PanelMode.EXPANDED
            self._select_required(step=0)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()


_COMMANDS: dict[PanelCommand, Callable[[QuestionHost, TabKey | None], None]] = {
    PanelCommand.NEXT_TAB: QuestionHost._cmd_next_tab,
    PanelCommand.PREV_TAB: QuestionHost._cmd_prev_tab,
    PanelCommand.UP: QuestionHost._cmd_up,
    PanelCommand.DOWN: QuestionHost._cmd_down,
    PanelCommand.CONFIRM: QuestionHost._cmd_confirm,
    PanelCommand.TOGGLE: QuestionHost._cmd_toggle,
    PanelCommand.PAUSE: QuestionHost._cmd_pause,
    PanelCommand.COLLAPSE: QuestionHost._cmd_collapse,
    PanelCommand.DECLINE: QuestionHost._cmd_decline,
    PanelCommand.DEFER: QuestionHost._cmd_defer,
    PanelCommand.CLEAR_DRAFT: QuestionHost._cmd_clear_draft,
}
