"""The hub's HTTP/1.1 server (asks/hub/wire.py, docs/hub-wire.md) on real loopback sockets.

The deadlines run on trio's MockClock (autojump): a test asserts the time the server took
on that clock, never a wall-clock bound. Tasks are counted with a real trio instrument.
"""

from __future__ import annotations

import socket
from collections.abc import MutableMapping
from typing import Any

import trio
import trio.testing

from asks.hub import wire

Message = MutableMapping[str, Any]
BODY = b'{"ok":true}'


def listener() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


def post(path: str = "/", body: bytes = b"{}", *extra: str) -> bytes:
    head = [f"POST {path} HTTP/1.1", "Host: h", *extra, f"Content-Length: {len(body)}"]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class Seen:
    """What the app was told: the messages of each request, in order."""

    def __init__(self) -> None:
        self.messages: list[list[str]] = []
        self.disconnected = trio.Event()

    async def app(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        got: list[str] = []
        self.messages.append(got)
        more = True
        while more:
            message = await receive()
            got.append(message["type"])
            more = message.get("more_body", False) and message["type"] == "http.request"
        if scope["path"] == "/boom":
            raise RuntimeError("the app failed")
        if scope["path"] == "/stream":  # one event, then until the client is gone
            start = {"type": "http.response.start", "status": 200, "headers": []}
            await send(start)
            await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
            got.append((await receive())["type"])
            self.disconnected.set()
            return
        headers = [(b"content-length", b"%d" % len(BODY))]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": BODY})


async def serve(nursery: trio.Nursery, seen: Seen, limits: wire.Limits | None = None) -> int:
    sock = listener()
    await nursery.start(wire.serve, seen.app, sock, limits or wire.Limits())
    return int(sock.getsockname()[1])


async def read_all(stream: trio.SocketStream) -> bytes:
    """Everything until the server closes."""
    got = b""
    while data := await stream.receive_some(65536):
        got += data
    return got


async def read_responses(stream: trio.SocketStream, count: int) -> bytes:
    got = b""
    while got.count(b"HTTP/1.1 ") < count or not got.endswith(BODY):
        data = await stream.receive_some(65536)
        assert data, got
        got += data
    return got


async def test_an_idle_connection_closes_at_the_keep_alive_deadline(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    port = await serve(nursery, Seen())
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    t0 = trio.current_time()
    assert await read_all(stream) == b""  # never a request: closed, nothing said
    assert 5.0 <= trio.current_time() - t0 < 5.5
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(post())
    await read_responses(stream, 1)
    t1 = trio.current_time()
    assert await read_all(stream) == b""  # idle after a response: 5 s from the response
    assert 5.0 <= trio.current_time() - t1 < 5.5


async def test_a_head_never_finished_closes_at_the_keep_alive_deadline(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    seen = Seen()
    port = await serve(nursery, seen)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    t0 = trio.current_time()
    async with trio.open_nursery() as inner:
        inner.start_soon(trickle, stream, b"P")  # a byte a second: one unfinished head
        got = await read_all(stream)
        inner.cancel_scope.cancel()
    assert got == b""
    assert 5.0 <= trio.current_time() - t0 < 6.0
    assert seen.messages == []  # the app never ran


async def test_a_body_trickled_slower_than_the_body_timeout_ends_the_request(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    seen = Seen()
    port = await serve(nursery, seen)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(post("/", b"x" * 100)[:-95])  # the head and 5 of 100 bytes
    t0 = trio.current_time()
    async with trio.open_nursery() as inner:
        inner.start_soon(trickle, stream, b"x")
        got = await read_all(stream)
        inner.cancel_scope.cancel()
    assert got == b""  # no response: the app was told the client is gone
    assert 10.0 <= trio.current_time() - t0 < 12.0
    [told] = seen.messages  # the bytes as they came, then the disconnect
    assert set(told[:-1]) == {"http.request"} and told[-1] == "http.disconnect"


async def trickle(stream: trio.SocketStream, byte: bytes) -> None:
    """``byte`` every second, while the server lets it."""
    try:
        for _ in range(95):
            await trio.sleep(1.0)
            await stream.send_all(byte)
    except trio.BrokenResourceError:
        return


async def test_a_client_that_closes_mid_stream_is_told_to_the_app(nursery: trio.Nursery) -> None:
    seen = Seen()
    port = await serve(nursery, seen)
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(post("/stream"))
    got = b""
    while b"data: 1" not in got:
        got += await stream.receive_some(65536)
    assert b"transfer-encoding: chunked" in got.lower()
    await stream.aclose()
    await seen.disconnected.wait()
    assert seen.messages == [["http.request", "http.disconnect"]]


async def test_an_app_failing_before_its_response_gets_a_500_and_the_connection_closes(
    nursery: trio.Nursery,
) -> None:
    port = await serve(nursery, Seen())
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(post("/boom") + post())  # the second is never answered
    got = await read_all(stream)
    assert got.startswith(b"HTTP/1.1 500 ")
    assert b"content-length: 0" in got.lower() and b"connection: close" in got.lower()
    assert got.count(b"HTTP/1.1") == 1


async def test_the_last_response_a_connection_may_serve_says_close(nursery: trio.Nursery) -> None:
    port = await serve(nursery, Seen(), wire.Limits(max_requests=3))
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(post() * 4)
    got = await read_all(stream)
    assert got.count(b"HTTP/1.1 200") == 3
    assert got.lower().count(b"connection: close") == 1


class Spawned(trio.abc.Instrument):
    """Counts the tasks spawned while it is on."""

    def __init__(self) -> None:
        self.count = 0

    def task_spawned(self, task: trio.lowlevel.Task) -> None:
        self.count += 1


async def test_requests_on_a_connection_spawn_no_task(nursery: trio.Nursery) -> None:
    """W1: 50 requests on one kept-alive connection spawn nothing (hypercorn spawned two
    per request: the app's task and the idle timer's restart)."""
    port = await serve(nursery, Seen())
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(post())
    await read_responses(stream, 1)
    spawned = Spawned()
    trio.lowlevel.add_instrument(spawned)
    try:
        for _ in range(50):
            await stream.send_all(post())
            await read_responses(stream, 1)
    finally:
        trio.lowlevel.remove_instrument(spawned)
    assert spawned.count == 0


async def test_cancelling_the_server_closes_its_connections(nursery: trio.Nursery) -> None:
    """W6: stop is cancellation: a request whose app is waiting ends with the connection."""
    seen = Seen()
    sock = listener()
    with trio.CancelScope() as scope:
        async with trio.open_nursery() as inner:
            await inner.start(wire.serve, seen.app, sock)
            stream = await trio.open_tcp_stream("127.0.0.1", int(sock.getsockname()[1]))
            await stream.send_all(post("/stream"))
            got = b""
            while b"data: 1" not in got:
                got += await stream.receive_some(65536)
            scope.cancel()
    assert await read_all(stream) == b""  # closed, the stream left unfinished
    assert not seen.disconnected.is_set()  # the app was cancelled, not told
    sock.close()
