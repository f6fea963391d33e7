"""The person's notes to hub agents (``asks hub``: ``@name text``; :mod:`asks.host.notes`).

A note is a delivery unit like a saved answer: journaled before anyone is told, in its
recipient's outbox only, offered at the start of that agent's next asks result, delivered
exactly once (the receipt), given back when the response failed, offered again saying so when
a crash left it in doubt — across restarts. Each scenario checks the journal on disk as well
as what the port returns; the state machine at the end mixes notes, answers, offers and
crashes for three agents.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import hypothesis.strategies as st
import trio
import trio.testing
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from support.hub import hub_ask, hub_receipts
from support.rig import Rig, call, q

from asks.contract import FEEDBACK_PREFIX, NOTE_PHRASE
from asks.core import events as ev
from asks.core.model import QuestionRef
from asks.host.hub import REPEATED_NOTE, Offer
from asks.host.notes import feedback_of
from asks.surfaces.hooks import payload


def note_lines(rig: Rig) -> list[dict[str, object]]:
    return rig.lines_of("note_sent")


def test_a_note_is_saved_then_offered_to_its_agent_alone(rig: Rig) -> None:
    hub = rig.host.hub_port
    hub_ask(rig, "reviewer", "1", "Which database?")
    told: list[ev.HostEvent] = []
    rig.host.subscribe_events(told.append)

    ref = hub.note("planner", "Use the staging database, not prod.")

    assert ref is not None and ref.id == f"n-{ref.incarnation}"
    [line] = note_lines(rig)
    assert line["recipient"] == "mcp:planner" and line["text"] == (
        "Use the staging database, not prod."
    )
    assert line["ref"] == {"id": ref.id, "incarnation": line["seq"]}
    assert rig.host.agent_port.take_feedback() is None  # not the session's own agent's
    assert hub.offer_feedback("reviewer") is None  # nor another agent's
    offer = hub.offer_feedback("planner")
    assert offer is not None and offer.refs == (ref,)
    assert offer.text == f"{FEEDBACK_PREFIX} {NOTE_PHRASE} Use the staging database, not prod."
    assert told == []  # saving a note is not an answer, a delivery or an ask


def test_a_delivered_note_is_never_offered_again_also_after_a_restart(rig: Rig) -> None:
    hub = rig.host.hub_port
    ref = hub.note("planner", "Stop after the tests pass.")
    assert ref is not None
    offer = hub.offer_feedback("planner")
    assert offer is not None
    assert hub.offer_feedback("planner") is None  # in flight: claimed
    told: list[ev.HostEvent] = []
    rig.host.subscribe_events(told.append)

    assert hub.delivered(offer)

    assert hub_receipts(rig) == {ref: 1}
    assert told == [ev.Delivered((), ev.DeliveryChannel.HUB, (ref,))]  # refs: questions only
    assert hub.offer_feedback("planner") is None
    rig.crash_and_reopen()
    assert rig.host.hub_port.offer_feedback("planner") is None
    assert not rig.host.surface_port.projection.undelivered


def test_a_note_saved_before_a_crash_is_offered_after_it(rig: Rig) -> None:
    hub = rig.host.hub_port
    ref = hub.note("planner", "Stop after the tests pass.")
    rig.crash_and_reopen()  # before the agent called again

    offer = rig.host.hub_port.offer_feedback("planner")

    assert offer is not None and offer.refs == (ref,) and not offer.repeated
    assert hub.agents() == ("planner",)  # a note's agent is seen, from the journal


def test_a_note_left_in_doubt_by_a_crash_is_offered_again_saying_so(rig: Rig) -> None:
    ref = rig.host.hub_port.note("planner", "Stop after the tests pass.")
    assert rig.host.hub_port.offer_feedback("planner") is not None
    rig.crash_and_reopen()  # between the offer and its receipt
    hub = rig.host.hub_port

    again = hub.offer_feedback("planner")

    assert again is not None and again.refs == (ref,) and again.repeated
    assert again.text.startswith(REPEATED_NOTE)
    assert hub.delivered(again)
    assert hub_receipts(rig) == {ref: 1}


def test_a_released_note_goes_back_for_the_next_call(rig: Rig) -> None:
    hub = rig.host.hub_port
    ref = hub.note("planner", "Stop after the tests pass.")
    first = hub.offer_feedback("planner")
    assert first is not None
    hub.released(first)  # the connection failed before the response went out
    again = hub.offer_feedback("planner")
    assert again is not None and again.refs == (ref,) and not again.repeated
    assert hub_receipts(rig) == {}


def test_answers_and_notes_go_together_in_save_order_answers_first(rig: Rig) -> None:
    hub = rig.host.hub_port
    early = hub.note("planner", "First note.")
    asked = hub_ask(rig, "planner", "1", "Which database?")
    rig.answer_option(asked, 0)
    late = hub.note("planner", "Second note.")

    offer = hub.offer_feedback("planner")

    assert offer is not None and offer.refs == (early, asked, late)  # save order
    answer = f'Question {asked.id} "Which database?": answer "Postgres".'
    assert offer.text.split("\n\n") == [
        f"{FEEDBACK_PREFIX} The user responded to question(s) you asked earlier:",
        answer,
        f"{NOTE_PHRASE} First note.",
        f"{NOTE_PHRASE} Second note.",
    ]


async def test_a_note_sent_while_the_agent_waits_is_not_taken_by_its_wait(rig: Rig) -> None:
    """A blocking call's result carries its own answers; a note sent meanwhile stays in the
    outbox, for the feedback that starts the same response (or the agent's next call)."""
    hub = rig.host.hub_port
    results: list[object] = []

    async def agent() -> None:
        results.append(await hub.ask("planner", "7", call(q("Which cache?"))))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        note = hub.note("planner", "Prefer Redis.")
        asked = rig.ref("mcp:planner:7")
        rig.answer_option(asked, 0)
    assert hub.result_offer("planner", "7") == Offer("mcp:planner:7", (asked,), "")
    feedback = hub.offer_feedback("planner")
    assert feedback is not None and feedback.refs == (note,)
    assert rig.tool_results("mcp:planner:7")[0].get("delivered", []) == []


def test_a_note_that_cannot_be_saved_is_in_no_outbox(rig: Rig) -> None:
    hub = rig.host.hub_port
    rig.ops.fail_next_append("note_sent")

    assert hub.note("planner", "Stop after the tests pass.") is None

    assert note_lines(rig) == []
    assert hub.offer_feedback("planner") is None
    assert rig.host.surface_port.notice is not None and rig.host.surface_port.notice.startswith(
        "Not saved"
    )


def test_the_agents_seen_come_from_the_journal_notes_and_live_calls(rig: Rig) -> None:
    hub = rig.host.hub_port
    hub_ask(rig, "reviewer", "1", "Which database?")
    rig.async_question("c1", "The own agent's question?")  # not a hub agent
    hub.seen("codex")
    hub.seen("reviewer")
    assert hub.agents() == ("reviewer", "codex")
    hub.note("codex", "Hello.")
    rig.crash_and_reopen()
    assert rig.host.hub_port.agents() == ("reviewer", "codex")  # codex: from its note


def test_a_delivered_note_in_a_hook_payload_names_no_question(rig: Rig) -> None:
    hub = rig.host.hub_port
    asked = hub_ask(rig, "planner", "1", "Which database?")
    rig.answer_option(asked, 1)
    note = hub.note("planner", "Thanks.")
    told: list[ev.HostEvent] = []
    rig.host.subscribe_events(told.append)
    offer = hub.offer_feedback("planner")
    assert offer is not None and hub.delivered(offer)

    [delivered] = told
    data = json.loads(json.dumps(payload(delivered, "s", rig.host.surface_port)))

    assert [item["id"] for item in data["questions"]] == [asked.id]
    assert data["notes"] == [{"id": note.id, "incarnation": note.incarnation}]


def test_the_own_agents_feedback_text_is_unchanged_by_notes(rig: Rig) -> None:
    own = rig.async_question("c1", "Which database?")
    rig.answer_option(own, 0)
    refs = rig.host._state.outbox.refs()
    text = feedback_of(rig.host.surface_port.projection, refs)
    assert NOTE_PHRASE not in text and text.startswith(FEEDBACK_PREFIX)


# ---------------------------------------------------------------------------- state machine
AGENTS = ("planner", "reviewer", "codex")


@settings(stateful_step_count=30, deadline=None)
class HubNotesMachine(RuleBasedStateMachine):
    """Three hub agents ask; the person answers and writes notes; agents call (the response
    handed over, or the connection failing); asks crashes at any point, also with offers in
    flight. Invariants: a unit is only offered to its own recipient and only carries its own
    texts; no unit has two receipts; what is undelivered is what the model says. At teardown
    every agent calls until nothing is left: each saved unit has exactly one receipt."""

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="asks-notes-"))
        self.rig = Rig.create(self.dir)
        self.hub = self.rig.host.hub_port
        self.calls = 0
        self.owner: dict[QuestionRef, str] = {}  # unit → the agent it is for
        self.texts: dict[QuestionRef, str] = {}  # note → its text (unique per note)
        self.in_flight: list[tuple[str, Offer]] = []

    @rule(agent=st.sampled_from(AGENTS))
    def agent_asks(self, agent: str) -> None:
        self.calls += 1
        ref = hub_ask(self.rig, agent, str(self.calls), "Same question for everyone?")
        self.owner[ref] = agent

    @precondition(lambda self: self.rig.host.surface_port.projection.pending)
    @rule(data=st.data())
    def person_answers(self, data: st.DataObject) -> None:
        ref = data.draw(st.sampled_from(list(self.rig.host.surface_port.projection.pending)))
        self.rig.answer_option(ref, data.draw(st.integers(0, 2)))

    @rule(agent=st.sampled_from(AGENTS))
    def person_writes(self, agent: str) -> None:
        text = f"note {len(self.texts)} for {agent}"
        ref = self.hub.note(agent, text)
        assert ref is not None
        self.owner[ref], self.texts[ref] = agent, text

    @rule(agent=st.sampled_from(AGENTS))
    def agent_calls(self, agent: str) -> None:
        offer = self.hub.offer_feedback(agent)
        if offer is None:
            return
        assert all(self.owner[ref] == agent for ref in offer.refs), "a unit crossed agents"
        for ref, text in self.texts.items():
            assert (text in offer.text) == (ref in offer.refs), "a note's text went astray"
        self.in_flight.append((agent, offer))

    @precondition(lambda self: self.in_flight)
    @rule(handed_over=st.booleans())
    def response_ends(self, handed_over: bool) -> None:
        _agent, offer = self.in_flight.pop(0)
        if handed_over:
            assert self.hub.delivered(offer)
        else:
            self.hub.released(offer)

    @rule()
    def crash(self) -> None:
        self.rig.crash_and_reopen()
        self.hub = self.rig.host.hub_port
        self.in_flight.clear()  # those responses may or may not have left

    def receipts(self) -> Counter[QuestionRef]:
        return hub_receipts(self.rig)

    @invariant()
    def at_most_one_receipt(self) -> None:
        assert all(n == 1 for n in self.receipts().values()), "a unit was delivered twice"

    @invariant()
    def undelivered_is_what_was_saved_and_not_receipted(self) -> None:
        projection = self.rig.host.surface_port.projection
        saved = {
            ref
            for ref in self.owner
            if ref in projection.notes or projection.by_ref[ref].resolution is not None
        }
        assert set(projection.undelivered) == saved - set(self.receipts())

    def teardown(self) -> None:
        try:
            self.crash()
            for agent in AGENTS:
                offer = self.hub.offer_feedback(agent)  # one call takes all it is owed
                if offer is not None:
                    assert self.hub.delivered(offer)
                assert self.hub.offer_feedback(agent) is None, "a delivered unit came back"
            saved = set(self.rig.host.surface_port.projection.notes) | {
                ref
                for ref, state in self.rig.host.surface_port.projection.by_ref.items()
                if state.resolution is not None
            }
            assert self.receipts() == dict.fromkeys(saved, 1)
        finally:
            self.rig.journal.close()
            shutil.rmtree(self.dir, ignore_errors=True)


TestHubNotesMachine = HubNotesMachine.TestCase
