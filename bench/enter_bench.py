"""Enter → question on screen with 20 async questions beside it (the REPL, a pty).

Run: ``.venv/bin/python -m bench.enter_bench [--quick] [--before DIR]`` (also run by
``bench.repl_bench``). Two shapes (:class:`Mode`), each against its baseline:

* **pending before the Enter** (1 vs 20): the agent asked the async questions at the start
  (untimed); the Enter's turn asks one blocking question. What pending questions cost an Enter.
* **asked in the Enter's turn** (0 vs 20): the Enter's turn first asks 20 async questions (five
  calls of four), then the blocking one in its next reply — the shape of the peer harness
  (``driver.py`` of the shared peer bench, "asks, 20 async pending", whose fake model answers
  the same way over HTTP; its baseline is a turn asking one blocking question). What asking
  20 questions costs, the model's HTTP round trips left out.

Each sample is one launch of the real ``asks`` (the scripted model) under a 100×30 pty read by
pyte (the harness of bench/repl_bench.py): once the status line says the start's questions are
pending and the agent is idle, ``go`` is typed in the chat editor; the clock starts when Enter
is written and stops at the first pty chunk after which the blocking question is on a row
below the panel's title. One warm-up launch per tree and case comes first (not counted: it
writes the ``.pyc`` files). The cases alternate launch by launch (and, with ``--before DIR``,
a second source tree — a checkout of an earlier commit — run with ``python -P`` so that its
``asks`` is imported, interleaved with this one: an A/B in one run). Figures are medians with
min–max; nothing asserts on time.

With ``--cpu``, each launch also reports the CPU time of the asks process over the Enter (a
``sitecustomize`` of the bench's, on ``PYTHONPATH`` beside the tree, writes
``time.process_time_ns()`` at each ``SIGUSR1``: one before the Enter, one once the screen is
quiet after the question, so the whole turn's work), steadier than latency on a shared
machine, and the journal writes of the Enter's turn (the distinct timestamps of its lines:
one per write and fsync).
"""

from __future__ import annotations

import argparse
import enum
import json
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import attrs

from bench._common import PROJECT_ROOT, Row, disk_tempdir, header, median, report
from bench.repl_bench import (
    _toml,
    child_env,
    editor_shows,
    panel_shows,
    question,
    running,
    settled_with,
    start_script,
)

NAME = "enter"


class Mode(enum.Enum):
    """What the 20 async questions are to the Enter (module docstring)."""

    PENDING = "pending before the Enter"  # 1 or 20
    SAME_TURN = "asked in the Enter's turn"  # 0 or 20


COUNTS = {Mode.PENDING: (1, 20), Mode.SAME_TURN: (0, 20)}
FLAT = 1.2
ASKED = "Which database should we use?"
TIMEOUT = 20.0
BLOCKING = {
    "question": ASKED,
    "header": "Database",
    "options": [
        {"label": "PostgreSQL", "description": "relational"},
        {"label": "SQLite", "description": "embedded"},
    ],
}


def _call(args: dict[str, object]) -> list[str]:
    return ["[[step.reply.call]]", 'tool = "ask_user_question"', f"args = {_toml(args)}"]


def _asyncs(count: int) -> list[dict[str, object]]:
    return [
        question(f"Async question {n + 1}: which option?", f"Async {n + 1}") for n in range(count)
    ]


def script(path: Path, mode: Mode, count: int) -> Path:
    """:attr:`Mode.PENDING`: the start step asks ``count`` async questions; a chat message,
    one blocking question. :attr:`Mode.SAME_TURN`: a chat message's turn first asks ``count``
    async questions (four per call, none if 0), then the blocking one in its next reply."""
    before = count if mode is Mode.PENDING else 0
    start_script(path, f"Asking {before}.", _asyncs(before))
    lines = ["[[step]]", 'on = "message"']
    if mode is Mode.SAME_TURN and count:
        lines += ["[[step.reply]]", f'say = "Asking {count}."', "delay = 0"]
        for first in range(0, count, 4):
            lines += _call({"blocking": False, "questions": _asyncs(count)[first : first + 4]})
    lines += ["[[step.reply]]", 'say = "Asking the blocking one."', "delay = 0"]
    lines += _call({"blocking": True, "questions": [BLOCKING]})
    with path.open("a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    return path


def argv(script_path: Path, data_dir: Path) -> list[str]:
    # -P: the tree's asks from PYTHONPATH, not the working directory's
    return [
        sys.executable,
        "-P",
        "-m",
        "asks",
        "--script",
        str(script_path),
        "--data-dir",
        str(data_dir),
    ]


PROBE = """import os, signal, time


def _cpu(signum, frame):
    with open(os.environ["ASKS_BENCH_CPU"], "a") as out:
        out.write(f"{time.process_time_ns()}\\n")


signal.signal(signal.SIGUSR1, _cpu)
"""


@attrs.frozen
class Sample:
    """One launch's Enter: latency (ms); with ``--cpu``, CPU (ms) and the turn's writes."""

    ms: float
    cpu_ms: float | None = None
    writes: int | None = None


def _cpu_now(pid: int, out: Path) -> int:
    """The process's CPU time (ns), written by the probe at a ``SIGUSR1``."""
    before = out.read_text().count("\n") if out.exists() else 0
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        lines = out.read_text().splitlines() if out.exists() else []
        if len(lines) > before:
            return int(lines[-1])
        time.sleep(0.002)
    raise TimeoutError("the CPU probe did not answer")


def turn_writes(data_dir: Path) -> int:
    """The journal writes of the Enter's turn: distinct timestamps from its ``go`` line on."""
    journal = max(data_dir.glob("*.jsonl"), key=lambda path: path.stat().st_mtime)
    lines = [json.loads(line) for line in journal.read_bytes().splitlines()]
    start = max(
        i
        for i, line in enumerate(lines)
        if line.get("role") == "user" and line.get("content") == "go"
    )
    return len({line["ts"] for line in lines[start:]})


def one_sample(
    tree: Path,
    env: dict[str, str],
    work: Path,
    mode: Mode,
    count: int,
    *,
    tag: str,
    cpu: bool = False,
) -> Sample:
    """One launch: the state ``mode`` and ``count`` make, then Enter → the blocking question in
    the panel (module docstring)."""
    probe = work / "probe"
    probe.mkdir(exist_ok=True)
    (probe / "sitecustomize.py").write_text(PROBE)
    out = work / f"cpu-{tag}-{mode.name}-{count}.txt"
    path_entries = [str(tree), *([str(probe)] if cpu else [])]
    env = {**env, "PYTHONPATH": os.pathsep.join(path_entries), "ASKS_BENCH_CPU": str(out)}
    path = script(work / f"enter-{tag}-{mode.name}-{count}.toml", mode, count)
    data_dir = work / f"data-{tag}-{mode.name}-{count}"
    with running(argv(path, data_dir), env) as term:
        term.until(settled_with(count if mode is Mode.PENDING else 0), TIMEOUT)
        term.settle(0.05)
        term.write(b"go")
        term.until(editor_shows("go"), TIMEOUT)
        term.settle(0.05)
        c0 = _cpu_now(term.pid, out) if cpu else 0
        t0, hits = term.expect({"question": panel_shows(ASKED)}, b"\r")
        if cpu:
            term.settle(0.05)
            c1 = _cpu_now(term.pid, out)
        term.end([b"\x03", b"\x03"])
    ms = (hits["question"] - t0) / 1e6
    if not cpu:
        return Sample(ms)
    return Sample(ms, (c1 - c0) / 1e6, turn_writes(data_dir))


def main(
    quick: bool = False,
    before: Path | None = None,
    *,
    cpu: bool = False,
    modes: Sequence[Mode] = tuple(Mode),
    samples: int | None = None,
) -> list[Row]:
    samples = samples or (4 if quick else 12)
    counts_of = {mode: COUNTS[mode] for mode in modes}
    trees = {"this tree": PROJECT_ROOT} | ({"before": before} if before is not None else {})
    header(
        "enter_bench" + (" (quick)" if quick else ""),
        "Enter → blocking question on screen: 1 / 20 async pending before it, and 0 / 20 async "
        f"asked in its own turn; {samples} launches each"
        + (f"; before = {before}" if before else "")
        + ("; CPU and the turn's writes" if cpu else ""),
    )
    got: dict[tuple[str, Mode, int], list[Sample]] = {}
    with disk_tempdir() as (work, _mount):
        # as a person runs it: the trees' modules compiled once, by the warm-up launches
        env = {k: v for k, v in child_env(work).items() if k != "PYTHONDONTWRITEBYTECODE"}
        for tree in trees.values():
            for mode, counts in counts_of.items():
                one_sample(tree, env, work, mode, counts[-1], tag="warm-up", cpu=cpu)
        for k in range(samples):
            for name, tree in trees.items():
                for mode, counts in counts_of.items():
                    for count in counts:
                        tag = f"{name.replace(' ', '-')}-{k}"
                        sample = one_sample(tree, env, work, mode, count, tag=tag, cpu=cpu)
                        got.setdefault((name, mode, count), []).append(sample)
            print(f"  {k + 1}/{samples}: " + _progress(got), flush=True)
    rows: list[Row] = []
    for name in trees:
        prefix = "" if name == "this tree" else f"{name}: "
        for mode, (low, high) in counts_of.items():
            few, many = got[(name, mode, low)], got[(name, mode, high)]
            ratio = median([s.ms for s in many]) / median([s.ms for s in few])
            what = f"{prefix}Enter → question, {low} / {high} async {mode.value}"
            report(rows, Row(NAME, what, f"{spread(few)} / {spread(many)}"))
            report(
                rows, Row(NAME, f"{prefix}  ratio", f"{ratio:.2f}×", f"≤ {FLAT}×", ratio <= FLAT)
            )
            if cpu:
                report(rows, Row(NAME, f"{prefix}  CPU, writes", f"{_cpu(few)} / {_cpu(many)}"))
    return rows


def spread_of(values: Sequence[float]) -> str:
    return f"{median(values):.1f} ms ({min(values):.1f}–{max(values):.1f}, n={len(values)})"


def spread(samples: Sequence[Sample]) -> str:
    return spread_of([s.ms for s in samples])


def _cpu(samples: Sequence[Sample]) -> str:
    cpu = [s.cpu_ms for s in samples if s.cpu_ms is not None]
    writes = sorted({s.writes for s in samples if s.writes is not None})
    return f"{spread_of(cpu)} CPU, {'/'.join(map(str, writes))} writes"


def _progress(got: dict[tuple[str, Mode, int], list[Sample]]) -> str:
    return ", ".join(f"{n} {m.name} {c}: {v[-1].ms:.1f}" for (n, m, c), v in got.items())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.enter_bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", type=Path, default=None, help="a source tree to compare")
    parser.add_argument("--cpu", action="store_true", help="also CPU and journal writes")
    parser.add_argument("--same-turn", action="store_true", help="only the 0 / 20 case")
    parser.add_argument("--samples", type=int, default=None, help="launches per case")
    options = parser.parse_args()
    chosen = (Mode.SAME_TURN,) if options.same_turn else tuple(Mode)
    main(options.quick, options.before, cpu=options.cpu, modes=chosen, samples=options.samples)
