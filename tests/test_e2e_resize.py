"""End-to-end: resizing the terminal while questions are pending and a draft is typed.

The real ``asks`` under a pty (``tests/support/pty_harness.py``) is resized the way a window is: the
app must redraw everything at the new size (the panel's border spans the new width, nothing of
the old frame is left), keep the chat draft and the keyboard where they were, and keep taking
keys. Too small a terminal shows one line; growing back shows the panel again. This is also
the test of asks' screen (:mod:`asks.widgets.screen`) across sizes: it reuses rows of earlier
frames, and a stale row would show here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.pty_harness import PtyApp

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "scripts" / "two_async.toml"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PtyApp]:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "x")}
    running = PtyApp(["--data-dir", str(tmp_path / "data"), "--script", str(SCRIPT)], env=env)
    try:
        yield running
    finally:
        running.close()


def frame_is(app: PtyApp, cols: int) -> None:
    """Wait until the panel's top and bottom borders span exactly ``cols`` columns; then no
    row is longer (nothing of a wider frame is left)."""
    fill = cols - len("┌╌ Questions (2) ") - 1
    app.wait_for(rf"(?m)^┌╌ Questions \(2\) ╌{{{fill}}}┐$")
    app.wait_for(rf"(?m)^└╌{{{cols - 2}}}┘$")
    assert all(len(row) <= cols for row in app.text().split("\n")), app.text()


def test_resizing_redraws_at_the_new_size_and_keeps_the_draft(app: PtyApp) -> None:
    app.wait_for("TWO-START")
    frame_is(app, 100)
    app.type("hello")
    app.wait_for(r"(?m)^› hello$")
    for cols, rows in ((80, 24), (120, 40), (60, 16)):
        app.resize(cols, rows)
        app.wait_for(r"(?m)^› hello$")
        frame_is(app, cols)
        app.wait_for(r"(?m)^Asks: 2 pending")
    app.type(" world")
    app.wait_for(r"(?m)^› hello world$")
    app.resize(20, 6)
    app.wait_for(r"^Too small")
    app.resize(100, 30)
    frame_is(app, 100)
    app.wait_for(r"(?m)^› hello world$")
    app.type("!")
    app.wait_for(r"(?m)^› hello world!$")
    assert "Too small" not in app.text()
