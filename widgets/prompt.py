"""The foreign-prompt view: a modal yes/no block for the broker's current prompt.

It draws :attr:`asks.agent.prompts.PromptBroker.current` as a boxed block::

    ┌──────────────────────────────────────────────┐
    │⚠ Permission: run `ls`?  [y] allow · [n] deny│
    └──────────────────────────────────────────────┘

The prompt text is sanitised (newlines kept). Once answered, the block shows the choice
until the broker ends the prompt. With no prompt it draws one empty row and returns every key.

Keys while a prompt is up (it is modal), from the keymap's ``PROMPT`` context: ``y``/``Y`` allow
(``broker.answer(True)``), ``n``/``N``/``esc`` deny (``answer(False)``); global
keys (Ctrl+C, collapse) and other printable keys are returned for the layer (which treats the
printables as typing meant for the chat) and the app; every other key is swallowed. The layer,
not this view, holds a printable decision key until the pause after it
(docs/architecture.md, "The permission prompt's keys"); while it holds one, the block says so
(``“y” counts at your pause (Enter: now)``), redrawn on the host's changes.
The view carries out ``PROMPT_YES``/``PROMPT_NO`` as :class:`~asks.widgets.keys.KeyCommands`
(the layer resolves the key once and runs them); :meth:`PromptView.keypress` is the same lookup
and table on its own.

:meth:`PromptView.refresh` re-reads ``broker.current``; the app subscribes it to the broker.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import urwid

from asks.agent.prompts import Prompt, PromptBroker
from asks.core.i18n import N_, _
from asks.sanitize import sanitize_text
from asks.widgets.keymap import Command, Context, Keymap, build_keymap
from asks.widgets.keys import KeyHandler, KeyPress, handle
from asks.widgets.keyspec import is_text_key, pretty_key
from asks.widgets.panel.footer import localized_hints

Size = tuple[int]
Markup = list[tuple[str, str] | str]

PALETTE: Final = (
    ("prompt", "white", "default", "default"),
    ("prompt.border", "yellow,bold", "default", "bold"),
    ("prompt.title", "yellow,bold", "default", "bold"),
    ("prompt.hint", "light cyan", "default", "default"),
    ("prompt.held", "yellow", "default", "bold"),
)


def prompt_hint(keymap: Keymap) -> str:
    """``  y allow · n deny`` from the keymap."""
    labels = {Command.PROMPT_YES: N_("allow"), Command.PROMPT_NO: N_("deny")}
    commands = [Command.PROMPT_YES, Command.PROMPT_NO]
    return "  " + localized_hints(keymap, Context.PROMPT, commands, labels)


def prompt_markup(prompt: Prompt, keymap: Keymap | None = None, held: str | None = None) -> Markup:
    """``⚠ Permission: TEXT  y allow · n deny``; while the decision key ``held`` waits for the
    pause after it, what it does then; once answered, the choice."""
    keymap = keymap or build_keymap()
    markup: Markup = [("prompt.title", _("⚠ Permission: ")), sanitize_text(prompt.text)]
    if prompt.answer is None and held is not None:
        confirm = pretty_key(keymap.key_in(Context.PROMPT, Command.PROMPT_CONFIRM) or "")
        text = _("“{key}” counts at your pause ({confirm}: now)")
        markup.append(("prompt.held", "  " + text.format(key=held, confirm=confirm)))
    elif prompt.answer is None:
        markup.append(("prompt.hint", prompt_hint(keymap)))
    else:
        markup.append(("prompt.hint", "  → " + (_("allowed") if prompt.answer else _("denied"))))
    return markup


class PromptView(urwid.WidgetWrap[urwid.Widget]):
    """Draws and answers the broker's current prompt; see the module docstring."""

    def __init__(self, broker: PromptBroker, keymap: Keymap | None = None) -> None:
        self._broker = broker
        self._keymap = keymap or build_keymap()
        self._prompt: Prompt | None = None
        self._drawn: tuple[Prompt | None, bool | None, str | None] | None = None
        self._commands: Mapping[Command, KeyHandler] = {
            Command.PROMPT_YES: self._answer(True),
            Command.PROMPT_NO: self._answer(False),
        }
        super().__init__(urwid.Text(""))
        broker.host.subscribe(self.refresh)  # a decision key held or let go (the focus's doubt)
        self.refresh()

    @property
    def prompt(self) -> Prompt | None:
        """The prompt on screen (as of the last :meth:`refresh`)."""
        return self._prompt

    def refresh(self) -> None:
        self._prompt = prompt = self._broker.current
        doubt = self._broker.host.focus.doubt
        held = None if doubt is None else doubt.key
        state = (prompt, None if prompt is None else prompt.answer, held)
        if state == self._drawn:
            return
        self._drawn = state
        if prompt is None:
            self._w = urwid.Text("")
            return
        body = urwid.AttrMap(urwid.Text(prompt_markup(prompt, self._keymap, held)), "prompt")
        self._w = urwid.AttrMap(urwid.LineBox(body), "prompt.border")

    def selectable(self) -> bool:
        return True

    def keypress(self, size: Size, key: str) -> str | None:  # type: ignore[override]
        return handle(self._keymap, Context.PROMPT, self, size, key)

    def key_commands(self) -> Mapping[Command, KeyHandler]:
        return self._commands

    def text_key(self, press: KeyPress) -> str | None:
        """Modal while a prompt is up: other keys are swallowed; global commands and printable
        keys (typing meant for somewhere else: the layer's strays) are returned."""
        if self._broker.current is None or is_text_key(press.key):
            return press.key
        if press.command is None or press.command is Command.PROMPT_CONFIRM:
            return None  # Enter with no decision key held (the layer holds them) does nothing
        return press.key

    def _answer(self, allow: bool) -> KeyHandler:
        def answer(press: KeyPress) -> str | None:
            if self._broker.current is None:
                return press.key  # nothing is up: keys pass through
            self._broker.answer(allow)
            self.refresh()
            return None

        return answer
