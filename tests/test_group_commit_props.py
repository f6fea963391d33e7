"""The hub's group commit gives what the same calls one by one give (asks/host/commit.py).

Two sessions live the same random history: batches of hub calls (async and blocking new
questions, reused call ids, ``{questionId}`` waits on questions asked earlier in the same
batch, invalid arguments, a bad source label), and between batches answers saved from keys
and withdrawals. One session commits each batch with :func:`commit`; the other starts its
calls one by one through the ordinary intake (``calls.start``). The journal's lines, the
projection, the events told and every call's reply must be equal; and every line, written by
orjson where its bytes are the stdlib's (asks/store/entries.py), is the line the converter and
the stdlib's ``json`` write for its record (the plain path).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import attrs
from hypothesis import given
from hypothesis import strategies as st
from support.rig import SESSION, Clock, FlakyOps, Rig, call, q, wait_on

from asks.contract import ResultEnvelope, ToolError
from asks.core.events import HostEvent
from asks.core.model import question_id
from asks.host import calls
from asks.host.commit import Queued, commit
from asks.host.host import QuestionHost
from asks.host.hub import HubPort, recipient_of
from asks.host.state import HostState
from asks.host.waits import Wait
from asks.store.entries import SCHEMA_VERSION, TAGS, _stdlib_line, converter, decode
from asks.store.journal import Journal

AGENTS = ("a", "b")
CALL_IDS = ("c0", "c1", "c2")


@attrs.frozen
class HubCall:
    agent: str
    call_id: str
    arguments: object


@attrs.frozen
class Answer:
    """The person answers the first pending question from the keys."""


@attrs.frozen
class Withdraw:
    agent: str
    call_id: str  # its first question


def question_of(rig: Rig, agent: str, call_id: str) -> str:
    return question_id(rig.journal.session_id, HubPort.hub_call_id(agent, call_id), 0)


@st.composite
def hub_calls(draw: st.DrawFn) -> HubCall:
    agent = draw(st.sampled_from(AGENTS))
    call_id = draw(st.sampled_from(CALL_IDS))
    kind = draw(st.sampled_from(("async", "async", "async", "blocking", "wait", "invalid")))
    text = draw(st.sampled_from(("Which?", "Why?")))
    if kind == "wait":  # a question id that may be asked earlier in the same batch
        target = draw(st.sampled_from(CALL_IDS))
        arguments: object = ("wait", target)
    elif kind == "invalid":
        arguments = {"questions": []}
    else:
        arguments = call(q(text), blocking=kind == "blocking")
    return HubCall(agent, call_id, arguments)


steps = st.lists(
    st.one_of(
        st.lists(hub_calls(), min_size=1, max_size=6),
        st.builds(Answer),
        st.builds(Withdraw, st.sampled_from(AGENTS), st.sampled_from(CALL_IDS)),
    ),
    max_size=8,
)


def state_of(rig: Rig) -> HostState:
    state: HostState = rig.host._state
    return state


def arguments_of(rig: Rig, one: HubCall) -> object:
    if isinstance(one.arguments, tuple):
        return wait_on(question_of(rig, one.agent, one.arguments[1]))
    return one.arguments


def queued_of(rig: Rig, one: HubCall) -> Queued:
    hub_id = HubPort.hub_call_id(one.agent, one.call_id)
    return Queued(hub_id, arguments_of(rig, one), calls.Asker(one.agent, recipient_of(one.agent)))


def shown(reply: object) -> object:
    """A reply as its caller sees it (a live wait: its call and questions)."""
    if isinstance(reply, Wait):
        return ("wait", reply.call_id, reply.refs)
    if isinstance(reply, ResultEnvelope | ToolError):
        return reply
    raise AssertionError(reply)


def run_batch(rig: Rig, batch: list[HubCall], grouped: bool) -> list[object]:
    queued = [queued_of(rig, one) for one in batch]
    if grouped:
        commit(state_of(rig), queued)
        return [shown(one.outcome()) for one in queued]
    return [
        shown(calls.start(state_of(rig), one.call_id, one.arguments, one.asker)) for one in queued
    ]


def run_step(rig: Rig, step: object, grouped: bool) -> object:
    if isinstance(step, list):
        return run_batch(rig, step, grouped)
    if isinstance(step, Answer):
        pending = list(rig.host.surface_port.projection.pending)
        if pending:
            rig.answer_option(pending[0], 0)
        return None
    assert isinstance(step, Withdraw)
    return rig.host.hub_port.withdraw(step.agent, [question_of(rig, step.agent, step.call_id)])


def session(directory: Path) -> Rig:
    """A rig whose journal's clock stands still (a batch reads it once per write, the calls
    one by one once per call: the lines are then equal, timestamps included)."""
    clock, ops = Clock(), FlakyOps()
    journal = Journal.create(data_dir=directory, session_id=SESSION, file_ops=ops, clock=clock)
    return Rig(directory, clock, ops, journal, QuestionHost(journal, clock=clock))


def live(rig: Rig, history: list[object], grouped: bool) -> dict[str, object]:
    events: list[HostEvent] = []
    rig.host.subscribe_events(events.append)
    replies = [run_step(rig, step, grouped) for step in history]
    projection = rig.host.surface_port.projection
    seen = {
        "replies": replies,
        "lines": rig.lines(),
        "pending": list(projection.pending),
        "calls": {k: (v.refs, v.result) for k, v in projection.calls.items()},
        "states": {ref: (s.status, s.resolution) for ref, s in projection.by_ref.items()},
        "events": events,
        "tabs": rig.host.panel_port.tabs,
    }
    rig.journal.close()  # its descriptors (a run of many examples would run out)
    written = rig.journal.path.read_bytes().splitlines(keepends=True)
    assert written == [by_the_stdlib(line) for line in written]
    return seen


def by_the_stdlib(line: bytes) -> bytes:
    """The line the converter and the stdlib's ``json`` write for the record of ``line``."""
    record = decode(line)
    body = converter().unstructure(record.entry, type(record.entry))
    body["type"] = TAGS[type(record.entry)]
    return _stdlib_line({"v": SCHEMA_VERSION, "seq": record.seq, "ts": record.ts, **body})


@given(steps)
def test_a_batch_gives_what_its_calls_one_by_one_give(history: list[object]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        grouped = live(session(Path(directory) / "grouped"), history, grouped=True)
        alone = live(session(Path(directory) / "alone"), history, grouped=False)
    for key in grouped:
        assert grouped[key] == alone[key], key


def test_a_bad_source_label_fails_its_call_alone(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    good = Queued("c0", call(q("Which?"), blocking=False), calls.Asker("a"))
    bad = Queued("c1", call(q("Which?"), blocking=False), calls.Asker(" "))
    after = Queued("c2", call(q("Why?"), blocking=False), calls.Asker("a"))
    commit(state_of(rig), [good, bad, after])
    assert isinstance(good.result, ResultEnvelope) and isinstance(after.result, ResultEnvelope)
    assert isinstance(bad.error, ValueError) and bad.result is None
    assert len(rig.host.surface_port.projection.pending) == 2
