"""Memory per pending question in the hub's process, in process (issue 30).

Run: ``.venv/bin/python -m bench.qmem_bench [--quick] [--top N] [--rss] [--server]``.

A real host on a journal on disk (a temporary directory), its hub port and the panel's layer
(``AsksLayer``, drawn 100 columns wide after every round): :data:`AGENTS` agents ask async
questions (``"blocking": false``, one question of three options a call) through
``HubPort.ask``, one call of each agent per round, so the calls of a round commit together as
they do under load. :data:`WARM` questions are asked first (the first requests' caches), then
``count`` more are measured: the Python heap that stays (``tracemalloc``, after a full
collection) over ``count``, grouped by the line that allocated it (the ``--top`` largest).
With ``--rss`` tracemalloc stays off and VmRSS after minus before is reported instead.

With ``--server`` the calls come over HTTP instead: an in-process ``HubServer`` on a free
loopback port serves :data:`AGENTS` raw kept-alive clients of ``bench.hub_fleet`` (the
2026-07-28 protocol), so the SDK, Starlette and hypercorn are in the figure too (the
transcript of ``asks hub`` is not; ``bench.hub_fleet`` measures the whole process).
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import trio
import urwid

from bench._common import disk_tempdir

AGENTS = 50
WARM = 200
WIDTH = 100


def question(text: str) -> dict[str, Any]:
    """The arguments of one async call (bench.hub_bench's question)."""
    spec = {
        "question": text,
        "header": "Bench",
        "options": [{"label": "Alpha"}, {"label": "Beta"}, {"label": "Gamma"}],
    }
    return {"questions": [spec], "blocking": False}


def vm_rss() -> int:
    """This process' VmRSS in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Fleet:
    """The host, its layer and the agents' next call numbers."""

    def __init__(self, data_dir: Path) -> None:
        from asks.host.host import QuestionHost  # noqa: PLC0415 (imported inside the run)
        from asks.store.journal import Journal  # noqa: PLC0415
        from asks.widgets.layer import AsksLayer  # noqa: PLC0415

        self.journal = Journal.create(data_dir=data_dir)
        # as asks hub does (asks/cli/journal.py): the first records folded, checkpoints kept
        self.host = QuestionHost(self.journal, self.journal.first_records, clock=lambda: 0.0)
        self.layer = AsksLayer(self.host.panel_port, urwid.Edit(), clock=lambda: 0.0)
        self.asked = 0

    async def rounds(self, count: int) -> None:
        """Ask ``count`` questions, :data:`AGENTS` at a time, drawing after each round."""
        port = self.host.hub_port
        while count > 0:
            size = min(AGENTS, count)
            async with trio.open_nursery() as nursery:
                for agent in range(size):
                    n = self.asked + agent
                    args = question(f"Question {n}: which one fits here?")
                    nursery.start_soon(port.ask, f"agent-{agent:02d}", f"call-{n}", args)
            self.asked += size
            count -= size
            self.layer.render((WIDTH,), focus=False)


async def over_http(fleet: Fleet, data_dir: Path, warm: int, count: int, rss: bool) -> object:
    """Serve the fleet's host on loopback; ``warm`` then ``count`` asks over HTTP (module
    docstring). The heap snapshot (or VmRSS) taken before the ``count``."""
    from asks.hub.credentials import Keyring  # noqa: PLC0415 (the hub's code: --server only)
    from asks.hub.listen import bind_listener  # noqa: PLC0415
    from asks.hub.server import HubServer  # noqa: PLC0415
    from asks.hub.token import token_path, write_private  # noqa: PLC0415
    from bench.hub_fleet import load  # noqa: PLC0415

    token = "bench-token-0123456789"
    write_private(token_path(data_dir), f"{token}\n")
    server = HubServer(fleet.host.hub_port, Keyring(data_dir), bind_listener(port=0))
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.run)
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        await load(port, "/mcp", token, AGENTS, warm // AGENTS)
        gc.collect()
        before = start_measuring(rss)
        await load(port, "/mcp", token, AGENTS, count // AGENTS)
        fleet.layer.render((WIDTH,), focus=False)
        nursery.cancel_scope.cancel()
    return before


def start_measuring(rss: bool) -> object:
    """VmRSS now, or the heap's snapshot (tracemalloc started)."""
    if rss:
        return vm_rss()
    tracemalloc.start(1)
    return tracemalloc.take_snapshot()


def measure(count: int, top: int, rss: bool, server: bool) -> None:
    """Print the heap (or VmRSS) kept per pending question (module docstring)."""
    with disk_tempdir() as (data_dir, where):
        fleet = Fleet(data_dir)
        if server:
            before: Any = trio.run(over_http, fleet, data_dir, WARM, count, rss)
        else:
            trio.run(fleet.rounds, WARM)
            gc.collect()
            before = start_measuring(rss)
            trio.run(fleet.rounds, count)
        gc.collect()
        pending = len(fleet.host.surface_port.projection.pending)
        print(f"filesystem: {where}; {pending} pending ({count} measured)")
        if rss:
            grown = vm_rss() - before
            print(f"VmRSS per pending question: {grown / count / 1024:.2f} KiB")
            return
        after = tracemalloc.take_snapshot()
        stats = after.compare_to(before, "lineno")
        total = sum(s.size_diff for s in stats)
        print(f"heap per pending question: {total / count:,.0f} B")
        for stat in stats[:top]:
            frame = stat.traceback[0]
            name = frame.filename.split("/site-packages/")[-1].split("/asks/")[-1]
            print(f"{stat.size_diff / count:8,.0f} B  {name}:{frame.lineno}")
        fleet.journal.close()


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    top = int(argv[argv.index("--top") + 1]) if "--top" in argv else 25
    measure(1_000 if quick else 5_000, top, "--rss" in argv, "--server" in argv)


if __name__ == "__main__":
    main(sys.argv[1:])
