"""Exactly-once delivery, steering and waking (docs/architecture.md).

Every saved resolution is a unit; it must be named by exactly one receipt on disk (the
``delivered`` list of a ``tool_result`` or ``feedback_delivered`` line) once the agent has
drained what there is to drain — across crashes and resumes, and never twice. Each scenario
ends by counting the receipts in the raw file.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing
from support.rig import Rig, call, q, wait_on

from asks.contract import ErrorCode, ResultEnvelope, ToolError
from asks.core.model import Answer, AnswerKind, Outcome, QuestionRef, QuestionStatus
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.host.waits import Wait
from asks.store.entries import FeedbackDelivered, decode
from asks.store.outbox import DeliveryMode, Feedback


def drain(host: QuestionHost) -> list[Feedback]:
    taken = []
    while (feedback := host.agent_port.take_feedback()) is not None:
        taken.append(feedback)
    return taken


def assert_exactly_once(rig: Rig) -> None:
    """Every saved unit is named by exactly one receipt on disk, and nothing else is."""
    assert rig.receipts() == dict.fromkeys(rig.saved_units(), 1)


# =========================================================================== steer / wake


def test_async_answer_while_running_is_steered_once_with_a_durable_receipt(rig: Rig) -> None:
    host = rig.host
    host.agent_port.turn_started()
    ref = rig.async_question("c1", "Which database?")
    rig.answer_option(ref, 0)
    assert host.statistics().saved_undelivered == 1

    feedback = host.agent_port.take_feedback()

    assert feedback is not None
    assert feedback.mode is DeliveryMode.STEER
    assert feedback.refs == (ref,)
    assert f'Question {ref.id} "Which database?": answer "Postgres".' in feedback.text
    records = [decode(line) for line in rig.path.read_bytes().splitlines(keepends=True)]
    [receipt] = [r for r in records if isinstance(r.entry, FeedbackDelivered)]
    assert receipt.seq == feedback.seq
    assert receipt.entry.delivered == (ref,)
    assert receipt.entry.text == feedback.text
    assert receipt.entry.mode == "steer"
    assert host.agent_port.take_feedback() is None
    assert host.statistics().saved_undelivered == 0
    assert_exactly_once(rig)


def test_feedback_whose_receipt_fails_stays_in_the_outbox(rig: Rig) -> None:
    host = rig.host
    host.agent_port.turn_started()
    ref = rig.async_question("c1", "Which database?")
    rig.answer_option(ref, 1)
    rig.ops.fail_next_append("feedback_delivered")
    assert host.agent_port.take_feedback() is None  # not durable, so not handed out
    assert host._state.outbox.refs() == (ref,)
    assert rig.lines_of("feedback_delivered") == []
    [feedback] = drain(host)
    assert feedback.refs == (ref,)
    assert_exactly_once(rig)


async def test_idle_agent_is_woken_when_an_answer_is_saved(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    taken: list[Feedback | None] = []

    async def agent() -> None:
        await host.agent_port.wait_for_feedback()
        taken.append(host.agent_port.take_feedback())  # the first thing the new turn does
        host.agent_port.turn_started()

    async def person() -> None:
        rig.answer_option(ref, 2)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        assert taken == []
        host.panel_port.enter_panel(ref.id)
        rig.move_to(ref, 1)  # a draft is not a saved answer: no wake
        await trio.testing.wait_all_tasks_blocked()
        assert taken == []
        nursery.start_soon(person)

    [feedback] = taken
    assert feedback is not None
    assert feedback.mode is DeliveryMode.WAKE
    assert feedback.refs == (ref,)
    assert 'answer "MySQL"' in feedback.text
    [receipt] = rig.lines_of("feedback_delivered")
    assert receipt["mode"] == "wake"
    assert host.agent_port.take_feedback() is None
    assert_exactly_once(rig)


async def test_blocking_ask_answered_from_another_task_returns_the_answer(rig: Rig) -> None:
    host = rig.host
    outbox_seen: list[QuestionRef] = []
    host.subscribe(lambda: outbox_seen.extend(host._state.outbox.refs()))
    replies: list[object] = []

    async def agent() -> None:
        host.agent_port.turn_started()
        replies.append(await host.agent_port.ask("c1", call(q("Which database?"))))

    async def person() -> None:
        rig.clock.past_guard()
        rig.press(PanelCommand.DOWN)
        rig.press(PanelCommand.DOWN)
        rig.press(PanelCommand.CONFIRM)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        assert replies == []
        assert host.panel_port.focus.panel_focused
        nursery.start_soon(person)

    [reply] = replies
    ref = rig.ref("c1")
    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.ANSWERED
    [detail] = reply.details["answers"]
    assert detail["optionIndices"] == [2]
    assert detail["selected"] == ["MySQL"]
    assert outbox_seen == []
    assert host.agent_port.take_feedback() is None
    assert rig.lines_of("feedback_delivered") == []
    [result] = rig.tool_results("c1")
    assert [r["id"] for r in result["delivered"]] == [ref.id]
    assert_exactly_once(rig)


@pytest.mark.parametrize("end", ["interrupt", "defer"])
def test_claimed_unit_goes_back_to_the_outbox_when_its_wait_ends_unanswered(
    rig: Rig, end: str
) -> None:
    host = rig.host
    host.agent_port.turn_started()
    saved = rig.async_question("c1", "Which database?")
    still_open = rig.async_question("c2", "Which cache?")
    rig.answer_option(saved, 0)
    wait = rig.start_call("c3", wait_on(saved.id, still_open.id))
    assert host._state.outbox.refs() == ()  # claimed by the wait

    if end == "interrupt":
        host.agent_port.interrupt()
    else:
        host.panel_port.command(PanelCommand.DEFER, still_open)

    assert wait.done
    [result] = rig.tool_results("c3")
    assert result["delivered"] == []
    assert host._state.outbox.refs() == (saved,)
    [feedback] = drain(host)
    assert feedback.refs == (saved,)
    assert_exactly_once(rig)


def test_a_saved_answer_claimed_by_a_live_wait_cannot_be_waited_on_again(rig: Rig) -> None:
    """Found by the host state machine: a second wait on a saved answer that a live wait had
    already claimed delivered it in both tool results. It is ``already_waiting`` now."""
    saved = rig.async_question("c1", "Which database?")
    first_open = rig.async_question("c2", "Which cache?")
    second_open = rig.async_question("c3", "Which queue?")
    rig.answer_option(saved, 0)
    first = rig.start_call("c4", wait_on(saved.id, first_open.id))
    assert isinstance(first, Wait) and not first.done  # claims the saved answer
    again = rig.start_call("c5", wait_on(saved.id, second_open.id))
    assert isinstance(again, ToolError) and again.code is ErrorCode.ALREADY_WAITING
    web = rig.host.surface_port.answer_from(
        first_open.id, first_open.incarnation, Answer(AnswerKind.OPTION, (1,)), "web"
    )
    assert web is None and first.done
    assert rig.receipts()[saved] == 1
    assert_exactly_once(rig)


# =========================================================================== resume


async def test_resume_redelivers_a_saved_answer_without_receipt_exactly_once(rig: Rig) -> None:
    ref = rig.async_question("c1", "Which database?")
    rig.answer_option(ref, 0)
    assert rig.lines_of("feedback_delivered") == []

    host = rig.crash_and_reopen()

    assert host._state.outbox.refs() == (ref,)
    assert host.statistics().saved_undelivered == 1
    with trio.fail_after(1):
        await host.agent_port.wait_for_feedback()  # the idle agent is woken at once
    [feedback] = drain(host)
    assert feedback.mode is DeliveryMode.WAKE
    assert feedback.refs == (ref,)

    host = rig.crash_and_reopen()
    assert host._state.outbox.refs() == ()
    assert host.agent_port.take_feedback() is None
    assert rig.receipts() == {ref: 1}
    assert_exactly_once(rig)


def test_resume_closes_a_dangling_blocking_call_as_interrupted(rig: Rig) -> None:
    rig.blocker("c1", q("Which database?"))
    ref = rig.ref("c1")
    assert rig.tool_results("c1") == []

    host = rig.crash_and_reopen()

    [result] = rig.tool_results("c1")
    assert result["outcome"] == "interrupted"
    assert result["delivered"] == []
    assert result["details"]["pending"] == [ref.id]
    assert "restarted" in result["text"]
    assert not host.surface_port.projection.open_calls
    assert list(host.surface_port.projection.pending) == [ref]
    assert host.surface_port.live_waits == ()
    assert host.surface_port.wait_for(ref) is None
    assert not host.panel_port.is_required(ref)
    assert host.panel_port.tabs == (ref,)
    assert host.panel_port.focus.owner is host.panel_port.focus.chat

    rig.answer_option(ref, 1)
    assert host._state.outbox.refs() == (ref,)
    [feedback] = drain(host)
    assert feedback.mode is DeliveryMode.WAKE
    assert 'answer "SQLite"' in feedback.text

    rig.crash_and_reopen()
    assert len(rig.tool_results("c1")) == 1  # not interrupted a second time
    assert_exactly_once(rig)


def _answer_while_tool_result_fails(rig: Rig) -> tuple[QuestionRef, object]:
    """A blocking wait is answered; the answer is saved but its tool_result append fails."""
    host = rig.host
    host.agent_port.turn_started()
    wait = rig.blocker("c1", q("Which database?"))
    ref = rig.ref("c1")
    rig.clock.past_guard()
    rig.ops.fail_next_append("tool_result")
    rig.press(PanelCommand.CONFIRM)
    assert wait.done
    assert rig.saved_units() == {ref}
    assert rig.tool_results("c1") == []
    return ref, wait.reply


def _is_interrupted_or_storage_failed(reply: object) -> bool:
    if isinstance(reply, ToolError):
        return reply.code is ErrorCode.STORAGE_FAILED
    return isinstance(reply, ResultEnvelope) and reply.outcome is Outcome.INTERRUPTED


def test_unwritten_tool_result_answer_arrives_once_as_feedback(rig: Rig) -> None:
    ref, reply = _answer_while_tool_result_fails(rig)
    host = rig.host

    assert _is_interrupted_or_storage_failed(reply), reply
    assert host.surface_port.projection.by_ref[ref].status is QuestionStatus.ANSWERED
    assert host._state.outbox.refs() == (ref,)
    [feedback] = drain(host)
    assert feedback.mode is DeliveryMode.STEER
    assert 'answer "Postgres"' in feedback.text

    host = rig.crash_and_reopen()  # the call is still open on disk: resume closes it
    [result] = rig.tool_results("c1")
    assert result["outcome"] == "interrupted"
    assert result["delivered"] == []
    assert host._state.outbox.refs() == ()
    assert host.agent_port.take_feedback() is None
    assert rig.receipts() == {ref: 1}
    assert_exactly_once(rig)


async def test_unwritten_tool_result_then_crash_delivers_once_after_resume(rig: Rig) -> None:
    host = rig.host
    host.agent_port.turn_started()
    replies: list[object] = []

    async def agent() -> None:
        replies.append(await host.agent_port.ask("c1", call(q("Which database?"))))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        ref = rig.ref("c1")
        rig.clock.past_guard()
        rig.ops.fail_next_append("tool_result")
        rig.press(PanelCommand.CONFIRM)

    [reply] = replies
    assert _is_interrupted_or_storage_failed(reply), reply
    assert rig.saved_units() == {ref}
    assert rig.receipts() == {}

    host = rig.crash_and_reopen()  # before any feedback was taken

    [result] = rig.tool_results("c1")
    assert result["outcome"] == "interrupted"
    assert result["delivered"] == []
    assert host._state.outbox.refs() == (ref,)
    [feedback] = drain(host)
    assert feedback.refs == (ref,)
    rig.crash_and_reopen()
    assert rig.host.agent_port.take_feedback() is None
    assert rig.receipts() == {ref: 1}
    assert_exactly_once(rig)


# =========================================================================== all together


def test_receipts_never_name_a_unit_twice_across_every_scenario(rig: Rig) -> None:
    """One session living through all of the above, crashes included."""
    host = rig.host
    host.agent_port.turn_started()
    steered = rig.async_question("a1", "Which database?")
    rig.answer_option(steered, 0)
    drain(host)

    blocking = rig.blocker("b1", q("Which cache?"))
    rig.clock.past_guard()
    rig.answer_option(rig.ref("b1"), 1)
    assert blocking.done

    undelivered = rig.async_question("a2", "Which queue?")
    rig.answer_option(undelivered, 2)
    rig.blocker("b2", q("Which region?"))  # left dangling
    host = rig.crash_and_reopen()

    drain(host)
    rig.answer_option(rig.ref("b2"), 0)  # pending async after the resume
    rig.blocker("b3", q("Which language?"))
    rig.clock.past_guard()
    rig.ops.fail_next_append("tool_result")
    rig.answer_option(rig.ref("b3"), 1)
    host = rig.crash_and_reopen()
    drain(host)
    host = rig.crash_and_reopen()
    assert drain(host) == []

    assert host.surface_port.projection.duplicate_receipts == 0
    assert len(rig.saved_units()) == 5
    assert_exactly_once(rig)
