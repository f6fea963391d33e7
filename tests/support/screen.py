"""Reading the real app's screen (a :class:`~support.pty_harness.PtyApp`) and waiting on it.

The screen is what a person sees: the chat editor (caption ``›`` in column 0, its rows down to
the status line), the panel's rows (inside a solid border while it has the keyboard, a dotted
one while not), the status line (the last row), highlighted cells. Waiting is always for
progress on the screen, with a timeout; never for a fixed time.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from support.pty_harness import DEFAULT_TIMEOUT, PtyApp, ScreenTimeoutError

PANEL_FOCUSED = r"┌─ Questions \(\d+\)"  # solid border: the panel has the keyboard
PANEL_UNFOCUSED = r"┌╌ Questions \(\d+\)"  # dotted border: it does not
PANEL_PAUSED = r"^‖ \d+ questions? pending"  # Esc: the compact pending card
QUESTION_ID = r"q-[0-9a-f]{10}"


# ---------------------------------------------------------------------------- reading
def lines(app: PtyApp) -> list[str]:
    return app.text().split("\n")


def flat(app: PtyApp) -> str:
    """The screen as one line: wrapped text joined back (urwid wraps at spaces)."""
    return re.sub(r"\s+", " ", app.text())


def status_line(app: PtyApp) -> str:
    return lines(app)[-1]


def chat_row(rows: list[str]) -> int | None:
    """Index of the chat editor's first row (caption ``›`` in column 0), or None while the
    screen shows none (not drawn yet, or an editor or pager over it)."""
    found = [i for i, row in enumerate(rows[:-1]) if row.startswith("›")]
    return found[-1] if found else None


def chat_text(app: PtyApp) -> str | None:
    """What the chat editor holds: its rows between the caption and the status line; None
    while no chat editor is on screen."""
    rows = lines(app)
    start = chat_row(rows)
    if start is None:
        return None
    first = rows[start][2:] if rows[start].startswith("› ") else ""
    return first + "".join(rows[start + 1 : -1])


def panel_rows(app: PtyApp) -> list[str]:
    """The rows inside the panel's border (solid or dotted)."""
    return [row for row in lines(app) if row[:1] in ("│", "╎")]


def in_panel(app: PtyApp, pattern: str) -> bool:
    return any(re.search(pattern, row) for row in panel_rows(app))


def highlighted(app: PtyApp, row: int) -> str:
    """The characters of screen row ``row`` drawn highlighted (reverse video or a background
    colour): the selected chip of a tab strip."""
    return "".join(c.data for c in app.cells(row) if c.reverse or c.bg != "default")


# ---------------------------------------------------------------------------- waiting
def eventually(
    app: PtyApp, check: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT
) -> None:
    """Wait until ``check()`` holds (polling the screen); fail with ``what`` and the screen
    after ``timeout`` seconds or once the app has exited."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline or not app.proc.isalive():
            raise ScreenTimeoutError(f"{what}; the screen:\n{app.text()}")
        time.sleep(0.02)


def wait_chat(app: PtyApp, expected: str) -> None:
    eventually(
        app,
        lambda: chat_text(app) == expected,
        f"the chat editor should hold {expected!r}, holds {chat_text(app)!r}",
    )


def wait_panel(app: PtyApp, pattern: str) -> None:
    eventually(app, lambda: in_panel(app, pattern), f"the panel should show {pattern!r}")


def wait_panel_gone(app: PtyApp, pattern: str) -> None:
    eventually(app, lambda: not in_panel(app, pattern), f"the panel still shows {pattern!r}")


def enter_panel(app: PtyApp) -> None:
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)
