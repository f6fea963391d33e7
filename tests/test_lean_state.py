"""The lean pending state (docs/fleet-scale.md, "The lean pending state"): a host's projection
keeps tool results by their record number and reads them back from the journal.

L1: two sessions live the same random history of hub calls (new, retried, reused call ids,
``{questionId}`` waits), answers from the keys, receipts and withdrawals; one reads its tool
results back (every host does), the other holds them (its projection's reader taken away, as
before this change). Replies, journal lines and projection are equal, and so are both
sessions resumed. L2/L3: a result read back is the one saved, the same object while held,
not held otherwise; a read that fails or finds another line is an error, never a value.

L5–L8 (docs/fleet-scale.md, "Questions by number"): the same for the questions of async calls
kept by number (their group read back through a small cache), with the panel drawn and
driven through the real layer's keys, answers from a surface accepted or refused, and
``check_answers``' texts; a failed read answers a coded error and saves nothing; drawing and
asking read back no more than the shown card's group.
"""

from __future__ import annotations

import errno
import gc
import tempfile
import weakref
from pathlib import Path

import attrs
import pytest
import trio
import urwid
from hypothesis import given, settings
from hypothesis import strategies as st
from support.rig import SESSION, Clock, FlakyOps, Rig, call, q, wait_on

from asks.cli.hub import AskedLine
from asks.contract import ErrorCode, ResultEnvelope, ToolError, WithdrawOutcome
from asks.core import events as ev
from asks.core.model import Answer as Given
from asks.core.model import AnswerKind, question_id
from asks.core.refusal import Refusal
from asks.host.host import QuestionHost
from asks.host.hub import HubPort
from asks.host.state import HostState
from asks.host.waits import Wait
from asks.hub.calls import CallSite, HubCalls
from asks.hub.narration import hub_ask, narrate
from asks.store.entries import ToolResult
from asks.store.journal import Journal, RecordUnreadable
from asks.store.projection import Projection
from asks.widgets.layer import AsksLayer
from asks.widgets.panel.view import HEADERS_SLACK

AGENTS = ("a", "b")
CALL_IDS = ("c0", "c1", "c2")


@attrs.frozen
class Ask:
    agent: str
    call_id: str
    text: str
    kind: str  # "async", "blocking" or "wait" (on the question of call ``text``)


@attrs.frozen
class Answer:
    """The person answers the first pending question from the keys."""


@attrs.frozen
class Deliver:
    agent: str  # its undelivered answers offered, and the receipt written


@attrs.frozen
class Withdraw:
    agent: str
    call_id: str


asks_ = st.builds(
    Ask,
    st.sampled_from(AGENTS),
    st.sampled_from(CALL_IDS),
    st.sampled_from(("Which?", "Why?", *CALL_IDS)),
    st.sampled_from(("async", "async", "async", "blocking", "wait")),
)
steps = st.lists(
    st.one_of(
        asks_,
        st.builds(Answer),
        st.builds(Deliver, st.sampled_from(AGENTS)),
        st.builds(Withdraw, st.sampled_from(AGENTS), st.sampled_from(CALL_IDS)),
    ),
    max_size=14,
)


def state_of(rig: Rig) -> HostState:
    state: HostState = rig.host._state
    return state


def hold_results(rig: Rig) -> Rig:
    """The session as before the lean state: its projection holds the results it folds."""
    projection = state_of(rig).projection
    projection.read = projection.groups = None
    projection.conversation._read = None
    return rig


def qid(rig: Rig, agent: str, call_id: str) -> str:
    return question_id(rig.journal.session_id, HubPort.hub_call_id(agent, call_id), 0)


def shown(reply: object) -> object:
    if isinstance(reply, Wait):
        return ("wait", reply.call_id, reply.refs)
    assert isinstance(reply, ResultEnvelope | ToolError), reply
    return reply


def run(rig: Rig, step: object) -> object:
    hub = rig.host.hub_port
    if isinstance(step, Ask):
        if step.kind == "wait":
            target = step.text if step.text in CALL_IDS else "c0"
            return shown(
                hub.start_call(step.agent, step.call_id, wait_on(qid(rig, step.agent, target)))
            )
        arguments = call(q(step.text), blocking=step.kind == "blocking")
        return shown(hub.start_call(step.agent, step.call_id, arguments))
    if isinstance(step, Answer):
        pending = list(rig.host.surface_port.projection.pending)
        if pending:
            rig.answer_option(pending[0], 0)
        return None
    if isinstance(step, Deliver):
        offer = hub.offer_feedback(step.agent)
        return None if offer is None else (offer.text, hub.delivered(offer))
    assert isinstance(step, Withdraw)
    return hub.withdraw(step.agent, [qid(rig, step.agent, step.call_id)])


def seen(projection: Projection) -> dict[str, object]:
    """What the projection's readers see."""
    return {
        "calls": {
            k: (v.refs, v.result, v.result_in, v.asked_at) for k, v in projection.calls.items()
        },
        "conversation": list(projection.conversation),
        "pending": list(projection.pending),
        "undelivered": dict(projection.undelivered),
        "states": {
            r: (s.question, s.briefed, s.status, s.resolution, s.delivered)
            for r, s in projection.by_ref.items()
        },
        "groups": {k: v.group_asked for k, v in projection.calls.items()},
        "records": projection.records,
    }


def session(directory: Path, ops: FlakyOps | None = None) -> Rig:
    """A rig whose journal's clock stands still (two sessions' lines are then equal)."""
    clock, ops = Clock(), ops or FlakyOps()
    journal = Journal.create(data_dir=directory, session_id=SESSION, file_ops=ops, clock=clock)
    return Rig(directory, clock, ops, journal, QuestionHost(journal, clock=clock))


def reopen(rig: Rig) -> None:
    """Drop the host mid-flight and resume it (the clock still standing)."""
    rig.journal.close()
    rig.ops = FlakyOps()
    rig.journal, records = Journal.open(
        SESSION, data_dir=rig.directory, file_ops=rig.ops, clock=rig.clock
    )
    rig.host = QuestionHost(rig.journal, records, clock=rig.clock)


def live(rig: Rig, history: list[object]) -> dict[str, object]:
    replies = [run(rig, step) for step in history]
    return {"replies": replies, "lines": rig.lines(), **seen(state_of(rig).projection)}


@given(steps)
def test_reading_results_back_gives_what_holding_them_gives(history: list[object]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        lean = session(Path(directory) / "lean")
        held = hold_results(session(Path(directory) / "held"))
        try:
            assert live(lean, history) == live(held, history)
            for rig in (lean, held):  # the same retries once more, then resumed
                reopen(rig)
            again: list[object] = [step for step in history if isinstance(step, Ask)]
            assert live(lean, again) == live(held, again)
        finally:
            lean.journal.close()
            held.journal.close()


def test_a_result_read_back_is_the_one_saved_the_same_object_while_held(tmp_path: Path) -> None:
    rig = session(tmp_path)
    first = rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    projection = rig.host.surface_port.projection
    state = projection.calls[HubPort.hub_call_id("a", "c0")]
    result = state.result
    assert isinstance(result, ToolResult) and isinstance(first, ResultEnvelope)
    assert (result.outcome, result.text, result.details) == (
        first.outcome,
        first.text,
        first.details,
    )
    assert state.result is result is projection.conversation[-1].entry  # while held
    gone = weakref.ref(result)
    del result
    gc.collect()
    assert gone() is None  # nothing else holds it
    retry = rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    assert retry == first


class UnreadableOps(FlakyOps):
    """Reads back fail while ``fail_reads`` is set; they are counted."""

    fail_reads = False
    reads = 0  # reads back so far

    def read_at(self, fd: int, offset: int, size: int) -> bytes:
        self.reads += 1
        if self.fail_reads:
            raise OSError(errno.EIO, "I/O error (injected)")
        return super().read_at(fd, offset, size)


def test_a_retry_whose_result_cannot_be_read_gets_a_coded_error_and_saves_nothing(
    tmp_path: Path,
) -> None:
    ops = UnreadableOps()
    rig = session(tmp_path, ops)
    rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    lines = rig.lines()
    ops.fail_reads = True
    retry = rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    assert isinstance(retry, ToolError) and retry.code is ErrorCode.STORAGE_FAILED
    assert "could not be read back" in retry.text and "I/O error" in retry.text
    assert rig.lines() == lines  # nothing saved
    ops.fail_reads = False
    assert isinstance(
        rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False)), ResultEnvelope
    )


def test_a_line_changed_on_disk_is_never_read_as_the_result(tmp_path: Path) -> None:
    rig = session(tmp_path)
    rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    data = rig.path.read_bytes()
    rig.path.write_bytes(data.replace(b"Keep working", b"Keep WORKING"))  # same size
    retry = rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    assert isinstance(retry, ToolError) and retry.code is ErrorCode.STORAGE_FAILED
    state = rig.host.surface_port.projection.calls[HubPort.hub_call_id("a", "c0")]
    with pytest.raises(RecordUnreadable):
        state.result  # noqa: B018 (the read is what is tested)
    with pytest.raises(RecordUnreadable):
        list(rig.host.surface_port.projection.conversation)


def test_a_closed_journal_or_an_unknown_number_reads_nothing(tmp_path: Path) -> None:
    journal = Journal.create(data_dir=tmp_path, session_id=SESSION)
    assert journal.record(0).seq == 0
    with pytest.raises(RecordUnreadable):
        journal.record(1)
    journal.close()
    with pytest.raises(RecordUnreadable):
        journal.record(0)


# ---------------------------------------------------------------------------- the chip texts
def chip_names(layer: AsksLayer, rig: Rig) -> list[str]:
    """The names the layer's panel gives the host's tabs now (drawn first: the view is made
    at the frame)."""
    layer.render((100,), focus=False)
    return layer.panel._chip_names(rig.host.panel_port.tabs)[:]


@settings(max_examples=30)  # a fresh panel per step: ~0.5 s an example
@given(
    st.lists(
        st.tuples(
            st.sampled_from(("ask", "ask", "withdraw")),
            st.sampled_from(AGENTS),
            st.integers(0, 9),
            st.sampled_from(("Database", "Deploy", "Database 2")),
        ),
        max_size=25,
    )
)
def test_chip_texts_shared_and_pruned_name_the_chips_as_a_fresh_panel(
    history: list[tuple[str, str, int, str]],
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        rig = session(Path(directory))
        layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
        with rig.journal:
            same_names_as_a_fresh_panel(rig, layer, history)


def same_names_as_a_fresh_panel(
    rig: Rig, layer: AsksLayer, history: list[tuple[str, str, int, str]]
) -> None:
    for kind, agent, n, header in history:
        if kind == "ask":
            arguments = call(q(f"Question {n}?", header), blocking=False)
            rig.host.hub_port.start_call(agent, f"c{n}", arguments)
        else:
            rig.host.hub_port.withdraw(agent, [qid(rig, agent, f"c{n}")])
        kept = chip_names(layer, rig)
        fresh = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
        assert kept == chip_names(fresh, rig)


def test_the_chip_texts_kept_follow_the_tabs_and_are_shared(tmp_path: Path) -> None:
    rig = session(tmp_path)
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
    for n in range(300):
        arguments = call(q(f"Question {n}?", "Database"), blocking=False)
        rig.host.hub_port.start_call("a", f"c{n}", arguments)
        chip_names(layer, rig)
    panel = layer.panel
    texts = {id(panel._headers[ref]) for ref in rig.host.panel_port.tabs}
    assert len(texts) == 1  # one string for the 300 chips reading "Database (a)"
    for n in range(295):
        rig.host.hub_port.withdraw("a", [qid(rig, "a", f"c{n}")])
        chip_names(layer, rig)
    assert len(rig.host.panel_port.tabs) == 5
    assert len(panel._headers) <= 2 * 5 + HEADERS_SLACK  # before: all 300, for ever


# ------------------------------------------------------------------- questions by number
@attrs.frozen
class Keys:
    keys: tuple[str, ...]  # pressed through the layer (the panel's real key path)


@attrs.frozen
class FromWeb:
    option: int  # the first pending question answered from a surface with this option index
    kind: str  # "option", "custom" or "decline"


panel_steps = st.lists(
    st.one_of(
        st.builds(
            Ask,
            st.sampled_from(AGENTS),
            st.sampled_from(CALL_IDS),
            st.just("Which?"),
            st.sampled_from(("async", "async", "wait")),
        ),
        st.builds(
            Keys,
            st.lists(
                st.sampled_from(
                    ("down", "up", "enter", "right", "left", "tab", "1", "2", "esc", "x")
                ),
                max_size=4,
            ).map(tuple),
        ),
        st.builds(FromWeb, st.integers(0, 4), st.sampled_from(("option", "custom", "decline"))),
        st.builds(Deliver, st.sampled_from(AGENTS)),
        st.builds(Withdraw, st.sampled_from(AGENTS), st.sampled_from(CALL_IDS)),
    ),
    max_size=12,
)


def drive(rig: Rig, layer: AsksLayer, step: object) -> object:
    """One step, through the layer's keys or a surface's seam for the new kinds."""
    if isinstance(step, Keys):
        for key in step.keys:
            rig.clock.advance(1.0)  # past the typing guard: every key counts
            layer.keypress((100,), key)
        return None
    if isinstance(step, FromWeb):
        pending = list(rig.host.surface_port.projection.pending)
        if not pending:
            return None
        ref = pending[0]
        given = {
            "option": Given(AnswerKind.OPTION, (step.option,)),
            "custom": Given(AnswerKind.CUSTOM, custom_text="mine"),
            "decline": None,
        }[step.kind]
        return rig.host.surface_port.answer_from(ref.id, ref.incarnation, given)
    return run(rig, step)


def canvas(layer: AsksLayer) -> list[bytes]:
    return list(layer.render((100,), focus=True).text)


@settings(max_examples=60)
@given(panel_steps)
def test_questions_kept_by_number_give_what_holding_them_gives(history: list[object]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        lean = session(Path(directory) / "lean")
        held = hold_results(session(Path(directory) / "held"))
        try:
            seen_by = []
            for rig in (lean, held):
                layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
                shown_ = []
                for step in history:
                    shown_.append((drive(rig, layer, step), canvas(layer)))
                seen_by.append(
                    {"shown": shown_, "lines": rig.lines(), **seen(state_of(rig).projection)}
                )
            assert seen_by[0] == seen_by[1]
        finally:
            lean.journal.close()
            held.journal.close()


def test_an_async_question_is_kept_by_number_and_read_back_as_saved(tmp_path: Path) -> None:
    rig = session(tmp_path)
    rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    rig.host.hub_port.start_call("a", "c1", call(q("Why?"), blocking=True))
    projection = state_of(rig).projection
    lean_, blocking = (projection.by_ref[r] for r in projection.pending)
    assert lean_._question is None and blocking._question is not None  # a blocking one held
    group = projection.calls[HubPort.hub_call_id("a", "c0")].group_asked
    assert group is not None and lean_.question == group.questions[0]
    assert lean_.question.spec.question == "Which?"
    assert lean_.briefed == ("Choice", "a", "mcp:a")  # held: never read back
    assert projection.brief(group.questions[0].ref) == group.questions[0].brief


def test_briefs_are_shared_between_questions(tmp_path: Path) -> None:
    rig = session(tmp_path)
    for n in range(20):
        rig.host.hub_port.start_call("a", f"c{n}", call(q(f"Question {n}?"), blocking=False))
    projection = state_of(rig).projection
    assert len({id(projection.by_ref[r].briefed) for r in projection.pending}) == 1


def test_drawing_and_asking_read_back_only_the_shown_cards_group(tmp_path: Path) -> None:
    ops = UnreadableOps()
    rig = session(tmp_path, ops)
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
    for n in range(200):
        rig.host.hub_port.start_call("a", f"c{n}", call(q(f"Question {n}?"), blocking=False))
        canvas(layer)
    assert ops.reads <= 2  # the first card's group, once: it stays in the cache
    assert len(state_of(rig).projection.pending) == 200


def test_a_question_that_cannot_be_read_back_is_a_coded_error_and_saves_nothing(
    tmp_path: Path,
) -> None:
    ops = UnreadableOps()
    rig = session(tmp_path, ops)
    for n in range(3):
        rig.host.hub_port.start_call("a", f"c{n}", call(q(f"Question {n}?"), blocking=False))
    state_of(rig).projection.groups = state_of(rig).projection.read  # no cache: every read
    for st_ in state_of(rig).projection.by_ref.values():
        st_._read = state_of(rig).projection.read
    ref = next(iter(rig.host.surface_port.projection.pending))
    lines = rig.lines()
    ops.fail_reads = True
    waited = rig.host.hub_port.start_call("b", "w0", wait_on(qid(rig, "a", "c0")))
    retry = rig.host.hub_port.start_call("a", "c0", call(q("Question 0?"), blocking=False))
    assert isinstance(retry, ToolError) and retry.code is ErrorCode.STORAGE_FAILED
    assert isinstance(waited, ToolError)  # b may not wait on a's question: unknown, not read
    own = rig.host.hub_port.start_call("a", "w1", wait_on(qid(rig, "a", "c1")))
    assert isinstance(own, ToolError) and own.code is ErrorCode.STORAGE_FAILED
    assert "could not be read back" in own.text
    report = rig.host.hub_port.withdraw("a", [qid(rig, "a", "c2")])
    assert [item.outcome for item in report.items] == [WithdrawOutcome.NOT_SAVED]
    refused = rig.host.surface_port.answer_from(
        ref.id, ref.incarnation, Given(AnswerKind.OPTION, (0,))
    )
    assert refused is Refusal.NOT_SAVED
    assert rig.lines() == lines  # nothing saved
    ops.fail_reads = False
    assert (
        rig.host.surface_port.answer_from(ref.id, ref.incarnation, Given(AnswerKind.OPTION, (0,)))
        is None
    )


def test_the_transcript_line_of_an_ask_reads_its_questions_back_when_drawn(
    tmp_path: Path,
) -> None:
    ops = UnreadableOps()
    rig = session(tmp_path, ops)
    events: list[object] = []
    rig.host.subscribe_events(events.append)
    rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    projection = state_of(rig).projection
    [asked] = [event for event in events if isinstance(event, ev.QuestionAsked)]
    assert hub_ask(asked, projection) is asked
    line = AskedLine(asked, projection)
    assert [line.text] == narrate(asked, projection)
    assert "“Which?”" in line.text
    for state in projection.by_ref.values():
        state._read = projection.read  # past the cache: every read goes to the file
    ops.fail_reads = True
    assert "could not be read back" in line.text and "I/O error" in line.text
    ops.fail_reads = False
    assert [line.text] == narrate(asked, projection)


def test_answers_whose_questions_cannot_be_read_back_wait_and_the_call_says_why(
    tmp_path: Path,
) -> None:
    ops = UnreadableOps()
    rig = session(tmp_path, ops)
    rig.host.hub_port.start_call("a", "c0", call(q("Which?"), blocking=False))
    rig.answer_option(next(iter(rig.host.surface_port.projection.pending)), 0)
    projection = state_of(rig).projection
    for state in projection.by_ref.values():
        state._read = projection.read  # past the cache: every read goes to the file
    calls = HubCalls(rig.host.hub_port)
    site = CallSite("a", None, 1, None)
    lines = rig.lines()
    ops.fail_reads = True
    text, failed = trio.run(calls.run, site, "check_answers", {})  # type: ignore[misc]
    assert "could not be read back" in text and "Pending: none." in text and not failed
    assert rig.lines() == lines and projection.undelivered  # nothing offered: it waits
    ops.fail_reads = False
    text, failed = trio.run(calls.run, site, "check_answers", {})  # type: ignore[misc]
    assert "Which?" in text and not failed
    assert len(rig.lines()) > len(lines)  # offered now (journaled)
