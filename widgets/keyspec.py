"""Key names: parsing configured key specs into urwid's names, and pretty names for hints.

:func:`parse_key_spec` validates what a person writes in ``config.toml`` (``"shift+tab"``,
``"ctrl+]"``, ``"alt+n"``, ``"f2"``, ``"off"``) and returns urwid's key name; every problem is
a :class:`ValueError` with one sentence. :func:`pretty_key` turns urwid names into what
footers and ``/help`` show (``"shift tab"`` → ``"Shift+Tab"``). Pure text, no urwid import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from asks.core.keydefaults import OFF

_MODIFIERS = {"shift": "shift", "ctrl": "ctrl", "control": "ctrl", "alt": "meta", "meta": "meta"}
_MODIFIER_ORDER = ("shift", "meta", "ctrl")  # the order urwid writes them
_NAMED_KEYS = frozenset(
    {
        "tab",
        "enter",
        "esc",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "page up",
        "page down",
        "up",
        "down",
        "left",
        "right",
        *(f"f{n}" for n in range(1, 21)),
    }
)
_ALIASES = {
    "escape": "esc",
    "return": "enter",
    "del": "delete",
    "ins": "insert",
    "space": " ",
    "pgup": "page up",
    "pageup": "page up",
    "page_up": "page up",
    "pgdn": "page down",
    "pagedown": "page down",
    "page_down": "page down",
}
_SPLIT = re.compile(r"[+\s]+")

_PRETTY = {
    " ": "Space",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "page up": "PgUp",
    "page down": "PgDn",
    "esc": "Esc",
    "enter": "Enter",
    "tab": "Tab",
    "backspace": "Backspace",
    "delete": "Del",
    "insert": "Ins",
    "home": "Home",
    "end": "End",
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


def is_text_key(key: str) -> bool:
    """Is the urwid key name ``key`` a printable character (what typing text produces)?"""
    return len(key) == 1 and key.isprintable()


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


def join_keys(keys: Sequence[str]) -> str:
    """Keys sharing one hint: ``↑↓``, ``1–4``, ``PgUp/PgDn``."""
    if len(keys) > 2 and all(k.isdigit() and len(k) == 1 for k in keys):
        return f"{keys[0]}–{keys[-1]}"
    if all(len(k) == 1 and not k.isalnum() for k in keys):
        return "".join(keys)  # arrows: ↑↓
    return "/".join(keys)


_BARE_ALLOWED = frozenset({"insert", *(f"f{n}" for n in range(1, 21))})


def check_hotkey(key: str, setting: str) -> str:
    """A key that works everywhere (focus toggle, collapse) must not be one people type:
    a bare character or an unmodified editing key (Enter, arrows, …) is refused."""
    if key == OFF or " " in key.strip() or key in _BARE_ALLOWED:
        return key
    raise ValueError(
        f"{setting}: {pretty_key(key)} alone would fire while you type; "
        "use a modifier (e.g. 'ctrl+o', 'alt+o') or a function key ('f2')"
    )
