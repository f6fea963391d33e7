"""Shared helpers: machine context, filesystem choice, statistics and the result table."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import attrs

from asks.store.journal import FileOps

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Filesystems where fsync costs nothing: figures measured there would flatter the journal.
_MEMORY_FS = frozenset({"tmpfs", "ramfs", "devtmpfs"})


@attrs.frozen
class Row:
    """One figure of the summary table."""

    bench: str
    figure: str
    value: str
    goal: str = ""
    met: bool | None = None  # None: informational, no goal


def verdict(met: bool | None) -> str:
    return "" if met is None else ("met" if met else "NOT met")


def report(rows: list[Row], row: Row) -> None:
    """Print one figure line (with its goal) and keep it for the summary table."""
    rows.append(row)
    goal = f"   goal: {row.goal} [{verdict(row.met)}]" if row.goal else ""
    print(f"  {row.figure:<44} {row.value:>14}{goal}")


def cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown cpu"


def machine_context() -> str:
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cpus = f"{os.cpu_count()} cpus" + (f" ({usable} usable)" if usable is not None else "")
    impl = platform.python_implementation()
    return f"{impl} {platform.python_version()} | {cpus} | {cpu_model()} | {platform.system()}"


def header(title: str, measures: str) -> None:
    print(f"\n=== {title}")
    print(f"measures: {measures}")
    print(f"machine:  {machine_context()}")


def mount_of(path: Path) -> tuple[str, str, str]:
    """(fstype, device, mount point) of the mount holding ``path``, from /proc/mounts."""
    real = os.path.realpath(path)
    best = ("unknown", "?", "/")
    best_len = -1
    with contextlib.suppress(OSError):
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) < 3:
                continue
            device, mount_point, fstype = parts[0], parts[1].replace("\\040", " "), parts[2]
            inside = real == mount_point or real.startswith(mount_point.rstrip("/") + "/")
            if inside and len(mount_point) >= best_len:
                best, best_len = (fstype, device, mount_point), len(mount_point)
    return best


@contextlib.contextmanager
def disk_tempdir() -> Iterator[tuple[Path, str]]:
    """A temporary directory on a real disk, removed afterwards; yields (path, description).

    The system temp dir is used unless it is memory-backed (tmpfs: fsync would be free); then
    ``<project>/.bench-tmp/`` is used and removed again if this call created it.
    """
    system_tmp = Path(tempfile.gettempdir())
    fstype, _, _ = mount_of(system_tmp)
    parent, created = system_tmp, False
    if fstype in _MEMORY_FS:
        parent = PROJECT_ROOT / ".bench-tmp"
        created = not parent.exists()
        parent.mkdir(exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="asks-bench-", dir=parent))
    fstype, device, mount_point = mount_of(path)
    note = " (memory-backed: fsync figures are NOT disk figures)" if fstype in _MEMORY_FS else ""
    description = f"{path} on {fstype} ({device} at {mount_point}){note}"
    try:
        yield path, description
    finally:
        shutil.rmtree(path, ignore_errors=True)
        if created:
            shutil.rmtree(parent, ignore_errors=True)


class TimingFileOps(FileOps):
    """The journal's file seam, recording how long each ``write`` and ``fsync`` took (ns)."""

    def __init__(self) -> None:
        self.write_ns: list[int] = []
        self.fsync_ns: list[int] = []

    def write(self, fd: int, data: bytes) -> int:
        t0 = time.perf_counter_ns()
        written = super().write(fd, data)
        self.write_ns.append(time.perf_counter_ns() - t0)
        return written

    def fsync(self, fd: int) -> None:
        t0 = time.perf_counter_ns()
        super().fsync(fd)
        self.fsync_ns.append(time.perf_counter_ns() - t0)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty sequence."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def time_each(fn: Callable[[], object], count: int) -> list[int]:
    """Run ``fn`` ``count`` times; the duration of each call in ns."""
    clock = time.perf_counter_ns
    out = []
    for _ in range(count):
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return out


def ms(ns: float) -> str:
    return f"{ns / 1e6:.3f} ms"


def us(ns: float) -> str:
    return f"{ns / 1e3:.2f} µs"


def flat_ratio(values: Sequence[float]) -> float:
    return max(values) / min(values)


def print_table(all_rows: list[Row]) -> None:
    """The compact summary table: every figure with a goal, and every top-level figure
    (indented breakdown lines are only in the benchmark's own output above)."""
    rows = [r for r in all_rows if r.goal or not r.figure.startswith(" ")]
    widths = [
        max(len(r.bench) for r in rows),
        max(len(r.figure) for r in rows),
        max(len(r.value) for r in rows),
        max(len(r.goal) for r in rows),
    ]
    print(f"\n=== summary ({machine_context()})")
    head = ("bench", "figure", "value", "goal", "")
    print("  ".join(h.ljust(w) for h, w in zip(head, [*widths, 0], strict=True)).rstrip())
    for r in rows:
        cells = (r.bench, r.figure, r.value.rjust(widths[2]), r.goal, verdict(r.met))
        print("  ".join(c.ljust(w) for c, w in zip(cells, [*widths, 0], strict=True)).rstrip())
    missed = [r for r in all_rows if r.met is False]
    print(
        f"goals: {sum(r.met is True for r in all_rows)} met, {len(missed)} not met "
        "(informational only)"
    )


def python_argv_quick(argv: Sequence[str] | None = None) -> bool:
    args = sys.argv[1:] if argv is None else list(argv)
    unknown = [a for a in args if a != "--quick"]
    if unknown:
        raise SystemExit(f"usage: python -m bench.<name> [--quick]; unknown: {unknown}")
    return "--quick" in args
