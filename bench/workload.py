"""A realistic, deterministic stream of journal entries: question cycles of an agent session.

One *cycle*: the user writes, the assistant calls ``ask_user_question`` with 1–3 questions
(blocking or not), the tool result, the person's answers (with notes, sometimes a decline), the
receipt (tool result for a blocking wait, ``feedback_delivered`` for async answers), and the
assistant's replies. Now and then an async question is withdrawn, or waited on later with
``{questionId}`` (``wait_opened``). Result and feedback texts come from :mod:`asks.contract`, so
line sizes match what the host writes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from asks import contract
from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
    question_id,
)
from asks.store.entries import (
    ChatMessage,
    Entry,
    FeedbackDelivered,
    GroupAsked,
    Record,
    Resolved,
    SessionStarted,
    ToolResult,
    WaitOpened,
    Withdrawn,
    encode,
)
from asks.store.journal import SUFFIX

SESSION = "bench-session"

_WORDS = (
    "database",
    "migration",
    "schema",
    "cache",
    "layer",
    "retry",
    "policy",
    "timeout",
    "config",
    "deploy",
    "staging",
    "production",
    "branch",
    "feature",
    "flag",
    "tests",
    "coverage",
    "logging",
    "metrics",
    "alert",
    "rollback",
    "index",
    "query",
    "latency",
    "endpoint",
    "token",
    "auth",
    "session",
    "queue",
    "worker",
    "batch",
    "export",
    "format",
    "user",
    "prefer",
    "keep",
    "drop",
    "rename",
    "split",
    "merge",
    "refactor",
    "module",
    "package",
    "version",
    "pin",
    "upgrade",
)


def sentence(rng: random.Random, low: int, high: int) -> str:
    words = rng.choices(_WORDS, k=rng.randint(low, high))
    return " ".join(words).capitalize()


def spec(rng: random.Random, index: int, *, multi: bool | None = None) -> QuestionSpec:
    multi = rng.random() < 0.3 if multi is None else multi
    options = tuple(
        Option(f"{sentence(rng, 1, 3)} #{m}", sentence(rng, 4, 12))
        for m in range(rng.randint(2, 4))
    )
    return QuestionSpec(
        f"{sentence(rng, 6, 18)} (question {index})?", f"Topic {index % 97}", options, multi
    )


def answer(rng: random.Random, s: QuestionSpec) -> Answer:
    notes = sentence(rng, 5, 20) if rng.random() < 0.7 else ""
    if s.multi_select:
        picked = tuple(sorted(rng.sample(range(len(s.options)), rng.randint(1, len(s.options)))))
        return Answer(AnswerKind.MULTI, picked, None, notes)
    if rng.random() < 0.15:
        return Answer(AnswerKind.CUSTOM, (), sentence(rng, 3, 10), notes)
    return Answer(AnswerKind.OPTION, (rng.randrange(len(s.options)),), None, notes)


def resolution(rng: random.Random, q: Question) -> Resolution:
    if rng.random() < 0.08:
        return Resolution(q.ref, ResolutionKind.DECLINED)
    return Resolution(q.ref, ResolutionKind.ANSWERED, answer(rng, q.spec))


def resolved_entry(rng: random.Random, serial: int) -> Resolved:
    """One realistic saved answer (with notes), as written when the person confirms."""
    s = spec(rng, serial, multi=False)
    ref = QuestionRef(question_id(SESSION, f"call-{serial}", 0), serial)
    a = answer(rng, s)
    if not a.notes:
        a = Answer(a.kind, a.option_indices, a.custom_text, sentence(rng, 8, 20))
    return Resolved((Resolution(ref, ResolutionKind.ANSWERED, a),))


def _tool_call(call_id: str, questions: tuple[Question, ...], blocking: bool) -> dict[str, object]:
    arguments = {
        "blocking": blocking,
        "questions": [
            {
                "question": q.spec.question,
                "header": q.spec.header,
                "multiSelect": q.spec.multi_select,
                "options": [
                    {"label": o.label, "description": o.description} for o in q.spec.options
                ],
            }
            for q in questions
        ],
    }
    # as the agent loop journals a call (asks/agent/loop.py)
    return {"id": call_id, "name": contract.TOOL_NAME, "arguments": json.dumps(arguments)}


def _ask_call(call_id: str) -> dict[str, object]:
    return {"id": call_id, "name": contract.TOOL_NAME, "arguments": "{}"}


def entries(seed: int = 1, start_seq: int = 0, prefix: str = "call") -> Iterator[Entry]:
    """An endless session: question cycles (see module docstring).

    From ``start_seq`` 0 it begins with ``session_started``; a later ``start_seq`` continues an
    existing session with fresh call ids (``prefix``) and incarnations.
    """
    rng = random.Random(seed)
    seq = start_seq

    def emit(entry: Entry) -> Entry:
        nonlocal seq
        seq += 1
        return entry

    if start_seq == 0:
        yield emit(SessionStarted(SESSION, 1_732_000_000.0, "0.1.0"))
    cycle = 0
    while True:
        cycle += 1
        call_id = f"{prefix}-{cycle}"
        blocking = rng.random() < 0.4
        yield emit(ChatMessage("user", sentence(rng, 8, 60)))
        specs = [spec(rng, cycle * 4 + i) for i in range(rng.randint(1, 3))]
        incarnation = seq + 1  # the group_asked line comes after the assistant message
        group_id = f"g-{prefix}-{cycle:08x}"
        questions = tuple(
            Question(QuestionRef(question_id(SESSION, call_id, i), incarnation), group_id, i, s)
            for i, s in enumerate(specs)
        )
        tool_call = _tool_call(call_id, questions, blocking)
        yield emit(ChatMessage("assistant", sentence(rng, 0, 20), (tool_call,)))
        yield emit(GroupAsked(call_id, group_id, questions, blocking))
        if blocking:
            resolutions = tuple(resolution(rng, q) for q in questions)
            yield emit(Resolved(resolutions))
            items = list(zip(questions, resolutions, strict=True))
            env = contract.answered_result(call_id, items)
            refs = tuple(q.ref for q in questions)
            yield emit(ToolResult(call_id, env.outcome, env.text, env.details, refs))
        else:
            env = contract.queued_result(call_id, questions)
            yield emit(ToolResult(call_id, env.outcome, env.text, env.details))
            yield emit(ChatMessage("assistant", sentence(rng, 10, 80)))
            fate = rng.random()
            if fate < 0.05:
                yield emit(Withdrawn(tuple(q.ref for q in questions), "no longer needed"))
            else:
                wait_id = f"{prefix}-wait-{cycle}"
                if fate < 0.15:  # the reply that makes the {questionId} call, then its wait
                    yield emit(ChatMessage("assistant", "", (_ask_call(wait_id),)))
                    yield emit(WaitOpened(wait_id, tuple(q.ref for q in questions)))
                resolutions = tuple(resolution(rng, q) for q in questions)
                yield emit(Resolved(resolutions))
                items = list(zip(questions, resolutions, strict=True))
                refs = tuple(q.ref for q in questions)
                if fate < 0.15:
                    env = contract.answered_result(wait_id, items)
                    yield emit(ToolResult(wait_id, env.outcome, env.text, env.details, refs))
                else:
                    yield emit(FeedbackDelivered(refs, contract.feedback_text(items), "steer"))
        yield emit(ChatMessage("assistant", sentence(rng, 10, 120)))


def records(count: int, seed: int = 1, start_seq: int = 0, prefix: str = "call") -> list[Record]:
    """The first ``count`` entries of :func:`entries` as records (seq from ``start_seq``)."""
    out = []
    stream = entries(seed, start_seq, prefix)
    for i in range(count):
        out.append(Record(start_seq + i, 1_732_000_000.0 + i, next(stream)))
    return out


def write_journal(directory: Path, session_id: str, recs: list[Record]) -> Path:
    """Write records straight to a session file with `entries.encode` (no fsync)."""
    path = directory / f"{session_id}{SUFFIX}"
    with path.open("wb") as f:
        f.writelines(encode(r.seq, r.ts, r.entry) for r in recs)  # type: ignore[arg-type]
    return path


PENDING_QUESTION = "Which release should ship first?"


def pending_cycle(start_seq: int) -> list[Record]:
    """A last cycle whose async question (:data:`PENDING_QUESTION`) is left pending: the
    person's message, the call, its group and the queued result (records from ``start_seq``)."""
    call_id = "last-call"
    ref = QuestionRef(question_id(SESSION, call_id, 0), start_seq + 2)
    options = (Option("1.4", "the fixes"), Option("2.0", "the new layout"))
    question = Question(ref, "g-last", 0, QuestionSpec(PENDING_QUESTION, "Release", options))
    queued = contract.queued_result(call_id, (question,))
    entries: list[Entry] = [
        ChatMessage("user", "one more question, please"),
        ChatMessage("assistant", "", (_ask_call(call_id),)),
        GroupAsked(call_id, "g-last", (question,), blocking=False),
        ToolResult(call_id, queued.outcome, queued.text, queued.details),
    ]
    return [Record(start_seq + i, 1.8e9 + i, entry) for i, entry in enumerate(entries)]
