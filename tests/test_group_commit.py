"""One write and one fsync for the lines of one step (the tool call → question path).

``Journal.append_all`` saves several entries as consecutive lines in one write and one fsync,
all or none; the host uses it for an async call, whose questions (``group_asked``) and queued
result (``tool_result``) are both known before anything is saved. Invariants pinned here:
consecutive sequence numbers, a single fsync, a failure anywhere leaves none of the lines (the
journal stays usable and the call gets ``storage_failed`` with no question pending), and a
crash-and-resume sees both lines or neither.
"""

from __future__ import annotations

import json
from pathlib import Path

import trio
from support.rig import CountingOps, Rig, call, q

from asks.contract import ResultEnvelope, ToolError
from asks.core.events import HostEvent, QuestionAsked, StorageFailed
from asks.core.model import Outcome
from asks.host.hub import HubPort
from asks.store.entries import ChatMessage
from asks.store.journal import Journal, StorageError


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def test_append_all_is_one_write_one_fsync_with_consecutive_seqs(tmp_path: Path) -> None:
    ops = CountingOps()
    journal = Journal.create(data_dir=tmp_path, session_id="s", file_ops=ops)
    before, first = ops.fsyncs, journal.next_seq
    records = journal.append_all([ChatMessage("user", "one"), ChatMessage("assistant", "two")])
    assert ops.fsyncs == before + 1
    assert [r.seq for r in records] == [first, first + 1]
    assert journal.next_seq == first + 2
    assert [line["seq"] for line in lines(journal.path)][-2:] == [first, first + 1]


def test_a_failed_append_all_leaves_none_of_its_lines(tmp_path: Path) -> None:
    ops = CountingOps()
    journal = Journal.create(data_dir=tmp_path, session_id="s", file_ops=ops)
    before = journal.path.read_bytes()
    ops.fail_next_append()
    try:
        journal.append_all([ChatMessage("user", "one"), ChatMessage("assistant", "two")])
    except StorageError:
        pass
    else:
        raise AssertionError("the injected failure was not raised")
    assert journal.path.read_bytes() == before  # rolled back: neither line
    journal.append(ChatMessage("user", "three"))  # and still usable
    assert lines(journal.path)[-1]["content"] == "three"


def test_an_async_call_saves_questions_and_result_with_one_fsync(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ops = CountingOps()
    rig.ops = ops
    rig.journal._ops = ops  # the rig's journal writes through the counting ops from here
    reply = rig.host.agent_port.start_call("c1", call(q("Which?"), blocking=False))
    assert not isinstance(reply, ToolError)
    assert ops.fsyncs == 1
    assert [line["type"] for line in lines(rig.path)][-2:] == ["group_asked", "tool_result"]
    resumed = rig.crash_and_reopen()
    assert len(resumed.surface_port.projection.pending) == 1
    assert resumed.surface_port.projection.calls["c1"].result is not None


def test_a_failed_async_call_creates_no_question(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    rig.ops.fail_next_append("tool_result")  # the batch's write holds both lines: it fails
    reply = rig.host.agent_port.start_call("c1", call(q("Which?"), blocking=False))
    assert isinstance(reply, ToolError) and reply.code.value == "storage_failed"
    assert not rig.host.surface_port.projection.pending
    assert [line["type"] for line in lines(rig.path)].count("group_asked") == 0
    again = rig.host.agent_port.start_call("c1", call(q("Which?"), blocking=False))
    assert not isinstance(again, ToolError)  # the retry succeeds once the disk has room
    assert len(rig.host.surface_port.projection.pending) == 1


# -- the hub's group commit (asks/host/commit.py) ------------------------------------------


def counted(rig: Rig) -> CountingOps:
    ops = CountingOps()
    rig.ops = ops
    rig.journal._ops = ops  # the rig's journal writes through the counting ops from here
    return ops


async def ask_together(rig: Rig, arguments: list[object]) -> list[object]:
    """Every call started at once, as the hub's agents' requests arrive together."""
    hub = rig.host.hub_port
    replies: list[object] = [None] * len(arguments)

    async def one(i: int) -> None:
        replies[i] = await hub.ask(f"agent{i % 2}", f"c{i}", arguments[i])

    async with trio.open_nursery() as nursery:
        for i in range(len(arguments)):
            nursery.start_soon(one, i)
    return replies


async def test_calls_arriving_together_share_one_write_and_fsync(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ops = counted(rig)
    asked: list[HostEvent] = []
    rig.host.subscribe_events(asked.append)
    replies = await ask_together(rig, [call(q(f"Q{i}?"), blocking=False) for i in range(6)])
    assert all(isinstance(r, ResultEnvelope) and r.outcome is Outcome.QUEUED for r in replies)
    assert ops.fsyncs == 1  # one per call without the group commit
    assert len(rig.host.surface_port.projection.pending) == 6
    assert [type(e) for e in asked].count(QuestionAsked) == 6
    seqs = [line["seq"] for line in lines(rig.path)[-12:]]
    assert seqs == list(range(seqs[0], seqs[0] + 12))
    resumed = rig.crash_and_reopen()
    assert len(resumed.surface_port.projection.pending) == 6
    for line in lines(rig.path)[-12:]:  # each question's incarnation is its line's seq
        if line["type"] == "group_asked":
            assert {d["ref"]["incarnation"] for d in line["questions"]} == {line["seq"]}


async def test_calls_one_scheduler_round_behind_join_the_batch(tmp_path: Path) -> None:
    """A call whose request is still being read when the batch opens (it reaches the port
    one scheduler round later) joins it, whatever order trio runs the tasks in; a lone call
    is saved alone."""
    rig = Rig.create(tmp_path)
    ops = counted(rig)
    hub = rig.host.hub_port

    async def late(i: int, rounds: int) -> None:
        for _ in range(rounds):  # the HTTP stack's steps before the port
            await trio.lowlevel.checkpoint()
        await hub.ask("agent", f"c{i}", call(q(f"Q{i}?"), blocking=False))

    async with trio.open_nursery() as nursery:
        for i, rounds in enumerate((0, 0, 1, 1, 1)):
            nursery.start_soon(late, i, rounds)
    assert ops.fsyncs == 1
    assert len(rig.host.surface_port.projection.pending) == 5
    await hub.ask("agent", "c9", call(q("Alone?"), blocking=False))
    assert ops.fsyncs == 2


async def test_a_failed_batch_fails_every_call_and_leaves_the_journal_as_before(
    tmp_path: Path,
) -> None:
    rig = Rig.create(tmp_path)
    events: list[HostEvent] = []
    rig.host.subscribe_events(events.append)
    before = rig.path.read_bytes()
    rig.ops.fail_next_append("tool_result")
    arguments: list[object] = [call(q(f"Q{i}?"), blocking=False) for i in range(5)]
    replies = await ask_together(rig, arguments)
    assert all(isinstance(r, ToolError) and r.code.value == "storage_failed" for r in replies)
    assert rig.path.read_bytes() == before
    assert not rig.host.surface_port.projection.pending
    assert not rig.host.surface_port.projection.calls
    assert not [e for e in events if isinstance(e, QuestionAsked)]
    assert [type(e) for e in events].count(StorageFailed) == 1
    again = await ask_together(rig, arguments)  # the same calls, once the disk has room
    assert all(isinstance(r, ResultEnvelope) for r in again)
    assert len(rig.host.surface_port.projection.pending) == 5


async def test_a_call_cancelled_before_its_batch_is_committed_saves_nothing(
    tmp_path: Path,
) -> None:
    """Two calls start together; the second's caller is cancelled at once. Which one leads is
    the scheduler's choice: a cancelled follower leaves the batch at once (nothing of it
    saved, even when the leader commits before the follower runs again); a cancelled leader
    is shielded and commits both. Both orders are run and checked."""
    seen: set[bool] = set()
    for attempt in range(200):
        rig = Rig.create(tmp_path / str(attempt))
        hub = rig.host.hub_port
        cancelled: list[bool] = []

        async def first(hub: HubPort = hub) -> None:
            await hub.ask("a", "kept", call(q("Kept?"), blocking=False))

        async def second(hub: HubPort = hub, cancelled: list[bool] = cancelled) -> None:
            with trio.CancelScope() as scope:
                scope.cancel()
                await hub.ask("b", "gone", call(q("Gone?"), blocking=False))
            cancelled.append(scope.cancelled_caught)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(first)
            nursery.start_soon(second)
        calls = rig.host.surface_port.projection.calls
        follower = cancelled == [True]
        assert "mcp:a:kept" in calls
        assert ("mcp:b:gone" in calls) is not follower
        assert len(rig.lines_of("group_asked")) == (1 if follower else 2)
        seen.add(follower)
        if seen == {True, False}:
            return
    raise AssertionError(f"only one order was scheduled in 200 runs: {seen}")
