"""Option, ``Type something.`` and ``Next`` rows of a question tab, and the widget they use.

:class:`Row` is one selectable row kept across refreshes. :class:`QuestionRows` builds the
heading and :class:`~asks.widgets.panel.body.Body` of a question tab from the question, its
draft and the panel's view state (whether the panel has the keyboard, whether notes are open):
the ``›`` cursor marker, numbers, labels and dimmed descriptions, ``[x]`` checks for
multi-select (the ``Type something.`` row's too: checked while it holds text), the inline
reply editor while the cursor is on ``Type something.``, ``Next`` for multi-select (dim until
something is picked), the notes line and the preview. It keeps one :class:`Row` per question
and row, and forgets the rows of questions no longer pending.

All model text goes through :mod:`asks.sanitize` before it reaches a widget.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import urwid

from asks.core.drafts import Draft, custom_row, next_row, row_count
from asks.core.i18n import _, language
from asks.core.model import Question, QuestionRef
from asks.core.tabs import TabKey
from asks.sanitize import sanitize_line, sanitize_text
from asks.widgets.panel.body import Body
from asks.widgets.panel.markup import (
    CHECK_PREFIX,
    NOTES_CAPTION,
    OPTION_PREFIX,
    PLACEHOLDER,
    Markup,
    Size,
    cols_of,
    prefixed,
    rows_of,
    text_widget,
    width_of,
)
from asks.widgets.panel.memo import Memo

_UNSET = object()  # inputs no row was drawn for
ROW_VARIANTS = 8  # input sets a row keeps texts (and canvases) for: cursor here or not, × …


class Row(urwid.Widget):
    """A selectable row kept across refreshes (one per question and row): a fixed-width
    prefix column and a body that wraps under itself.

    It draws exactly like ``urwid.Columns([(width, prefix), body])`` (which it keeps, and uses
    when the body gets no room) but without the general column layout, which is most of the
    cost of redrawing a row. :meth:`show` switches the row to the texts of its inputs; the row
    keeps its identity (the options :class:`urwid.Pile` holding it can be reused).

    Each set of inputs gets its own pair of text widgets, never changed afterwards, and the
    row holds the canvases it drew for the last few of them: a cursor moving back and forth
    between two rows redraws neither (urwid only holds canvases weakly). A body that is a live
    widget (the reply editor) is drawn every time, as before.
    """

    _sizing = frozenset([urwid.FLOW])

    def __init__(self, width: int) -> None:
        super().__init__()
        self._width = width
        self._prefix = urwid.Text("")
        self._body: urwid.Widget = urwid.Text("")
        self._kept_columns = urwid.Columns([(width, self._prefix), self._body])
        self._inputs: Hashable = _UNSET
        self._variants: dict[Hashable, tuple[urwid.Text, urwid.Widget]] = {}
        self._held: dict[tuple[Hashable, int, bool], urwid.Canvas] = {}

    def show(
        self, inputs: Hashable, draw: Callable[[], tuple[Markup, Markup | urwid.Widget]]
    ) -> urwid.Widget:
        """The row for ``inputs``; ``draw()`` gives its prefix markup and its body (markup, or
        a widget such as an editor) and is called only for inputs not seen lately."""
        inputs = (language(), inputs)  # a language switch redraws the row
        if inputs != self._inputs:
            self._inputs = inputs
            variant = self._variants.get(inputs)
            if variant is None:
                variant = self._variant(inputs, draw)
            self._set_parts(*variant)
        return self

    def _variant(
        self, inputs: Hashable, draw: Callable[[], tuple[Markup, Markup | urwid.Widget]]
    ) -> tuple[urwid.Text, urwid.Widget]:
        if len(self._variants) >= ROW_VARIANTS:
            self._variants.clear()
            self._held.clear()
        prefix, body = draw()
        widget = body if isinstance(body, urwid.Widget) else urwid.Text(body)
        variant = self._variants[inputs] = (urwid.Text(prefix), widget)
        return variant

    def _set_parts(self, prefix: urwid.Text, body: urwid.Widget) -> None:
        self._prefix, self._body = prefix, body
        self._invalidate()

    @property
    def _columns(self) -> urwid.Columns:
        """The ``Columns`` this row draws like, brought up to date only when used (a narrow
        row, the cursor's position): updating it on every change cost more than the row."""
        columns = self._kept_columns
        if columns.contents[0][0] is not self._prefix or columns.contents[1][0] is not self._body:
            columns.contents[0] = (self._prefix, columns.options("given", self._width))
            columns.contents[1] = (self._body, columns.options())
            columns.focus_position = 1 if self._body.selectable() else 0
        return columns

    def selectable(self) -> bool:
        return self._body.selectable()

    def rows(self, size: Size, focus: bool = False) -> int:
        cols = cols_of(size)
        held = self._held.get((self._inputs, cols, focus))
        if held is not None:
            return held.rows()
        if cols <= self._width:
            rows: int = self._columns.rows((cols,), focus)
            return rows
        body: int = self._body.rows(  # type: ignore[attr-defined]
            (cols - self._width,), focus and self.selectable()
        )
        return max(rows_of(self._prefix, self._width), body)

    def render(self, size: Size, focus: bool = False) -> urwid.Canvas:
        cols = cols_of(size)
        key = (self._inputs, cols, focus)
        held = self._held.get(key)
        if held is not None:
            return held
        canvas = self._draw(cols, focus)
        if isinstance(self._body, urwid.Text):  # our own, never changed: safe to hold
            self._held[key] = canvas
        return canvas

    def _draw(self, cols: int, focus: bool) -> urwid.Canvas:
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


class QuestionRows:
    """Builds a question tab's heading and body; keeps one :class:`Row` per question and row.

    ``reply`` and ``notes`` are the panel's editors: the reply editor is shown in the
    ``Type something.`` row while the cursor is on it (and notes are closed), the notes editor
    after the rows while notes are open.
    """

    def __init__(self, memo: Memo, reply: urwid.Edit, notes: urwid.Edit) -> None:
        self._memo = memo
        self._reply = reply
        self._notes = notes
        self._reply_row = urwid.AttrMap(reply, "panel.editor")
        self._notes_row = urwid.AttrMap(notes, "panel.editor")
        self._rows: dict[tuple[QuestionRef, int], Row] = {}
        self._kept_for: tuple[TabKey, ...] = ()  # the tabs self._rows was pruned for

    def prune(self, shown: Callable[[TabKey], bool]) -> None:
        """Forget the kept rows of questions whose tab is not ``shown`` any more (per kept
        row, not per tab)."""
        self._rows = {key: row for key, row in self._rows.items() if shown(key[0])}

    def build(
        self, ref: QuestionRef, question: Question, draft: Draft, *, active: bool, notes_open: bool
    ) -> tuple[urwid.Widget, Body, Hashable]:
        """The question's heading, its body and the anchor of its cursor (for scrolling).

        ``active``: the panel has the keyboard; ``notes_open``: the notes editor is open.
        """
        spec = question.spec
        memo = self._memo
        title = memo.get(
            ("question", ref), lambda: text_widget(("panel.question", sanitize_text(spec.question)))
        )
        context = spec.context
        lead = (
            (
                memo.get(
                    ("context", ref), lambda: text_widget(("panel.context", sanitize_text(context)))
                ),
            )
            if context
            else ()
        )
        rows = [self._option_row(ref, question, draft, i, active) for i in range(len(spec.options))]
        if custom_row(spec) is not None:
            rows.append(self._custom_row(ref, question, draft, active, notes_open))
        if spec.multi_select:
            rows.append(self._next_row(ref, question, draft, active))
        after = self._notes_rows(draft, notes_open)
        editor = self._editor_info(question, draft, len(rows), notes_open)
        body = Body(
            lead=lead,
            rows=tuple(rows),
            after=after,
            preview=self._preview(ref, question, draft),
            cursor=min(draft.cursor, row_count(spec) - 1),
            editor=editor,
        )
        return title, body, (ref, draft.cursor)

    @staticmethod
    def _marker(draft: Draft, row: int, active: bool) -> Markup:
        if draft.cursor != row:
            return "  "
        return ("panel.cursor" if active else "panel.dim", "› ")

    def _row(self, ref: QuestionRef, row: int, width: int) -> Row:
        """The kept row ``row`` of question ``ref`` (see :class:`Row`)."""
        kept = self._rows.get((ref, row))
        if kept is None:
            kept = self._rows[(ref, row)] = Row(width)
        return kept

    def _option_row(
        self, ref: QuestionRef, question: Question, draft: Draft, index: int, active: bool
    ) -> urwid.Widget:
        multi = question.spec.multi_select
        width = OPTION_PREFIX + (CHECK_PREFIX if multi else 0)
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
        self, ref: QuestionRef, question: Question, draft: Draft, active: bool, notes_open: bool
    ) -> urwid.Widget:
        row = custom_row(question.spec)
        assert row is not None
        here = draft.cursor == row
        editing = here and not notes_open
        multi = question.spec.multi_select
        filled = bool(draft.custom_text.strip()) if multi else None  # its check in multi
        inputs = (here, active, editing, "" if editing else draft.custom_text, filled)
        return self._row(ref, row, OPTION_PREFIX + (CHECK_PREFIX if multi else 0)).show(
            inputs, lambda: self._draw_custom_row(question, draft, active, editing)
        )

    def _draw_custom_row(
        self, question: Question, draft: Draft, active: bool, editing: bool
    ) -> tuple[Markup, Markup | urwid.Widget]:
        """Its number and, in multi-select, its check like an option's: ``[x]`` while it
        holds text (the text is one of the answers), ``[ ]`` while blank."""
        row = custom_row(question.spec)
        assert row is not None
        prefix: list[Markup] = [self._marker(draft, row, active), f"{row + 1}. "]
        if question.spec.multi_select:
            prefix.append(("panel.check", "[x] ") if draft.custom_text.strip() else "[ ] ")
        if editing:
            return prefix, self._reply_row
        if draft.custom_text.strip():
            return prefix, ("panel.option", sanitize_text(draft.custom_text))
        return prefix, ("panel.placeholder", _(PLACEHOLDER))

    def _next_row(
        self, ref: QuestionRef, question: Question, draft: Draft, active: bool
    ) -> urwid.Widget:
        row = next_row(question.spec)
        assert row is not None
        ready = bool(draft.checked) or bool(draft.custom_text.strip())
        attr = "panel.next" if ready else "panel.dim"
        prefix: list[Markup] = [self._marker(draft, row, active), f"{row + 1}. "]
        inputs = (draft.cursor == row, active, ready)
        return self._row(ref, row, OPTION_PREFIX).show(inputs, lambda: (prefix, (attr, _("Next"))))

    def _notes_rows(self, draft: Draft, notes_open: bool) -> tuple[urwid.Widget, ...]:
        caption = ("panel.notes", _(NOTES_CAPTION))
        width = width_of(caption[1])
        if notes_open:
            return (self._memo.get(("notes",), lambda: prefixed(caption, width, self._notes_row)),)
        if draft.notes.strip():
            notes = draft.notes
            return (
                self._memo.get(
                    ("notes", notes),
                    lambda: prefixed(
                        caption, width, text_widget(("panel.notes", sanitize_text(notes)))
                    ),
                ),
            )
        return ()

    def _editor_info(
        self, question: Question, draft: Draft, count: int, notes_open: bool
    ) -> tuple[urwid.Edit, int, int] | None:
        """The active editor, its index among the body's rows and its prefix width."""
        if notes_open:
            return self._notes, count, width_of(_(NOTES_CAPTION))
        row = custom_row(question.spec)
        if row is not None and draft.cursor == row:
            check = CHECK_PREFIX if question.spec.multi_select else 0
            return self._reply, row, OPTION_PREFIX + check
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
                text_widget(("panel.preview.title", _("Preview"))),
                text_widget(("panel.preview", lines), "clip"),
            ]
        )
