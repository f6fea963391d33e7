"""One keystroke inside the process, phase by phase: key path, render, screen output.

Run: ``.venv/bin/python -m bench.key_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

The REPL screen (:class:`asks.widgets.app.ReplScreen`: transcript, the layer with the question
panel, chat editor, status line) is built on a real session and journal with N pending async
tabs (1 / 100 / 1,000) and a transcript of 2,000 lines (200 entries of 10 lines), and with one tab
and a transcript of 100,000 one-line entries. A real urwid raw
screen draws it at 120×40 onto a real pty whose other end a thread drains. Per key, three phases
are timed with ``perf_counter_ns``: **key** (``ReplScreen.keypress``: layer, keymap, host
command, the views' refresh), **render** (``ReplScreen.render``: the canvas of the whole
screen) and **draw** (``Screen.draw_screen``: canvas → escape sequences → ``write`` to the
pty). What this leaves out — input parsing and the trio/urwid loop around it — is in the pty
figures of :mod:`bench.repl_bench`. Keys: Down/Up in the panel (the cursor moves between two
option rows), and letters then Backspace in the chat editor. The same keys on the bare trio +
urwid screen (:mod:`bench.bare_app`: its boxed question's marker, its editor; urwid's own raw
screen) come first: each case's phases (the sum of the three medians) over the bare ones are the
figure with a goal (≤ 1.15×); the sum, not the median total, because urwid's own screen writes
more and now and then waits on the pty, which is the reader's pace, not CPU.

Draft saving is on, as in the REPL (:mod:`asks.host.keeper`): the keeper's writer task runs
beside the keys and the loop yields to it after every key, so the key phase includes what a
key costs it (a dirty mark) and its debounced writes happen while the run goes on (counted).
Each N also runs with saving off (no writer, no listener) right before, for the key phase
with and without it on a machine whose load drifts; **key hooks** times the two calls saving
adds to a key (the chat editor's dirty mark, the host listener) on their own.
A write itself is timed apart — **draft write**: one snapshot of N drafts (every tab holding
typed text, and the chat line) encoded (its share in brackets) and put in place (temp file,
rename), each write after a short pause as in use (writes are ≥ 0.5 s apart, so they start
cold) — and spread over the keys of one save interval at a fast typist's pace (15 keys/s) for
the **per key** figure: CPU the saving costs per key, though never on a key's own path.

Figures are medians over many keys; flatness is the slowest case over the fastest. Nothing
fails on time.
"""

from __future__ import annotations

import os
import pty
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import trio
import urwid

from asks.agent.scripted import parse_script
from asks.agent.transcript import EntryKind
from asks.cli.session import build_session
from asks.core.drafts import SavedDraft, SavedDrafts
from asks.core.focus import TYPING_GUARD
from asks.host.host import QuestionHost
from asks.host.keeper import SAVE_INTERVAL
from asks.store.draftfile import encode
from asks.store.journal import Journal
from asks.widgets.app import ReplScreen, palette
from asks.widgets.keymap import build_keymap
from asks.widgets.screen import AsksScreen
from bench import bare_app
from bench._common import (
    Row,
    disk_tempdir,
    flat_ratio,
    header,
    median,
    python_argv_quick,
    report,
)

NAME = "keys"
SIZE = (120, 40)
TAB_COUNTS = (1, 100, 1000)
TRANSCRIPT_ENTRIES, LINES_PER_ENTRY = 200, 10
LONG_TRANSCRIPT = 100_000  # entries of one line: the long-session case (1 tab)
# (tabs, transcript entries, lines per entry): every N with 2,000 lines, then the long one
CASES = (*((n, TRANSCRIPT_ENTRIES, LINES_PER_ENTRY) for n in TAB_COUNTS), (1, LONG_TRANSCRIPT, 1))
FLAT = 1.2
BARE_RATIO = 1.15  # goal: a key within 15 % of the same key on the bare screen
TYPIST_KEYS_PER_S = 15
WRITES_TIMED = 60
WRITE_GAP = 0.05  # seconds between timed writes (in use they are SAVE_INTERVAL apart)
IDLE_SCRIPT = 'name = "key-bench"\n[[step]]\non = "message"\n[[step.reply]]\nsay = "ok"\n'
Phases = dict[str, list[int]]


class Drain:
    """The far end of the screen's pty: ``cat`` (another process, like a terminal) reads and
    drops what the screen writes."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        self._cat = subprocess.Popen(
            ["cat"], stdin=self.master, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def close(self) -> None:
        os.close(self.slave)
        self._cat.wait()
        os.close(self.master)


class CountingScreen(AsksScreen):
    """asks' screen (the REPL's), counting the characters it writes (the bench's addition)."""

    written = 0

    def write(self, data: str) -> None:
        self.written += len(data)
        super().write(data)


def questions(n: int) -> list[dict[str, object]]:
    options = [
        {"label": label, "description": f"option {label.lower()}"}
        for label in ("Alpha", "Beta", "Gamma")
    ]
    return [
        {
            "question": f"Bench question {i:03d}: which option?",
            "header": f"Q{i}",
            "options": options,
        }
        for i in range(n)
    ]


def build(
    data_dir: Path, n: int, entries: int = TRANSCRIPT_ENTRIES, lines: int = LINES_PER_ENTRY
) -> ReplScreen:
    journal = Journal.create(data_dir=data_dir)
    session = build_session(journal, [], parse_script(IDLE_SCRIPT, "key-bench"), resumed=False)
    for first in range(0, n, 4):
        args = {"blocking": False, "questions": questions(n)[first : first + 4]}
        session.host.agent_port.start_call(f"call-{first}", args)
    for entry in range(entries):
        kind = EntryKind.USER if entry % 2 == 0 else EntryKind.AGENT
        text = "\n".join(
            f"entry {entry} line {line}: some words of a long transcript" for line in range(lines)
        )
        session.transcript.add(kind, text)
    return ReplScreen(session, build_keymap(), trio.current_time)


def timed_key(repl: urwid.Widget, screen: urwid.BaseScreen, key: str, out: Phases) -> None:
    t0 = time.perf_counter_ns()
    repl.keypress(SIZE, key)
    t1 = time.perf_counter_ns()
    canvas = repl.render(SIZE, focus=True)
    t2 = time.perf_counter_ns()
    screen.draw_screen(SIZE, canvas)
    t3 = time.perf_counter_ns()
    for name, value in (("key", t1 - t0), ("render", t2 - t1), ("draw", t3 - t2)):
        out.setdefault(name, []).append(value)
    out.setdefault("total", []).append(t3 - t0)


def chat_keys(k: int) -> str:
    cycle = k % 20
    return chr(ord("a") + cycle) if cycle < 10 else "backspace"


def panel_keys(k: int) -> str:
    return "down" if k % 2 == 0 else "up"


Case = tuple[int, int, int]  # pending tabs, transcript entries, lines per entry


def case_label(case: Case) -> str:
    n, entries, lines = case
    return f"{n} tabs, {entries * lines:,}-line transcript"


def run_bare_keys(mode: str, count: int) -> Phases:
    """The same keys on :mod:`bench.bare_app`'s screen (urwid's raw screen, the same pty)."""
    pile = bare_app.build()
    drain = Drain()
    screen = urwid.display.raw.Screen(
        input=os.fdopen(drain.slave, "rb", 0, closefd=False),
        output=os.fdopen(drain.slave, "w", closefd=False),
    )
    screen.get_cols_rows = lambda: SIZE  # type: ignore[method-assign]  # the pty has no size
    screen.start()
    try:
        screen.draw_screen(SIZE, pile.render(SIZE, focus=True))
        if mode == "panel":
            bare_app.toggle(pile)
        keys: Callable[[int], str] = panel_keys if mode == "panel" else chat_keys
        phases: Phases = {}
        for k in range(count // 10 + count):  # the first tenth warms up, not counted
            timed_key(pile, screen, keys(k), phases if k >= count // 10 else {})
        return phases
    finally:
        screen.stop()
        drain.close()


async def run_keys(
    data_dir: Path, case: Case, mode: str, count: int, saving: bool = True
) -> tuple[Phases, float, int]:
    """The phases of ``count`` keys, characters written per key, and the drafts writes."""
    repl = build(data_dir, *case)
    drain = Drain()
    screen = CountingScreen(
        input=os.fdopen(drain.slave, "rb", 0, closefd=False),
        output=os.fdopen(drain.slave, "w", closefd=False),
    )
    screen.register_palette(palette())
    screen.get_cols_rows = lambda: SIZE  # type: ignore[method-assign]  # the pty has no size
    screen.start()
    keeper = repl.session.host.panel_port.drafts
    try:
        async with trio.open_nursery() as nursery:
            if saving:
                nursery.start_soon(keeper.run)  # draft saving on, as in the REPL
            screen.draw_screen(SIZE, repl.render(SIZE, focus=True))
            if mode == "panel":
                repl.session.host.panel_port.enter_panel(None)
                await trio.sleep(TYPING_GUARD + 0.05)
                repl.session.host.panel_port.settle_guard(trio.current_time())
            keys: Callable[[int], str] = panel_keys if mode == "panel" else chat_keys
            phases: Phases = {}
            for k in range(count // 10):  # warm-up, not counted
                timed_key(repl, screen, keys(k), {})
                await trio.sleep(0)
            before, writes = screen.written, keeper.statistics().writes
            for k in range(count):
                timed_key(repl, screen, keys(k), phases)
                await trio.sleep(0)  # the writer task may run between keys, as in the REPL
            writes = keeper.statistics().writes - writes
            nursery.cancel_scope.cancel()
        return phases, (screen.written - before) / count, writes
    finally:
        screen.stop()
        drain.close()


def time_draft_writes(data_dir: Path, n: int) -> tuple[float, float]:
    """Median µs of one drafts write with N drafts (each tab's reply typed) and a chat line,
    and of encoding that snapshot alone."""
    repl = build(data_dir, n)
    host = repl.session.host
    for index, ref in enumerate(host.surface_port.projection.pending):
        host.panel_port.set_custom_text(f"a half-written answer for tab {index}", None, ref)
    writes, encodes = [], []
    for k in range(WRITES_TIMED):
        time.sleep(WRITE_GAP)
        repl.chat.set_text(f"a chat line that was typed but not sent yet {k}")
        t0 = time.perf_counter_ns()
        assert host.panel_port.drafts.save_now()
        t1 = time.perf_counter_ns()
        encode(
            repl.session.host._state.journal.session_id, SavedDrafts(questions=host_drafts(host))
        )
        encodes.append(time.perf_counter_ns() - t1)
        writes.append(t1 - t0)
    return median(writes) / 1000, median(encodes) / 1000


def host_drafts(host: QuestionHost) -> tuple[SavedDraft, ...]:
    return tuple(
        SavedDraft(ref, host.panel_port.draft(ref)) for ref in host.surface_port.projection.pending
    )


def measure(rows: list[Row], data_dir: Path, mode: str, count: int) -> None:
    totals = []
    print(
        f"\n-- {mode}: {count} keys per case; medians in µs (key / render / draw = total), "
        "characters written per key; the bare trio + urwid screen's same key first"
    )
    bare = {name: median(values) / 1000 for name, values in run_bare_keys(mode, count).items()}
    bare_sum = bare["key"] + bare["render"] + bare["draw"]
    value = (
        f"{bare['key']:.0f} / {bare['render']:.0f} / {bare['draw']:.0f} = {bare['total']:.0f} µs "
        f"(phases {bare_sum:.0f})"
    )
    report(rows, Row(NAME, f"bare {mode} key (bench.bare_app)", value))
    for case in CASES:
        where = data_dir / f"{mode}-{case[0]}-{case[1]}"
        off, _, _ = trio.run(
            run_keys, where.with_name(where.name + "-off"), case, mode, count, False
        )
        phases, written, writes = trio.run(run_keys, where, case, mode, count)
        med = {name: median(values) / 1000 for name, values in phases.items()}
        totals.append(med["total"])
        ratio = (med["key"] + med["render"] + med["draw"]) / bare_sum  # the phases: docstring
        value = (
            f"{med['key']:.0f} / {med['render']:.0f} / {med['draw']:.0f} = "
            f"{med['total']:.0f} µs ({ratio:.2f}× bare), {written:.0f} ch, {writes} writes"
        )
        goal = f"≤ {BARE_RATIO}× bare"
        report(rows, Row(NAME, f"{mode} key, {case_label(case)}", value, goal, ratio <= BARE_RATIO))
        report(
            rows,
            Row(
                NAME,
                f"{mode} key phase, {case_label(case)}, saving off / on",
                f"{median(off['key']) / 1000:.0f} / {med['key']:.0f} µs",
            ),
        )
    ratio = flat_ratio(totals)
    report(
        rows,
        Row(
            NAME,
            f"{mode} key flatness (slowest/fastest case)",
            f"{ratio:.2f}x",
            f"flat: ≤ {FLAT}x",
            ratio <= FLAT,
        ),
    )


def time_key_hooks(data_dir: Path, n: int) -> float:
    """Median ns of what saving adds to one key: the dirty mark and the host listener."""
    keeper = build(data_dir, n).session.host.panel_port.drafts
    samples = []
    for _ in range(20_000):
        t0 = time.perf_counter_ns()
        keeper.chat_changed()
        keeper._host_changed()  # what host.subscribe calls after a change (bench-only access)
        samples.append(time.perf_counter_ns() - t0)
    return median(samples)


def measure_draft_writes(rows: list[Row], data_dir: Path) -> None:
    keys_per_write = TYPIST_KEYS_PER_S * SAVE_INTERVAL
    print(
        f"\n-- draft saving: what it adds to a key; one write (N drafts + the chat line, µs "
        f"(encoding)), and that write spread over the {keys_per_write:.1f} keys of one "
        f"{SAVE_INTERVAL} s interval at {TYPIST_KEYS_PER_S} keys/s"
    )
    for n in TAB_COUNTS:
        hooks = time_key_hooks(data_dir / f"hooks-{n}", n)
        report(rows, Row(NAME, f"key hooks of draft saving, {n} tabs", f"{hooks:.0f} ns"))
    for n in TAB_COUNTS:
        write, encoding = time_draft_writes(data_dir / f"writes-{n}", n)
        report(rows, Row(NAME, f"draft write, {n} drafts", f"{write:.0f} µs ({encoding:.0f})"))
        report(
            rows, Row(NAME, f"draft saving per key, {n} drafts", f"{write / keys_per_write:.1f} µs")
        )


def main(quick: bool = False) -> list[Row]:
    header(
        "key_bench" + (" (quick)" if quick else ""),
        "one key in process: ReplScreen.keypress, render, raw Screen.draw_screen onto a pty "
        f"({SIZE[0]}×{SIZE[1]}), 1 / 100 / 1,000 pending tabs and a 100k-entry transcript, "
        "against the bare trio + urwid screen's same key",
    )
    rows: list[Row] = []
    count = 300 if quick else 1500
    with disk_tempdir() as (data_dir, where):
        print(f"filesystem: {where}")
        for mode in ("panel", "chat"):
            measure(rows, data_dir, mode, count)
        measure_draft_writes(rows, data_dir)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
