"""Support for the focus end-to-end tests (``tests/test_e2e_focus.py``): launching the real
``asks`` under a pty with a private data dir, reading its journal, reading its screen (the chat
editor, the panel's rows, highlighted cells) and typing like a person.

Waiting is always for progress (text on screen) with a timeout; the only timed actions are the
typist's key gap and :func:`pause`, which are the behaviour under test (DESIGN §5 rule 7).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pty_harness import DEFAULT_TIMEOUT, PtyApp, ScreenTimeoutError

SCRIPTS = Path(__file__).resolve().parent / "scripts"

GUARD = 0.6  # seconds without a key before the panel takes the keyboard (DESIGN §5 rule 7)
KEY_GAP = 0.066  # seconds between typed keys: ~15 keys/s
PANEL_FOCUSED = r"┌─ Questions \(\d+\)"  # solid border: the panel has the keyboard
PANEL_UNFOCUSED = r"┌╌ Questions \(\d+\)"  # dotted border: it does not
Record = dict[str, Any]


# ---------------------------------------------------------------------------- launching
class Launcher:
    """Starts apps with a private data dir and config home; closes every one at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.data_dir = tmp_path / "data"
        config_home = tmp_path / "config"
        config_home.mkdir()
        self.env = {"XDG_CONFIG_HOME": str(config_home), "XDG_DATA_HOME": str(tmp_path / "xdg")}
        self.apps: list[PtyApp] = []

    def start(self, script: str, *, cols: int = 100, rows: int = 30) -> PtyApp:
        argv = ["--data-dir", str(self.data_dir), "--script", str(SCRIPTS / script)]
        app = PtyApp(argv, cols=cols, rows=rows, env=self.env)
        self.apps.append(app)
        return app

    def close(self) -> None:
        for app in self.apps:
            app.close()

    def records(self) -> list[Record]:
        (path,) = self.data_dir.glob("*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines() if line]


# ---------------------------------------------------------------------------- journal
def question_id(records: list[Record], text: str) -> str:
    for record in records:
        if record["type"] == "group_asked":
            for question in record["questions"]:
                if question["spec"]["question"] == text:
                    return str(question["ref"]["id"])
    raise AssertionError(f"no question {text!r} in the journal")


def resolutions(records: list[Record], qid: str) -> list[Record]:
    """Every saved resolution (answer or decline) of question ``qid``, in journal order."""
    return [
        resolution
        for record in records
        if record["type"] == "resolved"
        for resolution in record["resolutions"]
        if resolution["ref"]["id"] == qid
    ]


def user_messages(records: list[Record]) -> list[str]:
    return [
        str(r["content"]) for r in records if r["type"] == "chat_message" and r["role"] == "user"
    ]


# ---------------------------------------------------------------------------- screen
def lines(app: PtyApp) -> list[str]:
    return app.text().split("\n")


def chat_text(app: PtyApp) -> str:
    """What the chat editor holds: its rows between the caption ``›`` and the status line."""
    rows = lines(app)
    start = max(i for i, row in enumerate(rows[:-1]) if row.startswith("›"))
    first = rows[start][2:] if rows[start].startswith("› ") else ""
    return first + "".join(rows[start + 1 : -1])


def panel_rows(app: PtyApp) -> list[str]:
    """The rows inside the panel's border (solid or dotted)."""
    return [row for row in lines(app) if row[:1] in ("│", "╎")]


def in_panel(app: PtyApp, pattern: str) -> bool:
    return any(re.search(pattern, row) for row in panel_rows(app))


def eventually(
    app: PtyApp, check: Callable[[], bool], what: str, timeout: float = DEFAULT_TIMEOUT
) -> None:
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


def pause() -> None:
    """The person keeps off the keyboard for longer than the typing guard (:data:`GUARD`: keys
    keep going where they went until that long has passed with no key since the later of the
    blocker's arrival and the last key), with a margin for an app busy reading its input."""
    time.sleep(GUARD + 0.6)


def pause_until_panel_has_keys(app: PtyApp) -> None:
    """:func:`pause`, then wait until the panel shows it has the keyboard (solid border)."""
    pause()
    app.wait_for(PANEL_FOCUSED)


class Typist:
    """Types into ``app`` one key every :data:`KEY_GAP` seconds, like a person typing fast, and
    remembers the longest gap it really left between two keys: on a loaded machine the test
    process itself can stall, and a stall longer than the guard is a pause the app must honour
    (then the run is no burst and says nothing about the product: :meth:`check_burst`)."""

    def __init__(self, app: PtyApp) -> None:
        self.app = app
        self.longest = 0.0
        self._last: float | None = None

    def key(self, data: str) -> None:
        now = time.monotonic()
        if self._last is not None:
            self.longest = max(self.longest, now - self._last)
        self.app.type(data)
        self._last = time.monotonic()
        time.sleep(KEY_GAP)

    def text(self, text: str) -> None:
        for char in text:
            self.key(char)

    def until(self, visible: str, then: int) -> tuple[str, int]:
        """Type ``w00,w01,…`` until ``visible`` is on screen, then ``then`` more keys. Returns
        what was typed and how many keys came before ``visible`` showed."""
        stream = "".join(f"w{i:02d}," for i in range(100))
        arrived: int | None = None
        for count, char in enumerate(stream):
            if arrived is None and visible in self.app.text():
                arrived = count
            if arrived is not None and count >= arrived + then:
                return stream[:count], arrived
            self.key(char)
        raise ScreenTimeoutError(f"{visible!r} never appeared while typing:\n{self.app.text()}")

    def check_burst(self) -> None:
        """The precondition of a burst test (not a product assertion): no gap near the guard."""
        assert self.longest < GUARD - 0.2, (
            f"not a burst: the test process stalled {self.longest:.2f} s between two keys "
            "(machine load), so the keys rightly went to the panel; rerun on a quieter machine"
        )


def highlighted(app: PtyApp, row: int) -> str:
    """The characters of screen row ``row`` drawn highlighted (reverse video or a background
    colour): the selected chip of a tab strip."""
    with app._lock:  # the reader thread feeds the screen concurrently
        line = app.screen.buffer[row]
        cells = [line[x] for x in range(app.screen.columns)]
    return "".join(c.data for c in cells if c.reverse or c.bg != "default")
