"""The bodies the real clients send to a PermissionRequest hook, as captured (Claude Code
2.1.332, Codex 0.171.0): shared by the permission tests."""

from __future__ import annotations

CLAUDE = {  # interactive/README.md result 2, as captured
    "session_id": "5b7c",
    "transcript_path": "/w/.claude/projects/p/5b7c.jsonl",
    "cwd": "/work/app",
    "prompt_id": "p1",
    "permission_mode": "default",
    "hook_event_name": "PermissionRequest",
    "tool_name": "Bash",
    "tool_input": {"command": "npm test", "description": "run the tests"},
    "permission_suggestions": [
        {"type": "addDirectories", "directories": ["/work/app"], "destination": "session"}
    ],
}
CODEX = {  # interactive/README.md result 6, as captured
    "session_id": "s",
    "turn_id": "t",
    "transcript_path": "/c/sessions/rollout.jsonl",
    "cwd": "/work/app",
    "hook_event_name": "PermissionRequest",
    "model": "fake-model",
    "permission_mode": "default",
    "tool_name": "Bash",
    "tool_input": {"command": "touch /tmp/outside-x", "description": "make a file"},
}
