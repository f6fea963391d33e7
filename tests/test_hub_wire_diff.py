"""The hub's own server against hypercorn (docs/hub-wire.md, W2): the same raw request bytes
sent to both, each serving the same small ASGI app on a free loopback port in this test's
nursery; the status codes, the framing and the bodies the client reads must agree.

Differences that are legitimate are asserted explicitly, with the reason (:data:`ONLY_WIRE`
and the comments of :func:`shape`). Each case also says what both must give, so that a case
where both servers are wrong fails too.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
from collections.abc import MutableMapping
from typing import Any

import attrs
import pytest
import trio

from asks.hub import wire

Scope = MutableMapping[str, Any]


@attrs.define
class App:
    """The app both servers serve: ``/echo`` answers the body's length and text with a
    Content-Length; ``/chunks`` the same in two body messages (no length: chunked framing);
    ``/stream`` one event, then waits for the client's disconnect; ``/open`` the head of a
    stream, then waits the same; ``/boom`` raises before its response."""

    disconnects: list[str] = attrs.Factory(list)
    gone: trio.Event = attrs.Factory(trio.Event)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":  # hypercorn's; asks' server sends none
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                self.disconnects.append(scope["path"])
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
        text = json.dumps({"len": len(body), "body": body.decode()}).encode()
        await self.respond(scope["path"], text, receive, send)

    async def respond(self, path: str, text: bytes, receive: Any, send: Any) -> None:
        if path == "/boom":
            raise RuntimeError("the app failed before its response")
        start: dict[str, Any] = {"type": "http.response.start", "status": 200}
        if path == "/echo":
            start["headers"] = [(b"content-length", b"%d" % len(text))]
            await send(start)
            await send({"type": "http.response.body", "body": text})
            return
        start["headers"] = [(b"content-type", b"text/event-stream")]
        await send(start)
        if path == "/open":  # the head alone until the client leaves
            await self.until_gone(path, receive)
            return
        await send({"type": "http.response.body", "body": b"data: one\n\n", "more_body": True})
        if path == "/chunks":
            await send({"type": "http.response.body", "body": b"data: two\n\n"})
            return
        await self.until_gone(path, receive)

    async def until_gone(self, path: str, receive: Any) -> None:
        if (await receive())["type"] == "http.disconnect":
            self.disconnects.append(path)
            self.gone.set()


def listener() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    return sock


async def start_hypercorn(nursery: trio.Nursery, app: App) -> int:
    """hypercorn configured as asks/hub/server.py configured it before asks' own server."""
    from hypercorn.config import Config  # noqa: PLC0415
    from hypercorn.trio import serve  # noqa: PLC0415

    sock = listener()
    config = Config()
    config.accesslog = None
    config.errorlog = logging.getLogger("test.hypercorn")
    config.graceful_timeout = 0.5
    config.bind = [f"fd://{os.dup(sock.fileno())}"]
    port = int(sock.getsockname()[1])
    sock.close()
    asgi: Any = app
    await nursery.start(functools.partial(serve, asgi, config, mode="asgi"))
    return port


async def start_wire(nursery: trio.Nursery, app: App) -> int:
    sock = listener()
    await nursery.start(wire.serve, app, sock)
    return int(sock.getsockname()[1])


# ------------------------------------------------------------------ a raw client's reading
@attrs.frozen
class Response:
    """One response as the client read it: status, framing, body and the headers that
    matter to framing."""

    status: int
    framing: str  # "length", "chunked", "close" or "none" (1xx)
    body: bytes
    close: bool  # Connection: close


class Reader:
    """Reads responses off a raw socket stream (HTTP/1.x framing, by hand: no client
    library would read a malformed exchange as the server wrote it)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""
        self.eof = False

    async def _more(self) -> None:
        try:
            data = await self.stream.receive_some(65536)
        except trio.BrokenResourceError:
            data = b""
        self.eof = not data
        self.buffer += data

    async def response(self, head_only: bool = False) -> Response | None:
        """The next response; ``None`` if the server closed first."""
        while b"\r\n\r\n" not in self.buffer:
            if self.eof:
                assert self.buffer == b"", self.buffer
                return None
            await self._more()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
        close = headers.get("connection", "").lower() == "close"
        if status < 200:
            return Response(status, "none", b"", close)
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(self.buffer) < length and not self.eof:
                await self._more()
            body, self.buffer = self.buffer[:length], self.buffer[length:]
            return Response(status, "length", body, close)
        if headers.get("transfer-encoding", "").lower() == "chunked":
            return Response(status, "chunked", await self._chunks(), close)
        while not self.eof:
            await self._more()
        body, self.buffer = self.buffer, b""
        return Response(status, "close", body, close)

    async def _chunks(self) -> bytes:
        body = b""
        while True:
            while b"\r\n" not in self.buffer and not self.eof:
                await self._more()
            size_line, _, self.buffer = self.buffer.partition(b"\r\n")
            if not size_line:  # cut short
                return body + b"<cut>"
            size = int(size_line, 16)
            while len(self.buffer) < size + 2 and not self.eof:
                await self._more()
            body, self.buffer = body + self.buffer[:size], self.buffer[size + 2 :]
            if size == 0:
                return body

    async def until_closed(self) -> bytes:
        """What comes before the server closes the connection."""
        while not self.eof:
            await self._more()
        rest, self.buffer = self.buffer, b""
        return rest


def post(path: str, body: bytes, *extra: str, version: str = "1.1") -> bytes:
    lines = [f"POST {path} HTTP/{version}", "Host: hub", *extra]
    if not any(x.lower().startswith("transfer-encoding") for x in extra):
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


PROBE = post("/echo", b"probe")


@attrs.frozen
class Case:
    """Bytes sent at once; the responses both must give; then whether the connection is
    still served (a probe request answered) or closed by the server."""

    send: bytes
    statuses: tuple[int, ...]
    alive: bool
    half_close: bool = False  # shut the client's writing side after sending (EOF)


CASES: dict[str, Case] = {
    "a valid POST": Case(post("/echo", b'{"a":1}'), (200,), alive=True),
    "pipelined POSTs": Case(post("/echo", b"1") + post("/echo", b"22"), (200, 200), True),
    "a chunked request body": Case(
        post("/echo", b"", "Transfer-Encoding: chunked") + b"3\r\nabc\r\n0\r\n\r\n",
        (200,),
        alive=True,
    ),
    "HTTP/1.0": Case(post("/echo", b"old", version="1.0"), (200,), alive=False),
    "HTTP/1.0, a body without length": Case(
        post("/chunks", b"", version="1.0"), (200,), alive=False
    ),
    "Connection: close": Case(post("/echo", b"x", "Connection: close"), (200,), alive=False),
    "a malformed request line": Case(b"GARBAGE\r\n\r\n", (400,), alive=False),
    # h11's limit is on a head still incomplete: one bigger than a read (64 KiB) is refused
    "an oversized head": Case(post("/echo", b"", "X-Big: " + "b" * 100_000), (431,), False),
    "a body shorter than its length, then EOF": Case(
        post("/echo", b"0123456789")[:-5], (400,), alive=False, half_close=True
    ),
    "a streamed response, then a request on the same connection": Case(
        post("/chunks", b"") + post("/echo", b"after"), (200, 200), alive=True
    ),
    "an app that fails before its response": Case(post("/boom", b""), (500,), alive=False),
}


async def exchange(port: int, case: Case) -> tuple[list[Response], bytes | Response | None]:
    """The responses to ``case.send``, then the probe's response (alive) or what came
    before the close."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    reader = Reader(stream)
    await stream.send_all(case.send)
    if case.half_close:
        await stream.send_eof()
    got = [await reader.response() for _ in case.statuses]
    responses = [r for r in got if r is not None]
    if case.alive:
        await stream.send_all(PROBE)
        after: bytes | Response | None = await reader.response()
    else:
        after = await reader.until_closed()
    await stream.aclose()
    return responses, after


def shape(responses: list[Response]) -> list[tuple[int, str, bytes, bool]]:
    return [(r.status, r.framing, r.body, r.close) for r in responses]


@pytest.fixture
async def servers(nursery: trio.Nursery) -> tuple[int, int]:
    return await start_hypercorn(nursery, App()), await start_wire(nursery, App())


@pytest.mark.parametrize("name", list(CASES))
async def test_both_servers_answer_the_same_bytes_alike(
    servers: tuple[int, int], name: str
) -> None:
    case = CASES[name]
    theirs, ours = [await exchange(port, case) for port in servers]
    assert shape(ours[0]) == shape(theirs[0]), name
    assert tuple(r.status for r in ours[0]) == case.statuses
    assert ours[1] == theirs[1], name
    if case.alive:
        assert isinstance(ours[1], Response) and ours[1].status == 200
    else:
        assert ours[1] == b""


async def test_expect_100_continue_is_answered_before_the_body(
    servers: tuple[int, int],
) -> None:
    """The client waits for ``100 Continue`` before it sends the body; both send it (hypercorn
    as soon as the head is read, asks' server when the app first reads the body: the same
    for an app that reads it)."""
    got = []
    for port in servers:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        reader = Reader(stream)
        whole = post("/echo", b"later", "Expect: 100-continue")
        await stream.send_all(whole[:-5])
        interim = await reader.response()
        await stream.send_all(b"later")
        final = await reader.response()
        await stream.aclose()
        got.append((interim, final))
    assert got[0] == got[1]
    interim, final = got[1]
    assert interim is not None and interim.status == 100
    assert final is not None and json.loads(final.body) == {"len": 5, "body": "later"}


async def test_a_client_closing_mid_stream_reaches_the_app_as_a_disconnect(
    nursery: trio.Nursery,
) -> None:
    """W4, on both: the app waits in ``receive()`` after streaming one event; the client
    reads it and closes; the app is told ``http.disconnect``."""
    apps = [App(), App()]
    ports = [await start_hypercorn(nursery, apps[0]), await start_wire(nursery, apps[1])]
    firsts = []
    for app, port in zip(apps, ports, strict=True):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(post("/stream", b""))
        reader = Reader(stream)
        first = b""
        while b"data: one" not in reader.buffer:
            await reader._more()
        first = reader.buffer.partition(b"\r\n\r\n")[2]
        firsts.append(first)
        await stream.aclose()
        await app.gone.wait()
        assert app.disconnects == ["/stream"]
    assert firsts[0] == firsts[1] == b"b\r\ndata: one\n\n\r\n"


ONLY_WIRE: dict[str, str] = {
    "server": "hypercorn names itself (server: hypercorn-h11); asks' server sends no Server",
}


async def test_the_listed_header_differences_and_no_other(servers: tuple[int, int]) -> None:
    """The response headers of a plain POST: equal but for :data:`ONLY_WIRE` (and the
    Date's value, which is the clock's)."""
    heads = []
    for port in servers:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(post("/echo", b"h", "Connection: close"))
        raw = await Reader(stream).until_closed()
        head = raw.partition(b"\r\n\r\n")[0].decode().split("\r\n")
        heads.append({k.lower(): v.strip() for k, _, v in (x.partition(":") for x in head[1:])})
        await stream.aclose()
    theirs, ours = heads
    assert theirs.pop("server").startswith("hypercorn")
    assert "server" not in ours and set(ONLY_WIRE) == {"server"}
    theirs.pop("date"), ours.pop("date")
    assert ours == theirs


async def test_a_stream_s_head_reaches_the_client_before_any_event(nursery: trio.Nursery) -> None:
    """An SSE response whose first event has not come: both servers have written its head
    (a real Codex tells a stream cut from a request never answered by it), and the app
    hears of the client's leaving."""
    apps = [App(), App()]
    ports = [await start_hypercorn(nursery, apps[0]), await start_wire(nursery, apps[1])]
    heads = []
    for app, port in zip(apps, ports, strict=True):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(post("/open", b""))
        reader = Reader(stream)
        with trio.fail_after(30):  # a fail-safe, not a bound: without the head it hangs
            while b"\r\n\r\n" not in reader.buffer:
                await reader._more()
        heads.append(reader.buffer.split(b"\r\n")[0])
        await stream.aclose()
        await app.gone.wait()
        assert app.disconnects == ["/open"]
    assert heads == [b"HTTP/1.1 200 "] * 2
