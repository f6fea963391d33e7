"""Host benchmarks: panel command latency with 1 / 10 / 100 pending tabs, and one saved answer.

Run: ``.venv/bin/python -m bench.host_bench [--quick]`` (or all benchmarks: ``-m bench.run``).
"""

from __future__ import annotations

import functools
import random
import time
from pathlib import Path

from asks.core.model import QuestionRef
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.journal import Journal
from bench import workload
from bench._common import (
    Row,
    TimingFileOps,
    disk_tempdir,
    flat_ratio,
    header,
    median,
    ms,
    percentile,
    python_argv_quick,
    report,
    time_each,
    us,
)

NAME = "host"
TAB_COUNTS = (1, 10, 100)
READ_ONLY = (
    PanelCommand.NEXT_TAB,
    PanelCommand.PREV_TAB,
    PanelCommand.UP,
    PanelCommand.DOWN,
    PanelCommand.TOGGLE,
)
GOAL_NS = 100_000  # 0.1 ms
FLAT = 1.5


def question_args(rng: random.Random, index: int, *, multi: bool) -> dict[str, object]:
    """Arguments of one non-blocking call with one realistic question."""
    options = [
        {
            "label": f"{workload.sentence(rng, 1, 3)} #{m}",
            "description": workload.sentence(rng, 4, 12),
        }
        for m in range(rng.randint(3, 4))
    ]
    question = {
        "question": f"{workload.sentence(rng, 6, 18)} (question {index})?",
        "header": f"Topic {index}",
        "multiSelect": multi,
        "options": options,
    }
    return {"blocking": False, "questions": [question]}


class Setup:
    """A host on a fresh temp journal with ``n`` async questions (even: multi, odd: single)."""

    def __init__(self, data_dir: Path, n: int, tag: str) -> None:
        self.rng = random.Random(n)
        self.ops = TimingFileOps()
        self.journal = Journal.create(
            data_dir=data_dir, session_id=f"host-{tag}-{n}", file_ops=self.ops
        )
        self.host = QuestionHost(self.journal)
        self.calls = 0
        for _ in range(n):
            self.add(multi=self.calls % 2 == 0)
        assert self.host.panel_port.enter_panel() is None
        assert len(self.host.panel_port.tabs) == n

    def add(self, *, multi: bool) -> QuestionRef:
        call_id = f"c{self.calls}"
        reply = self.host.agent_port.start_call(
            call_id, question_args(self.rng, self.calls, multi=multi)
        )
        self.calls += 1
        assert not isinstance(reply, Exception) and getattr(reply, "outcome", None) == "queued", (
            reply
        )
        call = self.host.surface_port.projection.calls[call_id]
        return call.refs[0]

    def select(self, ref: QuestionRef) -> None:
        assert self.host.panel_port.enter_panel(ref.id) is None


def bench_commands(rows: list[Row], data_dir: Path, n: int, count: int) -> tuple[float, float]:
    """Median and p99 (ns) over every read-only command, with ``n`` pending tabs."""
    s = Setup(data_dir, n, "commands")
    host = s.host
    first = host.panel_port.tabs[0]
    assert isinstance(first, QuestionRef) and host.surface_port.question(first).spec.multi_select
    seq_before = s.journal.next_seq
    all_ns: list[int] = []
    print(f"  N={n} pending tabs:")
    for command in READ_ONLY:
        s.select(first)  # a multi-select question: UP/DOWN/TOGGLE all do work
        host.panel_port.set_cursor(0)
        times = time_each(functools.partial(host.panel_port.command, command), count)
        all_ns += times
        print(
            f"    {command.value:<12} median {us(median(times)):>10}   "
            f"p99 {us(percentile(times, 99)):>10}   max {us(max(times)):>10}"
        )
    assert s.journal.next_seq == seq_before, "a read-only command wrote to the journal"
    stats_ns = time_each(host.statistics, count)
    print(
        f"    {'statistics()':<12} median {us(median(stats_ns)):>10}   "
        f"p99 {us(percentile(stats_ns, 99)):>10}"
    )
    med, p99 = median(all_ns), percentile(all_ns, 99)
    report(rows, Row(NAME, f"command, N={n} tabs: median", us(med), "≤ 0.1 ms", med <= GOAL_NS))
    report(rows, Row(NAME, f"command, N={n} tabs: p99", us(p99), "≤ 0.1 ms", p99 <= GOAL_NS))
    s.journal.close()
    return med, p99


def bench_answers(rows: list[Row], data_dir: Path, n: int, count: int) -> None:
    """CONFIRM that saves one answer with notes (includes its fsync), with ``n`` other tabs."""
    s = Setup(data_dir, n, "answers")
    host = s.host
    totals, fsyncs = [], []
    clock = time.perf_counter_ns
    for _ in range(count):
        ref = s.add(multi=False)  # untimed: a fresh single-select question to answer
        s.select(ref)
        host.panel_port.command(PanelCommand.DOWN)
        host.panel_port.set_notes(workload.sentence(s.rng, 8, 20))
        before_seq, before_fsync = s.journal.next_seq, len(s.ops.fsync_ns)
        t0 = clock()
        host.panel_port.command(PanelCommand.CONFIRM)
        totals.append(clock() - t0)
        assert s.journal.next_seq == before_seq + 1, host.surface_port.notice
        fsyncs.append(sum(s.ops.fsync_ns[before_fsync:]))
        assert len(host.panel_port.tabs) == n
        assert host.agent_port.take_feedback() is not None  # untimed: drain, as a turn would
    med = median(totals)
    report(
        rows,
        Row(
            NAME,
            f"answer (CONFIRM+save), N={n}: median",
            ms(med),
            "≤ 5 ms (NOTES: 'a few ms')",
            med <= 5e6,
        ),
    )
    report(rows, Row(NAME, f"answer (CONFIRM+save), N={n}: p99", ms(percentile(totals, 99))))
    cpu = [t - f for t, f in zip(totals, fsyncs, strict=True)]
    report(
        rows,
        Row(
            NAME,
            f"  without its fsync, N={n}: median",
            us(median(cpu)),
            "≤ 0.1 ms",
            median(cpu) <= GOAL_NS,
        ),
    )
    s.journal.close()


def main(quick: bool = False) -> list[Row]:
    header(
        "host_bench" + (" (quick)" if quick else ""),
        "QuestionHost.command latency (NEXT_TAB, PREV_TAB, UP, DOWN, TOGGLE: no journal "
        "write) with 1 / 10 / 100 pending async tabs; one CONFIRM that saves an answer",
    )
    rows: list[Row] = []
    count = 1_000 if quick else 5_000
    answers = 15 if quick else 60
    with disk_tempdir() as (data_dir, where):
        print(f"filesystem: {where}")
        print(f"\n-- read-only commands: {count} of each command per N, time per command")
        medians = [bench_commands(rows, data_dir, n, count)[0] for n in TAB_COUNTS]
        ratio = flat_ratio(medians)
        report(
            rows,
            Row(
                NAME,
                "command flatness (slowest/fastest N)",
                f"{ratio:.2f}x",
                f"flat: ≤ {FLAT}x",
                ratio <= FLAT,
            ),
        )
        print(
            f"\n-- answer: CONFIRM on a single-select tab that saves (one Resolved line + "
            f"fsync), {answers} answers per N"
        )
        for n in TAB_COUNTS:
            bench_answers(rows, data_dir, n, answers)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
