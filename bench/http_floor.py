"""The HTTP/1.1 floor under the hub: what serving a request costs before asks does anything.

Run: ``.venv/bin/python -m bench.http_floor [--quick]``.

A trivial ASGI app (it reads the request's body and answers a fixed JSON body) is served in a
subprocess, each of :data:`SERVERS` in turn, round after round (interleaved: the shared
machine's load falls on every server alike):

* ``hypercorn``: hypercorn's trio ``serve``, configured as asks/hub/server.py configured it
  before the hub had its own server (no access log, graceful timeout 0.5 s, a pre-bound
  socket passed as ``fd://``);
* ``h11``: a minimal trio + h11 loop (one task per connection, the app called in it, the
  response's head and body in one ``send_all``): the floor a hand-written server can reach;
* ``wire``: asks' own server, :mod:`asks.hub.wire` (when it exists).

The load is the one of bench/hub_fleet.py: :data:`CLIENTS` kept-alive loopback connections
at once, each sending :data:`PER_CLIENT` POSTs one after another, with the bytes of
``bench.hub_fleet.request_bytes`` (an async ``ask_user_question`` of the 2026-07-28
protocol). The figures per server: its CPU time during the load per request (user + system
of the server's process, from /proc) and the median latency (request written → response
read whole). Nothing asserts on time.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

import trio

from bench._common import Row, header, median, python_argv_quick, report
from bench.hub_bench import question
from bench.hub_fleet import Conn, cpu_ms, request_bytes, rpc

NAME = "http-floor"
CLIENTS, PER_CLIENT = 50, 100
SERVERS: Final = ("hypercorn", "h11", "wire")
ROUNDS, QUICK_ROUNDS = 5, 2
BODY: Final = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "queued"}]}}
).encode()

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


async def app(
    scope: Scope,
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    """Reads the whole body, answers :data:`BODY` with a Content-Length."""
    if scope["type"] == "lifespan":  # answered at once, as asks/hub/lazy.py does
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(BODY))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": BODY})


async def serve_hypercorn(listener: socket.socket) -> None:
    """hypercorn as asks/hub/server.py configured it."""
    import logging  # noqa: PLC0415
    import os  # noqa: PLC0415

    from hypercorn.config import Config  # noqa: PLC0415
    from hypercorn.trio import serve  # noqa: PLC0415

    config = Config()
    config.accesslog = None
    config.errorlog = logging.getLogger("bench.hypercorn")
    config.graceful_timeout = 0.5
    config.bind = [f"fd://{os.dup(listener.fileno())}"]
    asgi: Any = app
    await serve(asgi, config, mode="asgi")


async def serve_h11(listener: socket.socket) -> None:
    """The minimal loop: one task per connection, the app in it, one write per response."""
    import h11  # noqa: PLC0415

    async def connection(stream: trio.SocketStream) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=16 * 1024)
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                with trio.move_on_after(5):
                    data = await stream.receive_some(65536)
                    conn.receive_data(data)
                    continue
                return
            if not isinstance(event, h11.Request):
                return
            method, body = event.method.decode(), b""
            while not isinstance(event, h11.EndOfMessage):
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    conn.receive_data(await stream.receive_some(65536))
                elif isinstance(event, h11.Data):
                    body += event.data
            out: list[bytes] = []

            async def receive(body: bytes = body) -> Message:
                return {"type": "http.request", "body": body, "more_body": False}

            async def send(message: Message, out: list[bytes] = out) -> None:
                if message["type"] == "http.response.start":
                    out.append(conn.send(h11.Response(status_code=200, headers=message["headers"])))
                else:
                    out.append(conn.send(h11.Data(data=message["body"])))
                    out.append(conn.send(h11.EndOfMessage()))

            await app({"type": "http", "method": method}, receive, send)
            await stream.send_all(b"".join(out))
            conn.start_next_cycle()

    listen = trio.SocketListener(trio.socket.from_stdlib_socket(listener))
    await trio.serve_listeners(connection, [listen])


async def serve_wire(listener: socket.socket) -> None:
    """asks' own server (asks/hub/wire.py)."""
    from asks.hub import wire  # noqa: PLC0415

    asgi: Any = app
    await wire.serve(asgi, listener)


def serve(kind: str) -> None:
    """The server process: bind a free loopback port, print it, serve until killed."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    print(listener.getsockname()[1], flush=True)
    runner = {"hypercorn": serve_hypercorn, "h11": serve_h11, "wire": serve_wire}[kind]
    trio.run(runner, listener)


async def load(port: int, clients: int, per: int) -> list[float]:
    """Every request's latency in ms (module docstring)."""
    latencies: list[float] = []
    conns = [await Conn.open(port) for _ in range(clients)]

    async def client(n: int) -> None:
        for k in range(per):
            args = {"questions": [question(f"Floor {n:02d}/{k:03d}?")], "blocking": False}
            body = rpc(k + 1, "tools/call", {"name": "ask_user_question", "arguments": args})
            data = request_bytes(port, "/mcp", "t" * 43, f"floor{n:02d}", body)
            t0 = time.perf_counter_ns()
            await conns[n].exchange(data)
            latencies.append((time.perf_counter_ns() - t0) / 1e6)

    async with trio.open_nursery() as nursery:
        for n in range(clients):
            nursery.start_soon(client, n)
    for conn in conns:
        await conn.stream.aclose()
    return latencies


def one(kind: str, clients: int, per: int) -> tuple[float, float]:
    """(server CPU ms per request, median latency ms) of one server under the load."""
    argv = [sys.executable, "-m", "bench.http_floor", "--serve", kind]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline())
            trio.run(load, port, 2, 5)  # warm: imports and first paths done before the clock
            before = cpu_ms(server.pid)
            latencies = trio.run(load, port, clients, per)
            spent = cpu_ms(server.pid) - before
        finally:
            server.kill()
    return spent / (clients * per), median(latencies)


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
        return
    quick = python_argv_quick()
    rounds = QUICK_ROUNDS if quick else ROUNDS
    kinds = [k for k in SERVERS if k != "wire" or _has_wire()]
    header(
        NAME,
        f"{CLIENTS} kept-alive clients x {PER_CLIENT} POSTs, a trivial ASGI app; "
        f"server CPU per request and median latency, {rounds} interleaved rounds",
    )
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    for r in range(rounds):
        for kind in kinds:
            cpu, lat = one(kind, CLIENTS, PER_CLIENT)
            got[kind].append((cpu, lat))
            print(f"  round {r + 1} {kind:<10} cpu/request {cpu:.3f} ms   median {lat:.1f} ms")
    rows: list[Row] = []
    for kind in kinds:
        cpus = [c for c, _ in got[kind]]
        lats = [lat for _, lat in got[kind]]
        value = f"{median(cpus):.3f} ms ({min(cpus):.3f}-{max(cpus):.3f})"
        report(rows, Row(NAME, f"{kind}: server CPU per request", value))
        value = f"{median(lats):.1f} ms ({min(lats):.1f}-{max(lats):.1f})"
        report(rows, Row(NAME, f"{kind}: median latency", value))


def _has_wire() -> bool:
    try:
        from asks.hub import wire  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
