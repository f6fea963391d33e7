"""The agent's tools besides ``ask_user_question`` (which the host serves), and which model
gets which (:func:`scripted_tools`, :func:`real_tools`).

* A **scripted** model (the tour, ``--script``) gets the simulated tools of the demos:
  :class:`WorkTool` (waits, interruptibly) and :class:`CommandTool` (asks the person's
  permission, then *pretends*: nothing runs), plus ``withdraw_question``.
* A **real** model gets real tools: ``run_command`` (:class:`~asks.agent.shell.ShellTool`: runs
  ``/bin/sh -c`` in the start directory after the person allows it), ``read_file``
  (:class:`~asks.agent.read_file.ReadFileTool`: a bounded text file under the start directory,
  no permission) and ``withdraw_question`` (:class:`~asks.agent.withdraw.WithdrawTool`).

A tool with ``needs_ui = True`` is offered only while a UI is attached (like
``ask_user_question``, see ``Agent.offered_tools``). Every tool returns the text the model
reads; a failure is a coded ``Error [code]: …`` text (:class:`asks.contract.ErrorCode`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Final

import attrs
import trio

from asks import contract
from asks.agent.loop import Tool, ToolCall, ToolContext
from asks.agent.toolkit import function_schema
from asks.agent.withdraw import WithdrawTool
from asks.core.i18n import _

MAX_WORK_SECONDS: Final = 120.0


def _lenient(call: ToolCall) -> dict[str, Any]:
    try:
        value = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@attrs.frozen
class WorkTool:
    """Pretends to work for ``seconds`` (interruptibly), reporting progress. Scripted only."""

    name: str = "work"

    def schema(self) -> dict[str, Any]:
        return function_schema(
            self.name,
            "Simulate a long-running piece of work.",
            {"seconds": {"type": "number"}, "label": {"type": "string"}},
        )

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        args = _lenient(call)
        seconds = args.get("seconds", 2)
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            seconds = 2.0
        if not math.isfinite(seconds):
            return contract.ToolError(
                contract.ErrorCode.INVALID_ARGUMENTS,
                f'"seconds" must be a finite number of seconds (0 to {MAX_WORK_SECONDS:g}), '
                f"not {seconds}.",
            ).text
        seconds = min(max(float(seconds), 0.0), MAX_WORK_SECONDS)
        label = str(args.get("label") or "working")
        await trio.sleep(seconds)
        return f"{label}: finished after {seconds:g} seconds."  # its tool line shows it


@attrs.frozen
class CommandTool:
    """A *simulated* shell command that needs the person's permission first (scripted demos:
    the tour's ``make deploy`` must never run)."""

    name: str = "run_command"

    def schema(self) -> dict[str, Any]:
        return function_schema(
            self.name,
            "Run a shell command (simulated). The user must allow it first.",
            {"command": {"type": "string"}},
        )

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        command = str(_lenient(call).get("command") or "")
        ask = _("Allow the agent to run: {command}").format(command=command)  # shown, not sent
        if not await context.confirm(ask):
            return f"The user denied permission to run {command!r}."
        return f"Ran {command!r} (simulated): exit status 0."


def scripted_tools() -> list[Tool]:
    """The tools of a scripted model (module docstring)."""
    return [WorkTool(), CommandTool(), WithdrawTool()]


def real_tools(cwd: Path, command_timeout: float | None = None) -> list[Tool]:
    """The tools of a real model, working in ``cwd`` (module docstring); ``command_timeout``
    ``None``: ``run_command``'s default (``asks.agent.shell.DEFAULT_TIMEOUT``)."""
    # Imported here: a scripted model (the tour) never needs them (launch cost).
    from asks.agent.read_file import ReadFileTool  # noqa: PLC0415
    from asks.agent.shell import ShellTool  # noqa: PLC0415

    shell = ShellTool(cwd) if command_timeout is None else ShellTool(cwd, command_timeout)
    return [shell, ReadFileTool(cwd), WithdrawTool()]
