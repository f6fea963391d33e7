"""Crash-test child: reopen a journal and append until killed.

Usage: ``python crash_child.py DATA_DIR SESSION_ID``. Prints ``ready NEXT_SEQ`` once the journal
is open, then one line per acknowledged append (its seq), flushed only after ``append`` returned.
The entry for each seq is :func:`make_entry` of that seq, so the parent can check contents too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.store.entries import ChatMessage, Entry, GroupAsked, Resolved
from asks.store.journal import Journal


def make_entry(seq: int) -> Entry:
    """The deterministic entry saved at ``seq``: mostly answers, some questions, some big text."""
    ref = QuestionRef(f"q-{seq:06x}", seq)
    if seq % 11 == 0:
        # Many pages long, so a SIGKILL can land inside the write itself.
        return ChatMessage("assistant", f"[{seq:08d} ünï]" * (2_000 + 1_000 * (seq % 7)))
    if seq % 5 == 0:
        spec = QuestionSpec(
            f"Question {seq}?", f"H{seq % 100}", (Option("Yes"), Option("No", "not now"))
        )
        question = Question(ref, f"g-{seq}", 0, spec)
        return GroupAsked(f"call-{seq}", f"g-{seq}", (question,), blocking=seq % 2 == 0)
    answer = Answer(AnswerKind.OPTION, (seq % 2,), notes=f"n{seq}")
    other = Resolution(QuestionRef(f"q-{seq:06x}b", seq), ResolutionKind.DECLINED)
    return Resolved((Resolution(ref, ResolutionKind.ANSWERED, answer), other))


def main(argv: list[str]) -> None:
    data_dir, session_id = Path(argv[1]), argv[2]
    journal, _records = Journal.open(session_id, data_dir=data_dir)
    out = sys.stdout
    out.write(f"ready {journal.next_seq}\n")
    out.flush()
    while True:
        record = journal.append(make_entry(journal.next_seq))
        out.write(f"{record.seq}\n")
        out.flush()


if __name__ == "__main__":
    main(sys.argv)
