"""A long session under a pty: the real ``asks --resume`` of a generated
100,000-entry session shows its end, scrolls up to its very first message (the older
entries are drawn as PgUp reaches them), and answers the question left pending: the answer
is journaled once."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.screen import PANEL_FOCUSED, enter_panel

from asks.store.entries import ChatMessage
from asks.store.journal import Journal
from bench import workload

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ENTRIES = 100_000
SESSION = "long-session"
ROWS = 100
BATCH = 25  # PgUps sent at once (urwid reads them in one go and draws once)


def make_session(data_dir: Path) -> tuple[str, str]:
    """The session's journal and its index; (its first message, the pending question)."""
    data_dir.mkdir(parents=True)
    records = workload.records(ENTRIES)
    records += workload.pending_cycle(len(records))
    workload.write_journal(data_dir, SESSION, records)
    journal, _ = Journal.open(SESSION, data_dir=data_dir)  # writes the index
    journal.close()
    first = next(r.entry for r in records if isinstance(r.entry, ChatMessage))
    return first.content, workload.PENDING_QUESTION


def page_up_until(app: PtyApp, pattern: str) -> int:
    """PgUp until ``pattern`` is on screen, waiting after each batch for the screen to move
    (progress, not time): a batch that moves nothing fails. How many batches it took."""
    regex = re.compile(pattern, re.MULTILINE)
    batches = 0
    while not regex.search(app.text()):
        before = app.text()
        app.type("\x1b[5~" * BATCH)
        wait_for_change(app, before)
        batches += 1
    return batches


def wait_for_change(app: PtyApp, before: str, timeout: float = 60) -> None:
    """Wait until the screen is no longer ``before`` (a key that moves nothing fails)."""
    deadline = time.monotonic() + timeout
    while app.text() == before:
        if time.monotonic() > deadline:
            raise AssertionError(f"PgUp moved nothing:\n{before}")
        time.sleep(0.02)


def resolved_lines(journal: Path, question: str) -> int:
    """How many ``resolved`` lines answer the question whose text is ``question``."""
    qid = None
    count = 0
    for line in journal.read_text().splitlines():
        if '"group_asked"' in line and question in line:
            qid = re.search(r'"ref":\{"id":"([^"]+)"', line).group(1)  # type: ignore[union-attr]
        if '"resolved"' in line and qid is not None and f'"id":"{qid}"' in line:
            count += 1
    return count


def test_resume_100k_scroll_to_the_first_message_and_answer_once(launch: Launcher) -> None:
    first, question = make_session(launch.data_dir)
    app = launch.start("--resume", SESSION, rows=ROWS)
    app.wait_for(rf"Resumed session {SESSION}: 1 pending")
    app.wait_for(re.escape(question))
    assert first[:40] not in app.text()  # only the end is drawn
    batches = page_up_until(app, re.escape(f"you › {first[:40]}"))
    assert batches > 10  # it took pages: the history was drawn as they reached it
    enter_panel(app)
    app.wait_for(PANEL_FOCUSED)
    app.press("enter")  # its first option
    app.wait_for(r"^Asks: none pending")
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit(timeout=120) == 0  # all of the history is in memory by now
    assert resolved_lines(launch.journal(), question) == 1
