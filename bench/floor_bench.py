"""What bounds a keystroke: asks against a bare trio + urwid screen, through the same pty.

Run: ``.venv/bin/python -m bench.floor_bench [--quick]`` (or all benchmarks: ``-m bench.run``);
``--ab TREE [--rounds N --keys K]``: an A/B of two trees instead, interleaved in one run (the
bare app, asks from another checkout ``TREE``, asks from this one; a fresh session with one
pending question; both keys), for before/after figures that share the machine's load.
``--instructions [--ab TREE] [--keys K]``: user-space instructions per key instead, under
callgrind (zeroed once the program is idle, dumped after the keys; the same programs): a count
the machine's load does not move, where CPU time per key moves ±10 % between runs here.

Interleaved runs on a real pty read by pyte (:mod:`bench.repl_bench`'s harness): ``cat`` in
raw mode (the pty floor), :mod:`bench.bare_app` (urwid's raw screen and ``TrioEventLoop``
drawing a transcript, a boxed question, an editor and a status line: the floor of asks' own
stack) and ``asks``. The same two keys in both: a **chat key** (letters then Backspace in the
editor) and a **panel key** (Down/Up moving the ``›`` marker between two options of a boxed
question; in asks, the question panel). asks runs with 1 / 100 / 1,000 pending questions
(a fresh session whose script asks them), and with one pending question in a resumed session
of 100,000 journal entries (``--resume``: its transcript is that long). Keys start once the
program is idle (past asks' background warm-up a second after start, whose CPU is not a key's).

Per key: latency (write → the screen shows it) and the process's CPU time (time on a CPU from
/proc/PID/schedstat, over all keys). Figures: medians; above the floor, CPU, and asks over the
bare app for the same key (goal: ≤ 1.15×, and flat over the sizes). The bare
app's figure is what any urwid + trio program pays before doing anything.
"""

from __future__ import annotations

import argparse
import functools
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from asks import contract
from asks.cli.run import WARM_UP_DELAY
from asks.core.model import Option, Question, QuestionRef, QuestionSpec, question_id
from asks.store.entries import ChatMessage, Entry, GroupAsked, Record, ToolResult
from bench import repl_bench as rb
from bench import workload
from bench._common import Row, disk_tempdir, header, median, python_argv_quick, report

NAME = "floor"
BARE = [sys.executable, "-m", "bench.bare_app"]
PENDING = (1, 100, 1000)
LONG_ENTRIES = 100_000
RATIO = 1.15
LAUNCH_TIMEOUT = 120  # s: the first resume of the long session indexes its 100k lines
CALLGRIND_TIMEOUT = 300.0  # s: a launch or a screen under callgrind
Keys = dict[str, tuple[list[float], float]]


def cpu_seconds(pid: int) -> float:
    """CPU time of ``pid`` so far, in ns resolution (/proc/PID/schedstat: time on a CPU)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def idle(term: rb.Term, ready_ns: int) -> None:
    """Wait until the program is idle: past asks' background warm-up (it starts
    ``WARM_UP_DELAY`` after the loop, which runs by ``ready_ns``, when the screen was first
    complete: the journal's encoders, the provider's client), then until it uses under 2 ms of
    CPU in 100 ms. Work left from the launch is not a key's (both programs wait alike)."""
    while time.perf_counter_ns() - ready_ns < (WARM_UP_DELAY + 0.5) * 1e9:
        time.sleep(0.05)
    for _ in range(100):
        before = cpu_seconds(term.pid)
        time.sleep(0.1)
        if cpu_seconds(term.pid) - before < 0.002:
            return


def measured(term: rb.Term, keys: Callable[[rb.Term, int], list[float]], count: int) -> Keys:
    before = cpu_seconds(term.pid)
    lat = keys(term, count)
    return {"": (lat, (cpu_seconds(term.pid) - before) * 1000 / count)}


def both_keys(term: rb.Term, count: int, ready_ns: int) -> dict[str, tuple[list[float], float]]:
    """Once idle, the chat key, then Shift+Tab and the panel key (option 1 shown first)."""
    idle(term, ready_ns)
    chat = measured(term, rb.type_keys, count)[""]
    term.write(rb.SHIFT_TAB)
    term.until(rb.cursor_on(1))
    term.settle(0.05)
    panel = measured(term, rb.move_cursor, count)[""]
    return {"chat": chat, "panel": panel}


def bare_keys(env: dict[str, str], count: int) -> Keys:
    with rb.running(BARE, env) as term:
        term.until(rb.editor_drawn)
        ready_ns = time.perf_counter_ns()
        term.settle(0.05)
        out = both_keys(term, count, ready_ns)
        term.end([rb.CTRL_C])
    return out


def tree_env(env: dict[str, str], tree: Path | None) -> dict[str, str]:
    """``env`` with asks imported from ``tree`` (another checkout), or as it is."""
    return env if tree is None else {**env, "PYTHONPATH": str(tree)}


def ab(tree: Path, rounds: int, keys: int) -> list[Row]:
    """Bare, asks from ``tree`` and asks from here, interleaved: CPU per key, medians."""
    header(
        "floor_bench --ab",
        f"CPU per key through the pty: bare app, asks of {tree} (before), asks here (after); "
        f"a fresh session with one pending question; {rounds} rounds x {keys} keys",
    )
    rows: list[Row] = []
    cpu: dict[str, list[float]] = {}
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        env = rb.child_env(work)

        def fresh(of: Path | None, session: int) -> Keys:
            return asks_keys(fresh_argv(work, session, 1), tree_env(env, of), 1, keys)

        for run in range(rounds):
            programs: list[tuple[str, Callable[[], Keys]]] = [
                ("bare", functools.partial(bare_keys, env, keys)),
                ("before", functools.partial(fresh, tree, run)),
                ("after", functools.partial(fresh, None, run + rounds)),
            ]
            for name, program in programs[run % 3 :] + programs[: run % 3]:
                for key, (_lat, per_key) in program().items():
                    cpu.setdefault(f"{name} {key}", []).append(per_key)
    for key in ("chat", "panel"):
        bare = median(cpu[f"bare {key}"])
        report(rows, Row(NAME, f"A/B {key} key CPU: bare", f"{bare:.3f} ms"))
        for name in ("before", "after"):
            value = median(cpu[f"{name} {key}"])
            runs = " ".join(f"{v:.2f}" for v in cpu[f"{name} {key}"])
            report(
                rows,
                Row(
                    NAME,
                    f"A/B {key} key CPU: {name}",
                    f"{value:.3f} ms ({value / bare:.2f}x; {runs})",
                ),
            )
    return rows


def instructions_per_key(
    argv: list[str], env: dict[str, str], ready: rb.Pred, keys: int, key: str
) -> float:
    """Instructions per ``key`` (chat or panel) of ``argv`` under callgrind (the program's own,
    not the kernel's): counted from the program idle to the last key's screen."""
    with tempfile.TemporaryDirectory() as out:
        grind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p"]
        with rb.running([*grind, *argv], env) as term:
            term.until(ready, CALLGRIND_TIMEOUT)
            time.sleep(8)  # past the warm-up, which callgrind runs ~50x slower
            if key == "panel":
                term.write(rb.SHIFT_TAB)
                term.until(rb.cursor_on(1), CALLGRIND_TIMEOUT)
                term.settle(0.5)
            control = ["callgrind_control", "--zero", str(term.pid)]
            subprocess.run(control, check=True, capture_output=True)
            typed = (rb.move_cursor if key == "panel" else rb.type_keys)(term, keys)
            control[1] = "--dump=keys"
            subprocess.run(control, check=True, capture_output=True)
            term.end([rb.CTRL_C, rb.CTRL_C], timeout=CALLGRIND_TIMEOUT)
        dumped = next(Path(out).glob("cg.*.1")).read_text()
    total = next(line for line in dumped.splitlines() if line.startswith("summary:"))
    return int(total.split()[1]) / len(typed)


def instructions(tree: Path | None, keys: int) -> list[Row]:
    """Instructions per key, chat and panel: bare, asks (and asks of ``tree``), one run each."""
    header(
        "floor_bench --instructions",
        f"user-space instructions per key under callgrind, {keys} keys: bare app, asks"
        + (f" of {tree} (before) and here (after)" if tree else "")
        + "; a fresh session with one pending question",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        env = rb.child_env(work)
        trees = [("before", tree, 1), ("after", None, 0)] if tree else [("asks", None, 0)]
        for key in ("chat", "panel"):
            bare = instructions_per_key(BARE, env, rb.editor_drawn, keys, key)
            report(rows, Row(NAME, f"{key} key instructions: bare", f"{bare / 1e6:.2f} M"))
            for name, of, session in trees:
                argv = fresh_argv(work, session + (2 if key == "panel" else 0), 1)
                count = instructions_per_key(argv, tree_env(env, of), rb.settled_with(1), keys, key)
                value = f"{count / 1e6:.2f} M ({count / bare:.2f}x bare)"
                report(
                    rows,
                    Row(
                        NAME,
                        f"{key} key instructions: {name}",
                        value,
                        f"≤ {RATIO}x bare",
                        count / bare <= RATIO,
                    ),
                )
    return rows


def asks_keys(argv: list[str], env: dict[str, str], pending: int, count: int) -> Keys:
    with rb.running(argv, env) as term:
        term.until(rb.settled_with(pending), LAUNCH_TIMEOUT)
        ready_ns = time.perf_counter_ns()
        term.settle(0.05)
        before = term.nbytes
        term.write(rb.SHIFT_TAB)  # into the panel and back: its first frames are drawn once
        term.until(lambda t: t.nbytes > before and rb.panel_focused(t))
        term.write(rb.SHIFT_TAB)
        term.settle(0.1)
        out = both_keys(term, count, ready_ns)
        rb.quit_asks(term, rb.Samples())
    return out


def fresh_argv(work: Path, run: int, pending: int) -> list[str]:
    questions = [
        rb.question(f"Floor bench question {i:04d}: which option?", f"F{i}") for i in range(pending)
    ]
    script = rb.start_script(work / f"floor-{run}-{pending}.toml", "Floor bench.", questions)
    return rb.asks_argv(script, work / f"data-{run}-{pending}")


def long_session(data_dir: Path) -> None:
    """A journal of :data:`LONG_ENTRIES` entries (question cycles, all settled) ending with
    one async question still pending, as the agent journals it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    records = workload.records(LONG_ENTRIES - 3)
    seq = records[-1].seq + 1
    call_id, incarnation = "floor-pending", seq + 1
    options = tuple(Option(label, f"option {label.lower()}") for label in ("Alpha", "Beta"))
    spec = QuestionSpec("Floor bench question: which option?", "Floor", options)
    ref = QuestionRef(question_id(workload.SESSION, call_id, 0), incarnation)
    question = Question(ref, "g-floor-pending", 0, spec)
    env = contract.queued_result(call_id, (question,))
    call = {"id": call_id, "name": contract.TOOL_NAME, "arguments": "{}"}
    tail: list[Entry] = [
        ChatMessage("assistant", "One more question.", (call,)),
        GroupAsked(call_id, "g-floor-pending", (question,), False),
        ToolResult(call_id, env.outcome, env.text, env.details),
    ]
    ts = records[-1].ts
    records += [Record(seq + i, ts + i + 1, entry) for i, entry in enumerate(tail)]
    workload.write_journal(data_dir, workload.SESSION, records)


def long_argv(work: Path) -> list[str]:
    data_dir = work / "long"
    if not data_dir.exists():
        t0 = time.perf_counter()
        long_session(data_dir)
        print(
            f"  resumed session: {LONG_ENTRIES:,} entries written "
            f"in {time.perf_counter() - t0:.0f} s"
        )
    script = rb.start_script(work / "long.toml", "Resumed.", [])
    return [*rb.asks_argv(script, data_dir), "--resume", workload.SESSION]


def run_once(
    env: dict[str, str], work: Path, run: int, keys: int, into: dict[str, list[float]]
) -> None:
    """One interleaved round: floor, bare, asks at every size."""
    into.setdefault("floor", []).append(rb.pty_floor(env, 30, raw=True))

    def fresh(pending: int) -> Keys:
        return asks_keys(fresh_argv(work, run, pending), env, pending, keys)

    programs: list[tuple[str, Callable[[], Keys]]] = [("bare", lambda: bare_keys(env, keys))]
    for n in PENDING:
        programs.append((f"{n}", functools.partial(fresh, n)))
    programs.append(("100k", lambda: asks_keys(long_argv(work), env, 1, keys)))
    for name, program in programs[run % 2 :] + programs[: run % 2]:  # alternate who goes first
        for key, (lat, cpu) in program().items():
            into.setdefault(f"{name} {key}", []).extend(lat)
            into.setdefault(f"{name} {key} cpu", []).append(cpu)


def summarize(rows: list[Row], samples: dict[str, list[float]]) -> None:
    floor = median(samples["floor"])
    report(rows, Row(NAME, "pty floor (cat, raw)", f"{floor:.2f} ms"))
    sizes = [(f"{n}", f"{n:,} pending") for n in PENDING] + [("100k", "100k-entry resume")]
    for key in ("chat", "panel"):
        bare_above = median(samples[f"bare {key}"]) - floor
        bare_cpu = median(samples[f"bare {key} cpu"])
        report(
            rows,
            Row(
                NAME, f"bare, {key} key: above floor / CPU", f"{bare_above:.2f} / {bare_cpu:.2f} ms"
            ),
        )
        for name, label in sizes:
            above = median(samples[f"{name} {key}"]) - floor
            cpu = median(samples[f"{name} {key} cpu"])
            ratio = max(above / bare_above, cpu / bare_cpu)
            report(
                rows,
                Row(
                    NAME,
                    f"asks, {key} key, {label}: above floor / CPU",
                    f"{above:.2f} / {cpu:.2f} ms ({above / bare_above:.2f}× / "
                    f"{cpu / bare_cpu:.2f}×)",
                    f"≤ {RATIO}× bare",
                    ratio <= RATIO,
                ),
            )


def main(quick: bool = False) -> list[Row]:
    header(
        "floor_bench" + (" (quick)" if quick else ""),
        "key → screen and CPU per key, chat key and panel key (Down/Up): cat floor, a bare "
        "trio + urwid screen, asks with 1 / 100 / 1,000 pending and a 100k-entry resume, "
        "interleaved, through a real pty",
    )
    rows: list[Row] = []
    runs, keys = (2, 40) if quick else (5, 80)
    samples: dict[str, list[float]] = {}
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        env = rb.child_env(work)
        for run in range(runs):
            run_once(env, work, run, keys, samples)
    summarize(rows, samples)
    return rows


if __name__ == "__main__":
    if "--ab" in sys.argv or "--instructions" in sys.argv:
        parser = argparse.ArgumentParser(prog="python -m bench.floor_bench")
        parser.add_argument("--ab", type=Path, metavar="TREE")
        parser.add_argument("--instructions", action="store_true")
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--keys", type=int)
        options = parser.parse_args()
        if options.instructions:
            instructions(options.ab, options.keys or 100)
        else:
            ab(options.ab, options.rounds, options.keys or 200)
    else:
        main(python_argv_quick())
