"""Permission request received → its tab on screen (docs/permission-prompts.md).

Run: ``.venv/bin/python -m bench.permission_bench [--quick]`` (or all: ``-m bench.run``).

The real ``asks --mcp`` under a 100×30 pty read by pyte (bench/repl_bench.py's harness, as
bench/hub_bench.py). Each sample is one ``PermissionRequest`` hook body (Claude Code's, as
captured) with a command of its own, prepared as raw HTTP bytes on a fresh loopback
connection; the clock starts right before they are written and stops at the first pty chunk
after which the command is on the screen (the tab). The connection is then closed (untimed:
the client's own dialog answered, so the tab goes) and the screen settles before the next
sample. Also the pty floor (``cat`` echoing one byte). Medians with min–max; nothing here
asserts on time.
"""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path
from typing import Any

from bench._common import Row, disk_tempdir, header, median, python_argv_quick, report
from bench.hub_bench import TIMEOUT, hub_argv, spread, token_of
from bench.repl_bench import Pred, child_env, on_screen, pty_floor, running

NAME = "permission"
GOAL_MS = 15.0
DESCRIPTION = "run the tests"
BODY: dict[str, Any] = {  # interactive/README.md result 2 (Claude Code 2.1.332)
    "session_id": "bench",
    "cwd": "/work/app",
    "permission_mode": "default",
    "hook_event_name": "PermissionRequest",
    "tool_name": "Bash",
    "tool_input": {"command": "", "description": DESCRIPTION},
}


def gone(text: str) -> Pred:
    shown = on_screen(text)
    return lambda term: not shown(term)


def hook_bytes(host: str, port: int, token: str, command: str) -> bytes:
    tool_input = {"command": command, "description": DESCRIPTION}
    body = json.dumps({**BODY, "tool_input": tool_input}).encode()
    head = (
        f"POST /hooks/permission HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {token}\r\nX-Asks-Agent: builder\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def bench_tab(rows: list[Row], work: Path, count: int, runs: int) -> None:
    env = child_env(work)
    floors, samples = [], []
    for run in range(runs):
        floors.append(pty_floor(env, 30, raw=True))
        data_dir = work / f"data-{run}"
        with running(hub_argv(data_dir, "--mcp", "--mcp-port", "0"), env) as term:
            term.until(on_screen("QUIET-READY"), TIMEOUT)
            term.until(on_screen("Hub on http://127.0.0.1:"), TIMEOUT)
            found = re.search(r"Hub on http://(127\.0\.0\.1):(\d+)/mcp", term.text())
            assert found is not None, term.text()
            host, port = found.group(1), int(found.group(2))
            token = token_of(data_dir, env)
            term.settle(0.1)
            for n in range(count + 2):  # 2 warm-up samples, not counted
                command = f"npm test -- bench-{run}-{n:03d}"
                request = hook_bytes(host, port, token, command)
                sock = socket.create_connection((host, port))
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                term.watch({"shown": on_screen(command)})
                t0 = time.perf_counter_ns()
                sock.sendall(request)
                hits = term.wait(TIMEOUT)
                if n >= 2:
                    samples.append((hits["shown"] - t0) / 1e6)
                sock.close()  # the client's own dialog answered: the tab goes
                term.until(gone(command), TIMEOUT)
                term.settle(0.03)
            term.end([b"\x03", b"\x03"])
        print(f"  run {run + 1}/{runs}: received → tab {median(samples[-count:]):.2f} ms")
    report(
        rows,
        Row(
            NAME,
            "permission request received → tab on screen",
            spread(samples),
            f"≤ {GOAL_MS:.0f} ms",
            median(samples) <= GOAL_MS,
        ),
    )
    report(rows, Row(NAME, "  pty floor (cat echo)", f"{median(floors):.3f} ms"))


def main(quick: bool = False) -> list[Row]:
    count, runs = (10, 1) if quick else (30, 3)
    header(
        "permission_bench" + (" (quick)" if quick else ""),
        f"an agent's permission request received → its tab on screen ({count} samples × "
        f"{runs} runs)",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        bench_tab(rows, work, count, runs)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
