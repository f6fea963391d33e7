"""Keys resolved once: a key press, the command it runs, and the handler table that runs it.

Modelled on mitmproxy's ``Keymap.handle``. A key is looked up **once** in the keymap, in the
context it goes to (:meth:`~asks.widgets.keymap.Keymap.command_for`: the context's bindings,
then the global ones), and its command runs from **one table** of handlers
(``Command → handler``). Widgets only map keys to commands; what a command does to questions,
focus and drafts is the host's policy (:mod:`asks.host.commands`, :mod:`asks.host.keys`,
:mod:`asks.core.focus`).

Semantics:

* A handler gets the :class:`KeyPress` (the key, its context and command, the size, the tab it
  was aimed at, the time it was read) and returns ``None`` when it used the key, or the key
  when it did not (it is then returned unused, as urwid expects: a digit with no row, a Tab
  with nothing to complete).
* A key with no command in its context, or whose command has no handler in the table (an
  embedder's own editor handles Enter itself), goes to the context's **text input**: the chat
  editor, the panel's reply editor, the prompt. ``KeyPress.command`` tells it which case.
* Widgets that carry out commands offer them as :class:`KeyCommands` (their handlers and their
  text input). The public layer (:mod:`asks.widgets.layer`) builds its table from them, from
  its own commands and from the embedding app's; it is the one place the REPL resolves a key.
  A widget used on its own (an embedder without the layer, a test) resolves keys with
  :func:`handle` over its own table: the same lookup, the same handlers.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Protocol, runtime_checkable

import attrs

from asks.widgets.keymap import Command, Context, Keymap

Size = tuple[()] | tuple[int] | tuple[int, int]


@attrs.frozen
class KeyPress:
    """One key on its way to a handler (see module docstring)."""

    size: Size
    key: str
    context: Context
    command: Command | None
    tab: Hashable | None = None  # the panel's tab the key was aimed at (the layer's route)
    now: float = 0.0  # when the layer read it (the typing guard's clock)

    @property
    def cols(self) -> int:
        return self.size[0] if self.size else 80


KeyHandler = Callable[[KeyPress], str | None]


@runtime_checkable
class KeyCommands(Protocol):
    """A widget that carries out commands: its handlers, and where other keys go."""

    def key_commands(self) -> Mapping[Command, KeyHandler]:
        """The commands this widget runs (the same mapping every call)."""
        ...

    def text_key(self, press: KeyPress) -> str | None:
        """A key with no command here, or whose command no handler runs: typing, or returned."""
        ...


def handle(
    keymap: Keymap, context: Context, widget: KeyCommands, size: Size, key: str
) -> str | None:
    """Resolve ``key`` in ``context`` once and run it from ``widget``'s table (module
    docstring): the standalone path of a widget's ``keypress``."""
    command = keymap.command_for(context, key)
    press = KeyPress(size, key, context, command, None)
    handler = None if command is None else widget.key_commands().get(command)
    return (handler or widget.text_key)(press)


def used(action: Callable[[], object]) -> KeyHandler:
    """A handler that runs ``action`` and always uses the key (the app's commands)."""

    def run(press: KeyPress) -> str | None:
        action()
        return None

    return run
