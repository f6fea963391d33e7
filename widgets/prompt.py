"""The foreign-prompt view: a modal yes/no block for the broker's current prompt.

It draws :attr:`asks.agent.prompts.PromptBroker.current` as a boxed block::

    ┌──────────────────────────────────────────────┐
    │⚠ Permission: run `ls`?  [y] allow · [n] deny│
    └──────────────────────────────────────────────┘

The prompt text is sanitised (newlines kept). Once answered, the block shows the choice
until the broker ends the prompt. With no prompt it draws one empty row and returns every key.

Keys while a prompt is up (it is modal): ``y``/``Y`` allow (``broker.answer_nowait(True)``),
``n``/``N``/``esc`` deny (``answer_nowait(False)``), ``ctrl c`` is returned (the app interrupts,
which also ends the prompt as "no"), every other key is swallowed.

:meth:`PromptView.refresh` re-reads ``broker.current``; the app subscribes it to the broker.
"""

from __future__ import annotations

from typing import Final

import urwid

from asks.agent.prompts import Prompt, PromptBroker
from asks.sanitize import sanitize_text

Size = tuple[int]
Markup = list[tuple[str, str] | str]

ALLOW_KEYS: Final = frozenset({"y", "Y"})
DENY_KEYS: Final = frozenset({"n", "N", "esc"})
PASS_KEYS: Final = frozenset({"ctrl c"})
HINT: Final = "  [y] allow · [n] deny"

PALETTE: Final = (
    ("prompt", "white", "default", "default"),
    ("prompt.border", "yellow,bold", "default", "bold"),
    ("prompt.title", "yellow,bold", "default", "bold"),
    ("prompt.hint", "light cyan", "default", "default"),
)


def prompt_markup(prompt: Prompt) -> Markup:
    """``⚠ Permission: TEXT  [y] allow · [n] deny`` (or the choice once answered)."""
    markup: Markup = [("prompt.title", "⚠ Permission: "), sanitize_text(prompt.text)]
    if prompt.answer is None:
        markup.append(("prompt.hint", HINT))
    else:
        markup.append(("prompt.hint", "  → allowed" if prompt.answer else "  → denied"))
    return markup


class PromptView(urwid.WidgetWrap[urwid.Widget]):
    """Draws and answers the broker's current prompt; see the module docstring."""

    def __init__(self, broker: PromptBroker) -> None:
        self._broker = broker
        self._prompt: Prompt | None = None
        self._drawn: tuple[Prompt | None, bool | None] | None = None
        super().__init__(urwid.Text(""))
        self.refresh()

    @property
    def prompt(self) -> Prompt | None:
        """The prompt on screen (as of the last :meth:`refresh`)."""
        return self._prompt

    def refresh(self) -> None:
        self._prompt = prompt = self._broker.current
        state = (prompt, None if prompt is None else prompt.answer)
        if state == self._drawn:
            return
        self._drawn = state
        if prompt is None:
            self._w = urwid.Text("")
            return
        body = urwid.AttrMap(urwid.Text(prompt_markup(prompt)), "prompt")
        self._w = urwid.AttrMap(urwid.LineBox(body), "prompt.border")

    def selectable(self) -> bool:
        return True

    def keypress(self, size: Size, key: str) -> str | None:  # type: ignore[override]
        if self._broker.current is None:
            return key
        if key in PASS_KEYS:
            return key
        if key in ALLOW_KEYS or key in DENY_KEYS:
            self._broker.answer_nowait(key in ALLOW_KEYS)
            self.refresh()
        return None
