"""The agent loop's calls started together give what the same calls one by one give
(docs/fleet-scale.md, "Group commit of the agent loop's calls").

* The port: two sessions live the same random history — batches of calls (async and
  blocking new questions, reused call ids, ``{questionId}`` waits on questions asked earlier
  in the same batch, invalid arguments), and between them answers from keys and
  withdrawals. One starts each batch with ``AgentPort.start_calls`` (again on the rest,
  after a reply it saved nothing for, as the loop does); the other with ``start_call`` one
  by one. Journal lines, projection, events, tabs and replies must be equal.
* The loop: one random reply (asks of those kinds, arguments that do not parse,
  ``withdraw_question``) run by the real agent loop; the journal, once every call started,
  must equal what the loop before the group commit wrote (each call started, and a reply the
  host did not save journaled, one by one, in call order); the context holds one result per
  call, and the replies given at once are in it as the journal rebuilds them.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st
from support.agent_rig import AgentRig
from support.rig import SESSION, Clock, FlakyOps, Rig, call, q, wait_on

from asks import contract
from asks.agent.context import context_from_journal
from asks.agent.events import Message, ModelEvent, ToolCall
from asks.contract import ResultEnvelope, ToolError
from asks.core.events import HostEvent
from asks.core.model import question_id
from asks.host.agentport import AgentPort
from asks.host.host import QuestionHost
from asks.host.waits import Wait
from asks.store.entries import ChatMessage, ToolResult
from asks.store.journal import Journal, read_records

CALL_IDS = ("c0", "c1", "c2", "c3")
KINDS = ("async", "async", "async", "blocking", "wait", "invalid")


@attrs.frozen
class Call:
    call_id: str
    kind: str
    text: str
    target: str  # the call whose first question a ``wait`` or a withdrawal names


@attrs.frozen
class Answer:
    """The person answers the first pending question from the keys."""


@attrs.frozen
class Withdraw:
    call_id: str  # its first question


def calls_of(ids: Sequence[str], kinds: Sequence[str]) -> st.SearchStrategy[Call]:
    return st.builds(
        Call,
        st.sampled_from(ids),
        st.sampled_from(kinds),
        st.sampled_from(("Which?", "Why?")),
        st.sampled_from(ids),
    )


steps = st.lists(
    st.one_of(
        st.lists(calls_of(CALL_IDS, KINDS), min_size=1, max_size=6),
        st.builds(Answer),
        st.builds(Withdraw, st.sampled_from(CALL_IDS)),
    ),
    max_size=8,
)


def arguments_of(session: str, one: Call) -> object:
    if one.kind == "wait":
        return wait_on(question_id(session, one.target, 0))
    if one.kind == "invalid":
        return {"questions": []}
    return call(q(one.text), blocking=one.kind == "blocking")


def shown(reply: object) -> object:
    """A reply as its caller sees it (a live wait: its call and questions)."""
    if isinstance(reply, Wait):
        return ("wait", reply.call_id, reply.refs, reply.reply)
    if isinstance(reply, ResultEnvelope | ToolError):
        return reply
    raise AssertionError(reply)


def run_batch(rig: Rig, batch: list[Call], grouped: bool) -> list[object]:
    port = rig.host.agent_port
    requests = [(one.call_id, arguments_of(SESSION, one)) for one in batch]
    if not grouped:
        return [shown(port.start_call(call_id, arguments)) for call_id, arguments in requests]
    replies: list[object] = []
    while requests:
        started = port.start_calls(requests)
        assert started  # at least one call decided each time
        replies += [shown(reply) for reply in started]
        requests = requests[len(started) :]
    return replies


def run_step(rig: Rig, step: object, grouped: bool) -> object:
    if isinstance(step, list):
        return run_batch(rig, step, grouped)
    if isinstance(step, Answer):
        pending = list(rig.host.surface_port.projection.pending)
        if pending:
            rig.answer_option(pending[0], 0)
        return None
    assert isinstance(step, Withdraw)
    return rig.host.agent_port.withdraw([question_id(SESSION, step.call_id, 0)])


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
    return seen


@given(steps)
def test_start_calls_gives_what_the_calls_one_by_one_give(history: list[object]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        grouped = live(session(Path(directory) / "grouped"), history, grouped=True)
        alone = live(session(Path(directory) / "alone"), history, grouped=False)
    for key in grouped:
        assert grouped[key] == alone[key], key


# -- the loop --------------------------------------------------------------------------------

LOOP_IDS = ("c0", "c1", "c2", "c3", "c4", "c5")
LOOP_KINDS = (*KINDS, "unparsable", "withdraw")
LOOP_SESSION = "s-loop"


class ReplyModel:
    """A model whose first reply makes ``calls``; its next reply never comes (the test ends
    the turn), so the journal holds the reply's calls and nothing after them."""

    name = "reply"
    opens_sessions = False

    def __init__(self, calls: Sequence[ToolCall]) -> None:
        self.calls = calls
        self.replies = 0

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        self.replies += 1
        if self.replies > 1:
            await trio.sleep_forever()
        for one in self.calls:
            yield one


def tool_call(one: Call) -> ToolCall:
    if one.kind == "unparsable":
        return ToolCall(one.call_id, contract.TOOL_NAME, "{")
    if one.kind == "withdraw":
        target = question_id(LOOP_SESSION, one.target, 0)
        return ToolCall(one.call_id, contract.WITHDRAW_TOOL, json.dumps({"questionIds": [target]}))
    arguments = arguments_of(LOOP_SESSION, one)
    return ToolCall(one.call_id, contract.TOOL_NAME, json.dumps(arguments))


def result_of(port: AgentPort, call_id: str) -> ToolResult | None:
    state = port.projection.calls.get(call_id)
    return None if state is None else state.result


def tool_line(call_id: str, text: str) -> ChatMessage:
    return ChatMessage("tool", text, ({"tool_call_id": call_id},))


def one_by_one(port: AgentPort, reply: Sequence[ToolCall]) -> None:
    """What the loop before the group commit journaled for ``reply``'s calls: each call
    started in call order, a reply the host did not save journaled right after it."""
    for one in reply:
        if one.name == contract.WITHDRAW_TOOL:
            ids = json.loads(one.arguments)["questionIds"]
            port.record_message(tool_line(one.id, port.withdraw(ids).text))
            continue
        arguments = contract.parse_arguments(one.arguments)
        if isinstance(arguments, ToolError):
            port.record_message(tool_line(one.id, arguments.text))
            continue
        before = result_of(port, one.id)
        started = port.start_call(one.id, arguments)
        given = started.reply if isinstance(started, Wait) else started
        if given is not None and (
            isinstance(given, ToolError) or result_of(port, one.id) is before
        ):
            port.record_message(tool_line(one.id, given.text))


def loop_lines(path: Path) -> list[dict[str, Any]]:
    """The journal's lines without their times (one per write, not per call)."""
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    return [{k: v for k, v in line.items() if k not in ("ts", "created_at")} for line in lines]


async def run_reply(directory: Path, reply: list[ToolCall]) -> tuple[AgentRig, list[Any]]:
    """The loop runs ``reply``; the journal's lines once every call started (a result in
    the context or a live wait each), then the turn is interrupted."""
    rig = AgentRig(directory, "", model=ReplyModel(reply), session_id=LOOP_SESSION)
    port = rig.host.agent_port

    def started() -> bool:
        answered = {m.tool_call_id for m in rig.agent.messages if m.role == "tool"}
        return all(c.id in answered or port.wait_of_call(c.id) is not None for c in reply)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run_turn, "go")
        await rig.until(started)
        await trio.testing.wait_all_tasks_blocked()
        lines = loop_lines(rig.journal.path)
        rig.agent.interrupt()
    rig.journal.close()
    return rig, lines


def reference(directory: Path, reply: list[ToolCall]) -> list[Any]:
    """The same reply one by one: the user's and the reply's lines, then each call's."""
    journal = Journal.create(data_dir=directory, session_id=LOOP_SESSION)
    host = QuestionHost(journal, clock=Clock())
    port = host.agent_port
    port.record_message(ChatMessage("user", "go"))
    calls = tuple({"id": c.id, "name": c.name, "arguments": c.arguments} for c in reply)
    port.record_message(ChatMessage("assistant", "", calls))
    one_by_one(port, reply)
    journal.close()
    return loop_lines(journal.path)


loop_replies = st.lists(
    calls_of(LOOP_IDS, LOOP_KINDS), min_size=1, max_size=7, unique_by=lambda c: c.call_id
)


@settings(deadline=None, max_examples=60)
@given(loop_replies)
def test_the_loop_journals_a_reply_as_its_calls_one_by_one(calls: list[Call]) -> None:
    reply = [tool_call(one) for one in calls]
    with tempfile.TemporaryDirectory() as directory:
        rig, lines = trio.run(run_reply, Path(directory) / "loop", reply)
        assert lines == reference(Path(directory) / "reference", reply)
        messages = rig.agent.messages
        results = [m.tool_call_id for m in messages if m.role == "tool"]
        assert sorted(results) == sorted(c.id for c in reply)  # one result per call
        # the replies given at once enter the context in journal order; a wait's result
        # enters when its task runs, after a later call's if that one was synchronous
        waits = {one.call_id for one in calls if one.kind in ("blocking", "wait")}
        records = read_records(LOOP_SESSION, data_dir=Path(directory) / "loop")
        assert at_once(context_from_journal(records), waits) == at_once(messages, waits)


def at_once(messages: Sequence[Message], waits: set[str]) -> list[Message]:
    return [m for m in messages if m.tool_call_id not in waits]
