"""The expanded panel's footer: the host's notice (if any) and the key hints for this moment.

The hints follow the keymap (keys are never hard-coded here) and the situation: another prompt
owns the keyboard; the panel does not have the keyboard (how to get there or collapse); the
Review tab (submit, decline all); an editor is active (submit, newline, close notes); or the
cursor is on an option (move, pick or toggle, confirm). ``decline`` and ``answer later`` are
offered for required tabs, ``pause`` for the others, ``next tab`` when there are several.
"""

from __future__ import annotations

import urwid

from asks.core.model import QuestionRef
from asks.core.tabs import ReviewKey, TabKey
from asks.host.host import QuestionHost
from asks.sanitize import sanitize_line
from asks.widgets.keymap import Keymap
from asks.widgets.panel.markup import text_widget, unbreakable
from asks.widgets.panel.memo import Memo


class Footer:
    """Builds the footer of the selected tab (kept in the memo while notice and hints hold)."""

    def __init__(self, host: QuestionHost, keymap: Keymap, memo: Memo) -> None:
        self._host = host
        self._keymap = keymap
        self._memo = memo

    def build(self, tab: TabKey, *, editing: bool, notes_open: bool) -> urwid.Widget:
        """The footer for ``tab``; ``editing``: an editor is active, ``notes_open``: notes."""
        notice, hints = self._host.notice, self._hints(tab, editing, notes_open)
        return self._memo.get(("footer", notice, hints), lambda: self._build(notice, hints))

    @staticmethod
    def _build(notice: str | None, hints: str) -> urwid.Widget:
        rows: list[urwid.Widget] = []
        if notice:
            rows.append(text_widget(("panel.notice", sanitize_line(notice))))
        rows.append(text_widget(("panel.hint", unbreakable(hints))))
        return urwid.Pile(rows)

    def _hints(self, tab: TabKey, editing: bool, notes_open: bool) -> str:
        host, keymap = self._host, self._keymap
        if host.focus.foreign_active:
            return "Answer the open prompt first."
        if not host.focus.panel_focused:
            return keymap.hints("chat", ["focus_toggle", "collapse"])
        required = host.is_required(tab)
        leave = ["panel.decline", "panel.defer"] if required else ["panel.pause"]
        many = ["panel.next_tab"] if len(host.tabs) > 1 else []
        if isinstance(tab, ReviewKey):
            labels = {"panel.confirm": "submit", "panel.decline": "decline all"}
            return keymap.hints("panel", ["panel.confirm", *many, *leave], labels)
        if editing:
            commands = ["panel.confirm", "reply.newline", *many, *leave, "panel.notes"]
            labels = {"panel.notes": "close notes"} if notes_open else {}
            return keymap.hints("reply", commands, {"panel.confirm": "submit", **labels})
        return keymap.hints("panel", self._option_hints(tab, many, leave))

    def _option_hints(self, ref: QuestionRef, many: list[str], leave: list[str]) -> list[str]:
        spec = self._host.question(ref).spec
        on_option = self._host.draft(ref).cursor < len(spec.options)
        pick = ["panel.toggle"] if spec.multi_select and on_option else ["panel.confirm"]
        return ["panel.up", "panel.down", *pick, *many, *leave, "panel.notes"]
