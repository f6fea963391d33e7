"""The hub's three tools as the MCP SDK's handlers: the SDK's request context turned into a
:class:`~asks.hub.calls.CallSite`, the call run by :class:`~asks.hub.calls.HubCalls` (which
holds every rule of the tools), its text turned into the SDK's result types.

What only this carrier does: progress notifications while a blocking call waits (when the
call carried a ``progressToken``), and a blocking call of a client that declared MCP Tasks
answered as a task (:mod:`asks.hub.tasks`). The agent's label comes from the request
(:func:`~asks.hub.identity.agent_label`, with the ``initialize`` handshake's client name).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import attrs
import mcp_types as types

from asks.host.waits import Wait
from asks.hub.calls import CallSite, HubCalls, tool_dicts
from asks.hub.guard import bound_agent, connection_gone
from asks.hub.identity import agent_label
from asks.hub.tasks import TaskMethods, created, declares_tasks, now_ms


def tool_list() -> list[types.Tool]:
    """The tools as MCP lists them (:func:`~asks.hub.calls.tool_dicts`), as SDK types."""
    return [types.Tool.model_validate(tool) for tool in tool_dicts()]


@attrs.define(eq=False)
class HubTools:
    """The SDK's ``tools/list`` and ``tools/call`` handlers (module docstring)."""

    calls: HubCalls
    task_ttl_ms: int
    task_silence_ms: int
    tasks: TaskMethods | None = None  # set: blocking asks become tasks where declared

    async def list_tools(self, _ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    def label_of(self, ctx: Any) -> str:
        """The label of the agent behind the request of ``ctx`` (:mod:`asks.hub.identity`)."""
        scope = getattr(ctx.request, "scope", None)
        return agent_label(bound_agent(scope), _headers(ctx), ctx.meta, _handshake_name(ctx))

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | dict[str, Any]:
        arguments = params.arguments if params.arguments is not None else {}
        outcome = await self.calls.run(self._site(ctx), params.name, arguments)
        if isinstance(outcome, dict):
            return outcome  # answered as a task: its result comes with tasks/get
        text, failed = outcome
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=failed
        )

    def _site(self, ctx: Any) -> CallSite:
        scope = getattr(ctx.request, "scope", None)
        gone = connection_gone(scope)
        meta: Mapping[str, Any] | None = ctx.meta
        wants_progress = meta is not None and meta.get("progress_token") is not None
        return CallSite(
            label=self.label_of(ctx),
            scope=scope,
            request_id=ctx.request_id,
            meta=meta,
            until_gone=gone.wait if gone is not None else None,
            progress=_beat(ctx) if wants_progress else None,
            detach=self._detach if self.tasks is not None and declares_tasks(ctx) else None,
        )

    def _detach(self, label: str, call_id: str, wait: Wait) -> dict[str, Any]:
        """A blocking call's live wait, answered as a task (its result comes with
        ``tasks/get``)."""
        assert self.tasks is not None
        task = self.calls.port.tasks.detach(
            label,
            call_id,
            wait,
            now_ms=now_ms(),
            ttl_ms=self.task_ttl_ms,
            silence_ms=self.task_silence_ms,
        )
        self.tasks.started()
        return created(task)


def _beat(ctx: Any) -> Callable[[int], Awaitable[None]]:
    async def beat(n: int) -> None:
        await ctx.session.report_progress(n, None, "waiting for the user's answer")

    return beat


def _headers(ctx: Any) -> Mapping[str, str] | None:
    return getattr(ctx.request, "headers", None)


def _handshake_name(ctx: Any) -> str | None:
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return name if isinstance(name, str) else None
