"""``asks sessions``: a header, dates, the mode (REPL or ``-p``), questions and the first message.

The real command in a child process; sessions made by the real ``asks -p`` and the real REPL
(under a pty), plus journals written here for the cases a run cannot make on demand (one from
before the mode was recorded, hostile text, saved-but-unsent answers).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from support.pty_harness import ROOT, PtyApp

from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.entries import ChatMessage, SessionMode
from asks.store.journal import Journal

SCRIPTS = Path(__file__).with_name("scripts")
DATE = r"\d{4}-\d\d-\d\d \d\d:\d\d"
HEADER = re.compile(r"SESSION +STARTED +LAST USED +MODE +QUESTIONS +FIRST MESSAGE")


def asks(tmp: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp / "config")}
    return subprocess.run(
        [sys.executable, "-m", "asks", "--data-dir", str(tmp / "data"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def listing(tmp: Path) -> list[str]:
    result = asks(tmp, "sessions")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert HEADER.fullmatch(lines[0]), lines[0]
    return lines[1:]


def test_a_print_session_is_listed_with_its_dates_mode_and_first_line(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    before = time.time()
    ran = asks(tmp_path, "--script", str(SCRIPTS / "wake.toml"), "-p", "Deploy it\nplease")
    assert ran.returncode == 0, ran.stderr
    [row] = listing(tmp_path)
    session = next((tmp_path / "data").glob("*.jsonl")).stem
    found = re.fullmatch(rf"(\S+)  ({DATE})  ({DATE})  -p    0 pending  Deploy it", row)
    assert found, row
    assert found.group(1) == session
    started = time.mktime(time.strptime(found.group(2), "%Y-%m-%d %H:%M"))
    assert before - 60 <= started <= time.time()


def test_a_repl_session_is_listed_as_repl(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    app = PtyApp(
        ["--data-dir", str(tmp_path / "data"), "--script", str(SCRIPTS / "wake.toml")],
        env=env,
        rows=50,
    )
    try:
        app.wait_for(r"WAKE-START")
        app.type("hello there")
        app.press("enter")
        app.wait_for(r"you › hello there")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    [row] = listing(tmp_path)
    assert re.fullmatch(rf"\S+  {DATE}  {DATE}  repl  \d+ pending  hello there", row), row


def test_old_journals_hostile_text_and_unsent_answers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    with Journal.create(data_dir=data, session_id="old", mode=SessionMode.UNKNOWN) as old:
        old.append(ChatMessage("user", "\x1b]0;pwned\x07hi \x1b[31mred\x1b[0m" + "x" * 100))
    with Journal.create(data_dir=data, session_id="new", mode=SessionMode.INTERACTIVE) as new:
        host = QuestionHost(new)
        options = [{"label": "A"}, {"label": "B"}]
        for n in range(2):
            host.agent_port.start_call(
                f"c{n}",
                {
                    "blocking": False,
                    "questions": [{"question": f"Q{n}?", "header": "H", "options": options}],
                },
            )
        host.panel_port.enter_panel()
        host.panel_port.command(PanelCommand.CONFIRM)  # saved, not yet delivered
    os.utime(data / "old.jsonl", (1_000_000_000, 1_000_000_000))
    rows = listing(tmp_path)
    assert [row.split()[0] for row in rows] == ["new", "old"]  # newest first
    assert re.fullmatch(rf"new +{DATE}  {DATE}  repl  1 pending, 1 unsent", rows[0]), rows[0]
    assert "\x1b" not in rows[1] and "pwned" not in rows[1]
    found = re.fullmatch(rf"old +{DATE}  {DATE}  \?     0 pending +(hi redx+…)", rows[1])
    assert found, rows[1]
    assert len(found.group(1)) == 60


def test_no_sessions_says_so(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    result = asks(tmp_path, "sessions")
    assert (result.returncode, result.stdout) == (0, f"No sessions in {tmp_path / 'data'}.\n")


def test_a_session_an_embedder_wrote_is_listed_as_embedded_and_never_resumed(
    tmp_path: Path,
) -> None:
    """``Journal.create`` without a mode is another program's session: listed
    as ``embedded``; ``--resume`` refuses it before writing anything (the tour would take
    over its conversation); ``--continue`` passes over it to asks' own newest session."""
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    with Journal.create(data_dir=data, session_id="mine", mode=SessionMode.INTERACTIVE) as own:
        own.append(ChatMessage("user", "an asks session"))
    os.utime(data / "mine.jsonl", (1_000_000_000, 1_000_000_000))
    with Journal.create(data_dir=data, session_id="theirs") as theirs:  # an embedder's
        theirs.append(ChatMessage("user", "from my own REPL"))
    written = (data / "theirs.jsonl").read_bytes()
    rows = listing(tmp_path)
    assert re.fullmatch(rf"theirs +{DATE}  {DATE}  embedded  0 pending  from my own REPL", rows[0])
    assert re.fullmatch(rf"mine +{DATE}  {DATE}  repl +0 pending  an asks session", rows[1])

    refused = asks(
        tmp_path, "--resume", "theirs", "-p", "hi", "--script", str(SCRIPTS / "wake.toml")
    )
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "asks: session theirs was written by another program that embeds asks: "
        "continue it in that program\n"
    )
    hub = asks(tmp_path, "hub", "--resume", "theirs", "--line", "--mcp-port", "0", stdin="")
    assert hub.returncode == 2 and "another program that embeds asks" in hub.stderr
    assert (data / "theirs.jsonl").read_bytes() == written

    mine = (data / "mine.jsonl").stat().st_size
    continued = asks(tmp_path, "--continue", "-p", "hi", "--script", str(SCRIPTS / "wake.toml"))
    assert continued.returncode == 0, continued.stderr
    assert (data / "mine.jsonl").stat().st_size > mine
    assert (data / "theirs.jsonl").read_bytes() == written


def test_a_refused_resume_binds_no_port(tmp_path: Path) -> None:
    """Resume refusals come before the hub binds its port: with that port taken, asks says why
    the session is not resumed, never that the port is in use (CI once failed on "Port 8765 is
    in use" because a person's own ``asks hub`` held the default port while the suite ran)."""
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    with Journal.create(data_dir=data, session_id="plain", mode=SessionMode.INTERACTIVE):
        pass
    with Journal.create(data_dir=data, session_id="hubs", mode=SessionMode.HUB):
        pass
    with Journal.create(data_dir=data, session_id="theirs"):  # an embedder's
        pass
    refusals = {
        ("hub", "--resume", "plain"): "session plain is not a hub session",
        ("--mcp", "--resume", "hubs"): "session hubs is a hub session",
        ("hub", "--resume", "theirs"): "another program that embeds asks",
        ("hub", "--resume", "missing"): "no session 'missing'",
    }
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = str(held.getsockname()[1])
        for words, said in refusals.items():
            result = asks(tmp_path, *words, "--line", "--mcp-port", port)
            assert result.returncode == 2, (words, result.stderr)
            assert said in result.stderr and "in use" not in result.stderr, result.stderr
        taken = asks(tmp_path, "hub", "--resume", "hubs", "--line", "--mcp-port", port)
        assert taken.returncode == 2 and f"Port {port} is in use" in taken.stderr  # the control
