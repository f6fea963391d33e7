"""Delivery to agents outside asks (the hub's port, :mod:`asks.host.hub`; docs/architecture.md).

Each hub agent is a recipient of its own: it gets its answers and nobody else's, never the
session's own agent's; an answer is delivered when the response carrying it was handed over
(the receipt), given back when that failed, and offered again — saying so — when a crash left
it in doubt. Each scenario checks the journal on disk as well as what the port returns.
"""

from __future__ import annotations

import trio
import trio.testing
from support.hub import hub_ask, hub_receipts
from support.rig import Rig, call, q, wait_on

from asks.agent.loop import context_from_journal
from asks.contract import ErrorCode, ResultEnvelope, ToolError, WithdrawOutcome
from asks.core.model import Outcome
from asks.host.hub import REPEATED_NOTE, Offer
from asks.store.entries import ChatMessage
from asks.store.journal import read_records


def test_two_agents_with_the_same_question_get_only_their_own_answers(rig: Rig) -> None:
    hub = rig.host.hub_port
    mine = hub_ask(rig, "planner", "1", "Which database?")
    theirs = hub_ask(rig, "reviewer", "1", "Which database?")
    assert mine != theirs
    rig.answer_option(mine, 0)
    rig.answer_option(theirs, 1)

    planner, reviewer = hub.offer_feedback("planner"), hub.offer_feedback("reviewer")

    assert planner is not None and reviewer is not None
    assert planner.refs == (mine,) and reviewer.refs == (theirs,)
    assert '"Postgres"' in planner.text and "SQLite" not in planner.text
    assert '"SQLite"' in reviewer.text and "Postgres" not in reviewer.text
    assert rig.host.agent_port.take_feedback() is None  # the session's own agent gets neither


def test_the_own_agents_answers_never_go_to_a_hub_agent(rig: Rig) -> None:
    hub = rig.host.hub_port
    own = rig.async_question("c1", "Which database?")
    rig.answer_option(own, 0)
    assert hub.offer_feedback("planner") is None
    feedback = rig.host.agent_port.take_feedback()
    assert feedback is not None and feedback.refs == (own,)


def test_an_agent_cannot_wait_on_or_withdraw_another_agents_question(rig: Rig) -> None:
    hub = rig.host.hub_port
    theirs = hub_ask(rig, "reviewer", "1", "Which database?")
    started = hub.start_call("planner", "2", wait_on(theirs.id))
    assert isinstance(started, ToolError) and started.code is ErrorCode.UNKNOWN_QUESTION
    refused = hub.withdraw("planner", [theirs.id])
    assert refused.outcome_of(theirs.id) is WithdrawOutcome.UNKNOWN
    assert "Which database" not in refused.text  # another agent's question stays unseen
    own_agent = rig.host.agent_port.withdraw([theirs.id])
    assert own_agent.outcome_of(theirs.id) is WithdrawOutcome.UNKNOWN
    assert rig.host.agent_port.pending_ids() == ()
    assert hub.pending_ids("reviewer") == (theirs.id,)
    assert hub.withdraw("reviewer", [theirs.id]).all_withdrawn
    assert hub.pending_ids("reviewer") == ()


def test_an_offer_is_delivered_once_its_receipt_is_written(rig: Rig) -> None:
    hub = rig.host.hub_port
    ref = hub_ask(rig, "planner", "1", "Which database?")
    rig.answer_option(ref, 0)
    offer = hub.offer_feedback("planner")
    assert offer is not None and not offer.repeated
    assert hub.offer_feedback("planner") is None  # claimed while in flight
    assert [line["refs"] for line in rig.lines_of("feedback_offered")] == [
        [{"id": ref.id, "incarnation": ref.incarnation}]
    ]

    assert hub.delivered(offer)

    assert hub_receipts(rig) == {ref: 1}
    assert hub.offer_feedback("planner") is None
    assert rig.crash_and_reopen() is not None
    assert rig.host.hub_port.offer_feedback("planner") is None  # delivered stays delivered


def test_a_released_offer_is_offered_again_and_not_as_a_repeat(rig: Rig) -> None:
    hub = rig.host.hub_port
    ref = hub_ask(rig, "planner", "1", "Which database?")
    rig.answer_option(ref, 0)
    first = hub.offer_feedback("planner")
    assert first is not None
    hub.released(first)
    again = hub.offer_feedback("planner")
    assert again is not None and again.refs == (ref,) and not again.repeated
    assert REPEATED_NOTE not in again.text
    assert hub_receipts(rig) == {}


def test_an_offer_left_open_by_a_crash_is_offered_again_saying_it_may_repeat(rig: Rig) -> None:
    ref = hub_ask(rig, "planner", "1", "Which database?")
    rig.answer_option(ref, 0)
    assert rig.host.hub_port.offer_feedback("planner") is not None
    rig.crash_and_reopen()  # between the offer and its receipt
    hub = rig.host.hub_port

    again = hub.offer_feedback("planner")

    assert again is not None and again.refs == (ref,) and again.repeated
    assert again.text.startswith(REPEATED_NOTE)
    assert hub.delivered(again)
    assert hub_receipts(rig) == {ref: 1}


async def test_a_blocking_call_offers_its_answers_in_its_own_result(rig: Rig) -> None:
    hub = rig.host.hub_port
    results: list[object] = []

    async def agent() -> None:
        results.append(await hub.ask("planner", "7", call(q("Which cache?"))))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        ref = rig.ref("mcp:planner:7")
        rig.answer_option(ref, 0)
    [reply] = results
    assert isinstance(reply, ResultEnvelope) and reply.outcome is Outcome.ANSWERED
    offer = hub.result_offer("planner", "7")
    assert offer == Offer("mcp:planner:7", (ref,), "")
    assert rig.tool_results("mcp:planner:7")[0].get("delivered", []) == []  # not yet
    assert hub.offer_feedback("planner") is None  # claimed by the result

    hub.released(offer)  # the client had gone: the answer waits for its next call

    feedback = hub.offer_feedback("planner")
    assert feedback is not None and feedback.refs == (ref,)
    assert hub.delivered(feedback)
    assert hub_receipts(rig) == {ref: 1}


async def test_a_cancelled_blocking_call_leaves_the_question_for_the_next_call(rig: Rig) -> None:
    hub = rig.host.hub_port
    with trio.move_on_after(0.01):  # the client gives up waiting
        await hub.ask("planner", "7", call(q("Which cache?")))
    ref = rig.ref("mcp:planner:7")
    [result] = rig.tool_results("mcp:planner:7")
    assert result["outcome"] == "interrupted"
    assert hub.pending_ids("planner") == (ref.id,)
    rig.answer_option(ref, 1)
    offer = hub.offer_feedback("planner")
    assert offer is not None and offer.refs == (ref,)


def test_hub_tool_results_stay_out_of_the_own_agents_context(rig: Rig) -> None:
    own_call = {"id": "c1", "name": "ask_user_question", "arguments": "{}"}
    rig.host.agent_port.record_message(ChatMessage("assistant", "", (own_call,)))
    rig.async_question("c1", "Which cache?")
    hub_ask(rig, "planner", "1", "Which database?")

    records = read_records(rig.journal.session_id, data_dir=rig.directory)
    context = context_from_journal(records)

    assert [m.tool_call_id for m in context if m.role == "tool"] == ["c1"]
