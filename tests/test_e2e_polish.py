"""Small things that show on screen, each under a pty on the real ``asks``: what the
Review tab shows of an answer given in the browser, and (below) the transcript's lines."""

from __future__ import annotations

import itertools
import re

import httpx
import pytest
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.screen import flat
from support.typist import after_claim_guard

pytestmark = pytest.mark.e2e


def answer_in_browser(app: PtyApp, question: str, fields: dict[str, str]) -> None:
    """Answer ``question`` on the web page (its own form) with ``fields`` added."""
    url = app.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)").group(1)
    origin = url.split("/?", 1)[0]
    page = httpx.get(url, timeout=10).text
    [form] = [f for f in re.findall(r"<article.*?</form>", page, re.S) if question in f]
    action = re.search(r'action="([^"]+)"', form)
    assert action is not None
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
    sent = httpx.post(
        origin + action.group(1).replace("&amp;", "&"),
        data={**hidden, "action": "answer", **fields},
        headers={"Origin": origin},
        timeout=10,
    )
    assert sent.status_code in (200, 303), sent.text


def test_review_shows_the_notes_written_in_the_browser(launch: Launcher) -> None:
    """A question of a blocking group answered in the browser with a note, and a note for
    all: the Review card said ``→ Red (in the browser)`` and nothing of either note."""
    app = launch.start("--web", script="group_note.toml", cols=200, rows=40)
    app.wait_for(r"Questions \(2\) ⚠ required")
    after_claim_guard()  # the panel has the keys, on "Colour"
    fields = {"choice": "0", "notes": "the brand red", "group_note": "for the launch page"}
    answer_in_browser(app, "Pick a colour", fields)
    app.wait_for(r"answered in the browser: Red")
    app.wait_for(r"│ Pick a size")
    after_claim_guard()
    app.press("enter")  # "Colour" went under the keys: on "Size", this Enter is only armed
    app.wait_for(r"press Enter again to choose “Small”")
    app.press("enter")  # Small, staged; Review comes next
    app.wait_for(r"Review your answers")
    app.wait_for(r"→ Red \(in the browser\)  \(notes: the brand red\)")
    app.wait_for(r"Note for all: for the launch page \(in the browser\)")
    app.press("enter")
    app.wait_for("GOT-RESULT")
    said = flat(app)
    assert "the brand red" in said and "for the launch page" in said  # the model got both


def interrupt_then_answer(app: PtyApp, working: str, answer: str) -> None:
    """Ctrl+C while the tour's ``working`` runs, then answer the pending question from the
    panel (Enter on its first option): the feedback wakes the agent."""
    app.wait_for(rf"⚙ work · .*{working}")
    app.press("ctrl c")
    app.wait_for(rf"{working} → interrupted")
    app.wait_for(r"idle$")
    app.press("shift tab")
    app.wait_for(r"Enter confirm")
    app.press("enter")
    app.wait_for(rf"Got your answer: {answer}\. I'll take it into account\.")
    app.wait_for(r"idle$")


def test_an_interrupted_tour_never_claims_the_work_finished(launch: Launcher) -> None:
    """After Ctrl+C cut the tour's indexing short, the answer that woke it was followed by the
    interrupted step's next line: "Indexing is done. Before I change anything …"."""
    app = launch.start(cols=120, rows=40)
    interrupt_then_answer(app, "indexing the repository", "English")
    assert "Indexing is done" not in flat(app)


def test_interrupted_work_is_not_said_to_be_finished(launch: Launcher) -> None:
    """The tour's ``ask`` step, interrupted during its work: "Draft finished." followed the
    answer (one Ctrl+C per app: a second one within two seconds quits)."""
    app = launch.start(script="interrupted_work.toml", cols=120, rows=40)
    interrupt_then_answer(app, "drafting the endpoint", "Yes")
    assert "Draft finished" not in flat(app)


def order_of(app: PtyApp, *patterns: str) -> list[int]:
    """The screen row each pattern is first found on."""
    rows = app.text().splitlines()
    return [next(i for i, row in enumerate(rows) if re.search(p, row)) for p in patterns]


PERMISSION_ORDER = (
    r"⚙ run_command · command: make deploy$",
    r"⚑ permission allowed: Allow the agent to run: make deploy",
    r"⚙ run_command → Ran 'make deploy' \(simulated\): exit status 0\.",
)


def test_the_permission_decision_comes_before_what_the_command_did(launch: Launcher) -> None:
    """``⚑ permission allowed`` was drawn after the command's result (on the ``⚙`` line above
    it), live and on resume."""
    app = launch.start(script="line_permission.toml", cols=120, rows=40)
    app.wait_for(r"Allow the agent to run: make deploy")
    after_claim_guard()
    app.press("y")
    app.wait_for(r"PERMISSION-DONE")
    app.wait_for(PERMISSION_ORDER[2])
    live = order_of(app, *PERMISSION_ORDER)
    assert live == sorted(live), app.text()
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0
    again = launch.start("--resume", launch.journal().stem, script="line_permission.toml")
    again.wait_for(r"Resumed session")
    again.wait_for(PERMISSION_ORDER[2])
    resumed = order_of(again, *PERMISSION_ORDER)
    assert resumed == sorted(resumed), again.text()
    gaps = [b - a for a, b in itertools.pairwise(live)]
    assert gaps == [b - a for a, b in itertools.pairwise(resumed)]  # the same lines, in turn
