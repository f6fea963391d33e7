"""``asks mcp config claude|codex`` prints the permission hook too, and ``--install`` writes
it only after showing the diff, with a backup of the old file (docs/permission-prompts.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PERMISSION = "PermissionRequest"


def asks(tmp_path: Path, *words: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(tmp_path / "codex")}
    return subprocess.run(
        [sys.executable, "-m", "asks", *words, "--data-dir", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        input=stdin,
        check=False,
    )


def snippet_of(stdout: str) -> dict[str, Any]:
    found = json.loads(stdout[stdout.index("{\n") :])
    assert isinstance(found, dict)
    return found


def test_claude_config_prints_an_http_hook_with_the_agents_own_token(tmp_path: Path) -> None:
    done = asks(tmp_path, "mcp", "config", "claude", "--agent", "builder")
    assert done.returncode == 0, done.stderr
    token = asks(tmp_path, "mcp", "token", "--agent", "builder").stdout.strip()
    assert "claude mcp add" in done.stdout and "settings.local.json" in done.stdout
    (entry,) = snippet_of(done.stdout)["hooks"][PERMISSION]
    (hook,) = entry["hooks"]
    assert hook["type"] == "http" and hook["url"] == "http://127.0.0.1:8765/hooks/permission"
    assert hook["headers"]["Authorization"] == f"Bearer {token}"
    assert hook["timeout"] == 120


def test_codex_config_prints_the_command_hook_and_the_approval_policy(tmp_path: Path) -> None:
    done = asks(tmp_path, "mcp", "config", "codex", "--agent", "builder", "--mcp-port", "9")
    assert done.returncode == 0, done.stderr
    assert 'approval_policy = "on-request"' in done.stdout
    assert str(tmp_path / "codex" / "hooks.json") in done.stdout
    (entry,) = snippet_of(done.stdout)["hooks"][PERMISSION]
    command = entry["hooks"][0]["command"]
    assert "-m asks hook permission --agent builder --data-dir" in command
    assert command.endswith("--mcp-port 9")


def test_install_shows_the_diff_keeps_a_backup_and_keeps_other_hooks(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    other = {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}
    old = json.dumps({"model": "x", "hooks": {PERMISSION: [other]}}, indent=2) + "\n"
    settings.write_text(old)
    done = asks(tmp_path, "mcp", "config", "claude", "--agent", "builder", "--install", "--yes")
    assert done.returncode == 0, done.stderr
    assert "+++ " in done.stdout and '+            "url": "http://127.0.0.1:8765' in done.stdout
    assert (tmp_path / ".claude" / "settings.local.json.bak").read_text() == old
    new = json.loads(settings.read_text())
    assert new["model"] == "x" and new["hooks"][PERMISSION][0] == other
    assert len(new["hooks"][PERMISSION]) == 2
    assert settings.stat().st_mode & 0o777 == 0o600  # it holds a token
    again = asks(tmp_path, "mcp", "config", "claude", "--agent", "builder", "--install", "--yes")
    assert again.returncode == 0 and "already has" in again.stdout
    assert len(json.loads(settings.read_text())["hooks"][PERMISSION]) == 2  # replaced, not added


def test_install_never_writes_silently(tmp_path: Path) -> None:
    done = asks(tmp_path, "mcp", "config", "codex", "--install", stdin="y\n")  # not a terminal
    assert done.returncode == 2 and "--yes" in done.stderr
    assert "+++ " in done.stdout  # the diff was shown
    assert not (tmp_path / "codex" / "hooks.json").exists()


def test_install_into_codex_home(tmp_path: Path) -> None:
    done = asks(tmp_path, "mcp", "config", "codex", "--agent", "builder", "--install", "--yes")
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "codex" / "hooks.json").read_text())
    assert (
        "hook permission --agent builder" in written["hooks"][PERMISSION][0]["hooks"][0]["command"]
    )


def test_a_settings_file_that_is_not_json_is_left_alone(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    done = asks(tmp_path, "mcp", "config", "claude", "--install", "--yes")
    assert done.returncode == 2 and "not JSON" in done.stderr
    assert settings.read_text() == "{ not json"


def test_claude_install_allows_asks_own_tools_beside_the_persons_rules(tmp_path: Path) -> None:
    """The hook takes every permission request, so without the rule each asks call was a
    permission tab before its question (seen with Claude Code 2.1.332)."""
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}}))
    for _ in range(2):  # a second install adds nothing twice
        done = asks(tmp_path, "mcp", "config", "claude", "--agent", "b", "--install", "--yes")
        assert done.returncode == 0, done.stderr
    permissions = json.loads(settings.read_text())["permissions"]
    assert permissions == {"allow": ["Read", "mcp__asks"], "deny": ["Bash(rm:*)"]}
    printed = asks(tmp_path, "mcp", "config", "claude", "--agent", "b")
    assert snippet_of(printed.stdout)["permissions"] == {"allow": ["mcp__asks"]}
    codex = asks(tmp_path, "mcp", "config", "codex", "--agent", "b")
    assert "permissions" not in snippet_of(codex.stdout)


def test_claude_settings_whose_permissions_are_not_an_object_are_left_alone(
    tmp_path: Path,
) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": "mcp__asks"}}))
    done = asks(tmp_path, "mcp", "config", "claude", "--install", "--yes")
    assert done.returncode == 2 and '"permissions"' in done.stderr
    assert json.loads(settings.read_text()) == {"permissions": {"allow": "mcp__asks"}}
