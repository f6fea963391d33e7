"""The expanded panel's frame: border, sticky heading, scrolled body, sticky footer.

:class:`Frame` is a flow widget built on every refresh from a :class:`Border`, the tab bar, the
question heading, a :class:`~asks.widgets.panel.body.Body` and the footer. Per width it makes
one :class:`Plan`: when the whole panel would be taller than ``max_rows``, the tab bar (and the
question, if it still fits with three body rows) and the footer stay put and the middle is a
window onto the rest, scrolled so the draft's cursor row stays visible; ``↑ ↓ ↕`` on the right
border mark hidden rows, and :meth:`Frame.page` scrolls by a window (PgUp/PgDn). Below
``2 * BORDER_COLS + 4`` columns the frame drops its border.

The border is drawn in one of two :class:`Glyphs` styles (:data:`SOLID` while the panel has the
keyboard, :data:`DOTTED` while it does not) with the attribute and title the panel chose. The
scroll position lives in a :class:`Scroll` per tab that outlives frames (view state only; the
host has no notion of it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import attrs
import urwid

from asks.widgets.panel.body import Body
from asks.widgets.panel.markup import (
    BORDER_COLS,
    Markup,
    Size,
    clip,
    cols_of,
    frozen,
    rows_of,
    text_widget,
    width_of,
)
from asks.widgets.panel.memo import Memo


@attrs.frozen
class Glyphs:
    """The characters of one border style."""

    top_left: str
    top_right: str
    bottom_left: str
    bottom_right: str
    horizontal: str
    vertical: str


SOLID = Glyphs("┌", "┐", "└", "┘", "─", "│")
DOTTED = Glyphs("┌", "┐", "└", "┘", "╌", "╎")


@attrs.define
class Scroll:
    """Scroll state of one tab's body (presentational; the host has no setter for it)."""

    top: int = 0
    anchor: Hashable = None  # the cursor span last brought into view


@attrs.frozen
class Plan:
    """Where everything of an expanded panel goes at one width."""

    inner: int
    bordered: bool
    sticky: tuple[urwid.Widget, ...]
    scrolled: urwid.Widget
    footer: urwid.Widget
    top: int
    window: int
    height: int

    @property
    def total(self) -> int:
        sticky = sum(rows_of(w, self.inner) for w in self.sticky)
        borders = 2 if self.bordered else 0
        return borders + sticky + self.window + rows_of(self.footer, self.inner)


@attrs.frozen
class Border:
    glyphs: Glyphs
    attr: str
    title: Markup


class Frame(urwid.Widget):
    """An expanded panel: border, sticky heading, scrolled body, sticky footer (flow)."""

    _sizing = frozenset([urwid.FLOW])
    _selectable = True

    def __init__(
        self,
        *,
        border: Border,
        tabbar: urwid.Widget,
        question: urwid.Widget,
        body: Body,
        footer: urwid.Widget,
        max_rows: int,
        scroll: Scroll,
        anchor: Hashable,
        keyboard: bool,
        memo: Memo,
    ) -> None:
        super().__init__()
        self.memo = memo  # the panel's: composite widgets and border pieces are kept in it
        self.keyboard = keyboard  # the host says the panel owns the keyboard
        self.border = border
        self.tabbar = tabbar
        self.question = question
        self.body = body
        self.footer = footer
        self.max_rows = max_rows
        self.scroll = scroll
        self.anchor = anchor
        self._plans: dict[int, Plan] = {}  # per width; a frame is rebuilt on every change

    def rows(self, size: Size, focus: bool = False) -> int:
        return self.plan(cols_of(size)).total

    def plan(self, cols: int) -> Plan:
        """The layout for ``cols`` columns, computed once per frame and width."""
        plan = self._plans.get(cols)
        if plan is None:
            plan = self._plans[cols] = self._make_plan(cols)
        return plan

    def _make_plan(self, cols: int) -> Plan:
        bordered = cols >= 2 * BORDER_COLS + 4
        inner = cols - 2 * BORDER_COLS if bordered else cols
        borders = 2 if bordered else 0
        footer_rows = rows_of(self.footer, inner)
        body = self._body_widget(inner)
        body_rows = rows_of(body, inner)
        fixed = borders + rows_of(self.tabbar, inner) + footer_rows
        question_rows = rows_of(self.question, inner)
        sticky: tuple[urwid.Widget, ...]
        if fixed + question_rows + min(body_rows, 3) <= self.max_rows:
            sticky, scrolled, offset = (self.tabbar, self.question), body, 0
            fixed += question_rows
        else:
            sticky, offset = (self.tabbar,), question_rows
            scrolled = self.memo.get(
                ("scrolled", self.question, body),
                lambda: urwid.Pile([self.question, body], focus_item=1),
            )
        height = offset + body_rows
        window = min(height, max(1, self.max_rows - fixed))
        top = self._scroll_top(inner, offset, height, window)
        return Plan(inner, bordered, sticky, scrolled, self.footer, top, window, height)

    def _body_widget(self, inner: int) -> urwid.Widget:
        """The body at ``inner`` columns. Its widgets are kept while the rows are the same
        ones (they are updated in place); only the options' focus is moved."""
        body, items = self.body, self.body.items
        options = self.memo.get(("options", items), lambda: urwid.Pile(items))
        if items and options.focus_position != body.focus:
            options.focus_position = body.focus
        key = ("body", body.lead, options, body.preview, body.split(inner))
        return self.memo.get(key, lambda: body.widget(options, inner))

    def _scroll_top(self, inner: int, offset: int, height: int, window: int) -> int:
        """Clamp the saved scroll; bring the cursor into view when it moved since last time."""
        top = min(max(self.scroll.top, 0), height - window)
        span = self.body.cursor_span(inner)
        if span is not None and self.scroll.anchor != (self.anchor, span, window):
            start, rows = span[0] + offset, span[1]
            lowest = max(0, start + min(rows, window) - window)  # least scroll showing it
            before = self.scroll.anchor
            resized = isinstance(before, tuple) and before[2] != window
            if start < top:
                top = start
            elif start + min(rows, window) > top + window or resized:
                top = lowest  # a new window size: as much of the question as fits above
            self.scroll.anchor = (self.anchor, span, window)
        self.scroll.top = top
        return top

    def page(self, cols: int, pages: int) -> None:
        """Scroll the body by ``pages`` windows (PgUp/PgDn)."""
        plan = self.plan(cols)
        step = max(1, plan.window - 1)
        self.scroll.top = min(max(plan.top + pages * step, 0), plan.height - plan.window)
        self._plans.clear()
        self._invalidate()

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        cols = cols_of(size)
        plan = self.plan(cols)
        middle = self._middle(plan, focus and self.keyboard)
        if not plan.bordered:
            return middle
        rows = middle.rows()
        joined = urwid.CanvasJoin(
            [
                (self._side(rows, left=True), None, False, BORDER_COLS),
                (middle, None, True, plan.inner),
                (self._side(rows, left=False, plan=plan), None, False, BORDER_COLS),
            ]
        )
        return urwid.CanvasCombine(
            [
                (self._line("top", cols, self._top_line).render((cols,)), None, False),
                (joined, None, True),
                (self._line("bottom", cols, self._bottom_line).render((cols,)), None, False),
            ]
        )

    def _middle(self, plan: Plan, focus: bool) -> urwid.CompositeCanvas:
        size = (plan.inner,)
        body = urwid.CompositeCanvas(plan.scrolled.render(size, focus=focus))
        if plan.window < plan.height:
            body.trim(plan.top, plan.window)
        parts: list[tuple[urwid.Canvas, Hashable, bool]] = [
            (w.render(size), None, False) for w in plan.sticky
        ]
        parts.append((body, None, True))
        parts.append((plan.footer.render(size), None, False))
        return urwid.CanvasCombine(parts)

    def _side(self, rows: int, *, left: bool, plan: Plan | None = None) -> urwid.Canvas:
        marks = self._marks(plan) if plan is not None else {}
        glyphs, attr = self.border.glyphs, self.border.attr
        key = ("side", rows, left, tuple(sorted(marks.items())), glyphs, attr)
        side = self.memo.get(key, lambda: text_widget(self._side_markup(rows, left, marks), "clip"))
        return side.render((BORDER_COLS,))

    def _side_markup(self, rows: int, left: bool, marks: dict[int, str]) -> Markup:
        bar = self.border.glyphs.vertical
        lines: list[Markup] = []
        for row in range(rows):
            mark = marks.get(row)
            if mark is not None:
                lines.append([" ", ("panel.scroll", mark)])
            else:
                lines.append((self.border.attr, f"{bar} " if left else f" {bar}"))
        markup: list[Markup] = []
        for i, line in enumerate(lines):
            markup.extend(["\n"] if i else [])
            markup.append(line)
        return markup

    @staticmethod
    def _marks(plan: Plan) -> dict[int, str]:
        """Overflow marks on the right border: ↑ more above, ↓ more below, ↕ both."""
        first = sum(rows_of(w, plan.inner) for w in plan.sticky)
        last = first + plan.window - 1
        above, below = plan.top > 0, plan.top + plan.window < plan.height
        if above and below and first == last:
            return {first: "↕"}
        marks = {first: "↑"} if above else {}
        if below:
            marks[last] = "↓"
        return marks

    def _line(self, name: str, cols: int, build: Callable[[int], urwid.Text]) -> urwid.Text:
        """The top or bottom border line at ``cols``, kept while the border is unchanged."""
        border = self.border
        key = (name, cols, border.glyphs, border.attr, frozen(border.title))
        return self.memo.get(key, lambda: build(cols))

    def _top_line(self, cols: int) -> urwid.Text:
        """``┌─ Title ─────┐``: the title is clipped when the panel is narrow."""
        g, attr = self.border.glyphs, self.border.attr
        plain = str(urwid.Text(self.border.title).text)
        width, room = width_of(plain), max(0, cols - 5)
        title: Markup = self.border.title if width <= room else clip(plain, room)
        fill = g.horizontal * max(0, room - min(width, room))
        corner = (attr, f"{g.top_left}{g.horizontal} ")
        return text_widget([corner, title, " ", (attr, fill + g.top_right)], "clip")

    def _bottom_line(self, cols: int) -> urwid.Text:
        g = self.border.glyphs
        line = g.bottom_left + g.horizontal * max(0, cols - 2) + g.bottom_right
        return text_widget((self.border.attr, line), "clip")
