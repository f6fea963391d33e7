"""The second embedding, demos/embed_taskrunner.py, played under a real pty.

The demo was written from docs/embedding.md alone: a task runner whose "agent" is a program,
with its own header line. Here it runs from the source tree (tests/test_core_install.py runs
it in the core-only venv): a non-blocking question answered later with ``/asks``, a blocking
question without a ``Type something.`` row (``"custom": false``), ``/asks ID`` refused in the
status line, the header kept on screen at a small size while the panel has the keys.
"""

from __future__ import annotations

from pathlib import Path

from support.embed_demo import journal_kinds, play_the_taskrunner
from support.pty_harness import ROOT, PtyApp

DEMO = ROOT / "demos" / "embed_taskrunner.py"


def test_the_taskrunner_answers_its_tasks_through_the_panel(tmp_path: Path) -> None:
    data = tmp_path / "data"
    app = PtyApp([str(data)], program=[str(DEMO)], cwd=tmp_path)
    try:
        play_the_taskrunner(app)
    finally:
        app.close()
    kinds = journal_kinds(data)
    assert kinds.count("Resolved") == 2, kinds


def test_the_header_stays_on_screen_while_the_panel_has_the_keys(tmp_path: Path) -> None:
    app = PtyApp([str(tmp_path / "data")], program=[str(DEMO)], cwd=tmp_path, cols=60, rows=12)
    try:
        app.wait_for("Tasks: deploy, clean")
        app.type("deploy")
        app.press("enter")
        app.wait_for(r"keys: question “Deploy”")
        rows = app.text().splitlines()
        assert rows[0].startswith(" taskrunner · running: deploy"), rows
        assert rows[-1].startswith("Asks: 1 pending"), rows
        assert any(row.startswith("deploy: build 42 is ready") for row in rows), rows
        app.press("ctrl c")
        assert app.wait_exit() == 0
    finally:
        app.close()
