"""Widget memo: the panel's widgets kept across refreshes, by the inputs they were built from.

A refresh rebuilds the panel's view from the host's state; asking the memo instead of building
returns the very widget built last time for the same inputs, so urwid's canvas cache still
holds its canvas and a redraw touches only what changed. The memo is a bounded cache: it is
emptied when it grows past its limit, which costs one rebuild and never changes what is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import urwid

from asks.core.i18n import language
from asks.widgets.panel.markup import Markup, W, frozen, text_widget


class Memo:
    """Widgets by the inputs they were built from, kept across refreshes.

    A widget whose inputs did not change is reused rather than rebuilt, so urwid's canvas
    cache still holds its canvas and a refresh redraws only what changed. Keys must name every
    input of the widget (and its role, so that one widget is never shown twice). The memo is
    emptied when it grows past ``limit`` entries.
    """

    def __init__(self, limit: int = 256) -> None:
        self._limit = limit
        self._widgets: dict[Hashable, urwid.Widget] = {}

    def get(self, key: Hashable, build: Callable[[], W]) -> W:
        """The widget kept under ``key``, or a new one from ``build()`` (per language: a
        language switch rebuilds what is shown)."""
        key = (language(), key)
        widget = self._widgets.get(key)
        if widget is None:
            if len(self._widgets) >= self._limit:
                self._widgets.clear()
            widget = self._widgets[key] = build()
        return widget  # type: ignore[return-value]  # a key always maps to one widget type

    def text(self, key: Hashable, markup: Markup, wrap: str = "space") -> urwid.Text:
        """A :class:`urwid.Text` of ``markup`` (``key`` tells apart equal texts)."""
        return self.get(("text", key, frozen(markup), wrap), lambda: text_widget(markup, wrap))
