"""A question without the ``Type something.`` row: ``"custom": false`` (QuestionSpec.custom).

The tool's schema keeps the row by default; ``false`` on a question with options leaves it
out of the panel's rows, the web page and every accepted answer shape; the journal keeps the
field only when it is false (a default line reads as before the field existed).
"""

from __future__ import annotations

from typing import Any

from support.panel import ask_async, focused, make_panel, press, screen
from support.rig import Rig

from asks.contract import ToolError, validate_call
from asks.contract.validate import NewQuestions
from asks.core.answers import answer_problem
from asks.core.drafts import Draft, answer_at_cursor, custom_row, move, next_row, row_count
from asks.core.model import Answer, AnswerKind, Option, Question, QuestionRef, QuestionSpec
from asks.store.entries import GroupAsked, decode, encode
from asks.surfaces.line_prompts import how_to_answer, parse_answer
from asks.surfaces.web_page import QuestionView, page

TWO = (Option("staging"), Option("production"))


def specs(**question: Any) -> tuple[QuestionSpec, ...]:
    entry = {"question": "Where?", "header": "Deploy", **question}
    result = validate_call({"questions": [entry]})
    assert isinstance(result, NewQuestions), result
    return result.specs


def test_the_row_is_kept_by_default_and_left_out_by_custom_false() -> None:
    options = [{"label": "staging"}, {"label": "production"}]
    [kept] = specs(options=options)
    [left_out] = specs(options=options, custom=False)
    assert kept.custom and not left_out.custom
    assert (row_count(kept), custom_row(kept)) == (3, 2)
    assert (row_count(left_out), custom_row(left_out)) == (2, None)


def test_custom_false_without_options_or_not_a_boolean_is_refused() -> None:
    for question in ({"custom": False}, {"options": [{"label": "a"}, {"label": "b"}], "custom": 0}):
        entry = {"question": "Where?", "header": "Deploy", **question}
        refused = validate_call({"questions": [entry]})
        assert isinstance(refused, ToolError), refused
        assert '"custom"' in refused.text


def test_the_cursor_wraps_over_the_options_alone() -> None:
    spec = QuestionSpec("Where?", "Deploy", TWO, custom=False)
    assert move(Draft(cursor=1), spec, 1).cursor == 0
    multi = QuestionSpec("Where?", "Deploy", TWO, multi_select=True, custom=False)
    assert (row_count(multi), next_row(multi)) == (3, 2)
    chosen = answer_at_cursor(Draft(cursor=2, checked=frozenset({1}), custom_text="x"), multi)
    assert chosen == Answer(AnswerKind.MULTI, (1,), None, "")  # stray text is not an answer


def test_typed_text_never_answers_a_question_without_the_row() -> None:
    spec = QuestionSpec("Where?", "Deploy", TWO, custom=False)
    typed = Answer(AnswerKind.CUSTOM, (), "qa", "")
    assert answer_problem(spec, typed) == "This question takes only its options."
    assert answer_problem(QuestionSpec("Where?", "Deploy", TWO), typed) is None
    assert answer_problem(spec, Answer(AnswerKind.OPTION, (1,), None, "")) is None


def test_the_journal_keeps_the_field_only_when_false() -> None:
    for custom in (True, False):
        spec = QuestionSpec("Where?", "Deploy", TWO, custom=custom)
        question = Question(QuestionRef("q-0000000001", 1), "g-1", 0, spec)
        line = encode(1, 0.0, GroupAsked("call-1", "g-1", (question,), blocking=True))
        assert (b'"custom"' in line) is not custom
        entry = decode(line).entry
        assert isinstance(entry, GroupAsked)
        assert entry.questions[0].spec == spec


def test_the_web_page_has_no_text_answer_without_the_row() -> None:
    for custom in (True, False):
        spec = QuestionSpec("Where?", "Deploy", TWO, custom=custom)
        question = Question(QuestionRef("q-0000000001", 1), "g-1", 0, spec)
        html = page([QuestionView(question, blocking=True)], [], version=1, token="t", csrf="c")
        assert ('name="custom"' in html) is custom
        assert ('value="custom"' in html) is custom


def test_line_mode_takes_only_option_numbers_and_says_so() -> None:
    spec = QuestionSpec("Where?", "Deploy", TWO, custom=False)
    assert parse_answer(spec, "qa") == "This question takes only its options."
    assert parse_answer(spec, "2") == Answer(AnswerKind.OPTION, (1,))
    assert "own answer" not in how_to_answer(spec, required=True)
    assert "own answer" in how_to_answer(QuestionSpec("Where?", "Deploy", TWO), required=True)
    multi = QuestionSpec("Where?", "Deploy", TWO, multi_select=True, custom=False)
    assert "own answer" not in how_to_answer(multi, required=True)


def test_the_panel_draws_and_answers_a_multi_select_without_the_row(rig: Rig) -> None:
    """Keys through a real layer: the rows are the options and Next, digit 3 is Next, and the
    answer is the checked option alone."""
    question = {"question": "Which?", "header": "Pick", "options": [{"label": "a"}, {"label": "b"}]}
    ask_async(rig, "c1", {**question, "multiSelect": True, "custom": False})
    panel = make_panel(rig)
    focused(rig)
    shown = "\n".join(screen(panel))
    assert "1. [ ] a" in shown and "2. [ ] b" in shown and "3. Next" in shown, shown
    assert "Type something." not in shown
    ref = rig.ref("c1")
    press(panel, "1", " ", "3")
    assert rig.host.panel_port.draft(ref).cursor == 2
    press(panel, "down")  # wraps over the options and Next alone
    assert rig.host.panel_port.draft(ref).cursor == 0
    press(panel, "up")
    press(panel, "enter")
    resolution = rig.host.surface_port.projection.by_ref[ref].resolution
    assert resolution is not None and resolution.answer is not None
    assert resolution.answer == Answer(AnswerKind.MULTI, (0,), None, "")
