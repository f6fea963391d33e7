"""Agents' permission prompts answered in asks' panel, with the real Claude Code and Codex
TUIs (tests/support/realclients, against fake models) and ``asks hub`` under a pty
(docs/permission-prompts.md).

The hook each client gets is exactly what ``asks mcp config claude|codex --agent builder``
prints. Claude Code: a ``Bash`` permission allowed in the panel runs the command, one denied
there (with ``n`` and Enter) does not; with the command form (``asks hook permission``, the
entry printed for Codex) too, and a request open when asks quits is handed back (``{}``):
Claude's own dialog decides. Codex: an exec approval (``approval_policy = "on-request"``,
read-only sandbox, an escalated ``touch``) allowed in the panel runs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.realclients import Client, HubConfig, Options, RealClients
from support.realclients.tui import HOOK_REVIEW, TuiClient

pytestmark = [pytest.mark.e2e, pytest.mark.mcpclients]


def printed_hooks(launch: Launcher, client: str, port: int) -> dict[str, Any]:
    """The hooks ``asks mcp config CLIENT --agent builder`` prints for this hub."""
    words = ["mcp", "config", client, "--agent", "builder", "--mcp-port", str(port)]
    words += ["--data-dir", str(launch.data_dir)]
    out = subprocess.run(
        [sys.executable, "-m", "asks", *words], capture_output=True, text=True, check=True
    ).stdout
    hooks = json.loads(out[out.index("{\n") :])["hooks"]
    assert isinstance(hooks, dict)
    return hooks


def start_hub(launch: Launcher) -> tuple[PtyApp, int]:
    app = launch.start("hub", "--mcp-port", "0", cols=140)
    port = int(app.wait_for(r"Hub on http://127\.0\.0\.1:(\d+)/mcp").group(1))
    return app, port


def trust_hooks_once(tui: TuiClient) -> None:
    """Codex shows "Hooks need review" for a new hook, sometimes only after its prompt was
    drawn (the harness's start then returned before it): until the hook is trusted in its
    config.toml, wait for the dialog and trust it."""
    config = Path(tui.prepared.env["CODEX_HOME"]) / "config.toml"
    if "trusted_hash" in config.read_text(encoding="utf-8"):
        return
    tui.wait_screen(HOOK_REVIEW)
    tui.trust_hooks()
    assert "trusted_hash" in config.read_text(encoding="utf-8")


def answer(app: PtyApp, chip: str, *keys: str) -> None:
    """In asks: the request's tab is there; enter the panel and press ``keys``."""
    app.wait_for(chip)
    app.press("shift tab")
    app.wait_for(r"y allow · n deny")
    app.press(*keys)
    app.wait_gone(chip)


def test_claude_code_bash_allowed_and_denied_in_the_panel(
    launch: Launcher, real_clients: RealClients
) -> None:
    app, port = start_hub(launch)
    hub = HubConfig.from_asks(launch.data_dir, port, agent="builder")
    hooks = printed_hooks(launch, "claude", port)
    tui = real_clients.tui(Client.CLAUDE, hub, Options(hooks=hooks), name="builder")
    allowed, denied = tui.work / "allowed-x", tui.work / "denied-x"

    tui.submit("IA-CALL Bash " + json.dumps({"command": f"touch {allowed}"}))
    answer(app, r"builder · Bash: touch", "y")  # counts at the pause after it
    tui.wait_screen(r"Allowed by PermissionRequest hook")
    assert allowed.exists()

    tui.submit("IA-CALL Bash " + json.dumps({"command": f"touch {denied}"}))
    answer(app, r"builder · Bash: touch", "n", "enter")
    tui.wait_screen(r"Denied by PermissionRequest hook")
    assert not denied.exists()
    decided = [r for r in launch.records() if r["type"] == "permission_decided"]
    assert [r["allowed"] for r in decided] == [True, False]


def test_codex_exec_approval_allowed_in_the_panel(
    launch: Launcher, real_clients: RealClients, tmp_path: Path
) -> None:
    app, port = start_hub(launch)
    hub = HubConfig.from_asks(launch.data_dir, port, agent="builder")
    hooks = printed_hooks(launch, "codex", port)
    options = Options(hooks=hooks, approval="on-request", sandbox="read-only")
    tui = real_clients.tui(Client.CODEX, hub, options, name="builder")
    trust_hooks_once(tui)
    outside = tmp_path / "outside-x"
    call = {
        "cmd": f"touch {outside}",
        "sandbox_permissions": "require_escalated",
        "justification": "make a file outside the project",
    }
    tui.submit("IA-CALL exec_command " + json.dumps(call))
    answer(app, r"builder · Bash: touch", "y", "enter")
    tui.wait_screen(r"Ran touch")
    assert outside.exists()
    decided = [r for r in launch.records() if r["type"] == "permission_decided"]
    assert [r["allowed"] for r in decided] == [True]


def command_hooks(launch: Launcher, port: int) -> dict[str, Any]:
    """The command form for Claude Code: the same entry ``asks mcp config codex`` prints."""
    return printed_hooks(launch, "codex", port)


def test_claude_code_with_the_command_hook_and_the_hand_back_at_quit(
    launch: Launcher, real_clients: RealClients
) -> None:
    app, port = start_hub(launch)
    hub = HubConfig.from_asks(launch.data_dir, port, agent="builder")
    options = Options(hooks=command_hooks(launch, port))
    tui = real_clients.tui(Client.CLAUDE, hub, options, name="builder")
    allowed, mine = tui.work / "allowed-x", tui.work / "mine-x"

    tui.submit("IA-CALL Bash " + json.dumps({"command": f"touch {allowed}"}))
    answer(app, r"builder · Bash: touch", "y", "enter")
    tui.wait_screen(r"Allowed by PermissionRequest hook")
    assert allowed.exists()

    tui.submit("IA-CALL Bash " + json.dumps({"command": f"touch {mine}"}))
    app.wait_for(r"builder · Bash: touch")
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0  # the hook got {}: no decision, Claude's own dialog decides
    tui.wait_screen(r"Do you want to proceed")
    assert not mine.exists()
    time.sleep(2)  # pacing, not a verdict: the dialog reads keys once drawn
    tui.keys("1")  # the person decides in Claude's own dialog
    tui.wait_screen_gone(r"Do you want to proceed")
    while not mine.exists():
        tui.wait_steady()
    withdrawn = [r for r in launch.records() if r["type"] == "withdrawn"]
    assert [r["reason"] for r in withdrawn] == ["permission handed back: asks is quitting"]


ASK = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}],
        }
    ],
    "blocking": False,
}


def test_codex_on_request_calls_asks_own_tools_without_a_permission_tab(
    launch: Launcher, real_clients: RealClients
) -> None:
    """Under ``approval_policy = "on-request"`` (what the permission hook needs) Codex asked
    permission for each asks call — a tab "Allow mcp__asks__ask_user_question" before the
    question. The table asks prints (``default_tools_approval_mode``) stops that."""
    app, port = start_hub(launch)
    hub = HubConfig.from_asks(launch.data_dir, port, agent="builder")
    hooks = printed_hooks(launch, "codex", port)
    options = Options(hooks=hooks, approval="on-request", sandbox="read-only")
    tui = real_clients.tui(Client.CODEX, hub, options, name="builder", macros={"db": ASK})
    trust_hooks_once(tui)
    tui.submit("IA-CALL ask_user_question @db")
    tui.wait_screen(r"Called asks\.ask_user_question")
    app.wait_for(r"Database \(builder\)")
    kinds = {r["type"] for r in launch.records()}
    assert not {k for k in kinds if k.startswith("permission")}, kinds
    assert "mcp__asks__ask_user_question" not in app.text()


def installed_claude_settings(launch: Launcher, port: int, project: Path) -> dict[str, Any]:
    """What ``asks mcp config claude --agent builder --install --yes`` writes in ``project``."""
    words = ["mcp", "config", "claude", "--agent", "builder", "--install", "--yes"]
    words += ["--mcp-port", str(port), "--data-dir", str(launch.data_dir)]
    subprocess.run([sys.executable, "-m", "asks", *words], cwd=project, check=True)
    written = json.loads((project / ".claude" / "settings.local.json").read_text("utf-8"))
    assert isinstance(written, dict)
    return written


def test_claude_code_installed_calls_asks_own_tools_without_a_permission_tab(
    launch: Launcher, real_clients: RealClients, tmp_path: Path
) -> None:
    """The installed hook takes every permission request (``matcher: "*"``), so a Claude Code
    that must ask before an MCP tool sent one for each asks call: a tab "Allow
    mcp__asks__ask_user_question" before the question. ``--install`` allows asks' own tools
    in the same file; nothing else (``Read`` stands in for the person's own settings)."""
    app, port = start_hub(launch)
    hub = HubConfig.from_asks(launch.data_dir, port, agent="builder")
    settings = installed_claude_settings(launch, port, tmp_path)
    assert settings["permissions"]["allow"] == ["mcp__asks"]
    settings["permissions"]["allow"].append("Read")
    options = Options(settings=settings, allow=("Read",))
    tui = real_clients.tui(Client.CLAUDE, hub, options, name="builder", macros={"db": ASK})
    tui.submit("IA-CALL ask_user_question @db")
    app.wait_for(r"Database \(builder\)")
    kinds = {r["type"] for r in launch.records()}
    assert not {k for k in kinds if k.startswith("permission")}, kinds
    assert "mcp__asks__ask_user_question" not in app.text()
