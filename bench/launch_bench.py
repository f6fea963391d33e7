"""Launch cost of the reference launch (``asks`` with no flags: the offline tour), in CPU time.

Run: ``.venv/bin/python -m bench.launch_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

The wall-clock launch (bench/repl_bench.py, the peer harness) moves with the machine's load;
the CPU time of the launched process moves much less, so this benchmark says where it goes:

* **First frame.** The real ``asks`` (``asks.cli.main``, no flags) under a pty. A probe replaces
  urwid's ``draw_screen`` with one that draws, then records the process's CPU time (user +
  system since exec) at three points and exits at once: interpreter ready (the probe's first
  line: ``site`` and the editable-install finder included), ``import asks.cli`` done, first
  frame drawn (config, journal, session, trio and urwid started, the frame written).
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

import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench._common import PROJECT_ROOT, Row, disk_tempdir, header, median, python_argv_quick, report
from bench.repl_bench import child_env, parse_importtime, running

NAME = "launch"
GOAL_MS = 155.0  # issue 14: 0.4 x the best peer's launch -> editor (Claude Code, 385 ms)
TIMEOUT = 10.0
SOURCES = ("asks", "widgets")
GROUPED = ("urwid", "trio", "wcwidth", "attr", "attrs", "cattrs", "orjson", "asyncio")

PROBE = r"""
import os, resource, sys

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
    with open(out, "a") as f:
        f.write(f"{ready:.3f} {imported:.3f} {cpu():.3f}\n")
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


def launch_env(work: Path, pyc: bool) -> dict[str, str]:
    env = child_env(work)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not pyc:
        env["PYTHONPATH"] = str(fresh_sources(work))
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def probe(work: Path, what: str, pyc: bool = True) -> tuple[float, float, float]:
    """One launch under the probe: CPU ms at (interpreter ready, imports done, first frame)."""
    out = work / "probe.txt"
    out.unlink(missing_ok=True)
    argv = [sys.executable, str(work / "probe.py"), str(out), what]
    if what == "asks":
        argv += ["--data-dir", str(work / "data")]
    with running(argv, launch_env(work, pyc)) as term:
        deadline = time.monotonic() + TIMEOUT
        while term.proc.isalive() and time.monotonic() < deadline:
            time.sleep(0.005)
    if not out.exists():
        raise RuntimeError(f"{what}: no first frame within {TIMEOUT:.0f} s")
    ready, imported, frame = (float(x) for x in out.read_text().split())
    return ready, imported, frame


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


def report_launches(rows: list[Row], samples: dict[str, list[tuple[float, float, float]]]) -> None:
    print("\n-- CPU ms since exec, medians: interpreter ready / imports done / first frame")
    for key, label in (
        ("floor", "floor: bare trio + urwid frame"),
        ("pyc", "asks (tour), with .pyc"),
        ("nopyc", "asks (tour), without .pyc"),
    ):
        ready, imported, frame = (median([s[i] for s in samples[key]]) for i in range(3))
        goal = (f"≤ {GOAL_MS:.0f} ms (wall)", frame <= GOAL_MS) if key == "pyc" else ("", None)
        report(rows, Row(NAME, f"first frame: {label}", f"{frame:.0f} ms", *goal))
        report(
            rows,
            Row(
                NAME,
                "  interpreter / imports / after imports",
                f"{ready:.0f} / {imported - ready:.0f} / {frame - imported:.0f}",
            ),
        )
    above = median([s[2] for s in samples["pyc"]]) - median([s[2] for s in samples["floor"]])
    report(rows, Row(NAME, "asks above the floor (with .pyc)", f"{above:.0f} ms"))


def main(quick: bool = False) -> list[Row]:
    runs, repeats = (5, 3) if quick else (11, 7)
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
        samples: dict[str, list[tuple[float, float, float]]] = {"floor": [], "pyc": [], "nopyc": []}
        for _ in range(runs):
            samples["floor"].append(probe(work, "bare"))
            samples["pyc"].append(probe(work, "asks"))
            samples["nopyc"].append(probe(work, "asks", pyc=False))
        report_launches(rows, samples)
        report_imports(rows, work, repeats)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
