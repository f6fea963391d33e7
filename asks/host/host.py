"""The question host: the one orchestrator of a session's questions.

It owns the journal (what must last), the projection (what is on disk, in memory), the live
waits, drafts, tabs, the panel mode and focus, and keeps **save before notify** in one place:
a tool call, key command, surface answer or agent signal comes in; the host journals what must
last, folds it into the projection, adjusts waits, focus and the outbox, then publishes typed
events (:mod:`asks.core.events`) and calls its change listeners so views re-render. Views never
decide policy; the host never knows urwid.

Its seams are collaborators: :mod:`asks.host.calls` (tool-call intake), :mod:`asks.host.waits`
(live waits), :mod:`asks.host.commands` (panel commands, drafts, tabs), :mod:`asks.host.keeper`
(``host.drafts``: the drafts file, never evidence), :mod:`asks.host.keys` (``host.keys``: keys,
the notice). Consumers hold ports (:mod:`asks.host.ports`): agent, panel, surface.

Sync ``*_nowait`` methods serve widget callbacks; async methods serve the agent. The clock
defaults to trio's (the typing guard compares it with key times read under trio). Storage
failures never raise out of the host: the draft stays, the notice says what happened, the agent
gets ``storage_failed``, and nothing is reported as saved or delivered unless it is durable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import attrs
import trio

from asks import contract
from asks.core import events as ev
from asks.core.answers import answer_problem
from asks.core.drafts import Draft, DraftBook
from asks.core.focus import Focus, FocusTarget, Route
from asks.core.i18n import _
from asks.core.listeners import Listeners, Signal
from asks.core.model import (
    Answer,
    Outcome,
    Question,
    QuestionRef,
    Resolution,
    check_source,
)
from asks.core.refusal import Refusal
from asks.core.tabs import ReviewKey, TabKey, TabStrip
from asks.host import answering, calls
from asks.host.commands import Armed, PanelCommand, PanelCommands, PanelMode
from asks.host.keeper import DraftKeeper
from asks.host.keys import KeyDesk
from asks.host.lifecycle import WaitLife
from asks.host.notes import feedback_of, split
from asks.host.stats import HostStatistics, snapshot
from asks.host.waits import ToolReply, Wait, WaitBook
from asks.store.entries import AgentRecord, Entry, FeedbackDelivered, Record, Resolved, Withdrawn
from asks.store.journal import Journal, StorageError
from asks.store.outbox import DeliveryMode, Feedback, Outbox
from asks.store.projection import Projection

if TYPE_CHECKING:
    from asks.host.ports import AgentPort, PanelPort, SurfacePort

__all__ = [
    "HostStatistics",
    "PanelCommand",
    "PanelMode",
    "QuestionHost",
    "ToolReply",
    "Wait",
    "answer_problem",
]


class QuestionHost:
    """Questions, waits, drafts, tabs and focus for one session (see module docstring)."""

    def __init__(
        self,
        journal: Journal,
        records: Iterable[Record] = (),
        *,
        focus: Focus | None = None,
        clock: Callable[[], float] = trio.current_time,
        ui_attached: bool = True,
    ) -> None:
        journal.attach(self)
        self.journal = journal
        self.projection = Projection(session_id=journal.session_id)
        self.projection.apply_all(records)
        self.focus = focus or Focus(FocusTarget("chat"), FocusTarget("panel"))
        self.outbox = Outbox(self.projection)
        self.waits = WaitBook()
        self.ui_attached = ui_attached
        self.agent_running = False
        self._clock = clock
        self._drafts = DraftBook()
        self.drafts = DraftKeeper.beside(self, self._drafts, journal)  # saves and restores it
        self._strip = TabStrip()
        self._panel = PanelCommands(self, self.waits, self._drafts, self._strip)
        self._life = WaitLife(self, self.waits, self._strip)
        self.keys = KeyDesk(self, self._panel, clock, self._notify, self._changed)
        self._changes = Signal()
        self._events: Listeners[ev.HostEvent] = Listeners()
        self._ports: tuple[AgentPort, PanelPort, SurfacePort] | None = None
        calls.close_dangling_calls(self)
        self._changed()

    # ====================================================================== observation
    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every state change; returns an unsubscribe function."""
        return self._changes.subscribe(listener)

    def subscribe_events(self, listener: Callable[[ev.HostEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with each typed event (after its journal line is durable)."""
        return self._events.add(listener)

    def statistics(self) -> HostStatistics:
        return snapshot(self)

    @property
    def agent_port(self) -> AgentPort:
        return self._all_ports()[0]

    @property
    def panel_port(self) -> PanelPort:
        return self._all_ports()[1]

    @property
    def surface_port(self) -> SurfacePort:
        return self._all_ports()[2]

    def _all_ports(self) -> tuple[AgentPort, PanelPort, SurfacePort]:
        if self._ports is None:
            from asks.host.ports import AgentPort, PanelPort, SurfacePort  # noqa: PLC0415

            self._ports = (AgentPort(self), PanelPort(self), SurfacePort(self))
        return self._ports

    @property
    def tabs(self) -> tuple[TabKey, ...]:
        return self._strip.tabs

    @property
    def mode(self) -> PanelMode:  # expanded, paused (Esc) or collapsed; the panel seam owns it
        return self._panel.mode

    @property
    def selected(self) -> TabKey | None:
        return self._strip.selected

    @property
    def notice(self) -> str | None:  # the refusal or hint now (transient: asks.host.keys)
        return self.keys.notice

    @property
    def armed(self) -> PanelCommand | None:
        """The command armed on the selected tab (its next press does it)."""
        return None if (armed := self.confirming) is None else armed.command

    @property
    def confirming(self) -> Armed | None:
        """What is armed on the selected tab, and why (rules 8 and 9)."""
        armed = self._panel.armed
        return armed if armed is not None and armed.tab == self.selected else None

    def question(self, ref: QuestionRef) -> Question:
        return self.projection.question(ref)

    def is_pending(self, ref: QuestionRef) -> bool:
        return ref in self.projection.pending

    def draft(self, ref: QuestionRef) -> Draft:
        return self._drafts.get(ref)

    def chips_revision(self) -> tuple[int, tuple[Wait, ...]]:
        """Changes whenever a tab's chip (staged, required) may have: O(waits), not O(tabs)."""
        return self._drafts.staged_revision, self.live_waits

    def wait_for(self, ref: QuestionRef) -> Wait | None:
        return self.waits.of_ref(ref)

    def wait_of_call(self, call_id: str) -> Wait | None:
        """The live wait of a tool call (e.g. behind a Review tab)."""
        return self.waits.of_call(call_id)

    @property
    def live_waits(self) -> tuple[Wait, ...]:
        return tuple(self.waits)

    def is_required(self, tab: TabKey) -> bool:
        return self._panel.is_required(tab)

    # ====================================================================== agent side
    async def ask(
        self,
        call_id: str,
        arguments: object,
        *,
        source: str | None = None,
        recipient: str | None = None,
    ) -> ToolReply:
        """Run one ``ask_user_question`` call; blocks until a blocking wait ends.

        ``source`` labels who asks (several agents on one host); it is journaled and shown.
        ``recipient`` is who the answers go to (``None``: this session's agent; the hub's
        agents have their own, see :mod:`asks.store.outbox`). Cancelling this coroutine ends
        its wait as ``interrupted`` (journaled).
        """
        started = self.start_call_nowait(call_id, arguments, source=source, recipient=recipient)
        if not isinstance(started, Wait):
            return started
        try:
            return await started.result()
        finally:
            if not started.done:
                self.finish_wait(started, Outcome.INTERRUPTED, "the tool call was cancelled")
                self._changed()

    def start_call_nowait(
        self,
        call_id: str,
        arguments: object,
        *,
        source: str | None = None,
        recipient: str | None = None,
    ) -> ToolReply | Wait:
        """Validate and save a call; return its immediate reply or the live :class:`Wait`."""
        label = check_source(source)
        if not self.ui_attached:
            return contract.no_ui()
        call = contract.validate_call(arguments)
        if isinstance(call, contract.ToolError):
            return call
        reply = calls.start_call(self, call_id, call, calls.Asker(label, recipient))
        self._changed()
        return reply

    def withdraw_nowait(
        self, question_ids: Sequence[str], reason: str = "", recipient: str | None = None
    ) -> contract.ToolError | None:
        """The agent takes pending questions back (journaled; drafts dropped); only its own:
        another recipient's question is unknown to it."""
        known = calls.withdrawable(self.projection, question_ids, recipient)
        if isinstance(known, contract.ToolError):
            return known
        if self.append(Withdrawn(known, reason)) is None:
            return contract.storage_failed(self.journal.state.value)
        for ref in known:
            self._drafts.drop(ref)
        self._events.emit(ev.QuestionsWithdrawn(known, reason))
        self.settle_waits(known)
        self._changed()
        return None

    def interrupt_nowait(self, reason: str = "the turn was interrupted") -> None:
        """End every live wait as ``interrupted``; questions stay pending (Ctrl+C, shutdown)."""
        for wait in self.waits:
            self.finish_wait(wait, Outcome.INTERRUPTED, reason)
        self._changed()

    def detach_ui_nowait(self) -> None:
        """No UI any more: live waits end ``interrupted``; later calls get ``no_ui``."""
        self.ui_attached = False
        self.interrupt_nowait("the question panel was detached")

    def record_message_nowait(self, message: AgentRecord) -> bool:
        """Journal a chat message or permission decision of the agent loop; False if unsaved."""
        return self.append(message) is not None

    def turn_started_nowait(self) -> None:
        self.agent_running = True
        self._notify()

    def turn_ended_nowait(self) -> None:
        self.agent_running = False
        self.outbox.signal()
        self._notify()

    def take_feedback_nowait(self) -> Feedback | None:
        """Drain this agent's outbox into one feedback message; its receipt is durable."""
        refs = self.outbox.refs()
        if not refs:
            return None
        text = feedback_of(self.projection, refs)
        mode = DeliveryMode.STEER if self.agent_running else DeliveryMode.WAKE
        record = self.append(FeedbackDelivered(refs, text, mode.value))
        if record is None:
            return None
        questions, notes = split(self.projection, refs)
        self._events.emit(ev.Delivered(questions, ev.DeliveryChannel(mode.value), notes))
        self._notify()
        return Feedback(text, refs, mode, record.seq)

    async def wait_for_feedback(self) -> None:
        """Return once something is deliverable (an idle agent awaits this to be woken)."""
        await self.outbox.wait_ready()

    # ====================================================================== other surfaces
    def answer_from_nowait(
        self,
        question_id: str,
        incarnation: int,
        answer: Answer | None,
        source: str = "web",
        group_note: str = "",
    ) -> Refusal | None:
        """Save an answer (``None``: a decline) given on another surface (web, line mode),
        with the person's note for all the questions of its group (:mod:`.answering`)."""
        ref = QuestionRef(question_id, incarnation)
        refusal = answering.answer_from(self, ref, answer, source, group_note)
        self._changed()
        return refusal

    def defer_nowait(self, question_id: str) -> Refusal | None:
        """End the wait holding ``question_id`` as deferred (its questions stay pending)."""
        return self._then_changed(self._life.defer(question_id))

    def submit_partial_nowait(self, question_id: str) -> Refusal | None:
        """End the wait holding ``question_id`` now: what was saved is delivered (``partial``),
        the rest stays pending. Refused if nothing of the wait was saved yet."""
        return self._then_changed(self._life.submit_partial(question_id))

    def _then_changed(self, refusal: Refusal | None) -> Refusal | None:
        if refusal is None:
            self._changed()
        return refusal

    # ====================================================================== UI side
    def key_route(self, now: float) -> Route:
        """A key was read at ``now``: where it goes (rules 7 and 9, :mod:`asks.host.keys`)."""
        return self.keys.route(now)

    def guard_deadline(self) -> float | None:
        """When a claim held back by the typing guard takes the keys if nobody types."""
        return self.focus.guard_deadline()

    def settle_guard_nowait(self, now: float) -> bool:
        """The guard's quiet interval may have passed: engage the claim (True if it did)."""
        return self.keys.settle_nowait(now)

    def command_nowait(self, command: PanelCommand, tab: TabKey | None = None) -> None:
        """Apply a panel command to ``tab`` (default: the selected tab)."""
        target = tab if tab is not None and tab in self._strip else self.selected
        self.keys.clear_notice()
        self._panel.run(command, target)
        self._changed()

    def set_custom_text_nowait(
        self, text: str, caret: int | None = None, tab: TabKey | None = None
    ) -> None:
        """The reply editor changed (the widget owns the text; the host keeps the draft)."""
        where = len(text) if caret is None else caret
        self._edit_draft(lambda d: attrs.evolve(d, custom_text=text, caret=where), tab)

    def set_notes_nowait(self, notes: str, tab: TabKey | None = None) -> None:
        self._edit_draft(lambda d: attrs.evolve(d, notes=notes), tab)

    def group_note(self, call_id: str) -> str:
        """The draft of the note for all questions of a Review tab's wait (``""``: none)."""
        return self._drafts.group_note(call_id)

    def set_group_note_nowait(self, note: str, tab: TabKey | None = None) -> None:
        """The Review tab's note editor changed; the note is a draft until Review submits."""
        tab = tab if tab is not None and tab in self._strip else self.selected
        if isinstance(tab, ReviewKey):
            self._panel.disarm()
            self._drafts.set_group_note(tab.call_id, note)
            self._notify()

    def set_cursor_nowait(self, row: int, tab: TabKey | None = None) -> None:
        self.focus.deliberate()  # a row jump (a digit) is deliberate (rule 9)
        self._edit_draft(lambda d: attrs.evolve(d, cursor=row), tab)

    def enter_panel_nowait(self, question_id: str | None = None) -> Refusal | None:
        """Open the panel with focus (``/asks [ID]``, focus toggle); a refusal changes nothing."""
        self.keys.clear_notice()
        return self._then_changed(self._panel.enter_panel(question_id))

    def toggle_focus_nowait(self) -> Refusal | None:
        """The focus-toggle key: chat → panel; panel → back to the origin, or while a
        blocker is pending, to the next required tab (rule 4)."""
        self.keys.clear_notice()
        return self._then_changed(self._panel.toggle_focus())

    def toggle_collapse_nowait(self) -> Refusal | None:
        """The collapse key: collapse or expand the panel; refused while a blocker waits."""
        self.keys.clear_notice()
        return self._then_changed(self._panel.toggle_collapse())

    def begin_foreign_nowait(self, prompt: FocusTarget) -> None:
        self.focus.begin_foreign(prompt)
        self._changed()

    def end_foreign_nowait(self, prompt: FocusTarget) -> None:
        self.focus.end_foreign(prompt)
        self._changed()

    def mount_nowait(self, target: FocusTarget) -> None:
        self.focus.mount(target)

    def focus_target_nowait(self, target: FocusTarget) -> Refusal | None:
        """The embedding app moves the keyboard to one of its own (mounted) editors.

        Refused while a foreign prompt is up, or while a blocker holds the panel (rule 4).
        """
        if self.focus.foreign_active:
            return self._refuse(Refusal.PROMPT_OPEN)
        if self.waits:
            return self._refuse(Refusal.BLOCKER_WAITING)
        self.focus.give(target)
        self._changed()
        return None

    def unmount_nowait(self, target: FocusTarget) -> None:
        self.focus.unmount(target)
        self._changed()

    # ====================================================================== waits (core)
    def asked(self, call_id: str, questions: Sequence[Question], blocking: bool) -> None:
        refs = tuple(q.ref for q in questions)
        self._events.emit(ev.QuestionAsked(call_id, refs, blocking, questions[0].source))

    def open_wait(self, call_id: str, refs: tuple[QuestionRef, ...]) -> Wait:
        return self._life.open_wait(call_id, refs)

    def settle_waits(self, refs: Iterable[QuestionRef]) -> None:
        """Finish every wait whose questions are all closed now."""
        self._life.settle_waits(refs)

    def finish_wait(self, wait: Wait, outcome: Outcome, reason: str = "") -> None:
        self._life.finish_wait(wait, outcome, reason)

    def emit(self, event: ev.HostEvent) -> None:
        self._events.emit(event)

    def recompute_tabs(self) -> None:
        self._recompute_tabs()

    # ====================================================================== saving (core)
    def append(self, entry: Entry, *more: Entry) -> Record | None:
        """Journal then project (``more`` in the same write and fsync: all or none); on failure
        set a notice, publish it, return ``None``. Returns the first record."""
        try:
            records = self.journal.append_all((entry, *more))
        except StorageError as exc:
            message = self.say(_("Not saved: {why}").format(why=exc), sticky=True)
            self._events.emit(ev.StorageFailed(message))
            return None
        for record in records:
            self.projection.apply(record)
        self._strip.invalidate()
        return records[0]

    def save(
        self, resolutions: Sequence[Resolution], source: str = "panel", group_note: str = ""
    ) -> bool:
        """Save resolutions (one line, with the person's note for all of them if any); on
        success drop their drafts and signal the outbox."""
        if self.append(Resolved(tuple(resolutions), source, group_note.strip())) is None:
            self.say(_("{notice} Your draft is kept.").format(notice=self.notice), sticky=True)
            return False
        refs = tuple(r.ref for r in resolutions)
        for ref in refs:
            self._drafts.drop(ref)
        self._events.emit(ev.AnswerSaved(refs, tuple(r.kind for r in resolutions), source))
        self.outbox.signal()
        return True

    def item(self, ref: QuestionRef) -> tuple[Question, Resolution]:
        state = self.projection.by_ref[ref]
        assert state.resolution is not None
        return state.question, state.resolution

    # ====================================================================== plumbing
    def _edit_draft(self, edit: Callable[[Draft], Draft], tab: TabKey | None = None) -> None:
        """Edit the draft of ``tab`` (default: the selected tab) if it is a pending question."""
        tab = tab if tab is not None and tab in self._strip else self.selected
        if isinstance(tab, QuestionRef):
            self._panel.disarm()
            self._drafts.edit(tab, edit)
            self._notify()

    def changed_nowait(self) -> None:
        """Re-derive tabs and focus and tell listeners (for collaborators such as the hub)."""
        self._changed()

    def say(self, notice: str, *, sticky: bool = False) -> str:
        self.keys.say(notice, sticky=sticky)
        self._notify()
        return notice

    def _refuse(self, refusal: Refusal) -> Refusal:
        self.say(refusal.text)
        return refusal

    def _recompute_tabs(self) -> None:
        self._strip.rebuild(self.projection.pending, self.waits.staged())

    def _changed(self) -> None:
        """Re-derive tabs and focus consistency after any change, then notify listeners."""
        self._recompute_tabs()
        if self.focus.panel_focused and not self.tabs:
            self.focus.leave_panel()
        if self.waits and self.focus.claim is None:
            self._claim()
        self.keys.keep_claim_consistent()
        self._notify()

    def _claim(self) -> None:
        """Rule 3: claim focus for live waits now, or wait behind a foreign prompt."""
        self.focus.request_claim(self._clock(), self.selected)
        if self.focus.claim is not None:
            self._panel.claimed()

    def _notify(self) -> None:
        self._changes.emit()
