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

**A warm start for the agents that need it.** Codex (0.147 and later) gives an optional MCP
server one second (``mcp_optional_startup_grace_ms``, default 1000) to finish its handshake
before it builds its first turn's tools; a server still starting is left out of that turn,
silently. Codex opens an ``initialize`` session, which the SDK serves: on a cold hub that
handshake waits for the SDK's import (0.4 s on a quiet machine; 1.1 and 4.8 s measured while
Claude Code started beside it on a busy one, where Codex then ran without asks' tools in 4
runs of 5). So the first request that reaches the SDK calls :attr:`LazySdk.on_needed` (the
command line then leaves :data:`WARM_FILE` in the hub's data directory: :func:`remember`),
and a hub that starts with that file (:func:`wanted`) calls :meth:`LazySdk.warm` once it
serves: the SDK loads in the background as for a request. A hub whose agents never needed
the SDK stays without it (its idle memory: docs/fleet-scale.md).
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import attrs
import trio

from asks.hub.asgi import App, Receive, Scope, Send
from asks.hub.calls import HubCalls

SDK_MODULE: Final = "asks.hub.sdk"
WARM_FILE: Final = "hub-sdk-warm"
"""In the hub's data directory once an agent's request needed the SDK (module docstring)."""
_log = logging.getLogger(__name__)


def wanted(data_dir: Path) -> bool:
    """Has an agent of this hub needed the SDK before (:data:`WARM_FILE`)?"""
    return (data_dir / WARM_FILE).exists()


def remember(data_dir: Path) -> None:
    """Leave :data:`WARM_FILE` in ``data_dir``; a failure only costs the next start its warm
    load, so it is logged, never raised."""
    try:
        (data_dir / WARM_FILE).touch(mode=0o600)
    except OSError as error:
        _log.debug("could not remember the SDK for a warm start: %s", error)


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
    on_needed: Callable[[], object] | None = None  # at the first request that reaches it
    _app: App | None = attrs.field(init=False, default=None)
    _lock: trio.Lock = attrs.field(init=False, factory=trio.Lock)
    _needed: bool = attrs.field(init=False, default=False)

    @property
    def loaded(self) -> bool:
        """Has the SDK's app been built (a request reached it)?"""
        return self._app is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if not self._needed:
            self._needed = True
            if self.on_needed is not None:
                self.on_needed()
        app = self._app if self._app is not None else await self._load()
        await app(scope, receive, send)

    def warm(self) -> None:
        """Start loading the SDK now, in the background, as a first request would (module
        docstring); a load that fails is logged and left to the next request."""
        if self._app is None:
            self.nursery.start_soon(self._warm)

    async def _warm(self) -> None:
        try:
            await self._load()
        except Exception:  # the next request loads again (as after a request's failed load)
            _log.debug("the SDK's warm load failed", exc_info=True)

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
