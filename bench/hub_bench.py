"""The hub's benchmarks: tool call → question on screen, answer saved →
the waiting client's response written, ``asks --mcp`` memory with 20 agents, and the plain
REPL's launch and memory with and without the hub's code.

Run: ``.venv/bin/python -m bench.hub_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

* **Tool call → question on screen** (the real ``asks --mcp`` under a 100×30 pty read by pyte,
  the harness of bench/repl_bench.py): an agent's ``tools/call`` of ``ask_user_question``
  (async; 2026-07-28, the protocol Claude Code speaks) is prepared as raw HTTP bytes on a
  kept-alive loopback connection; the clock starts right before they are written and stops at
  the first pty chunk after which the question's text is on the screen (the transcript's
  "<agent> asks: …" line or the panel, whichever comes first). After each sample the agent
  withdraws it (untimed), so every sample starts from the same state. Twice: with that one
  agent, and with 20 more agents connected through the SDK's own client (10 on 2026-07-28,
  10 on ``initialize`` sessions holding their event stream open, as Codex does) that have 100
  questions pending. Also the pty floor (``cat`` echoing one byte) of bench/repl_bench.py.
* **Answer saved → response written** (in process: a real host and journal on disk, the
  hub's server on hypercorn, a raw client on a loopback socket, one trio loop): a blocking
  call waits; the person's answer is saved (``answer_from``: append + fsync); the clock
  starts when the save returned and stops when hypercorn has written the response carrying the
  answer (the guard's receipt: :meth:`~asks.host.hub.HubPort.delivered`), and when the client
  has read it whole.
* **Memory**: VmRSS of ``asks --mcp`` idle (the MCP SDK not loaded yet: asks/hub/lazy.py),
  after its first request, with the 20 agents and 100 pending, and of plain ``asks`` beside it.
* **The first request**: an agent's first ``check_answers`` written → its response read whole
  (a 2026-07-28 request: the guard's lean path answers it, asks/hub/lean.py; the SDK is
  imported later, for the 20 agents' ``initialize`` sessions).
* **The plain REPL with and without the hub's code**: the probe of bench/launch_bench.py (CPU
  time since exec at the first frame, and VmRSS there) on two copies of our sources, the
  second without ``asks/hub`` and ``asks/cli/hub.py`` (``asks.cli``'s one import from them
  replaced by a stand-in), interleaved; and whether ``mcp``, ``pydantic`` or ``starlette``
  were loaded at that frame (they must not be).

* **The hub at fleet scale** (bench/hub_fleet.py): 50 clients × 100 async asks into one
  ``asks hub``, tools/list during the load, memory per pending question and per session never
  closed, resume → serving.

Figures are medians with min–max; nothing here asserts on time.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import trio

from bench._common import (
    PROJECT_ROOT,
    Row,
    disk_tempdir,
    header,
    median,
    python_argv_quick,
    report,
)
from bench.repl_bench import Term, child_env, editor_drawn, on_screen, pty_floor, running

NAME = "hub"
SCRIPT = PROJECT_ROOT / "tests" / "scripts" / "hub_quiet.toml"
VISIBLE_GOAL_MS = 15.0
FLAT = 1.2
WRITTEN_GOAL_MS = 5.0
AGENTS, PENDING = 20, 100
IDLE_ABOVE_PLAIN_MIB = 20.0
TIMEOUT = 20.0
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
NOT_LOADED = ("mcp", "pydantic", "starlette", "asks.hub.server", "asks.cli.hub")


def spread(values: list[float]) -> str:
    return f"{median(values):.2f} ms ({min(values):.2f}–{max(values):.2f})"


# ---------------------------------------------------------------------------- a raw agent
class RawAgent:
    """One agent speaking 2026-07-28 over one kept-alive loopback connection, as bytes."""

    def __init__(self, url: str, token: str, label: str) -> None:
        found = re.match(r"http://([\d.]+):(\d+)(/\S*)", url)
        assert found is not None, url
        self.host, self.port, self.path = found.group(1), int(found.group(2)), found.group(3)
        self.token, self.label, self.ids = token, label, 0
        self.sock = socket.create_connection((self.host, self.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def request(self, name: str, arguments: dict[str, Any]) -> bytes:
        self.ids += 1
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": self.ids,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments, "_meta": META},
            }
        ).encode()
        head = (
            f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Authorization: Bearer {self.token}\r\nX-Asks-Agent: {self.label}\r\n"
            "Accept: application/json, text/event-stream\r\n"
            "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            f"Mcp-Method: tools/call\r\nMcp-Name: {name}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body

    def response(self) -> str:
        """The next response's tool result text (Content-Length framed JSON)."""
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))  # type: ignore[union-attr]
        while len(body) < length:
            body += self.sock.recv(65536)
        result = json.loads(body)["result"]
        return "".join(part["text"] for part in result["content"])

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        self.sock.sendall(self.request(name, arguments))
        return self.response()

    def close(self) -> None:
        self.sock.close()


def question(text: str) -> dict[str, Any]:
    return {
        "question": text,
        "header": "Bench",
        "options": [{"label": "Alpha"}, {"label": "Beta"}, {"label": "Gamma"}],
    }


# ---------------------------------------------------------------------------- 20 SDK agents
@contextlib.contextmanager
def connected_agents(url: str, token: str) -> Iterator[None]:
    """:data:`AGENTS` agents on the SDK's client, in a thread of their own, with
    :data:`PENDING` async questions among them, connected until the block ends."""
    ready, stop, failed = threading.Event(), threading.Event(), []

    async def hold() -> None:
        import httpx2  # noqa: PLC0415 (only for this part)
        from mcp.client.client import Client  # noqa: PLC0415
        from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415

        async with contextlib.AsyncExitStack() as stack:
            sessions = []
            for n in range(AGENTS):
                http = httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}", "X-Asks-Agent": f"agent{n:02d}"},
                    timeout=60,
                )
                mode = "legacy" if n % 2 else "auto"  # an initialize session: its GET stream
                client = Client(streamable_http_client(url, http_client=http), mode=mode)
                sessions.append(await stack.enter_async_context(client))
            for k in range(PENDING):
                await sessions[k % AGENTS].call_tool(
                    "ask_user_question",
                    {"questions": [question(f"Pending question {k:03d}?")], "blocking": False},
                )
            ready.set()
            await trio.to_thread.run_sync(stop.wait)

    def run() -> None:
        try:
            trio.run(hold)
        except BaseException as exc:  # reported by the caller
            failed.append(exc)
            ready.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(TIMEOUT * 3)
    if failed or not ready.is_set():
        raise RuntimeError(f"the {AGENTS} agents could not connect: {failed}")
    try:
        yield
    finally:
        stop.set()
        thread.join(TIMEOUT)


# ---------------------------------------------------------------------------- on screen
def token_of(data_dir: Path, env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()


def hub_argv(data_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "asks",
        "--script",
        str(SCRIPT),
        "--data-dir",
        str(data_dir),
        *extra,
    ]


def cpu_ms(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (ms)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def sample_visible(
    term: Term, agent: RawAgent, count: int, tag: str, cpu: list[float] | None = None
) -> list[float]:
    """``count`` samples of tool call written → question on screen (ms), each withdrawn;
    ``cpu`` gets the CPU ms asks spent per sample (the ask, its frame, the withdrawal)."""
    out = []
    spent = 0.0
    for n in range(count + 2):  # 2 warm-up samples, not counted
        if n == 2:
            spent = cpu_ms(term.pid)
        text = f"Hub bench {tag} {n:03d}?"
        request = agent.request(
            "ask_user_question", {"questions": [question(text)], "blocking": False}
        )
        term.watch({"shown": on_screen(text)})
        t0 = time.perf_counter_ns()
        agent.sock.sendall(request)
        hits = term.wait(TIMEOUT)
        queued = agent.response()
        qid = re.search(r"q-[0-9a-f]{10}", queued).group(0)  # type: ignore[union-attr]
        if n >= 2:
            out.append((hits["shown"] - t0) / 1e6)
        agent.call("withdraw_question", {"questionIds": [qid]})
        term.settle(0.03)
    if cpu is not None:
        cpu.append((cpu_ms(term.pid) - spent) / count)
    return out


def rss_mib(term: Term) -> float:
    return term.rss_kib() / 1024


def bench_screen(rows: list[Row], work: Path, count: int, runs: int) -> None:
    env = child_env(work)
    floors, alone, crowded, rss_idle, rss_agents, rss_plain = [], [], [], [], [], []
    first_call: list[float] = []
    rss_first: list[float] = []
    cpu_alone: list[float] = []
    cpu_crowded: list[float] = []
    for run in range(runs):
        floors.append(pty_floor(env, 30, raw=True))
        data_dir = work / f"data-{run}"
        with running(hub_argv(data_dir, "--mcp", "--mcp-port", "0"), env) as term:
            term.until(on_screen("QUIET-READY"), TIMEOUT)
            # The hub's server starts after the first frame (docs/decisions/0017-*).
            term.until(on_screen("Hub on http://127.0.0.1:"), TIMEOUT)
            found = re.search(r"Hub on (http://127\.0\.0\.1:\d+/mcp)", term.text())
            assert found is not None, term.text()
            url, token = found.group(1), token_of(data_dir, env)
            term.settle(0.1)
            rss_idle.append(rss_mib(term))
            agent = RawAgent(url, token, "planner")
            t0 = time.perf_counter_ns()
            agent.call("check_answers", {})  # the first request: the lean path (hub/lean.py)
            first_call.append((time.perf_counter_ns() - t0) / 1e6)
            term.settle(0.1)
            rss_first.append(rss_mib(term))
            alone += sample_visible(term, agent, count, "alone", cpu_alone)
            with connected_agents(url, token):
                term.until(on_screen(f"Asks: {PENDING} pending"), TIMEOUT)
                term.settle(0.1)
                rss_agents.append(rss_mib(term))
                crowded += sample_visible(term, agent, count, "crowded", cpu_crowded)
            agent.close()
            term.end([b"\x03", b"\x03"])
        with running(hub_argv(work / f"plain-{run}"), env) as term:
            term.until(on_screen("QUIET-READY"), TIMEOUT)
            term.settle(0.1)
            rss_plain.append(rss_mib(term))
            term.end([b"\x03", b"\x03"])
        print(
            f"  run {run + 1}/{runs}: floor {floors[-1]:.3f} ms, call → screen "
            f"{median(alone[-count:]):.2f} / {median(crowded[-count:]):.2f} ms"
        )
    one, many = median(alone), median(crowded)
    report(
        rows,
        Row(
            NAME,
            "tool call → question on screen, 1 agent",
            spread(alone),
            f"≤ {VISIBLE_GOAL_MS:.0f} ms",
            one <= VISIBLE_GOAL_MS,
        ),
    )
    report(
        rows,
        Row(
            NAME,
            f"  … {AGENTS} agents connected, {PENDING} pending",
            spread(crowded),
            f"≤ {VISIBLE_GOAL_MS:.0f} ms",
            many <= VISIBLE_GOAL_MS,
        ),
    )
    report(
        rows,
        Row(
            NAME,
            "  ratio (crowded / alone)",
            f"{many / one:.2f}×",
            f"≤ {FLAT}×",
            many / one <= FLAT,
        ),
    )
    report(rows, Row(NAME, "  pty floor (cat echo)", f"{median(floors):.3f} ms"))
    report(
        rows,
        Row(
            NAME,
            "  CPU of asks per sample (ask + frame + withdraw + frame)",
            f"{median(cpu_alone):.1f} / {median(cpu_crowded):.1f} ms",
        ),
    )
    report(rows, Row(NAME, "VmRSS asks --mcp, idle", f"{median(rss_idle):.1f} MiB"))
    plain_now = median(rss_plain)
    report(
        rows,
        Row(
            NAME,
            "  above plain asks",
            f"{median(rss_idle) - plain_now:.1f} MiB",
            f"≤ {IDLE_ABOVE_PLAIN_MIB:.0f} MiB",
            median(rss_idle) - plain_now <= IDLE_ABOVE_PLAIN_MIB,
        ),
    )
    report(rows, Row(NAME, "  after the first request", f"{median(rss_first):.1f} MiB"))
    report(
        rows,
        Row(
            NAME, "first request → its response (check_answers; the lean path)", spread(first_call)
        ),
    )
    report(
        rows,
        Row(
            NAME,
            f"VmRSS asks --mcp, {AGENTS} agents, {PENDING} pending",
            f"{median(rss_agents):.1f} MiB ({min(rss_agents):.1f}–{max(rss_agents):.1f})",
        ),
    )
    report(rows, Row(NAME, "VmRSS asks (no hub), idle", f"{median(rss_plain):.1f} MiB"))


# ---------------------------------------------------------------------------- saved → written
async def bench_written(rows: list[Row], work: Path, count: int) -> None:
    from asks.core import events as ev  # noqa: PLC0415
    from asks.core.model import Answer, AnswerKind, QuestionRef  # noqa: PLC0415
    from asks.host.host import QuestionHost  # noqa: PLC0415
    from asks.hub.credentials import Keyring  # noqa: PLC0415
    from asks.hub.listen import bind_listener  # noqa: PLC0415
    from asks.hub.server import HubServer  # noqa: PLC0415
    from asks.hub.token import token_path, write_private  # noqa: PLC0415
    from asks.store.journal import Journal  # noqa: PLC0415

    written: list[int] = []

    def stamp(event: ev.HostEvent) -> None:
        if isinstance(event, ev.Delivered) and event.channel is ev.DeliveryChannel.HUB:
            written.append(time.perf_counter_ns())  # the guard's receipt of it was saved

    journal = Journal.create(data_dir=work / "written", session_id="hub-written")
    host = QuestionHost(journal, clock=trio.current_time)
    host.subscribe_events(stamp)
    write_private(token_path(work / "written"), "bench-token\n")
    server = HubServer(host.hub_port, Keyring(work / "written"), bind_listener(port=0))
    to_written, to_client = [], []
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.run)
        agent = RawAgent(url, "bench-token", "planner")
        agent.sock.setblocking(False)
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(agent.sock))
        for n in range(count + 3):  # 3 warm-up answers, not counted
            await stream.send_all(
                agent.request("ask_user_question", {"questions": [question(f"Blocking {n}?")]})
            )
            while not host.surface_port.live_waits:
                await trio.sleep(0.001)
            [ref] = host.panel_port.tabs
            assert isinstance(ref, QuestionRef)
            before = len(written)
            answer = Answer(AnswerKind.OPTION, (1,))
            assert host.surface_port.answer_from(ref.id, ref.incarnation, answer, "bench") is None
            saved = time.perf_counter_ns()
            data = b""
            while b'"result"' not in data or not data.rstrip().endswith(b"}"):
                data += await stream.receive_some(65536)
            read = time.perf_counter_ns()
            while len(written) == before:
                await trio.sleep(0)
            if n >= 3:
                to_written.append((written[-1] - saved) / 1e6)
                to_client.append((read - saved) / 1e6)
        nursery.cancel_scope.cancel()
    journal.close()
    report(
        rows,
        Row(
            NAME,
            "answer saved → waiting client's response written",
            spread(to_written),
            f"≤ {WRITTEN_GOAL_MS:.0f} ms",
            median(to_written) <= WRITTEN_GOAL_MS,
        ),
    )
    report(rows, Row(NAME, "  … → the client has read it", spread(to_client)))


# ---------------------------------------------------------------------------- without the hub
PROBE = r"""
import json, os, resource, sys

def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return (used.ru_utime + used.ru_stime) * 1e3

out, argv = sys.argv[1], sys.argv[2:]
NOT_LOADED = json.loads(os.environ["BENCH_NOT_LOADED"])
import asks.cli
import urwid.display.raw as raw
draw = raw.Screen.draw_screen

def first_frame(self, size, canvas):
    draw(self, size, canvas)
    spent = cpu()
    rss = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS:"))
    loaded = sorted(m for m in NOT_LOADED if m in sys.modules)
    with open(out, "w") as f:
        json.dump([spent, rss / 1024, loaded, os.path.dirname(asks.__file__)], f)
    os._exit(0)

raw.Screen.draw_screen = first_frame
asks.cli.main(argv)
"""

STAND_IN = (
    "    class HubPortBusyError(OSError):  # bench stand-in: no asks/hub in this copy\n"
    "        pass\n"
)


def source_copy(work: Path, name: str, *, hub: bool) -> Path:
    """A copy of our sources; without ``asks/hub`` and ``asks/cli/hub.py`` unless ``hub``."""
    tree = work / name
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir()
    for part in ("asks", "widgets"):
        shutil.copytree(
            PROJECT_ROOT / part,
            tree / part,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    if not hub:
        shutil.rmtree(tree / "asks" / "hub")
        (tree / "asks" / "cli" / "hub.py").unlink()
        cli = tree / "asks" / "cli" / "__init__.py"
        text = cli.read_text()
        assert "    from asks.hub.listen import HubPortBusyError\n" in text
        cli.write_text(text.replace("    from asks.hub.listen import HubPortBusyError\n", STAND_IN))
    return tree


def probe(work: Path, tree: Path) -> tuple[float, float, list[str], str]:
    out = work / "probe.json"
    out.unlink(missing_ok=True)
    env = {**child_env(work), "PYTHONPATH": str(tree), "BENCH_NOT_LOADED": json.dumps(NOT_LOADED)}
    argv = [sys.executable, str(work / "probe.py"), str(out), "--data-dir", str(work / "tour")]
    with running(argv, env) as term:
        deadline = time.monotonic() + TIMEOUT
        while term.proc.isalive() and time.monotonic() < deadline:
            time.sleep(0.005)
    if not out.exists():
        raise RuntimeError(f"no first frame from {tree} within {TIMEOUT:.0f} s")
    spent, rss, loaded, where = json.loads(out.read_text())
    return spent, rss, loaded, where


def bench_without_hub(rows: list[Row], work: Path, runs: int) -> None:
    (work / "probe.py").write_text(PROBE, encoding="utf-8")
    trees = {
        "with": source_copy(work, "with-hub", hub=True),
        "without": source_copy(work, "without-hub", hub=False),
    }
    samples: dict[str, list[tuple[float, float, list[str], str]]] = {k: [] for k in trees}
    for tree in trees.values():  # warm-up: .pyc files and page cache, not counted
        probe(work, tree)
    for n in range(runs):  # interleaved, the order swapped every time (no first-run bias)
        for key, tree in sorted(trees.items(), reverse=n % 2 == 1):
            samples[key].append(probe(work, tree))
    for key, label in (("with", "with the hub's code"), ("without", "without it")):
        spent = [s[0] for s in samples[key]]
        rss = [s[1] for s in samples[key]]
        loaded = sorted({m for s in samples[key] for m in s[2]})
        assert all(s[3].startswith(str(trees[key])) for s in samples[key]), samples[key][0][3]
        report(
            rows,
            Row(
                NAME,
                f"plain REPL first frame, {label}",
                f"{median(spent):.0f} ms CPU ({min(spent):.0f}–{max(spent):.0f})",
            ),
        )
        report(
            rows,
            Row(
                NAME,
                f"  VmRSS at that frame, {label}",
                f"{median(rss):.1f} MiB ({min(rss):.1f}–{max(rss):.1f})",
            ),
        )
        report(
            rows,
            Row(
                NAME,
                "  hub modules loaded (mcp, pydantic, starlette, …)",
                ", ".join(loaded) or "none",
                "none",
                not loaded,
            ),
        )
    with_, without = ([s[0] for s in samples[key]] for key in ("with", "without"))
    ratio, floor_ratio = median(with_) / median(without), min(with_) / min(without)
    report(
        rows,
        Row(
            NAME,
            "plain REPL launch CPU, with / without the hub's code",
            f"{ratio:.3f}× (min {floor_ratio:.3f}×)",
            "unchanged (within 5 %)",
            abs(ratio - 1) <= 0.05,
        ),
    )


def bench_hub_launch(rows: list[Row], work: Path, runs: int) -> None:
    """Wall time from spawn to the chat editor drawn: ``asks`` and ``asks --mcp`` (the hub's
    port is bound before the screen, its server and the SDK start after the first frame),
    interleaved."""
    env = child_env(work)
    times: dict[bool, list[float]] = {False: [], True: []}
    for n in range(runs + 1):  # the first pair warms the page cache, not counted
        for hub in (False, True):
            extra = ("--mcp", "--mcp-port", "0") if hub else ()
            with running(hub_argv(work / f"launch-{n}-{hub}", *extra), env) as term:
                term.watch({"editor": editor_drawn})
                drawn = term.wait(TIMEOUT)["editor"]
                if n:
                    times[hub].append((drawn - term.spawn_ns) / 1e6)
                term.end([b"\x03", b"\x03"])
    for hub, label in ((False, "asks"), (True, "asks --mcp")):
        values = times[hub]
        report(
            rows,
            Row(
                NAME,
                f"launch → chat editor drawn (wall), {label}",
                f"{median(values):.0f} ms ({min(values):.0f}–{max(values):.0f})",
            ),
        )


def main(quick: bool = False) -> list[Row]:
    count, runs, written, launches = (10, 1, 20, 5) if quick else (30, 3, 100, 21)
    header(
        "hub_bench" + (" (quick)" if quick else ""),
        f"the hub: tool call → question on screen ({count} samples × {runs} runs, 1 agent, "
        f"then {AGENTS} agents with {PENDING} pending), answer saved → response written "
        f"({written}), VmRSS, the plain REPL with and without the hub's code ({launches} "
        "interleaved launches)",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        bench_screen(rows, work, count, runs)
        trio.run(bench_written, rows, work, written)
        bench_without_hub(rows, work, launches)
        bench_hub_launch(rows, work, 3 if quick else 7)
    from bench import hub_fleet  # noqa: PLC0415 (it imports this module)

    rows += hub_fleet.main(quick)  # the hub at fleet scale: its own pty and data directory
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
