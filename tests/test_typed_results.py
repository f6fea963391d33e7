"""Typed results for programs and per-id withdraw: ``reply.result`` gives each
question's outcome, choices, custom text, notes and the group note as attrs values; a
``withdraw_question`` call withdraws the pending ids whatever the others are, and says per id
what happened."""

from __future__ import annotations

import attrs
from support.rig import Rig, q

from asks import contract
from asks.contract import (
    CallResult,
    GroupNote,
    QuestionOutcome,
    QuestionResult,
    WithdrawOutcome,
    WithdrawReport,
)
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
from asks.host.commands import PanelCommand
from asks.host.waits import Wait

DB = QuestionSpec("Which database?", "DB", (Option("Postgres"), Option("SQLite", "", "pv")))
REGIONS = QuestionSpec(
    "Which regions?", "Regions", (Option("EU"), Option("US"), Option("Asia")), multi_select=True
)
Q_DB = Question(QuestionRef("q-aaaaaaaaaa", 1), "g-1", 0, DB)
Q_REGIONS = Question(QuestionRef("q-bbbbbbbbbb", 2), "g-1", 1, REGIONS)


def resolved(question: Question, answer: Answer | None) -> tuple[Question, Resolution]:
    kind = ResolutionKind.DECLINED if answer is None else ResolutionKind.ANSWERED
    return question, Resolution(question.ref, kind, answer)


def test_an_answered_result_is_typed() -> None:
    multi = Answer(AnswerKind.MULTI, (2, 0), "Mars, too", "cheap ones")
    envelope = contract.answered_result(
        "c1",
        [resolved(Q_DB, Answer(AnswerKind.OPTION, (1,))), resolved(Q_REGIONS, multi)],
        notes=[GroupNote("all fine")],
    )
    result = envelope.result
    assert result == CallResult(
        Outcome.ANSWERED,
        (
            QuestionResult(
                "q-aaaaaaaaaa", "Which database?", QuestionOutcome.ANSWERED, ("SQLite",), (1,),
                preview="pv",
            ),
            QuestionResult(
                "q-bbbbbbbbbb", "Which regions?", QuestionOutcome.ANSWERED, ("EU", "Asia"),
                (0, 2), "Mars, too", "cheap ones",
            ),
        ),
        "all fine",
    )  # fmt: skip
    assert result.get("q-bbbbbbbbbb") is not None
    assert result.questions[1].answer == "EU, Asia, Mars, too"
    assert "Mars, too" in envelope.text  # the model's text is unchanged


def test_every_outcome_reaches_each_question() -> None:
    both = [Q_DB, Q_REGIONS]
    cases = {
        QuestionOutcome.DECLINED: contract.declined_result("c", both),
        QuestionOutcome.DEFERRED: contract.deferred_result("c", both),
        QuestionOutcome.WITHDRAWN: contract.withdrawn_result("c", both),
        QuestionOutcome.INTERRUPTED: contract.interrupted_result("c", both, "Ctrl+C"),
        QuestionOutcome.QUEUED: contract.queued_result("c", both),
        QuestionOutcome.ALREADY_RECEIVED: contract.already_received_result("c", both),
    }
    for expected, envelope in cases.items():
        result = envelope.result
        assert [x.outcome for x in result.questions] == [expected, expected], expected
        assert result.questions[0].question == "Which database?"
        assert result.questions[0].labels == ()


def test_a_partial_result_defers_the_rest() -> None:
    envelope = contract.answered_result(
        "c", [resolved(Q_DB, Answer(AnswerKind.CUSTOM, custom_text="Oracle"))], [Q_REGIONS]
    )
    db, regions = envelope.result.questions
    assert envelope.result.outcome is Outcome.PARTIAL
    assert (db.outcome, db.custom_text, db.labels) == (QuestionOutcome.ANSWERED, "Oracle", ())
    assert regions.outcome is QuestionOutcome.DEFERRED


def test_details_journaled_before_the_typed_fields_still_read() -> None:
    multi = Answer(AnswerKind.MULTI, (0,), "Mars")
    envelope = contract.answered_result("c", [resolved(Q_REGIONS, multi)])
    old = dict(envelope.details)
    old.pop("texts")
    old["answers"] = [{k: v for k, v in a.items() if k != "customText"} for a in old["answers"]]
    [regions] = attrs.evolve(envelope, details=old).result.questions
    assert (regions.labels, regions.custom_text) == (("EU",), "Mars")


def test_a_withdraw_report_names_each_id() -> None:
    report = WithdrawReport(
        (
            contract.WithdrawItem("q-1", WithdrawOutcome.WITHDRAWN, "Port?"),
            contract.WithdrawItem("q-2", WithdrawOutcome.ALREADY_ANSWERED, "DB?"),
            contract.WithdrawItem("q-3", WithdrawOutcome.UNKNOWN),
        ),
        "found it",
    )
    assert report.withdrawn == ("q-1",) and not report.all_withdrawn
    assert report.text.startswith('Withdrawn: "Port?" (id q-1).')
    assert '"q-2" — the user already answered' in report.text
    assert '"q-3" — no pending question of yours' in report.text
    assert "unknown_question" not in report.text


def test_withdraw_takes_the_pending_and_reports_the_answered(rig: Rig) -> None:
    """The issue's case: an answered id with a pending one no longer fails as a whole."""
    answered = rig.async_question("c1", "Which database?")
    pending = rig.async_question("c2", "Which port?")
    rig.answer_option(answered, 0)
    port = rig.host.agent_port
    assert port.pending_ids() == (pending.id,)
    report = port.withdraw([answered.id, pending.id, "q-nope"], "found it")
    assert [i.outcome for i in report.items] == [
        WithdrawOutcome.ALREADY_ANSWERED,
        WithdrawOutcome.WITHDRAWN,
        WithdrawOutcome.UNKNOWN,
    ]
    assert port.pending_ids() == ()
    assert pending not in rig.host.panel_port.tabs  # the pending one left the screen
    feedback = port.take_feedback()  # the answered one still arrives, once
    assert feedback is not None and feedback.refs == (answered,)
    assert port.withdraw([pending.id]).outcome_of(pending.id) is WithdrawOutcome.UNKNOWN


def test_a_withdraw_that_cannot_be_saved_withdraws_nothing(rig: Rig) -> None:
    pending = rig.async_question("c1", "Which port?")
    rig.ops.fail_next_append("withdrawn")
    report = rig.host.agent_port.withdraw([pending.id])
    assert report.outcome_of(pending.id) is WithdrawOutcome.NOT_SAVED
    assert "could not be saved" in report.text


def test_a_blocking_wait_gives_typed_results_for_each_ending(rig: Rig) -> None:
    wait = rig.blocker("c1", q("Ship it?", "Ship", ("Yes", "Not yet")))
    rig.clock.past_guard()
    rig.press(PanelCommand.DEFER)
    assert isinstance(wait, Wait) and wait.reply is not None
    assert not isinstance(wait.reply, contract.ToolError)
    [ship] = wait.reply.result.questions
    assert ship.outcome is QuestionOutcome.DEFERRED
    again = rig.blocker("c2", {"questionId": ship.question_id})
    rig.host.agent_port.interrupt()
    assert not isinstance(again.reply, contract.ToolError) and again.reply is not None
    assert again.reply.result.questions[0].outcome is QuestionOutcome.INTERRUPTED
    third = rig.blocker("c3", {"questionId": ship.question_id})
    rig.host.agent_port.withdraw([ship.question_id])
    assert not isinstance(third.reply, contract.ToolError) and third.reply is not None
    assert third.reply.result.questions[0].outcome is QuestionOutcome.WITHDRAWN


def test_feedback_answers_are_typed_too(rig: Rig) -> None:
    regions = rig.async_question(
        "c1", "Which regions?", header="Regions", options=("EU", "US"), multi=True
    )
    declined = rig.async_question("c2", "Which port?")
    answer = Answer(AnswerKind.MULTI, (1,), "Mars", "cheap")
    surface = rig.host.surface_port
    assert surface.answer_from(regions.id, regions.incarnation, answer) is None
    assert surface.answer_from(declined.id, declined.incarnation, None) is None
    port = rig.host.agent_port
    feedback = port.take_feedback()
    assert feedback is not None
    assert port.results_of(feedback) == (
        QuestionResult(
            regions.id, "Which regions?", QuestionOutcome.ANSWERED, ("US",), (1,), "Mars", "cheap"
        ),
        QuestionResult(declined.id, "Which port?", QuestionOutcome.DECLINED),
    )
