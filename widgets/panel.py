"""The question panel: an urwid view of a :class:`~asks.host.host.QuestionHost`.

:class:`QuestionPanel` renders the host's state and turns keys into host commands; it keeps no
policy of its own (DESIGN §2, §5). The app subscribes :meth:`QuestionPanel.refresh` to the host
(``host.subscribe(panel.refresh)``); every render reads only what the last refresh built.

What it shows, by ``host.mode`` and focus:

* **expanded** — a bordered box: tab bar (one chip per pending question, ``●`` on required tabs,
  ``✓`` on staged answers, ``Review`` for multi-question waits, ``‹ ›`` when they overflow), the
  question and its context, the option rows (``›`` cursor, number, label, dimmed description,
  ``[x]`` checks for multi-select), the ``Type something.`` row (an inline multi-line
  :class:`urwid.Edit` while the cursor is on it), ``Next`` for multi-select, notes, the preview
  of the option under the cursor (side by side at ≥ :data:`PREVIEW_SIDE_COLS` columns, stacked
  below that), a notice and key hints. The border is solid while the panel has the keyboard,
  dotted while it does not, and carries the warning attribute and ``⚠ required`` while a
  blocking question is pending.
* When taller than ``max_rows`` the tab bar (and the question, if it fits) and the footer stay
  put and the middle scrolls so the draft's cursor row stays visible; ``↑ ↓ ↕`` on the right
  border mark hidden rows. PgUp/PgDn scroll by a page.
* **collapsed** — one dim hint row. **paused** — a two-row pending card.

Keys (:meth:`QuestionPanel.keypress`): only while the host says the panel owns the keyboard and
the arrival guard routes the key to the panel (else it is returned, so the app can deliver it).
When the cursor is on ``Type something.`` or the notes editor is open, the key context is
``"reply"``: its bindings run first (Enter confirms, Alt+Enter inserts a newline), then the editor
gets the key, and keys it does not use fall back to the ``"panel"`` context. Otherwise ``"panel"``
bindings become ``host.command_nowait(PanelCommand, tab)``; digits 1–4 only move the cursor.
Unhandled keys (the focus toggle, collapse, Ctrl+G) are returned, as urwid expects.

All model text goes through :mod:`asks.sanitize` before it reaches a widget.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeAlias, TypeVar

import attrs
import urwid

from asks.core.drafts import Draft, custom_row, next_row, row_count
from asks.core.model import Question, QuestionRef
from asks.core.tabs import ReviewKey, TabKey
from asks.host.host import PanelMode, QuestionHost, Wait
from asks.sanitize import sanitize_line, sanitize_text
from asks.widgets.keymap import OPTION_JUMPS, PANEL_COMMANDS, Keymap, pretty_key

Size: TypeAlias = tuple[()] | tuple[int] | tuple[int, int]
FlowSize: TypeAlias = tuple[int]
Markup: TypeAlias = str | tuple[Hashable, "Markup"] | list["Markup"]
PaletteEntry: TypeAlias = tuple[str, str, str, str, str, str]
W = TypeVar("W", bound=urwid.Widget)

PREVIEW_SIDE_COLS = 100  # at least this many columns: preview beside the options
DEFAULT_MAX_ROWS = 14
_BORDER_COLS = 2  # "│ " on the left, " │" on the right
_OPTION_PREFIX = 5  # "› 1. "
_CHECK_PREFIX = 4  # "[x] "
_NOTES_CAPTION = "Notes: "
_PLACEHOLDER = "Type something."

# (name, foreground, background, mono, foreground high, background high)
PALETTE: list[PaletteEntry] = [
    ("panel.border", "light gray", "default", "default", "#aaa", "default"),
    ("panel.border.focus", "light cyan", "default", "bold", "#5af", "default"),
    ("panel.border.warning", "yellow,bold", "default", "bold,underline", "#fa0,bold", "default"),
    ("panel.title", "white,bold", "default", "bold", "#fff,bold", "default"),
    ("panel.warning", "yellow,bold", "default", "bold,standout", "#fa0,bold", "default"),
    ("panel.tab", "light gray", "default", "default", "#bbb", "default"),
    ("panel.tab.required", "yellow", "default", "underline", "#fc6", "default"),
    ("panel.tab.selected", "black", "light gray", "standout", "#000", "#ccc"),
    ("panel.tab.staged", "light green", "default", "default", "#8d8", "default"),
    ("panel.tab.more", "dark gray", "default", "default", "#777", "default"),
    ("panel.question", "white,bold", "default", "bold", "#fff,bold", "default"),
    ("panel.context", "dark gray", "default", "default", "#999", "default"),
    ("panel.option", "light gray", "default", "default", "#ddd", "default"),
    ("panel.option.focus", "white,bold", "default", "standout", "#fff,bold", "#335"),
    ("panel.cursor", "light cyan,bold", "default", "bold", "#5af,bold", "default"),
    ("panel.description", "dark gray", "default", "default", "#888", "default"),
    ("panel.check", "light green", "default", "bold", "#8d8", "default"),
    ("panel.placeholder", "dark gray", "default", "default", "#777", "default"),
    ("panel.editor", "white", "default", "underline", "#fff", "default"),
    ("panel.next", "light cyan", "default", "bold", "#5af", "default"),
    ("panel.notes", "brown", "default", "underline", "#ca8", "default"),
    ("panel.preview", "light gray", "dark gray", "standout", "#ddd", "#333"),
    ("panel.preview.title", "dark gray", "default", "bold", "#999", "default"),
    ("panel.answer", "light green", "default", "bold", "#8d8", "default"),
    ("panel.unanswered", "dark gray", "default", "underline", "#888", "default"),
    ("panel.notice", "light magenta", "default", "bold", "#d8f", "default"),
    ("panel.hint", "dark gray", "default", "default", "#888", "default"),
    ("panel.scroll", "light cyan,bold", "default", "bold", "#5af,bold", "default"),
    ("panel.dim", "dark gray", "default", "default", "#777", "default"),
    ("panel.card", "light gray", "default", "default", "#bbb", "default"),
]


@attrs.frozen
class _Glyphs:
    """The characters of one border style."""

    top_left: str
    top_right: str
    bottom_left: str
    bottom_right: str
    horizontal: str
    vertical: str


SOLID = _Glyphs("┌", "┐", "└", "┘", "─", "│")
DOTTED = _Glyphs("┌", "┐", "└", "┘", "╌", "╎")


@attrs.define
class _Scroll:
    """Scroll state of one tab's body (presentational; the host has no setter for it)."""

    top: int = 0
    anchor: Hashable = None  # the cursor span last brought into view


def _rows(widget: urwid.Widget, cols: int) -> int:
    """Rows of a flow ``widget`` at ``cols`` (urwid's stubs do not declare ``rows`` on Widget)."""
    rows: int = widget.rows((cols,))  # type: ignore[attr-defined]
    return rows


def _cols(size: Size) -> int:
    return size[0] if size else 0


def _as_tab(tab: Hashable | None) -> TabKey | None:
    return tab if isinstance(tab, QuestionRef | ReviewKey) else None


def _text(markup: Markup, wrap: str = "space") -> urwid.Text:
    return urwid.Text(markup, wrap=wrap)  # type: ignore[arg-type]


def _prefixed(prefix: Markup, width: int, body: urwid.Widget) -> urwid.Columns:
    """A row with a fixed-width prefix column; ``body`` wraps under itself, not the prefix."""
    return urwid.Columns([(width, _text(prefix)), body])


def _frozen(markup: Markup) -> Hashable:
    """``markup`` as a hashable value (lists become tuples), for use in memo keys."""
    if isinstance(markup, list):
        return tuple(_frozen(part) for part in markup)
    if isinstance(markup, tuple):
        return (markup[0], _frozen(markup[1]))
    return markup


class _Memo:
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
        """The widget kept under ``key``, or a new one from ``build()``."""
        widget = self._widgets.get(key)
        if widget is None:
            if len(self._widgets) >= self._limit:
                self._widgets.clear()
            widget = self._widgets[key] = build()
        return widget  # type: ignore[return-value]  # a key always maps to one widget type

    def text(self, key: Hashable, markup: Markup, wrap: str = "space") -> urwid.Text:
        """A :class:`urwid.Text` of ``markup`` (``key`` tells apart equal texts)."""
        return self.get(("text", key, _frozen(markup), wrap), lambda: _text(markup, wrap))


# ============================================================================ tab bar


# A chip's state: plain, required (``●``) or staged (``✓``, wins over required).
_PLAIN, _REQUIRED, _STAGED = 0, 1, 2
_CHIP_MARKS = ("", "● ", "✓ ")
_CHIP_ATTRS = ("panel.tab", "panel.tab.required", "panel.tab.staged")


class _TabBar(urwid.Widget):
    """One row of tab chips; when they do not fit, a window around the selected one with
    ``‹`` / ``›`` marks for the hidden ones. Only the chips shown are drawn."""

    _sizing = frozenset([urwid.FLOW])

    def __init__(
        self, names: Sequence[str], name_widths: Sequence[int], states: Sequence[int], selected: int
    ) -> None:
        super().__init__()
        self._names = names
        self._states = states
        self._selected = selected
        marks = [_width(mark) for mark in _CHIP_MARKS]
        self._widths = [w + 2 + marks[s] for w, s in zip(name_widths, states, strict=True)]

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
        return _text(self._markup(_cols(size)), wrap="clip").render((_cols(size),))

    def _markup(self, cols: int) -> Markup:
        widths = self._widths
        if sum(widths) <= cols:
            return [self._chip(i) for i in range(len(widths))] or ""
        start, end = self._window(widths, max(1, cols - 2))
        shown: list[Markup] = [("panel.tab.more", "‹" if start > 0 else " ")]
        for index in range(start, end + 1):
            attr, text = self._chip(index)
            shown.append((attr, _clip(text, cols - 2)))
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


def _unbreakable(hints: str) -> str:
    """Hint text that wraps only between hints (no-break spaces inside each one)."""
    return "\u00a0· ".join(part.replace(" ", "\u00a0") for part in hints.split(" · "))


def _width(text: str) -> int:
    return urwid.calc_width(text, 0, len(text))


def _clip(text: str, cols: int) -> str:
    """``text`` cut to ``cols`` screen columns, with ``…`` when cut."""
    if _width(text) <= cols:
        return text
    out = ""
    for char in text:
        if _width(out + char) + 1 > cols:
            break
        out += char
    return out + "…"


# ============================================================================ rows


_UNSET = object()  # inputs no row was drawn for


class _Row(urwid.Widget):
    """A selectable row kept across refreshes (one per question and row): a fixed-width
    prefix column and a body that wraps under itself.

    It draws exactly like ``urwid.Columns([(width, prefix), body])`` (which it keeps, and uses
    when the body gets no room) but without the general column layout, which is most of the
    cost of redrawing a row. :meth:`show` re-sets the texts only when the row's inputs changed,
    so the row keeps its identity (the options :class:`urwid.Pile` holding it can be reused)
    and unchanged rows keep their cached canvases.
    """

    _sizing = frozenset([urwid.FLOW])

    def __init__(self, width: int) -> None:
        super().__init__()
        self._width = width
        self._prefix = urwid.Text("")
        self._text = urwid.Text("")
        self._body: urwid.Widget = self._text
        self._columns = urwid.Columns([(width, self._prefix), self._text])
        self._inputs: Hashable = _UNSET

    def show(
        self, inputs: Hashable, draw: Callable[[], tuple[Markup, Markup | urwid.Widget]]
    ) -> urwid.Widget:
        """The row for ``inputs``; ``draw()`` gives its prefix markup and its body (markup, or
        a widget such as an editor) and is called only when the inputs changed."""
        if inputs != self._inputs:
            self._inputs = inputs
            prefix, body = draw()
            self._prefix.set_text(prefix)
            self._set_body(body)
        return self

    def _set_body(self, body: Markup | urwid.Widget) -> None:
        if not isinstance(body, urwid.Widget):
            self._text.set_text(body)
            body = self._text
        if body is not self._body:
            self._body = body
            columns = self._columns
            columns.contents[1] = (body, columns.options())
            columns.focus_position = 1 if body.selectable() else 0
            self._invalidate()

    def selectable(self) -> bool:
        return self._body.selectable()

    def rows(self, size: Size, focus: bool = False) -> int:
        cols = _cols(size)
        if cols <= self._width:
            rows: int = self._columns.rows((cols,), focus)
            return rows
        body: int = self._body.rows(  # type: ignore[attr-defined]
            (cols - self._width,), focus and self.selectable()
        )
        return max(_rows(self._prefix, self._width), body)

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        cols = _cols(size)
        if cols <= self._width:
            return self._columns.render((cols,), focus)
        on_body = self.selectable()  # the column in focus, as in the Columns
        prefix = self._prefix.render((self._width,), focus and not on_body)
        body = self._body.render((cols - self._width,), focus and on_body)
        return urwid.CanvasJoin(
            [(prefix, 0, not on_body, self._width), (body, 1, on_body, cols - self._width)]
        )

    def get_cursor_coords(self, size: Size) -> tuple[int, int] | None:
        coords: tuple[int, int] | None = self._columns.get_cursor_coords(size)
        return coords


# ============================================================================ body


@attrs.frozen
class _Body:
    """The scrolling part of an expanded panel, laid out per width.

    ``rows`` are the selectable rows (options, Type something., Next), ``cursor`` indexes the
    draft's cursor row among them (``None``: no cursor, e.g. the Review tab), ``lead`` comes
    before them (context), ``after`` after them (notes), ``preview`` goes beside (wide) or below.
    ``editor`` is the row index holding an active :class:`urwid.Edit` with its prefix width.
    """

    lead: tuple[urwid.Widget, ...]
    rows: tuple[urwid.Widget, ...]
    after: tuple[urwid.Widget, ...] = ()
    preview: urwid.Widget | None = None
    cursor: int | None = None
    editor: tuple[urwid.Edit, int, int] | None = None  # (edit, index in rows+after, prefix)

    def split(self, cols: int) -> tuple[int, int] | None:
        """Column widths (options, preview) when side by side at ``cols``, else ``None``."""
        if self.preview is None or cols + 2 * _BORDER_COLS < PREVIEW_SIDE_COLS:
            return None
        left = (cols - 2 + 1) // 2
        return left, cols - 2 - left

    @property
    def items(self) -> tuple[urwid.Widget, ...]:
        """The rows of the options column: selectable rows, then notes."""
        return self.rows + self.after

    @property
    def focus(self) -> int:
        """The options column's focus: the active editor's row (it shows the caret)."""
        return self.editor[1] if self.editor is not None else 0

    def widget(self, options: urwid.Pile, cols: int) -> urwid.Widget:
        """The body at ``cols`` around ``options``, a :class:`urwid.Pile` of :attr:`items`."""
        split = self.split(cols)
        if split is not None and self.preview is not None:
            main: urwid.Widget = urwid.Columns(
                [(split[0], options), (split[1], self.preview)], dividechars=2
            )
            return urwid.Pile([*self.lead, main], focus_item=len(self.lead))
        tail = [self.preview] if self.preview is not None else []
        return urwid.Pile([*self.lead, options, *tail], focus_item=len(self.lead))

    def editor_cols(self, cols: int) -> int:
        """Width of the active editor at body width ``cols``."""
        split = self.split(cols)
        width = split[0] if split is not None else cols
        prefix = self.editor[2] if self.editor is not None else 0
        return max(1, width - prefix)

    def cursor_span(self, cols: int) -> tuple[int, int] | None:
        """Rows ``(top, height)`` of the cursor row (the caret line when editing)."""
        if self.cursor is None:
            return None
        split = self.split(cols)
        width = split[0] if split is not None else cols
        top = sum(_rows(w, cols) for w in self.lead)
        items = self.items
        index = self.editor[1] if self.editor is not None else self.cursor
        top += sum(_rows(w, width) for w in items[:index])
        if self.editor is not None:
            caret = self.editor[0].get_cursor_coords((self.editor_cols(cols),))
            return top + (caret[1] if caret is not None else 0), 1
        return top, _rows(items[index], width)


# ============================================================================ frame


@attrs.frozen
class _Plan:
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
        sticky = sum(_rows(w, self.inner) for w in self.sticky)
        borders = 2 if self.bordered else 0
        return borders + sticky + self.window + _rows(self.footer, self.inner)


@attrs.frozen
class _Border:
    glyphs: _Glyphs
    attr: str
    title: Markup


class _Frame(urwid.Widget):
    """An expanded panel: border, sticky heading, scrolled body, sticky footer (flow)."""

    _sizing = frozenset([urwid.FLOW])
    _selectable = True

    def __init__(
        self,
        *,
        border: _Border,
        tabbar: urwid.Widget,
        question: urwid.Widget,
        body: _Body,
        footer: urwid.Widget,
        max_rows: int,
        scroll: _Scroll,
        anchor: Hashable,
        keyboard: bool,
        memo: _Memo,
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
        self._plans: dict[int, _Plan] = {}  # per width; a frame is rebuilt on every change

    def rows(self, size: Size, focus: bool = False) -> int:
        return self.plan(_cols(size)).total

    def plan(self, cols: int) -> _Plan:
        """The layout for ``cols`` columns, computed once per frame and width."""
        plan = self._plans.get(cols)
        if plan is None:
            plan = self._plans[cols] = self._make_plan(cols)
        return plan

    def _make_plan(self, cols: int) -> _Plan:
        bordered = cols >= 2 * _BORDER_COLS + 4
        inner = cols - 2 * _BORDER_COLS if bordered else cols
        borders = 2 if bordered else 0
        footer_rows = _rows(self.footer, inner)
        body = self._body_widget(inner)
        body_rows = _rows(body, inner)
        fixed = borders + _rows(self.tabbar, inner) + footer_rows
        question_rows = _rows(self.question, inner)
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
        return _Plan(inner, bordered, sticky, scrolled, self.footer, top, window, height)

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
            if start < top:
                top = start
            elif start + min(rows, window) > top + window:
                top = start + min(rows, window) - window
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
        cols = _cols(size)
        plan = self.plan(cols)
        middle = self._middle(plan, focus and self.keyboard)
        if not plan.bordered:
            return middle
        rows = middle.rows()
        joined = urwid.CanvasJoin(
            [
                (self._side(rows, left=True), None, False, _BORDER_COLS),
                (middle, None, True, plan.inner),
                (self._side(rows, left=False, plan=plan), None, False, _BORDER_COLS),
            ]
        )
        return urwid.CanvasCombine(
            [
                (self._line("top", cols, self._top_line).render((cols,)), None, False),
                (joined, None, True),
                (self._line("bottom", cols, self._bottom_line).render((cols,)), None, False),
            ]
        )

    def _middle(self, plan: _Plan, focus: bool) -> urwid.CompositeCanvas:
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

    def _side(self, rows: int, *, left: bool, plan: _Plan | None = None) -> urwid.Canvas:
        marks = self._marks(plan) if plan is not None else {}
        glyphs, attr = self.border.glyphs, self.border.attr
        key = ("side", rows, left, tuple(sorted(marks.items())), glyphs, attr)
        side = self.memo.get(key, lambda: _text(self._side_markup(rows, left, marks), "clip"))
        return side.render((_BORDER_COLS,))

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
    def _marks(plan: _Plan) -> dict[int, str]:
        """Overflow marks on the right border: ↑ more above, ↓ more below, ↕ both."""
        first = sum(_rows(w, plan.inner) for w in plan.sticky)
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
        key = (name, cols, border.glyphs, border.attr, _frozen(border.title))
        return self.memo.get(key, lambda: build(cols))

    def _top_line(self, cols: int) -> urwid.Text:
        """``┌─ Title ─────┐``: the title is clipped when the panel is narrow."""
        g, attr = self.border.glyphs, self.border.attr
        plain = str(urwid.Text(self.border.title).text)
        width, room = _width(plain), max(0, cols - 5)
        title: Markup = self.border.title if width <= room else _clip(plain, room)
        fill = g.horizontal * max(0, room - min(width, room))
        corner = (attr, f"{g.top_left}{g.horizontal} ")
        return _text([corner, title, " ", (attr, fill + g.top_right)], "clip")

    def _bottom_line(self, cols: int) -> urwid.Text:
        g = self.border.glyphs
        line = g.bottom_left + g.horizontal * max(0, cols - 2) + g.bottom_right
        return _text((self.border.attr, line), "clip")


# ============================================================================ the panel


class QuestionPanel(urwid.WidgetWrap[urwid.Widget]):
    """The question panel over ``host`` (see module docstring). Flow widget."""

    def __init__(
        self,
        host: QuestionHost,
        keymap: Keymap,
        clock: Callable[[], float],
        *,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> None:
        self._host = host
        self._keymap = keymap
        self._clock = clock
        self._max_rows = max_rows
        self._reply = urwid.Edit(multiline=True, placeholder=("panel.placeholder", _PLACEHOLDER))
        self._notes = urwid.Edit(multiline=True)
        self._reply_row = urwid.AttrMap(self._reply, "panel.editor")
        self._notes_row = urwid.AttrMap(self._notes, "panel.editor")
        self._memo = _Memo()
        self._rows: dict[tuple[QuestionRef, int], _Row] = {}
        self._kept_for: tuple[TabKey, ...] = ()  # the tabs self._rows was pruned for
        self._shown: TabKey | None = None
        self._notes_open = False
        self._scrolls: dict[TabKey, _Scroll] = {}
        self._headers: dict[QuestionRef, str] = {}
        self._names: tuple[tuple[TabKey, ...], list[str], list[int]] = ((), [], [])
        self._frame: _Frame | None = None
        super().__init__(urwid.Pile([]))
        self.refresh()

    # ------------------------------------------------------------------ state for the app
    @property
    def max_rows(self) -> int:
        return self._max_rows

    @max_rows.setter
    def max_rows(self, rows: int) -> None:
        """The app clamps this, e.g. to half the screen height (rebuilds only on change)."""
        rows = max(3, rows)
        if rows != self._max_rows:
            self._max_rows = rows
            self.refresh()

    @property
    def key_context(self) -> str:
        """The keymap context of the next key: ``"reply"`` while an editor is active."""
        return "reply" if self._editing(self._host.selected) else "panel"

    @property
    def notes_open(self) -> bool:
        return self._notes_open

    def selectable(self) -> bool:
        return True

    def refresh(self) -> None:
        """Re-read the host and rebuild the view (subscribe this to the host).

        Parts whose inputs did not change are reused (see :class:`_Memo` and :class:`_Row`).
        """
        self._sync_editors()
        self._frame = None
        host = self._host
        if not host.tabs:
            self._w = urwid.Pile([])
        elif host.mode is PanelMode.COLLAPSED:
            self._w = self._collapsed()
        elif host.mode is PanelMode.PAUSED and not host.focus.panel_focused:
            self._w = self._paused()
        else:
            self._frame = self._expanded()
            self._w = self._frame

    def _sync_editors(self) -> None:
        """Load the editors from the selected tab's draft when the tab or the draft changed."""
        tab = self._host.selected
        self._scrolls = {t: s for t, s in self._scrolls.items() if t in self._host.tabs}
        self._prune_rows()
        draft = self._host.draft(tab) if isinstance(tab, QuestionRef) else Draft()
        if tab != self._shown:
            self._shown, self._notes_open = tab, False
            self._reply.set_edit_text(draft.custom_text)
            self._reply.set_edit_pos(min(draft.caret, len(draft.custom_text)))
        if self._reply.edit_text != draft.custom_text:
            self._reply.set_edit_text(draft.custom_text)
        if self._notes.edit_text != draft.notes:
            self._notes.set_edit_text(draft.notes)

    def _prune_rows(self) -> None:
        """Forget the kept rows of questions that are no longer pending."""
        tabs = self._host.tabs
        if tabs is not self._kept_for:
            self._kept_for, pending = tabs, set(tabs)
            self._rows = {key: row for key, row in self._rows.items() if key[0] in pending}

    # ------------------------------------------------------------------ compact modes
    def _pending_count(self) -> int:
        return sum(isinstance(t, QuestionRef) for t in self._host.tabs)

    def _collapsed(self) -> urwid.Widget:
        count = self._pending_count()
        noun = "question" if count == 1 else "questions"
        hint = self._keymap.hints("chat", ["collapse"], {"collapse": "expand"})
        hint = hint or self._keymap.hints("chat", ["focus_toggle"], {"focus_toggle": "open"})
        return _text(("panel.dim", f"▸ {count} {noun} pending · {hint}"), "ellipsis")

    def _paused(self) -> urwid.Widget:
        refs = [t for t in self._host.tabs if isinstance(t, QuestionRef)]
        headers = " · ".join(sanitize_line(self._host.question(r).spec.header) for r in refs[:3])
        more = f" · +{len(refs) - 3}" if len(refs) > 3 else ""
        noun = "question" if len(refs) == 1 else "questions"
        hint = self._keymap.hints(
            "chat", ["focus_toggle", "collapse"], {"focus_toggle": "to answer"}
        )
        return urwid.Pile(
            [
                _text([("panel.card", f"‖ {len(refs)} {noun} pending: "),
                       ("panel.title", headers + more)], "ellipsis"),
                _text(("panel.hint", f"  {hint}"), "ellipsis"),
            ]
        )

    # ------------------------------------------------------------------ expanded
    def _expanded(self) -> _Frame:
        host = self._host
        tab = host.selected
        assert tab is not None
        if isinstance(tab, ReviewKey):
            question, body, anchor = self._review(tab)
        else:
            question, body, anchor = self._question(tab)
        scroll = self._scrolls.setdefault(tab, _Scroll())
        return _Frame(
            border=self._border(),
            tabbar=self._tabbar(),
            question=question,
            body=body,
            footer=self._footer(tab),
            max_rows=self._max_rows,
            scroll=scroll,
            anchor=anchor,
            keyboard=host.focus.panel_focused,
            memo=self._memo,
        )

    def _border(self) -> _Border:
        host = self._host
        focused = host.focus.panel_focused
        glyphs = SOLID if focused else DOTTED
        count = self._pending_count()
        title: list[Markup] = [("panel.title", f"Questions ({count})")]
        if host.live_waits:
            title.append(("panel.warning", " ⚠ required"))
            if host.focus.claim_waiting:
                title.append(("panel.warning", " · after the open prompt"))
            return _Border(glyphs, "panel.border.warning", title)
        return _Border(glyphs, "panel.border.focus" if focused else "panel.border", title)

    def _tabbar(self) -> _TabBar:
        """The tab bar; rebuilt only when the tabs, a chip's state or the selection changed."""
        host = self._host
        tabs = host.tabs
        states = tuple(self._chip_state(tab) for tab in tabs)
        selected = next((i for i, t in enumerate(tabs) if t is host.selected), 0)
        names, widths = self._chip_names(tabs)
        return self._memo.get(
            ("tabbar", tabs, states, selected), lambda: _TabBar(names, widths, states, selected)
        )

    def _chip_state(self, tab: TabKey) -> int:
        host = self._host
        if isinstance(tab, QuestionRef) and host.draft(tab).staged is not None:
            return _STAGED
        return _REQUIRED if host.is_required(tab) else _PLAIN

    def _chip_names(self, tabs: tuple[TabKey, ...]) -> tuple[list[str], list[int]]:
        """The chip names of ``tabs`` and their widths (kept while the tabs are the same)."""
        if self._names[0] is not tabs:
            names = ["Review" if isinstance(t, ReviewKey) else self._header(t) for t in tabs]
            self._names = (tabs, names, [_width(name) for name in names])
        return self._names[1], self._names[2]

    def _header(self, ref: QuestionRef) -> str:
        """The sanitised chip text of a question (cached: a question never changes)."""
        header = self._headers.get(ref)
        if header is None:
            header = sanitize_line(self._host.question(ref).spec.header) or "?"
            self._headers[ref] = header
        return header

    def _question(self, ref: QuestionRef) -> tuple[urwid.Widget, _Body, Hashable]:
        question = self._host.question(ref)
        spec = question.spec
        draft = self._host.draft(ref)
        active = self._host.focus.panel_focused
        memo = self._memo
        title = memo.get(
            ("question", ref), lambda: _text(("panel.question", sanitize_text(spec.question)))
        )
        context = spec.context
        lead = (
            (memo.get(("context", ref), lambda: _text(("panel.context", sanitize_text(context)))),)
            if context
            else ()
        )
        rows = [self._option_row(ref, question, draft, i, active) for i in range(len(spec.options))]
        rows.append(self._custom_row(ref, question, draft, active))
        if spec.multi_select:
            rows.append(self._next_row(ref, question, draft, active))
        after = self._notes_rows(draft)
        editor = self._editor_info(question, draft, len(rows))
        body = _Body(
            lead=lead,
            rows=tuple(rows),
            after=after,
            preview=self._preview(ref, question, draft),
            cursor=min(draft.cursor, row_count(spec) - 1),
            editor=editor,
        )
        return title, body, (ref, draft.cursor)

    def _marker(self, draft: Draft, row: int, active: bool) -> Markup:
        if draft.cursor != row:
            return "  "
        return ("panel.cursor" if active else "panel.dim", "› ")

    def _row(self, ref: QuestionRef, row: int, width: int) -> _Row:
        """The kept row ``row`` of question ``ref`` (see :class:`_Row`)."""
        kept = self._rows.get((ref, row))
        if kept is None:
            kept = self._rows[(ref, row)] = _Row(width)
        return kept

    def _option_row(
        self, ref: QuestionRef, question: Question, draft: Draft, index: int, active: bool
    ) -> urwid.Widget:
        multi = question.spec.multi_select
        width = _OPTION_PREFIX + (_CHECK_PREFIX if multi else 0)
        inputs = (draft.cursor == index, active, index in draft.checked if multi else None)
        return self._row(ref, index, width).show(
            inputs, lambda: self._draw_option_row(question, draft, index, active)
        )

    def _draw_option_row(
        self, question: Question, draft: Draft, index: int, active: bool
    ) -> tuple[Markup, Markup]:
        spec = question.spec
        option = spec.options[index]
        here = draft.cursor == index
        label_attr = "panel.option.focus" if here and active else "panel.option"
        label: list[Markup] = [(label_attr, sanitize_line(option.label))]
        if option.description:
            label.append(("panel.description", "\n" + sanitize_text(option.description)))
        prefix: list[Markup] = [self._marker(draft, index, active), f"{index + 1}. "]
        if spec.multi_select:
            checked = index in draft.checked
            prefix.append(("panel.check", "[x] ") if checked else "[ ] ")
        return prefix, label

    def _custom_row(
        self, ref: QuestionRef, question: Question, draft: Draft, active: bool
    ) -> urwid.Widget:
        row = custom_row(question.spec)
        here = draft.cursor == row
        editing = here and not self._notes_open
        inputs = (here, active, editing, "" if editing else draft.custom_text)
        return self._row(ref, row, _OPTION_PREFIX).show(
            inputs, lambda: self._draw_custom_row(question, draft, active)
        )

    def _draw_custom_row(
        self, question: Question, draft: Draft, active: bool
    ) -> tuple[Markup, Markup | urwid.Widget]:
        row = custom_row(question.spec)
        prefix: list[Markup] = [self._marker(draft, row, active), f"{row + 1}. "]
        if draft.cursor == row and not self._notes_open:
            return prefix, self._reply_row
        if draft.custom_text.strip():
            return prefix, ("panel.option", sanitize_text(draft.custom_text))
        return prefix, ("panel.placeholder", _PLACEHOLDER)

    def _next_row(
        self, ref: QuestionRef, question: Question, draft: Draft, active: bool
    ) -> urwid.Widget:
        row = next_row(question.spec)
        assert row is not None
        ready = bool(draft.checked) or bool(draft.custom_text.strip())
        attr = "panel.next" if ready else "panel.dim"
        prefix: list[Markup] = [self._marker(draft, row, active), f"{row + 1}. "]
        inputs = (draft.cursor == row, active, ready)
        return self._row(ref, row, _OPTION_PREFIX).show(inputs, lambda: (prefix, (attr, "Next")))

    def _notes_rows(self, draft: Draft) -> tuple[urwid.Widget, ...]:
        caption = ("panel.notes", _NOTES_CAPTION)
        width = len(_NOTES_CAPTION)
        if self._notes_open:
            return (self._memo.get(("notes",), lambda: _prefixed(caption, width, self._notes_row)),)
        if draft.notes.strip():
            notes = draft.notes
            return (
                self._memo.get(
                    ("notes", notes),
                    lambda: _prefixed(caption, width, _text(("panel.notes", sanitize_text(notes)))),
                ),
            )
        return ()

    def _editor_info(
        self, question: Question, draft: Draft, count: int
    ) -> tuple[urwid.Edit, int, int] | None:
        """The active editor, its index among the body's rows and its prefix width."""
        if self._notes_open:
            return self._notes, count, len(_NOTES_CAPTION)
        if draft.cursor == custom_row(question.spec):
            return self._reply, custom_row(question.spec), _OPTION_PREFIX
        return None

    def _preview(self, ref: QuestionRef, question: Question, draft: Draft) -> urwid.Widget | None:
        options = question.spec.options
        if draft.cursor >= len(options) or not options[draft.cursor].preview:
            return None
        preview = options[draft.cursor].preview or ""
        return self._memo.get(("preview", ref, draft.cursor), lambda: self._build_preview(preview))

    @staticmethod
    def _build_preview(preview: str) -> urwid.Widget:
        text = sanitize_text(preview)
        lines = "\n".join(f"│ {line}" for line in text.split("\n"))
        return urwid.Pile(
            [
                _text(("panel.preview.title", "Preview")),
                _text(("panel.preview", lines), "clip"),
            ]
        )

    def _review(self, tab: ReviewKey) -> tuple[urwid.Widget, _Body, Hashable]:
        host = self._host
        wait = self._wait(tab)
        refs = wait.refs if wait is not None else ()
        rows: list[urwid.Widget] = []
        missing = 0
        for number, ref in enumerate(refs, start=1):
            row, unanswered = self._review_row(number, ref)
            rows.append(row)
            missing += unanswered
        answered = len(refs) - missing
        summary = self._review_summary(answered, missing)
        title = self._memo.text("review", ("panel.question", "Review your answers"))
        after = (self._memo.text("review", ("panel.hint", summary)),)
        return title, _Body(lead=(), rows=tuple(rows), after=after), (tab, host.notice)

    def _wait(self, tab: ReviewKey) -> Wait | None:
        return self._host.wait_of_call(tab.call_id)

    def _review_row(self, number: int, ref: QuestionRef) -> tuple[urwid.Widget, bool]:
        host = self._host
        if ref not in host.tabs:
            answer: Markup = ("panel.answer", "→ (already answered)")
            return self._review_item(number, ref, answer), False
        staged = host.draft(ref).staged
        spec = host.question(ref).spec
        if staged is None:
            return self._review_item(number, ref, ("panel.unanswered", "(unanswered)")), True
        text = sanitize_line(staged.text(spec))
        if staged.notes:
            text += f"  (notes: {sanitize_line(staged.notes)})"
        return self._review_item(number, ref, ("panel.answer", f"→ {text}")), False

    def _review_item(self, number: int, ref: QuestionRef, answer: Markup) -> urwid.Widget:
        key = ("review", number, ref, _frozen(answer))
        return self._memo.get(key, lambda: self._build_review_item(number, ref, answer))

    def _build_review_item(self, number: int, ref: QuestionRef, answer: Markup) -> urwid.Widget:
        spec = self._host.question(ref).spec
        head: list[Markup] = [
            ("panel.title", self._header(ref)),
            ("panel.option", f"  {sanitize_line(spec.question)}"),
        ]
        return _prefixed(f"  {number}. ", _OPTION_PREFIX, _text([*head, "\n", answer]))

    def _review_summary(self, answered: int, missing: int) -> str:
        key = self._keymap.key_in("panel", "panel.confirm")
        enter = "Enter" if key is None else pretty_key(key)
        if answered == 0:
            return "Answer at least one question first, or decline or answer later."
        if missing:
            return (
                f"{enter} submits {answered} answer{'s' * (answered != 1)} now; "
                f"{missing} stay{'s' * (missing == 1)} pending."
            )
        return f"{enter} submits all answers."

    # ------------------------------------------------------------------ footer
    def _footer(self, tab: TabKey) -> urwid.Widget:
        notice, hints = self._host.notice, self._hints(tab)
        return self._memo.get(("footer", notice, hints), lambda: self._build_footer(notice, hints))

    @staticmethod
    def _build_footer(notice: str | None, hints: str) -> urwid.Widget:
        rows: list[urwid.Widget] = []
        if notice:
            rows.append(_text(("panel.notice", sanitize_line(notice))))
        rows.append(_text(("panel.hint", _unbreakable(hints))))
        return urwid.Pile(rows)

    def _hints(self, tab: TabKey) -> str:
        host, keymap = self._host, self._keymap
        if host.focus.foreign_active:
            return "Answer the open prompt first."
        if not host.focus.panel_focused:
            return keymap.hints("chat", ["focus_toggle", "collapse"])
        required = host.is_required(tab)
        leave = ["panel.decline", "panel.defer"] if required else ["panel.pause"]
        many = ["panel.next_tab"] if len(host.tabs) > 1 else []
        if isinstance(tab, ReviewKey):
            labels = {"panel.confirm": "submit", "panel.decline": "decline all"}
            return keymap.hints("panel", ["panel.confirm", *many, *leave], labels)
        if self._editing(tab):
            commands = ["panel.confirm", "reply.newline", *many, *leave, "panel.notes"]
            labels = {"panel.notes": "close notes"} if self._notes_open else {}
            return keymap.hints("reply", commands, {"panel.confirm": "submit", **labels})
        return keymap.hints("panel", self._option_hints(tab, many, leave))

    def _option_hints(self, ref: QuestionRef, many: list[str], leave: list[str]) -> list[str]:
        spec = self._host.question(ref).spec
        on_option = self._host.draft(ref).cursor < len(spec.options)
        pick = ["panel.toggle"] if spec.multi_select and on_option else ["panel.confirm"]
        return ["panel.up", "panel.down", *pick, *many, *leave, "panel.notes"]

    # ------------------------------------------------------------------ keys
    def _editing(self, tab: TabKey | None) -> bool:
        if not isinstance(tab, QuestionRef) or tab not in self._host.tabs:
            return False
        spec = self._host.question(tab).spec
        return self._notes_open or self._host.draft(tab).cursor == custom_row(spec)

    def keypress(self, size: Size, key: str) -> str | None:
        """Handle ``key`` (see module docstring); return it when the panel does not use it."""
        host = self._host
        if not host.focus.panel_focused:
            return key
        route = host.key_route(self._clock())
        if route.target is not host.focus.panel:
            return key  # the arrival guard: the app delivers it where it was aimed
        tab = _as_tab(route.tab)
        cols = size[0] if size else 80
        scroll = self._scrolls.get(host.selected) if host.selected is not None else None
        if self._editing(tab):
            unused = self._reply_key(cols, key, tab)
        else:
            unused = self._panel_key(cols, key, tab)
        if scroll is not None and unused is None and key not in self._paging_keys():
            scroll.anchor = None  # a key acted: show the cursor again on the next render
        return unused

    def _paging_keys(self) -> tuple[str, ...]:
        return self._keymap.keys_for("panel.page_up") + self._keymap.keys_for("panel.page_down")

    def _panel_key(self, cols: int, key: str, tab: TabKey | None) -> str | None:
        command = self._keymap.command_for("panel", key)
        if command is None or not self._run(command, cols, tab):
            return key
        return None

    def _reply_key(self, cols: int, key: str, tab: TabKey | None) -> str | None:
        command = self._keymap.command_for("reply", key)
        if command == "reply.newline":
            return self._edit(cols, "enter", tab)
        if command is not None and self._run(command, cols, tab):
            return None
        unused = self._edit(cols, key, tab)
        if unused is None:
            return None
        return self._panel_key(cols, unused, tab)

    def _run(self, command: str, cols: int, tab: TabKey | None) -> bool:
        """Run a panel command or widget action; ``False`` if the app should handle it."""
        if command in PANEL_COMMANDS:
            self._host.command_nowait(PANEL_COMMANDS[command], tab)
        elif command == "panel.notes":
            self._toggle_notes(tab)
        elif command in ("panel.page_up", "panel.page_down"):
            if self._frame is not None:
                self._frame.page(cols, -1 if command == "panel.page_up" else 1)
        elif command in OPTION_JUMPS:
            self._jump(OPTION_JUMPS.index(command), tab)
        else:
            return False
        return True

    def _toggle_notes(self, tab: TabKey | None) -> None:
        if isinstance(tab, QuestionRef) and tab == self._host.selected:
            self._notes_open = not self._notes_open
            self.refresh()

    def _jump(self, row: int, tab: TabKey | None) -> None:
        """A digit moves the cursor to that row; it never answers (a stray digit is harmless)."""
        if not isinstance(tab, QuestionRef) or tab != self._host.selected:
            return
        if row < row_count(self._host.question(tab).spec):
            self._host.set_cursor_nowait(row)

    def _edit(self, cols: int, key: str, tab: TabKey | None) -> str | None:
        """Give ``key`` to the active editor; push a change to the host's draft."""
        if tab != self._host.selected:
            return None  # aimed at another tab's editor: the host cannot take it (see NOTES)
        edit = self._notes if self._notes_open else self._reply
        before = (edit.edit_text, edit.edit_pos)
        width = self._frame.body.editor_cols(cols - 2 * _BORDER_COLS) if self._frame else cols
        unused = edit.keypress((width,), key)
        if (edit.edit_text, edit.edit_pos) != before:
            if edit is self._notes:
                self._host.set_notes_nowait(edit.edit_text)
            else:
                self._host.set_custom_text_nowait(edit.edit_text, edit.edit_pos)
            self.refresh()
        return unused


