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
"""

from __future__ import annotations

import argparse
import enum
import sys
from collections.abc import Sequence
from pathlib import Path

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


def one_sample(
    tree: Path, env: dict[str, str], work: Path, mode: Mode, count: int, *, tag: str
) -> float:
    """One launch: the state ``mode`` and ``count`` make, then Enter → the blocking question in
    the panel (ms)."""
    env = {**env, "PYTHONPATH": str(tree)}
    path = script(work / f"enter-{tag}-{mode.name}-{count}.toml", mode, count)
    with running(argv(path, work / f"data-{tag}"), env) as term:
        term.until(settled_with(count if mode is Mode.PENDING else 0), TIMEOUT)
        term.settle(0.05)
        term.write(b"go")
        term.until(editor_shows("go"), TIMEOUT)
        term.settle(0.05)
        t0, hits = term.expect({"question": panel_shows(ASKED)}, b"\r")
        term.end([b"\x03", b"\x03"])
    return (hits["question"] - t0) / 1e6


def spread(values: Sequence[float]) -> str:
    return f"{median(values):.1f} ms ({min(values):.1f}–{max(values):.1f}, n={len(values)})"


def main(quick: bool = False, before: Path | None = None) -> list[Row]:
    samples = 4 if quick else 12
    trees = {"this tree": PROJECT_ROOT} | ({"before": before} if before is not None else {})
    header(
        "enter_bench" + (" (quick)" if quick else ""),
        "Enter → blocking question on screen: 1 / 20 async pending before it, and 0 / 20 async "
        f"asked in its own turn; {samples} launches each"
        + (f"; before = {before}" if before else ""),
    )
    got: dict[tuple[str, Mode, int], list[float]] = {}
    with disk_tempdir() as (work, _mount):
        # as a person runs it: the trees' modules compiled once, by the warm-up launches
        env = {k: v for k, v in child_env(work).items() if k != "PYTHONDONTWRITEBYTECODE"}
        for tree in trees.values():
            for mode, counts in COUNTS.items():
                one_sample(tree, env, work, mode, counts[-1], tag="warm-up")
        for k in range(samples):
            for name, tree in trees.items():
                for mode, counts in COUNTS.items():
                    for count in counts:
                        tag = f"{name.replace(' ', '-')}-{k}"
                        sample = one_sample(tree, env, work, mode, count, tag=tag)
                        got.setdefault((name, mode, count), []).append(sample)
            print(
                f"  {k + 1}/{samples}: "
                + ", ".join(f"{n} {m.name} {c}: {v[-1]:.1f}" for (n, m, c), v in got.items()),
                flush=True,
            )
    rows: list[Row] = []
    for name in trees:
        prefix = "" if name == "this tree" else f"{name}: "
        for mode, (low, high) in COUNTS.items():
            few, many = got[(name, mode, low)], got[(name, mode, high)]
            ratio = median(many) / median(few)
            what = f"{prefix}Enter → question, {low} / {high} async {mode.value}"
            report(rows, Row(NAME, what, f"{spread(few)} / {spread(many)}"))
            report(
                rows, Row(NAME, f"{prefix}  ratio", f"{ratio:.2f}×", f"≤ {FLAT}×", ratio <= FLAT)
            )
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.enter_bench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", type=Path, default=None, help="a source tree to compare")
    options = parser.parse_args()
    main(options.quick, options.before)
