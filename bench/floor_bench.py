"""What bounds a keystroke: asks against a bare trio + urwid screen, through the same pty.

Run: ``.venv/bin/python -m bench.floor_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

Interleaved runs of three programs on a real pty read by pyte (:mod:`bench.repl_bench`'s
harness): ``cat`` in raw mode (the pty floor), :mod:`bench.bare_app` (urwid's raw screen and
``TrioEventLoop`` drawing a transcript, an editor and a status line: the floor of asks' own
stack) and ``asks`` (the chat editor, no questions; then Down/Up in a panel with one pending
question). Per key: latency (write → the screen shows it) and the process's CPU time
(utime + stime from /proc, over all keys). The difference between the bare app and asks is
what asks' own code costs per key; the bare app's own figure is what any urwid + trio program
pays before doing anything.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench import repl_bench as rb
from bench._common import Row, disk_tempdir, header, median, python_argv_quick, report

NAME = "floor"
BARE = [sys.executable, "-m", "bench.bare_app"]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bare_keys(env: dict[str, str], keys: int) -> tuple[list[float], float]:
    with rb.running(BARE, env) as term:
        term.until(rb.editor_drawn)
        term.settle(0.05)
        before = cpu_seconds(term.pid)
        lat = rb.type_keys(term, keys)
        cpu = (cpu_seconds(term.pid) - before) * 1000 / keys
        term.end([rb.CTRL_C])
    return lat, cpu


def asks_keys(
    env: dict[str, str], work: Path, run: int, keys: int
) -> dict[str, tuple[list[float], float]]:
    question = rb.question("Floor bench question: which option?", "Floor")
    script = rb.start_script(work / f"floor-{run}.toml", "Floor bench.", [question])
    out = {}
    with rb.running(rb.asks_argv(script, work / "data"), env) as term:
        term.until(rb.settled_with(1))
        term.settle(0.05)
        before = cpu_seconds(term.pid)
        lat = rb.type_keys(term, keys)
        out["chat"] = (lat, (cpu_seconds(term.pid) - before) * 1000 / keys)
        term.watch({"focused": rb.panel_focused})
        term.write(rb.SHIFT_TAB)
        term.wait()
        term.until(rb.cursor_on(1))
        term.settle(0.05)
        before = cpu_seconds(term.pid)
        lat = rb.move_cursor(term, keys)
        out["panel"] = (lat, (cpu_seconds(term.pid) - before) * 1000 / keys)
        rb.quit_asks(term, rb.Samples())
    return out


def main(quick: bool = False) -> list[Row]:
    header(
        "floor_bench" + (" (quick)" if quick else ""),
        "key → screen and CPU per key: cat floor, a bare trio + urwid screen, asks (chat "
        "editor; Down/Up in the panel), interleaved, through a real pty",
    )
    rows: list[Row] = []
    runs, keys = (2, 40) if quick else (5, 80)
    samples: dict[str, list[float]] = {}
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        env = rb.child_env(work)
        for run in range(runs):
            samples.setdefault("floor", []).append(rb.pty_floor(env, 30, raw=True))
            lat, cpu = bare_keys(env, keys)
            samples.setdefault("bare", []).extend(lat)
            samples.setdefault("bare cpu", []).append(cpu)
            for mode, (lat, cpu) in asks_keys(env, work, run, keys).items():
                samples.setdefault(mode, []).extend(lat)
                samples.setdefault(f"{mode} cpu", []).append(cpu)
    floor = median(samples["floor"])
    report(rows, Row(NAME, "pty floor (cat, raw)", f"{floor:.2f} ms"))
    for key, label in (
        ("bare", "bare trio + urwid, chat key"),
        ("chat", "asks, chat key"),
        ("panel", "asks, Down/Up in the panel"),
    ):
        above = median(samples[key]) - floor
        cpu = median(samples[f"{key} cpu"])
        report(rows, Row(NAME, f"{label}: above floor / CPU", f"{above:.2f} / {cpu:.2f} ms"))
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
