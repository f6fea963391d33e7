"""The hub with the real clients: Claude Code 2.1.332 and Codex 0.171.0 (``../shared/mcp-clients``).

``asks --mcp`` runs under a pty as a person runs it; each client is configured from exactly
what ``asks mcp config json --agent NAME`` prints, and driven offline by the harness (a fake
model on 127.0.0.1 calls one asks tool and quotes the result it got). The person answers with
the keys; the answer reaches the client that asked — once — at its next asks call, also after
its blocking call timed out. Installed once by ``.ci/test`` (``setup.sh``, cached outside the
repo), like the real model.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.launcher import Launcher
from support.pty_harness import ROOT, PtyApp

pytestmark = [pytest.mark.e2e, pytest.mark.mcpclients]

HARNESS = ROOT.parent / "shared" / "mcp-clients" / "run_real_clients.py"
BLOCKING = json.dumps(
    {
        "questions": [
            {
                "question": "Which cache?",
                "header": "Cache",
                "options": [{"label": "Redis"}, {"label": "Memcached"}],
            }
        ],
        "blocking": True,
    }
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def configs(launch: Launcher, port: int, tmp: Path) -> dict[str, Path]:
    """One config file per client, as ``asks mcp config json --agent NAME`` prints it."""
    found = {}
    for client in ("claude", "codex"):
        printed = subprocess.run(
            [
                sys.executable,
                "-m",
                "asks",
                "mcp",
                "config",
                "json",
                "--agent",
                f"{client}-agent",
                "--mcp-port",
                str(port),
                "--data-dir",
                str(launch.data_dir),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        path = tmp / f"{client}.json"
        path.write_text(printed)
        found[client] = path
    return found


def harness(client: str, config: Path, *extra: str) -> str:
    """Run one client once through the harness; its output (it must say ``ok``)."""
    done = subprocess.run(
        [
            sys.executable,
            str(HARNESS),
            "--server-config-json",
            str(config),
            "--clients",
            client,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def answer_first_tab(app: PtyApp, label: str, down: int = 0) -> None:
    """Enter the panel, choose the option ``down`` rows below the first, on tab ``label``."""
    app.wait_for(label)
    app.press("shift tab")
    app.wait_for(r"┌─ Questions")
    app.press(*(["down"] * down), "enter")
    app.wait_gone(label)


def test_claude_code_and_codex_ask_through_the_hub_and_get_each_answer_once(
    launch: Launcher, tmp_path: Path
) -> None:
    port = free_port()
    app = launch.start("--mcp", "--mcp-port", str(port), script="hub_quiet.toml", cols=140)
    app.wait_for("QUIET-READY")
    config = configs(launch, port, tmp_path)
    for client, option, answer in (("claude", 0, "PostgreSQL"), ("codex", 1, "SQLite")):
        asked = harness(client, config[client])  # the default call: one async question
        assert f"{client.upper()}: ok" in asked
        answer_first_tab(app, rf"Database \({client}-agent\)", option)
        got = harness(
            client,
            config[client],
            "--call-tool",
            "check_answers",
            "--call-args",
            "{}",
            "--expect-result",
            answer,
        )
        assert f"{client.upper()}: ok" in got
        harness(
            client,
            config[client],
            "--call-tool",
            "check_answers",
            "--call-args",
            "{}",
            "--expect-absent",
            answer,
        )  # exactly once
    delivered = [r for r in launch.records() if r["type"] == "offer_delivered"]
    assert len(delivered) == 2


def test_a_blocking_call_the_client_times_out_is_answered_at_its_next_call(
    launch: Launcher, tmp_path: Path
) -> None:
    port = free_port()
    app = launch.start("--mcp", "--mcp-port", str(port), script="hub_quiet.toml", cols=140)
    app.wait_for("QUIET-READY")
    config = configs(launch, port, tmp_path)
    for client, timeout_args in (
        ("claude", ["--claude-env", "MCP_TOOL_TIMEOUT=3000"]),
        ("codex", ["--codex-tool-timeout", "3"]),
    ):
        gave_up = harness(
            client, config[client], "--call-args", BLOCKING, "--expect-error", *timeout_args
        )
        assert f"{client.upper()}: ok" in gave_up
        app.wait_for(rf"{client}-agent stopped waiting")
        answer_first_tab(app, rf"Cache \({client}-agent\)")
        got = harness(
            client,
            config[client],
            "--call-tool",
            "check_answers",
            "--call-args",
            "{}",
            "--expect-result",
            "Redis",
        )
        assert f"{client.upper()}: ok" in got
    outcomes = [r["outcome"] for r in launch.records() if r["type"] == "tool_result"]
    assert outcomes.count("interrupted") == 2 and "declined" not in outcomes
