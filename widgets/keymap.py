"""The keymap as data: one table of command → keys, context and help label.

Modelled on mitmproxy's ``defaultkeys.py`` and zulip-terminal's ``config/keys.py``. Widgets look
keys up here; nothing mutates urwid's global ``command_map``.

Semantics:

* A :class:`Binding` binds one **command** (a string id) to one or more urwid key names in one
  **context**: ``"global"`` (everywhere), ``"chat"`` (the chat editor), ``"panel"`` (the question
  panel's option rows), ``"reply"`` (typing in the panel's ``Type something.`` or notes editor),
  ``"prompt"`` (a foreign permission prompt).
* Lookup (:meth:`Keymap.command_for`) tries the context's own bindings first, then the global
  ones: a context binding **shadows** a global binding of the same key. Shadowing is only
  allowed where :data:`SHADOWS` says so (the focus toggle's default Shift+Tab means "previous
  tab" inside the panel, DESIGN §5); any other repeated key in a context is a
  :class:`ValueError` when the keymap is built. So a configured key can never silently steal a
  panel key.
* ``panel.*`` commands named in :data:`PANEL_COMMANDS` map 1:1 to
  :class:`asks.host.host.PanelCommand`; the rest of :data:`WIDGET_ACTIONS` are handled by the widget
  (notes editor, scrolling, digit jumps) or by the app (external editor, focus toggle, collapse).
* Plain Tab is never the focus toggle: it means "next tab" in the panel and "complete" in chat.
* ``help`` is the short label shown in footer hints; consecutive commands with the same label
  share one hint (``↑↓ choose``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import attrs

from asks.host.host import PanelCommand

CONTEXTS = ("global", "chat", "panel", "reply", "prompt")

DEFAULT_FOCUS_TOGGLE = "shift tab"
DEFAULT_COLLAPSE = "ctrl ]"
OFF = "off"

PANEL_COMMANDS: Mapping[str, PanelCommand] = MappingProxyType(
    {
        "panel.next_tab": PanelCommand.NEXT_TAB,
        "panel.prev_tab": PanelCommand.PREV_TAB,
        "panel.up": PanelCommand.UP,
        "panel.down": PanelCommand.DOWN,
        "panel.confirm": PanelCommand.CONFIRM,
        "panel.toggle": PanelCommand.TOGGLE,
        "panel.pause": PanelCommand.PAUSE,
        "panel.decline": PanelCommand.DECLINE,
        "panel.defer": PanelCommand.DEFER,
        "panel.clear_draft": PanelCommand.CLEAR_DRAFT,
    }
)

# Commands the widgets (or the app) implement themselves.
OPTION_JUMPS = ("panel.option_1", "panel.option_2", "panel.option_3", "panel.option_4")
WIDGET_ACTIONS = frozenset(
    {
        "panel.notes",  # open/close the notes editor (the panel)
        "panel.editor",  # $VISUAL/$EDITOR on the draft (the app)
        "panel.page_up",  # scroll the body (the panel)
        "panel.page_down",
        "reply.newline",  # insert a newline in the reply editor (the panel)
        *OPTION_JUMPS,  # move the cursor to option N, never confirm (the panel)
    }
)
APP_COMMANDS = frozenset(
    {
        "focus_toggle",
        "collapse",
        "chat.send",
        "chat.newline",
        "chat.complete",
        "chat.interrupt",
        "chat.scroll_up",
        "chat.scroll_down",
        "prompt.yes",
        "prompt.no",
    }
)
COMMANDS = frozenset(PANEL_COMMANDS) | WIDGET_ACTIONS | APP_COMMANDS

# (context, global command, context command): where a context binding may shadow a global
# key. Only one: Shift+Tab is the default focus toggle and also "previous tab" in the panel.
SHADOWS = frozenset(
    {
        ("panel", "focus_toggle", "panel.prev_tab"),
        ("reply", "focus_toggle", "panel.prev_tab"),
    }
)


@attrs.frozen
class Binding:
    """One command bound to ``keys`` (urwid key names) in one context; ``help`` is its hint."""

    command: str
    keys: tuple[str, ...]
    context: str
    help: str


def _panel_and_reply(command: str, keys: tuple[str, ...], help_: str) -> tuple[Binding, ...]:
    return Binding(command, keys, "panel", help_), Binding(command, keys, "reply", help_)


DEFAULT_BINDINGS: tuple[Binding, ...] = (
    # -- the question panel, option rows
    Binding("panel.up", ("up",), "panel", "choose"),
    Binding("panel.down", ("down",), "panel", "choose"),
    Binding("panel.toggle", (" ",), "panel", "toggle"),
    *_panel_and_reply("panel.confirm", ("enter",), "confirm"),
    *_panel_and_reply("panel.next_tab", ("tab",), "next"),
    *_panel_and_reply("panel.prev_tab", ("shift tab",), "prev"),
    *_panel_and_reply("panel.pause", ("esc",), "pause"),
    *_panel_and_reply("panel.decline", ("meta d",), "decline"),
    *_panel_and_reply("panel.defer", ("meta l",), "later"),
    *_panel_and_reply("panel.clear_draft", ("ctrl u",), "clear"),
    *_panel_and_reply("panel.notes", ("meta n",), "notes"),
    *_panel_and_reply("panel.editor", ("ctrl g",), "editor"),
    *_panel_and_reply("panel.page_up", ("page up",), "scroll"),
    *_panel_and_reply("panel.page_down", ("page down",), "scroll"),
    *(
        Binding(command, (str(n),), "panel", "jump")
        for n, command in enumerate(OPTION_JUMPS, start=1)
    ),
    # -- the reply editor (printable and editing keys go to the editor itself)
    Binding("reply.newline", ("meta enter", "shift enter"), "reply", "newline"),
    # -- the chat editor
    Binding("chat.send", ("enter",), "chat", "send"),
    Binding("chat.newline", ("meta enter", "shift enter"), "chat", "newline"),
    Binding("chat.complete", ("tab",), "chat", "complete"),
    Binding("chat.interrupt", ("ctrl c", "esc"), "chat", "interrupt"),
    Binding("chat.scroll_up", ("page up",), "chat", "scroll"),
    Binding("chat.scroll_down", ("page down",), "chat", "scroll"),
    # -- a foreign permission prompt
    Binding("prompt.yes", ("y",), "prompt", "yes"),
    Binding("prompt.no", ("n", "esc"), "prompt", "no"),
)


def _global_bindings(focus_toggle_key: str, collapse_key: str) -> tuple[Binding, ...]:
    toggle = Binding("focus_toggle", (focus_toggle_key,), "global", "answer")
    if collapse_key == OFF:
        return (toggle, Binding("collapse", (), "global", "collapse"))
    return (toggle, Binding("collapse", (collapse_key,), "global", "collapse"))


# ============================================================================ key names

_MODIFIERS = {"shift": "shift", "ctrl": "ctrl", "control": "ctrl", "alt": "meta", "meta": "meta"}
_MODIFIER_ORDER = ("shift", "meta", "ctrl")  # the order urwid writes them
_NAMED_KEYS = frozenset(
    {
        "tab", "enter", "esc", "backspace", "delete", "insert", "home", "end",
        "page up", "page down", "up", "down", "left", "right",
        *(f"f{n}" for n in range(1, 21)),
    }
)
_ALIASES = {
    "escape": "esc", "return": "enter", "del": "delete", "ins": "insert", "space": " ",
    "pgup": "page up", "pageup": "page up", "page_up": "page up",
    "pgdn": "page down", "pagedown": "page down", "page_down": "page down",
}
_SPLIT = re.compile(r"[+\s]+")

_PRETTY = {
    " ": "Space", "up": "↑", "down": "↓", "left": "←", "right": "→",
    "page up": "PgUp", "page down": "PgDn", "esc": "Esc", "enter": "Enter", "tab": "Tab",
    "backspace": "Backspace", "delete": "Del", "insert": "Ins", "home": "Home", "end": "End",
}
_PRETTY_MODIFIER = {"shift": "Shift", "meta": "Alt", "ctrl": "Ctrl"}


def _split_spec(spec: str) -> tuple[list[str], str]:
    """Split ``"ctrl+page up"`` into modifiers and the base key (as written)."""
    text = spec.strip()
    plus = text == "+" or text.endswith("++")  # "ctrl++": the base key is "+"
    words = [w for w in _SPLIT.split(text[:-1] if plus else text) if w]
    count = 0
    while count < len(words) and words[count].lower() in _MODIFIERS:
        count += 1
    modifiers, rest = words[:count], words[count:]
    if any(w.lower() in _MODIFIERS for w in rest):
        raise ValueError(f"key {spec!r}: modifiers must come before the base key")
    if plus:
        if rest:
            raise ValueError(f"key {spec!r} has more than one base key")
        return modifiers, "+"
    return modifiers, " ".join(rest)


def _base_key(base: str, spec: str) -> str:
    lowered = _ALIASES.get(base.lower(), base.lower())
    if lowered in _NAMED_KEYS or lowered == " ":
        return lowered
    if len(base) == 1 and base.isprintable():
        return base
    if not base:
        raise ValueError(f"key {spec!r} has no base key")
    if " " in base:
        first = base.split(" ", maxsplit=1)[0]
        if first.lower() not in _NAMED_KEYS:
            raise ValueError(f"key {spec!r}: {first!r} is not a modifier (ctrl, shift, alt, meta)")
        raise ValueError(f"key {spec!r} has more than one base key ({base!r})")
    raise ValueError(
        f"key {spec!r}: {base!r} is not a key name (use one character, or one of "
        "tab, enter, esc, backspace, delete, insert, home, end, page up, page down, "
        "up, down, left, right, f1-f20)"
    )


def parse_key_spec(spec: str, *, setting: str | None = None) -> str:
    """Validate a configured key spec and return urwid's key name (or ``"off"``).

    Accepts modifiers ``ctrl``, ``shift``, ``alt``/``meta`` joined to exactly one base key by
    ``+`` or spaces (urwid's own spelling too, so a normal form parses to itself):
    ``"shift+tab"`` → ``"shift tab"``, ``"ctrl+]"`` → ``"ctrl ]"``, ``"alt+n"`` → ``"meta n"``,
    ``"f2"`` → ``"f2"``. Anything else raises :class:`ValueError` with one sentence (prefixed
    with ``setting`` when given), including plain Tab (reserved: next tab in the panel,
    completion in chat) and Shift with a printable character (terminals send the shifted
    character itself).
    """
    try:
        return _parse_key_spec(spec)
    except ValueError as exc:
        if setting is None:
            raise
        raise ValueError(f"{setting}: {exc}") from None


def _parse_key_spec(spec: str) -> str:
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("empty key spec; use e.g. 'ctrl+o' or 'off'")
    if spec.strip().lower() == OFF:
        return OFF
    modifiers, base = _split_spec(spec)
    key = _base_key(base, spec)
    mods = {_MODIFIERS[m.lower()] for m in modifiers}
    if len(mods) != len(modifiers):
        raise ValueError(f"key {spec!r} repeats a modifier")
    if len(key) == 1 and "shift" in mods:
        raise ValueError(
            f"key {spec!r}: Shift with a character is just that character; "
            "use a named key (shift+tab) or ctrl/alt"
        )
    if len(key) == 1 and "ctrl" in mods:
        key = key.lower()
    if key == "tab" and not mods:
        raise ValueError(
            "plain Tab is reserved (next tab in the panel, completion in chat); "
            "use e.g. 'shift+tab' or 'f2'"
        )
    return " ".join([m for m in _MODIFIER_ORDER if m in mods] + [key])


def pretty_key(key: str) -> str:
    """Human name of an urwid key: ``"shift tab"`` → ``"Shift+Tab"``, ``"meta n"`` → ``"Alt+N"``."""
    if key in _PRETTY or len(key) == 1:
        return _PRETTY.get(key, key)
    words = key.split(" ")
    modifiers: list[str] = []
    while len(words) > 1 and words[0] in _PRETTY_MODIFIER:
        modifiers.append(_PRETTY_MODIFIER[words.pop(0)])
    base = " ".join(words)
    if base in _PRETTY:
        name = _PRETTY[base]
    elif re.fullmatch(r"f\d+", base):
        name = base.upper()
    else:
        name = base.upper() if modifiers and len(base) == 1 else base.title()
    return "+".join([*modifiers, name])


def _join_keys(keys: Sequence[str]) -> str:
    """Keys sharing one hint: ``↑↓``, ``1–4``, ``PgUp/PgDn``."""
    if len(keys) > 2 and all(k.isdigit() and len(k) == 1 for k in keys):
        return f"{keys[0]}–{keys[-1]}"
    if all(len(k) == 1 for k in keys):
        return "".join(keys)
    return "/".join(keys)


# ============================================================================ the keymap


def _index(
    bindings: Sequence[Binding],
) -> tuple[dict[tuple[str, str], str], dict[str, tuple[str, ...]], dict[str, str]]:
    """Build ``(context, key) → command``, ``command → keys`` and ``command → help``."""
    by_key: dict[tuple[str, str], str] = {}
    keys: dict[str, tuple[str, ...]] = {}
    labels: dict[str, str] = {}
    for binding in bindings:
        if binding.context not in CONTEXTS:
            raise ValueError(f"unknown context {binding.context!r} for {binding.command}")
        for key in binding.keys:
            other = by_key.setdefault((binding.context, key), binding.command)
            if other != binding.command:
                raise ValueError(
                    f"key {pretty_key(key)} is bound twice in context {binding.context!r}: "
                    f"{other} and {binding.command}"
                )
        known = keys.get(binding.command, ())
        keys[binding.command] = known + tuple(k for k in binding.keys if k not in known)
        labels.setdefault(binding.command, binding.help)
    _check_shadows(by_key)
    return by_key, keys, labels


def _check_shadows(by_key: Mapping[tuple[str, str], str]) -> None:
    """A context binding may only shadow a global key where :data:`SHADOWS` allows it."""
    for (context, key), command in by_key.items():
        if context == "global":
            continue
        shadowed = by_key.get(("global", key))
        if shadowed is not None and (context, shadowed, command) not in SHADOWS:
            raise ValueError(
                f"key {pretty_key(key)} of {shadowed} is already bound to {command} "
                f"in context {context!r}"
            )


@attrs.frozen
class Keymap:
    """An immutable, indexed keymap (see module docstring). Build it with :func:`build_keymap`."""

    bindings: tuple[Binding, ...]
    _by_key: Mapping[tuple[str, str], str] = attrs.field(init=False, repr=False, eq=False)
    _keys: Mapping[str, tuple[str, ...]] = attrs.field(init=False, repr=False, eq=False)
    _labels: Mapping[str, str] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        by_key, keys, labels = _index(self.bindings)
        object.__setattr__(self, "_by_key", MappingProxyType(by_key))
        object.__setattr__(self, "_keys", MappingProxyType(keys))
        object.__setattr__(self, "_labels", MappingProxyType(labels))

    def command_for(self, context: str, key: str) -> str | None:
        """The command ``key`` runs in ``context`` (its own bindings, then global ones)."""
        command = self._by_key.get((context, key))
        if command is None:
            command = self._by_key.get(("global", key))
        return command

    def keys_for(self, command: str) -> tuple[str, ...]:
        """Every key bound to ``command`` (in any context), in table order."""
        return self._keys.get(command, ())

    def label(self, command: str) -> str:
        return self._labels.get(command, command)

    def key_in(self, context: str, command: str) -> str | None:
        """The first key that runs ``command`` in ``context`` (not shadowed there), if any."""
        for key in self.keys_for(command):
            if self.command_for(context, key) == command:
                return key
        return None

    def help_line(self, context: str) -> str:
        """Every command usable in ``context`` (its own, then global ones) as hint text."""
        commands = [b.command for b in self.bindings if b.context == context]
        commands += [b.command for b in self.bindings if b.context == "global"]
        return self.hints(context, list(dict.fromkeys(commands)))

    def hints(
        self,
        context: str,
        commands: Sequence[str],
        labels: Mapping[str, str] | None = None,
    ) -> str:
        """Footer hint text, e.g. ``"↑↓ choose · Enter confirm · Tab next · Esc pause"``.

        Commands without a key in ``context`` (unbound, ``"off"`` or shadowed) are left out;
        consecutive commands with the same label share one hint. ``labels`` overrides labels.
        """
        parts: list[tuple[list[str], str]] = []
        for command in commands:
            key = self.key_in(context, command)
            if key is None:
                continue
            label = (labels or {}).get(command) or self.label(command)
            if parts and parts[-1][1] == label:
                parts[-1][0].append(pretty_key(key))
            else:
                parts.append(([pretty_key(key)], label))
        return " · ".join(f"{_join_keys(keys)} {label}" for keys, label in parts)


def build_keymap(
    focus_toggle_key: str = DEFAULT_FOCUS_TOGGLE, collapse_key: str = DEFAULT_COLLAPSE
) -> Keymap:
    """The default table with the two configurable global keys (urwid names or key specs).

    Raises :class:`ValueError` for an invalid spec, a focus toggle of plain Tab or ``"off"``,
    or a key that is already bound where the global key would apply.
    """
    toggle = parse_key_spec(focus_toggle_key, setting="focus_toggle_key")
    if toggle == OFF:
        raise ValueError("focus_toggle_key: cannot be 'off' (it is how you reach the panel)")
    collapse = parse_key_spec(collapse_key, setting="collapse_key")
    if collapse == toggle:
        raise ValueError(f"collapse_key: {pretty_key(collapse)} is already the focus toggle")
    return Keymap(_global_bindings(toggle, collapse) + DEFAULT_BINDINGS)
