"""The hub's commit path per async ask, in process (issue 30, docs/fleet-scale.md "The commit
path per ask").

Run: ``.venv/bin/python -m bench.commit_bench [--pending N] [--batch B] [--asks K] [--rounds R]
[--profile] [--draw]``.

A real host on a journal on disk (a temporary directory) with its panel's layer, as in
``bench.qmem_bench``: ``--pending`` questions (default 5,000) are asked first, then ``--asks``
more are timed, ``--batch`` agents at a time (one call each, so the calls of a round commit in
one batch, as under load: ~6 a batch in ``bench.hub_fleet``). Each call goes the lean path's
way without HTTP: ``HubCalls.run`` for ``ask_user_question`` (``HubPort.begin`` → the group
commit → the journal → the projection → the tabs), no feedback or receipts. The figure is the
process' CPU time per call (``time.process_time``), the minimum and median of ``--rounds``
repeats of ``--asks`` calls each; ``--draw`` renders the layer after each batch (the frame the
real hub draws at most once per batch); ``--profile`` prints a cProfile of one repeat.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

import trio

from bench._common import disk_tempdir
from bench.qmem_bench import WIDTH, Fleet, question


class Timed:
    """A fleet whose asks go through the hub's tool rules (:class:`HubCalls`)."""

    def __init__(self, data_dir: Path, batch: int, draw: bool) -> None:
        from asks.hub.calls import HubCalls  # noqa: PLC0415 (imported inside the run)

        self.fleet = Fleet(data_dir)
        self.calls = HubCalls(self.fleet.host.hub_port)
        self.batch = batch
        self.draw = draw

    async def one(self, agent: int, n: int) -> None:
        from asks.hub.calls import CallSite  # noqa: PLC0415

        label = f"agent-{agent:02d}"
        site = CallSite(label, None, n, {"callId": f"call-{n}"})
        args = question(f"Question {n}: which one fits here?")
        await self.calls.run(site, "ask_user_question", args)

    async def asks(self, count: int) -> None:
        """Ask ``count`` questions, :attr:`batch` agents at a time."""
        fleet = self.fleet
        while count > 0:
            size = min(self.batch, count)
            async with trio.open_nursery() as nursery:
                for agent in range(size):
                    nursery.start_soon(self.one, agent, fleet.asked + agent)
            fleet.asked += size
            count -= size
            if self.draw:
                fleet.layer.render((WIDTH,), focus=False)


def arg(argv: list[str], name: str, default: int) -> int:
    return int(argv[argv.index(name) + 1]) if name in argv else default


def main(argv: list[str]) -> None:
    pending = arg(argv, "--pending", 5_000)
    batch = arg(argv, "--batch", 6)
    count = arg(argv, "--asks", 600)
    rounds = arg(argv, "--rounds", 5)
    with disk_tempdir() as (data_dir, where):
        timed = Timed(data_dir, batch, "--draw" in argv)
        trio.run(timed.asks, pending)
        timed.fleet.layer.render((WIDTH,), focus=False)
        per_call: list[float] = []
        for _ in range(rounds):
            started = time.process_time()
            trio.run(timed.asks, count)
            per_call.append((time.process_time() - started) / count * 1000)
        if "--profile" in argv:
            profile = cProfile.Profile()
            profile.enable()
            trio.run(timed.asks, count)
            profile.disable()
            stats = pstats.Stats(profile).sort_stats("cumulative")
            stats.print_stats(60)
        total = len(timed.fleet.host.surface_port.projection.pending)
        print(
            f"filesystem: {where}; {total} pending; batch {batch}; {count} asks a round; "
            f"CPU per ask min {min(per_call):.3f} ms, median {statistics.median(per_call):.3f} "
            f"ms ({', '.join(f'{v:.3f}' for v in per_call)})"
        )
        timed.fleet.journal.close()


if __name__ == "__main__":
    main(sys.argv[1:])
