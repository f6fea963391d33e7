"""Setting a client up as printed: ``asks mcp config|token`` with agents' own credentials, the
hub's hints that work as typed, and refused clients shown in the transcript (docs/architecture.md,
"Identity and credentials").

``asks mcp …`` runs as a subprocess, as a person types it; ``asks hub`` runs under a pty and
its agents on the MCP SDK's own client over HTTP on 127.0.0.1 (a free port).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from support.hub import DB, HELLO, agent, in_thread
from support.launcher import Launcher
from support.pty_harness import PtyApp

REVIEWER = "project-alpha-backend-reviewer"


def asks_mcp(data_dir: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "asks", "mcp", *words, "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        check=False,
    )


# ---------------------------------------------------------------------------- asks mcp
@pytest.mark.parametrize("name", ["team/a", "team a", "x" * 65, "a:b"])
def test_an_agent_name_that_would_be_folded_is_refused_in_one_line(
    tmp_path: Path, name: str
) -> None:
    done = asks_mcp(tmp_path, "config", "claude", "--agent", name)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert "--agent" in line and "letters, digits" in line and "Traceback" not in line
    assert not (tmp_path / "mcp-agents.json").exists()


def test_an_agents_config_carries_its_own_token_and_its_full_name(tmp_path: Path) -> None:
    first = json.loads(asks_mcp(tmp_path, "config", "json", "--agent", REVIEWER).stdout)
    again = json.loads(asks_mcp(tmp_path, "config", "json", "--agent", REVIEWER).stdout)
    shared = asks_mcp(tmp_path, "token").stdout.strip()
    own = asks_mcp(tmp_path, "token", "--agent", REVIEWER).stdout.strip()
    assert first == again  # printed twice: the same credential, so a config keeps working
    assert first["headers"]["Authorization"] == f"Bearer {own}"
    assert own != shared
    claude = asks_mcp(tmp_path, "config", "claude", "--agent", REVIEWER).stdout
    assert f"Bearer {own}" in claude and "--scope local" in claude
    assert "--scope user" in asks_mcp(tmp_path, "config", "claude").stdout
    codex = asks_mcp(tmp_path, "config", "codex", "--agent", REVIEWER).stdout
    assert f"ASKS_MCP_TOKEN={own}" in codex


def test_token_rotate_and_revoke_name_one_agent(tmp_path: Path) -> None:
    own = asks_mcp(tmp_path, "token", "--agent", "builder").stdout.strip()
    shared = asks_mcp(tmp_path, "token").stdout.strip()
    rotated = asks_mcp(tmp_path, "token", "--rotate", "--agent", "builder").stdout.strip()
    assert rotated not in (own, "") and asks_mcp(tmp_path, "token").stdout.strip() == shared
    assert asks_mcp(tmp_path, "token", "--revoke", "builder").returncode == 0
    gone = asks_mcp(tmp_path, "token", "--revoke", "builder")
    assert gone.returncode == 2 and "builder" in gone.stderr and "Traceback" not in gone.stderr


# ---------------------------------------------------------------------------- asks hub
def start_hub(launch: Launcher) -> tuple[PtyApp, str, str]:
    """``asks hub`` on a free port: the app, its URL and the set-up hint, both from the screen."""
    app = launch.start("hub", "--mcp-port", "0", cols=250)
    url = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)").group(1)
    hint = app.wait_for(r"Set up a client with: (asks mcp config claude .*?) \(or codex").group(1)
    return app, url, hint


@pytest.mark.e2e
async def test_the_hubs_set_up_hint_works_as_typed(launch: Launcher) -> None:
    app, url, hint = start_hub(launch)
    words = shlex.split(hint)
    port = url.rsplit(":", 1)[1].split("/")[0]
    assert words[4:] == ["--data-dir", str(launch.data_dir), "--mcp-port", port]
    words[3] = "json"  # the same command, for the SDK's client
    printed = subprocess.run(
        [sys.executable, "-m", "asks", *words[1:], "--agent", "reviewer"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    config = json.loads(printed)
    assert config["url"] == url
    token = config["headers"]["Authorization"].removeprefix("Bearer ")
    async with agent(url, token, None) as reviewer:
        await reviewer.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await in_thread(app.wait_for, r"Database \(reviewer\)")


@pytest.mark.e2e
async def test_refused_clients_are_shown_once_per_kind_not_per_retry(launch: Launcher) -> None:
    app, url, _hint = start_hub(launch)
    shared = asks_mcp(launch.data_dir, "token").stdout.strip()
    async with httpx.AsyncClient() as http:
        for _ in range(20):  # a client retrying in a loop with a stale token
            response = await http.post(url, json=HELLO, headers={"Authorization": "Bearer stale"})
            assert response.status_code == 401
        for _ in range(3):  # a hand-written header with a hostile label
            bad = {"Authorization": f"Bearer {shared}", "X-Asks-Agent": b"team/a\x9b[31mX"}
            assert (await http.post(url, json=HELLO, headers=bad)).status_code == 400
    wrong = await in_thread(app.wait_for, r"A client was refused: no token or a wrong one.*")
    assert "asks mcp config claude --data-dir" in wrong.group(0)
    await in_thread(app.wait_for, r"A client was refused: .*X-Asks-Agent")
    token = asks_mcp(launch.data_dir, "token", "--agent", "planner").stdout.strip()
    async with agent(url, token, None) as planner:  # progress: a later line on the screen
        await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await in_thread(app.wait_for, r"planner asks:")
    assert app.text().count("A client was refused") == 2
    assert "\x9b" not in app.raw_bytes().decode("utf-8", "replace")


@pytest.mark.parametrize(
    "words",
    [["sessions"], ["mcp", "token"], ["mcp", "config", "claude"]],
    ids=["sessions", "mcp-token", "mcp-config"],
)
def test_a_reader_that_stops_reading_gets_no_traceback(tmp_path: Path, words: list[str]) -> None:
    """``asks … | head -0``: the pipe's reader is gone before asks writes."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader: every write to the pipe fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-m", "asks", *words, "--data-dir", str(tmp_path)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.stderr == ""
    assert done.returncode == 1


def test_asks_mcp_takes_the_data_dir_before_mcp_too(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "asks", "--data-dir", str(tmp_path), "mcp", "token"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == asks_mcp(tmp_path, "token").stdout.strip()


def test_asks_help_lists_mcp() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "asks", "--help"], capture_output=True, text=True, check=True
    )
    assert "asks mcp config" in done.stdout
