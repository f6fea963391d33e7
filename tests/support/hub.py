"""The hub's side of the tests: outside agents on the official MCP client, and asks as one.

In process (the ``hub`` fixture of tests/conftest.py: a :class:`asks.hub.server.HubServer` on
a real host, token :data:`TOKEN`): :func:`client`; raw HTTP, one request a connection:
:func:`raw_post` (:func:`status`, :func:`session_of`). Against a running ``asks --mcp`` or
``asks hub`` under a pty: :func:`token_of` and :func:`agent`. On a bare host (no server):
:func:`hub_ask`, :func:`hub_receipts`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import httpx2
import trio
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from asks.contract import ResultEnvelope
from asks.core.model import QuestionRef
from asks.host.hub import recipient_of
from asks.hub.credentials import Keyring
from asks.hub.server import HubServer
from asks.hub.token import token_path, write_private
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.rig import Rig, call, q

TOKEN = "test-token-0123456789"  # the in-process hub's bearer token
DB = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


HELLO = {  # an initialize request: 200 with a session when the credential is accepted
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


# ---------------------------------------------------------------------------- clients
def keyring_with(data_dir: Path, token: str) -> Keyring:
    """The credentials of ``data_dir``, whose shared token is ``token``."""
    write_private(token_path(data_dir), f"{token}\n")
    return Keyring(data_dir)


def client(server: HubServer, agent: str | None = "planner", *, mode: str = "auto") -> Client:
    """The SDK's client as agent ``agent`` (None: no ``X-Asks-Agent``) of the in-process hub."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if agent is not None:
        headers["X-Asks-Agent"] = agent
    assert server.url is not None
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return Client(streamable_http_client(server.url, http_client=http), mode=mode)


def agent(url: str, token: str, name: str | None, client_name: str = "mcp") -> Client:
    """The SDK's client as agent ``name`` of the hub at ``url`` (a running asks)."""
    headers = {"Authorization": f"Bearer {token}"}
    if name is not None:
        headers["X-Asks-Agent"] = name
    http = httpx2.AsyncClient(headers=headers, timeout=60)
    return Client(
        streamable_http_client(url, http_client=http),
        client_info=Implementation(name=client_name, version="1"),
    )


def token_of(launch: Launcher) -> str:
    """The hub token of the launcher's data dir (``asks mcp token``)."""
    return subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(launch.data_dir)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def text_of(result: Any) -> str:
    """The text of a tool result."""
    return "".join(part.text for part in result.content)


def first_id(result: Any) -> str:
    """The first question id a tool result names."""
    found = re.search(r"q-[0-9a-f]{10}", text_of(result))
    assert found is not None, text_of(result)
    return found.group(0)


async def in_thread(function: Any, *args: Any) -> Any:
    """A blocking call (a pty wait, a key) off the trio thread the client runs on."""
    return await trio.to_thread.run_sync(function, *args)


# ---------------------------------------------------------------------------- raw HTTP
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {}}


async def raw_post(
    port: int, body: dict[str, Any], session: str | None = None, agent: str = "idler"
) -> bytes:
    """One POST (token :data:`TOKEN`) on its own connection, closed once the response is
    read; the raw response."""
    headers = [
        ("X-Asks-Agent", agent),
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
    ]
    if session is not None:
        headers += [("Mcp-Session-Id", session), ("MCP-Protocol-Version", "2025-06-18")]
    return await raw_request(port, headers, body)


async def raw_request(port: int, headers: list[tuple[str, str]], body: object) -> bytes:
    """One POST of ``body`` as JSON to ``/mcp`` (token :data:`TOKEN`, then ``headers``) on
    its own connection, closed once the response is read; the raw response."""
    data = json.dumps(body).encode()
    head = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        f"Authorization: Bearer {TOKEN}",
        *(f"{name}: {value}" for name, value in headers),
        f"Content-Length: {len(data)}",
    ]
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    got = b""
    while not complete(got):
        more = await stream.receive_some(65536)
        assert more, got
        got += more
    await stream.aclose()
    return got


def complete(got: bytes) -> bool:
    """A whole response: its Content-Length read, or a chunked one's last chunk."""
    head, sep, body = got.partition(b"\r\n\r\n")
    if not sep:
        return False
    length = re.search(rb"content-length: (\d+)", head, re.I)
    if length is not None:
        return len(body) >= int(length.group(1))
    return body.endswith(b"\r\n0\r\n\r\n")  # the last chunk


def status(response: bytes) -> int:
    """The HTTP status of a raw response."""
    return int(response.split(b" ", 2)[1])


def session_of(response: bytes) -> str:
    """The ``Mcp-Session-Id`` a raw response gives."""
    found = re.search(rb"mcp-session-id: (\S+)", response, re.I)
    assert found is not None, response[:300]
    return found.group(1).decode()


# ---------------------------------------------------------------------------- a cut network
@attrs.define(eq=False)
class Relay:
    """A loopback TCP relay in front of a hub whose connections can all be cut at once (what
    a dropped network does), the hub running on. Each request's ``Host`` is rewritten to the
    hub's own (the hub answers to no other); a request body must have a Content-Length.
    :attr:`seen`: each request's method and ``Mcp-Session-Id`` (or None), in order; a cut
    adds ``("CUT", None)``."""

    hub_port: int
    port: int = 0  # set once listening
    seen: list[tuple[str, str | None]] = attrs.field(factory=list)
    _links: set[trio.CancelScope] = attrs.field(factory=set)

    async def run(self, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._link, listeners)

    def cut(self) -> None:
        """Close every connection open through the relay now."""
        for link in self._links:
            link.cancel()
        self._links.clear()
        self.seen.append(("CUT", None))

    async def _link(self, client: trio.SocketStream) -> None:
        hub = await trio.open_tcp_stream("127.0.0.1", self.hub_port)
        scope = trio.CancelScope()
        self._links.add(scope)
        with scope:
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._requests, client, hub, scope)
                    nursery.start_soon(self._responses, hub, client, scope)
            except* (trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # one side went away: the link ends
        self._links.discard(scope)
        with trio.CancelScope(shield=True):
            await client.aclose()
            await hub.aclose()

    async def _requests(
        self, client: trio.SocketStream, hub: trio.SocketStream, link: trio.CancelScope
    ) -> None:
        buffer = b""
        while True:
            while b"\r\n\r\n" not in buffer:
                more = await client.receive_some(65536)
                if not more:  # the client closed: so does the link
                    link.cancel()
                    return
                buffer += more
            head, _, buffer = buffer.partition(b"\r\n\r\n")
            assert not re.search(rb"transfer-encoding", head, re.I), head
            length = re.search(rb"content-length: *(\d+)", head, re.I)
            size = int(length.group(1)) if length else 0
            while len(buffer) < size:
                more = await client.receive_some(65536)
                assert more, head
                buffer += more
            body, buffer = buffer[:size], buffer[size:]
            session = re.search(rb"(?im)^mcp-session-id: *([^\r\n]+)", head)
            method = head.split(b" ", 1)[0].decode()
            self.seen.append((method, session.group(1).decode() if session else None))
            host = f"Host: 127.0.0.1:{self.hub_port}".encode()
            head = re.sub(rb"(?im)^host:[^\r\n]*", host, head)
            await hub.send_all(head + b"\r\n\r\n" + body)

    async def _responses(
        self, hub: trio.SocketStream, client: trio.SocketStream, link: trio.CancelScope
    ) -> None:
        while data := await hub.receive_some(65536):
            await client.send_all(data)
        link.cancel()  # the hub closed: so does the link


# ---------------------------------------------------------------------------- on a host
def receipts(rig: Rig) -> list[list[str]]:
    """The question ids of each ``offer_delivered`` line, in journal order."""
    return [[r["id"] for r in line["refs"]] for line in rig.lines_of("offer_delivered")]


def hub_ask(rig: Rig, label: str, call_id: str, text: str) -> QuestionRef:
    """Agent ``label`` asks one async question; its ref."""
    reply = rig.host.hub_port.start_call(label, call_id, call(q(text), blocking=False))
    assert isinstance(reply, ResultEnvelope), reply
    return rig.ref(f"{recipient_of(label)}:{call_id}")


def hub_receipts(rig: Rig) -> Counter[QuestionRef]:
    """How many ``offer_delivered`` lines name each ref."""
    counts: Counter[QuestionRef] = Counter()
    for line in rig.lines_of("offer_delivered"):
        counts.update(QuestionRef(r["id"], r["incarnation"]) for r in line["refs"])
    return counts


# ---------------------------------------------------------------------------- the hub under a pty
def start_hub(launch: Launcher) -> tuple[PtyApp, str, str]:
    """``asks --mcp`` on a free port: the app, the hub's URL (from the screen), the token."""
    app = launch.start("--mcp", "--mcp-port", "0", script="hub_quiet.toml", cols=140)
    found = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)")
    app.wait_for("QUIET-READY")
    token = subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(launch.data_dir)],
        capture_output=True,
        text=True,
        check=True,
        env=None,
    ).stdout.strip()
    return app, found.group(1), token
