"""The note for all questions of a group, end to end: the real ``asks``
under a pty; the person answers a blocking group, writes one note on the Review tab (Alt+N)
and submits; the model-side text (the scripted agent says its tool result back) and the
journal carry the note, the result card shows it, and so does the transcript after a resume.
"""

from __future__ import annotations

import pytest
from support.launcher import Launcher
from support.screen import flat
from support.typist import after_claim_guard

pytestmark = pytest.mark.e2e


NOTE = "both for the staging box"


def test_a_note_written_on_review_reaches_the_model_with_the_answers(launch: Launcher) -> None:
    app = launch.start(script="group_note.toml", cols=120, rows=40)
    app.wait_for(r"Questions \(2\) ⚠ required")
    app.wait_for(r"│ Pick a colour")
    after_claim_guard()
    app.press("enter")  # Red, staged
    app.wait_for(r"│ Pick a size")
    app.press("enter")  # Small, staged; the Review tab comes next
    app.wait_for(r"Review your answers")
    app.wait_for(r"Alt\+N note for all")
    app.press("meta n")
    app.wait_for(r"│ Note for all:")
    app.type(NOTE)
    app.wait_for(rf"│ Note for all: {NOTE}")
    assert not [r for r in launch.records() if r["type"] == "resolved"]  # only a draft
    app.press("enter")

    app.wait_for("GOT-RESULT")
    app.wait_for(rf"note for all questions: {NOTE}")  # the result card
    said = f"User note for all questions: {NOTE}."
    assert said in flat(app), app.text()  # the model's text, said back by the agent
    records = launch.records()
    [resolved] = [r for r in records if r["type"] == "resolved"]
    assert resolved["group_note"] == NOTE
    [result] = [r for r in records if r["type"] == "tool_result"]
    assert said in str(result["text"])
    assert result["details"]["groupNote"] == NOTE  # type: ignore[index]

    app.wait_for(r"idle$")
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0
    session = launch.journal().stem
    resumed = launch.start("--resume", session, script="group_note.toml", cols=120, rows=40)
    resumed.wait_for(rf"Resumed session {session}")
    resumed.wait_for(rf"note for all questions: {NOTE}")  # the rebuilt result card
    resumed.type("/quit")
    resumed.press("enter")
    assert resumed.wait_exit() == 0
