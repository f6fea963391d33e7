"""Ctrl+G with an editor that cannot start or fails: one line, the draft kept, asks runs on.

The real ``asks`` under a pty (tests/support/pty_harness.py): the person enters the panel,
types a reply on the ``Type something.`` row and presses Ctrl+G. When ``$VISUAL``/``$EDITOR``
names a program that does not exist, exits non-zero or is killed, the panel says so in one
line, the reply typed before is still in the reply editor (nothing the editor left in its
file is taken), and the next keys still type there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from support.launcher import Launcher
from support.paths import SUPPORT
from support.pty_harness import PtyApp
from support.screen import enter_panel, in_panel, wait_panel

pytestmark = pytest.mark.e2e


def failing_editor(launch: Launcher, tmp_path: Path) -> None:
    """``$VISUAL`` is ``failing-editor``, on ``PATH`` (tests/support/failing_editor.py)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    program = folder / "failing-editor"
    source = (SUPPORT / "failing_editor.py").read_text(encoding="utf-8")
    program.write_text(f"#!{sys.executable}\n{source}", encoding="utf-8")
    program.chmod(0o755)
    launch.env["PATH"] = f"{folder}{os.pathsep}{os.environ['PATH']}"
    launch.env["VISUAL"] = "failing-editor"


def typed_a_reply(launch: Launcher) -> PtyApp:
    """asks with one question; the person on its ``Type something.`` row has typed a reply."""
    app = launch.start(script="wake.toml")
    app.wait_for(r"╎ Pick a number\?")
    enter_panel(app)
    app.press("3")  # the Type something. row
    app.type("my draft")
    wait_panel(app, r"my draft")
    return app


def assert_still_running_with_the_draft(app: PtyApp) -> None:
    """The reply typed before is in the reply editor, the editor's file was not taken, and
    the next key still types there (asks runs, the screen is back)."""
    assert in_panel(app, r"my draft"), app.text()
    assert "written by the failing editor" not in app.text()
    app.type(" more")
    wait_panel(app, r"my draft more")
    assert app.proc.isalive()
    assert "Traceback" not in app.text() and "ExceptionGroup" not in app.text()


def test_an_editor_that_does_not_exist_is_one_line(launch: Launcher) -> None:
    launch.env["EDITOR"] = "no-such-editor-asks-test"
    launch.env["VISUAL"] = ""
    app = typed_a_reply(launch)
    app.press("ctrl g")
    app.wait_for(
        r"Could not start the editor “no-such-editor-asks-test”: not found — set \$VISUAL "
        r"or \$EDITOR"
    )
    assert_still_running_with_the_draft(app)


def test_an_editor_that_exits_non_zero_leaves_the_draft(launch: Launcher, tmp_path: Path) -> None:
    failing_editor(launch, tmp_path)
    app = typed_a_reply(launch)
    app.press("ctrl g")
    app.wait_for(r"The editor “failing-editor” exited with status 1; the draft is unchanged\.")
    assert_still_running_with_the_draft(app)


def test_an_editor_that_is_killed_leaves_the_draft(launch: Launcher, tmp_path: Path) -> None:
    failing_editor(launch, tmp_path)
    launch.env["FAKE_EDITOR_SIGNAL"] = "SIGKILL"
    app = typed_a_reply(launch)
    app.press("ctrl g")
    app.wait_for(r"The editor “failing-editor” was ended by SIGKILL; the draft is unchanged\.")
    assert_still_running_with_the_draft(app)
