"""The person's note for all the questions of a group, below the surfaces.

A note typed on the Review tab of a multi-question wait (or sent with a group's answer from
line mode or the web page) is saved on the same ``resolved`` line as the answers, delivered
with them — in the tool result's text and ``details["groupNote"]``, or in the feedback message
that carries them — and shown on the transcript's result card. Old journals, whose lines have
no ``group_note``, replay as before (no note).
"""

from __future__ import annotations

import json
from pathlib import Path

from support.rig import SESSION, Rig, q

from asks import contract
from asks.agent.lines import feedback_summary, result_summary
from asks.contract import GroupNote, ResultEnvelope
from asks.core.model import (
    Answer,
    AnswerKind,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.core.tabs import ReviewKey
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.host.waits import Wait
from asks.store.entries import Resolved, decode, encode
from asks.store.journal import Journal, read_records

NOTE = "all of this is for the staging box"
REF = QuestionRef("q-aaaaaaaaaa", 1)
QUESTION = Question(REF, "g-1", 0, QuestionSpec("Which database?", "DB"))


def envelope(wait: Wait) -> ResultEnvelope:
    assert isinstance(wait.reply, ResultEnvelope), wait.reply
    return wait.reply


def custom(text: str) -> Answer:
    return Answer(AnswerKind.CUSTOM, (), text)


# =========================================================================== the contract


def test_an_answered_result_carries_the_note_after_the_answers() -> None:
    items = [(QUESTION, Resolution(REF, ResolutionKind.ANSWERED, custom("SQLite")))]
    result = contract.answered_result("c1", items, notes=[GroupNote(NOTE, (REF.id,))])
    assert result.text == (
        'User has answered your questions: "Which database?"="SQLite". User note for all '
        f"questions: {NOTE}. You can now continue with the user's answers in mind."
    )
    assert result.details["groupNote"] == NOTE
    assert contract.answered_result("c1", items).details["groupNote"] == ""  # always a string
    two = contract.answered_result("c1", items, notes=[GroupNote("one."), GroupNote("two")])
    assert "User note for all questions: one. User note for all questions: two." in two.text
    assert two.details["groupNote"] == "one.\n\ntwo"


def test_a_declined_result_carries_the_note_too() -> None:
    result = contract.declined_result("c1", [QUESTION], notes=[GroupNote("not relevant")])
    assert result.text.startswith(
        "User declined to answer questions. User note for all questions: not relevant. Do not "
        "ask them again"
    )
    assert result.details["groupNote"] == "not relevant"


def test_the_feedback_message_ends_with_the_note_and_its_questions() -> None:
    items = [(QUESTION, Resolution(REF, ResolutionKind.ANSWERED, custom("SQLite")))]
    text = contract.feedback_text(items, [GroupNote(NOTE, (REF.id, "q-bbbbbbbbbb"))])
    assert text.endswith(f"\n\nUser note for all of questions {REF.id}, q-bbbbbbbbbb: {NOTE}")
    assert "User note" not in contract.feedback_text(items)


def test_the_result_card_shows_the_note() -> None:
    details = {
        "answers": [{"question": "Color?", "answer": "Red", "kind": "option"}],
        "groupNote": NOTE,
    }
    assert result_summary(ResultEnvelope(Outcome.ANSWERED, "for the model", details)) == (
        f"Color? → Red\nnote for all questions: {NOTE}"
    )


# =========================================================================== the journal


def test_a_resolved_line_keeps_its_note_and_leaves_it_out_when_there_is_none() -> None:
    resolutions = (Resolution(REF, ResolutionKind.ANSWERED, custom("x")),)
    with_note = encode(4, 1.0, Resolved(resolutions, "panel", NOTE))
    assert json.loads(with_note)["group_note"] == NOTE
    assert decode(with_note).entry == Resolved(resolutions, "panel", NOTE)
    without = encode(4, 1.0, Resolved(resolutions, "panel"))
    assert "group_note" not in json.loads(without)  # such lines read exactly as before


def test_an_old_journal_without_the_field_replays_with_no_note(tmp_path: Path) -> None:
    """Lines as version 0.1 wrote them (no ``group_note``): a two-question blocking group,
    both answered on one line, then the crash before its tool result."""
    asked = {
        "v": 1,
        "seq": 1,
        "ts": 2.0,
        "type": "group_asked",
        "call_id": "c1",
        "group_id": "g-1",
        "blocking": True,
        "questions": [
            {
                "ref": {"id": f"q-{i}", "incarnation": 1},
                "group_id": "g-1",
                "index": i,
                "spec": {
                    "question": f"Q{i}?",
                    "header": "H",
                    "options": [],
                    "multi_select": False,
                    "context": None,
                },
                "source": None,
            }
            for i in range(2)
        ],
    }
    resolved = {
        "v": 1,
        "seq": 2,
        "ts": 3.0,
        "type": "resolved",
        "source": "panel",
        "resolutions": [
            {
                "ref": {"id": f"q-{i}", "incarnation": 1},
                "kind": "answered",
                "answer": {
                    "kind": "custom",
                    "option_indices": [],
                    "custom_text": f"a{i}",
                    "notes": "",
                },
            }
            for i in range(2)
        ],
    }
    start = {
        "v": 1,
        "seq": 0,
        "ts": 1.0,
        "type": "session_started",
        "session_id": SESSION,
        "created_at": 1.0,
        "app_version": "0.1.0",
    }
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (start, asked, resolved)))
    [_, _, record] = read_records(SESSION, data_dir=tmp_path)
    assert isinstance(record.entry, Resolved) and record.entry.group_note == ""
    journal, records = Journal.open(SESSION, data_dir=tmp_path)
    with journal:
        host = QuestionHost(journal, records)  # the dangling call gets its result
        feedback = host.agent_port.take_feedback()
    assert feedback is not None and "User note" not in feedback.text
    assert '"a0"' in feedback.text and '"a1"' in feedback.text


# =========================================================================== the host


def stage_both(rig: Rig) -> tuple[Wait, QuestionRef, QuestionRef]:
    wait = rig.blocker("c1", q("Which database?"), q("Which cache?", options=("Redis", "None")))
    first, second = rig.ref("c1", 0), rig.ref("c1", 1)
    rig.clock.past_guard()
    rig.answer_option(first, 2)
    rig.answer_option(second, 0)
    assert rig.host.panel_port.selected == ReviewKey("c1")
    return wait, first, second


def test_the_review_note_is_a_draft_until_review_submits_it_with_the_answers(rig: Rig) -> None:
    host = rig.host
    wait, first, _ = stage_both(rig)
    host.panel_port.set_group_note(f"  {NOTE}\n")
    host.panel_port.command(PanelCommand.PREV_TAB)  # a tab switch keeps it
    host.panel_port.command(PanelCommand.NEXT_TAB)
    assert host.panel_port.group_note("c1") == f"  {NOTE}\n"
    assert rig.lines_of("resolved") == []  # nothing saved while it is a draft

    host.panel_port.command(PanelCommand.CONFIRM, ReviewKey("c1"))

    reply = envelope(wait)
    assert reply.outcome is Outcome.ANSWERED
    assert f"User note for all questions: {NOTE}." in reply.text
    assert reply.details["groupNote"] == NOTE
    [saved] = rig.lines_of("resolved")
    assert saved["group_note"] == NOTE and len(saved["resolutions"]) == 2
    [result] = rig.tool_results("c1")
    assert result["details"]["groupNote"] == NOTE  # the journaled result the model saw
    assert host.panel_port.group_note("c1") == ""
    assert first not in host.surface_port.projection.pending


def test_a_decline_from_the_wait_carries_the_review_note(rig: Rig) -> None:
    host = rig.host
    wait, _, _ = stage_both(rig)
    host.panel_port.set_group_note("none of these apply")
    host.panel_port.command(PanelCommand.DECLINE, ReviewKey("c1"))  # arms
    host.panel_port.command(PanelCommand.DECLINE, ReviewKey("c1"))
    reply = envelope(wait)
    assert reply.outcome is Outcome.DECLINED
    assert "User note for all questions: none of these apply." in reply.text


def test_a_note_given_with_a_surface_answer_reaches_the_wait_result(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"), q("Which cache?"))
    first, second = rig.ref("c1", 0), rig.ref("c1", 1)
    option = Answer(AnswerKind.OPTION, (0,))
    assert host.surface_port.answer_from(first.id, first.incarnation, option, "web") is None
    assert not wait.done
    assert (
        host.surface_port.answer_from(
            second.id, second.incarnation, option, "line", group_note=NOTE
        )
        is None
    )
    reply = envelope(wait)
    assert reply.details["groupNote"] == NOTE
    assert [line.get("group_note") for line in rig.lines_of("resolved")] == [None, NOTE]


def test_an_async_answer_with_a_note_is_steered_in_with_it(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    option = Answer(AnswerKind.OPTION, (1,))
    assert host.surface_port.answer_from(ref.id, ref.incarnation, option, "web", NOTE) is None
    feedback = host.agent_port.take_feedback()
    assert feedback is not None
    assert feedback.text.endswith(f"User note for all of questions {ref.id}: {NOTE}")
    assert feedback_summary(
        host.surface_port.projection, feedback.refs
    ) == (  # the person's feedback card
        f"Which database? → SQLite\nnote for all questions: {NOTE}"
    )


def test_after_a_crash_the_saved_answers_go_as_feedback_with_their_note(rig: Rig) -> None:
    """Review submitted (the line is durable) but the process died before the tool result."""
    stage_both(rig)
    rig.ops.fail_next_append("tool_result")  # the resolved line is written, the result not
    rig.host.panel_port.set_group_note(NOTE)
    rig.host.panel_port.command(PanelCommand.CONFIRM, ReviewKey("c1"))
    assert [line.get("group_note") for line in rig.lines_of("resolved")] == [NOTE]
    host = rig.crash_and_reopen()
    feedback = host.agent_port.take_feedback()
    assert feedback is not None
    assert NOTE in feedback.text and feedback.text.count("User note") == 1
