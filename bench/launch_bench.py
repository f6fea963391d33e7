"""Launch cost of the reference launch (``asks`` with no flags: the offline tour), in CPU time.

Run: ``.venv/bin/python -m bench.launch_bench [--quick] [--before TREE]`` (or all benchmarks:
``-m bench.run``). ``--before TREE``: also launch the sources of another checkout (``git
worktree add TREE COMMIT``; its .pyc written first), interleaved in the same run, for before/after
figures that share the machine's load.

The wall-clock launch (bench/repl_bench.py, the peer harness) moves with the machine's load;
the CPU time of the launched process moves much less, so this benchmark says where it goes:

* **First frame.** The real ``asks`` (``asks.cli.main``, no flags) under a pty. A probe replaces
  urwid's ``draw_screen`` with one that draws, then records the process's CPU time (user +
  system since exec) at three points and exits at once: interpreter ready (the probe's first
  line: ``site`` and the editable-install finder included), ``import asks.cli`` done, first
  frame drawn (config, journal, session, trio and urwid started, the frame written); and the
  wall time from spawn to that frame (fsyncs included). As the README runs it: no flags, the
  sessions in the default data dir (``XDG_DATA_HOME`` points into the bench's folder).
* **With and without .pyc.** "With" is every launch after the first. "Without" runs a fresh
  copy of ``asks/`` and ``widgets/`` with no ``__pycache__`` and ``PYTHONDONTWRITEBYTECODE=1``:
  every launch compiles our sources, as the first launch after ``pip install -e .`` does (an
  editable install byte-compiles nothing; site-packages keep the .pyc pip wrote).
* **The floor.** A bare script under the same probe: interpreter, ``import trio, urwid`` and
  one urwid frame under trio's event loop; what any trio + urwid program pays.
* **Import breakdown.** ``python -X importtime -c "import asks.cli"`` (the run with the median
  total), self time grouped by package, ours by layer.

The launches are interleaved (floor, with .pyc, without, floor, …); figures are medians.
Nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench._common import PROJECT_ROOT, Row, disk_tempdir, header, median, report
from bench.repl_bench import child_env, parse_importtime, running

NAME = "launch"
GOAL_MS = 155.0  # goal: 0.4 x the best peer's launch -> editor (Claude Code, 385 ms)
TIMEOUT = 10.0
SOURCES = ("asks", "widgets")
GROUPED = ("urwid", "trio", "wcwidth", "attr", "attrs", "cattrs", "orjson", "asyncio")

PROBE = r"""
import os, resource, sys, time

def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return (used.ru_utime + used.ru_stime) * 1e3

out, what, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
ready = cpu()
if what == "asks":
    import asks.cli
else:
    import trio, urwid
imported = cpu()
import urwid.display.raw as raw
draw = raw.Screen.draw_screen

def first_frame(self, size, canvas):
    draw(self, size, canvas)
    used = cpu()
    with open(out, "a") as f:
        f.write(f"{ready:.3f} {imported:.3f} {used:.3f} {time.perf_counter_ns()}\n")
    os._exit(0)

raw.Screen.draw_screen = first_frame
if what == "asks":
    asks.cli.main(argv)
else:
    async def bare():
        loop = urwid.TrioEventLoop()
        lines = [urwid.Text("transcript"), urwid.Edit("› "), urwid.Text("Asks: none pending")]
        main = urwid.MainLoop(urwid.Filler(urwid.Pile(lines), "bottom"), screen=raw.Screen(),
                              event_loop=loop, handle_mouse=False)
        with main.start():
            await loop.run_async()
    trio.run(bare)
"""


def fresh_sources(work: Path) -> Path:
    """A copy of our sources without any ``__pycache__`` (replaced on every call)."""
    tree = work / "fresh"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir()
    for name in SOURCES:
        shutil.copytree(
            PROJECT_ROOT / name,
            tree / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    return tree


def launch_env(work: Path, pyc: bool, tree: Path | None = None) -> dict[str, str]:
    """The child's environment: our sources (``tree``: another checkout's), with .pyc or a
    fresh copy without."""
    env = child_env(work)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if not pyc:
        env["PYTHONPATH"] = str(fresh_sources(work))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


Sample = tuple[float, float, float, float]  # CPU ms: ready, imported, first frame; wall ms


def probe(work: Path, what: str, pyc: bool = True, tree: Path | None = None) -> Sample:
    """One launch under the probe: CPU ms at (interpreter ready, imports done, first frame),
    and the wall ms from spawn to the first frame."""
    out = work / "probe.txt"
    out.unlink(missing_ok=True)
    argv = [sys.executable, str(work / "probe.py"), str(out), what]
    with running(argv, launch_env(work, pyc, tree)) as term:
        deadline = time.monotonic() + TIMEOUT
        while term.proc.isalive() and time.monotonic() < deadline:
            time.sleep(0.005)
    if not out.exists():
        raise RuntimeError(f"{what}: no first frame within {TIMEOUT:.0f} s")
    ready, imported, frame, drawn_ns = out.read_text().split()
    wall = (int(drawn_ns) - term.spawn_ns) / 1e6
    return float(ready), float(imported), float(frame), wall


def import_runs(work: Path, pyc: bool, repeats: int) -> list[tuple[str, int, int, int]]:
    """``-X importtime -c "import asks.cli"``: the parsed run with the median total."""
    runs = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import asks.cli"],
            capture_output=True,
            text=True,
            env=launch_env(work, pyc),
            cwd=work,
            check=True,
        )
        parsed = parse_importtime(done.stderr)
        total = next(cum for name, _, cum, depth in parsed if name == "asks.cli" and depth == 0)
        runs.append((total, parsed))
    runs.sort(key=lambda run: run[0])
    return runs[len(runs) // 2][1]


def group_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "asks":
        return "asks." + parts[1] if len(parts) > 1 else "asks"
    if parts[0] in GROUPED:
        return "attrs" if parts[0] == "attr" else parts[0]
    return "stdlib (other)" if parts[0] in sys.stdlib_module_names else "other packages"


def breakdown(parsed: list[tuple[str, int, int, int]]) -> list[tuple[str, float]]:
    """Self ms per group, largest first."""
    groups: dict[str, float] = {}
    for name, own, _, _ in parsed:
        groups[group_of(name)] = groups.get(group_of(name), 0.0) + own / 1e3
    return sorted(groups.items(), key=lambda kv: -kv[1])


def report_imports(rows: list[Row], work: Path, repeats: int) -> None:
    print('\n-- python -X importtime -c "import asks.cli": self time by group (median run)')
    for pyc in (True, False):
        parsed = import_runs(work, pyc, repeats)
        total = next(cum for name, _, cum, depth in parsed if name == "asks.cli" and depth == 0)
        ours = sum(own for name, own, _, _ in parsed if name.split(".")[0] == "asks") / 1e3
        label = "with .pyc" if pyc else "without .pyc (ours)"
        report(rows, Row(NAME, f"import asks.cli, {label}", f"{total / 1e3:.0f} ms"))
        report(rows, Row(NAME, "  of it our modules (self)", f"{ours:.0f} ms"))
        print("    " + ", ".join(f"{group} {ms:.1f}" for group, ms in breakdown(parsed)[:12]))


LABELS = {
    "floor": "floor: bare trio + urwid frame",
    "before": "asks (tour), with .pyc, --before tree",
    "pyc": "asks (tour), with .pyc",
    "nopyc": "asks (tour), without .pyc",
}


def report_launches(rows: list[Row], samples: dict[str, list[Sample]]) -> None:
    print("\n-- CPU ms since exec, medians: interpreter ready / imports done / first frame")
    for key, values in samples.items():
        ready, imported, frame, wall = (median([s[i] for s in values]) for i in range(4))
        goal = (f"≤ {GOAL_MS:.0f} ms (wall)", frame <= GOAL_MS) if key == "pyc" else ("", None)
        report(rows, Row(NAME, f"first frame: {LABELS[key]}", f"{frame:.0f} ms", *goal))
        report(
            rows,
            Row(
                NAME,
                "  interpreter / imports / after imports; wall",
                f"{ready:.0f} / {imported - ready:.0f} / {frame - imported:.0f}; {wall:.0f} ms",
            ),
        )
    floor_cpu, floor_wall = (median([s[i] for s in samples["floor"]]) for i in (2, 3))
    for key in ("before", "pyc"):
        if key in samples:
            cpu, wall = (median([s[i] for s in samples[key]]) for i in (2, 3))
            label = "asks above the floor (with .pyc)" + (
                ", --before tree" if key == "before" else ""
            )
            report(
                rows,
                Row(NAME, label, f"{cpu - floor_cpu:.0f} ms CPU, {wall - floor_wall:.0f} ms wall"),
            )


def main(quick: bool = False, before: Path | None = None) -> list[Row]:
    runs, repeats = (5, 3) if quick else (11, 7)
    if before is not None:  # its .pyc first, as for ours (the warm-up below)
        for name in SOURCES:
            subprocess.run(
                [sys.executable, "-m", "compileall", "-q", str(before / name)], check=True
            )
    header(
        "launch_bench" + (" (quick)" if quick else ""),
        f"CPU time of `asks` (the tour) from exec to its first frame, with and without .pyc, "
        f"against a bare trio + urwid frame; {runs} interleaved launches each; import cost "
        f"by group ({repeats} -X importtime runs each)",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        (work / "probe.py").write_text(PROBE, encoding="utf-8")
        probe(work, "asks")  # warm-up: page cache and our .pyc files; not counted
        keys = ["floor", "pyc", "nopyc"] if before is None else ["floor", "before", "pyc", "nopyc"]
        samples: dict[str, list[Sample]] = {key: [] for key in keys}
        for _ in range(runs):
            samples["floor"].append(probe(work, "bare"))
            if before is not None:
                samples["before"].append(probe(work, "asks", tree=before))
            samples["pyc"].append(probe(work, "asks"))
            samples["nopyc"].append(probe(work, "asks", pyc=False))
        report_launches(rows, samples)
        report_imports(rows, work, repeats)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.launch_bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--before", type=Path, metavar="TREE", help="another checkout, measured too"
    )
    options = parser.parse_args()
    main(options.quick, options.before)
