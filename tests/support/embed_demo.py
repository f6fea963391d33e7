"""The minimal embedding demo (``demos/embed_minimal.py``) played as a person plays it.

Shared by the demo's own test (tests/test_public_api.py, from the source tree) and the
packaging test (tests/test_packaging.py, from an installed wheel): an async question from the
planner, a blocking one from the reviewer answered in the panel, a withdrawal, then Ctrl+C.
"""

from __future__ import annotations

from pathlib import Path

from asks.store.journal import read_records
from support.pty_harness import PtyApp
from support.typist import after_claim_guard


def play_the_demo(app: PtyApp) -> None:
    """Drive the running demo through its four words; it must end with exit status 0."""
    app.wait_for("Type ask, block or withdraw")
    app.type("ask")
    app.press("enter")
    app.wait_for(r"planner: Questions sent to the user without blocking")
    app.wait_for(r"\[DB \(planner\)\]")
    app.type("block")
    app.press("enter")
    app.wait_for(r"Questions \(2\) ⚠ required")
    app.wait_for(r"Ship \(reviewer\)")
    after_claim_guard()  # the typing guard: a pause before the panel takes keys
    app.wait_for(r"│ › 1\. Yes")
    app.press("down")
    app.wait_for(r"│ › 2\. Not yet")
    app.press("enter")
    app.wait_for(r'reviewer: User has answered your questions: "Ship it now\?"="Not yet"')
    app.wait_for("reviewer decided: Not yet")  # the typed result
    app.type("withdraw")  # the keyboard is back in the editor
    app.press("enter")
    app.wait_for("planner withdrew its question")
    app.wait_for("Asks: none pending")
    app.press("ctrl c")
    assert app.wait_exit() == 0


def journal_kinds(data_dir: Path) -> list[str]:
    """The entry kinds of the one session the demo wrote in ``data_dir``."""
    [journal] = data_dir.glob("*.jsonl")
    return [type(r.entry).__name__ for r in read_records(journal.stem, data_dir=data_dir)]


def play_the_taskrunner(app: PtyApp) -> None:
    """Drive demos/embed_taskrunner.py: an async question answered later through ``/asks``, a
    blocking one with only its options (no ``Type something.`` row), a refused ``/asks ID``,
    then Ctrl+C; it must end with exit status 0."""
    app.wait_for("Tasks: deploy, clean")
    app.wait_for(r"taskrunner · running: nothing · done: 0")
    app.type("clean")
    app.press("enter")
    app.wait_for(r"clean: build-40 is old")  # the task goes on while its question waits
    app.wait_for(r"Delete the 3 build folders older than a week\?")
    app.wait_for(r"running: clean · done: 0")
    app.type("deploy")
    app.press("enter")
    app.wait_for(r"Deploy build 42 to which environment\?")
    app.wait_for(r"keys: question “Deploy”")
    app.wait_for(r"│ › 1\. staging")
    assert "Type something." not in app.text(), app.text()
    assert "3." not in app.text(), app.text()
    app.press("down")
    app.wait_for(r"│ › 2\. production")
    app.press("down")  # two rows only: the cursor wraps to the first
    app.wait_for(r"│ › 1\. staging")
    app.press("enter")
    app.wait_for(r"deploy: deployed build 42 to staging")
    app.wait_for(r"running: clean · done: 1")
    app.wait_for(r"keys: chat")
    app.type("/asks q-0000000000")
    app.press("enter")
    app.wait_for(r"No pending question with id q-0000000000\.")
    app.type("/asks")
    app.press("enter")
    app.wait_for(r"keys: question “Clean”")
    app.press("enter")  # Delete them
    app.wait_for(r"clean: deleted 3 folders")
    app.wait_for(r"running: nothing · done: 2")
    app.wait_for("Asks: none pending")
    app.press("ctrl c")
    assert app.wait_exit() == 0
