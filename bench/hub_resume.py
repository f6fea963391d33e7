"""``asks hub --resume`` with many questions pending: launch → serving, trees interleaved.

Run: ``.venv/bin/python -m bench.hub_resume [--pending N] [--rounds R] [TREE ...]``.

A session with N async questions pending (50 clients at once, as ``bench.hub_fleet``'s load)
is made once by this tree's ``asks hub``; then, round after round, each TREE (a checkout of
asks; default: this one) resumes a fresh copy of it under a 100×30 pty, on a free loopback
port chosen here. From the spawn, this process connects to the port as soon as the CLI has
bound it (the kernel queues the connection until the hub serves) and times two requests on
their own connections (with bytecode written, as an installed asks: the .pyc files and the
launch's method cache come from the first launch, the preparing one):

* **refused**: a request with a wrong token, answered 401 by the hub's guard (no MCP SDK): the
  hub's own part, listening and able to answer;
* **tools/list**: answered (on the guard's lean path, asks/hub/lean.py, without the SDK; a
  tree before it loads the MCP SDK first: asks/hub/lazy.py).

The hub's CPU time (user + system) up to the 401 is reported too: steadier than wall time on
a shared machine. Figures are medians with min–max per tree; nothing asserts on time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import ptyprocess  # type: ignore[import-untyped, unused-ignore]
import trio

from bench._common import disk_tempdir, median
from bench.hub_bench import token_of
from bench.hub_fleet import (
    Conn,
    cpu_ms,
    hub_url,
    load,
    request_bytes,
    rpc,
    session_of,
)
from bench.repl_bench import child_env, running

TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_session(work: Path, pending: int) -> tuple[Path, str, str]:
    """A data dir holding one ``asks hub`` session with ``pending`` async questions."""
    env = child_env(work)
    data_dir = work / "made"
    argv = [sys.executable, "-m", "asks", "hub", "--data-dir", str(data_dir), "--mcp-port", "0"]
    clients = 50
    with running(argv, env) as term:
        port, path = hub_url(term)
        token = token_of(data_dir, env)
        trio.run(load, port, path, token, clients, pending // clients)
        term.settle(1.0)
        term.end([b"\x03", b"\x03"], timeout=30)
    return data_dir, session_of(data_dir), token


async def connect(port: int, deadline: float) -> Conn:
    while True:
        try:
            return await Conn.open(port)
        except OSError:
            if time.monotonic() > deadline:
                raise
            await trio.sleep(0.001)


async def first_answers(port: int, token: str, pid: int) -> tuple[float, float, float]:
    """ns at which the hub answered a refused request, its CPU ms then, ns of a tools/list."""
    deadline = time.monotonic() + TIMEOUT
    bad = await connect(port, deadline)
    await bad.stream.send_all(
        request_bytes(port, "/mcp", "wrong", "probe", rpc(1, "tools/list", {}))
    )
    got = await bad.stream.receive_some(65536)
    refused = time.perf_counter_ns()
    cpu = cpu_ms(pid)
    assert got.startswith(b"HTTP/1.1 401"), got[:200]
    await bad.stream.aclose()
    good = await connect(port, deadline)
    await good.exchange(request_bytes(port, "/mcp", token, "probe", rpc(2, "tools/list", {})))
    listed = time.perf_counter_ns()
    await good.stream.aclose()
    return refused, cpu, listed


def drain(proc: ptyprocess.PtyProcess) -> None:
    while True:
        try:
            proc.read(65536)
        except (EOFError, OSError):
            return


def prepared(tree: Path, made: Path, session: str, token: str, work: Path) -> Path:
    """A copy of ``made`` resumed once by ``tree`` and quit: its checkpoint is that tree's
    (a checkpoint of another format is a full replay, docs/resume-checkpoint.md)."""
    data_dir = work / f"made-{abs(hash(tree))}"
    shutil.copytree(made, data_dir)
    resume_once(tree, data_dir, session, token, work, quit_after=data_dir)
    return data_dir


def resume_once(
    tree: Path,
    made: Path,
    session: str,
    token: str,
    work: Path,
    *,
    launcher: Sequence[str] = (),
    quit_after: Path | None = None,
) -> tuple[float, ...]:
    """One resume of a fresh copy by ``tree``: (refused ms, tools/list ms, CPU ms to 401);
    with ``quit_after``, of that data dir itself, quit with Ctrl+C once served."""
    data_dir = quit_after or work / "copy"
    if quit_after is None:
        shutil.rmtree(data_dir, ignore_errors=True)
        shutil.copytree(made, data_dir)
    env = child_env(work)
    env["PYTHONPATH"] = str(tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: .pyc and the method cache kept
    port = free_port()
    argv = [*(launcher or (sys.executable, "-m", "asks")), "hub", "--data-dir", str(data_dir)]
    argv += ["--mcp-port", str(port), "--resume", session]
    spawn = time.perf_counter_ns()
    proc = ptyprocess.PtyProcess.spawn(argv, dimensions=(30, 100), env=env, cwd=str(tree))
    reader = threading.Thread(target=drain, args=(proc,), daemon=True)
    reader.start()
    try:
        refused, cpu, listed = trio.run(first_answers, port, token, proc.pid)
        if quit_after is not None:
            for _ in range(2):
                proc.write(b"\x03")
                time.sleep(0.5)
            deadline = time.monotonic() + TIMEOUT
            while proc.isalive() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not proc.isalive(), "the hub did not quit"
    finally:
        proc.kill(9)
        proc.wait()
    return (refused - spawn) / 1e6, (listed - spawn) / 1e6, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pending", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("trees", nargs="*", type=Path)
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees] or [Path(__file__).resolve().parents[1]]
    print(f"load: {os.getloadavg()}")
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        made, session, token = make_session(work, args.pending)
        size = sum(p.stat().st_size for p in made.rglob("*.jsonl"))
        print(f"session {session}: {args.pending} pending, {size / 1e6:.1f} MB journal")
        copies = {tree: prepared(tree, made, session, token, work) for tree in trees}
        samples: dict[Path, list[tuple[float, ...]]] = {t: [] for t in trees}
        for n in range(args.rounds):
            for tree in trees if n % 2 == 0 else trees[::-1]:
                got = resume_once(tree, copies[tree], session, token, work)
                samples[tree].append(got)
                print(f"  round {n} {tree}: " + " / ".join(f"{v:.0f}" for v in got), flush=True)
        print(f"load: {os.getloadavg()}")
        for tree, rows in samples.items():
            cols = list(zip(*rows, strict=True))
            print(
                f"{tree}: 401 {fmt(cols[0])} | tools/list {fmt(cols[1])} | CPU to 401 "
                f"{fmt(cols[2])}"
            )


def fmt(values: tuple[float, ...]) -> str:
    return f"{median(list(values)):.0f} ms ({min(values):.0f}–{max(values):.0f})"


if __name__ == "__main__":
    main()
