"""Typing into the real app like a person, and the pauses that are the behaviour under test.

The app's typing guard (:data:`asks.core.focus.TYPING_GUARD`): a claim
takes the keyboard only once that long has passed with no key since the later of the claim and
the last key. So these are the only timed actions of the pty tests: the typist's key gap (a
burst), and a pause longer than the guard (the person stops typing). Everything else waits on
the screen's progress (tests/support/screen.py). A test of a burst starts its app with the
longer :data:`BURST_GUARD` (``Launcher.start(typing_guard=…)``): then only a stall of the test
process longer than that turns its burst into a pause (the load dependence of the default's
0.6 s, seen with eight agents on two cores).
"""

from __future__ import annotations

import time

from asks.core.focus import TYPING_GUARD
from support.pty_harness import PtyApp, ScreenTimeoutError
from support.screen import PANEL_FOCUSED

KEY_GAP = 0.066  # seconds between typed keys: ~15 keys/s
# The typing guard the burst tests start the app with ([ui] typing_guard): a burst stays a
# burst unless the test process stalls this long between two keys, not the default's 0.6 s.
BURST_GUARD = 2.5


def pause() -> None:
    """The person keeps off the keyboard for longer than the typing guard, with a margin for
    an app busy reading its input."""
    time.sleep(TYPING_GUARD + 0.6)


def pause_until_panel_has_keys(app: PtyApp) -> None:
    """Keep off the keyboard for longer than the app's typing guard, then wait until the panel
    shows it has the keyboard (solid border)."""
    time.sleep(app.typing_guard + 0.6)
    app.wait_for(PANEL_FOCUSED)


def wait_prompt_has_keys(app: PtyApp) -> None:
    """A permission prompt is on screen: wait (on the screen, no sleep) until it has the keys —
    it takes them once nobody typed for the guard's time (the status line says so)."""
    app.wait_for(r"keys: prompt")


def after_claim_guard() -> None:
    """A blocker just claimed focus (it is on screen): for the guard's time after the claim,
    keys still go where the person aimed them. The claim happened before the screen showed it,
    so waiting the guard (plus a margin) from *now* always clears it."""
    time.sleep(TYPING_GUARD + 0.15)


class Typist:
    """Types into ``app`` one key every :data:`KEY_GAP` seconds, like a person typing fast, and
    remembers the longest gap it really left between two keys: on a loaded machine the test
    process itself can stall, and a stall longer than the guard is a pause the app must honour
    (then the run is no burst and says nothing about the product: :meth:`check_burst`). It
    never waits for the screen while it types (the reader thread holds the screen while it
    feeds a frame, which on a loaded machine took longer than the guard)."""

    def __init__(self, app: PtyApp) -> None:
        self.app = app
        self.longest = 0.0
        self._last: float | None = None
        self.last_key_at = float("-inf")  # time.monotonic() just after the last key was sent

    def key(self, data: str) -> None:
        now = time.monotonic()
        if self._last is not None:
            self.longest = max(self.longest, now - self._last)
        self.app.type(data)
        self._last = time.monotonic()
        self.last_key_at = self._last
        time.sleep(KEY_GAP)

    def text(self, text: str) -> None:
        for char in text:
            self.key(char)

    def until(self, visible: str, then: int, stream: str = "") -> tuple[str, int]:
        """Type ``stream`` (default ``w00,w01,…``) until ``visible`` is on screen, then ``then``
        more keys. Returns what was typed and how many keys came before ``visible`` showed."""
        stream = stream or "".join(f"w{i:02d}," for i in range(100))
        arrived: int | None = None
        for count, char in enumerate(stream):
            if arrived is None and visible in (self.app.text_now() or ""):
                arrived = count  # (a screen being fed is looked at after the next key)
            if arrived is not None and count >= arrived + then:
                return stream[:count], arrived
            self.key(char)
        raise ScreenTimeoutError(f"{visible!r} never appeared while typing:\n{self.app.text()}")

    def check_burst(self) -> None:
        """The precondition of a burst test (not a product assertion): no gap near the guard."""
        assert self.longest < self.app.typing_guard - 0.2, (
            f"not a burst: the test process stalled {self.longest:.2f} s between two keys "
            "(machine load), so the keys rightly went to the panel; rerun on a quieter machine"
        )
