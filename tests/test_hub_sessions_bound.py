"""The hub's ``initialize`` sessions are bounded: a client that opens sessions and
never closes them cannot make the hub keep them all.

A real :class:`~asks.hub.server.HubServer` on hypercorn, on a free loopback port, in this
trio run, spoken to with raw HTTP; its idle limit is a fraction of a second here (the hub's
is :data:`~asks.hub.server.SESSION_IDLE`). The reaping is seen by its effect (the session's
id is unknown, 404, and its place is free), not timed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import trio

from asks.host.host import QuestionHost
from asks.hub.credentials import Keyring
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer
from asks.hub.token import token_path, write_private
from asks.store.journal import Journal

TOKEN = "sessions-token"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
IDLE = 0.2  # seconds: the hub's is SESSION_IDLE
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {}}


async def post(port: int, body: dict[str, object], session: str | None = None) -> bytes:
    """One POST on its own connection, closed once the response is read; the raw response."""
    data = json.dumps(body).encode()
    head = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        f"Authorization: Bearer {TOKEN}",
        "X-Asks-Agent: idler",
        "Accept: application/json, text/event-stream",
        "Content-Type: application/json",
        f"Content-Length: {len(data)}",
    ]
    if session is not None:
        head += [f"Mcp-Session-Id: {session}", "MCP-Protocol-Version: 2025-06-18"]
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
    return int(response.split(b" ", 2)[1])


def session_of(response: bytes) -> str:
    found = re.search(rb"mcp-session-id: (\S+)", response, re.I)
    assert found is not None, response[:300]
    return found.group(1).decode()


def run_server(tmp_path: Path, test: object, **limits: float) -> None:
    async def main() -> None:
        journal = Journal.create(data_dir=tmp_path, session_id="sessions")
        host = QuestionHost(journal, clock=trio.current_time)
        write_private(token_path(tmp_path), TOKEN + "\n")
        server = HubServer(host.hub_port, Keyring(tmp_path), bind_listener(port=0), **limits)  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            url = await nursery.start(server.run)
            port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
            await test(port)  # type: ignore[operator]
            nursery.cancel_scope.cancel()
        journal.close()

    trio.run(main)


def test_sessions_beyond_the_bound_are_refused(tmp_path: Path) -> None:
    async def test(port: int) -> None:
        opened = [await post(port, INIT) for _ in range(3)]
        assert [status(r) for r in opened] == [200, 200, 200]
        refused = await post(port, INIT)
        assert status(refused) == 503  # the fourth: the hub keeps at most three
        assert status(await post(port, PING, session_of(opened[0]))) == 200  # kept ones work

    run_server(tmp_path, test, max_sessions=3)


def test_an_idle_session_is_closed_and_its_place_freed(tmp_path: Path) -> None:
    async def test(port: int) -> None:
        idle = session_of(await post(port, INIT))
        assert status(await post(port, PING, idle)) == 200
        assert status(await post(port, INIT)) == 503  # the one place is taken
        await trio.sleep(IDLE)
        while status(await post(port, PING, idle)) == 200:  # each ping restarts its idle time
            await trio.sleep(IDLE * 2)
        assert status(await post(port, PING, idle)) == 404  # closed: its id is unknown now
        assert status(await post(port, INIT)) == 200  # its place is free again

    run_server(tmp_path, test, max_sessions=1, session_idle=IDLE)
