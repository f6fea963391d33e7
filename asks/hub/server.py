"""The hub's MCP server: the official SDK's streamable HTTP app behind the guard, on the hub's
own HTTP/1.1 server (:mod:`asks.hub.wire`, docs/hub-wire.md). The SDK's app is built at the
first request that reaches it (:class:`~asks.hub.lazy.LazySdk`): an idle hub serves the
guard and the hooks only.

``await nursery.start(HubServer(...).run)`` binds (loopback by default, on the fixed
:data:`DEFAULT_PORT` so a client's config keeps working across restarts), then reports the
URL; a busy port raises :class:`HubPortBusyError` naming the setting, before anything is served.
The server runs in the session's nursery until it is cancelled. Requests pass
:class:`~asks.hub.guard.HubGuard` (Host/Origin, the credentials of the
:class:`~asks.hub.credentials.Keyring` as they are at each request, the agent, receipts) before
the SDK; ``on_refused`` hears of each refused client. Sessions of clients that never close
them are bounded: closed after :data:`SESSION_IDLE` idle, at most :data:`MAX_SESSIONS` open.

The SDK serves both protocol generations its clients speak (2026-07-28 without sessions, as
Claude Code 2.1.332; ``initialize`` with ``Mcp-Session-Id``, as Codex 0.171.0).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import Final

import attrs
import trio

from asks.core import diagnostics
from asks.host.hub import HubPort
from asks.host.rewake import PRINT_GRACE
from asks.host.tasks import TASK_SILENCE_MS, TASK_TTL_MS
from asks.hub.calls import PROGRESS_EVERY, HubCalls
from asks.hub.codexqueue import CodexCourier
from asks.hub.credentials import Keyring
from asks.hub.guard import HookApp, HubGuard, Refusal
from asks.hub.heap import HeapTrim, malloc_trim
from asks.hub.hookcmd import HOOK_PATH, PRINTED_PATH, REWAKE_PATH
from asks.hub.hooks import HOOK_LIMIT, PermissionHook
from asks.hub.lazy import LazySdk, SdkPlan
from asks.hub.lean import LeanPath
from asks.hub.listen import LOOPBACK
from asks.hub.rewake import REWAKE_LIMIT, RewakeHook

SDK_LOGGERS: Final = ("mcp", "sse_starlette")
MAX_BODY: Final = 1024 * 1024  # bytes of one request (a tool call is a few KiB)
# ``initialize`` sessions (the older protocol, as Codex speaks it): one with no request in
# flight this long is closed (a client that comes back after it gets 404 and initializes
# again, as the protocol says); beyond this many open at once, a new one is refused with 503.
# A session holding its event stream open has a request in flight: it is never reaped.
SESSION_IDLE: Final = 10 * 60.0
MAX_SESSIONS: Final = 512
PATH: Final = "/mcp"
INSTRUCTIONS: Final = (
    "asks puts your questions in the user's question panel, next to other agents'. Ask with "
    'ask_user_question (blocking, or "blocking": false to keep working); answers you have '
    "not received yet start the result of your next call to any asks tool."
)


def host_names(bind_host: str, port: int) -> frozenset[str]:
    """The ``Host`` header values the server answers to."""
    names = {f"{bind_host}:{port}"}
    if bind_host in (LOOPBACK, "localhost", "::1"):
        names |= {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    return frozenset(names)


@attrs.define(eq=False)
class HubServer:
    """One MCP server for a session's host, on a bound listener (module docstring)."""

    port: HubPort
    keyring: Keyring
    listener: socket.socket
    progress_every: float = PROGRESS_EVERY
    on_refused: Callable[[Refusal], None] | None = None
    task_ttl_ms: int = TASK_TTL_MS
    task_silence_ms: int = TASK_SILENCE_MS  # a task nobody polled this long: client gone
    offer_tasks: bool = True  # False: never answer as a task (a blocking call stays one)
    codex: str | None = None  # the codex binary: late answers go to Codex with codex queue
    hook_limit: float = HOOK_LIMIT  # seconds a permission request waits before handing back
    rewake_limit: float = REWAKE_LIMIT  # seconds a rewake hook waits on the hub at most
    rewake_grace: float = PRINT_GRACE  # seconds a rewake hook has to report it printed
    session_idle: float = SESSION_IDLE  # seconds an initialize session may sit idle
    max_sessions: int = MAX_SESSIONS  # initialize sessions open at once
    lean: bool = True  # the hot 2026-07-28 calls answered without the SDK (asks/hub/lean.py)
    heap: HeapTrim = attrs.Factory(lambda: HeapTrim(malloc_trim()))  # after each burst
    url: str | None = attrs.field(init=False, default=None)
    sdk: LazySdk | None = attrs.field(init=False, default=None)  # set once serving
    _courier: CodexCourier | None = attrs.field(init=False, default=None)

    @property
    def bind_host(self) -> str:
        return str(self.listener.getsockname()[0])

    def app(
        self, bound_port: int, nursery: trio.Nursery, heard: Callable[[], None] | None = None
    ) -> HubGuard:
        """The guard in front of the hooks and of the SDK's app, which loads at the first
        request that reaches it (in ``nursery``: the server's own)."""
        hosts = host_names(self.bind_host, bound_port)
        calls = HubCalls(self.port, self.progress_every, self._courier)
        plan = SdkPlan(
            calls=calls,
            instructions=INSTRUCTIONS,
            path=PATH,
            bind_host=self.bind_host,
            hosts=hosts,
            max_body=MAX_BODY,
            task_ttl_ms=self.task_ttl_ms,
            task_silence_ms=self.task_silence_ms,
            offer_tasks=self.offer_tasks,
            session_idle=self.session_idle,
            max_sessions=self.max_sessions,
        )
        rewake = RewakeHook(self.port.rewake, self.rewake_limit, self.rewake_grace)
        hooks: dict[str, HookApp] = {
            HOOK_PATH: PermissionHook(self.port.permissions, self.hook_limit),
            REWAKE_PATH: rewake.wait,
            PRINTED_PATH: rewake.printed,
        }
        self.sdk = LazySdk(plan, nursery)
        return HubGuard(
            self.sdk,
            self.port,
            self.keyring,
            hosts,
            PATH,
            MAX_BODY,
            self.on_refused,
            hooks,
            LeanPath(calls).take if self.lean else None,
            heard,
        )

    async def run(self, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve until cancelled; ``task_status.started(url)`` once listening."""
        from asks.hub import wire  # noqa: PLC0415 (lazy: only with the hub on)

        _route_sdk_logs()
        bound_port = self.listener.getsockname()[1]
        if self.codex is not None:
            self._courier = CodexCourier(self.port, self.codex)
        try:
            async with trio.open_nursery() as nursery:
                asgi = self.app(bound_port, nursery, self.heap.request)
                await nursery.start(wire.serve, asgi, self.listener)
                nursery.start_soon(self.port.rewake.sweep)
                nursery.start_soon(self.heap.run)
                if self._courier is not None:
                    await nursery.start(self._courier.run)
                self.url = f"http://{_url_host(self.bind_host)}:{bound_port}{PATH}"
                task_status.started(self.url)
        finally:
            self.listener.close()


def _route_sdk_logs() -> None:
    """The SDK logs (a refused Host, a dropped stream, a session ended) go to the debug log
    while it is on (asks/core/diagnostics.py: they propagate to its handler); else nowhere
    unless the process gave them a handler itself: without one, Python would print their
    warnings on the terminal the REPL draws on."""
    on = diagnostics.debug_log_path() is not None
    for name in SDK_LOGGERS:
        sdk = logging.getLogger(name)
        ours = [h for h in sdk.handlers if isinstance(h, _Quiet)]
        if on:
            if ours:  # quieted by an earlier server of this process
                for handler in ours:
                    sdk.removeHandler(handler)
                sdk.propagate = True
        elif not sdk.handlers:
            sdk.addHandler(_Quiet())
            sdk.propagate = False


class _Quiet(logging.NullHandler):
    """The handler that keeps an SDK logger quiet (removed when the debug log is on)."""


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
