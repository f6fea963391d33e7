"""REPL benchmarks through a real pty read by pyte: launch, tool call → question visible,
keystroke → screen change with 1 / 10 / 100 pending tabs, resident memory; then
bench/enter_bench.py (Enter → question with 1 / 20 async pending).

Run: ``.venv/bin/python -m bench.repl_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

Every figure is the median over several runs; each run first measures its own pty floor: ``cat``
on a pty in raw mode (``stty raw -echo``), one byte written, time until ``cat`` has echoed it.
That is the same path a keystroke takes to ``asks`` and back (pty → process wakes → write → pty
→ our reader), minus the app's own work. The harness is the one of
``tests/support/pty_harness.py`` made leaner for timing: the reader thread takes
``perf_counter_ns`` as soon as ``read()`` returns a chunk, feeds pyte, and checks the watched
screen conditions against that chunk, so a figure is
"keystroke written → first chunk after which the screen shows the change", not a polling tick.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import attrs
import ptyprocess  # type: ignore[import-untyped, unused-ignore]
import pyte

from bench._common import (
    PROJECT_ROOT,
    Row,
    disk_tempdir,
    flat_ratio,
    header,
    median,
    percentile,
    python_argv_quick,
    report,
)

NAME = "repl"
COLS, ROWS = 100, 30
TAB_COUNTS = (1, 10, 100)
LAUNCH_SCRIPT = Path(__file__).with_name("repl_launch.toml")
LAUNCH_MARKER = "BENCH-REPLY-MARKER"
LAUNCH_QUESTION = "Bench launch question: which option?"

LAUNCH_GOAL_MS = 250.0
VISIBLE_GOAL_MS = 25.0
KEY_GOAL_MS = 0.3  # above the pty floor
FLAT = 1.5
RSS_GOAL_MIB = 50.0
TIMEOUT = 10.0

KEY_DOWN, KEY_UP, SHIFT_TAB, BACKSPACE, CTRL_C = b"\x1b[B", b"\x1b[A", b"\x1b[Z", b"\x7f", b"\x03"

Pred = Callable[["Term"], bool]


class BenchError(RuntimeError):
    """Something expected did not show up; the message holds the screen."""


# ---------------------------------------------------------------------------- the pty harness
class Term:
    """One process on a pty of COLS × ROWS, its output fed to a ``pyte.Screen``.

    ``watch`` registers named screen conditions; the reader thread stamps each one with the
    arrival time of the first chunk after which it holds (see module docstring).
    """

    def __init__(self, argv: Sequence[str], env: dict[str, str]) -> None:
        self.screen = pyte.Screen(COLS, ROWS)
        self._stream = pyte.ByteStream(self.screen)
        self._lock = threading.Lock()
        self._watching: dict[str, Pred] = {}
        self._hits: dict[str, int] = {}
        self._done = threading.Event()
        self._lines: list[str] = []
        self._lines_at = -1
        self.nbytes = 0
        self.last_ns = 0
        self.eof = False
        self.spawn_ns = time.perf_counter_ns()
        self.proc = ptyprocess.PtyProcess.spawn(
            list(argv), dimensions=(ROWS, COLS), env=env, cwd=str(PROJECT_ROOT)
        )
        self.pid = self.proc.pid
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        fd = self.proc.fd
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the other side of the pty is closed
                data = b""
            now = time.perf_counter_ns()
            with self._lock:
                if not data:
                    self.eof = True
                    self._done.set()
                    return
                self.nbytes += len(data)
                self.last_ns = now
                self._stream.feed(data)
                self._check(now)

    def _check(self, now: int) -> None:
        for name, pred in list(self._watching.items()):
            if pred(self):
                self._hits[name] = now
                del self._watching[name]
        if not self._watching:
            self._done.set()

    # -- reading (predicates run with the lock held) ------------------------------------------
    def lines(self) -> list[str]:
        if self._lines_at != self.nbytes:
            self._lines, self._lines_at = self.screen.display, self.nbytes
        return self._lines

    def text(self) -> str:
        with self._lock:
            return "\n".join(line.rstrip() for line in self.lines())

    def watch(self, preds: dict[str, Pred]) -> None:
        """Start watching; a condition already true now is an error (nothing to time)."""
        with self._lock:
            already = [name for name, pred in preds.items() if pred(self)]
            if already:
                raise BenchError(f"already on screen before the action: {already}\n{self.text_}")
            self._watching, self._hits = dict(preds), {}
            self._done.clear()

    @property
    def text_(self) -> str:  # lock already held
        return "\n".join(line.rstrip() for line in self.lines())

    def wait(self, timeout: float = TIMEOUT) -> dict[str, int]:
        """The chunk arrival time (ns) of every watched condition, once all hold."""
        self._done.wait(timeout)
        with self._lock:
            missing = list(self._watching)
            if missing:
                self._watching = {}
                why = "the process ended" if self.eof else f"not within {timeout:.0f} s"
                raise BenchError(f"{why}: {missing} never held; screen:\n{self.text_}")
            return dict(self._hits)

    def expect(self, preds: dict[str, Pred], data: bytes) -> tuple[int, dict[str, int]]:
        """Watch ``preds``, write ``data``; (write time, arrival time of each condition)."""
        self.watch(preds)
        t0 = self.write(data)
        return t0, self.wait()

    def until(self, pred: Pred, timeout: float = TIMEOUT) -> None:
        """Wait for a condition that may already hold (no timing)."""
        with self._lock:
            if pred(self):
                return
            self._watching, self._hits = {"until": pred}, {}
            self._done.clear()
        self.wait(timeout)

    def settle(self, quiet: float = 0.015, timeout: float = TIMEOUT) -> None:
        """Wait until nothing was written for ``quiet`` seconds."""
        deadline = time.monotonic() + timeout
        while (time.perf_counter_ns() - self.last_ns) / 1e9 < quiet:
            if time.monotonic() > deadline:
                raise BenchError(f"output did not settle:\n{self.text()}")
            time.sleep(quiet / 3)

    # -- writing and ending --------------------------------------------------------------------
    def write(self, data: bytes) -> int:
        t0 = time.perf_counter_ns()
        os.write(self.proc.fd, data)
        return t0

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise BenchError("no VmRSS in /proc/PID/status")

    def end(self, quit_keys: Sequence[bytes] = (), timeout: float = 5.0) -> int | None:
        """Send ``quit_keys`` (a clean quit), wait for the exit, else kill; the exit status."""
        with contextlib.suppress(OSError):
            for key in quit_keys:
                self.write(key)
                time.sleep(0.05)
        deadline = time.monotonic() + timeout
        while self.proc.isalive() and quit_keys and time.monotonic() < deadline:
            time.sleep(0.01)
        clean = not self.proc.isalive()
        if not clean:
            self.proc.terminate(force=True)
        self._reader.join(timeout=2)
        status = self.proc.exitstatus if clean else None
        self.proc.close(force=True)
        return status


@contextlib.contextmanager
def running(argv: Sequence[str], env: dict[str, str]) -> Iterator[Term]:
    """A Term that is killed on the way out, whatever happened."""
    term = Term(argv, env)
    try:
        yield term
    finally:
        if term.proc.isalive():
            term.end()


# ---------------------------------------------------------------------------- screen conditions
def status_row(term: Term) -> int | None:
    lines = term.lines()
    return next((i for i in range(len(lines) - 1, 0, -1) if lines[i].startswith("Asks:")), None)


def editor_line(term: Term) -> str | None:
    """The line above the status line (the chat editor's first row)."""
    row = status_row(term)
    return None if row is None else term.lines()[row - 1]


def editor_drawn(term: Term) -> bool:
    line = editor_line(term)
    return line is not None and line.startswith("› ")


def editor_shows(text: str) -> Pred:
    want = ("› " + text).rstrip()
    return lambda term: (editor_line(term) or "").rstrip() == want


def on_screen(text: str) -> Pred:
    return lambda term: any(text in line for line in term.lines())


def panel_shows(text: str) -> Pred:
    """``text`` on a row below the panel's title (not the transcript's "? asked" card)."""

    def pred(term: Term) -> bool:
        lines = term.lines()
        title = next((i for i, line in enumerate(lines) if "Questions (" in line), None)
        return title is not None and any(text in line for line in lines[title + 1 :])

    return pred


def settled_with(pending: int) -> Pred:
    """The status line says ``pending`` questions and the agent is idle."""

    def pred(term: Term) -> bool:
        row = status_row(term)
        if row is None:
            return False
        line = term.lines()[row].rstrip()
        return line.startswith(f"Asks: {pending or 'none'} pending") and line.endswith("idle")

    return pred


_OPTION = re.compile(r"^[│╎┃] › (\d+)\. ")


def panel_focused(term: Term) -> bool:
    return any(line.startswith("┌─ Questions") for line in term.lines())


def cursor_on(number: int) -> Pred:
    def pred(term: Term) -> bool:
        return any((m := _OPTION.match(line)) and int(m[1]) == number for line in term.lines())

    return pred


# ---------------------------------------------------------------------------- scripts
def _toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[ " + ", ".join(_toml(v) for v in value) + " ]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    return str(value)


def start_script(path: Path, say: str, questions: Sequence[dict[str, object]]) -> Path:
    """A script whose start step says ``say`` (no delay) and asks ``questions`` async, four per
    tool call, in one reply; then the turn ends and the agent idles."""
    lines = [
        'name = "repl-bench"',
        "[[step]]",
        'on = "start"',
        "[[step.reply]]",
        f"say = {_toml(say)}",
        "delay = 0",
    ]
    for first in range(0, len(questions), 4):
        args = {"blocking": False, "questions": list(questions[first : first + 4])}
        lines += ["[[step.reply.call]]", 'tool = "ask_user_question"', f"args = {_toml(args)}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def question(text: str, head: str) -> dict[str, object]:
    options = [
        {"label": label, "description": f"option {label.lower()}"}
        for label in ("Alpha", "Beta", "Gamma")
    ]
    return {"question": text, "header": head, "options": options}


# ---------------------------------------------------------------------------- one run
@attrs.define
class Samples:
    """Everything measured, per run (lists of ms) or pooled over runs (keystrokes)."""

    floor: list[float] = attrs.Factory(list)
    kernel_echo: list[float] = attrs.Factory(list)
    launch: list[float] = attrs.Factory(list)
    first_output: list[float] = attrs.Factory(list)
    call_visible: list[float] = attrs.Factory(list)
    start_visible: list[float] = attrs.Factory(list)
    enter_visible: list[float] = attrs.Factory(list)
    enter_marker: list[float] = attrs.Factory(list)
    keys: dict[tuple[str, int], list[float]] = attrs.Factory(dict)  # raw latency
    keys_above: dict[tuple[str, int], list[float]] = attrs.Factory(dict)  # minus the run floor
    rss_mib: dict[int, list[float]] = attrs.Factory(dict)
    unclean_exits: int = 0
    same_chunk: int = 0  # runs where the reply text and the question arrived in one chunk


def more_than(nbytes: int) -> Pred:
    """The terminal has read more than ``nbytes`` bytes."""
    return lambda term: term.nbytes > nbytes


def ns_ms(ns: float) -> float:
    return ns / 1e6


def pty_floor(env: dict[str, str], count: int, *, raw: bool) -> float:
    """Median ms of one byte written → echoed. ``raw``: echoed by ``cat`` itself (the process
    wakes, reads, writes); else by the kernel's line discipline (no process involved)."""
    shell = "stty raw -echo && printf R && exec cat" if raw else "printf R && exec cat"
    times = []
    with running(["sh", "-c", shell], env) as term:
        term.until(lambda t: t.nbytes >= 1)
        term.settle(0.03)
        for _ in range(count):
            before = term.nbytes
            t0, hits = term.expect({"echo": more_than(before)}, b"x")
            times.append(ns_ms(hits["echo"] - t0))
            time.sleep(random.uniform(0.002, 0.006))
        term.end()
    return median(times)


def asks_argv(script: Path, data_dir: Path) -> list[str]:
    return [sys.executable, "-m", "asks", "--script", str(script), "--data-dir", str(data_dir)]


def quit_asks(term: Term, samples: Samples) -> None:
    """Ctrl+C twice while idle quits (in the chat editor or the panel)."""
    if term.end([CTRL_C, CTRL_C]) != 0:
        samples.unclean_exits += 1


def run_launch(
    env: dict[str, str], work: Path, samples: Samples, keys: int = 0, floor: float = 0.0
) -> None:
    """Launch → editor drawn; typing with no questions (baseline); then one chat message:
    Enter → reply text / question in the panel."""
    with running(asks_argv(LAUNCH_SCRIPT, work / "data"), env) as term:
        term.watch({"output": lambda t: t.nbytes > 0, "editor": editor_drawn})
        hits = term.wait()
        samples.launch.append(ns_ms(hits["editor"] - term.spawn_ns))
        samples.first_output.append(ns_ms(hits["output"] - term.spawn_ns))
        term.until(settled_with(0))  # the opening (empty, fallback) turn has ended
        term.settle(0.05)
        lat = type_keys(term, keys)  # no questions: no panel on screen (baseline)
        samples.keys.setdefault(("chat", 0), []).extend(lat)
        samples.keys_above.setdefault(("chat", 0), []).extend(x - floor for x in lat)
        term.write(b"go")
        term.until(editor_shows("go"))
        term.settle()
        t0, hits = term.expect(
            {"marker": on_screen(LAUNCH_MARKER), "panel": panel_shows(LAUNCH_QUESTION)}, b"\r"
        )
        samples.enter_marker.append(ns_ms(hits["marker"] - t0))
        samples.enter_visible.append(ns_ms(hits["panel"] - t0))
        term.until(settled_with(1))
        quit_asks(term, samples)


def run_call_visible(env: dict[str, str], work: Path, run: int, samples: Samples) -> None:
    """Start step: a marker reply (no delay) whose tool call asks one async question."""
    marker = f"BENCH-CALL-MARKER-{run}-{random.randrange(10**6):06d}"
    text = f"Bench call question {run}-{random.randrange(10**6):06d}: which option?"
    script = start_script(work / f"call-{run}.toml", marker, [question(text, "Bench")])
    with running(asks_argv(script, work / "data"), env) as term:
        term.watch({"marker": on_screen(marker), "panel": panel_shows(text)})
        hits = term.wait()
        samples.call_visible.append(ns_ms(hits["panel"] - hits["marker"]))
        samples.same_chunk += hits["panel"] == hits["marker"]
        samples.start_visible.append(ns_ms(hits["panel"] - term.spawn_ns))
        term.until(settled_with(1))
        quit_asks(term, samples)


def type_keys(term: Term, count: int) -> list[float]:
    """``count`` keystrokes into the chat editor (letters up to 10, then backspaces back to
    empty, and again); each: ms from write() to the chunk showing the editor's new text."""
    typed, out, adding = "", [], True
    for k in range(count):
        if adding:
            key, typed = chr(ord("a") + k % 26), typed + chr(ord("a") + k % 26)
        else:
            key, typed = "\x7f", typed[:-1]
        t0, hits = term.expect({"key": editor_shows(typed)}, key.encode())
        out.append(ns_ms(hits["key"] - t0))
        adding = (adding and len(typed) < 10) or (not adding and not typed)
        term.settle()
        time.sleep(random.uniform(0.001, 0.005))
    if typed:  # leave the editor empty (untimed)
        term.write(BACKSPACE * len(typed))
        term.until(editor_shows(""))
        term.settle()
    return out


def move_cursor(term: Term, count: int) -> list[float]:
    """``count`` ↓/↑ in the panel; each: ms from write() to the "›" marker on the new row."""
    out = []
    for k in range(count):
        key, target = (KEY_DOWN, 2) if k % 2 == 0 else (KEY_UP, 1)
        t0, hits = term.expect({"cursor": cursor_on(target)}, key)
        out.append(ns_ms(hits["cursor"] - t0))
        term.settle()
        time.sleep(random.uniform(0.001, 0.005))
    return out


def run_tabs(
    env: dict[str, str], work: Path, samples: Samples, *, run: int, n: int, keys: int, floor: float
) -> None:
    """N pending async tabs, idle agent: typing in the chat editor, then ↓/↑ in the panel."""
    questions = [question(f"Bench question {i:03d}: which option?", f"Q{i}") for i in range(n)]
    script = start_script(work / f"tabs-{run}-{n}.toml", f"Asking {n} questions.", questions)
    with running(asks_argv(script, work / "data"), env) as term:
        term.until(settled_with(n))
        term.settle(0.05)
        chat = type_keys(term, keys)
        term.watch({"focused": panel_focused})
        term.write(SHIFT_TAB)
        term.wait()
        term.until(cursor_on(1))
        term.settle(0.05)
        panel = move_cursor(term, keys)
        samples.rss_mib.setdefault(n, []).append(term.rss_kib() / 1024)
        for mode, lat in (("chat", chat), ("panel", panel)):
            samples.keys.setdefault((mode, n), []).extend(lat)
            samples.keys_above.setdefault((mode, n), []).extend(x - floor for x in lat)
        quit_asks(term, samples)


def one_run(env: dict[str, str], work: Path, run: int, keys: int, samples: Samples) -> None:
    floor = pty_floor(env, 30, raw=True)
    samples.floor.append(floor)
    samples.kernel_echo.append(pty_floor(env, 30, raw=False))
    run_launch(env, work, samples, keys, floor)
    run_call_visible(env, work, run, samples)
    for n in TAB_COUNTS:
        run_tabs(env, work, samples, run=run, n=n, keys=keys, floor=floor)


# ---------------------------------------------------------------------------- import cost
def child_env(work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(
        TERM="xterm-256color",
        XDG_CONFIG_HOME=str(work / "config"),
        XDG_DATA_HOME=str(work / "xdg-data"),
    )
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT_ROOT), env.get("PYTHONPATH")) if p)
    return env


_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def parse_importtime(text: str) -> list[tuple[str, int, int, int]]:
    """(module, self µs, cumulative µs, depth) per line of ``-X importtime`` output."""
    out = []
    for line in text.splitlines():
        m = _IMPORT_LINE.match(line)
        if m:
            out.append((m[4], int(m[1]), int(m[2]), (len(m[3]) - 1) // 2))
    return out


def import_cost(rows: list[Row], env: dict[str, str], repeats: int) -> None:
    print('\n-- python -X importtime -c "import asks.cli" (the run with the median total)')
    runs = []
    for _ in range(repeats):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import asks.cli"],
            capture_output=True,
            text=True,
            env=env,
            cwd=PROJECT_ROOT,
            check=True,
        )
        parsed = parse_importtime(done.stderr)
        total = next(cum for name, _, cum, depth in parsed if name == "asks.cli" and depth == 0)
        runs.append((total, parsed))
    runs.sort(key=lambda r: r[0])
    total, parsed = runs[len(runs) // 2]
    report(rows, Row(NAME, "import asks.cli (-X importtime, cumulative)", f"{total / 1e3:.0f} ms"))
    by_package: dict[str, int] = {}
    for name, own, _, _ in parsed:
        top = name.split(".")[0]
        by_package[top] = by_package.get(top, 0) + own
    top5 = sorted(by_package.items(), key=lambda kv: -kv[1])[:5]
    print(
        "    top 5 packages by own import time: "
        + ", ".join(f"{name} {us_ / 1e3:.0f} ms" for name, us_ in top5)
    )
    modules = sorted(parsed, key=lambda r: -r[1])[:5]
    print(
        "    top 5 modules by self time:        "
        + ", ".join(f"{name} {own / 1e3:.1f} ms" for name, own, _, _ in modules)
    )
    firsts = [(name, cum) for name, _, cum, depth in parsed if depth == 1]
    firsts.sort(key=lambda r: -r[1])
    print(
        "    imports of asks.cli, cumulative:   "
        + ", ".join(f"{name} {cum / 1e3:.0f} ms" for name, cum in firsts[:5])
    )
    if any(name == "openai" or name.startswith("openai.") for name, *_ in parsed):
        print("    NOTE: openai is imported by `import asks.cli`")


def launch_imports(rows: list[Row], env: dict[str, str], work: Path, samples: Samples) -> None:
    """One extra launch with PYTHONPROFILEIMPORTTIME (stderr to a file): every module the
    process imported from start, through a chat turn asking a question, to quit."""
    log = work / "launch-imports.txt"
    argv = [
        "sh",
        "-c",
        'exec "$0" "$@" 2>"$BENCH_IMPORT_LOG"',
        *asks_argv(LAUNCH_SCRIPT, work / "data"),
    ]
    profiled = {**env, "PYTHONPROFILEIMPORTTIME": "1", "BENCH_IMPORT_LOG": str(log)}
    with running(argv, profiled) as term:
        term.until(editor_drawn)
        term.until(settled_with(0))
        term.write(b"go\r")
        term.until(panel_shows(LAUNCH_QUESTION))
        term.until(settled_with(1))
        quit_asks(term, samples)
    parsed = parse_importtime(log.read_text(encoding="utf-8", errors="replace"))
    names = {name for name, *_ in parsed}
    openai = sorted(n for n in names if n == "openai" or n.startswith("openai."))
    report(
        rows,
        Row(
            NAME,
            "openai imported (launch, a turn, quit)",
            "yes" if openai else f"no ({len(names)} modules)",
            "not imported",
            not openai,
        ),
    )


# ---------------------------------------------------------------------------- report
def report_keys(rows: list[Row], samples: Samples, mode: str, what: str) -> None:
    if (mode, 0) in samples.keys:
        above = samples.keys_above[(mode, 0)]
        report(
            rows, Row(NAME, f"{what}, N=0 (no panel): median − floor", f"{median(above):.3f} ms")
        )
    medians = []
    for n in TAB_COUNTS:
        raw, above = samples.keys[(mode, n)], samples.keys_above[(mode, n)]
        med = median(above)
        medians.append(median(raw))
        report(
            rows,
            Row(
                NAME,
                f"{what}, N={n}: median − floor",
                f"{med:.3f} ms",
                f"≤ {KEY_GOAL_MS} ms",
                med <= KEY_GOAL_MS,
            ),
        )
        report(
            rows, Row(NAME, f"  p99 − floor ({len(above)} keys)", f"{percentile(above, 99):.3f} ms")
        )
        report(rows, Row(NAME, "  raw median (incl. floor)", f"{median(raw):.3f} ms"))
    ratio = flat_ratio(medians)
    report(
        rows,
        Row(
            NAME,
            f"{what}: flatness (slowest/fastest N)",
            f"{ratio:.2f}x",
            f"flat: ≤ {FLAT}x",
            ratio <= FLAT,
        ),
    )


def summarize(rows: list[Row], s: Samples, runs: int) -> None:
    print(f"\n-- figures: median over {runs} runs (keystrokes: pooled over the runs)")
    report(
        rows, Row(NAME, "pty floor: cat echo (raw pty, via process)", f"{median(s.floor):.3f} ms")
    )
    report(rows, Row(NAME, "  kernel echo only (no process)", f"{median(s.kernel_echo):.3f} ms"))
    launch = median(s.launch)
    report(
        rows,
        Row(
            NAME,
            "launch → chat editor drawn",
            f"{launch:.0f} ms",
            f"≤ {LAUNCH_GOAL_MS:.0f} ms",
            launch <= LAUNCH_GOAL_MS,
        ),
    )
    report(rows, Row(NAME, "  spawn → first output", f"{median(s.first_output):.0f} ms"))
    report(rows, Row(NAME, "  runs (ms)", " ".join(f"{x:.0f}" for x in s.launch)))
    visible = median(s.call_visible)
    report(
        rows,
        Row(
            NAME,
            "call → visible (reply text → panel question)",
            f"{visible:.2f} ms",
            f"≤ {VISIBLE_GOAL_MS:.0f} ms",
            visible <= VISIBLE_GOAL_MS,
        ),
    )
    print(
        f"      reply text (delay = 0) and question came in the same pty chunk in "
        f"{s.same_chunk}/{runs} runs: the model emits\n"
        "      text and call with no checkpoint between, so urwid draws both in one frame. The\n"
        "      emit → frame time (validate, group_asked + tool_result appends with fsync, view\n"
        "      refreshes, render, pty) is inside the process; 'Enter → question' bounds it."
    )
    report(
        rows,
        Row(NAME, "  spawn → start-step question in panel", f"{median(s.start_visible):.0f} ms"),
    )
    report(rows, Row(NAME, "  Enter → reply text on screen", f"{median(s.enter_marker):.2f} ms"))
    report(
        rows,
        Row(NAME, "  Enter → question in panel (whole turn)", f"{median(s.enter_visible):.2f} ms"),
    )
    print(
        "\n-- keystroke → screen change (chat: letter/backspace echoed in the editor; "
        "panel: ↓/↑ moves the › marker)"
    )
    report_keys(rows, s, "chat", "key → chat editor")
    report_keys(rows, s, "panel", "key → panel cursor")
    print("\n-- resident memory (VmRSS of the asks process, panel entered)")
    for n in TAB_COUNTS:
        rss = median(s.rss_mib[n])
        if n == TAB_COUNTS[-1]:
            report(
                rows,
                Row(
                    NAME,
                    f"RSS, N={n} tabs, panel entered",
                    f"{rss:.1f} MiB",
                    f"≤ {RSS_GOAL_MIB:.0f} MiB",
                    rss <= RSS_GOAL_MIB,
                ),
            )
        else:
            report(rows, Row(NAME, f"  RSS, N={n} tabs", f"{rss:.1f} MiB"))
    if s.unclean_exits:
        print(f"  NOTE: {s.unclean_exits} asks processes did not quit on Ctrl+C Ctrl+C (killed)")


def main(quick: bool = False) -> list[Row]:
    runs, keys, repeats = (5, 10, 3) if quick else (7, 20, 5)
    header(
        "repl_bench" + (" (quick)" if quick else ""),
        f"the real `asks` under a {COLS}x{ROWS} pty read by pyte: launch, call → question "
        f"visible, keystroke → screen change with {'/'.join(map(str, TAB_COUNTS))} pending "
        f"tabs, VmRSS; {runs} runs, each with its own cat floor, {keys} keys per mode and N "
        "per run",
    )
    rows: list[Row] = []
    samples = Samples()
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        env = child_env(work)
        import_cost(rows, env, repeats)
        launch_imports(rows, env, work, samples)
        run_launch(env, work, samples, 2)  # warm-up: page cache and .pyc files; not counted
        samples = Samples(unclean_exits=samples.unclean_exits)
        for run in range(runs):
            one_run(env, work, run, keys, samples)
            print(
                f"  run {run + 1}/{runs}: floor {samples.floor[-1]:.3f} ms, "
                f"launch {samples.launch[-1]:.0f} ms, "
                f"call → visible {samples.call_visible[-1]:.2f} ms"
            )
        summarize(rows, samples, runs)
    from bench import enter_bench  # noqa: PLC0415 (it imports this module)

    rows += enter_bench.main(quick)  # Enter → question with 1 / 20 pending: its own launches
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
