"""The tab strip: one row of chips, one per pending question (and ``Review`` per multi-question
wait).

A chip is plain, required (``●``: a blocking question) or staged (``✓``: an answer is staged;
wins over required); the selected chip is drawn in brackets with the selected attribute. When
the chips do not fit, the strip shows the widest run around the selected chip that fits, with
``‹`` / ``›`` marking hidden chips on either side. Only the chips shown are drawn. The strip is
pure presentation: it is built from names, widths, states and the selected index.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import urwid

from asks.widgets.panel.markup import Markup, Size, clip, cols_of, text_widget, width_of


class ChipState(enum.IntEnum):
    """A chip's state (its value indexes the mark and attribute tables below)."""

    PLAIN = 0
    REQUIRED = 1
    STAGED = 2


_CHIP_MARKS = ("", "● ", "✓ ")
_CHIP_ATTRS = ("panel.tab", "panel.tab.required", "panel.tab.staged")


class TabBar(urwid.Widget):
    """One row of tab chips; when they do not fit, a window around the selected one with
    ``‹`` / ``›`` marks for the hidden ones. Only the chips shown are drawn."""

    _sizing = frozenset([urwid.FLOW])

    def __init__(
        self,
        names: Sequence[str],
        name_widths: Sequence[int],
        states: Sequence[ChipState],
        selected: int,
    ) -> None:
        super().__init__()
        self._names = names
        self._states = states
        self._selected = selected
        marks = [width_of(mark) for mark in _CHIP_MARKS]
        self._widths = [w + 2 + marks[s] for w, s in zip(name_widths, states, strict=True)]

    @property
    def states(self) -> Sequence[ChipState]:
        return self._states

    def with_selected(self, selected: int) -> TabBar:
        """The same chips with another one selected (reuses the chip widths: O(1))."""
        bar = TabBar.__new__(TabBar)
        urwid.Widget.__init__(bar)
        bar._names, bar._states, bar._widths = self._names, self._states, self._widths
        bar._selected = selected
        return bar

    def _chip(self, index: int) -> tuple[str, str]:
        """The attribute and text of chip ``index``."""
        state, name = self._states[index], self._names[index]
        mark = _CHIP_MARKS[state]
        if index == self._selected:
            return "panel.tab.selected", f"[{mark}{name}]"
        return _CHIP_ATTRS[state], f" {mark}{name} "

    def rows(self, size: Size, focus: bool = False) -> int:
        return 1

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        return text_widget(self._markup(cols_of(size)), wrap="clip").render((cols_of(size),))

    def _markup(self, cols: int) -> Markup:
        widths = self._widths
        if sum(widths) <= cols:
            return [self._chip(i) for i in range(len(widths))] or ""
        start, end = self._window(widths, max(1, cols - 2))
        shown: list[Markup] = [("panel.tab.more", "‹" if start > 0 else " ")]
        for index in range(start, end + 1):
            attr, text = self._chip(index)
            shown.append((attr, clip(text, cols - 2)))
        shown.append(("panel.tab.more", "›" if end < len(widths) - 1 else " "))
        return shown

    def _window(self, widths: Sequence[int], room: int) -> tuple[int, int]:
        """The widest run of chips around the selected one that fits in ``room`` columns."""
        start = end = self._selected
        used = widths[self._selected]
        grew = True
        while grew:
            grew = False
            if end + 1 < len(widths) and used + widths[end + 1] <= room:
                end, used, grew = end + 1, used + widths[end + 1], True
            if start > 0 and used + widths[start - 1] <= room:
                start, used, grew = start - 1, used + widths[start - 1], True
        return start, end
