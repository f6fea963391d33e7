"""Narrow ports: what each consumer of the host may do, and nothing more.

Like trio's channel endpoints over one shared state, each port is a thin view of one
:class:`~asks.host.host.QuestionHost`; consumers hold a port, never the host:

* :class:`AgentPort` — the agent loop: run ``ask_user_question``, withdraw, steer/wake feedback,
  interrupt, journal conversation messages and permission decisions.
* :class:`PanelPort` — the terminal panel and its layer widget: read what to draw, route keys
  through the typing guard, run panel commands, foreign prompts, focus moves, the drafts file.
* :class:`SurfacePort` — other surfaces (web bridge, line mode, hooks, embedders' notifiers):
  read pending questions, answer, decline, defer, submit partially, typed events.

Ports add no policy: every call goes straight to the host, so save-before-notify and the focus
rules hold whichever port a change comes through.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING

from asks.contract import ToolError
from asks.core.drafts import Draft
from asks.core.events import HostEvent
from asks.core.focus import Focus, FocusTarget, Route
from asks.core.model import Answer, Question, QuestionRef
from asks.core.refusal import Refusal
from asks.core.tabs import TabKey
from asks.host.commands import Armed, PanelCommand, PanelMode
from asks.host.keeper import DraftKeeper
from asks.host.waits import ToolReply, Wait
from asks.store.entries import AgentRecord
from asks.store.outbox import Feedback
from asks.store.projection import Projection

if TYPE_CHECKING:
    from asks.host.host import HostStatistics, QuestionHost


class _Port:
    __slots__ = ("_host",)

    def __init__(self, host: QuestionHost) -> None:
        self._host = host

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every state change; returns an unsubscribe function."""
        return self._host.subscribe(listener)

    def statistics(self) -> HostStatistics:
        return self._host.statistics()


class AgentPort(_Port):
    """The agent loop's view of the host (see module docstring)."""

    __slots__ = ()

    @property
    def ui_attached(self) -> bool:
        return self._host.ui_attached

    async def ask(self, call_id: str, arguments: object, *, source: str | None = None) -> ToolReply:
        return await self._host.ask(call_id, arguments, source=source)

    def withdraw_nowait(self, question_ids: Sequence[str], reason: str = "") -> ToolError | None:
        return self._host.withdraw_nowait(question_ids, reason)

    def interrupt_nowait(self, reason: str = "the turn was interrupted") -> None:
        self._host.interrupt_nowait(reason)

    def turn_started_nowait(self) -> None:
        self._host.turn_started_nowait()

    def turn_ended_nowait(self) -> None:
        self._host.turn_ended_nowait()

    def take_feedback_nowait(self) -> Feedback | None:
        return self._host.take_feedback_nowait()

    async def wait_for_feedback(self) -> None:
        await self._host.wait_for_feedback()

    def record_message_nowait(self, message: AgentRecord) -> bool:
        """Journal a chat message, or the person's decision at a permission prompt (a line of
        the visible chat, so a resumed transcript shows it; not in the model's context)."""
        return self._host.record_message_nowait(message)

    @property
    def projection(self) -> Projection:
        """Read-only use: the conversation and questions on disk (e.g. for replies to retries)."""
        return self._host.projection

    def question(self, ref: QuestionRef) -> Question:
        return self._host.question(ref)

    def wait_of_call(self, call_id: str) -> Wait | None:
        """The live wait of a tool call (its ``? asked:`` card shows once it waits)."""
        return self._host.wait_of_call(call_id)


class SurfacePort(_Port):
    """The view of other surfaces: web bridge, line mode, notifiers (module docstring)."""

    __slots__ = ()

    @property
    def projection(self) -> Projection:
        """Read-only use: what is on disk (pending questions, resolutions, records)."""
        return self._host.projection

    @property
    def notice(self) -> str | None:
        return self._host.notice

    @property
    def live_waits(self) -> tuple[Wait, ...]:
        return self._host.live_waits

    def question(self, ref: QuestionRef) -> Question:
        return self._host.question(ref)

    def wait_for(self, ref: QuestionRef) -> Wait | None:
        return self._host.wait_for(ref)

    def subscribe_events(self, listener: Callable[[HostEvent], None]) -> Callable[[], None]:
        return self._host.subscribe_events(listener)

    def answer_from_nowait(
        self,
        question_id: str,
        incarnation: int,
        answer: Answer | None,
        source: str,
        group_note: str = "",
    ) -> Refusal | None:
        """Save an answer (``None``: decline); ``group_note``: the person's note for all the
        questions of its group, delivered with them."""
        return self._host.answer_from_nowait(question_id, incarnation, answer, source, group_note)

    def defer_nowait(self, question_id: str) -> Refusal | None:
        return self._host.defer_nowait(question_id)

    def submit_partial_nowait(self, question_id: str) -> Refusal | None:
        return self._host.submit_partial_nowait(question_id)


class PanelPort(SurfacePort):
    """The terminal panel's and the layer widget's view (module docstring)."""

    __slots__ = ()

    @property
    def focus(self) -> Focus:
        """Read-only use: who owns the keyboard (change it through the methods below)."""
        return self._host.focus

    @property
    def tabs(self) -> tuple[TabKey, ...]:
        return self._host.tabs

    @property
    def mode(self) -> PanelMode:
        return self._host.mode

    @property
    def selected(self) -> TabKey | None:
        return self._host.selected

    @property
    def armed(self) -> PanelCommand | None:
        return self._host.armed

    @property
    def confirming(self) -> Armed | None:
        """What is armed on the selected tab, and why (the footer says what pressing does)."""
        return self._host.confirming

    def draft(self, ref: QuestionRef) -> Draft:
        return self._host.draft(ref)

    @property
    def drafts(self) -> DraftKeeper:
        """The drafts file keeper: restore at start, save while typing (asks/host/keeper.py)."""
        return self._host.drafts

    def is_required(self, tab: TabKey) -> bool:
        return self._host.is_required(tab)

    def chips_revision(self) -> Hashable:
        """Equal while no tab's chip state (staged, required) can have changed; cheap."""
        return self._host.chips_revision()

    def wait_of_call(self, call_id: str) -> Wait | None:
        return self._host.wait_of_call(call_id)

    def key_route(self, now: float) -> Route:
        return self._host.key_route(now)

    def stray_key_nowait(self, now: float) -> Route:
        """The panel could not use a printable key (rule 9a): where to deliver it instead."""
        return self._host.keys.stray_nowait(now)

    def guard_deadline(self) -> float | None:
        return self._host.guard_deadline()

    def settle_guard_nowait(self, now: float) -> bool:
        return self._host.settle_guard_nowait(now)

    def notice_deadline(self) -> float | None:
        """When the host's notice goes if no key comes first (``None``: none is due)."""
        return self._host.keys.notice_deadline()

    def expire_notice_nowait(self, now: float) -> bool:
        return self._host.keys.expire_nowait(now)

    def name_keys_nowait(self, names: Mapping[PanelCommand, str]) -> None:
        """How the keymap names the panel's keys (refusals that say what works use them)."""
        self._host.keys.name_keys(names)

    def command_nowait(self, command: PanelCommand, tab: TabKey | None = None) -> None:
        self._host.command_nowait(command, tab)

    def set_custom_text_nowait(
        self, text: str, caret: int | None = None, tab: TabKey | None = None
    ) -> None:
        self._host.set_custom_text_nowait(text, caret, tab)

    def set_notes_nowait(self, notes: str, tab: TabKey | None = None) -> None:
        self._host.set_notes_nowait(notes, tab)

    def set_cursor_nowait(self, row: int, tab: TabKey | None = None) -> None:
        self._host.set_cursor_nowait(row, tab)

    def group_note(self, call_id: str) -> str:
        return self._host.group_note(call_id)

    def set_group_note_nowait(self, note: str, tab: TabKey | None = None) -> None:
        self._host.set_group_note_nowait(note, tab)

    def enter_panel_nowait(self, question_id: str | None = None) -> Refusal | None:
        return self._host.enter_panel_nowait(question_id)

    def toggle_focus_nowait(self) -> Refusal | None:
        return self._host.toggle_focus_nowait()

    def toggle_collapse_nowait(self) -> Refusal | None:
        return self._host.toggle_collapse_nowait()

    def begin_foreign_nowait(self, prompt: FocusTarget) -> None:
        self._host.begin_foreign_nowait(prompt)

    def end_foreign_nowait(self, prompt: FocusTarget) -> None:
        self._host.end_foreign_nowait(prompt)

    def focus_target_nowait(self, target: FocusTarget) -> Refusal | None:
        return self._host.focus_target_nowait(target)

    def mount_nowait(self, target: FocusTarget) -> None:
        self._host.mount_nowait(target)

    def unmount_nowait(self, target: FocusTarget) -> None:
        self._host.unmount_nowait(target)

    def detach_ui_nowait(self) -> None:
        self._host.detach_ui_nowait()
