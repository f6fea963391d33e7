"""The scrolling part of an expanded panel: its rows and how they lay out at one width.

A :class:`Body` is immutable and built on every refresh; it holds the context lines, the
selectable rows (options, ``Type something.``, ``Next``), the notes after them, the optional
preview of the option under the cursor (beside the options at ≥ ``PREVIEW_SIDE_COLS`` columns,
below them otherwise), where the draft's cursor is and which row holds an active editor. It
answers layout questions (column split, editor width, the rows the cursor occupies) for the
frame, which decides what is scrolled into view.
"""

from __future__ import annotations

import attrs
import urwid

from asks.widgets.panel.markup import BORDER_COLS, PREVIEW_SIDE_COLS, rows_of


@attrs.frozen
class Body:
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
        if self.preview is None or cols + 2 * BORDER_COLS < PREVIEW_SIDE_COLS:
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
        top = sum(rows_of(w, cols) for w in self.lead)
        items = self.items
        index = self.editor[1] if self.editor is not None else self.cursor
        top += sum(rows_of(w, width) for w in items[:index])
        if self.editor is not None:
            caret = self.editor[0].get_cursor_coords((self.editor_cols(cols),))
            return top + (caret[1] if caret is not None else 0), 1
        return top, rows_of(items[index], width)
