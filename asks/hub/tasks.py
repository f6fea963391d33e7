"""MCP Tasks on the wire (``io.modelcontextprotocol/tasks``, protocol 2026-07-28).

What Claude Code 2.1.332 does with it (seen with the real binary: docs/late-answers.md): it
declares the extension in every request's ``_meta`` client capabilities; when the server's
``server/discover`` declares it too, a ``tools/call`` answered ``{"resultType": "task",
"taskId", "status": "working", "ttlMs", "pollIntervalMs", …}`` is polled with ``tasks/get``
until ``completed`` (its ``result`` a ``CallToolResult``), and the completed result starts a
turn of an idle session.

* :func:`declares_tasks` — whether a request declared the extension (the hub declares it in
  ``server/discover`` only then, and answers a blocking ask as a task only then).
* :class:`TaskMethods` — ``server/discover`` with the extension, ``tasks/get``, ``tasks/cancel``
  (the status and the offer come from :class:`~asks.host.tasks.TaskDesk`; a completed
  result's offer is receipted once the response was handed over, as for any tool result:
  :func:`~asks.hub.guard.carry`), and :meth:`TaskMethods.sweep`, which ends live tasks whose
  ttl passed.
* Unknown, another agent's and expired task ids get one error: ``-32602`` "Unknown task".
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any, Final

import attrs
import mcp_types as types
import trio
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from asks.host.hub import HubPort
from asks.host.tasks import TaskId, TaskStatus, TaskView
from asks.hub.guard import carry

TASKS: Final = "io.modelcontextprotocol/tasks"
POLL_INTERVAL_MS: Final = 1000  # a poll is a few ms of loopback: the answer reaches it ≤ 1 s
INVALID_PARAMS: Final = -32602
UNKNOWN_TASK: Final = "Unknown task: no task of yours has this id (or it expired)."
SWEEP_MAX: Final = 3600.0  # seconds between checks for expired tasks, at most


class TaskParams(types.RequestParams):
    """``tasks/get`` and ``tasks/cancel`` params: ``{"taskId": …}``."""

    task_id: str


def declares_tasks(ctx: Any) -> bool:
    """Did the request behind ``ctx`` declare the tasks extension (2026-07-28 only)?"""
    if getattr(ctx, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
        return False
    capabilities = getattr(ctx.session, "client_capabilities", None)
    extensions = getattr(capabilities, "extensions", None)
    return isinstance(extensions, dict) and TASKS in extensions


def now_ms() -> int:
    return int(time.time() * 1000)


def _stamp(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def task_object(task: TaskId, view: TaskView, now: int) -> dict[str, Any]:
    """A task as the extension writes it; a completed one with its ``result``."""
    message = {
        TaskStatus.WORKING: "waiting for the user's answer",
        TaskStatus.COMPLETED: "the user answered",
        TaskStatus.CANCELLED: "cancelled",
    }[view.status]
    body: dict[str, Any] = {
        "taskId": task.text(),
        "status": view.status.value,
        "statusMessage": message,
        "createdAt": _stamp(task.created_ms),
        "lastUpdatedAt": _stamp(now),
        "ttlMs": task.ttl_ms,
        "pollIntervalMs": POLL_INTERVAL_MS,
    }
    if view.status is TaskStatus.COMPLETED:
        body["result"] = {"content": [{"type": "text", "text": view.text}], "isError": False}
    return body


def created(task: TaskId) -> dict[str, Any]:
    """The ``tools/call`` result that answers a call as a task."""
    return {"resultType": "task", **task_object(task, TaskView(TaskStatus.WORKING), now_ms())}


@attrs.define(eq=False)
class TaskMethods:
    """The extension's request methods on the hub's port (module docstring)."""

    port: HubPort
    server: Any  # the SDK's lowlevel Server (its capabilities for server/discover)
    label_of: Any  # ctx → the agent's label (asks.hub.tools.HubTools.label_of)
    _wake: trio.Event = attrs.Factory(trio.Event)

    def install(self) -> None:
        self.server.add_request_handler("server/discover", types.RequestParams, self.discover)
        self.server.add_request_handler("tasks/get", TaskParams, self.get)
        self.server.add_request_handler("tasks/cancel", TaskParams, self.cancel)

    async def discover(self, ctx: Any, _params: Any) -> types.DiscoverResult:
        extensions = dict(self.server.extensions)
        if declares_tasks(ctx):
            extensions[TASKS] = {}
        capabilities = self.server.get_capabilities(
            extensions=extensions, protocol_version=ctx.protocol_version
        )
        return types.DiscoverResult(
            supported_versions=list(MODERN_PROTOCOL_VERSIONS),
            capabilities=capabilities,
            instructions=self.server.instructions,
        )

    def started(self) -> None:
        """A task was made: the sweeper looks at its expiry."""
        self._wake.set()
        self._wake = trio.Event()

    async def get(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        now = now_ms()
        label = self.label_of(ctx)
        view = self.port.tasks.view(label, params.task_id, now)
        return self._answer(ctx, params.task_id, view, now)

    async def cancel(self, ctx: Any, params: TaskParams) -> dict[str, Any]:
        now = now_ms()
        view = self.port.tasks.cancel(self.label_of(ctx), params.task_id, now)
        return self._answer(ctx, params.task_id, view, now)

    def _answer(self, ctx: Any, text: str, view: TaskView | None, now: int) -> dict[str, Any]:
        task = TaskId.parse(text)
        if view is None or task is None:
            raise MCPError(INVALID_PARAMS, UNKNOWN_TASK)
        if view.offer is not None:
            carry(getattr(ctx.request, "scope", None), ctx.request_id, view.offer, self.port)
        return task_object(task, view, now)

    async def sweep(self) -> None:
        """End live tasks as their ttl passes (runs until cancelled)."""
        while True:
            following = self.port.tasks.expire(now_ms())
            wait = SWEEP_MAX if following is None else (following - now_ms()) / 1000
            with trio.move_on_after(max(0.0, min(wait, SWEEP_MAX))):
                await self._wake.wait()
