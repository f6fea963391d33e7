"""Run every benchmark and print a compact table of the figures.

Usage (from the project root)::

    .venv/bin/python -m bench.run           # full run (a few minutes)
    .venv/bin/python -m bench.run --quick   # smaller run (fewer repetitions)

Goals are printed next to each figure for information only; nothing fails on time.
"""

from __future__ import annotations

import argparse
import time

from bench import (
    floor_bench,
    host_bench,
    hub_bench,
    journal_bench,
    key_bench,
    launch_bench,
    permission_bench,
    provider_bench,
    repl_bench,
    resume_bench,
    sse_bench,
    web_bench,
)
from bench._common import Row, print_table

BENCHMARKS = (
    journal_bench,
    host_bench,
    key_bench,
    repl_bench,
    floor_bench,
    launch_bench,
    resume_bench,
    provider_bench,
    sse_bench,
    web_bench,
    hub_bench,
    permission_bench,
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller run: fewer repetitions")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    started = time.perf_counter()
    for bench in BENCHMARKS:
        rows += bench.main(quick=args.quick)
    print_table(rows)
    print(f"total {time.perf_counter() - started:.0f} s" + (" (--quick)" if args.quick else ""))


if __name__ == "__main__":
    main()
