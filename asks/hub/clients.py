"""What ``asks mcp config claude|codex|json [--agent NAME]`` prints: set-up in one line.

Pure text (no SDK): each client's own way to name the server (``asks``), its URL and a bearer
token — with ``--agent NAME`` that agent's own token (the token is the agent's identity:
:mod:`asks.hub.credentials`), else the shared token, which may speak as any agent — and how to
let the client call asks' tools without a permission prompt (a person answering questions in
asks' panel is the point; each call is still a question the person sees).

* **Claude Code** — a ``claude mcp add --transport http`` command with the header; with an
  agent ``--scope local`` (this project folder: one agent per project, and it wins over a
  user-wide one), else ``--scope user``. Tools are named ``mcp__asks__<tool>``;
  ``--allowedTools`` (or ``permissions.allow`` in its settings) allows them.
* **Codex** — a ``[mcp_servers.asks]`` table for ``~/.codex/config.toml`` with
  ``bearer_token_env_var`` (Codex refuses an inline token) and the export to run: the token
  comes from the environment when Codex starts, so one table serves every agent, each session
  started with its own token. ``default_tools_approval_mode = "approve"`` lets Codex call
  asks' tools without a permission prompt under every ``approval_policy`` (seen with Codex
  0.171.0: under ``"on-request"`` without it, Codex asked permission for each asks call — with
  asks' permission hook, a tab "Allow mcp__asks__ask_user_question?" before the question).
* **json** — ``{"url", "headers"}``, what other MCP clients (and the test harness) read.
"""

from __future__ import annotations

import enum
import json
import shlex
from typing import Final

from asks import contract

SERVER_NAME: Final = "asks"
CODEX_APPROVAL: Final = "approve"  # Codex's per-server tool approval: never prompt
TOKEN_ENV: Final = "ASKS_MCP_TOKEN"
TOOLS: Final = (contract.TOOL_NAME, contract.CHECK_TOOL, contract.WITHDRAW_TOOL)


class Client(enum.StrEnum):
    CLAUDE = "claude"
    CODEX = "codex"
    JSON = "json"


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def claude_tool_names() -> str:
    return ",".join(f"mcp__{SERVER_NAME}__{tool}" for tool in TOOLS)


def config_text(client: Client, url: str, token: str, agent: str | None, token_command: str) -> str:
    """The text to run or paste for ``client`` (module docstring); ``token_command`` is the
    command that prints an agent's token (``asks mcp token --agent NAME`` with the flags that
    find this hub's data dir)."""
    sent = headers(token)
    match client:
        case Client.JSON:
            return json.dumps({"url": url, "headers": sent}, indent=2)
        case Client.CLAUDE:
            scope = "local" if agent is not None else "user"
            words = ["claude", "mcp", "add", "--scope", scope, "--transport", "http"]
            words += [SERVER_NAME, url]
            for name, value in sent.items():
                words += ["--header", f"{name}: {value}"]
            lines = [shlex.join(words)]
            if agent is None:
                lines.append(
                    "# the shared token: every Claude Code session speaks as any agent it names"
                )
            else:
                lines.append(
                    f"# run it in the project folder of the agent {agent} (--scope local: "
                    "this folder only)"
                )
            lines += [
                "# let it call asks' tools without a permission prompt: start claude with",
                f"#   --allowedTools {claude_tool_names()}",
                f'# or add "mcp__{SERVER_NAME}" to permissions.allow in .claude/settings.json',
            ]
            return "\n".join(lines)
        case Client.CODEX:
            lines = [
                f"# in ~/.codex/config.toml (and run: export {TOKEN_ENV}={shlex.quote(token)})",
                f"[mcp_servers.{SERVER_NAME}]",
                f"url = {json.dumps(url)}",
                f"bearer_token_env_var = {json.dumps(TOKEN_ENV)}",
                f"default_tools_approval_mode = {json.dumps(CODEX_APPROVAL)}",
                "# Codex reads the token when it starts: two sessions are two agents when each",
                f"# starts with its own, e.g. {TOKEN_ENV}=$({token_command}) codex",
                "# a timed-out call leaves the question pending: the answer comes with the",
                "# next asks call. The approval mode lets Codex call asks' tools without a",
                "# permission prompt, whatever its approval_policy (each call is a question",
                "# you see in asks).",
                "# Codex gives MCP servers 1 s before its first turn",
                "# (mcp_optional_startup_grace_ms); a hub no Codex has used yet may take longer.",
                "# If asks' tools are missing, start Codex again (the hub is ready by then, and",
                "# at each start from now on), or put mcp_optional_startup_grace_ms = 0 at the",
                "# top of config.toml (Codex then waits for each server up to its",
                "# startup_timeout_sec).",
            ]
            return "\n".join(lines)
