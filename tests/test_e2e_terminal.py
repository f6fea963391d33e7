"""The terminal is left exactly as it was found, however asks ends.

Each test runs a real program under a pty (tests/support/pty_harness.py): the terminal's settings
(``termios.tcgetattr``: flags, speeds and every control character) are read in the child just
before it execs the program, and again after the program exited; they must be equal. The
REPL switches the terminal's signal keys off so that Ctrl+C reaches it as a key — after the
screen saved the settings (``AsksScreen(signal_keys=False)``), so its stop restores them.
"""

from __future__ import annotations

import ast
import json
import os
import pty
import select
import signal
import sys
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.paths import SUPPORT
from support.pty_harness import ROOT, SYNC_QUERY, SYNC_REPLY, PtyApp

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
SCRIPTS = TESTS / "scripts"
DEMO = ROOT / "demos" / "embed_minimal.py"
CTRL_D = "\x04"


class Apps:
    """Starts programs with a private data dir and config home; closes every one at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.data_dir = tmp_path / "data"
        self.env = {
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        }
        self.started: list[PtyApp] = []

    def asks(self, *args: str) -> PtyApp:
        argv = ["--data-dir", str(self.data_dir), *args]
        return self.program(argv)

    def program(self, args: list[str], program: tuple[str, ...] = ("-m", "asks")) -> PtyApp:
        app = PtyApp(args, env=self.env, program=program)
        self.started.append(app)
        return app


@pytest.fixture
def apps(tmp_path: Path) -> Iterator[Apps]:
    made = Apps(tmp_path)
    try:
        yield made
    finally:
        for app in made.started:
            app.close()


def assert_left_as_found(app: PtyApp) -> None:
    after = app.termios_now()
    assert after == app.termios_at_start, describe(app.termios_at_start, after)


def describe(before: list[object], after: list[object]) -> str:
    names = ["iflag", "oflag", "cflag", "lflag", "ispeed", "ospeed"]
    diffs = [
        f"{n}: {b!r} -> {a!r}" for n, b, a in zip(names, before, after, strict=False) if a != b
    ]
    cc_before, cc_after = before[6], after[6]
    assert isinstance(cc_before, list) and isinstance(cc_after, list)
    pairs = enumerate(zip(cc_before, cc_after, strict=True))
    diffs += [f"cc[{i}]: {b!r} -> {a!r}" for i, (b, a) in pairs if a != b]
    return "the terminal was changed: " + "; ".join(diffs)


# ---------------------------------------------------------------------------- the REPL
def quit_command(app: PtyApp) -> int:
    app.type("/quit")
    app.press("enter")
    return 0


def ctrl_c_twice(app: PtyApp) -> int:
    app.press("ctrl c")
    app.wait_for(r"Press Ctrl\+C again to quit\.")
    app.press("ctrl c")
    return 0


def sigint_twice(app: PtyApp) -> int:
    """SIGINT from outside (the terminal's Ctrl+C is a key here) counts as Ctrl+C."""
    app.proc.kill(signal.SIGINT)
    app.wait_for(r"Press Ctrl\+C again to quit\.")
    app.proc.kill(signal.SIGINT)
    return 0


def sigterm(app: PtyApp) -> int:
    app.proc.kill(signal.SIGTERM)
    return 128 + signal.SIGTERM


def sighup(app: PtyApp) -> int:
    app.proc.kill(signal.SIGHUP)
    return 128 + signal.SIGHUP


ENDINGS = {
    "/quit": quit_command,
    "ctrl c twice": ctrl_c_twice,
    "SIGINT twice": sigint_twice,
    "SIGTERM": sigterm,
    "SIGHUP": sighup,
}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_the_repl_leaves_the_terminal_as_it_found_it(apps: Apps, ending: str) -> None:
    app = apps.asks("--script", str(SCRIPTS / "wake.toml"))
    app.wait_for(r"╎ Pick a number\?")
    app.wait_for(r"idle$")
    status = ENDINGS[ending](app)
    exited = app.wait_exit()
    assert_left_as_found(app)
    assert exited == status
    [journal] = apps.data_dir.glob("*.jsonl")
    assert f"Session {journal.stem} saved.".encode() in app.raw_bytes()  # closed, then said


def test_a_terminal_closed_under_the_repl_ends_it_as_its_hangup(tmp_path: Path) -> None:
    """The terminal window closed: the pty's other side is gone, the REPL's input reads end
    of file (and the kernel may hang it up). It ends as SIGHUP does: status 128 + SIGHUP, the
    journal closed (its checkpoint written), nothing logged as an error. Its own pty (not
    :class:`PtyApp`, whose reader thread would hold the terminal's side open)."""
    log, data = tmp_path / "debug.log", tmp_path / "data"
    script = str(SCRIPTS / "wake.toml")
    argv = ["--data-dir", str(data), "--debug-log", str(log), "--script", script]
    pid, fd = pty.fork()
    if pid == 0:  # the child: asks on the pty
        os.environ.update(TERM="xterm-256color", LANG="C.UTF-8", PYTHONPATH=str(ROOT))
        os.environ.update(XDG_CONFIG_HOME=str(tmp_path / "config"))
        os.execv(sys.executable, [sys.executable, "-m", "asks", *argv])
    termios.tcsetwinsize(fd, (30, 100))
    seen = b""
    while b"Pick a number?" not in seen:  # the first question is on screen: the REPL runs
        ready, _, _ = select.select([fd], [], [], 30)
        assert ready, f"nothing more from the REPL: {seen[-500:]!r}"
        more = os.read(fd, 65536)
        if SYNC_QUERY in more:  # as a terminal does (tests/support/pty_harness.py)
            os.write(fd, SYNC_REPLY)
        seen += more
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 128 + signal.SIGHUP, log.read_text()[-3000:]
    assert " ERROR " not in log.read_text()
    assert list(data.glob("*.checkpoint*"))


def test_a_crash_of_the_agent_leaves_the_terminal_as_it_found_it(apps: Apps) -> None:
    app = apps.program([str(apps.data_dir)], program=(str(SUPPORT / "repl_crash_child.py"),))
    app.wait_for("READY-TO-CRASH")
    app.type("crash")
    app.press("enter")
    assert app.wait_exit() != 0
    assert_left_as_found(app)
    assert b"AgentCrashed: the agent crashed (on purpose)" in app.raw_bytes()


def test_the_external_editor_gets_the_terminal_as_the_person_has_it(
    apps: Apps, tmp_path: Path
) -> None:
    """Ctrl+G stops the screen while $VISUAL runs: the editor sees the person's settings
    (Ctrl+C is their interrupt key again), and the signal keys go off again after it."""
    seen = tmp_path / "editor-termios"
    apps.env["VISUAL"] = f"{sys.executable} {SUPPORT / 'fake_editor.py'}"
    apps.env["FAKE_EDITOR_LOG"] = str(tmp_path / "editor.log")
    apps.env["FAKE_EDITOR_TERMIOS"] = str(seen)
    app = apps.asks("--script", str(SCRIPTS / "wake.toml"))
    app.wait_for(r"╎ Pick a number\?")
    app.press("shift tab")
    app.wait_for(r"┌─ Questions \(\d+\)")
    app.press("3")  # the Type something. row
    app.type("draft")
    app.press("ctrl g")
    app.wait_for(r"added by the editor")
    assert ast.literal_eval(seen.read_text()) == app.termios_at_start
    ctrl_c_twice(app)  # Ctrl+C is a key again once the screen is back
    assert app.wait_exit() == 0
    assert_left_as_found(app)


# ---------------------------------------------------------------------------- other programs
def test_the_embedding_demo_leaves_the_terminal_as_it_found_it(apps: Apps) -> None:
    app = apps.program([str(apps.data_dir)], program=(str(DEMO),))
    app.wait_for("Type ask, block or withdraw")
    app.press("ctrl c")  # a key in the demo (it quits): not SIGINT
    assert app.wait_exit() == 0
    assert_left_as_found(app)
    assert b"session saved:" in app.raw_bytes()


@pytest.mark.parametrize("ending", ["end of input", "ctrl c twice"])
def test_line_mode_leaves_the_terminal_as_it_found_it(apps: Apps, ending: str) -> None:
    app = apps.asks("--line", "--script", str(SCRIPTS / "wake.toml"))
    app.wait_for(r"^you>")
    if ending == "end of input":
        app.type(CTRL_D)
        status = 0
    else:
        app.press("ctrl c")
        app.wait_for(r"Press Ctrl\+C again to quit\.")
        app.press("ctrl c")
        status = 130
    assert app.wait_exit() == status
    assert_left_as_found(app)


def test_ctrl_c_still_interrupts_line_mode_started_after_the_repl(apps: Apps) -> None:
    """What a person saw: after /quit, ``asks --line`` in the same terminal ignored Ctrl+C
    (the REPL had left the interrupt key switched off)."""
    base = [
        sys.executable,
        "-m",
        "asks",
        "--data-dir",
        str(apps.data_dir),
        "--script",
        str(SCRIPTS / "wake.toml"),
    ]
    commands = json.dumps([base, [*base, "--line"]])
    app = apps.program([commands], program=(str(SUPPORT / "in_turn_child.py"),))
    app.wait_for(r"╎ Pick a number\?")
    quit_command(app)
    app.wait_for(r"\[exit 0\]")
    app.wait_for(r"^you>")
    app.press("ctrl c")
    app.wait_for(r"Press Ctrl\+C again to quit\.")
    app.press("ctrl c")
    app.wait_for(r"\[exit 130\]")
    assert app.wait_exit() == 130
    assert_left_as_found(app)
