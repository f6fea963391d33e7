"""The keymap as data: one table of command → keys, context and help label.

Modelled on mitmproxy's ``defaultkeys.py`` and zulip-terminal's ``config/keys.py``. It is the
only source of keys: every key a widget acts on is bound here (a test checks that no widget
module compares a key with a literal), the layer looks each key up once
(:mod:`asks.widgets.keys`), and nothing mutates urwid's global ``command_map``.

Semantics:

* A :class:`Binding` binds one :class:`Command` to one or more urwid key names in one
  :class:`Context`: ``GLOBAL`` (everywhere, the permission prompt included), ``CHAT`` (the chat
  editor), ``PANEL`` (the question panel's rows), ``REPLY`` (typing in the panel's ``Type
  something.`` or notes editor), ``PROMPT`` (a foreign permission prompt).
* Lookup (:meth:`Keymap.command_for`) tries the context's own bindings, then the global ones.
  A key may be bound once per context; a context binding that repeats a global key is an
  error when the keymap is built — so a configured key can never silently steal a panel key.
* The focus toggle is bound in ``CHAT``, ``PANEL`` and ``REPLY`` (never at the prompt, where
  it cannot work); inside the panel its default Shift+Tab is already "previous tab"
  (docs/design.md, "Interaction"), which in the panel does what the toggle would not: there
  the toggle key is left to the panel binding. Collapse and Ctrl+C are global.
* :data:`PANEL_COMMANDS` map 1:1 to :class:`~asks.host.commands.PanelCommand`. Who carries
  out a command is not the table's business: the layer resolves each key once here and runs
  the command from its one handler table (:mod:`asks.widgets.keys`); a test checks that the
  REPL's table covers every command and presses every binding.
* Arrow keys given to an editor first: ``up``/``down`` in ``CHAT`` walk the history and in
  ``REPLY`` move between the panel's rows, each only when the editor has no line to move to.
* ``help`` is the short label shown in footer hints; consecutive commands with the same label
  share one hint (``↑↓ choose``). Hints and ``/help`` only ever list keys bound in the context
  they describe, so nothing advertised does nothing.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import attrs

from asks.core.keydefaults import DEFAULT_COLLAPSE_KEY, DEFAULT_FOCUS_TOGGLE_KEY, OFF
from asks.host.commands import PanelCommand
from asks.widgets.keyspec import check_hotkey, join_keys, parse_key_spec, pretty_key

__all__ = [
    "Binding",
    "Command",
    "Context",
    "Keymap",
    "build_keymap",
    "parse_key_spec",
    "pretty_key",
]


class Context(enum.StrEnum):
    GLOBAL = "global"
    CHAT = "chat"
    PANEL = "panel"
    REPLY = "reply"
    PROMPT = "prompt"


class Command(enum.StrEnum):
    """Every command a key can run (values are stable ids used in tests and docs)."""

    FOCUS_TOGGLE = "focus_toggle"
    COLLAPSE = "collapse"
    INTERRUPT = "app.interrupt"  # Ctrl+C: interrupt the turn; twice quits (the REPL)
    PANEL_UP = "panel.up"
    PANEL_DOWN = "panel.down"
    PANEL_TOGGLE = "panel.toggle"
    PANEL_CONFIRM = "panel.confirm"
    PANEL_NEXT_TAB = "panel.next_tab"
    PANEL_PREV_TAB = "panel.prev_tab"
    PANEL_PAUSE = "panel.pause"
    PANEL_DECLINE = "panel.decline"
    PANEL_DEFER = "panel.defer"
    PANEL_CLEAR_DRAFT = "panel.clear_draft"
    PANEL_NOTES = "panel.notes"
    PANEL_EDITOR = "panel.editor"
    PANEL_PAGE_UP = "panel.page_up"
    PANEL_PAGE_DOWN = "panel.page_down"
    PANEL_ROW_1 = "panel.option_1"
    PANEL_ROW_2 = "panel.option_2"
    PANEL_ROW_3 = "panel.option_3"
    PANEL_ROW_4 = "panel.option_4"
    PANEL_ROW_5 = "panel.option_5"
    PANEL_ROW_6 = "panel.option_6"  # 4 options + Type something. + Next: six rows at most
    REPLY_NEWLINE = "reply.newline"
    REPLY_UP = "reply.up"  # the row above, when the reply editor has no line above
    REPLY_DOWN = "reply.down"  # the row below, when the reply editor has no line below
    CHAT_SEND = "chat.send"
    CHAT_NEWLINE = "chat.newline"
    CHAT_COMPLETE = "chat.complete"
    CHAT_INTERRUPT = "chat.interrupt"
    CHAT_SCROLL_UP = "chat.scroll_up"
    CHAT_SCROLL_DOWN = "chat.scroll_down"
    CHAT_LINE_START = "chat.line_start"
    CHAT_LINE_END = "chat.line_end"
    CHAT_KILL_END = "chat.kill_to_end"
    CHAT_KILL_START = "chat.kill_to_start"
    CHAT_KILL_WORD = "chat.kill_word"
    CHAT_WORD_LEFT = "chat.word_left"
    CHAT_WORD_RIGHT = "chat.word_right"
    CHAT_HISTORY_BACK = "chat.history_back"  # on the first row: the message sent before
    CHAT_HISTORY_FORWARD = "chat.history_forward"  # on the last row: the one sent after
    PANEL_ALLOW = "panel.allow"  # an agent's permission request: allow (held to the pause)
    PANEL_DENY = "panel.deny"  # ... deny
    PROMPT_YES = "prompt.yes"
    PROMPT_NO = "prompt.no"
    PROMPT_CONFIRM = "prompt.confirm"  # a held decision key counts now


PANEL_COMMANDS: Mapping[Command, PanelCommand] = MappingProxyType(
    {
        Command.PANEL_NEXT_TAB: PanelCommand.NEXT_TAB,
        Command.PANEL_PREV_TAB: PanelCommand.PREV_TAB,
        Command.PANEL_UP: PanelCommand.UP,
        Command.PANEL_DOWN: PanelCommand.DOWN,
        Command.PANEL_CONFIRM: PanelCommand.CONFIRM,
        Command.PANEL_TOGGLE: PanelCommand.TOGGLE,
        Command.PANEL_PAUSE: PanelCommand.PAUSE,
        Command.PANEL_DECLINE: PanelCommand.DECLINE,
        Command.PANEL_DEFER: PanelCommand.DEFER,
        Command.PANEL_CLEAR_DRAFT: PanelCommand.CLEAR_DRAFT,
    }
)
ROW_JUMPS: tuple[Command, ...] = tuple(Command(f"panel.option_{n}") for n in range(1, 7))


@attrs.frozen
class Binding:
    """One command bound to ``keys`` (urwid key names) in one context; ``help`` is its hint."""

    command: Command
    keys: tuple[str, ...]
    context: Context
    help: str


def _panel_and_reply(command: Command, keys: tuple[str, ...], help_: str) -> tuple[Binding, ...]:
    return tuple(Binding(command, keys, c, help_) for c in (Context.PANEL, Context.REPLY))


C, X = Command, Context
DEFAULT_BINDINGS: tuple[Binding, ...] = (
    # -- the question panel, option rows
    Binding(C.PANEL_UP, ("up",), X.PANEL, "choose"),
    Binding(C.PANEL_DOWN, ("down",), X.PANEL, "choose"),
    Binding(C.PANEL_TOGGLE, (" ",), X.PANEL, "toggle"),
    *_panel_and_reply(C.PANEL_CONFIRM, ("enter",), "confirm"),
    *_panel_and_reply(C.PANEL_NEXT_TAB, ("tab",), "next"),
    *_panel_and_reply(C.PANEL_PREV_TAB, ("shift tab",), "prev"),
    *_panel_and_reply(C.PANEL_PAUSE, ("esc",), "pause"),
    *_panel_and_reply(C.PANEL_DECLINE, ("meta d",), "decline (twice)"),
    *_panel_and_reply(C.PANEL_DEFER, ("meta l",), "later"),
    *_panel_and_reply(C.PANEL_CLEAR_DRAFT, ("ctrl u",), "clear (twice)"),
    *_panel_and_reply(C.PANEL_NOTES, ("meta n",), "notes"),
    *_panel_and_reply(C.PANEL_EDITOR, ("ctrl g",), "editor"),
    *_panel_and_reply(C.PANEL_PAGE_UP, ("page up",), "scroll"),
    *_panel_and_reply(C.PANEL_PAGE_DOWN, ("page down",), "scroll"),
    *(Binding(c, (str(n),), X.PANEL, "jump") for n, c in enumerate(ROW_JUMPS, start=1)),
    Binding(C.PANEL_ALLOW, ("y", "Y"), X.PANEL, "allow"),
    Binding(C.PANEL_DENY, ("n", "N"), X.PANEL, "deny"),
    # -- the reply editor (printable and editing keys go to the editor itself)
    Binding(C.REPLY_NEWLINE, ("meta enter", "shift enter"), X.REPLY, "newline"),
    Binding(C.REPLY_UP, ("up",), X.REPLY, "choose"),
    Binding(C.REPLY_DOWN, ("down",), X.REPLY, "choose"),
    # -- the chat editor
    Binding(C.CHAT_SEND, ("enter",), X.CHAT, "send"),
    Binding(C.CHAT_NEWLINE, ("meta enter", "shift enter"), X.CHAT, "newline"),
    Binding(C.CHAT_COMPLETE, ("tab",), X.CHAT, "complete"),
    Binding(C.CHAT_INTERRUPT, ("esc",), X.CHAT, "interrupt"),
    Binding(C.CHAT_SCROLL_UP, ("page up",), X.CHAT, "scroll"),
    Binding(C.CHAT_SCROLL_DOWN, ("page down",), X.CHAT, "scroll"),
    Binding(C.CHAT_LINE_START, ("ctrl a",), X.CHAT, "line start"),
    Binding(C.CHAT_LINE_END, ("ctrl e",), X.CHAT, "line end"),
    Binding(C.CHAT_KILL_END, ("ctrl k",), X.CHAT, "delete to end"),
    Binding(C.CHAT_KILL_START, ("ctrl u",), X.CHAT, "delete to start"),
    Binding(C.CHAT_KILL_WORD, ("ctrl w",), X.CHAT, "delete word"),
    Binding(C.CHAT_WORD_LEFT, ("meta b",), X.CHAT, "word ←"),
    Binding(C.CHAT_WORD_RIGHT, ("meta f",), X.CHAT, "word →"),
    Binding(C.CHAT_HISTORY_BACK, ("up",), X.CHAT, "history"),
    Binding(C.CHAT_HISTORY_FORWARD, ("down",), X.CHAT, "history"),
    # -- a foreign permission prompt
    Binding(C.PROMPT_YES, ("y", "Y"), X.PROMPT, "yes"),
    Binding(C.PROMPT_NO, ("n", "N", "esc"), X.PROMPT, "no"),
    Binding(C.PROMPT_CONFIRM, ("enter",), X.PROMPT, "confirm"),
)
del C, X


def _configured_bindings(toggle: str, collapse: str) -> tuple[Binding, ...]:
    """The focus toggle (chat, and panel/reply unless its key is "previous tab" there — the
    default Shift+Tab) and the global keys. Any other clash is a :class:`ValueError`."""
    taken = {(b.context, k): b.command for b in DEFAULT_BINDINGS for k in b.keys}
    toggles: list[Binding] = []
    for context in (Context.CHAT, Context.PANEL, Context.REPLY):
        clash = taken.get((context, toggle))
        if clash is None:
            toggles.append(Binding(Command.FOCUS_TOGGLE, (toggle,), context, "answer"))
        elif clash is not Command.PANEL_PREV_TAB:
            raise ValueError(
                f"focus_toggle_key: {pretty_key(toggle)} is already bound to {clash} "
                f"in context {context}"
            )
    collapse_keys = () if collapse == OFF else (collapse,)
    return (
        *toggles,
        Binding(Command.COLLAPSE, collapse_keys, Context.GLOBAL, "collapse"),
        Binding(Command.INTERRUPT, ("ctrl c",), Context.GLOBAL, "interrupt"),
    )


def _index(
    bindings: Sequence[Binding],
) -> tuple[dict[tuple[Context, str], Command], dict[Command, tuple[str, ...]], dict[Command, str]]:
    """Build ``(context, key) → command``, ``command → keys`` and ``command → help``."""
    by_key: dict[tuple[Context, str], Command] = {}
    keys: dict[Command, tuple[str, ...]] = {}
    labels: dict[Command, str] = {}
    for binding in bindings:
        for key in binding.keys:
            other = by_key.setdefault((binding.context, key), binding.command)
            if other != binding.command:
                raise ValueError(
                    f"key {pretty_key(key)} is bound twice in context {binding.context}: "
                    f"{other} and {binding.command}"
                )
        known = keys.get(binding.command, ())
        keys[binding.command] = known + tuple(k for k in binding.keys if k not in known)
        labels.setdefault(binding.command, binding.help)
    for (context, key), command in by_key.items():
        shadowed = by_key.get((Context.GLOBAL, key))
        if context is not Context.GLOBAL and shadowed is not None:
            raise ValueError(
                f"key {pretty_key(key)} of {shadowed} is already bound to {command} "
                f"in context {context}"
            )
    return by_key, keys, labels


@attrs.frozen
class Keymap:
    """An immutable, indexed keymap: which command each key runs in each context. Build it
    with :func:`build_keymap`; docs/embedding.md has the table of its keys and who carries
    out each in an embedding."""

    bindings: tuple[Binding, ...]
    _by_key: Mapping[tuple[Context, str], Command] = attrs.field(init=False, repr=False, eq=False)
    _keys: Mapping[Command, tuple[str, ...]] = attrs.field(init=False, repr=False, eq=False)
    _labels: Mapping[Command, str] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        by_key, keys, labels = _index(self.bindings)
        object.__setattr__(self, "_by_key", MappingProxyType(by_key))
        object.__setattr__(self, "_keys", MappingProxyType(keys))
        object.__setattr__(self, "_labels", MappingProxyType(labels))

    def command_for(self, context: Context, key: str) -> Command | None:
        """The command ``key`` runs in ``context`` (its own bindings, then global ones)."""
        command = self._by_key.get((context, key))
        if command is None:
            command = self._by_key.get((Context.GLOBAL, key))
        return command

    def keys_for(self, command: Command) -> tuple[str, ...]:
        """Every key bound to ``command`` (in any context), in table order."""
        return self._keys.get(command, ())

    def label(self, command: Command) -> str:
        """What the footer and ``/help`` call ``command`` (untranslated; drawn translated)."""
        return self._labels.get(command, command.value)

    def keys_in(self, context: Context, command: Command) -> tuple[str, ...]:
        """Every key that runs ``command`` in ``context``, in table order."""
        return tuple(k for k in self.keys_for(command) if self.command_for(context, k) == command)

    def key_in(self, context: Context, command: Command) -> str | None:
        """The first key that runs ``command`` in ``context``, if any."""
        keys = self.keys_in(context, command)
        return keys[0] if keys else None

    def help_line(self, context: Context) -> str:
        """Every command usable in ``context`` (its own, then global ones) as hint text."""
        commands = [b.command for b in self.bindings if b.context is context]
        commands += [b.command for b in self.bindings if b.context is Context.GLOBAL]
        return self.hints(context, list(dict.fromkeys(commands)), every_key=True)

    def hints(
        self,
        context: Context,
        commands: Sequence[Command],
        labels: Mapping[Command, str] | None = None,
        *,
        every_key: bool = False,
    ) -> str:
        """Footer hint text, e.g. ``"↑↓ choose · Enter confirm · Tab next · Esc pause"``.

        Commands without a key in ``context`` (unbound, ``"off"``) are left out; consecutive
        commands with the same label share one hint. ``labels`` overrides labels.
        ``every_key`` lists every key of a command (``/help``), not only its first.
        """
        parts: list[tuple[list[str], str]] = []
        for command in commands:
            keys = self.keys_in(context, command)
            if not keys:
                continue
            shown = [pretty_key(k) for k in (keys if every_key else keys[:1])]
            label = (labels or {}).get(command) or self.label(command)
            if parts and parts[-1][1] == label:
                parts[-1][0].extend(shown)
            else:
                parts.append((shown, label))
        return " · ".join(f"{join_keys(keys)} {label}" for keys, label in parts)


def build_keymap(
    focus_toggle_key: str = DEFAULT_FOCUS_TOGGLE_KEY, collapse_key: str = DEFAULT_COLLAPSE_KEY
) -> Keymap:
    """The default table with the two configurable keys (urwid names or key specs).

    Raises :class:`ValueError` for an invalid spec, a bare character or editing key (it would
    fire while typing), a focus toggle of plain Tab or ``"off"``, or a key already bound where
    the configured key would apply.
    """
    toggle = check_hotkey(
        parse_key_spec(focus_toggle_key, setting="focus_toggle_key"), "focus_toggle_key"
    )
    if toggle == OFF:
        raise ValueError("focus_toggle_key: cannot be 'off' (it is how you reach the panel)")
    collapse = check_hotkey(parse_key_spec(collapse_key, setting="collapse_key"), "collapse_key")
    if collapse == toggle:
        raise ValueError(f"collapse_key: {pretty_key(collapse)} is already the focus toggle")
    return Keymap(_configured_bindings(toggle, collapse) + DEFAULT_BINDINGS)
