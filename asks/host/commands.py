"""Panel commands: what a key in the question panel does to drafts, tabs, waits and focus.

:class:`PanelCommands` is the host's collaborator for the panel seam. It edits drafts and the
tab selection directly (they are unsaved view state) and asks the host (:class:`HostCore`, the
orchestrator's narrow internal interface) to save resolutions or finish waits, so that
save-before-notify stays in one place.

Irreversible actions are confirmed: the first Decline or Clear draft on a tab only
**arms** it (``armed``; the footer says "again to …"); the same command on the same tab right
after does it; any other command, edit or tab switch disarms. Enter is armed the same way, for
three reasons (:class:`Confirm`; keys meant for somewhere else never answer): it is the first Enter
after stray typing (the focus's stray mark: "You were typing in the chat: press Enter again to
choose …"), the first Enter on a question the keys reached on their own (:mod:`asks.host.gone`), or
the answer it would send holds a chat command line (:mod:`asks.core.chatline`: "“/quit” looks like a
chat command: press Enter again to send it as your answer"). Every other panel command is deliberate
and clears the stray mark.

While a claim holds keys back for a tab the person was on (the typing guard), that tab stays
selected; the first required tab is selected when the claim takes the keys (:meth:`show_required`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import attrs

from asks.core.chatline import chat_command_line
from asks.core.drafts import (
    Draft,
    DraftBook,
    answer_at_cursor,
    custom_row,
    move,
    row_count,
    toggle,
)
from asks.core.focus import Focus
from asks.core.i18n import _
from asks.core.model import Answer, Outcome, Question, QuestionRef, Resolution, ResolutionKind
from asks.core.refusal import Refusal
from asks.core.tabs import ReviewKey, TabKey, TabStrip
from asks.host.waits import Wait, WaitBook
from asks.sanitize import sanitize_line
from asks.store.projection import Projection


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


CONFIRMED = frozenset({PanelCommand.DECLINE, PanelCommand.CLEAR_DRAFT})


class Confirm(enum.StrEnum):
    """Why an armed command waits for its key again."""

    IRREVERSIBLE = "irreversible"  # Decline, Clear draft: pressed twice
    AFTER_STRAY = "after_stray"  # the first Enter after stray typing
    HANDED_EDITOR = "handed_editor"  # text typed into an editor the person did not choose
    UNCHOSEN = "unchosen"  # the first Enter on a question the keys reached on their own
    CHAT_COMMAND = "chat_command"  # the answer holds a chat command line


# Armed Enters that also cover what ``_asks_again`` checks: one confirmation is enough.
_CHECKED = frozenset({Confirm.CHAT_COMMAND, Confirm.HANDED_EDITOR, Confirm.UNCHOSEN})


@attrs.frozen
class Armed:
    """A command armed on a tab: its next press there does it (see module docstring)."""

    command: PanelCommand
    tab: TabKey
    why: Confirm = Confirm.IRREVERSIBLE
    line: str = ""  # CHAT_COMMAND: the chat command line the answer holds


class PanelMode(enum.StrEnum):
    """How the panel is shown: expanded (the questions), paused (a compact card after Esc),
    collapsed (one hint row)."""

    EXPANDED = "expanded"
    PAUSED = "paused"
    COLLAPSED = "collapsed"


class HostCore(Protocol):
    """What panel commands need from the orchestrator."""

    focus: Focus
    projection: Projection

    def question(self, ref: QuestionRef) -> Question: ...
    def is_pending(self, ref: QuestionRef) -> bool: ...
    def save(
        self, resolutions: Sequence[Resolution], source: str = "panel", group_note: str = ""
    ) -> bool: ...
    def settle_waits(self, refs: Sequence[QuestionRef]) -> None: ...
    def finish_wait(self, wait: Wait, outcome: Outcome, reason: str = "") -> None: ...
    def say(self, notice: str) -> str: ...
    def agent_of(self, ref: QuestionRef) -> str | None: ...


class PanelCommands:
    """The panel seam of the host (see module docstring)."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("armed", "core", "drafts", "key_names", "mode", "strip", "waits")

    def __init__(self, core: HostCore, waits: WaitBook, drafts: DraftBook, strip: TabStrip) -> None:
        self.core = core
        self.waits = waits
        self.drafts = drafts
        self.strip = strip
        self.armed: Armed | None = None
        self.mode = PanelMode.EXPANDED  # expanded, paused (Esc) or collapsed
        self.key_names: Mapping[PanelCommand, str] = {}  # for refusals that name keys

    def run(self, command: PanelCommand, tab: TabKey | None) -> None:
        armed, self.armed = self.armed, None
        if armed is not None and (armed.command, armed.tab) != (command, tab):
            armed = None
        if command is PanelCommand.CONFIRM:
            self._confirm(tab, armed)
            return
        self.core.focus.deliberate()  # any other panel command is deliberate
        if command in CONFIRMED and tab is not None and armed is None:
            self._arm(command, tab)
            return
        _HANDLERS[command](self, tab)

    def disarm(self) -> None:
        self.armed = None

    def claimed(self) -> None:
        """A blocker claimed the keyboard: show the panel open; on the first required tab
        unless the claim holds keys back for the tab the person is on (the typing guard)."""
        self.mode = PanelMode.EXPANDED
        claim = self.core.focus.claim
        if claim is None or claim.prior_tab is None:
            self.select_required(step=0)

    def show_required(self) -> None:
        """The claim takes (or its keys go elsewhere than) the tab shown: show a required tab
        (the one selected if it is required, else the first)."""
        selected = self.strip.selected
        if selected is None or not self.is_required(selected):
            self.select_required(step=0)

    def _arm(self, command: PanelCommand, tab: TabKey) -> None:
        if command is PanelCommand.CLEAR_DRAFT and not self._has_draft(tab):
            return
        if command is PanelCommand.DECLINE and self._decline_refs(tab) == []:
            return
        self.armed = Armed(command, tab)

    def _has_draft(self, tab: TabKey) -> bool:
        if not isinstance(tab, QuestionRef):
            return False
        draft = self.drafts.get(tab)
        return draft != Draft(cursor=draft.cursor)

    # -- moves ------------------------------------------------------------------------------
    def _next_tab(self, tab: TabKey | None) -> None:
        self.strip.step(tab, 1)

    def _prev_tab(self, tab: TabKey | None) -> None:
        self.strip.step(tab, -1)

    def _up(self, tab: TabKey | None) -> None:
        self._edit(tab, lambda d, q: move(d, q.spec, -1))

    def _down(self, tab: TabKey | None) -> None:
        self._edit(tab, lambda d, q: move(d, q.spec, 1))

    def _toggle(self, tab: TabKey | None) -> None:
        self._edit(tab, lambda d, q: toggle(d, q.spec))

    def _clear_draft(self, tab: TabKey | None) -> None:
        """Ctrl+U (confirmed): forget what was typed, selected and checked; the cursor stays."""
        self._edit(tab, lambda d, q: Draft(cursor=d.cursor))

    def _edit(self, tab: TabKey | None, change: Callable[[Draft, Question], Draft]) -> None:
        if isinstance(tab, QuestionRef):
            question = self.core.question(tab)
            self.drafts.edit(tab, lambda d: change(d, question))

    # -- answers ----------------------------------------------------------------------------
    def _confirm(self, tab: TabKey | None, armed: Armed | None) -> None:
        """Enter: choose, toggle, submit — unless it must be pressed again (armed)."""
        if tab is None:
            return
        focus = self.core.focus
        if armed is None and (focus.stray_mark or focus.unchosen):
            why = Confirm.AFTER_STRAY if focus.stray_mark else Confirm.UNCHOSEN
            focus.clear_stray_mark()
            self.armed = Armed(PanelCommand.CONFIRM, tab, why)
            return
        if isinstance(tab, ReviewKey):
            wait = self.waits.of_call(tab.call_id)
            note = self.drafts.group_note(tab.call_id)
            if wait is not None and not self._asks_again(tab, armed, False, note):
                self.submit_review(wait)
            return
        spec = self.core.question(tab).spec
        draft = self.drafts.get(tab)
        if spec.multi_select and draft.cursor < len(spec.options):
            self.drafts.edit(tab, lambda d: toggle(d, spec))
            return
        in_editor = draft.cursor == custom_row(spec)
        if spec.multi_select and in_editor:
            draft = attrs.evolve(draft, cursor=row_count(spec) - 1)  # the Next row
        answer = answer_at_cursor(draft, spec)
        if isinstance(answer, str):
            self.core.say(answer)
            return
        if not self._asks_again(tab, armed, in_editor, answer.custom_text, answer.notes):
            self.core.focus.deliberate()  # what follows an answer is the person's doing
            self._answer(tab, answer)

    def _asks_again(
        self, tab: TabKey, armed: Armed | None, in_editor: bool, *texts: str | None
    ) -> bool:
        """Must Enter be pressed again before this text is sent — it holds a chat
        command line, or it was typed into an editor the keys came to on their own?
        Then Enter is armed (the footer says why). One confirmation covers both: an armed
        Enter means the text was checked and not edited since."""
        if armed is not None and armed.why in _CHECKED:
            return False
        line = chat_command_line(*texts)
        if line is not None:
            self.armed = Armed(PanelCommand.CONFIRM, tab, Confirm.CHAT_COMMAND, line)
        elif in_editor and self.core.focus.handed:
            self.armed = Armed(PanelCommand.CONFIRM, tab, Confirm.HANDED_EDITOR)
        return self.armed is not None

    def _answer(self, ref: QuestionRef, answer: Answer) -> None:
        wait = self.waits.of_ref(ref)
        if wait is not None and wait.staged:
            self.drafts.edit(ref, lambda d: attrs.evolve(d, staged=answer))
            self._select_next_unstaged(wait)
            return
        if self.core.save([Resolution(ref, ResolutionKind.ANSWERED, answer)]):
            self.core.settle_waits([ref])

    def submit_review(self, wait: Wait) -> bool:
        """Save the staged answers of ``wait`` with its Review note (one line) and end it
        answered or partial."""
        staged = [
            Resolution(r, ResolutionKind.ANSWERED, self.drafts.get(r).staged)
            for r in wait.refs
            if self.core.is_pending(r) and self.drafts.get(r).staged is not None
        ]
        if not staged:
            self.core.say(Refusal.NOTHING_ANSWERED.text)
            return False
        if not self.core.save(staged, group_note=self.drafts.group_note(wait.call_id)):
            return False
        self.drafts.set_group_note(wait.call_id, "")
        partial = any(self.core.is_pending(r) for r in wait.refs)
        self.core.finish_wait(wait, Outcome.PARTIAL if partial else Outcome.ANSWERED)
        return True

    def _decline_refs(self, tab: TabKey) -> list[QuestionRef]:
        wait = self.waits.of_tab(tab)
        if wait is not None:
            return [r for r in wait.refs if self.core.is_pending(r)]
        return [tab] if isinstance(tab, QuestionRef) else []

    def _decline(self, tab: TabKey | None) -> None:
        """Decline (confirmed): a required tab declines its wait's pending questions."""
        refs = [] if tab is None else self._decline_refs(tab)
        wait = self.waits.of_tab(tab)
        note = self.drafts.group_note(wait.call_id) if wait is not None else ""
        declines = [Resolution(r, ResolutionKind.DECLINED) for r in refs]
        if refs and self.core.save(declines, group_note=note):
            if wait is not None:
                self.drafts.set_group_note(wait.call_id, "")
            self.core.settle_waits(refs)

    def _defer(self, tab: TabKey | None) -> None:
        wait = self.waits.of_tab(tab)
        if wait is None:
            self.core.say(Refusal.NOT_BLOCKING.text)
            return
        self.core.finish_wait(wait, Outcome.DEFERRED)

    # -- the panel itself ---------------------------------------------------------------------
    def _pause(self, tab: TabKey | None) -> None:
        if self.waits:
            if tab is not None and not self.is_required(tab):
                self.select_required(step=0)
            else:
                self.core.say(self._required_text())
            return
        self.core.focus.leave_panel()
        self.mode = PanelMode.PAUSED

    def _required_text(self) -> str:
        """Esc on a required tab: what works instead, with the keys that do it."""
        later = self.key_names.get(PanelCommand.DEFER)
        decline = self.key_names.get(PanelCommand.DECLINE)
        if later and decline:
            return _(
                "This question is required: answer it, press {later} to answer later, or "
                "{decline} twice to decline."
            ).format(later=later, decline=decline)
        return _("This question is required: answer it, answer it later, or decline it.")

    def _collapse(self, tab: TabKey | None) -> None:
        self.toggle_collapse()

    # -- focus requests (the host notifies after each) ---------------------------------------
    def enter_panel(self, question_id: str | None) -> Refusal | None:
        """Give the panel the keyboard, on ``question_id``'s tab if given."""
        core = self.core
        if not self.strip.tabs:
            return self._refuse(Refusal.NO_QUESTIONS)
        if core.focus.foreign_active:
            return self._refuse(Refusal.PROMPT_OPEN)
        if question_id is not None:
            ref = core.projection.current.get(question_id)
            if ref is None or ref not in self.strip:
                core.say(_("No pending question with id {id}.").format(id=question_id))
                return Refusal.UNKNOWN_QUESTION
            self.strip.select(ref)
        core.focus.enter_panel()
        self.mode = PanelMode.EXPANDED
        return None

    def enter_agent(self, agent: str) -> Refusal | None:
        """``/asks @name``: the panel with the keys on agent ``name``'s first pending question
        (its questions are together, in the panel's order: Tab goes through them). An agent
        with no pending question is refused with a sentence naming those that have some."""
        core = self.core
        refs = self.strip.questions()
        mine = next((ref for ref in refs if core.agent_of(ref) == agent), None)
        if mine is None:
            if core.focus.foreign_active:
                return self._refuse(Refusal.PROMPT_OPEN)
            asking = dict.fromkeys(f"@{a}" for ref in refs if (a := core.agent_of(ref)))
            text = _("No pending questions from @{name}.").format(name=sanitize_line(agent))
            if asking:
                more = _("Agents asking now: {names}.").format(names=", ".join(asking))
                text = f"{text} {more}"
            core.say(text)
            return Refusal.UNKNOWN_AGENT
        return self.enter_panel(mine.id)

    def toggle_focus(self) -> Refusal | None:
        """Chat → panel; panel → its origin, or (a blocker waits) the next required tab."""
        if not self.core.focus.panel_focused:
            return self.enter_panel(None)
        self.armed = None
        if self.waits:
            self.select_required(step=1)
        else:
            self.core.focus.leave_panel()
        return None

    def toggle_collapse(self) -> Refusal | None:
        """Collapse or expand; refused while a required question waits."""
        core = self.core
        self.armed = None
        if self.waits:
            core.say(_("A required question is waiting; it cannot be collapsed."))
            return Refusal.BLOCKER_WAITING
        if self.mode is PanelMode.COLLAPSED:
            self.mode = PanelMode.EXPANDED
        else:
            self.mode = PanelMode.COLLAPSED
            core.focus.leave_panel()
        return None

    def _refuse(self, refusal: Refusal) -> Refusal:
        self.core.say(refusal.text)
        return refusal

    # -- tabs ---------------------------------------------------------------------------------
    def is_required(self, tab: TabKey) -> bool:
        return isinstance(tab, ReviewKey) or self.waits.holds(tab)

    def select_required(self, step: int) -> None:
        """Select a required tab: the first (step 0) or the next one after the selection."""
        self.strip.select_matching(self.is_required, step)

    def _select_next_unstaged(self, wait: Wait) -> None:
        for ref in wait.refs:
            if self.core.is_pending(ref) and self.drafts.get(ref).staged is None:
                self.strip.select(ref)
                return
        self.strip.select(ReviewKey(wait.call_id))


_HANDLERS: dict[PanelCommand, Callable[[PanelCommands, TabKey | None], None]] = {
    PanelCommand.NEXT_TAB: PanelCommands._next_tab,
    PanelCommand.PREV_TAB: PanelCommands._prev_tab,
    PanelCommand.UP: PanelCommands._up,
    PanelCommand.DOWN: PanelCommands._down,
    PanelCommand.CONFIRM: lambda commands, tab: commands._confirm(tab, None),  # see run()
    PanelCommand.TOGGLE: PanelCommands._toggle,
    PanelCommand.PAUSE: PanelCommands._pause,
    PanelCommand.COLLAPSE: PanelCommands._collapse,
    PanelCommand.DECLINE: PanelCommands._decline,
    PanelCommand.DEFER: PanelCommands._defer,
    PanelCommand.CLEAR_DRAFT: PanelCommands._clear_draft,
}
