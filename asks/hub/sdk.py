"""The MCP SDK's part of the hub: its app, built when the first MCP request comes.

This is the only module of the hub's server that imports the official SDK (``mcp``, and with
it pydantic, starlette, anyio, sse-starlette…: ~40 MiB and 0.5–1.4 s of imports). The server
(:mod:`asks.hub.server`) imports it in a worker thread at the first request that reaches the
SDK (:class:`~asks.hub.lazy.LazySdk`), so that an idle hub costs only its own server and
the guard, and the screen keeps drawing while it loads.

* :func:`build` — the SDK's lowlevel server with the hub's three tools, the tasks extension
  and the streamable HTTP app behind the transport's own Host/Origin check.
* :class:`SdkApp` — that app, and :meth:`SdkApp.running`: its session manager and the tasks'
  sweeper, for as long as the hub serves.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import attrs
import mcp_types as types
import trio
from mcp.server import Server
from mcp.server.transport_security import TransportSecuritySettings

from asks.core.version import __version__
from asks.hub.calls import input_schemas
from asks.hub.lazy import SdkPlan
from asks.hub.tasks import TaskMethods
from asks.hub.tools import HubTools


@attrs.define(eq=False)
class SdkApp:
    """The SDK's ASGI app, and what must run beside it while it serves."""

    app: Any  # a Starlette app: an ASGI callable
    manager: Any  # its StreamableHTTPSessionManager
    tasks: TaskMethods | None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager (the app's own lifespan) and the tasks' sweeper, while the
        block runs."""
        async with self.manager.run(), trio.open_nursery() as nursery:
            if self.tasks is not None:
                nursery.start_soon(self.tasks.sweep)
            try:
                yield
            finally:
                nursery.cancel_scope.cancel()


def build(plan: SdkPlan) -> SdkApp:
    """The SDK's app for ``plan`` (module docstring)."""
    tools = HubTools(plan.calls, plan.task_ttl_ms, plan.task_silence_ms)
    server = Server(
        "asks",
        version=__version__,
        instructions=plan.instructions,
        on_list_tools=tools.list_tools,
        get_tool_input_schema=input_schemas().get,  # else every call lists the tools
    )
    # the SDK's one default middleware opens an OpenTelemetry span per message, a no-op
    # without an exporter (asks installs none) that still costs a few % per request
    server.middleware.clear()
    # registered as a plain handler: a call answered as a task returns the extension's own
    # result shape (a dict), which the typed on_call_tool hook does not admit
    server.add_request_handler("tools/call", types.CallToolRequestParams, tools.call_tool)
    tasks = None
    if plan.offer_tasks:
        tools.tasks = tasks = TaskMethods(plan.calls.port, server, tools.label_of)
        tasks.install()
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=sorted(plan.hosts),
        allowed_origins=sorted(f"http://{h}" for h in plan.hosts),
    )
    app = server.streamable_http_app(
        streamable_http_path=plan.path,
        max_request_body_size=plan.max_body,
        transport_security=security,
        host=plan.bind_host,
        session_idle_timeout=plan.session_idle,
        max_sessions=plan.max_sessions,
    )
    return SdkApp(app, server.session_manager, tasks)
