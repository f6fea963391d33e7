"""A raw terminal screen that rebuilds only the rows of a frame that changed.

urwid's raw screen already *writes* only the rows that differ from the last frame, but to find
them it first builds every row of the new canvas (``canvas.content()``): for a 40-row screen
that is most of the cost of a keystroke that changes one row. :class:`AsksScreen` keeps urwid's
drawing and hands it a canvas whose rows are built shard by shard: a shard (a band of rows
that the same canvas pieces cover) made of the same immutable leaf canvases, trims and
attribute maps as a shard of the previous frame has the same rows, so those are reused; only
the other shards are built, with urwid's own ``content()`` of each leaf.

What can make that unsafe, and what is done about it:

* a leaf canvas changing after it was drawn: urwid canvases are immutable once rendered
  (widgets build new ones when they change), and the previous frame is kept, so identities
  cannot be reused by new objects while they are compared;
* a leaf that is itself composite (its ``content()`` ignores trims): the frame is then built
  the plain way;
* urwid changing its shard format: the screen's tests compare every frame built here with
  ``canvas.content()`` of the same canvas.

Use it like ``urwid.display.raw.Screen`` (the REPL does; embedders may).

**Ctrl+C as a key** (``AsksScreen(signal_keys=False)``): the terminal's signal and
flow-control keys — Ctrl+C (intr), Ctrl+\\ (quit), Ctrl+Z (susp), Ctrl+S / Ctrl+Q (stop /
start) — are switched off while the screen runs, so they reach the program as keys. They are
switched off in :meth:`_start` *after* urwid saved the terminal's settings, so urwid's stop
restores the settings exactly as they were found (also on every restart, e.g. around an
external editor: that one runs with the person's own keys). Calling urwid's
``tty_signal_keys`` before ``start()`` instead would make urwid save — and at exit restore —
the switched-off keys.
"""

from __future__ import annotations

import os
import termios
from collections.abc import Iterator, Sequence
from typing import Any

import urwid
from urwid.canvas import shard_body, shard_body_tail

Row = list[tuple[Any, Any, bytes]]
Signature = tuple[object, ...]  # (rows, *(done, trims, cols, rows, id(attr map), id(leaf)))


class ReusedRowsCanvas(urwid.CompositeCanvas):
    """``canvas`` with :meth:`content` built from ``rows``'s cache (see module docstring)."""

    def __init__(self, canvas: urwid.CompositeCanvas, rows: RowCache) -> None:
        super().__init__(canvas)
        self._cache = rows

    def content(self, *_ignored: Any, **_ignored_too: Any) -> Iterator[Row]:
        yield from self._cache.rows_of(self.shards)


class RowCache:
    """The rows of the last frame by shard signature; holds that frame's leaves alive."""

    def __init__(self) -> None:
        self._rows: dict[Signature, list[Row]] = {}
        self._held: object = None  # the last frame's shards: keeps the ids in _rows valid

    def rows_of(self, shards: Sequence[tuple[int, list[Any]]]) -> Iterator[Row]:
        fresh: dict[Signature, list[Row]] = {}
        tail: list[Any] = []
        for num_rows, cviews in shards:
            body = shard_body(cviews, tail, create_iter=False, num_rows=num_rows)
            signature = (
                num_rows,
                *((done, cv[0], cv[1], cv[2], cv[3], id(cv[4]), id(cv[5])) for done, _, cv in body),
            )
            rows = self._rows.get(signature) or fresh.get(signature)
            if rows is None:
                rows = _build(body, num_rows)
            fresh[signature] = rows
            for row in rows:
                yield list(row)
            tail = shard_body_tail(num_rows, body)
        self._rows, self._held = fresh, shards


def _build(body: list[Any], num_rows: int) -> list[Row]:
    """The ``num_rows`` rows of one shard, from each piece's own ``content()``."""
    pieces = [cv[5].content(cv[0], cv[1] + done, cv[2], num_rows, cv[4]) for done, _, cv in body]
    rows = []
    for _ in range(num_rows):
        row: Row = []
        for piece in pieces:
            row.extend(next(piece))
        rows.append(row)
    return rows


def _switch_off_signal_keys(fd: int) -> None:
    """Disable the terminal's signal and flow-control characters (``stty intr undef …``)."""
    mode = termios.tcgetattr(fd)
    off = os.fpathconf(fd, "PC_VDISABLE")
    for index in SIGNAL_KEYS:
        mode[6][index] = off
    termios.tcsetattr(fd, termios.TCSANOW, mode)


def _restore(fd: int, settings: list[Any]) -> None:
    """Put ``settings`` back; a terminal that hung up (no tty any more) has none to restore."""
    try:
        termios.tcsetattr(fd, termios.TCSADRAIN, settings)
    except termios.error:
        if os.isatty(fd):
            raise


def reusable(canvas: urwid.Canvas) -> bool:
    """Whether every leaf of ``canvas`` takes trims (not composite itself)."""
    shards = getattr(canvas, "shards", None)
    if shards is None:
        return False
    return not any(
        isinstance(cv[5], urwid.CompositeCanvas) or cv[5] is None
        for _, cviews in shards
        for cv in cviews
    )


SIGNAL_KEYS = (termios.VINTR, termios.VQUIT, termios.VSUSP, termios.VSTART, termios.VSTOP)


class AsksScreen(urwid.display.raw.Screen):
    """``urwid.display.raw.Screen`` that rebuilds only changed rows; with
    ``signal_keys=False`` Ctrl+C, Ctrl+\\, Ctrl+Z, Ctrl+S and Ctrl+Q arrive as keys while it
    runs, and its stop leaves the terminal's settings exactly as it found them (do not call
    urwid's ``tty_signal_keys`` before it starts). Use it like urwid's raw screen; a frame
    reaches the terminal as the same bytes."""

    def __init__(self, *args: Any, signal_keys: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.signal_keys = signal_keys
        self._found: tuple[int, list[Any]] | None = None  # the terminal's settings at start
        self._row_cache = RowCache()
        self._last: tuple[urwid.Canvas | None, urwid.Canvas | None] = (None, None)

    def _start(self, *args: Any, **kwargs: Any) -> None:
        fd = self._input_fileno()
        tty = not self.signal_keys and fd is not None and os.isatty(fd)
        self._found = (fd, termios.tcgetattr(fd)) if tty and fd is not None else None
        super()._start(*args, **kwargs)  # saves the settings too, then sets cbreak mode
        if self._found is not None:
            _switch_off_signal_keys(self._found[0])

    def _stop(self) -> None:
        """urwid's stop, then the settings found at start, exactly (urwid restores its own
        copy, plus signal keys it read at the *first* start)."""
        try:
            super()._stop()
        finally:
            found, self._found = self._found, None
            if found is not None:
                _restore(*found)

    def draw_screen(self, size: tuple[int, int], canvas: urwid.Canvas) -> None:
        """urwid's draw, handed a canvas whose unchanged rows are last frame's (same bytes)."""
        given, drawn = self._last
        if canvas is not given:
            if isinstance(canvas, urwid.CompositeCanvas) and reusable(canvas):
                drawn = ReusedRowsCanvas(canvas, self._row_cache)
            else:
                drawn = canvas
                self._row_cache = RowCache()
            self._last = (canvas, drawn)
        assert drawn is not None
        super().draw_screen(size, drawn)


__all__ = ["AsksScreen", "ReusedRowsCanvas", "RowCache", "reusable"]
