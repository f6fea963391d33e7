"""Who asks, in the widgets that draw it: ``/help`` in a hub and the collapsed panel.

Rendered as text, no terminal: ``/help`` without an agent of the session's own lists ``@name``
notes and ``/asks @name`` and no key that does nothing there; with an agent it is as before.
The collapsed panel's row names the agents that asked, sanitised, and nobody when only the
session's own agent did.
"""

from __future__ import annotations

import urwid

from asks.widgets.help import help_text
from asks.widgets.keymap import build_keymap
from asks.widgets.panel import compact


def test_help_in_a_hub_lists_notes_and_no_key_that_does_nothing_there() -> None:
    hub = help_text(build_keymap(), agent=False)
    assert "@name text: a note to that agent" in hub
    assert "/asks @name" in hub
    assert "interrupt" not in hub  # no turn: neither Esc in the chat nor Ctrl+C interrupts
    assert "Ctrl+C quit (twice)" in hub
    assert "permission prompt" not in hub  # the hub never shows one
    own = help_text(build_keymap())
    assert "Esc interrupt" in own and "Ctrl+C interrupt" in own and "permission prompt:" in own
    assert "@name" not in own


def _row(widget: urwid.Widget, cols: int = 120) -> str:
    return b"".join(widget.render((cols,)).text).decode().rstrip()


def test_the_collapsed_panel_names_the_agents_that_asked() -> None:
    keymap = build_keymap()
    assert _row(compact.collapsed(keymap, 3, ("builder", "planner"))) == (
        "▸ 3 questions pending from builder, planner · Ctrl+] expand"
    )
    assert _row(compact.collapsed(keymap, 1)) == "▸ 1 question pending · Ctrl+] expand"
    hostile = _row(compact.collapsed(keymap, 1, ("evil\x1b]0;x\x07\nname",)))
    assert "\x1b" not in hostile and "\x07" not in hostile and "\n" not in hostile
