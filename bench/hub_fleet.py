"""The hub at fleet scale: many MCP clients asking at once into one ``asks hub``.

Run: ``.venv/bin/python -m bench.hub_fleet [--quick]`` (also a part of ``bench.hub_bench``).

A real ``asks hub`` under a 100×30 pty read by pyte (the harness of bench/repl_bench.py), on a
free loopback port, answers one ``tools/list`` first (on the guard's lean path,
asks/hub/lean.py, as every call of the load: the MCP SDK never loads in this run). Then, from this
process, on raw kept-alive loopback connections speaking 2026-07-28 (as Claude Code does;
bytes prepared before the clock starts):

* **The load**: :data:`CLIENTS` clients at once, each asking :data:`PER_CLIENT` async
  questions one after another (``"blocking": false``), so that :data:`CLIENTS` ×
  :data:`PER_CLIENT` end pending. Each call's latency is request written → response read
  whole. The figures: the median of the first 100 calls started and of the last 100, and
  their ratio (flat: the cost of a call does not grow with what is pending); and the hub's
  CPU time during the load per call (steadier than latency on a shared machine).
* **tools/list during the load**: one more client lists the tools every 25 ms while the load
  runs; median and max.
* **Memory per pending question**: VmRSS of the hub after the load (output settled) minus
  before it, over the questions pending.
* **Sessions never closed**: :data:`SESSIONS` ``initialize`` requests (the older protocol,
  as Codex speaks: each opens an ``Mcp-Session-Id`` session), each on its own connection that
  is then closed without ``DELETE``; VmRSS after minus before (one ``initialize`` first, which
  loads the SDK: the load never needed it), per session.
* **Resume**: the hub quits (Ctrl+C); ``asks hub --resume ID`` on the same data directory is
  spawned and timed until a ``tools/list`` is answered on the URL it prints (every question
  still pending; the lean path answers it without the SDK).

Figures are medians with min–max; nothing asserts on time. The machine is shared: compare
figures of one run (before/after: run this on both trees within one run).
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any

import trio

from bench._common import Row, disk_tempdir, header, median, python_argv_quick, report
from bench.hub_bench import META, question, token_of
from bench.repl_bench import Term, child_env, on_screen, running

NAME = "hub-fleet"
CLIENTS, PER_CLIENT = 50, 100
SESSIONS = 1000
LIST_EVERY = 0.025
EDGE = 100  # the first and the last calls compared
TIMEOUT = 120.0
URL = re.compile(r"Hub on (http://127\.0\.0\.1:(\d+)(/mcp))")
FLAT = 1.2


def request_bytes(
    port: int, path: str, token: str, label: str, body: dict[str, Any], *, close: bool = False
) -> bytes:
    """One POST of ``body`` to the hub, as bytes (2026-07-28 headers unless it initializes)."""
    data = json.dumps(body).encode()
    method = str(body["method"])
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        f"Authorization: Bearer {token}",
        f"X-Asks-Agent: {label}",
        "Accept: application/json, text/event-stream",
        "Content-Type: application/json",
    ]
    if method != "initialize":
        lines += ["MCP-Protocol-Version: 2026-07-28", f"Mcp-Method: {method}"]
        params = body.get("params")
        if isinstance(params, dict) and "name" in params:
            lines.append(f"Mcp-Name: {params['name']}")
    if close:
        lines.append("Connection: close")
    lines.append(f"Content-Length: {len(data)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


def rpc(ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method != "initialize":
        params = {**params, "_meta": META}
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


class Conn:
    """One kept-alive loopback connection reading Content-Length framed responses."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    @classmethod
    async def open(cls, port: int) -> Conn:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(stream)

    async def exchange(self, data: bytes) -> bytes:
        """Write one request, read its whole response; the body."""
        await self.stream.send_all(data)
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += await self._more()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        found = re.search(rb"content-length: (\d+)", head, re.I)
        if found is None:
            raise RuntimeError(f"no Content-Length: {head!r}")
        length = int(found.group(1))
        while len(rest) < length:
            rest += await self._more()
        self.buffer = rest[length:]
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"refused: {head!r} {rest[:length]!r}")
        return rest[:length]

    async def _more(self) -> bytes:
        data = await self.stream.receive_some(65536)
        if not data:
            raise RuntimeError("the hub closed the connection")
        return data


def spread(values: list[float]) -> str:
    return f"{median(values):.1f} ms ({min(values):.1f}–{max(values):.1f})"


async def load(
    port: int, path: str, token: str, clients: int, per: int
) -> tuple[list[tuple[int, float]], list[float]]:
    """The load (module docstring): ``(start ns, ms)`` of every ask, and the tools/list ms."""
    calls: list[tuple[int, float]] = []
    lists: list[float] = []
    done = trio.Event()

    async def client(n: int) -> None:
        conn = await Conn.open(port)
        label = f"fleet{n:02d}"
        for k in range(per):
            args = {"questions": [question(f"Fleet {n:02d}/{k:03d}?")], "blocking": False}
            body = rpc(k + 1, "tools/call", {"name": "ask_user_question", "arguments": args})
            data = request_bytes(port, path, token, label, body)
            t0 = time.perf_counter_ns()
            reply = await conn.exchange(data)
            calls.append((t0, (time.perf_counter_ns() - t0) / 1e6))
            if b'"isError":true' in reply.replace(b" ", b""):
                raise RuntimeError(f"ask refused: {reply[:300]!r}")
        await conn.stream.aclose()

    async def lister() -> None:
        conn = await Conn.open(port)
        ident = 0
        while not done.is_set():
            ident += 1
            data = request_bytes(port, path, token, "lister", rpc(ident, "tools/list", {}))
            t0 = time.perf_counter_ns()
            await conn.exchange(data)
            lists.append((time.perf_counter_ns() - t0) / 1e6)
            await trio.sleep(LIST_EVERY)
        await conn.stream.aclose()

    async with trio.open_nursery() as outer:
        outer.start_soon(lister)
        async with trio.open_nursery() as nursery:
            for n in range(clients):
                nursery.start_soon(client, n)
        done.set()
    calls.sort()
    return calls, lists


async def open_sessions(port: int, path: str, token: str, count: int) -> int:
    """``count`` initialize sessions, each on a connection closed without a DELETE; how many
    the hub refused (503: its bound on open sessions)."""
    refused = 0
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    }
    for n in range(count):
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        data = request_bytes(
            port, path, token, f"idle{n:04d}", rpc(1, "initialize", params), close=True
        )
        await stream.send_all(data)
        got = b""
        while b"\r\n\r\n" not in got or not (b"result" in got or b" 503 " in got[:20]):
            more = await stream.receive_some(65536)
            if not more:
                break
            got += more
        await stream.aclose()
        if got.startswith(b"HTTP/1.1 503"):
            refused += 1
        elif b"mcp-session-id" not in got.lower():
            raise RuntimeError(f"no session: {got[:300]!r}")
    return refused


async def list_once(port: int, path: str, token: str) -> None:
    conn = await Conn.open(port)
    await conn.exchange(request_bytes(port, path, token, "probe", rpc(1, "tools/list", {})))
    await conn.stream.aclose()


def cpu_ms(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used, in ms: unlike latency, it
    does not grow with what else the shared machine runs."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def hub_argv(data_dir: Path, *extra: str) -> list[str]:
    import sys  # noqa: PLC0415

    return [sys.executable, "-m", "asks", "hub", "--data-dir", str(data_dir), "--mcp-port", "0"]


def hub_url(term: Term) -> tuple[int, str]:
    term.until(on_screen("Hub on http://127.0.0.1:"), TIMEOUT)
    found = URL.search(term.text())
    assert found is not None, term.text()
    return int(found.group(2)), found.group(3)


def session_of(data_dir: Path) -> str:
    [journal] = list(data_dir.rglob("*.jsonl"))
    return journal.stem


# the hub trims its heap 0.2 s after its last request (asks/hub/heap.py): a reading taken
# sooner may come before the trim (idle 2.5 MiB higher: the per-question figure too low)
HEAP_TRIMMED = 0.6


def fleet(rows: list[Row], work: Path, clients: int, per: int, sessions: int) -> None:
    env = child_env(work)
    data_dir = work / "fleet"
    argv = hub_argv(data_dir)
    with running(argv, env) as term:
        port, path = hub_url(term)
        token = token_of(data_dir, env)
        trio.run(list_once, port, path, token)  # the first request (the lean path)
        term.settle(0.2)
        time.sleep(HEAP_TRIMMED)  # the idle reading after the heap trim, as the loaded one is
        rss_before = term.rss_kib()
        cpu_before = cpu_ms(term.pid)
        calls, lists = trio.run(load, port, path, token, clients, per)
        cpu_load = cpu_ms(term.pid) - cpu_before
        term.until(on_screen(f"{clients * per} pending"), TIMEOUT)
        term.settle(0.5)
        rss_loaded = term.rss_kib()
        trio.run(open_sessions, port, path, token, 1)  # the SDK loads (the lean path: not yet)
        term.settle(0.3)
        rss_sdk = term.rss_kib()
        refused = trio.run(open_sessions, port, path, token, sessions)
        term.settle(0.3)
        rss_sessions = term.rss_kib()
        term.end([b"\x03", b"\x03"], timeout=20)
    session = session_of(data_dir)
    size = sum(p.stat().st_size for p in data_dir.rglob("*.jsonl"))
    with running([*argv, "--resume", session], env) as term:
        port, path = hub_url(term)
        trio.run(list_once, port, path, token)
        serving = (time.perf_counter_ns() - term.spawn_ns) / 1e6
        term.end([b"\x03", b"\x03"], timeout=20)
    ms_of = [ms for _, ms in calls]
    edge = min(EDGE, len(ms_of) // 2)
    first, last = median(ms_of[:edge]), median(ms_of[-edge:])
    pending = clients * per
    report(rows, Row(NAME, f"ask call, {clients} clients × {per} async: all", spread(ms_of)))
    report(
        rows, Row(NAME, f"  first {edge} calls (median)", f"{first:.1f} ms", "≤ 50 ms", first <= 50)
    )
    report(rows, Row(NAME, f"  last {edge} calls (median)", f"{last:.1f} ms"))
    report(
        rows,
        Row(
            NAME, "  ratio last / first", f"{last / first:.2f}×", f"≤ {FLAT}×", last / first <= FLAT
        ),
    )
    report(
        rows,
        Row(
            NAME,
            "  hub CPU per ask call (user + system during the load)",
            f"{cpu_load / len(ms_of):.2f} ms",
        ),
    )
    top = max(lists)
    report(
        rows,
        Row(
            NAME,
            f"tools/list during the load ({len(lists)}): median / max",
            f"{median(lists):.1f} / {top:.1f} ms",
            "≤ 50 / 200 ms",
            median(lists) <= 50 and top <= 200,
        ),
    )
    per_q = (rss_loaded - rss_before) / pending
    report(
        rows,
        Row(
            NAME,
            f"VmRSS per pending question ({pending})",
            f"{per_q:.2f} KiB",
            "≤ 2 KiB",
            per_q <= 2,
        ),
    )
    report(
        rows,
        Row(
            NAME,
            "  VmRSS idle / loaded / the SDK loaded after",
            f"{rss_before / 1024:.1f} / {rss_loaded / 1024:.1f} / {rss_sdk / 1024:.1f} MiB",
        ),
    )
    per_s = (rss_sessions - rss_sdk) / sessions
    report(
        rows,
        Row(
            NAME,
            f"VmRSS per session never closed ({sessions}, {refused} refused)",
            f"{per_s:.1f} KiB",
        ),
    )
    report(
        rows,
        Row(
            NAME,
            f"resume with {pending} pending ({size / 1e6:.1f} MB journal) → tools/list answered",
            f"{serving:.0f} ms",
            "≤ 500 ms",
            serving <= 500,
        ),
    )


def main(quick: bool = False) -> list[Row]:
    clients, per, sessions = (10, 20, 100) if quick else (CLIENTS, PER_CLIENT, SESSIONS)
    header(
        "hub_fleet" + (" (quick)" if quick else ""),
        f"asks hub with {clients} MCP clients × {per} async questions at once; tools/list "
        f"during the load; VmRSS per pending question and per {sessions} sessions never "
        "closed; resume → serving",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        fleet(rows, work, clients, per, sessions)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
