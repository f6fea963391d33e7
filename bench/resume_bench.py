"""Long sessions: resume → first frame, first open after a crash, exit, memory.

Run: ``.venv/bin/python -m bench.resume_bench [--quick] [--before DIR] [--after DIR]`` (or all
benchmarks: ``-m bench.run``). ``--before DIR`` runs every figure a second time, interleaved,
against the ``asks/`` and ``widgets/`` found in DIR (e.g. ``git archive REV asks widgets |
tar -x -C DIR``); ``--after DIR`` likewise for the tree after (default: this one). The
before/after table in bench/HISTORY.md ("Long sessions") comes from one such run. Each tree
resumes its own copy of the session (its own side files).

* **Resume → first frame.** The real ``asks --resume`` of a generated 100,000-entry session
  (bench/workload.py, its resume checkpoint current, one question pending, closed cleanly by
  the tree's own code after a first resume) under a pty, against a fresh ``asks`` in the same
  run: CPU time of the process from exec to its first frame drawn (the probe of
  bench/launch_bench.py), and VmRSS then. Goal: resume ≤ fresh + 100 ms.
* **First open after a crash.** A child appends 100,000 entries one by one to a new session
  (fsync off: durability is not measured here), copies the files as a crash would leave them
  (the state before any close), and closes. Another child opens the copy: CPU of
  ``Journal.open`` + ``Projection.apply_all``. Goal ≤ 0.5 s.
* **Exit.** The first child's ``Journal.close`` after those appends, each folded into a
  projection kept for the checkpoint as the host does (what a session that appended 100k
  lines pays at exit: the checkpoint). Goal ≤ 50 ms.

CPU time, not wall: other work on this 2-core machine disturbs it least. Medians of
interleaved runs; nothing asserts on time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from asks.store.journal import Journal
from bench import workload
from bench._common import PROJECT_ROOT, Row, disk_tempdir, header, median, ms, report
from bench.repl_bench import child_env, running

NAME = "resume"
ENTRIES = 100_000
SESSION = "long"
RESUME_GOAL_MS = 100.0  # resume → first frame, above a fresh launch's
CRASH_GOAL_NS = 500e6  # the first open after a crash
EXIT_GOAL_NS = 50e6  # the exit figure
RSS_GOAL_MIB = ENTRIES / 1024  # 1 KiB per entry above a fresh launch
TIMEOUT = 300.0  # a tree without the checkpoint takes ~20 s to resume 100k on a loaded machine

PROBE = r"""
import os, resource, sys

def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return (used.ru_utime + used.ru_stime) * 1e3

def rss():
    with open("/proc/self/status") as status:
        line = next(l for l in status if l.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024

out, argv = sys.argv[1], sys.argv[2:]
import asks.cli
import urwid.display.raw as raw
draw = raw.Screen.draw_screen

def first_frame(self, size, canvas):
    draw(self, size, canvas)
    with open(out, "w") as f:
        f.write(f"{cpu():.3f} {rss():.1f}\n")
    os._exit(0)

raw.Screen.draw_screen = first_frame
asks.cli.main(argv)
"""

# Appends ENTRIES entries one by one, leaves a copy of the files as a crash would (before the
# close), then closes: prints the CPU ns of the close.
WRITER = r"""
import shutil, sys, time
from pathlib import Path
from asks.store.journal import FileOps, Journal
from asks.store.projection import Projection
from bench import workload

class NoFsync(FileOps):
    def fsync(self, fd):
        pass

data, crashed, count = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
journal = Journal.create(data_dir=data, session_id="w", file_ops=NoFsync())
projection = Projection(session_id="w")
keep = getattr(journal, "keep_checkpoint", None)  # as the host does (trees that have it)
if keep is not None:
    projection.apply_all(journal.first_records)
    keep(projection)
for record in workload.records(count)[1:]:
    projection.apply(journal.append(record.entry))
for path in data.iterdir():
    shutil.copy(path, crashed / path.name)
c0 = time.process_time_ns()
journal.close()
print(time.process_time_ns() - c0)
"""

# Opens the crashed copy: prints the CPU ns of Journal.open + Projection.apply_all.
REOPEN = r"""
import sys, time
from pathlib import Path
from asks.store.journal import Journal
from asks.store.projection import Projection

c0 = time.process_time_ns()
journal, records = Journal.open("w", data_dir=Path(sys.argv[1]))
Projection().apply_all(records)
print(time.process_time_ns() - c0)
journal.close()
"""


# Opens and closes a session as the host does (what a clean exit of the run before leaves:
# the tree's index current and its stamp, or its checkpoint).
CLOSE = r"""
import sys
from pathlib import Path
from asks.store.journal import Journal
from asks.store.projection import Projection

journal, records = Journal.open(sys.argv[2], data_dir=Path(sys.argv[1]))
keep = getattr(journal, "keep_checkpoint", None)
if keep is not None:
    projection = Projection(session_id=journal.session_id)
    projection.apply_all(records)
    keep(projection)
journal.close()
"""


def make_session(data: Path) -> None:
    records = workload.records(ENTRIES)
    records += workload.pending_cycle(len(records))
    workload.write_journal(data, SESSION, records)
    journal, _ = Journal.open(SESSION, data_dir=data)  # (the tree before: writes its index)
    journal.close()


def tree_env(work: Path, tree: Path | None) -> dict[str, str]:
    env = child_env(work)
    if tree is not None:  # its asks and widgets first; bench (the workload) from here
        env["PYTHONPATH"] = os.pathsep.join((str(tree), str(PROJECT_ROOT)))
    return env


def probe(work: Path, argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """One launch under the probe: (CPU ms at the first frame, VmRSS MiB then)."""
    out = work / "probe.txt"
    out.unlink(missing_ok=True)
    with running([sys.executable, str(work / "probe.py"), str(out), *argv], env) as term:
        deadline = time.monotonic() + TIMEOUT
        while term.proc.isalive() and time.monotonic() < deadline:
            time.sleep(0.005)
    if not out.exists():
        raise RuntimeError(f"{argv}: no first frame within {TIMEOUT:.0f} s")
    cpu, rss = (float(x) for x in out.read_text().split())
    return cpu, rss


def crash_and_exit(work: Path, env: dict[str, str], count: int) -> tuple[int, int]:
    """(CPU ns of the first open after a crash, CPU ns of the close) of ``count`` appends."""
    data, crashed = work / "w-data", work / "w-crashed"
    for path in (data, crashed):
        shutil.rmtree(path, ignore_errors=True)
    crashed.mkdir(parents=True)
    run = [sys.executable, "-c", WRITER, str(data), str(crashed), str(count)]
    # cwd: not a source tree (``-c`` puts the working directory first on the path)
    done = subprocess.run(run, env=env, capture_output=True, check=True, cwd=work)
    close_ns = int(done.stdout)
    run = [sys.executable, "-c", REOPEN, str(crashed)]
    open_ns = int(subprocess.run(run, env=env, capture_output=True, check=True, cwd=work).stdout)
    return open_ns, close_ns


def report_tree(rows: list[Row], label: str, samples: dict[str, list[float]]) -> None:
    if samples["fresh"]:
        report_launches(rows, label, samples)
    if samples["crash"]:
        report_crash(rows, label, samples)


def report_launches(rows: list[Row], label: str, samples: dict[str, list[float]]) -> None:
    fresh, resumed = median(samples["fresh"]), median(samples["resume"])
    above = resumed - fresh
    report(rows, Row(NAME, f"{label}: fresh launch → first frame, CPU", f"{fresh:.0f} ms"))
    report(rows, Row(NAME, f"{label}: resume 100k → first frame, CPU", f"{resumed:.0f} ms"))
    goal, met = f"≤ {RESUME_GOAL_MS:.0f} ms", above <= RESUME_GOAL_MS
    report(rows, Row(NAME, f"{label}: resume above fresh", f"{above:.0f} ms", goal, met))
    rss_fresh, rss_resumed = median(samples["rss fresh"]), median(samples["rss resume"])
    both = f"{rss_fresh:.1f} / {rss_resumed:.1f} MiB"
    report(rows, Row(NAME, f"{label}: VmRSS fresh / resumed 100k", both))
    above = rss_resumed - rss_fresh
    goal, met = f"≤ {RSS_GOAL_MIB:.0f} MiB", above <= RSS_GOAL_MIB
    report(rows, Row(NAME, f"{label}: RSS above fresh", f"{above:.1f} MiB", goal, met))


def report_crash(rows: list[Row], label: str, samples: dict[str, list[float]]) -> None:
    crash, close = median(samples["crash"]), median(samples["close"])
    goal = f"≤ {CRASH_GOAL_NS / 1e6:.0f} ms"
    met = crash <= CRASH_GOAL_NS
    report(rows, Row(NAME, f"{label}: first open after a crash, CPU", ms(crash), goal, met))
    goal = f"≤ {EXIT_GOAL_NS / 1e6:.0f} ms"
    met = close <= EXIT_GOAL_NS
    report(rows, Row(NAME, f"{label}: close after 100k appends, CPU", ms(close), goal, met))


def main(
    quick: bool = False,
    before: Path | None = None,
    after: Path | None = None,
    *,
    launches: bool = True,
) -> list[Row]:
    runs, crash_runs = (3, 1) if quick else (7, 3)
    runs = runs if launches else 0
    header(
        "resume_bench" + (" (quick)" if quick else ""),
        f"CPU to the first frame of `asks --resume` of a {ENTRIES:,}-entry session vs a fresh "
        f"`asks`, VmRSS then ({runs} interleaved launches each); first open after a crash "
        f"and close after {ENTRIES:,} appends ({crash_runs} runs)"
        + (f"; before = {before}" if before else ""),
    )
    rows: list[Row] = []
    trees: dict[str, Path | None] = {"after": after}
    if before is not None:
        trees = {"before": before, "after": after}
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        (work / "probe.py").write_text(PROBE, encoding="utf-8")
        data, fresh = work / "data", work / "fresh"
        data.mkdir()
        t0 = time.perf_counter()
        make_session(data)
        size = (data / f"{SESSION}.jsonl").stat().st_size
        print(
            f"session written and indexed in {time.perf_counter() - t0:.1f} s: {size / 1e6:.0f} MB"
        )
        # Each tree resumes its own copy: side files are per format, and trees of different
        # formats sharing one would each find the other's, replay in full and rewrite it.
        resumes: dict[str, list[str]] = {}
        for name in trees:
            shutil.copytree(data, work / f"data-{name}")
            resumes[name] = ["--data-dir", str(work / f"data-{name}"), "--resume", SESSION]
        samples: dict[str, dict[str, list[float]]] = {
            name: {
                key: [] for key in ("fresh", "resume", "rss fresh", "rss resume", "crash", "close")
            }
            for name in trees
        }
        for name, tree in trees.items() if launches else ():  # warm-up: .pyc, its own side files
            probe(work, resumes[name], tree_env(work, tree))
            # The probe exits at the first frame, as a crash would: close the session as
            # the previous run's clean exit did (the copy is another file: no stamp holds).
            run = [sys.executable, "-c", CLOSE, str(work / f"data-{name}"), SESSION]
            subprocess.run(run, env=tree_env(work, tree), check=True, cwd=work)
        for _ in range(runs):
            for name, tree in trees.items():
                env = tree_env(work, tree)
                cpu, rss = probe(work, ["--data-dir", str(fresh)], env)
                samples[name]["fresh"].append(cpu)
                samples[name]["rss fresh"].append(rss)
                cpu, rss = probe(work, resumes[name], env)
                samples[name]["resume"].append(cpu)
                samples[name]["rss resume"].append(rss)
        for _ in range(crash_runs):
            for name, tree in trees.items():
                crash, close = crash_and_exit(work, tree_env(work, tree), ENTRIES)
                samples[name]["crash"].append(crash)
                samples[name]["close"].append(close)
        for name in trees:
            report_tree(rows, name, samples[name])
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.resume_bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--after", type=Path, default=None, help="sources (default: this tree)")
    parser.add_argument("--no-launches", action="store_true", help="crash and exit figures only")
    options = parser.parse_args()
    main(options.quick, options.before, options.after, launches=not options.no_launches)
