"""What ``asks mcp config claude|codex|json [--agent NAME]`` prints: set-up in one line.

Pure text (no SDK): each client's own way to name the server (``asks``), its URL, the bearer
token and, with ``--agent``, the ``X-Asks-Agent`` label that keeps two agents apart — and how
to let the client call asks' tools without a permission prompt (a person answering questions
in asks' panel is the point; each call is still a question the person sees).

* **Claude Code** — a ``claude mcp add --transport http`` command with the headers; tools are
  named ``mcp__asks__<tool>``; ``--allowedTools`` (or ``permissions.allow`` in its settings)
  allows them.
* **Codex** — a ``[mcp_servers.asks]`` table for ``~/.codex/config.toml`` with
  ``bearer_token_env_var`` (Codex refuses an inline token) and the export to run; Codex calls
  MCP tools without asking under ``approval_policy = "never"``.
* **json** — ``{"url", "headers"}``, what other MCP clients (and the test harness) read.
"""

from __future__ import annotations

import enum
import json
import shlex
from typing import Final

from asks import contract

SERVER_NAME: Final = "asks"
TOKEN_ENV: Final = "ASKS_MCP_TOKEN"
TOOLS: Final = (contract.TOOL_NAME, contract.CHECK_TOOL, contract.WITHDRAW_TOOL)


class Client(enum.StrEnum):
    CLAUDE = "claude"
    CODEX = "codex"
    JSON = "json"


def headers(token: str, agent: str | None) -> dict[str, str]:
    found = {"Authorization": f"Bearer {token}"}
    if agent is not None:
        found["X-Asks-Agent"] = agent
    return found


def claude_tool_names() -> str:
    return ",".join(f"mcp__{SERVER_NAME}__{tool}" for tool in TOOLS)


def config_text(client: Client, url: str, token: str, agent: str | None) -> str:
    """The text to run or paste for ``client`` (module docstring)."""
    sent = headers(token, agent)
    match client:
        case Client.JSON:
            return json.dumps({"url": url, "headers": sent}, indent=2)
        case Client.CLAUDE:
            words = ["claude", "mcp", "add", "--transport", "http", SERVER_NAME, url]
            for name, value in sent.items():
                words += ["--header", f"{name}: {value}"]
            return "\n".join(
                [
                    shlex.join(words),
                    "# let it call asks' tools without a permission prompt: start claude with",
                    f"#   --allowedTools {claude_tool_names()}",
                    f'# or add "mcp__{SERVER_NAME}" to permissions.allow in .claude/settings.json',
                ]
            )
        case Client.CODEX:
            lines = [
                f"# in ~/.codex/config.toml (and run: export {TOKEN_ENV}={shlex.quote(token)})",
                f"[mcp_servers.{SERVER_NAME}]",
                f"url = {json.dumps(url)}",
                f"bearer_token_env_var = {json.dumps(TOKEN_ENV)}",
            ]
            if agent is not None:
                lines.append(f'http_headers = {{ "X-Asks-Agent" = {json.dumps(agent)} }}')
            lines += [
                "# a timed-out call leaves the question pending: the answer comes with the",
                "# next asks call. Codex runs MCP tools without asking under",
                '# approval_policy = "never".',
            ]
            return "\n".join(lines)
