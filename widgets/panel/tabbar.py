"""The tab strip: one row of chips, one per pending question (and ``Review`` per multi-question
wait).

A chip is plain, required (``●``: a blocking question) or staged (``✓``: an answer is staged;
wins over required); the selected chip is drawn in brackets with the selected attribute. When
the chips do not fit, the strip shows the widest run around the selected chip that fits, with
``‹`` / ``›`` marking hidden chips on either side. Only the chips shown are read and drawn.
The strip is pure presentation: it is built from names, a chip's state by index, and the
selected index.
"""

from __future__ import annotations

import enum
import itertools
import operator
from collections.abc import Callable, Sequence
from typing import overload

import urwid

from asks.widgets.panel.markup import Markup, Size, clip, cols_of, text_widget, width_of


class ChipState(enum.IntEnum):
    """A chip's state (its value indexes the mark and attribute tables below)."""

    PLAIN = 0
    REQUIRED = 1
    STAGED = 2


_CHIP_MARKS = ("", "● ", "✓ ")
_CHIP_ATTRS = ("panel.tab", "panel.tab.required", "panel.tab.staged")


class ChipNames(Sequence[str]):
    """The names of ``count`` chips: a chip's *base* (its question's header, ``Review``) as
    ``bases_of(start, stop)`` gives the bases of chips ``start`` to ``stop - 1``; a base that
    several chips share is numbered from its second use in chip order (``Versioning``,
    ``Versioning 2``).

    Made when read, and kept: reading chip ``i`` makes the bases of the chips up to ``i`` that
    are not made yet (one ``bases_of`` call; the numbering of chip ``i`` needs the bases
    before it, and no others), then numbers chip ``i`` by a C-speed count of its base among
    them. The tab bar reads the chips it shows only, so a new tab list costs the bases up to
    the last chip shown: with the first tab selected (a resumed hub), a screen's width of
    them, not one per tab (issue 30)."""

    __slots__ = ("_bases", "_bases_of", "_count", "_made")

    def __init__(self, count: int, bases_of: Callable[[int, int], list[str]]) -> None:
        self._count = count
        self._bases_of = bases_of
        self._bases: list[str] = []  # the bases of chips 0 … len - 1, made so far
        self._made: dict[int, str] = {}

    @classmethod
    def of(cls, bases: list[str]) -> ChipNames:
        """The names of chips whose bases are all known (``bases``, not copied)."""
        names = cls(len(bases), lambda start, stop: bases[start:stop])
        names._bases = bases
        return names

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        at = range(self._count)[index]  # a negative index counted from the end
        name = self._made.get(at)
        if name is None:
            bases = self._bases
            if at >= len(bases):
                made = self._bases_of(len(bases), at + 1)
                assert len(made) == at + 1 - len(bases), "bases_of gave the wrong count"
                bases += made
            base = bases[at]
            uses = operator.countOf(itertools.islice(bases, at), base) + 1
            name = self._made[at] = base if uses == 1 else f"{base} {uses}"
        return name


class TabBar(urwid.Widget):
    """One row of tab chips; when they do not fit, a window around the selected one with
    ``‹`` / ``›`` marks for the hidden ones.

    Only the chips shown are read: a chip's state and width are asked for (``state_of``,
    once per chip and bar) while the window grows around the selected chip, so drawing the
    bar costs the same with 10 or 5,000 tabs."""

    _sizing = frozenset([urwid.FLOW])

    def __init__(
        self,
        names: Sequence[str],
        state_of: Callable[[int], ChipState],
        selected: int,
    ) -> None:
        super().__init__()
        self._names = names
        self._state_of = state_of
        self._selected = selected
        self._chips: dict[int, tuple[ChipState, int]] = {}  # index → its state and width

    def with_selected(self, selected: int) -> TabBar:
        """The same chips with another one selected (reuses the chips read: O(1))."""
        bar = TabBar.__new__(TabBar)
        urwid.Widget.__init__(bar)
        bar._names, bar._state_of, bar._chips = self._names, self._state_of, self._chips
        bar._selected = selected
        return bar

    def state(self, index: int) -> ChipState:
        """The state of chip ``index`` (read once per bar)."""
        return self._read(index)[0]

    def _width(self, index: int) -> int:
        return self._read(index)[1]

    def _read(self, index: int) -> tuple[ChipState, int]:
        chip = self._chips.get(index)
        if chip is None:
            state = self._state_of(index)
            width = width_of(self._names[index]) + 2 + width_of(_CHIP_MARKS[state])
            chip = self._chips[index] = (state, width)
        return chip

    def _chip(self, index: int) -> tuple[str, str]:
        """The attribute and text of chip ``index``."""
        state, name = self.state(index), self._names[index]
        mark = _CHIP_MARKS[state]
        if index == self._selected:
            return "panel.tab.selected", f"[{mark}{name}]"
        return _CHIP_ATTRS[state], f" {mark}{name} "

    def rows(self, size: Size, focus: bool = False) -> int:
        return 1

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        return text_widget(self._markup(cols_of(size)), wrap="clip").render((cols_of(size),))

    def _markup(self, cols: int) -> Markup:
        count = len(self._names)
        # a chip is at least 3 columns wide: more chips than that cannot all fit
        if count * 3 <= cols and sum(self._width(i) for i in range(count)) <= cols:
            return [self._chip(i) for i in range(count)] or ""
        start, end = self._window(count, max(1, cols - 2))
        shown: list[Markup] = [("panel.tab.more", "‹" if start > 0 else " ")]
        for index in range(start, end + 1):
            attr, text = self._chip(index)
            shown.append((attr, clip(text, cols - 2)))
        shown.append(("panel.tab.more", "›" if end < count - 1 else " "))
        return shown

    def _window(self, count: int, room: int) -> tuple[int, int]:
        """The widest run of chips around the selected one that fits in ``room`` columns."""
        start = end = self._selected
        used = self._width(self._selected)
        grew = True
        while grew:
            grew = False
            if end + 1 < count and used + self._width(end + 1) <= room:
                end, used, grew = end + 1, used + self._width(end + 1), True
            if start > 0 and used + self._width(start - 1) <= room:
                start, used, grew = start - 1, used + self._width(start - 1), True
        return start, end
