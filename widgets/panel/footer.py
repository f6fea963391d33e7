"""The expanded panel's footer: the host's notice (if any) and the key hints for this moment.

The hints follow the keymap (keys are never hard-coded here) and the situation: another prompt
owns the keyboard; a claim holds the keys back until a pause (where they go meanwhile); the
panel does not have the keyboard (how to get there or collapse); a command is armed (why, and
that pressing its key again does it: Decline, Clear, the Enter after stray typing, an answer
holding a chat command); the Review tab (submit, decline all, the note for all questions,
which is an editor when open); an editor is active (submit, newline, close notes); or the
cursor is on an option (move, pick or toggle, confirm). ``decline`` and ``answer later`` are
offered for required tabs, ``pause`` for the others (while a blocker waits, the same key goes
to the required question, and says so), ``next tab`` when there are several.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import urwid

from asks.core.focus import FocusState, KeysTo
from asks.core.i18n import N_, _, language
from asks.core.model import QuestionRef
from asks.core.permission import is_permission
from asks.core.tabs import ReviewKey, TabKey
from asks.host.commands import Armed, Confirm, PanelCommand
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line
from asks.widgets.keymap import Command, Context, Keymap, pretty_key
from asks.widgets.panel.markup import text_widget, unbreakable
from asks.widgets.panel.memo import Memo

HINT_LINES = 64  # distinct hint lines kept (a handful per situation)


class Footer:
    """Builds the footer of the selected tab (kept in the memo while notice and hints hold)."""

    def __init__(self, host: PanelPort, keymap: Keymap, memo: Memo) -> None:
        self._host = host
        self._keymap = keymap
        self._memo = memo
        self._lines: dict[Hashable, str] = {}  # hint lines by their inputs (bounded: see _line)

    def build(
        self, tab: TabKey, *, editing: bool, notes_open: bool, compact: bool = False
    ) -> urwid.Widget:
        """The footer for ``tab``; ``editing``: an editor is active, ``notes_open``: notes;
        ``compact`` (a short panel): one row of hints, cut with an ellipsis, so the question
        keeps the room."""
        notice, hints = self._host.notice, self._hints(tab, editing, notes_open)
        held = self._held_here()
        key = ("footer", notice, held, hints, compact)
        return self._memo.get(key, lambda: self._build(notice, held, hints, compact))

    @staticmethod
    def _build(notice: str | None, held: str, hints: str, compact: bool) -> urwid.Widget:
        rows: list[urwid.Widget] = []
        wrap = "ellipsis" if compact else "space"
        for line in (notice, held):
            if line:
                rows.append(text_widget(("panel.notice", sanitize_line(line)), wrap))
        rows.append(text_widget(("panel.hint", unbreakable(hints)), wrap))
        return urwid.Pile(rows)

    def _held_here(self) -> str:
        """While keys are held back for the tab the person is on: who takes them at a pause;
        while a decision key waits for the pause after it: what it does then."""
        focus = self._host.focus
        state, doubt = focus.state(), focus.doubt
        if state is FocusState.DECISION_HELD_IN_PANEL and doubt is not None:
            confirm = pretty_key(self._keymap.key_in(Context.PANEL, C.PANEL_CONFIRM) or "")
            return _("“{key}” counts at your pause ({confirm}: now)").format(
                key=doubt.key, confirm=confirm
            )
        if state is not FocusState.CLAIM_HELD_ON_TAB:
            return ""
        return _("A required question is waiting: it takes the keys when you pause typing.")

    def _hints(self, tab: TabKey, editing: bool, notes_open: bool) -> str:
        host = self._host
        context = Context.REPLY if editing else Context.PANEL
        if host.focus.foreign_active:
            return _("Answer the open prompt first.")
        state = host.focus.state()
        if state is FocusState.CLAIM_HELD_AT_ORIGIN:
            if host.focus.where()[0] is KeysTo.CHAT:
                return _("Your keys go to the chat until you pause typing; then they answer here.")
            return _("Your keys still go where you were typing; pause typing to answer here.")
        if not host.focus.panel_focused:
            return self._line(Context.CHAT, [Command.FOCUS_TOGGLE, Command.COLLAPSE])
        armed = host.confirming
        if armed is not None:
            return self._armed(armed, context)
        required = host.is_required(tab)
        leave = [C.PANEL_DECLINE, C.PANEL_DEFER] if required else [C.PANEL_DECLINE, C.PANEL_PAUSE]
        esc = self._esc_label(required)
        many = [C.PANEL_NEXT_TAB] if len(host.tabs) > 1 else []
        if isinstance(tab, ReviewKey):
            note = {C.PANEL_NOTES: N_("close note") if notes_open else N_("note for all")}
            labels = {C.PANEL_CONFIRM: N_("submit"), C.PANEL_DECLINE: N_("decline all (twice)")}
            if editing:
                commands = [C.PANEL_CONFIRM, C.REPLY_NEWLINE, *many, *leave, C.PANEL_NOTES]
                return self._line(Context.REPLY, commands, {**labels, **note, **esc})
            return self._line(
                Context.PANEL,
                [C.PANEL_CONFIRM, *many, *leave, C.PANEL_NOTES],
                {**labels, **note, **esc},
            )
        if editing:
            commands = [C.PANEL_CONFIRM, C.REPLY_NEWLINE, *many, *leave, C.PANEL_NOTES]
            labels = {C.PANEL_NOTES: N_("close notes")} if notes_open else {}
            labels = {C.PANEL_CONFIRM: N_("submit"), **labels, **esc}
            return self._line(Context.REPLY, commands, labels)
        return self._line(Context.PANEL, self._option_hints(tab, many, leave), esc)

    def _esc_label(self, required: bool) -> dict[Command, str]:
        """What the pause key does on a tab that is not required: it pauses, unless a blocker
        waits — then it goes to the required question, and its hint says so."""
        if required or not self._host.live_waits:
            return {}
        return {C.PANEL_PAUSE: N_("to the required question")}

    def _armed(self, armed: Armed, context: Context) -> str:
        """Why the armed command waits, and that its key again does it."""
        command, what = _ARMED[armed.command]
        key = pretty_key(self._keymap.key_in(context, command) or "")
        if armed.why is Confirm.CHAT_COMMAND:
            return _(
                "“{line}” looks like a chat command: press {key} again to send it as your answer"
            ).format(line=sanitize_line(armed.line), key=key)
        if armed.why is Confirm.HANDED_EDITOR:
            return _(
                "The keys came to this answer on their own: press {key} again to send "
                "what is typed here"
            ).format(key=key)
        if armed.why is Confirm.UNCHOSEN:
            return self._unchosen(armed.tab, key)
        if armed.why is Confirm.AFTER_STRAY:
            label = self._option_at_cursor(armed.tab)
            if label is not None:
                return _(
                    "You were typing in the chat: press {key} again to choose “{label}”"
                ).format(key=key, label=label)
            return _("You were typing in the chat: press {key} again to confirm").format(key=key)
        return _("Press {key} again to {action} · any other key keeps it").format(
            key=key, action=_(what)
        )

    def _unchosen(self, tab: TabKey, key: str) -> str:
        """The first Enter on a question the keys reached on their own: whose it is, and
        what pressing again does."""
        if not isinstance(tab, QuestionRef):
            return _("The keys came here on their own: press {key} again to confirm").format(
                key=key
            )
        question = self._host.question(tab)
        agent = sanitize_line(question.source) if question.source else _("the agent")
        header = sanitize_line(question.spec.header)
        label = self._option_at_cursor(tab)
        if label is not None:
            return _(
                "The keys came to “{header}” from {agent} on their own: press {key} again "
                "to choose “{label}”"
            ).format(header=header, agent=agent, key=key, label=label)
        return _(
            "The keys came to “{header}” from {agent} on their own: press {key} again to confirm"
        ).format(header=header, agent=agent, key=key)

    def _option_at_cursor(self, tab: TabKey) -> str | None:
        """The label Enter would choose on ``tab`` (a single-select option row), if any."""
        if not isinstance(tab, QuestionRef):
            return None
        spec = self._host.question(tab).spec
        cursor = self._host.draft(tab).cursor
        if spec.multi_select or cursor >= len(spec.options):
            return None
        return sanitize_line(spec.options[cursor].label)

    def _line(
        self, context: Context, commands: list[Command], labels: dict[Command, str] | None = None
    ) -> str:
        """:func:`localized_hints`, kept by its inputs (the same few lines recur every key)."""
        key = (context, tuple(commands), tuple((labels or {}).items()), language())
        line = self._lines.get(key)
        if line is None:
            if len(self._lines) >= HINT_LINES:
                self._lines.clear()
            line = self._lines[key] = localized_hints(self._keymap, context, commands, labels)
        return line

    def _option_hints(
        self, ref: QuestionRef, many: list[Command], leave: list[Command]
    ) -> list[Command]:
        question = self._host.question(ref)
        spec = question.spec
        on_option = self._host.draft(ref).cursor < len(spec.options)
        pick = [C.PANEL_TOGGLE] if spec.multi_select and on_option else [C.PANEL_CONFIRM]
        decide = [C.PANEL_ALLOW, C.PANEL_DENY] if is_permission(question) else []
        return [*decide, C.PANEL_UP, C.PANEL_DOWN, *pick, *many, *leave, C.PANEL_NOTES]


C = Command
_ARMED = {
    PanelCommand.DECLINE: (Command.PANEL_DECLINE, N_("decline")),
    PanelCommand.CLEAR_DRAFT: (Command.PANEL_CLEAR_DRAFT, N_("clear the draft")),
    PanelCommand.CONFIRM: (Command.PANEL_CONFIRM, N_("confirm")),
}


def localized_hints(
    keymap: Keymap,
    context: Context,
    commands: Sequence[Command],
    labels: Mapping[Command, str] | None = None,
    *,
    every_key: bool = False,
) -> str:
    """:meth:`Keymap.hints` with every label (the keymap's help label, or ``labels``'s) in the
    language in force; command ids and key names stay as they are."""
    shown = {
        command: _((labels or {}).get(command) or keymap.label(command)) for command in commands
    }
    return keymap.hints(context, commands, shown, every_key=every_key)
