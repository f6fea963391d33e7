"""asks' raw screen (:mod:`asks.widgets.screen`) writes exactly what urwid's raw screen writes.

The screen rebuilds only the rows of shards that changed since the last frame; the promise is
that the terminal cannot tell: for any sequence of frames, the bytes written are identical to
those of ``urwid.display.raw.Screen`` given the same canvases. Hypothesis builds widget trees
(texts with attributes and wide characters, columns, piles, boxes, padding, attribute maps,
fillers, overlays), changes random texts between frames, and resizes; both screens draw every
frame to their own output. The REPL's own frames are checked the same way through its key path.
"""

from __future__ import annotations

import contextlib
import io
import os
import pty
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import urwid
from hypothesis import given, settings
from hypothesis import strategies as st

from asks.widgets.screen import AsksScreen, ReusedRowsCanvas, RowCache

WORDS = st.text(alphabet="ab cd\n界x·", max_size=12)
ATTRS = st.sampled_from([None, "red", "blue"])
PALETTE = [("red", "light red", "default"), ("blue", "light blue", "black")]


class Tree:
    """A random widget tree and the texts in it (which the frames change)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.texts: list[urwid.Text] = []
        self.draw = draw
        self.root = self._widget(3)

    def _text(self) -> urwid.Text:
        text = urwid.Text(self._markup(), wrap=self.draw(st.sampled_from(["space", "clip", "any"])))
        self.texts.append(text)
        return text

    def _markup(self) -> list[tuple[str | None, str] | str]:
        parts = self.draw(st.lists(st.tuples(ATTRS, WORDS), min_size=1, max_size=3))
        return [(a, t) if a else t for a, t in parts]

    def _widget(self, depth: int) -> urwid.Widget:
        kinds = ["text"] if depth == 0 else ["text", "pile", "columns", "box", "pad", "map"]
        kind = self.draw(st.sampled_from(kinds))
        if kind == "text":
            return self._text()
        if kind == "pile":
            count = self.draw(st.integers(1, 3))
            return urwid.Pile([self._widget(depth - 1) for _ in range(count)])
        if kind == "columns":
            count = self.draw(st.integers(1, 3))
            return urwid.Columns([self._widget(depth - 1) for _ in range(count)], dividechars=1)
        if kind == "box":
            return urwid.LineBox(self._widget(depth - 1))
        if kind == "pad":
            return urwid.Padding(self._widget(depth - 1), left=self.draw(st.integers(0, 3)))
        return urwid.AttrMap(self._widget(depth - 1), {None: "blue", "red": "blue"})

    def change(self) -> None:
        if self.texts:
            self.draw(st.sampled_from(self.texts)).set_text(self._markup())


@contextlib.contextmanager
def screens() -> Iterator[list[tuple[urwid.display.raw.Screen, io.StringIO]]]:
    """urwid's raw screen and asks', started on one pty, each writing to its own buffer."""
    master, slave = pty.openpty()
    pair = []
    for cls in (urwid.display.raw.Screen, AsksScreen):
        out = io.StringIO()
        screen = cls(input=os.fdopen(slave, "rb", 0, closefd=False), output=out)
        screen.register_palette(PALETTE)
        screen.start()
        pair.append((screen, out))
    try:
        yield pair
    finally:
        for screen, _out in pair:
            screen.stop()
        os.close(slave)
        os.close(master)


def frame(widget: urwid.Widget, size: tuple[int, int], overlay: bool) -> urwid.Canvas:
    box: urwid.Widget = urwid.Filler(widget, valign="top")
    if overlay:
        box = urwid.Overlay(urwid.Filler(urwid.Text("pop-up")), box, "center", 8, "middle", 1)
    return box.render(size, focus=True)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_same_bytes_as_urwid_for_random_frames(data: st.DataObject) -> None:
    tree = Tree(data.draw)
    overlay = data.draw(st.booleans())
    with screens() as pair:
        for _ in range(data.draw(st.integers(1, 6))):
            size = data.draw(st.sampled_from([(30, 8), (30, 8), (30, 8), (17, 5)]))
            canvas = frame(tree.root, size, overlay)
            for screen, _out in pair:
                screen.draw_screen(size, canvas)
            assert pair[0][1].getvalue() == pair[1][1].getvalue()
            if data.draw(st.booleans()):
                tree.change()


def test_unchanged_shards_are_reused_not_rebuilt() -> None:
    """The point of the screen: a frame that changes one text rebuilds only its shard."""
    texts = [urwid.Text(f"row {i}") for i in range(10)]
    pile = urwid.Pile(texts)
    cache = RowCache()
    first = pile.render((20,))
    assert list(ReusedRowsCanvas(first, cache).content()) == list(first.content())
    texts[4].set_text("changed")
    built: list[int] = []
    second = pile.render((20,))
    shards = ReusedRowsCanvas(second, cache)
    original = urwid.TextCanvas.content

    def counting(self: urwid.TextCanvas, *args: object, **kwargs: object) -> object:
        built.append(id(self))
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(urwid.TextCanvas, "content", counting)
        rows = list(shards.content())
    assert rows == [list(r) for r in original_rows(second)]
    assert len(built) == 1  # the changed row's canvas only


def original_rows(canvas: urwid.Canvas) -> list[list[object]]:
    return [list(row) for row in canvas.content()]


async def test_repl_frames_through_the_key_path(tmp_path: Path) -> None:
    """The REPL's own frames (panel with tabs, chat typing) draw identically on both screens."""
    from bench import key_bench  # noqa: PLC0415 (the bench builds a real REPL screen)

    repl = key_bench.build(tmp_path / "data", 6)
    size = (100, 30)
    with screens() as pair:
        keys = ["down", "down", "up", "tab", "down", "shift tab", "a", "b", "backspace"]
        repl.session.host.panel_port.enter_panel(None)
        await trio.sleep(0)
        for key in keys * 3:
            repl.keypress(size, key)
            canvas = repl.render(size, focus=True)
            for screen, _out in pair:
                screen.draw_screen(size, canvas)
            assert pair[0][1].getvalue() == pair[1][1].getvalue()


# ---------------------------------------------------------------------------- signal keys
SIGNAL_KEYS = {
    "intr": termios.VINTR,
    "quit": termios.VQUIT,
    "susp": termios.VSUSP,
    "start": termios.VSTART,
    "stop": termios.VSTOP,
}


def test_signal_keys_off_while_started_and_the_terminal_restored_exactly() -> None:
    """``AsksScreen(signal_keys=False)``: Ctrl+C, Ctrl+\\, Ctrl+Z, Ctrl+Q, Ctrl+S are keys
    while the screen runs; stop (also after a restart, as around Ctrl+G's editor) leaves every
    termios field as found — including keys the person had set to something else."""
    master, slave = pty.openpty()
    try:
        found = termios.tcgetattr(slave)
        found[6][termios.VINTR] = b"\x07"  # the person's own interrupt key (stty intr ^G)
        termios.tcsetattr(slave, termios.TCSANOW, found)
        found = termios.tcgetattr(slave)
        screen = AsksScreen(
            input=os.fdopen(slave, "rb", 0, closefd=False), output=io.StringIO(), signal_keys=False
        )
        for _ in range(2):  # start, stop, start again, stop
            screen.start()
            running = termios.tcgetattr(slave)
            off = os.fpathconf(slave, "PC_VDISABLE")
            assert {name: running[6][i] for name, i in SIGNAL_KEYS.items()} == dict.fromkeys(
                SIGNAL_KEYS, bytes([off])
            )
            assert not running[3] & termios.ICANON  # urwid's cbreak mode
            screen.stop()
            assert termios.tcgetattr(slave) == found
    finally:
        os.close(slave)
        os.close(master)


def test_signal_keys_stay_by_default() -> None:
    master, slave = pty.openpty()
    try:
        screen = AsksScreen(input=os.fdopen(slave, "rb", 0, closefd=False), output=io.StringIO())
        found = termios.tcgetattr(slave)
        with screen.start():
            assert termios.tcgetattr(slave)[6][termios.VINTR] == found[6][termios.VINTR]
        assert termios.tcgetattr(slave) == found
    finally:
        os.close(slave)
        os.close(master)
