"""The pty harness shows whole frames only (tests/support/pty_harness.py, docs/testing.md).

A frame the app wraps in synchronized output reaches the screen once its end has arrived, in
whatever pieces the pty delivered it; the real app, told by the harness that the terminal
does synchronized output, wraps its frames.
"""

from __future__ import annotations

import pytest
from support.launcher import Launcher
from support.pty_harness import FRAME_BEGIN, FRAME_END, SYNC_QUERY, whole_frames
from support.screen import eventually

FRAME = FRAME_BEGIN + b"\x1b[1;1Hpanel\x1b[2;1Hchat" + FRAME_END


def test_a_frame_waits_for_its_end() -> None:
    assert whole_frames(b"before" + FRAME[:12]) == (b"before", FRAME[:12])
    assert whole_frames(FRAME[:12] + FRAME[12:]) == (FRAME, b"")


def test_text_outside_frames_and_whole_frames_pass_at_once() -> None:
    assert whole_frames(b"plain output") == (b"plain output", b"")
    assert whole_frames(FRAME + b"after" + FRAME) == (FRAME + b"after" + FRAME, b"")


@pytest.mark.parametrize("cut", range(1, len(FRAME_BEGIN)))
def test_a_frame_start_cut_between_two_reads_is_held(cut: int) -> None:
    assert whole_frames(b"x" + FRAME_BEGIN[:cut]) == (b"x", FRAME_BEGIN[:cut])


def test_every_piece_of_a_frame_fed_in_any_split_shows_only_whole_frames() -> None:
    stream = b"start" + FRAME + FRAME.replace(b"panel", b"other")
    for size in (1, 3, 7, len(FRAME) - 1):
        held, shown = b"", b""
        for at in range(0, len(stream), size):
            ready, held = whole_frames(held + stream[at : at + size])
            shown += ready
            assert shown.count(FRAME_BEGIN) == shown.count(FRAME_END), (size, shown)
        assert shown + held == stream


@pytest.mark.e2e
def test_the_app_wraps_its_frames_once_the_harness_answers(launch: Launcher) -> None:
    app = launch.start(script="two_async.toml")
    app.wait_for(r"Questions \(2\)")
    app.press("shift tab")  # one more frame, certainly after the reply
    eventually(app, lambda: FRAME_BEGIN in app.raw_bytes(), "no frame was wrapped")
    raw = app.raw_bytes()
    assert raw.count(SYNC_QUERY) == 1
    assert raw.count(FRAME_BEGIN) - raw.count(FRAME_END) in (0, 1)  # the last may be arriving
