"""A resumed hub session retells its journal from the end, on demand, with the lines told
all at once.

:class:`~asks.hub.narration.RetoldHistory` (the transcript's history of a resumed ``asks hub``)
finds the records it tells by their kinds and tells each only when the person scrolls up to
it. Checked against :func:`~asks.hub.narration.retold` (every line at once) on random hub
journals (hypothesis): agents asking (waiting or not), waits given up, notes, answers given,
questions of the session's own agent between; the journal reopened with its checkpoint (the
records not built) or as a plain list, the history read in chunks of any size, and the
session going on (answers, withdrawals) before the older lines are asked for.
"""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from support.journals import SID, NoFsync

from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.host.hub import RECIPIENT_PREFIX
from asks.hub.narration import Retold, RetoldHistory, retold
from asks.store.entries import (
    Entry,
    FeedbackOffered,
    GroupAsked,
    NoteSent,
    OfferDelivered,
    Record,
    Resolved,
    ToolResult,
    Withdrawn,
)
from asks.store.journal import Journal
from asks.store.projection import Projection
from asks.store.records import Records

AGENTS = ("builder", "planner", "")  # "": the session's own agent


def asked(n: int, agent: str, count: int, blocking: bool) -> GroupAsked:
    refs = [QuestionRef(f"q-{n}-{i}", 0) for i in range(count)]
    spec = QuestionSpec(f"Question {n}?", f"H{n}", (Option("A"), Option("B")))
    recipient = RECIPIENT_PREFIX + agent if agent else None
    call = f"{recipient}:call-{n}" if recipient else f"call-{n}"
    questions = tuple(
        Question(ref, f"g-{n}", i, spec, agent or None, recipient) for i, ref in enumerate(refs)
    )
    return GroupAsked(call, f"g-{n}", questions, blocking)


def step(n: int, kind: int, agent: str, count: int) -> list[Entry]:
    """One step of a hub session (``kind`` picks what happens after the asking)."""
    group = asked(n, agent, count, blocking=kind % 2 == 0)
    refs = tuple(q.ref for q in group.questions)
    entries: list[Entry] = [group]
    match kind:
        case 0:
            entries.append(ToolResult(group.call_id, Outcome.INTERRUPTED, "gave up", {}))
        case 1:
            entries.append(ToolResult(group.call_id, Outcome.QUEUED, "queued", {}))
        case 2:
            answer = Answer(AnswerKind.CUSTOM, (), f"answer {n}", "")
            entries.append(
                Resolved(tuple(Resolution(r, ResolutionKind.ANSWERED, answer) for r in refs))
            )
            entries.append(FeedbackOffered(f"offer-{n}", refs, agent or "own"))
            entries.append(OfferDelivered(f"offer-{n}", refs))
        case 3 if agent:
            note = QuestionRef(f"n-{n}", 0)
            entries.append(NoteSent(note, RECIPIENT_PREFIX + agent, f"note {n}"))
            entries.append(FeedbackOffered(f"offer-n-{n}", (note,), agent))
            entries.append(OfferDelivered(f"offer-n-{n}", (note,)))
    return entries


steps = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from(AGENTS), st.integers(1, 3)), max_size=30
)


def session(tmp: Path, history: list[tuple[int, str, int]]) -> None:
    journal = Journal.create(data_dir=tmp, session_id=SID, file_ops=NoFsync())
    projection = Projection()
    projection.apply_all(journal.first_records)
    journal.keep_checkpoint(projection)
    for n, (kind, agent, count) in enumerate(history):
        for entry in step(n, kind, agent, count):
            projection.apply(journal.append(entry))
    journal.close()


def lines(history: RetoldHistory[Retold], chunks: list[int]) -> list[Retold]:
    got: list[Retold] = []
    for size in itertools.chain(chunks, itertools.repeat(1 << 30)):
        if not history.remaining:
            return got
        older = history.older(size)
        assert older or not history.remaining
        got[:0] = older
    raise AssertionError("unreachable")


@settings(max_examples=60, deadline=None)
@given(steps, st.lists(st.integers(1, 7), max_size=6), st.booleans(), st.booleans())
def test_the_history_tells_what_retold_tells(
    history: list[tuple[int, str, int]],
    chunks: list[int],
    as_list: bool,
    later: bool,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        session(Path(tmp), history)
        journal, records = Journal.open(SID, data_dir=Path(tmp), file_ops=NoFsync())
        assert records.checkpoint is not None
        seq: Records | list[Record] = list(records) if as_list else records
        projection = Projection(session_id=SID)
        projection.apply_all(seq)
        expected = retold(list(records), projection)  # every record's entry looked at
        told = RetoldHistory(seq, projection, lambda line: line)
        first = told.older(chunks[0] if chunks else 3)
        if later:  # the session goes on before the older lines are asked for
            pending = list(projection.pending)
            if pending:
                projection.apply(journal.append(Withdrawn(tuple(pending[::2]), "later")))
        assert lines(told, chunks[1:]) + first == expected
        journal.close()


def test_a_resumed_hub_of_many_asks_tells_its_last_lines_only(tmp_path: Path) -> None:
    session(tmp_path, [(1, "builder", 1)] * 500)
    journal, records = Journal.open(SID, data_dir=tmp_path, file_ops=NoFsync())
    projection = Projection(session_id=SID)
    projection.apply_all(records)
    built = sum(record is not None for record in records._made)
    told = RetoldHistory(records, projection, lambda line: line)
    last = told.older(10)
    assert [line.text for line in last] == [
        f"builder asks: “Question {n}?”" for n in range(490, 500)
    ]
    assert sum(record is not None for record in records._made) <= built + 20  # and their results
    journal.close()
