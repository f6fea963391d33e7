"""A real :class:`~asks.widgets.layer.AsksLayer` on a rig's host, keys pressed at its hand clock.

For in-process tests of the key path (tests/test_prompt_keys.py, tests/test_stray_rows.py):
the real layer, chat editor and, if given, prompt widget; :meth:`LayerScreen.keys` presses keys
a typing gap apart, :meth:`LayerScreen.look` is the person's pause (past the typing guard,
then what the layer's timer does at that moment).
"""

from __future__ import annotations

import urwid

from asks.core.focus import TYPING_GUARD
from asks.widgets.chat import ChatEditor
from asks.widgets.layer import AsksLayer
from support.rig import Rig

SIZE = (80,)


class LayerScreen:
    """The layer with a chat editor whose sent lines are :attr:`sent`."""

    def __init__(self, rig: Rig, prompt: urwid.Widget | None = None) -> None:
        self.rig = rig
        self.sent: list[str] = []
        self.chat = ChatEditor(self.sent.append)
        self.layer = AsksLayer(
            rig.host.panel_port, self.chat, prompt=prompt, clock=rig.clock, bell=lambda: None
        )

    def keys(self, *keys: str, gap: float = 0.05) -> None:
        for key in keys:
            self.rig.clock.advance(gap)
            self.layer.keypress(SIZE, key)

    def look(self) -> None:
        """The person pauses and looks at the screen (past the guard)."""
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self.layer.tick(self.rig.clock())
