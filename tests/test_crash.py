"""A real crash test: SIGKILL a process that appends to a journal, many times over.

Each round starts ``crash_child.py`` on the same session, waits until the journal is open, lets
it append for a random 0-30 ms and kills it with SIGKILL. The child prints a seq only after
``append`` returned, so every printed seq is an acknowledgement. After each round the session is
reopened here and must hold every acknowledged entry, intact, with contiguous seqs and no torn
line left in the file.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crash_child import make_entry

from asks.entries import SessionStarted, decode
from asks.journal import Journal

ROUNDS = 40
MAX_DELAY = 0.030
SEED = 20241129
SID = "crash"
CHILD = Path(__file__).with_name("crash_child.py")
ROOT = Path(__file__).resolve().parents[1]


def child_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def run_and_kill(data_dir: Path, delay: float) -> tuple[int, list[int]]:
    """One round: returns the child's ``next_seq`` at open and the seqs it acknowledged."""
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(data_dir), SID],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    assert proc.stdout is not None
    try:
        readable, _, _ = select.select([proc.stdout], [], [], 15)
        ready = proc.stdout.readline() if readable else b""
        if not ready.startswith(b"ready "):
            proc.kill()
            _, err = proc.communicate(timeout=10)
            pytest.fail(f"child did not get ready: {ready!r}\n{err.decode(errors='replace')}")
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err.decode(errors="replace")
    complete_lines = out.split(b"\n")[:-1]  # a line cut short by the kill acknowledges nothing
    return int(ready.split()[1]), [int(line) for line in complete_lines]


@pytest.mark.slow
def test_sigkill_never_loses_an_acknowledged_append(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    data_dir = tmp_path / "sessions"
    Journal.create(data_dir=data_dir, session_id=SID).close()
    path = data_dir / f"{SID}.jsonl"
    acknowledged: list[int] = []
    torn_tails = 0
    for round_ in range(ROUNDS):
        next_seq, acked = run_and_kill(data_dir, rng.uniform(0, MAX_DELAY))
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

    assert len(acknowledged) >= ROUNDS, "the children barely appended: test is vacuous"
    assert acknowledged == sorted(set(acknowledged))
    print(
        f"{ROUNDS} kills, {len(acknowledged)} acknowledged appends, "
        f"{len(seqs)} lines, {torn_tails} torn tails repaired"
    )
