"""The MCP SDK's app, loaded at the first request that reaches it.

An idle hub (``asks --mcp``, ``asks hub`` with no agent yet) serves the guard and the hooks on
its own server (:mod:`asks.hub.wire`) without the SDK: importing it (``mcp``, pydantic,
starlette, anyio, sse-starlette…) adds ~40 MiB and 0.5–1.4 s, which a session whose agents
never connect would pay for nothing.
:class:`LazySdk` is the ASGI app the guard hands MCP requests to:

* The first request (and any that come while it loads) waits while :mod:`asks.hub.sdk` is
  imported in a worker thread — the trio loop, and so the screen and the keys, go on meanwhile
  — and the app is built from the :class:`SdkPlan`; the SDK's session manager and the tasks'
  sweeper then run in the server's nursery until the server ends. Every request after that
  goes straight to the SDK's app.
* A load that fails fails the requests waiting for it (the server answers 500); the next
  request tries again.
* An ASGI lifespan (the hub's own server sends none) is answered here at once: the SDK's own
  lifespan (its session manager) starts with the app, as above.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Final

import attrs
import trio

from asks.hub.calls import HubCalls
from asks.hub.guard import App, Receive, Scope, Send

SDK_MODULE: Final = "asks.hub.sdk"


@attrs.frozen
class SdkPlan:
    """Everything the SDK's app is made from, known before the SDK loads (the fields of
    :class:`~asks.hub.server.HubServer` of the same names say what each means)."""

    calls: HubCalls  # the tools' rules on the hub's port, shared with the guard's lean path
    instructions: str
    path: str
    bind_host: str
    hosts: frozenset[str]  # the Host values the server answers to
    max_body: int
    task_ttl_ms: int
    task_silence_ms: int
    offer_tasks: bool
    session_idle: float
    max_sessions: int


@attrs.define(eq=False)
class LazySdk:
    """ASGI app: the SDK's, built at the first request (module docstring)."""

    plan: SdkPlan
    nursery: trio.Nursery  # the server's: the SDK's session manager runs there
    _app: App | None = attrs.field(init=False, default=None)
    _lock: trio.Lock = attrs.field(init=False, factory=trio.Lock)

    @property
    def loaded(self) -> bool:
        """Has the SDK's app been built (a request reached it)?"""
        return self._app is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        app = self._app if self._app is not None else await self._load()
        await app(scope, receive, send)

    async def _load(self) -> App:
        async with self._lock:
            if self._app is None:
                self._app = await self.nursery.start(self._serve)
            return self._app

    async def _serve(self, task_status: trio.TaskStatus[App] = trio.TASK_STATUS_IGNORED) -> None:
        """Import the SDK (in a worker thread), build its app, report it, and keep its session
        manager running until cancelled."""
        sdk: Any = sys.modules.get(SDK_MODULE)  # imported already (another server): no thread
        if sdk is None:
            sdk = await trio.to_thread.run_sync(importlib.import_module, SDK_MODULE)
        built = sdk.build(self.plan)
        async with built.running():
            task_status.started(built.app)
            await trio.sleep_forever()


async def _lifespan(receive: Receive, send: Send) -> None:
    """The ASGI lifespan protocol, each step answered as done (module docstring)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
