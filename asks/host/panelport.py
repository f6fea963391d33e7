"""The terminal panel's port: what the panel and its layer widget read and do.

Semantics: :class:`PanelPort`'s docstring (what ``help(PanelPort)`` shows).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

import attrs

from asks.core.drafts import Draft
from asks.core.focus import FocusTarget, FocusView, KeyDecision, KeySeen, Route
from asks.core.model import QuestionRef
from asks.core.refusal import Refusal
from asks.core.renamed import renamed
from asks.core.tabs import ReviewKey, TabKey
from asks.host.commands import Armed, PanelCommand, PanelMode
from asks.host.keeper import DraftKeeper
from asks.host.lifecycle import detach_ui
from asks.host.surfaceport import SurfacePort
from asks.host.waits import Wait


class PanelPort(SurfacePort):
    """The terminal panel's and the layer widget's view.

    It is a :class:`~asks.host.surfaceport.SurfacePort` (the panel answers on the person's behalf
    too) plus the terminal's own part:

    * **what to draw**: the tabs, the selected one, the panel's mode, each question's draft, what is
      armed (a confirmed Decline or Clear, an Enter to press again), which tabs are required;
    * **the keys** (the typing guard, stray keys; :mod:`asks.host.keys`): every key read goes
      through :meth:`PanelPort.key_route`; the typing guard's and the notice's timers
      (:meth:`PanelPort.guard_deadline`, :meth:`PanelPort.notice_deadline`) are the layer's;
    * **panel commands and edits** (:mod:`asks.host.commands`): a command on a tab, the reply
      editor's text, the notes, the Review note, a row jump;
    * **focus moves**: entering the panel (``/asks [ID]``), the focus toggle, collapse, a foreign
      prompt (a permission dialog) opening and closing, the embedder's own editors mounting,
      taking the keyboard, unmounting; and the UI detaching;
    * **the drafts file** (:attr:`PanelPort.drafts`, :mod:`asks.host.keeper`).
    """

    __slots__ = ()

    # -- what to draw ----------------------------------------------------------------------
    @property
    def focus(self) -> FocusView:
        """Who owns the keyboard, as a read-only view (change it through the methods below)."""
        return self._state.focus

    @property
    def tabs(self) -> tuple[TabKey, ...]:
        """The panel's tabs: pending questions grouped by agent (:meth:`pending_by_agent`),
        and a Review tab per group wait."""
        return self._state.tabs

    @property
    def mode(self) -> PanelMode:
        """Expanded, paused (Esc) or collapsed."""
        return self._state.panel.mode

    @property
    def selected(self) -> TabKey | None:
        """The tab shown (``None``: no tabs)."""
        return self._state.selected

    @property
    def armed(self) -> PanelCommand | None:
        """The command armed on the selected tab (its next press does it)."""
        return None if (armed := self.confirming) is None else armed.command

    @property
    def confirming(self) -> Armed | None:
        """What is armed on the selected tab, and why (the footer says what pressing does)."""
        armed = self._state.panel.armed
        return armed if armed is not None and armed.tab == self._state.selected else None

    def draft(self, ref: QuestionRef) -> Draft:
        """What the person has typed, checked and staged for ``ref`` (never saved as an answer)."""
        return self._state.drafts.get(ref)

    def group_note(self, call_id: str) -> str:
        """The draft of the note for all questions of a Review tab's wait (``""``: none)."""
        return self._state.drafts.group_note(call_id)

    def is_required(self, tab: TabKey) -> bool:
        """Does a blocking call wait on ``tab`` (it cannot be paused or collapsed away)?"""
        return self._state.is_required(tab)

    def has_tab(self, tab: TabKey) -> bool:
        """Is ``tab`` among :attr:`tabs` (O(1))?"""
        return tab in self._state.strip

    def tab_index(self, tab: TabKey) -> int | None:
        """The position of ``tab`` among :attr:`tabs` (O(1)); ``None`` if it is not there."""
        return self._state.strip.index_of(tab)

    def chips_revision(self) -> Hashable:
        """Equal while no tab's chip state (staged, required) can have changed; cheap."""
        return self._state.drafts.staged_revision, tuple(self._state.waits)

    def wait_of_call(self, call_id: str) -> Wait | None:
        """The live wait of a tool call (e.g. behind a Review tab)."""
        return self._state.waits.of_call(call_id)

    @property
    def drafts(self) -> DraftKeeper:
        """The drafts file keeper: restore at start, save while typing (asks/host/keeper.py)."""
        return self._state.keeper

    # -- the keys ----------------------------------------------------------------------------
    def key_route(self, now: float) -> Route:
        """A key was read at ``now``: where it goes (:mod:`asks.host.keys`)."""
        with self._state.operation():
            return self._state.keys.route(now)

    def decide(self, now: float, key: KeySeen) -> KeyDecision:
        """The layer's one entry for a key read at ``now``: it is routed (:meth:`key_route`)
        and the key machine names the action the layer performs on it
        (:func:`~asks.core.focus.decide`, docs/focus-machine.md)."""
        with self._state.operation():
            return self._state.keys.decide(now, key)

    def stray_key(self, now: float) -> Route:
        """The panel or the prompt could not use a printable key (a stray): where to deliver
        it instead (``Route.first``: a held decision key to deliver there before it)."""
        with self._state.operation():
            return self._state.keys.stray(now)

    def hold_decision(self, key: str, now: float) -> bool:
        """A printable decision key at the prompt waits for the pause after it (True; read
        it as ``focus.doubt``). False: not held."""
        with self._state.operation():
            return self._state.keys.hold_decision(key, now)

    def due_decision(self, now: float) -> str | None:
        """The held decision key once the pause after it is over (deliver it), else None."""
        with self._state.operation():
            return self._state.keys.due_decision(now)

    def confirm_decision(self) -> str | None:
        """The confirm key at the prompt: the held decision key (deliver it now), or None."""
        with self._state.operation():
            return self._state.keys.confirm_decision()

    def drop_decision(self) -> None:
        """A non-printable decision (Esc) was made at the prompt: a held key is dropped."""
        with self._state.operation():
            self._state.keys.drop_decision()

    def printable_command(self, key: str, tab: Hashable | None, now: float) -> None:
        """A printable key (a digit, Space) is about to run a panel command on ``tab``: if the
        next key is a stray, it was typing too and is undone (:mod:`asks.host.keys`)."""
        self._state.keys.printable_command(key, tab, now)

    def guard_deadline(self) -> float | None:
        """When a claim held back by the typing guard takes the keys if nobody types, a held
        prompt takes them, or a held decision key counts."""
        return self._state.focus.guard_deadline()

    def settle_guard(self, now: float) -> bool:
        """The guard's quiet interval may have passed: engage the claim (True if it did)."""
        with self._state.operation():
            return self._state.keys.settle(now)

    def notice_deadline(self) -> float | None:
        """When the host's notice goes if no key comes first (``None``: none is due)."""
        return self._state.keys.notice_deadline()

    def expire_notice(self, now: float) -> bool:
        """The notice's time may be over at ``now``: clear it (True if it went now)."""
        with self._state.operation():
            return self._state.keys.expire(now)

    def say(self, notice: str) -> None:
        """Show ``notice`` (one line) as the host's notice — under the panel and in the status
        line — until a key comes or its time is over, like a refusal."""
        with self._state.operation():
            self._state.say(notice)

    def name_keys(self, names: Mapping[PanelCommand, str]) -> None:
        """How the keymap names the panel's keys (refusals that say what works use them)."""
        self._state.keys.name_keys(names)

    # -- commands and edits ------------------------------------------------------------------
    def command(self, command: PanelCommand, tab: TabKey | None = None) -> None:
        """Apply a panel command to ``tab`` (default: the selected tab)."""
        state = self._state
        with state.operation():
            target = state.target_tab(tab)
            state.keys.clear_notice()
            state.panel.run(command, target)
            state.changed(by_panel=True)

    def set_custom_text(
        self, text: str, caret: int | None = None, tab: TabKey | None = None
    ) -> None:
        """The reply editor changed (the widget owns the text; the host keeps the draft)."""
        where = len(text) if caret is None else caret
        self._edit_draft(lambda d: attrs.evolve(d, custom_text=text, caret=where), tab)

    def set_notes(self, notes: str, tab: TabKey | None = None) -> None:
        """The notes editor of ``tab`` (default: the selected tab) changed."""
        self._edit_draft(lambda d: attrs.evolve(d, notes=notes), tab)

    def set_cursor(self, row: int, tab: TabKey | None = None) -> None:
        """Move the cursor of ``tab`` (default: the selected tab) to ``row`` (a digit key)."""
        with self._state.operation():
            self._state.focus.deliberate()  # a row jump (a digit) is deliberate
            self._edit_draft(lambda d: attrs.evolve(d, cursor=row), tab)

    def set_group_note(self, note: str, tab: TabKey | None = None) -> None:
        """The Review tab's note editor changed; the note is a draft until Review submits."""
        state = self._state
        target = state.target_tab(tab)
        if isinstance(target, ReviewKey):
            with state.operation():
                state.panel.disarm()
                state.drafts.set_group_note(target.call_id, note)
                state.notify()

    def _edit_draft(self, edit: Callable[[Draft], Draft], tab: TabKey | None) -> None:
        """Edit the draft of ``tab`` (default: the selected tab) if it is a pending question."""
        state = self._state
        target = state.target_tab(tab)
        if isinstance(target, QuestionRef):
            with state.operation():
                state.panel.disarm()
                state.drafts.edit(target, edit)
                state.notify()

    # -- focus moves -------------------------------------------------------------------------
    def enter_panel(self, question_id: str | None = None) -> Refusal | None:
        """Open the panel with focus (``/asks [ID]``, focus toggle); a refusal changes nothing."""
        with self._state.operation():
            self._state.keys.clear_notice()
            return self._state.changed_if(self._state.panel.enter_panel(question_id))

    def enter_agent(self, agent: str) -> Refusal | None:
        """Open the panel with focus on agent ``agent``'s first pending question
        (``/asks @name``); a refusal changes nothing but the notice, which names the agents
        asking now."""
        with self._state.operation():
            self._state.keys.clear_notice()
            return self._state.changed_if(self._state.panel.enter_agent(agent))

    def toggle_focus(self) -> Refusal | None:
        """The focus-toggle key: chat → panel; panel → back to the origin, or while a
        blocker is pending, to the next required tab."""
        with self._state.operation():
            self._state.keys.clear_notice()
            return self._state.changed_if(self._state.panel.toggle_focus())

    def toggle_collapse(self) -> Refusal | None:
        """The collapse key: collapse or expand the panel; refused while a blocker waits."""
        with self._state.operation():
            self._state.keys.clear_notice()
            return self._state.changed_if(self._state.panel.toggle_collapse())

    def begin_foreign(self, prompt: FocusTarget) -> None:
        """A foreign prompt (a permission dialog) takes the keyboard; a blocker waits for it."""
        with self._state.operation():
            self._state.focus.begin_foreign(prompt, self._state.clock())
            self._state.changed()

    def end_foreign(self, prompt: FocusTarget) -> None:
        """The foreign prompt closed: focus goes back where it came from; a blocker claims."""
        with self._state.operation():
            self._state.focus.end_foreign(prompt, self._state.clock())
            self._state.changed()

    def mount(self, target: FocusTarget) -> None:
        """One of the embedder's editors is on screen (focus may go there)."""
        self._state.focus.mount(target)

    def unmount(self, target: FocusTarget) -> None:
        """One of the embedder's editors left the screen (focus leaves it if it had it)."""
        with self._state.operation():
            self._state.focus.unmount(target, self._state.clock())
            self._state.changed()

    def focus_target(self, target: FocusTarget) -> Refusal | None:
        """The embedding app moves the keyboard to one of its own (mounted) editors.

        Refused while a foreign prompt is up, or while a blocker holds the panel.
        """
        state = self._state
        with state.operation():
            if state.focus.foreign_active:
                return state.refuse(Refusal.PROMPT_OPEN)
            if state.waits:
                return state.refuse(Refusal.BLOCKER_WAITING)
            state.focus.give(target)
            state.changed()
            return None

    def detach_ui(self) -> None:
        """No UI any more: live waits end ``interrupted``; later calls get ``no_ui``."""
        detach_ui(self._state)

    # The names before the rename (asks.core.renamed): they warn, then do the same.
    decide_nowait = renamed(decide, "decide_nowait")
    stray_key_nowait = renamed(stray_key, "stray_key_nowait")
    hold_decision_nowait = renamed(hold_decision, "hold_decision_nowait")
    due_decision_nowait = renamed(due_decision, "due_decision_nowait")
    confirm_decision_nowait = renamed(confirm_decision, "confirm_decision_nowait")
    drop_decision_nowait = renamed(drop_decision, "drop_decision_nowait")
    printable_command_nowait = renamed(printable_command, "printable_command_nowait")
    settle_guard_nowait = renamed(settle_guard, "settle_guard_nowait")
    expire_notice_nowait = renamed(expire_notice, "expire_notice_nowait")
    say_nowait = renamed(say, "say_nowait")
    name_keys_nowait = renamed(name_keys, "name_keys_nowait")
    command_nowait = renamed(command, "command_nowait")
    set_custom_text_nowait = renamed(set_custom_text, "set_custom_text_nowait")
    set_notes_nowait = renamed(set_notes, "set_notes_nowait")
    set_cursor_nowait = renamed(set_cursor, "set_cursor_nowait")
    set_group_note_nowait = renamed(set_group_note, "set_group_note_nowait")
    enter_panel_nowait = renamed(enter_panel, "enter_panel_nowait")
    enter_agent_nowait = renamed(enter_agent, "enter_agent_nowait")
    toggle_focus_nowait = renamed(toggle_focus, "toggle_focus_nowait")
    toggle_collapse_nowait = renamed(toggle_collapse, "toggle_collapse_nowait")
    begin_foreign_nowait = renamed(begin_foreign, "begin_foreign_nowait")
    end_foreign_nowait = renamed(end_foreign, "end_foreign_nowait")
    mount_nowait = renamed(mount, "mount_nowait")
    unmount_nowait = renamed(unmount, "unmount_nowait")
    focus_target_nowait = renamed(focus_target, "focus_target_nowait")
    detach_ui_nowait = renamed(detach_ui, "detach_ui_nowait")
