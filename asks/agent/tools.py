"""Built-in tools for the scripted agent: simulated long work, and a command that needs
the person's permission (a foreign prompt). ``ask_user_question`` itself is served by the host.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import trio

from asks.agent.loop import ToolCall, ToolContext
from asks.agent.transcript import EntryKind

MAX_WORK_SECONDS = 120.0


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _function(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": []},
        },
    }


@attrs.frozen
class WorkTool:
    """Pretends to work for ``seconds`` (interruptible), reporting progress."""

    name: str = "work"

    def schema(self) -> dict[str, Any]:
        return _function(
            self.name,
            "Simulate a long-running piece of work.",
            {"seconds": {"type": "number"}, "label": {"type": "string"}},
        )

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        args = _arguments(call)
        seconds = args.get("seconds", 2)
        seconds = float(seconds) if isinstance(seconds, int | float) else 2.0
        seconds = min(max(seconds, 0.0), MAX_WORK_SECONDS)
        label = str(args.get("label") or "working")
        await trio.sleep(seconds)
        context.transcript.add(EntryKind.TOOL, f"{label}: done ({seconds:g}s)", self.name)
        return f"{label}: finished after {seconds:g} seconds."


@attrs.frozen
class CommandTool:
    """A (simulated) shell command that needs the person's permission first."""

    name: str = "run_command"

    def schema(self) -> dict[str, Any]:
        return _function(
            self.name,
            "Run a shell command (simulated). The user must allow it first.",
            {"command": {"type": "string"}},
        )

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        command = str(_arguments(call).get("command") or "")
        if not await context.confirm(f"Allow the agent to run: {command}"):
            return f"The user denied permission to run {command!r}."
        return f"Ran {command!r} (simulated): exit status 0."
