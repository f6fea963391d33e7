"""What each launch trick buys on its own (asks/cli/startup.py), and whether it keeps its place.

Run: ``.venv/bin/python -m bench.tricks_bench [--quick] [--rounds N] [--before TREE]``.

The reference launch (``asks``, the tour, to its first frame: :data:`bench.launch_bench.PROBE`,
under a pty, sessions in a fresh XDG data dir) is run with every trick on, with none
(``ASKS_LAUNCH_TRICKS=none``) and with each trick off alone (the others on), plus the bare
trio + urwid frame (the floor) and, with ``--before TREE``, another checkout as it launches
(``git worktree add TREE main``: all of its tricks, as they are there). Two figures:

* **Instructions** (primary): user-space instructions from exec to the first frame under
  callgrind, one run per variant (a count the machine's load does not move; runs agree
  within ~1 M).
* **CPU ms** (secondary): user + system CPU from exec to the first frame, ``--rounds``
  launches per variant interleaved (floor, all, none, each off, …) so that they share the
  load; medians. The collector's pause saves far more CPU per instruction than the rest (a
  collection walks memory), which is why both figures are reported.

A trick's gain is "one off" minus "all on". The verdict column applies the rule of
docs/decisions/0025-launch-tricks-in-one-place.md: a trick that saves less than
:data:`KEEP_MS` of CPU is to be deleted. Nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from asks.cli.startup import ENV, Trick
from bench._common import Row, disk_tempdir, header, median, report
from bench.launch_bench import PROBE, SOURCES, TIMEOUT, launch_env
from bench.repl_bench import running

NAME = "tricks"
KEEP_MS = 5.0
CALLGRIND_TIMEOUT = 300.0  # s: a launch under callgrind runs ~50x slower


def variants() -> dict[str, str | None]:
    """Variant name → the switch's value (``None``: unset, every trick on)."""
    chosen: dict[str, str | None] = {"all": None, "none": "none"}
    for trick in Trick:
        rest = [t.value for t in Trick if t is not trick]
        chosen[f"without {trick.value}"] = ",".join(rest) or "none"
    return chosen


def env_of(work: Path, switch: str | None, tree: Path | None) -> dict[str, str]:
    env = launch_env(work, True, tree)
    env.pop(ENV, None)
    if switch is not None:
        env[ENV] = switch
    return env


def cpu_launch(work: Path, what: str, env: dict[str, str]) -> float:
    """CPU ms from exec to the first frame of one launch under the probe."""
    out = work / "probe.txt"
    out.unlink(missing_ok=True)
    argv = [sys.executable, str(work / "probe.py"), str(out), what]
    with running(argv, env) as term:
        deadline = time.monotonic() + TIMEOUT
        while term.proc.isalive() and time.monotonic() < deadline:
            time.sleep(0.002)
    if not out.exists():
        raise RuntimeError(f"{what}: no first frame within {TIMEOUT:.0f} s")
    return float(out.read_text().split()[2])


def instructions(work: Path, what: str, env: dict[str, str]) -> int:
    """User-space instructions from exec to the first frame, under callgrind."""
    with tempfile.TemporaryDirectory() as grind:
        out = work / "probe.txt"
        out.unlink(missing_ok=True)
        argv = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={grind}/cg.out",
            sys.executable,
            str(work / "probe.py"),
            str(out),
            what,
        ]
        with running(argv, env) as term:
            deadline = time.monotonic() + CALLGRIND_TIMEOUT
            while term.proc.isalive() and time.monotonic() < deadline:
                time.sleep(0.05)
        if not out.exists():
            raise RuntimeError(f"{what}: no first frame under callgrind")
        text = (Path(grind) / "cg.out").read_text()
    line = next(x for x in text.splitlines() if x.startswith(("summary:", "totals:")))
    return int(line.split()[1])


def runs_of(work: Path, before: Path | None) -> dict[str, tuple[str, dict[str, str]]]:
    """Every launch of the run: name → (what the probe runs, its environment)."""
    runs = {"floor": ("bare", env_of(work, None, None))}
    if before is not None:
        runs["before tree"] = ("asks", env_of(work, None, before))
    for name, switch in variants().items():
        runs[name] = ("asks", env_of(work, switch, None))
    return runs


def report_gains(rows: list[Row], counts: dict[str, int], cpu: dict[str, float]) -> None:
    print("\n-- each trick's gain: (that trick off) - (all on)")
    for trick in Trick:
        off = f"without {trick.value}"
        saved_m = (counts[off] - counts["all"]) / 1e6
        saved_ms = cpu[off] - cpu["all"]
        verdict = "keep" if saved_ms >= KEEP_MS else f"delete (< {KEEP_MS:.0f} ms)"
        value = f"{saved_m:.1f} M, {saved_ms:.1f} ms CPU: {verdict}"
        report(rows, Row(NAME, f"{trick.value} saves", value))
    total_m, total_ms = (counts["none"] - counts["all"]) / 1e6, cpu["none"] - cpu["all"]
    report(rows, Row(NAME, "all tricks together save", f"{total_m:.1f} M, {total_ms:.1f} ms CPU"))


def main(quick: bool = False, rounds: int | None = None, before: Path | None = None) -> list[Row]:
    rounds = rounds or (5 if quick else 15)
    if before is not None:  # its .pyc first, as for ours (the warm-up below)
        for name in SOURCES:
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(before / name)], check=True
            )
    header(
        "tricks_bench" + (" (quick)" if quick else ""),
        "the launch (the tour, to its first frame) with every trick, none and each off alone: "
        f"instructions under callgrind (one run each), CPU ms ({rounds} interleaved rounds)",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        (work / "probe.py").write_text(PROBE, encoding="utf-8")
        runs = runs_of(work, before)
        for what, env in runs.values():  # warm-up: .pyc, the method cache, the page cache
            cpu_launch(work, what, env)
        counts = {name: instructions(work, what, env) for name, (what, env) in runs.items()}
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, (what, env) in runs.items():
                samples[name].append(cpu_launch(work, what, env))
        cpu = {name: median(values) for name, values in samples.items()}
        print("\n-- to the first frame: instructions (callgrind); CPU ms (median)")
        for name in runs:
            above = counts[name] / counts["floor"] - 1
            report(
                rows,
                Row(
                    NAME,
                    f"launch: {name}",
                    f"{counts[name] / 1e6:.1f} M ({above:+.1%}); {cpu[name]:.1f} ms CPU "
                    f"({cpu[name] - cpu['floor']:+.1f})",
                ),
            )
        report_gains(rows, counts, cpu)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.tricks_bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, metavar="N", help="CPU launches per variant")
    parser.add_argument(
        "--before", type=Path, metavar="TREE", help="another checkout, launched as it is"
    )
    options = parser.parse_args()
    main(options.quick, options.rounds, options.before)
