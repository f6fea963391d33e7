"""How many rows the question panel may take: pure policy, no terminal.

The layer (:class:`~asks.widgets.layer.AsksLayer`) sits above the embedder's chat editor and
takes rows from whatever the embedder draws around it. :class:`PanelSpace` caps the panel for a
screen of a given height so that the editor (every row of the draft), an optional prompt and
``reserve`` further rows of the embedder (by default one status line and one transcript row)
always stay on screen; the panel's question then scrolls inside the cap (the focused row kept in
view by the panel's frame).

* While the panel does not have the keyboard it takes at most ``share`` of the screen's rows
  (default half), never less than :data:`MIN_PANEL_ROWS` (border, tab bar, one option row and
  the key hints) when that much is left.
* While it has the keyboard it may take every row the editor, prompt and reserve leave.
* It never takes more than those rows, whatever the share.
"""

from __future__ import annotations

import math
from typing import Final

import attrs

__all__ = ["DEFAULT_PANEL_SHARE", "DEFAULT_RESERVE", "MIN_PANEL_ROWS", "PanelSpace"]

DEFAULT_PANEL_SHARE: Final = 0.5
DEFAULT_RESERVE: Final = 2  # the embedder's rows kept besides the editor: status + 1 transcript
MIN_PANEL_ROWS: Final = 5  # top border, tab bar, one option row, key hints, bottom border
MIN_CAP: Final = 3  # the panel widget's own floor (its frame without a window)


def _share(value: float) -> float:
    if not (isinstance(value, int | float) and math.isfinite(value) and 0 < value <= 1):
        raise ValueError(f"panel share must be a number in (0, 1], not {value!r}")
    return float(value)


@attrs.frozen
class PanelSpace:
    """The panel's cap: ``share`` of the screen while passive (0 < share <= 1), ``reserve``
    rows of the embedder kept visible besides the editor and prompt. While passive the panel
    takes at most ``share`` of the screen (never less than five rows while that much is
    left); while it has the keyboard, every row the editor, prompt and reserve leave. A
    program with a header line as well passes ``PanelSpace(reserve=3)``."""

    share: float = attrs.field(default=DEFAULT_PANEL_SHARE, converter=_share)
    reserve: int = DEFAULT_RESERVE

    def panel_rows(self, screen_rows: int, below: int, *, focused: bool) -> int:
        """The most rows the panel may take on a screen of ``screen_rows`` rows when ``below``
        rows (the editor with its draft, a prompt) are drawn under it; ``focused``: the panel
        has the keyboard."""
        room = max(MIN_CAP, screen_rows - self.reserve - below)
        if focused:
            return room
        return min(room, max(MIN_PANEL_ROWS, math.floor(screen_rows * self.share)))
