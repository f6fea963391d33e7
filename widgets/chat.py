"""The chat editor: where the person types messages and slash commands.

A multi-line :class:`urwid.Edit` with the caption ``"› "``. Keys it handles:

* ``enter`` — submit: ``on_submit(text)`` is called when the text is not blank, then the editor
  is cleared (a blank text is cleared without a call). Always handled.
* ``meta enter`` / ``shift enter`` — insert a newline (plain terminals report Alt+Enter as
  ``meta enter``; terminals with extended keys may send ``shift enter``).
* ``tab`` — complete a slash command while the text is a command word in progress (starts with
  ``/``, no whitespace): one match completes it with a trailing space, several complete their
  common prefix. Handled when at least one command matches, else returned.
* ``up`` on the first row / ``down`` on the last row — walk the history of messages submitted
  in this editor (newest first); walking down past the newest brings back the text that was
  being typed. Returned when there is nowhere to go.
* Everything else goes to the inner edit; what it does not use is returned (``shift tab``,
  ``ctrl c``, ``page up``, ``esc``, …) for the app to route.

The history lives in the editor instance (no module state) and is not persisted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import urwid

CAPTION: Final = "› "
DEFAULT_COMMANDS: Final = ("/asks", "/help", "/quit")
NEWLINE_KEYS: Final = frozenset({"meta enter", "shift enter"})

PALETTE: Final = (("chat.caption", "light cyan,bold", "default", "bold"),)

Size = tuple[int]


class ChatEditor(urwid.WidgetWrap[urwid.Edit]):
    """The chat input line(s); see the module docstring for the keys."""

    def __init__(
        self,
        on_submit: Callable[[str], None],
        commands: Sequence[str] = DEFAULT_COMMANDS,
    ) -> None:
        self._on_submit = on_submit
        self._commands = tuple(commands)
        self._history: list[str] = []
        self._history_index: int | None = None  # into _history while walking it
        self._draft = ""  # what was typed before walking the history
        self._edit = urwid.Edit(("chat.caption", CAPTION), multiline=True)
        super().__init__(self._edit)

    # -- public API ----------------------------------------------------------------------
    @property
    def edit(self) -> urwid.Edit:
        """The inner edit (cursor position, for tests and the app)."""
        return self._edit

    @property
    def text(self) -> str:
        return str(self._edit.edit_text)

    def set_text(self, text: str) -> None:
        """Replace the text and put the cursor at its end."""
        self._edit.set_edit_text(text)
        self._edit.set_edit_pos(len(text))

    @property
    def history(self) -> tuple[str, ...]:
        """Submitted messages, oldest first."""
        return tuple(self._history)

    # -- keys ------------------------------------------------------------------------------
    def keypress(self, size: Size, key: str) -> str | None:  # type: ignore[override]
        if key == "enter":
            self._submit()
            return None
        if key in NEWLINE_KEYS:
            self._edit.insert_text("\n")
            return None
        if key == "tab":
            return None if self._complete() else key
        unhandled = self._edit.keypress(size, key)
        if unhandled == "up":
            return None if self._walk_history(-1) else key
        if unhandled == "down":
            return None if self._walk_history(+1) else key
        return unhandled

    def _submit(self) -> None:
        text = self.text
        self._history_index = None
        self._draft = ""
        self.set_text("")
        if text.strip():
            if not self._history or self._history[-1] != text:
                self._history.append(text)
            self._on_submit(text)

    def _complete(self) -> bool:
        """Complete a slash command; return whether any command matched."""
        text = self.text
        if not text.startswith("/") or any(ch.isspace() for ch in text):
            return False
        matches = [c for c in self._commands if c.startswith(text)]
        if not matches:
            return False
        completed = matches[0] + " " if len(matches) == 1 else _common_prefix(matches)
        if completed != text:
            self.set_text(completed)
        return True

    def _walk_history(self, step: int) -> bool:
        """Move through the history by ``step`` (-1 older, +1 newer); False at an end."""
        if self._history_index is None:
            if step > 0 or not self._history:
                return False
            self._draft = self.text
            index = len(self._history) - 1
        else:
            index = self._history_index + step
            if index < 0:
                return False
        if index >= len(self._history):
            self._history_index = None
            self.set_text(self._draft)
            return True
        self._history_index = index
        self.set_text(self._history[index])
        return True


def _common_prefix(words: Sequence[str]) -> str:
    """The longest string every word starts with."""
    first, last = min(words), max(words)
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), None)
    return first if size is None else first[:size]
