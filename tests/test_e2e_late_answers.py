"""Late answers reach an idle real client and start its turn (docs/late-answers.md).

``asks hub`` under a pty, the real Claude Code and Codex TUIs under tmux (tests/support/
realclients) against fake models. The agent asks a blocking question; its turn ends without the
answer (Claude Code: the call became an MCP task and moved to the background; Codex: the call
timed out) and the session sits idle. The person then answers with keys in asks' panel, and
the client starts a model request by itself carrying the answer: the fake model's log shows
it. The journal holds exactly one receipt for the answer. A question Claude Code asks without
blocking is woken by the asyncRewake hook as ``asks mcp config claude`` prints it
(docs/rewake-hook.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.realclients import Client, HubConfig, Kind, Options, RealClients

pytestmark = [pytest.mark.e2e, pytest.mark.mcpclients]

BLOCKING = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}],
        }
    ],
    "blocking": True,
}


ASYNC = {**BLOCKING, "blocking": False}


def receipts(launch: Launcher) -> list[list[str]]:
    lines = [json.loads(line) for line in launch.journal().read_text().splitlines() if line]
    return [[r["id"] for r in e["refs"]] for e in lines if e["type"] == "offer_delivered"]


def answer_sqlite(app: PtyApp, agent: str) -> None:
    """The person picks SQLite on the agent's tab, entering the panel if it has no focus."""
    app.wait_for(rf"Database \({agent}\)")
    if "┌─ Questions" not in app.text():
        app.press("shift tab")
        app.wait_for(r"┌─ Questions")
    app.press("down", "enter")
    app.wait_gone(rf"Database \({agent}\)")


def started_by_itself(request: Any) -> bool:
    return request.kind is Kind.SAW and "SQLite" in request.last_user


def test_an_idle_claude_code_session_gets_the_answer_as_its_task_result(
    launch: Launcher, real_clients: RealClients
) -> None:
    app = launch.start("hub", "--mcp-port", "0", cols=140)
    port = int(app.wait_for(r"Hub on http://127\.0\.0\.1:(\d+)/mcp").group(1))
    hub = HubConfig.from_asks(launch.data_dir, port, "claude-late")
    tui = real_clients.tui(Client.CLAUDE, hub, macros={"db": BLOCKING}, name="claude-late")

    moved = tui.prompt("IA-CALL ask_user_question @db")
    assert "started server-side task" in moved.results[0].text  # the turn ended: idle
    since = tui.log.mark()
    answer_sqlite(app, "claude-late")

    woken = tui.log.wait_for(started_by_itself, since, why="a request carrying the answer")
    assert "task-notification" in woken.last_user
    tui.wait_screen(r"IA-SAW:(.|\n)*SQLite")
    assert len(receipts(launch)) == 1


def test_an_idle_codex_session_gets_the_answer_through_codex_queue(
    launch: Launcher, real_clients: RealClients
) -> None:
    name = "codex-late"
    found = real_clients.binaries
    launch.env.update(  # the hub runs `codex queue` as the person's shell would: same CODEX_HOME
        {
            "PATH": f"{found.codex.parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "CODEX_HOME": str(real_clients.folder / name / "home"),
            "CODEX_MANAGED_BY_NPM": "1",
            "CODEX_MANAGED_PACKAGE_ROOT": str(found.codex_package),
        }
    )
    app = launch.start("hub", "--mcp-port", "0", cols=140)
    port = int(app.wait_for(r"Hub on http://127\.0\.0\.1:(\d+)/mcp").group(1))
    hub = HubConfig.from_asks(launch.data_dir, port, name)
    options = Options(tool_timeout=5)
    tui = real_clients.tui(Client.CODEX, hub, options, macros={"db": BLOCKING}, name=name)

    timed_out = tui.prompt("IA-CALL ask_user_question @db")
    assert "timed out" in timed_out.results[0].text  # the turn ended without the answer
    app.wait_for(rf"{name} stopped waiting")  # the keys went back to the chat: not before
    since = tui.log.mark()
    answer_sqlite(app, name)

    woken = tui.log.wait_for(started_by_itself, since, why="a request carrying the answer")
    assert "[asks feedback]" in woken.last_user
    tui.wait_screen(r"IA-SAW: \[asks feedback\](.|\n)*SQLite")
    assert len(receipts(launch)) == 1


def rewake_hooks(launch: Launcher, port: int, agent: str) -> dict[str, Any]:
    """The PostToolUse hook of ``asks mcp config claude --agent AGENT``, as printed."""
    argv = [sys.executable, "-m", "asks", "mcp", "config", "claude", "--agent", agent]
    argv += ["--mcp-port", str(port), "--data-dir", str(launch.data_dir)]
    printed = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    hooks = json.loads(printed[printed.index("{\n") :])["hooks"]
    return {"PostToolUse": hooks["PostToolUse"]}


def test_an_idle_claude_code_session_is_woken_by_the_rewake_hook(
    launch: Launcher, real_clients: RealClients
) -> None:
    name = "claude-rewake"
    app = launch.start("hub", "--mcp-port", "0", cols=140)
    port = int(app.wait_for(r"Hub on http://127\.0\.0\.1:(\d+)/mcp").group(1))
    hub = HubConfig.from_asks(launch.data_dir, port, name)
    options = Options(hooks=rewake_hooks(launch, port, name))
    tui = real_clients.tui(Client.CLAUDE, hub, options, macros={"db": ASYNC}, name=name)

    sent = tui.prompt("IA-CALL ask_user_question @db")
    assert "without blocking" in sent.results[0].text  # the turn ends: idle
    since = tui.log.mark()
    answer_sqlite(app, name)

    woken = tui.log.wait_for(started_by_itself, since, why="a request carrying the answer")
    assert "asks relays the user's answer" in woken.last_user  # the hook's rewakeMessage
    assert len(receipts(launch)) == 1
    again = tui.prompt("IA-CALL check_answers {}")
    repeated = again.results[0].text
    assert repeated.startswith("(Already sent to you at ") and "SQLite" in repeated
    assert "No new answers." in repeated
    assert len(receipts(launch)) == 1  # the repeat is no second delivery
