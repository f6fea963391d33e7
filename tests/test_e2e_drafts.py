"""End-to-end: drafts survive SIGKILL, the real ``asks``
under a pty.

The person types a chat line (not sent), opens the panel, moves to ``Type something.`` and
types half an answer; the test waits until the session's drafts file holds both (progress, not
a sleep), kills the app with SIGKILL, and resumes it: the chat editor and the panel hold both
texts, the transcript says they were restored, and the journal holds no answer and no user
message. The restored answer is then saved by the normal keys, and a clean exit leaves no
drafts file (nothing is left to keep). Line mode resumes the same session unharmed.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.launcher import resolutions, user_messages
from support.pty_harness import ROOT, PtyApp
from support.screen import PANEL_FOCUSED, chat_text, eventually, in_panel, wait_chat, wait_panel

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "scripts" / "drafts.toml"
CHAT_LINE = "not sent yet, really"
HALF = "half an ans"
RESTORED = "Restored your unsent drafts: the chat line and 1 answer — nothing was sent."


class Session:
    """One session's data dir and config home; every app it starts is closed at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.data_dir = tmp_path / "data"
        (tmp_path / "config").mkdir()
        self.env = {
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "xdg"),
        }
        self.apps: list[PtyApp] = []

    def start(self, *args: str, script: Path = SCRIPT) -> PtyApp:
        argv = ["--data-dir", str(self.data_dir), "--script", str(script), *args]
        app = PtyApp(argv, cols=100, rows=34, env=self.env)
        self.apps.append(app)
        return app

    def journal(self) -> Path:
        (path,) = self.data_dir.glob("*.jsonl")
        return path

    def drafts_file(self) -> Path:
        return self.journal().with_suffix(".drafts.json")

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.journal().read_text().splitlines() if line]

    def drafts(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.drafts_file().read_bytes())  # type: ignore[no-any-return]
        except (FileNotFoundError, ValueError):
            return None

    def question_id(self) -> str:
        (asked,) = [r for r in self.records() if r["type"] == "group_asked"]
        return str(asked["questions"][0]["ref"]["id"])


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    made = Session(tmp_path)
    try:
        yield made
    finally:
        for app in made.apps:
            app.close()


def flat(app: PtyApp) -> str:
    return re.sub(r"\s+", " ", app.text())


def holds_both(drafts: dict[str, Any] | None) -> bool:
    if drafts is None or not drafts["questions"]:
        return False
    return (
        drafts["chat"]["text"] == CHAT_LINE
        and drafts["questions"][0]["draft"]["custom_text"] == HALF
    )


def test_sigkill_keeps_the_chat_line_and_a_half_written_answer(session: Session) -> None:
    app = session.start()
    app.wait_for(r"╎ Name the release\?")
    app.wait_for(r"idle$")
    app.type(CHAT_LINE)
    wait_chat(app, CHAT_LINE)
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)
    app.press("down", "down")  # to "3. Type something."
    app.type(HALF)
    wait_panel(app, re.escape(HALF))
    eventually(app, lambda: holds_both(session.drafts()), "the drafts file should hold both")
    assert session.drafts_file().stat().st_mode & 0o777 == 0o600
    app.kill(signal.SIGKILL)

    qid = session.question_id()
    assert resolutions(session.records(), qid) == []
    assert user_messages(session.records()) == []
    sid = session.journal().stem

    resumed = session.start("--resume", sid)
    resumed.wait_for(rf"Resumed session {sid}: 1 pending")
    eventually(resumed, lambda: RESTORED in flat(resumed), "the restore should be announced")
    wait_chat(resumed, CHAT_LINE)
    wait_panel(resumed, rf"4\. {re.escape(HALF)}|{re.escape(HALF)}")
    assert in_panel(resumed, r"Name the release\?")
    # Said once (the transcript), not also in the panel's notice row and the status line.
    assert flat(resumed).count("Restored your unsent") == 1, resumed.text()
    # Restoring saved and sent nothing.
    assert resolutions(session.records(), qid) == []
    assert user_messages(session.records()) == []
    assert "GOT-A-MESSAGE" not in resumed.text()

    # The restored answer is given by the normal keys, and only then is it saved.
    resumed.press("shift tab")
    resumed.wait_for(PANEL_FOCUSED)
    resumed.type("wer")
    wait_panel(resumed, re.escape(HALF + "wer"))
    resumed.press("enter")
    eventually(
        resumed, lambda: resolutions(session.records(), qid) != [], "the answer should be saved"
    )
    (saved,) = resolutions(session.records(), qid)
    assert saved["answer"]["custom_text"] == HALF + "wer"
    assert chat_text(resumed) == CHAT_LINE  # the chat line is still there, unsent
    resumed.press("ctrl u")
    wait_chat(resumed, "")
    resumed.type("/quit")
    resumed.press("enter")
    assert resumed.wait_exit() == 0
    assert not session.drafts_file().exists()  # a clean exit with nothing left to keep
    assert user_messages(session.records()) == []


def test_sigkill_keeps_a_sent_message_the_agent_had_not_read(session: Session) -> None:
    """A message sent while the agent works waits in its queue until the turn reads it; a
    kill before that used to lose it. It comes back as the chat line, unsent."""
    script = SCRIPT.with_name("queued.toml")  # the agent works for two minutes
    app = session.start(script=script)
    app.wait_for("QUEUE-START")
    app.wait_for(r"working…$")
    app.type("remember the milk")
    app.press("enter")
    app.wait_for(r"you \(queued\) › remember the milk")
    wait_chat(app, "")
    eventually(
        app,
        lambda: (session.drafts() or {}).get("chat", {}).get("text") == "remember the milk",
        "the drafts file should hold the unread message",
    )
    app.kill(signal.SIGKILL)
    assert user_messages(session.records()) == []  # the agent never read it
    sid = session.journal().stem

    resumed = session.start("--resume", sid, script=script)
    resumed.wait_for(rf"Resumed session {sid}")
    eventually(resumed, lambda: "Restored your unsent chat line" in flat(resumed), "restored")
    wait_chat(resumed, "remember the milk")
    assert user_messages(session.records()) == []  # back in the editor: nothing was sent
    resumed.press("enter")
    eventually(
        resumed,
        lambda: user_messages(session.records()) == ["remember the milk"],
        "the person sends it again, once",
    )


def test_line_mode_resumes_a_session_that_has_drafts(session: Session) -> None:
    app = session.start()
    app.wait_for(r"╎ Name the release\?")
    app.wait_for(r"idle$")
    app.type(CHAT_LINE)
    eventually(
        app,
        lambda: (session.drafts() or {}).get("chat", {}).get("text") == CHAT_LINE,
        "the drafts file should hold the chat line",
    )
    app.kill(signal.SIGKILL)
    sid = session.journal().stem
    qid = session.question_id()

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "asks",
            "--line",
            "--data-dir",
            str(session.data_dir),
            "--script",
            str(SCRIPT),
            "--resume",
            sid,
        ],
        input=f"/asks {qid}\n2\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**session.env, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (saved,) = resolutions(session.records(), qid)
    assert saved["answer"]["option_indices"] == [1]  # Birch, from line mode
    assert session.drafts() is not None  # line mode leaves the drafts file alone

    again = session.start("--resume", sid)
    again.wait_for(rf"Resumed session {sid}: 0 pending")
    eventually(
        again,
        lambda: "Restored your unsent chat line — nothing was sent." in flat(again),
        "the chat line should be restored",
    )
    wait_chat(again, CHAT_LINE)
