"""The hooks part of ``asks mcp config claude|codex``: print it, or install it after a diff.

Docs: docs/permission-prompts.md ("Set-up"). Pure text and one file write, no SDK:

* **Claude Code** — an http hook on ``/hooks/permission`` with the agent's token in its
  ``Authorization`` header, for every tool (``matcher: "*"``), and the ``asyncRewake`` hook
  (docs/rewake-hook.md): a ``PostToolUse`` command hook ``<python> -m asks hook rewake …`` on
  asks' ask tool that wakes an idle session with a late answer; both in the project's
  ``.claude/settings.local.json`` (Claude's own not-committed settings: the token must not
  land in a repository);
* **Codex** — a command hook ``<python> -m asks hook permission …`` (the token stays in asks'
  data dir; Codex's hooks run commands) in ``$CODEX_HOME/hooks.json``, with
  ``approval_policy = "on-request"`` in its config.toml; Codex asks once to trust new hooks.

:func:`merged` puts asks' entries (one per event) into a settings object (replacing an
earlier asks entry, keeping every other hook); :func:`install_plan` gives the old and new
text and a unified diff; :func:`write_with_backup` keeps the old file as ``FILE.bak`` and
replaces the file atomically.
Nothing is written without the person's yes (``asks/cli/hub.py``).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import attrs

from asks.hub.hookcmd import ASK_TOOL, HOOK_TIMEOUT, REWAKE_TIMEOUT
from asks.hub.token import write_private

EVENT: Final = "PermissionRequest"
REWAKE_EVENT: Final = "PostToolUse"
MARK: Final = "asks-permission"  # in the entry's hook: how asks finds its own entry again
OUR_COMMANDS: Final = (" -m asks hook permission", " -m asks hook rewake")
# what Claude Code shows the person, and the model before the text, when the hook wakes it
REWAKE_SUMMARY: Final = "asks: an answer to your earlier question"
REWAKE_MESSAGE: Final = "asks relays the user's answer, given in asks' question panel:"

Entries = Mapping[str, dict[str, Any]]  # event → asks' entry for it


def claude_entry(url: str, token: str) -> dict[str, Any]:
    """Claude Code's ``PermissionRequest`` entry: an http hook with the token."""
    hook = {
        "type": "http",
        "url": url,
        "timeout": HOOK_TIMEOUT,
        "headers": {"Authorization": f"Bearer {token}", "X-Asks-Hook": MARK},
    }
    return {"matcher": "*", "hooks": [hook]}


def claude_rewake_entry(command: str, server: str) -> dict[str, Any]:
    """Claude Code's ``PostToolUse`` entry on the ask tool of the MCP server named ``server``:
    the ``asyncRewake`` command hook (``command`` as the shell runs it)."""
    hook = {
        "type": "command",
        "command": command,
        "asyncRewake": True,
        "timeout": REWAKE_TIMEOUT,
        "rewakeSummary": REWAKE_SUMMARY,
        "rewakeMessage": REWAKE_MESSAGE,
    }
    return {"matcher": f"mcp__{server}__{ASK_TOOL}", "hooks": [hook]}


def codex_entry(command: str) -> dict[str, Any]:
    """Codex's ``PermissionRequest`` entry: the command hook (``command`` as the shell runs it)."""
    hook = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    return {"matcher": "*", "hooks": [hook]}


def _is_ours(entry: object) -> bool:
    hooks = entry.get("hooks") if isinstance(entry, dict) else None
    return isinstance(hooks, list) and any(
        isinstance(h, dict)
        and (
            (isinstance(h.get("headers"), dict) and h["headers"].get("X-Asks-Hook") == MARK)
            or any(ours in str(h.get("command", "")) for ours in OUR_COMMANDS)
        )
        for h in hooks
    )


def merged(settings: dict[str, Any], entries: Entries) -> dict[str, Any]:
    """``settings`` with asks' entry under ``hooks.<event>`` for each event of ``entries`` (an
    earlier asks entry replaced; every other key and hook kept as it was)."""
    result = copy.deepcopy(settings)
    hooks = result.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError('its "hooks" is not a JSON object')
    for event, entry in entries.items():
        found = hooks.get(event, [])
        if not isinstance(found, list):
            raise ValueError(f'its "hooks.{event}" is not a list')
        hooks[event] = [e for e in found if not _is_ours(e)] + [entry]
    return result


def snippet(entries: Entries) -> str:
    """The JSON to paste (the whole ``hooks`` object for these entries)."""
    return json.dumps({"hooks": {event: [entry] for event, entry in entries.items()}}, indent=2)


@attrs.frozen
class InstallPlan:
    """What ``--install`` would write to ``path``: its text before (``None``: no file) and after."""

    path: Path
    old: str | None
    new: str

    def diff(self) -> str:
        """A unified diff from the old text to the new."""
        old = [] if self.old is None else self.old.splitlines(keepends=True)
        name = str(self.path)
        lines = difflib.unified_diff(
            old, self.new.splitlines(keepends=True), name + (".bak" if self.old else ""), name
        )
        return "".join(lines)


def install_plan(path: Path, entries: Entries) -> InstallPlan:
    """The plan for merging ``entries`` into the settings file ``path``; :class:`ValueError`
    (a sentence) if the file is there but is not a JSON object."""
    try:
        old: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    try:
        settings = json.loads(old) if old and old.strip() else {}
    except ValueError as exc:
        raise ValueError(f"{path} is not JSON ({exc}): fix it or paste the snippet") from exc
    if not isinstance(settings, dict):
        raise ValueError(f"{path} is not a JSON object: fix it or paste the snippet")
    try:
        new = json.dumps(merged(settings, entries), indent=2) + "\n"
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from exc
    return InstallPlan(path, old, new)


def write_with_backup(plan: InstallPlan) -> Path | None:
    """Write the plan: the old file copied to ``FILE.bak`` first (returned), then the new
    text (0600: it may hold a token) put in place atomically."""
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    backup = None
    if plan.old is not None:
        backup = plan.path.with_name(plan.path.name + ".bak")
        shutil.copy2(plan.path, backup)
    write_private(plan.path, plan.new)
    return backup


def codex_home() -> Path:
    """Codex's home (``$CODEX_HOME``, else ``~/.codex``)."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
