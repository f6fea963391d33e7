"""A real crash test: SIGKILL a process that appends to a journal, many times over.

Each round starts ``crash_child.py`` on the same session, waits until the journal is open, reads
the child's acknowledgements as they come and kills it with SIGKILL right after the n-th one (n
drawn per round from a seeded generator). The child prints a seq only after ``append`` returned
and goes straight on with the next append, so every printed seq is an acknowledgement and the
kill lands somewhere in the steps that follow (inside a multi-page write, between two appends).
The kill points are counted in the child's progress, not in time, so what a round covers is the
same on a fast and on a loaded machine: at least n acknowledged appends. After each round the
session is reopened here and must hold every acknowledged entry, intact, with contiguous seqs
and no torn line left in the file.

A second test does the same with a whole host (``crash_host_child.py``: drain feedback, ask,
answer; each printed line is one step) and checks that no acknowledged answer is lost and each
is delivered exactly once.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from support.crash_child import make_entry
from support.paths import SUPPORT

from asks.host.host import QuestionHost
from asks.store.entries import (
    FeedbackDelivered,
    Record,
    Resolved,
    SessionStarted,
    ToolResult,
    decode,
)
from asks.store.journal import Journal, read_records

ROUNDS = 40
MAX_STEPS = 8  # a round kills the child right after its n-th step, n in 1..MAX_STEPS
PROGRESS_TIMEOUT = 30  # s without a single step from the child: it is stuck, not slow
SEED = 20241129
SID = "crash"
CHILD = SUPPORT / "crash_child.py"
HOST_CHILD = SUPPORT / "crash_host_child.py"
HOST_ROUNDS = 30
ROOT = Path(__file__).resolve().parents[1]


def child_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def run_and_kill(data_dir: Path, steps: int) -> tuple[int, list[int]]:
    """One round: returns the child's ``next_seq`` at open and the seqs it acknowledged."""
    ready, lines = spawn_and_kill(CHILD, data_dir, steps)
    return int(ready.split()[1]), [int(line) for line in lines]


def spawn_and_kill(child: Path, data_dir: Path, steps: int) -> tuple[bytes, list[bytes]]:
    """Start ``child`` on the session, SIGKILL it right after it reported its ``steps``-th step
    (one line each, after the ready line); return its ready line and every complete line it
    printed after it (at least ``steps``: it goes on until the signal lands)."""
    proc = subprocess.Popen(
        [sys.executable, str(child), str(data_dir), SID],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
        bufsize=0,
    )
    assert proc.stdout is not None
    try:
        seen = read_lines_until(proc, steps + 1)
        proc.send_signal(signal.SIGKILL)
        rest, err = proc.communicate(timeout=PROGRESS_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err.decode(errors="replace")
    lines = (seen + rest).split(b"\n")[:-1]  # a line cut short by the kill acknowledges nothing
    if not lines or not lines[0].startswith(b"ready"):
        pytest.fail(f"child did not get ready: {lines[:1]!r}\n{err.decode(errors='replace')}")
    assert len(lines) > steps, "killed before the step it was killed after"
    return lines[0], lines[1:]


def read_lines_until(proc: subprocess.Popen[bytes], count: int) -> bytes:
    """The child's raw output up to (at least) its ``count``-th complete line."""
    assert proc.stdout is not None
    fd, seen = proc.stdout.fileno(), b""
    while seen.count(b"\n") < count:
        readable, _, _ = select.select([fd], [], [], PROGRESS_TIMEOUT)
        chunk = os.read(fd, 65536) if readable else b""
        if not chunk:  # no progress at all, or the child exited
            proc.kill()
            _, err = proc.communicate(timeout=PROGRESS_TIMEOUT)
            pytest.fail(f"child stopped after {seen!r}\n{err.decode(errors='replace')}")
        seen += chunk
    return seen


@pytest.mark.slow
def test_sigkill_never_loses_an_acknowledged_append(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    data_dir = tmp_path / "sessions"
    Journal.create(data_dir=data_dir, session_id=SID).close()
    path = data_dir / f"{SID}.jsonl"
    acknowledged: list[int] = []
    torn_tails = kill_steps = 0
    for round_ in range(ROUNDS):
        steps = rng.randint(1, MAX_STEPS)
        kill_steps += steps
        next_seq, acked = run_and_kill(data_dir, steps)
        assert len(acked) >= steps, f"round {round_}"
        # The child continued after everything acknowledged before, with no reuse of seqs.
        assert next_seq > max(acknowledged, default=0), f"round {round_}"
        assert acked == list(range(next_seq, next_seq + len(acked))), f"round {round_}"
        acknowledged += acked

        journal, records = Journal.open(SID, data_dir=data_dir)
        with journal:
            torn_tails += any("torn last line" in w for w in journal.warnings)
            assert all("torn last line" in w for w in journal.warnings), journal.warnings
            seqs = [r.seq for r in records]
            assert seqs == list(range(len(records))), f"round {round_}: seqs not contiguous"
            assert set(acknowledged) <= set(seqs), f"round {round_}: acknowledged seq lost"
            assert journal.next_seq == len(records)
            assert isinstance(records[0].entry, SessionStarted)
            for record in records[1:]:
                assert record.entry == make_entry(record.seq), f"seq {record.seq} differs"

        raw = path.read_bytes()
        assert raw.endswith(b"\n"), f"round {round_}: torn line left after open"
        assert [decode(line).seq for line in raw.split(b"\n")[:-1]] == seqs

    assert len(acknowledged) >= kill_steps >= ROUNDS
    assert acknowledged == sorted(set(acknowledged))
    print(
        f"{ROUNDS} kills after {kill_steps} steps, {len(acknowledged)} acknowledged appends, "
        f"{len(seqs)} lines, {torn_tails} torn tails repaired"
    )


def refs_by_kind(records: list[Record]) -> tuple[set[str], Counter[str]]:
    """Labels of resolved units, and how many receipts name each unit."""
    resolved: set[str] = set()
    receipts: Counter[str] = Counter()
    for record in records:
        entry = record.entry
        if isinstance(entry, Resolved):
            resolved.update(f"{r.ref.id}:{r.ref.incarnation}" for r in entry.resolutions)
        elif isinstance(entry, FeedbackDelivered | ToolResult):
            receipts.update(f"{r.id}:{r.incarnation}" for r in entry.delivered)
    return resolved, receipts


@pytest.mark.slow
def test_sigkill_host_loses_no_answer_and_delivers_each_once(tmp_path: Path) -> None:
    """The host under SIGKILL: acknowledged answers survive, each is delivered exactly once."""
    rng = random.Random(SEED + 1)
    data_dir = tmp_path / "sessions"
    answered: set[str] = set()
    delivered: list[str] = []
    for round_ in range(HOST_ROUNDS):
        # The child never prints two "delivered" lines in a row, so 2 steps hold an answer.
        _, lines = spawn_and_kill(HOST_CHILD, data_dir, rng.randint(2, MAX_STEPS))
        for line in lines:
            kind, *labels = line.decode().split()
            (answered.update if kind == "answered" else delivered.extend)(labels)
        resolved, receipts = refs_by_kind(read_records(SID, data_dir=data_dir))
        assert answered <= resolved, f"round {round_}: an acknowledged answer was lost"
        assert all(n == 1 for n in receipts.values()), f"round {round_}: delivered twice"
        assert set(delivered) <= set(receipts), f"round {round_}: a receipt was lost"
    assert len(answered) >= HOST_ROUNDS, "a round ended without an acknowledged answer"
    assert len(delivered) == len(set(delivered)), "the agent was told something twice"

    journal, records = Journal.open(SID, data_dir=data_dir)
    with journal:
        host = QuestionHost(journal, records)
        host.agent_port.turn_started()
        while host.agent_port.take_feedback() is not None:
            pass
    resolved, receipts = refs_by_kind(read_records(SID, data_dir=data_dir))
    assert resolved and all(receipts[label] == 1 for label in resolved), "not exactly once"
    print(
        f"{HOST_ROUNDS} kills, {len(answered)} acknowledged answers, {len(delivered)} "
        f"acknowledged deliveries, {len(resolved)} answers on disk, each delivered once"
    )
