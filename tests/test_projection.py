"""The projection: folding journal records into state, incrementally and at replay."""

from __future__ import annotations

import tempfile
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import given

from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    QuestionStatus,
    Resolution,
    ResolutionKind,
)
from asks.store.entries import (
    ChatMessage,
    FeedbackDelivered,
    GroupAsked,
    Record,
    Resolved,
    SessionStarted,
    ToolResult,
    UnknownEntry,
    WaitOpened,
    Withdrawn,
)
from asks.store.journal import Journal, read_records
from asks.store.projection import Projection


def ask(seq: int, call: str, n: int = 1, blocking: bool = False) -> Record:
    spec = QuestionSpec("Pick?", "Pick", (Option("A"), Option("B")))
    questions = tuple(
        Question(QuestionRef(f"q-{call}-{i}", seq), f"g-{call}", i, spec) for i in range(n)
    )
    return Record(seq, 0.0, GroupAsked(call, f"g-{call}", questions, blocking))


def answer(seq: int, *refs: QuestionRef) -> Record:
    chosen = Answer(AnswerKind.OPTION, (1,))
    return Record(
        seq, 0.0, Resolved(tuple(Resolution(r, ResolutionKind.ANSWERED, chosen) for r in refs))
    )


def test_group_asked_makes_pending_questions_and_an_open_call() -> None:
    p = Projection()
    p.apply(ask(1, "c1", n=2, blocking=True))
    refs = [QuestionRef("q-c1-0", 1), QuestionRef("q-c1-1", 1)]
    assert list(p.pending) == refs
    assert list(p.open_calls) == ["c1"] and p.calls["c1"].blocking
    assert p.state_of("q-c1-1") is p.by_ref[refs[1]]


def test_resolution_then_receipt_moves_a_unit_from_undelivered_to_delivered() -> None:
    p = Projection()
    p.apply(ask(1, "c1"))
    ref = QuestionRef("q-c1-0", 1)
    p.apply(answer(2, ref))
    assert ref not in p.pending and list(p.undelivered) == [ref]
    assert p.by_ref[ref].status is QuestionStatus.ANSWERED
    p.apply(Record(3, 0.0, FeedbackDelivered((ref,), "fb", "wake")))
    assert not p.undelivered and p.by_ref[ref].delivered
    p.apply(Record(4, 0.0, FeedbackDelivered((ref,), "fb", "wake")))
    assert p.duplicate_receipts == 1  # visible, so tests can assert it never happens


def test_tool_result_closes_the_call_and_is_a_receipt() -> None:
    p = Projection()
    p.apply(ask(1, "c1", blocking=True))
    ref = QuestionRef("q-c1-0", 1)
    p.apply(answer(2, ref))
    p.apply(Record(3, 0.0, ToolResult("c1", Outcome.ANSWERED, "t", {}, (ref,))))
    assert not p.open_calls and p.calls["c1"].result is not None
    assert not p.undelivered
    assert [r.seq for r in p.conversation] == [3]


def test_a_second_resolution_of_a_closed_question_is_ignored() -> None:
    p = Projection()
    p.apply(ask(1, "c1"))
    ref = QuestionRef("q-c1-0", 1)
    p.apply(Record(2, 0.0, Withdrawn((ref,), "changed my mind")))
    p.apply(answer(3, ref))
    assert p.by_ref[ref].status is QuestionStatus.WITHDRAWN
    assert not p.undelivered and not p.pending


def test_wait_opened_is_an_open_blocking_call_over_existing_questions() -> None:
    p = Projection()
    p.apply(ask(1, "c1"))
    ref = QuestionRef("q-c1-0", 1)
    p.apply(Record(2, 0.0, ToolResult("c1", Outcome.QUEUED, "t", {})))
    p.apply(Record(3, 0.0, WaitOpened("c2", (ref,))))
    assert list(p.open_calls) == ["c2"] and p.calls["c2"].refs == (ref,)


def test_unknown_entries_are_counted_and_skipped() -> None:
    p = Projection()
    p.apply(Record(0, 0.0, SessionStarted("s", 0.0, "9")))
    p.apply(Record(1, 0.0, UnknownEntry({"type": "from_the_future", "v": 7})))
    p.apply(Record(2, 0.0, ChatMessage("user", "hi")))
    assert p.session_id == "s" and p.unknown == 1 and p.records == 3
    assert len(p.conversation) == 1


def test_a_new_incarnation_under_the_same_id_is_a_separate_unit() -> None:
    p = Projection()
    p.apply(ask(1, "c1"))
    p.apply(answer(2, QuestionRef("q-c1-0", 1)))
    p.apply(ask(3, "c1"))  # reused call id after the old question closed
    assert p.current["q-c1-0"] == QuestionRef("q-c1-0", 3)
    assert list(p.pending) == [QuestionRef("q-c1-0", 3)]
    assert list(p.undelivered) == [QuestionRef("q-c1-0", 1)]


@given(st.lists(st.sampled_from(["ask", "answer", "receipt", "withdraw", "chat"]), max_size=30))
def test_incremental_projection_equals_replay_from_disk(steps: list[str]) -> None:
    """Applying each appended record as it is written gives the same state as replaying the
    file from scratch (what resume does)."""
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal.create(data_dir=Path(tmp))
        live = Projection(session_id=journal.session_id)
        for n, step in enumerate(steps):
            entry = _entry_for(step, live, n)
            if entry is not None:
                live.apply(journal.append(entry))
        journal.close()
        replayed = Projection()
        replayed.apply_all(read_records(journal.session_id, data_dir=Path(tmp)))
    assert list(replayed.pending) == list(live.pending)
    assert list(replayed.undelivered) == list(live.undelivered)
    assert set(replayed.open_calls) == set(live.open_calls)
    assert {r: s.status for r, s in replayed.by_ref.items()} == {
        r: s.status for r, s in live.by_ref.items()
    }


def _entry_for(step: str, p: Projection, n: int) -> object:
    pending, undelivered = list(p.pending), list(p.undelivered)
    if step == "ask":
        spec = QuestionSpec("Q?", "H")
        call = f"c{n}"
        return GroupAsked(call, "g", (Question(QuestionRef(f"q{n}", n), "g", 0, spec),), False)
    if step == "answer" and pending:
        return Resolved((Resolution(pending[0], ResolutionKind.DECLINED),))
    if step == "receipt" and undelivered:
        return FeedbackDelivered((undelivered[0],), "fb", "steer")
    if step == "withdraw" and pending:
        return Withdrawn((pending[-1],))
    if step == "chat":
        return ChatMessage("assistant", "working")
    return None
