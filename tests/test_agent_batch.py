"""The agent loop's calls of one reply in one journal write (docs/fleet-scale.md, "Group
commit of the agent loop's calls"): one fsync for a reply of async asks, the results in call
order, all or none on a failed write, the other calls on their own path."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
from support.agent_rig import AgentRig
from support.rig import CountingOps, call, q

from asks import contract
from asks.agent.context import context_from_journal
from asks.agent.events import Message, ModelEvent, TextDelta, ToolCall
from asks.agent.transcript import EntryKind
from asks.core.events import HostEvent, QuestionAsked, StorageFailed
from asks.core.model import question_id
from asks.host.commands import PanelCommand
from asks.store.journal import read_records


class ReplyModel:
    """A model whose first reply makes ``calls``; its next replies say ``done``."""

    name = "reply"
    opens_sessions = False

    def __init__(self, calls: Sequence[ToolCall]) -> None:
        self.calls = calls
        self.replies = 0

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        self.replies += 1
        if self.replies == 1:
            for one in self.calls:
                yield one
        else:
            yield TextDelta("done")


def ask(call_id: str, arguments: object) -> ToolCall:
    return ToolCall(call_id, contract.TOOL_NAME, json.dumps(arguments))


def four_async(n: int) -> ToolCall:
    questions = [q(f"Question {n}.{k}?", f"Q{n}.{k}") for k in range(4)]
    return ask(f"c{n}", call(*questions, blocking=False))


def rig_of(tmp_path: Path, calls: Sequence[ToolCall]) -> tuple[AgentRig, CountingOps]:
    ops = CountingOps()
    return AgentRig(tmp_path, "", model=ReplyModel(calls), file_ops=ops), ops


def tool_ids(messages: Sequence[Message]) -> list[str | None]:
    return [m.tool_call_id for m in messages if m.role == "tool"]


def lines(rig: AgentRig) -> list[dict[str, Any]]:
    return [json.loads(line) for line in rig.journal.path.read_bytes().splitlines()]


def context_rebuilt(rig: AgentRig) -> list[Message]:
    return context_from_journal(
        read_records(rig.journal.session_id, data_dir=rig.journal.path.parent)
    )


async def test_a_reply_of_async_asks_is_one_write(tmp_path: Path) -> None:
    replies = [four_async(n) for n in range(5)]
    rig, ops = rig_of(tmp_path, replies)
    told: list[None] = []
    rig.host.subscribe(lambda: told.append(None))
    before = ops.fsyncs
    assert await rig.agent.run_turn("go") == "finished"
    # the user's line, the reply's line, the five calls' ten lines, the last reply's line
    assert ops.fsyncs - before == 4
    asked = [line for line in lines(rig) if line["type"] in ("group_asked", "tool_result")]
    assert [(line["type"], line["call_id"]) for line in asked] == [
        (kind, f"c{n}") for n in range(5) for kind in ("group_asked", "tool_result")
    ]
    assert len({line["ts"] for line in asked}) == 1  # one write
    assert tool_ids(rig.agent.messages) == [f"c{n}" for n in range(5)]
    assert rig.agent.messages == context_rebuilt(rig)
    cards = [(e.kind, e.title) for e in rig.transcript.entries if e.title.startswith("c")]
    assert cards == [(EntryKind.QUESTION, f"c{n}") for n in range(5)]
    kinds = [
        e.kind for e in rig.transcript.entries if e.kind in (EntryKind.QUESTION, EntryKind.RESULT)
    ]
    assert kinds == [EntryKind.QUESTION, EntryKind.RESULT] * 5  # each result after its card
    assert len(rig.host.panel_port.tabs) == 20


async def test_start_calls_tells_the_listeners_once(tmp_path: Path) -> None:
    rig, ops = rig_of(tmp_path, [])
    told: list[None] = []
    events: list[HostEvent] = []
    rig.host.subscribe(lambda: told.append(None))
    rig.host.subscribe_events(events.append)
    before = ops.fsyncs
    requests = [(f"c{n}", call(q(f"Which {n}?"), blocking=False)) for n in range(5)]
    replies = rig.host.agent_port.start_calls(requests)
    assert [type(r) for r in replies] == [contract.ResultEnvelope] * 5
    assert ops.fsyncs - before == 1
    assert len(told) == 1
    assert [e.call_id for e in events if isinstance(e, QuestionAsked)] == [r[0] for r in requests]


async def test_a_failed_write_fails_every_call_of_it(tmp_path: Path) -> None:
    rig, ops = rig_of(tmp_path, [four_async(n) for n in range(3)])
    events: list[HostEvent] = []
    rig.host.subscribe_events(events.append)
    ops.fail_next_append("group_asked")
    assert await rig.agent.run_turn("go") == "finished"
    failed = contract.storage_failed("ok").text
    tools = [m for m in rig.agent.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in tools] == [(f"c{n}", failed) for n in range(3)]
    assert sum(isinstance(e, StorageFailed) for e in events) == 1  # one notice
    assert not any(isinstance(e, QuestionAsked) for e in events)
    assert not rig.host.panel_port.tabs
    assert not [line for line in lines(rig) if line["type"] == "group_asked"]
    assert rig.texts(EntryKind.ERROR) == [failed] * 3
    assert not rig.texts(EntryKind.QUESTION)
    assert rig.agent.messages == context_rebuilt(rig)
    assert rig.texts(EntryKind.AGENT)[-1] == "done"


async def test_a_refused_call_keeps_its_place_in_the_journal(tmp_path: Path) -> None:
    """A refusal is journaled by the loop: its line comes between the calls around it."""
    refused = ask("c1", {"questions": []})
    rig, ops = rig_of(tmp_path, [four_async(0), refused, four_async(2)])
    before = ops.fsyncs
    await rig.agent.run_turn("go")
    order = [
        (line["type"], line.get("call_id") or line["tool_calls"][0].get("tool_call_id"))
        for line in lines(rig)
        if line["type"] in ("group_asked", "tool_result")
        or (line["type"] == "chat_message" and line["role"] == "tool")
    ]
    assert order == [
        ("group_asked", "c0"),
        ("tool_result", "c0"),
        ("chat_message", "c1"),
        ("group_asked", "c2"),
        ("tool_result", "c2"),
    ]
    assert ops.fsyncs - before == 6  # user, reply, c0, c1's refusal, c2, the last reply
    assert tool_ids(rig.agent.messages) == ["c0", "c1", "c2"]
    assert rig.agent.messages == context_rebuilt(rig)


async def test_a_blocking_call_between_asyncs_is_its_own_write(tmp_path: Path) -> None:
    blocking = ask("c1", call(q("Blocking?")))
    rig, ops = rig_of(tmp_path, [four_async(0), blocking, four_async(2)])
    before = ops.fsyncs
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run_turn, "go")
        await rig.until(lambda: rig.host.surface_port.live_waits)
        # user, reply, c0, c1 (its own), c2
        assert ops.fsyncs - before == 5
        assert tool_ids(rig.agent.messages) == ["c0", "c2"]
        assert [e.title for e in rig.transcript.entries if e.kind is EntryKind.QUESTION] == [
            "c0",
            "c1",
            "c2",
        ]
        rig.host.panel_port.command(PanelCommand.CONFIRM)  # the first option
    assert tool_ids(rig.agent.messages) == ["c0", "c2", "c1"]  # the wait's in completion order
    assert rig.agent.messages == context_rebuilt(rig)
    assert rig.texts(EntryKind.AGENT)[-1] == "done"


async def test_a_withdrawal_is_its_own_segment(tmp_path: Path) -> None:
    target = question_id("s-batch", "c0", 0)
    withdraw = ToolCall("w1", contract.WITHDRAW_TOOL, json.dumps({"questionIds": [target]}))
    model = ReplyModel([four_async(0), withdraw, four_async(2)])
    rig = AgentRig(tmp_path, "", model=model, session_id="s-batch")
    await rig.agent.run_turn("go")
    order = [line["type"] for line in lines(rig) if line["type"] != "chat_message"]
    assert order[-5:] == ["group_asked", "tool_result", "withdrawn", "group_asked", "tool_result"]
    assert tool_ids(rig.agent.messages) == ["c0", "w1", "c2"]
    assert len(rig.host.panel_port.tabs) == 7  # c0's four less the withdrawn one, c2's four
    assert rig.agent.messages == context_rebuilt(rig)


def test_a_bad_source_raises_and_saves_nothing(tmp_path: Path) -> None:
    rig, _ops = rig_of(tmp_path, [])
    before = rig.journal.path.read_bytes()
    with pytest.raises(ValueError):
        rig.host.agent_port.start_calls([("c0", call(q("Which?"), blocking=False))], source=" ")
    assert rig.journal.path.read_bytes() == before


async def test_interrupted_waits_enter_the_context_in_journal_order(tmp_path: Path) -> None:
    """Ctrl+C ends the waits in the order their tasks are cancelled; the context takes
    their results in the journal's order (``close_open_calls``)."""
    blocking = [ask(f"c{n}", call(q(f"Blocking {n}?"))) for n in range(3)]
    rig, _ops = rig_of(tmp_path, [four_async(9), *blocking])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run_turn, "go")
        await rig.until(lambda: len(rig.host.surface_port.live_waits) == 3)
        rig.agent.interrupt()
    assert sorted(map(str, tool_ids(rig.agent.messages))) == ["c0", "c1", "c2", "c9"]
    assert rig.agent.messages == context_rebuilt(rig)
