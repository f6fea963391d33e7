"""Shared vocabulary of the panel's modules: size and markup types, layout constants, and small
pure helpers over urwid text (build, measure, clip).

Nothing here holds state; every helper is a function of its arguments. Widths are screen
columns (``urwid.calc_width``), not characters.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any, TypeAlias, TypeVar

import urwid

from asks.core.i18n import N_

Size: TypeAlias = tuple[()] | tuple[int] | tuple[int, int]
Markup: TypeAlias = str | tuple[Hashable, "Markup"] | list["Markup"]
W = TypeVar("W", bound=urwid.Widget)

PREVIEW_SIDE_COLS = 100  # at least this many columns: preview beside the options
DEFAULT_MAX_ROWS = 14
BORDER_COLS = 2  # "│ " on the left, " │" on the right
OPTION_PREFIX = 5  # "› 1. "
CHECK_PREFIX = 4  # "[x] "
NOTES_CAPTION = N_("Notes: ")  # translated where shown, like PLACEHOLDER
PLACEHOLDER = N_("Type something.")  # the person's row; the model's reserved label is English


def rows_of(widget: urwid.Widget, cols: int) -> int:
    """Rows of a flow ``widget`` at ``cols`` (urwid's stubs do not declare ``rows`` on Widget)."""
    rows: int = widget.rows((cols,))  # type: ignore[attr-defined]
    return rows


def cols_of(size: Size) -> int:
    return size[0] if size else 0


class KeepTogether(urwid.StandardTextLayout):
    """urwid's layout, except for text joined by no-break spaces (footer hints): it wraps at
    plain spaces only, so a hint's key stays with its label, and is not broken before a wide
    character either (urwid breaks before any CJK character, which would split ``Alt+N 备注``).
    A run wider than the row (a sentence, a long hint at 60 columns) wraps at its no-break
    spaces, between words; only a single word wider than the row wraps anywhere. Other text
    is laid out by urwid."""

    def calculate_text_segments(
        self, text: str | bytes, width: int, wrap: Any
    ) -> list[list[tuple[int, int, int | bytes] | tuple[int, int]]]:
        if wrap != "space" or not isinstance(text, str) or "\u00a0" not in text or "\n" in text:
            return super().calculate_text_segments(text, width, wrap)
        lines: list[list[tuple[int, int, int | bytes] | tuple[int, int]]] = []
        start = end = 0
        for word in re.finditer(r"[^ ]+", text):
            if end > start and width_of(text[start : word.end()]) <= width:
                end = word.end()
                continue
            if end > start:
                lines.append([(width_of(text[start:end]), start, end)])
            start, end = word.start(), word.end()
            if width_of(text[start:end]) > width:  # wider than the row: between its words
                run = text[start:end].replace("\u00a0", " ")  # same length: offsets hold
                for line in super().calculate_text_segments(run, width, "space"):
                    lines.append([_shifted(seg, start) for seg in line])
                start = end
        if end > start:
            lines.append([(width_of(text[start:end]), start, end)])
        return lines or [[]]


def _shifted(
    seg: tuple[int, int, int | bytes] | tuple[int, int], by: int
) -> tuple[int, int, int | bytes] | tuple[int, int]:
    if len(seg) == 3 and isinstance(seg[2], int):
        return (seg[0], seg[1] + by, seg[2] + by)
    return seg if len(seg) == 3 else (seg[0], seg[1] + by)


KEEP_TOGETHER = KeepTogether()


def text_widget(markup: Markup, wrap: str = "space") -> urwid.Text:
    return urwid.Text(markup, wrap=wrap, layout=KEEP_TOGETHER)  # type: ignore[arg-type]


def prefixed(prefix: Markup, width: int, body: urwid.Widget) -> urwid.Columns:
    """A row with a fixed-width prefix column; ``body`` wraps under itself, not the prefix."""
    return urwid.Columns([(width, text_widget(prefix)), body])


def frozen(markup: Markup) -> Hashable:
    """``markup`` as a hashable value (lists become tuples), for use in memo keys."""
    if isinstance(markup, list):
        return tuple(frozen(part) for part in markup)
    if isinstance(markup, tuple):
        return (markup[0], frozen(markup[1]))
    return markup


def unbreakable(hints: str) -> str:
    """Hint text that wraps only between hints (no-break spaces inside each one)."""
    return "\u00a0· ".join(part.replace(" ", "\u00a0") for part in hints.split(" · "))


def width_of(text: str) -> int:
    return urwid.calc_width(text, 0, len(text))


def clip(text: str, cols: int) -> str:
    """``text`` cut to ``cols`` screen columns, with ``…`` when cut."""
    if width_of(text) <= cols:
        return text
    out = ""
    for char in text:
        if width_of(out + char) + 1 > cols:
            break
        out += char
    return out + "…"
