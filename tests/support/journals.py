"""Journals for the replay and checkpoint tests: question cycles with every kind of line, as
bytes, and the damage a replay must survive; what the tests compare (a projection's whole
state)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from typing import Any

import attrs

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
from asks.store.entries import (
    ChatMessage,
    Entry,
    FeedbackDelivered,
    FeedbackOffered,
    GroupAsked,
    ModelChosen,
    NoteSent,
    OfferDelivered,
    OfferReleased,
    Resolved,
    SessionStarted,
    ToolResult,
    WaitOpened,
    Withdrawn,
    encode,
)
from asks.store.journal import FileOps
from asks.store.projection import Projection

__all__ = ["SID", "cycle", "damage", "journal_bytes"]

SID = "checkpoint-session"


def cycle(n: int, rng: random.Random) -> Iterator[Entry]:
    """One question cycle, every kind of line now and then."""
    refs = [QuestionRef(f"q-{n}-{i}", n) for i in range(rng.randint(1, 3))]
    spec = QuestionSpec(f"Question {n} — ünïcode?", f"H{n}", (Option("A", "a"), Option("B")))
    questions = tuple(Question(ref, f"g-{n}", i, spec) for i, ref in enumerate(refs))
    calls = ({"id": f"call-{n}", "name": "ask_user_question", "arguments": "{}"},)
    yield ChatMessage("user", f'message {n}\nwith a newline and a "quote"')
    yield ChatMessage("assistant", "", calls)
    yield GroupAsked(f"call-{n}", f"g-{n}", questions, blocking=n % 2 == 0)
    if n % 7 == 3:
        yield Withdrawn(tuple(refs[:1]), "no longer needed")
    if n % 5 == 1:
        yield WaitOpened(f"wait-{n}", tuple(refs))
    answer = Answer(AnswerKind.CUSTOM, (), f"custom {n}", "notes")
    kinds = [
        ResolutionKind.DECLINED if rng.random() < 0.2 else ResolutionKind.ANSWERED for _ in refs
    ]
    yield Resolved(
        tuple(
            Resolution(ref, kind, answer if kind is ResolutionKind.ANSWERED else None)
            for ref, kind in zip(refs, kinds, strict=True)
        ),
        source="web" if n % 3 else "panel",
        group_note=f"note for all of {n}" if n % 4 == 0 else "",
    )
    delivered = tuple(ref for ref in refs if rng.random() < 0.8)  # some stay undelivered
    if n % 2 == 0:
        yield ToolResult(f"call-{n}", Outcome.ANSWERED, f"result {n}", {"n": [n]}, delivered)
    else:
        yield ToolResult(f"call-{n}", Outcome.QUEUED, "queued", {})
        yield FeedbackDelivered(delivered, f"feedback {n}", "steer")
    if n % 11 == 0:
        yield ModelChosen("scripted", f"model-{n}")
    yield from hub_lines(n, refs, rng)


def hub_lines(n: int, refs: list[QuestionRef], rng: random.Random) -> Iterator[Entry]:
    """Now and then: offers (delivered, released or left open), notes, a receipt naming an
    old unit again, a question asked again under an old ref, a second result for a call."""
    if n % 6 == 2:
        yield FeedbackOffered(f"offer-{n}", tuple(refs), "agent-a")
        if n % 12 == 2:
            yield OfferDelivered(f"offer-{n}", tuple(refs))
        elif rng.random() < 0.5:
            yield OfferReleased(f"offer-{n}", tuple(refs[:1]))
    if n % 9 == 4:
        note = QuestionRef(f"n-{n}", n)
        yield NoteSent(note, "agent-b", f"note {n}")
        if rng.random() < 0.5:
            yield FeedbackDelivered((note, refs[0]), f"feedback {n}", "steer")
    if n % 13 == 5 and n > 13:
        old = QuestionRef(f"q-{n - 13}-0", n - 13)
        spec = QuestionSpec("Again?", "H", (Option("A"), Option("B")))
        yield GroupAsked(f"call-{n}-again", f"g-{n}-again", (Question(old, "g", 0, spec),), False)
    if n % 17 == 8:
        yield ToolResult(f"call-{n}", Outcome.ANSWERED, "again", {}, tuple(refs))


def journal_bytes(cycles: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    entries = itertools.chain(
        [SessionStarted(SID, 1.0, "0.1.0")], *(cycle(n, rng) for n in range(cycles))
    )
    return b"".join(encode(seq, 100.0 + seq / 4, entry) for seq, entry in enumerate(entries))


def damage(data: bytes) -> bytes:
    """A corrupt line, an unknown type, a non-increasing seq and a torn tail, mid-journal."""
    lines = data.split(b"\n")
    lines[5] = lines[5][:-3]  # not JSON any more
    lines[9] = b'{"v":1,"seq":9,"ts":1.0,"type":"from_the_future"}'
    lines[14] = lines[14].replace(b'"seq":14', b'"seq":2')
    return b"\n".join(lines) + b'{"v":1,"seq":'


def state(p: Projection) -> tuple[Any, ...]:
    """Everything a projection holds, compared by value (a restored one's values are built)."""
    return (
        p.session_id,
        [(ref, attrs.asdict(s, recurse=False)) for ref, s in p.by_ref.items()],
        list(p.current.items()),
        list(p.pending),
        [(k, attrs.asdict(c, recurse=False)) for k, c in p.calls.items()],
        list(p.open_calls),
        list(p.undelivered.items()),
        [(ref, attrs.asdict(n, recurse=False)) for ref, n in p.notes.items()],
        list(p.offered.items()),
        list(p.conversation),
        p.unknown,
        p.duplicate_receipts,
        p.records,
    )


class NoFsync(FileOps):
    def fsync(self, fd: int) -> None:  # thousands of appends; durability is not under test
        pass
