"""Start-up messages. A data dir that cannot be used at start: one line saying what and where,
exit 1, no traceback; config warnings: on stderr and, in the REPL, as transcript notices.

The real ``asks`` command, in a child process: the REPL under a real pty (the line must be what
the terminal shows, before any screen is drawn), ``-p`` and ``sessions`` with pipes. Two real
failures, no fault injection in the program:

* **not writable**: ``--data-dir`` below a regular file (``ENOTDIR`` from the kernel; unlike a
  0500 directory this also refuses root, which the test may run as);
* **disk full**: the child's ``RLIMIT_FSIZE`` is 0, so the kernel refuses the journal's first
  write (``EFBIG``, Python ignores ``SIGXFSZ``): the same path as ``ENOSPC`` — an ``os.write``
  that fails — without needing a mount.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import ptyprocess
import pyte
import pytest
from support.pty_harness import ROOT, PtyApp

from asks.store.journal import Journal

EXIT_STORAGE = 1


def no_file_writes() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def asks(
    *args: str, tmp: Path, preexec: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return subprocess.run(
        [sys.executable, "-m", "asks", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
        preexec_fn=preexec,
        stdin=subprocess.DEVNULL,
    )


def assert_one_line(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    assert result.returncode == EXIT_STORAGE, result
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("asks: cannot "), line
    assert "Traceback" not in result.stderr and "Errno" not in line
    for text in expected:
        assert text in line, line
    return line


@pytest.fixture
def blocked_dir(tmp_path: Path) -> Path:
    """A data dir that cannot exist: its parent is a regular file."""
    (tmp_path / "config").mkdir()
    plain = tmp_path / "plain-file"
    plain.write_text("not a directory\n")
    return plain / "sessions"


def test_headless_with_an_unwritable_data_dir(tmp_path: Path, blocked_dir: Path) -> None:
    result = asks("--data-dir", str(blocked_dir), "-p", "hello", tmp=tmp_path)
    assert_one_line(result, "start a new session", str(blocked_dir), os.strerror(20))


def test_sessions_with_an_unreadable_data_dir(tmp_path: Path, blocked_dir: Path) -> None:
    plain = blocked_dir.parent
    result = asks("sessions", "--data-dir", str(plain), tmp=tmp_path)
    assert_one_line(result, "list the sessions", str(plain), "Not a directory")


def test_headless_on_a_full_disk_saves_nothing(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    data_dir = tmp_path / "sessions"
    result = asks("--data-dir", str(data_dir), "-p", "hello", tmp=tmp_path, preexec=no_file_writes)
    assert_one_line(result, "start a new session", str(data_dir), "File too large")
    assert list(data_dir.iterdir()) == []  # the half-made session file is removed


def test_a_session_open_elsewhere_is_one_line_without_an_errno(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    data_dir = tmp_path / "sessions"
    Journal.create(data_dir=data_dir, session_id="s1").close()
    journal, _ = Journal.open("s1", data_dir=data_dir)
    with journal:
        result = asks("--data-dir", str(data_dir), "--resume", "s1", "-p", "hi", tmp=tmp_path)
    assert result.returncode != 0
    assert result.stderr.splitlines() == [
        f"asks: session 's1' is open in another asks process ({data_dir}/s1.jsonl)"
    ]


def run_in_pty(
    args: list[str], tmp: Path, preexec: Callable[[], None] | None = None
) -> tuple[int, str, bytes]:
    """Run ``asks ARGS`` on a real 400×30 pty (one line fits) until it exits: status, screen
    text, raw bytes."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CONFIG_HOME": str(tmp / "config"),
        "TERM": "xterm-256color",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    proc = ptyprocess.PtyProcess.spawn(
        [sys.executable, "-m", "asks", *args],
        env=env,
        cwd=str(ROOT),
        dimensions=(30, 400),
        preexec_fn=preexec,
    )
    raw = bytearray()
    try:
        while True:
            try:
                raw += proc.read(65536)
            except EOFError:
                break
        proc.wait()
    finally:
        proc.close(force=True)
    screen = pyte.Screen(400, 30)
    pyte.ByteStream(screen).feed(bytes(raw))
    text = "\n".join(line.rstrip() for line in screen.display).strip()
    return proc.exitstatus if proc.exitstatus is not None else -1, text, bytes(raw)


def test_repl_with_an_unwritable_data_dir_under_a_pty(tmp_path: Path, blocked_dir: Path) -> None:
    status, text, raw = run_in_pty(["--data-dir", str(blocked_dir)], tmp_path)
    assert status == EXIT_STORAGE, text
    assert text == (f"asks: cannot start a new session in {blocked_dir}: Not a directory")
    assert b"\x1b[?1049h" not in raw  # no full screen was ever drawn


def test_repl_on_a_full_disk_under_a_pty(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    data_dir = tmp_path / "sessions"
    status, text, _ = run_in_pty(["--data-dir", str(data_dir)], tmp_path, no_file_writes)
    assert status == EXIT_STORAGE, text
    assert text == f"asks: cannot start a new session in {data_dir}: File too large"


def test_config_warnings_are_also_notices_inside_the_repl(tmp_path: Path) -> None:
    """The warnings go to stderr before the full screen takes over, where they are hidden
    while the app runs: the transcript repeats them at start."""
    config = tmp_path / "config" / "asks" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('colour = "blue"\n[keys]\nfocus_toggle_key = "no such key"\n')
    script = ROOT / "tests" / "scripts" / "wake.toml"
    app = PtyApp(
        ["--data-dir", str(tmp_path / "data"), "--script", str(script)],
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
        cols=200,
        rows=40,
    )
    try:
        app.wait_for(r"WAKE-START")
        shown = [line for line in app.text().splitlines() if "Config warning" in line]
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    assert len(shown) == 2, shown
    assert shown[0].startswith(f"· Config warning: {config}: unknown key")
    assert shown[1].startswith(f"· Config warning: {config}: ") and "focus_toggle_key" in shown[1]
