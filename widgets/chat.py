"""The chat editor: where the person types messages and slash commands.

A multi-line :class:`urwid.Edit` with the caption ``"› "``. Its keys come from the keymap's
``CHAT`` context (defaults below):

* ``enter`` — submit: the editor is cleared and ``on_submit(text)`` is called when the text is
  not blank (a blank text is cleared without a call); when it returns ``False`` nothing was
  done with the text (a line that reaches nobody) and it is put back, caret at its end.
  Always handled.
* ``meta enter`` / ``shift enter`` — insert a newline (plain terminals report Alt+Enter as
  ``meta enter``; terminals with extended keys may send ``shift enter``).
* ``tab`` — complete a slash command while the text is a command word in progress (starts with
  ``/``, no whitespace): one match completes it with a trailing space, several complete their
  common prefix and are listed through ``on_hint``. After a command and a space, its argument
  is completed the same way from ``arguments(command)`` (e.g. ``/asks q-`` → pending ids).
  A word starting with ``@`` (no whitespace yet) completes from ``arguments("@")`` (``asks
  hub``: the agents' names). Handled when at least one candidate matches, else returned.
* ``up`` on the first row / ``down`` on the last row — walk the history of messages submitted
  in this editor (newest first); walking down past the newest brings back the text that was
  being typed. Returned when there is nowhere to go. (The inner edit gets these keys first:
  on any other row they move the cursor.)
* readline keys: ``ctrl a``/``ctrl e`` line start/end, ``ctrl k``/``ctrl u`` delete to the
  end/start of the line, ``ctrl w`` delete the word before the cursor, ``meta b``/``meta f``
  a word left/right.
* Everything else goes to the inner edit; what it does not use is returned (``ctrl c``,
  ``page up``, ``esc``, …) for the app to route.

The editor carries these out as :class:`~asks.widgets.keys.KeyCommands`: the layer resolves a
key once and runs the editor's handler (:mod:`asks.widgets.keys`); :meth:`ChatEditor.keypress`
is the same lookup and table for an editor used on its own.

The history lives in the editor instance (no module state) and is not persisted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import urwid

from asks.widgets.keymap import Command, Context, Keymap, build_keymap
from asks.widgets.keys import KeyHandler, KeyPress, handle

CAPTION: Final = "› "
DEFAULT_COMMANDS: Final = ("/asks", "/help", "/quit")
_WORD_BEFORE: Final = r"\S*\s*$"
_WORD_AFTER: Final = r"^\s*\S*"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A word-motion pattern above, compiled on first use (not at launch)."""
    return re.compile(pattern)


PALETTE: Final = (("chat.caption", "light cyan,bold", "default", "bold"),)

Size = tuple[int]


class ChatEditor(urwid.WidgetWrap[urwid.Edit]):
    """The chat input line(s); see the module docstring for the keys."""

    def __init__(
        self,
        on_submit: Callable[[str], bool | None],
        commands: Sequence[str] = DEFAULT_COMMANDS,
        keymap: Keymap | None = None,
        *,
        arguments: Callable[[str], Sequence[str]] = lambda command: (),
        on_hint: Callable[[str], None] = lambda hint: None,
    ) -> None:
        self._on_submit = on_submit
        self._keymap = keymap or build_keymap()
        self._arguments = arguments
        self._on_hint = on_hint
        self._commands = tuple(commands)
        self._history: list[str] = []
        self._history_index: int | None = None  # into _history while walking it
        self._draft = ""  # what was typed before walking the history
        self._edit = urwid.Edit(("chat.caption", CAPTION), multiline=True)
        self._commands_table: Mapping[Command, KeyHandler] = {
            Command.CHAT_SEND: self._send,
            Command.CHAT_NEWLINE: self._newline,
            Command.CHAT_COMPLETE: self._tab,
            Command.CHAT_HISTORY_BACK: self._history_key(-1),
            Command.CHAT_HISTORY_FORWARD: self._history_key(+1),
            **{command: self._line_edit(edit) for command, edit in _LINE_EDITS.items()},
        }
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
        return handle(self._keymap, Context.CHAT, self, size, key)

    def key_commands(self) -> Mapping[Command, KeyHandler]:
        """The chat commands this editor runs (see module docstring)."""
        return self._commands_table

    def text_key(self, press: KeyPress) -> str | None:
        """Any other key: the inner edit types it or returns it."""
        return self._edit.keypress(press.size, press.key)  # type: ignore[arg-type]

    def _send(self, press: KeyPress) -> str | None:
        self._submit()
        return None

    def _newline(self, press: KeyPress) -> str | None:
        self._edit.insert_text("\n")
        return None

    def _tab(self, press: KeyPress) -> str | None:
        return None if self._complete() else press.key

    def _history_key(self, step: int) -> KeyHandler:
        def walk(press: KeyPress) -> str | None:
            if self.text_key(press) is None:
                return None  # the cursor moved within the text
            return None if self._walk_history(step) else press.key

        return walk

    def _line_edit(self, edit: Callable[[ChatEditor], None]) -> KeyHandler:
        def run(press: KeyPress) -> str | None:
            edit(self)
            return None

        return run

    # -- readline keys ------------------------------------------------------------------------
    def _line_bounds(self) -> tuple[int, int, int]:
        text, pos = self.text, self._edit.edit_pos
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        return start, pos, len(text) if end < 0 else end

    def _replace(self, start: int, end: int, caret: int) -> None:
        text = self.text
        self._edit.set_edit_text(text[:start] + text[end:])
        self._edit.set_edit_pos(caret)

    def _line_start(self) -> None:
        self._edit.set_edit_pos(self._line_bounds()[0])

    def _line_end(self) -> None:
        self._edit.set_edit_pos(self._line_bounds()[2])

    def _kill_to_end(self) -> None:
        _, pos, end = self._line_bounds()
        self._replace(pos, end, pos)

    def _kill_to_start(self) -> None:
        start, pos, _ = self._line_bounds()
        self._replace(start, pos, start)

    def _kill_word(self) -> None:
        pos = self._edit.edit_pos
        match = _compiled(_WORD_BEFORE).search(self.text[:pos])
        start = pos - len(match.group(0)) if match else pos
        self._replace(start, pos, start)

    def _word_left(self) -> None:
        pos = self._edit.edit_pos
        match = _compiled(_WORD_BEFORE).search(self.text[:pos].rstrip())
        stripped = len(self.text[:pos].rstrip())
        self._edit.set_edit_pos(stripped - len(match.group(0)) if match else 0)

    def _word_right(self) -> None:
        pos = self._edit.edit_pos
        match = _compiled(_WORD_AFTER).match(self.text[pos:])
        self._edit.set_edit_pos(pos + (len(match.group(0)) if match else 0))

    def _submit(self) -> None:
        text = self.text
        self._history_index = None
        self._draft = ""
        self.set_text("")
        if text.strip():
            if not self._history or self._history[-1] != text:
                self._history.append(text)
            if self._on_submit(text) is False:
                self.set_text(text)  # nothing was sent: the line is the person's to correct

    def _complete(self) -> bool:
        """Complete a slash command or its argument, or an ``@`` name; return whether any
        candidate matched."""
        text = self.text
        if text.startswith("@") and not any(c.isspace() for c in text):
            return self._complete_word("@", text[1:], self._arguments("@"))
        if not text.startswith("/") or "\n" in text:
            return False
        command, space, argument = text.partition(" ")
        if not space:
            return self._complete_word("", text, self._commands)
        if " " in argument or command not in self._commands:
            return False
        return self._complete_word(command + " ", argument, self._arguments(command))

    def _complete_word(self, head: str, word: str, candidates: Sequence[str]) -> bool:
        matches = [c for c in candidates if c.startswith(word)]
        if not matches:
            return False
        completed = matches[0] + " " if len(matches) == 1 else _common_prefix(matches)
        if len(matches) > 1:
            self._on_hint(" ".join(matches))
        if head + completed != self.text:
            self.set_text(head + completed)
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


_LINE_EDITS: Final[dict[Command, Callable[[ChatEditor], None]]] = {
    Command.CHAT_LINE_START: ChatEditor._line_start,
    Command.CHAT_LINE_END: ChatEditor._line_end,
    Command.CHAT_KILL_END: ChatEditor._kill_to_end,
    Command.CHAT_KILL_START: ChatEditor._kill_to_start,
    Command.CHAT_KILL_WORD: ChatEditor._kill_word,
    Command.CHAT_WORD_LEFT: ChatEditor._word_left,
    Command.CHAT_WORD_RIGHT: ChatEditor._word_right,
}


def _common_prefix(words: Sequence[str]) -> str:
    """The longest string every word starts with."""
    first, last = min(words), max(words)
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), None)
    return first if size is None else first[:size]
