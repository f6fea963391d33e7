"""The ask_user_question contract: validation, schema, guidance, result envelopes, feedback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asks import contract
from asks.contract import (
    TOOL_NAME,
    ErrorCode,
    Guidance,
    NewQuestions,
    ToolError,
    WaitOn,
    parse_arguments,
    validate_call,
)
from asks.contract.withdraw import (
    Withdraw,
    already_answered,
    unknown_to_withdraw,
    validate_withdraw,
    withdraw_tool,
    withdrawn_text,
)
from asks.core import model
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

# ------------------------------------------------------------------------------ helpers


def q(text: str = "Which database?", header: str = "Database", **extra: Any) -> dict[str, Any]:
    return {"question": text, "header": header, **extra}


def opts(*labels: str) -> list[dict[str, Any]]:
    return [{"label": label} for label in labels]


def call(*questions: Any, **extra: Any) -> dict[str, Any]:
    return {"questions": list(questions), **extra}


def error(arguments: object) -> ToolError:
    result = validate_call(arguments)
    assert isinstance(result, ToolError), result
    return result


def accepted(arguments: object) -> NewQuestions:
    result = validate_call(arguments)
    assert isinstance(result, NewQuestions), result
    return result


# --------------------------------------------------------------------------- accepting


def test_minimal_free_text_question_is_blocking_by_default() -> None:
    result = accepted(call(q()))
    assert result == NewQuestions(
        specs=(QuestionSpec(question="Which database?", header="Database"),), blocking=True
    )
    assert result.specs[0].is_free_text


def test_full_question_with_options() -> None:
    arguments = call(
        q(
            options=[
                {"label": "Postgres", "description": "Relational", "preview": "CREATE TABLE"},
                {"label": "SQLite", "description": None, "preview": None},
            ],
            multiSelect=False,
            context="We store orders.",
        ),
        q("Which region?", "Region", options=opts("EU", "US", "Asia"), multiSelect=True),
        blocking=False,
    )
    result = accepted(arguments)
    assert result.blocking is False
    first, second = result.specs
    assert first.options == (
        Option("Postgres", "Relational", "CREATE TABLE"),
        Option("SQLite", "", None),
    )
    assert first.context == "We store orders."
    assert first.multi_select is False
    assert [o.label for o in second.options] == ["EU", "US", "Asia"]
    assert second.multi_select is True


def test_nulls_count_as_absent_for_optional_fields() -> None:
    result = accepted(call(q(options=None, multiSelect=None, context=None), blocking=None))
    assert result.blocking is True
    assert result.specs[0] == QuestionSpec("Which database?", "Database")


def test_texts_are_stripped_and_sanitised_before_length_checks() -> None:
    header = "\x1b[1m  Auth method \x1b[0m"  # 21 raw characters, 11 after cleaning
    assert len(header) > model.MAX_HEADER
    result = accepted(
        call(
            q(
                "  Pick\x1b]8;;http://x\x07 one\r\nplease\u202e  ",
                header,
                options=[{"label": " A\nB "}, {"label": "\x9bC", "description": "\tx "}],
                context="\n ctx \n",
            )
        )
    )
    spec = result.specs[0]
    assert spec.question == "Pick one\nplease"
    assert spec.header == "Auth method"
    assert [o.label for o in spec.options] == ["A B", "C"]
    assert spec.options[1].description == "x"
    assert spec.context == "ctx"


def test_preview_keeps_indentation_but_drops_blank_edges() -> None:
    preview = "\n\n    def f():\n        return 1\n\n"
    result = accepted(call(q(options=[{"label": "A", "preview": preview}, {"label": "B"}])))
    assert result.specs[0].options[0].preview == "    def f():\n        return 1"


def test_empty_optional_texts_become_absent() -> None:
    result = accepted(
        call(
            q(
                context="  \x1b[0m ",
                options=[{"label": "A", "preview": " "}, {"label": "B", "description": ""}],
            )
        )
    )
    spec = result.specs[0]
    assert spec.context is None
    assert spec.options[0].preview is None
    assert spec.options[1].description == ""


def test_limits_are_inclusive() -> None:
    result = accepted(
        call(
            q(
                "x" * model.MAX_QUESTION_TEXT,
                "h" * model.MAX_HEADER,
                options=[{"label": "l" * model.MAX_LABEL}, {"label": "B"}],
            ),
            q("2"),
            q("3"),
            q("4"),
        )
    )
    assert len(result.specs) == model.MAX_QUESTIONS


def test_wait_reference() -> None:
    result = validate_call(call({"questionId": "q-0123456789"}, {"questionId": " q-2 "}))
    assert result == WaitOn(("q-0123456789", "q-2"))
    assert validate_call(call({"questionId": "q-1"}, blocking=True)) == WaitOn(("q-1",))


# ---------------------------------------------------------------------------- rejecting


@pytest.mark.parametrize(
    "arguments", [{}, {"questions": None}, {"questions": []}, {"blocking": False}]
)
def test_no_questions(arguments: object) -> None:
    err = error(arguments)
    assert err.code is ErrorCode.NO_QUESTIONS
    assert '"questions"' in err.message


def test_too_many_questions() -> None:
    err = error(call(*(q(f"Question {i}?") for i in range(5))))
    assert err.code is ErrorCode.TOO_MANY_QUESTIONS
    assert "5" in err.message
    assert str(model.MAX_QUESTIONS) in err.message


@pytest.mark.parametrize(
    ("first", "second"),
    [("Which DB?", "which db?"), ("Which  DB?", " Which\nDB? "), ("Which DB?", "\x1b[1mWhich DB?")],
)
def test_duplicate_question(first: str, second: str) -> None:
    err = error(call(q("Other?"), q(first), q(second)))
    assert err.code is ErrorCode.DUPLICATE_QUESTION
    assert "Questions 2 and 3" in err.message


def test_empty_options() -> None:
    err = error(call(q("A?"), q(options=[])))
    assert err.code is ErrorCode.EMPTY_OPTIONS
    assert "Question 2" in err.message


@pytest.mark.parametrize("label", ["Other", "other", " OTHER ", "Type something.", "next"])
def test_reserved_label(label: str) -> None:
    err = error(call(q(options=opts("Fine", label))))
    assert err.code is ErrorCode.RESERVED_LABEL
    assert "option 2" in err.message


def test_reserved_label_is_checked_before_duplicate_label() -> None:
    # The duplicate pair comes first, the reserved label last: reserved still wins.
    err = error(call(q(options=opts("Same", "same", "Next"))))
    assert err.code is ErrorCode.RESERVED_LABEL
    assert "option 3" in err.message
    err = error(call(q(options=opts("Other", "other"))))
    assert err.code is ErrorCode.RESERVED_LABEL


def test_duplicate_option_label() -> None:
    err = error(call(q(options=opts("Yes", "No", " YES"))))
    assert err.code is ErrorCode.DUPLICATE_OPTION_LABEL
    assert "options 1 and 3" in err.message


def test_label_that_only_looks_reserved_is_fine() -> None:
    result = accepted(call(q(options=opts("Others", "Type something"))))
    assert [o.label for o in result.specs[0].options] == ["Others", "Type something"]


INVALID: list[tuple[object, tuple[str, ...]]] = [
    # top level
    (None, ("JSON object",)),
    ([q()], ("JSON object", "an array")),
    ("questions", ("a string",)),
    (42, ("a number",)),
    (call(q(), extra=1), ('"extra"', '"questions", "blocking"')),
    (call(q(), blocking="yes"), ('"blocking"', "true or false", "a string")),
    (call(q(), blocking=1), ('"blocking"', "a number")),
    ({"questions": "Which?"}, ('"questions"', "array", "a string")),
    ({"questions": {"question": "Which?"}}, ("an object",)),
    ({"questions": 3}, ("a number",)),
    (call(q(), "Which?"), ("Question 2", "a string")),
    (call(None), ("Question 1", "null")),
    (call([q()]), ("Question 1", "an array")),
    # question fields
    (call({"header": "H"}), ("Question 1", 'missing "question"')),
    (call({"question": "Q?"}), ("Question 1", 'missing "header"')),
    (call(q(None)), ('missing "question"',)),
    (call(q(7)), ('"question"', "a number")),
    (call(q(True)), ('"question"', "a boolean")),
    (call(q(["Q"])), ('"question"', "an array")),
    (call(q(header={"a": 1})), ('"header"', "an object")),
    (call(q("   ")), ('"question"', "empty")),
    (call(q(header="\x1b[31m\x1b[0m")), ('"header"', "empty")),
    (call(q("x" * 2001)), ('"question"', "2000")),
    (call(q(context=5)), ('"context"', "a number")),
    (call(q(context="c" * 4001)), ('"context"', "4000")),
    (call(q(multiSelect="true")), ('"multiSelect"', "true or false")),
    (call(q(multiSelect=True)), ('"multiSelect"', "no options")),
    (call(q(multiselect=True)), ('"multiselect"', "unknown key")),
    (call(q(options="A, B")), ('"options"', "array")),
    (call(q(options=opts("Only"))), ("Question 1", "1 option;", "2 to 4")),
    (call(q(options=opts("A", "B", "C", "D", "E"))), ("5 options",)),
    # options
    (call(q(options=["A", "B"])), ("Question 1, option 1", "a string")),
    (call(q(options=[{"label": "A"}, None])), ("option 2", "null")),
    (call(q(options=[{"label": "A"}, {}])), ("option 2", 'missing "label"')),
    (call(q(options=[{"label": "A"}, {"label": 2}])), ('"label"', "a number")),
    (call(q(options=[{"label": "A"}, {"label": "l" * 61}])), ("option 2", "61", "60")),
    (call(q(options=[{"label": "A", "value": 1}, {"label": "B"}])), ('"value"',)),
    (call(q(options=[{"label": "A", "description": 1}, {"label": "B"}])), ('"description"',)),
    (call(q(options=[{"label": "A", "description": "d" * 501}, {"label": "B"}])), ("500",)),
    (call(q(options=[{"label": "A", "preview": ["x"]}, {"label": "B"}])), ('"preview"',)),
    (call(q(options=[{"label": "A", "preview": "p" * 4001}, {"label": "B"}])), ("4000",)),
    (
        call(q(options=[{"label": "A", "preview": "x"}, {"label": "B"}], multiSelect=True)),
        ("option 1", "preview", "single-select"),
    ),
    # wait references
    (call(q(), {"questionId": "q-1"}), ("mixes",)),
    (call({"questionId": "q-1"}, q()), ("mixes",)),
    (call({"questionId": "q-1", "question": "Q?"}), ('"questionId" together with',)),
    (call({"questionId": "q-1"}, blocking=False), ("always blocking",)),
    (call({"questionId": "q-1"}, {"questionId": "q-1"}), ("Question 2", "repeats")),
    (call({"questionId": None}), ('missing "questionId"',)),
    (call({"questionId": 12}), ('"questionId"', "a number")),
    (call({"questionId": ""}), ('"questionId"', "empty")),
    (call({"questionId": "q" * 129}), ('"questionId"', "128")),
]


@pytest.mark.parametrize(("arguments", "fragments"), INVALID)
def test_invalid_arguments(arguments: object, fragments: tuple[str, ...]) -> None:
    err = error(arguments)
    assert err.code is ErrorCode.INVALID_ARGUMENTS
    for fragment in fragments:
        assert fragment in err.message
    assert err.message.endswith(".")
    assert err.text == f"Error [invalid_arguments]: {err.message}"


def test_huge_strings_are_never_echoed() -> None:
    huge = "A" * 1_000_000
    for arguments in (
        call(q(huge)),
        call(q(header=huge)),
        call(q(**{huge: 1})),
        {huge: True, "questions": [q()]},
        call({"questionId": huge}),
        call(q(options=[{"label": huge}, {"label": "B"}])),
    ):
        err = error(arguments)
        assert err.code is ErrorCode.INVALID_ARGUMENTS
        assert len(err.message) < 400


def test_quoted_keys_are_sanitised_and_truncated() -> None:
    key = "\x1b]52;c;evil\x07" + "k" * 100
    err = error(call(q(**{key: 1})))
    assert "\x1b" not in err.message
    assert '"' + "k" * 40 + '…"' in err.message


def test_error_text_format() -> None:
    err = error({})
    assert err.text.startswith("Error [no_questions]: ")


# A JSON value strategy, with dicts biased toward the real keys.
KEYS = st.sampled_from(
    [
        "questions",
        "blocking",
        "question",
        "header",
        "options",
        "multiSelect",
        "context",
        "label",
        "description",
        "preview",
        "questionId",
        "x",
    ]
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(KEYS, inner, max_size=6)
        | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=40,
)
OPTION = st.fixed_dictionaries(
    {"label": st.text(max_size=70) | st.sampled_from(["Other", "Next", "a", "A"])},
    optional={"description": JSON, "preview": st.text(max_size=10) | st.none()},
)
QUESTION = st.fixed_dictionaries(
    {"question": st.text(min_size=1, max_size=40) | JSON, "header": st.text(max_size=20)},
    optional={
        "options": st.lists(OPTION, min_size=2, max_size=4)
        | st.lists(OPTION | JSON, max_size=5)
        | st.none(),
        "multiSelect": st.booleans() | JSON,
        "context": st.text(max_size=10),
    },
)
ARGUMENTS = JSON | st.fixed_dictionaries(
    {
        "questions": st.lists(QUESTION, min_size=1, max_size=4)
        | st.lists(QUESTION | st.fixed_dictionaries({"questionId": JSON}), max_size=5)
    },
    optional={"blocking": st.booleans() | JSON},
)


@settings(max_examples=500)
@given(ARGUMENTS)
def test_validate_call_never_raises(arguments: object) -> None:
    result = validate_call(arguments)
    assert isinstance(result, NewQuestions | WaitOn | ToolError)
    if isinstance(result, ToolError):
        assert result.message.endswith(".")
        assert "\x1b" not in result.message


# --------------------------------------------------------------------- parse_arguments


def test_parse_arguments() -> None:
    assert parse_arguments('{"questions": []}') == {"questions": []}
    assert parse_arguments(b'{"blocking": false}') == {"blocking": False}
    assert parse_arguments(None) == {}
    assert parse_arguments("") == {}
    assert parse_arguments("  \n") == {}
    assert parse_arguments("[1]") == [1]


@pytest.mark.parametrize(
    "raw", ['{"questions": [', "{'a': 1}", "NaN", '{"a": Infinity}', b"\xff\xfe", "[" * 100_000]
)
def test_parse_arguments_rejects_malformed_json(raw: str | bytes) -> None:
    result = parse_arguments(raw)
    assert isinstance(result, ToolError)
    assert result.code is ErrorCode.INVALID_ARGUMENTS
    assert len(result.message) < 300


def test_parse_arguments_names_the_position() -> None:
    result = parse_arguments('{"questions": [}')
    assert isinstance(result, ToolError)
    assert "line 1, column 16" in result.message


# ---------------------------------------------------------------------- host errors


def test_host_side_errors() -> None:
    err = contract.unknown_question(["q-1", "q-2"])
    assert err.code is ErrorCode.UNKNOWN_QUESTION
    assert 'the ids "q-1", "q-2"' in err.message
    err = contract.already_waiting(["q-3"])
    assert err.code is ErrorCode.ALREADY_WAITING
    assert 'the id "q-3"' in err.message
    err = contract.no_ui()
    assert err.code is ErrorCode.NO_UI
    assert "Do not call ask_user_question again" in err.message
    err = contract.storage_failed("disk full\x1b[2J")
    assert err.code is ErrorCode.STORAGE_FAILED
    assert "(disk full)" in err.message
    assert "\x1b" not in err.message
    err = contract.call_conflict("call_9")
    assert err.code is ErrorCode.CALL_CONFLICT
    assert '"call_9"' in err.message
    assert err.text.startswith("Error [call_conflict]: ")


def test_error_code_values_are_snake_case_names() -> None:
    for code in ErrorCode:
        assert code.value == code.name.lower()
    assert len({code.value for code in ErrorCode}) == len(ErrorCode) == 22


# ------------------------------------------------------------------ schema, guidance


def test_openai_and_anthropic_share_the_schema() -> None:
    openai = contract.openai_tool()
    anthropic = contract.anthropic_tool()
    assert openai["type"] == "function"
    assert openai["function"]["name"] == anthropic["name"] == TOOL_NAME
    assert openai["function"]["description"] == anthropic["description"]
    assert openai["function"]["parameters"] == anthropic["input_schema"]
    assert anthropic["input_schema"] == contract.input_schema()
    json.dumps(openai)  # serialisable
    assert openai["function"]["parameters"] is not anthropic["input_schema"]


def test_custom_guidance_is_used() -> None:
    guidance = Guidance(description="Ask things.")
    assert contract.openai_tool(guidance)["function"]["description"] == "Ask things."
    assert contract.anthropic_tool(guidance)["description"] == "Ask things."


def test_default_guidance_explains_the_contract() -> None:
    guidance = Guidance()
    for fragment in ('"blocking": false', "questionId", "timeout", "[asks feedback]"):
        assert fragment in guidance.description
    assert TOOL_NAME in guidance.prompt_snippet
    assert "questionId" in guidance.guidelines
    assert "Other" in guidance.guidelines


def test_schema_structure_and_limits() -> None:
    schema = contract.input_schema()
    assert schema["required"] == ["questions"]
    assert schema["additionalProperties"] is False
    questions = schema["properties"]["questions"]
    assert (questions["minItems"], questions["maxItems"]) == (1, model.MAX_QUESTIONS)
    new, wait = questions["items"]["anyOf"]
    assert set(new["properties"]) == {
        "question",
        "header",
        "options",
        "multiSelect",
        "context",
        "custom",
    }
    assert new["properties"]["custom"]["default"] is True
    assert new["properties"]["header"]["maxLength"] == model.MAX_HEADER
    options = new["properties"]["options"]
    assert (options["minItems"], options["maxItems"]) == (2, 4)
    assert options["items"]["properties"]["label"]["maxLength"] == model.MAX_LABEL
    assert wait["required"] == ["questionId"]
    assert schema["properties"]["blocking"]["default"] is True


def conforms(value: object, schema: dict[str, Any]) -> bool:
    """A tiny checker for the JSON Schema subset the contract uses."""
    if "anyOf" in schema:
        return any(conforms(value, sub) for sub in schema["anyOf"])
    kind = schema["type"]
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str) and (
            schema.get("minLength", 0) <= len(value) <= schema["maxLength"]
        )
    if kind == "array":
        return (
            isinstance(value, list)
            and schema["minItems"] <= len(value) <= schema["maxItems"]
            and all(conforms(item, schema["items"]) for item in value)
        )
    assert kind == "object"
    if not isinstance(value, dict) or not set(schema["required"]) <= set(value):
        return False
    props = schema["properties"]
    return all(key in props and conforms(item, props[key]) for key, item in value.items())


@pytest.mark.parametrize(
    "arguments",
    [
        call(q()),
        call(q(options=opts("A", "B"), multiSelect=True), blocking=False),
        call(
            q(
                options=[{"label": "A", "description": "d", "preview": "p"}, {"label": "B"}],
                context="c",
            )
        ),
        call({"questionId": "q-0123456789"}),
    ],
)
def test_schema_accepts_what_validation_accepts(arguments: dict[str, Any]) -> None:
    assert not isinstance(validate_call(arguments), ToolError)
    assert conforms(arguments, contract.input_schema())


@pytest.mark.parametrize(
    "arguments",
    [{}, call(q(), x=1), call(q(options=opts("A"))), call()],
)
def test_schema_rejects_some_invalid_calls(arguments: dict[str, Any]) -> None:
    assert isinstance(validate_call(arguments), ToolError)
    assert not conforms(arguments, contract.input_schema())


# --------------------------------------------------------------------------- results

DB = QuestionSpec(
    "Which database?",
    "Database",
    (Option("Postgres", "big"), Option("SQLite", "small", "sqlite3 app.db"), Option("Mongo")),
)
REGIONS = QuestionSpec(
    "Which regions?", "Regions", (Option("EU"), Option("US"), Option("Asia")), multi_select=True
)
NAME = QuestionSpec("What name?", "Name")


def question(spec: QuestionSpec, index: int, qid: str) -> Question:
    return Question(QuestionRef(qid, 7 + index), "g-1", index, spec)


Q_DB = question(DB, 0, "q-aaaaaaaaaa")
Q_REGIONS = question(REGIONS, 1, "q-bbbbbbbbbb")
Q_NAME = question(NAME, 2, "q-cccccccccc")


def answered(qn: Question, answer: Answer) -> tuple[Question, Resolution]:
    return qn, Resolution(qn.ref, ResolutionKind.ANSWERED, answer)


def declined(qn: Question) -> tuple[Question, Resolution]:
    return qn, Resolution(qn.ref, ResolutionKind.DECLINED)


def assert_plain_json(details: dict[str, Any]) -> None:
    assert json.loads(json.dumps(details)) == details
    assert type(details["outcome"]) is str
    for item in details["answers"]:
        assert type(item["kind"]) is str


def test_answered_result() -> None:
    items = [
        answered(Q_DB, Answer(AnswerKind.OPTION, (1,), notes="keep it light")),
        answered(Q_REGIONS, Answer(AnswerKind.MULTI, (2, 0), custom_text="Mars")),
        declined(Q_NAME),
    ]
    envelope = contract.answered_result("call-1", items)
    assert envelope.outcome is Outcome.ANSWERED
    assert envelope.text == (
        'User has answered your questions: "Which database?"="SQLite" user notes: keep it '
        'light selected preview: sqlite3 app.db. "Which regions?"="EU, Asia, Mars". '
        '"What name?"=(declined). You can now continue with the user\'s answers in mind.'
    )
    details = envelope.details
    assert_plain_json(details)
    assert details["outcome"] == "answered"
    assert details["callId"] == "call-1"
    assert details["questionIds"] == ["q-aaaaaaaaaa", "q-bbbbbbbbbb", "q-cccccccccc"]
    assert details["pending"] == []
    assert details["answers"] == [
        {
            "questionIndex": 0,
            "questionId": "q-aaaaaaaaaa",
            "question": "Which database?",
            "kind": "option",
            "answer": "SQLite",
            "selected": ["SQLite"],
            "optionIndices": [1],
            "notes": "keep it light",
            "preview": "sqlite3 app.db",
            "customText": None,
        },
        {
            "questionIndex": 1,
            "questionId": "q-bbbbbbbbbb",
            "question": "Which regions?",
            "kind": "multi",
            "answer": "EU, Asia, Mars",
            "selected": ["EU", "Asia"],
            "optionIndices": [0, 2],
            "notes": "",
            "preview": None,
            "customText": "Mars",
        },
        {
            "questionIndex": 2,
            "questionId": "q-cccccccccc",
            "question": "What name?",
            "kind": "declined",
            "answer": "",
            "selected": [],
            "optionIndices": [],
            "notes": "",
            "preview": None,
            "customText": None,
        },
    ]


def test_answer_labels_come_from_indices() -> None:
    # Same answer (index 0) against the options in another order names another label.
    reordered = question(
        QuestionSpec(DB.question, DB.header, tuple(reversed(DB.options))), 0, "q-aaaaaaaaaa"
    )
    answer = Answer(AnswerKind.OPTION, (0,))
    first = contract.answered_result("c", [answered(Q_DB, answer)]).details["answers"][0]
    second = contract.answered_result("c", [answered(reordered, answer)]).details["answers"][0]
    assert (first["answer"], first["optionIndices"]) == ("Postgres", [0])
    assert (second["answer"], second["optionIndices"]) == ("Mongo", [0])


def test_custom_answer() -> None:
    items = [answered(Q_NAME, Answer(AnswerKind.CUSTOM, custom_text="Ada"))]
    envelope = contract.answered_result("c", items)
    assert '"What name?"="Ada".' in envelope.text
    detail = envelope.details["answers"][0]
    assert (detail["kind"], detail["answer"], detail["selected"]) == ("custom", "Ada", [])


def test_partial_result_names_pending_ids() -> None:
    items = [answered(Q_DB, Answer(AnswerKind.OPTION, (0,)))]
    envelope = contract.answered_result("call-2", items, still_pending=[Q_NAME])
    assert envelope.outcome is Outcome.PARTIAL
    assert envelope.text.startswith('User has answered your questions: "Which database?"=')
    assert 'Still pending: "What name?" (id q-cccccccccc).' in envelope.text
    assert "feedback messages" in envelope.text
    assert '{"questions":[{"questionId":"q-cccccccccc"}]}' in envelope.text
    assert envelope.details["outcome"] == "partial"
    assert envelope.details["pending"] == ["q-cccccccccc"]
    assert envelope.details["questionIds"] == ["q-aaaaaaaaaa", "q-cccccccccc"]
    assert len(envelope.details["answers"]) == 1


def test_declined_result() -> None:
    envelope = contract.declined_result("call-3", [Q_DB, Q_NAME])
    assert envelope.outcome is Outcome.DECLINED
    assert envelope.text.startswith("User declined to answer questions")
    assert "Do not ask them again" in envelope.text
    assert [a["kind"] for a in envelope.details["answers"]] == ["declined", "declined"]
    assert envelope.details["pending"] == []
    assert_plain_json(envelope.details)


def test_deferred_result_says_how_to_wait() -> None:
    envelope = contract.deferred_result("call-4", [Q_DB, Q_NAME])
    assert envelope.outcome is Outcome.DEFERRED
    assert "q-aaaaaaaaaa" in envelope.text
    assert "q-cccccccccc" in envelope.text
    assert "feedback" in envelope.text
    assert (
        'call ask_user_question with {"questions":[{"questionId":"q-aaaaaaaaaa"},'
        '{"questionId":"q-cccccccccc"}]}' in envelope.text
    )
    assert envelope.details["pending"] == ["q-aaaaaaaaaa", "q-cccccccccc"]
    assert envelope.details["answers"] == []
    assert_plain_json(envelope.details)


def test_withdrawn_result() -> None:
    envelope = contract.withdrawn_result("call-5", [Q_DB])
    assert envelope.outcome is Outcome.WITHDRAWN
    assert "withdrawn" in envelope.text
    assert "No answer will arrive" in envelope.text
    assert envelope.details["pending"] == []
    assert envelope.details["questionIds"] == ["q-aaaaaaaaaa"]


def test_interrupted_result_is_not_a_decline() -> None:
    envelope = contract.interrupted_result("call-6", [Q_DB], "turn aborted\x1b[2J")
    assert envelope.outcome is Outcome.INTERRUPTED
    assert "interrupted (turn aborted)" in envelope.text
    assert "This is not a decline" in envelope.text
    assert "declined" not in envelope.text.lower()
    assert "q-aaaaaaaaaa" in envelope.text
    assert "feedback" in envelope.text
    assert envelope.details["pending"] == ["q-aaaaaaaaaa"]
    assert contract.interrupted_result("c", [Q_DB], "").text.startswith(
        "Waiting for the user's answer was interrupted. "
    )


def test_queued_result() -> None:
    envelope = contract.queued_result("call-7", [Q_DB, Q_REGIONS])
    assert envelope.outcome is Outcome.QUEUED
    assert '"Which database?" (id q-aaaaaaaaaa), "Which regions?" (id q-bbbbbbbbbb)' in (
        envelope.text
    )
    assert "Keep working" in envelope.text
    assert '{"questionId":"q-bbbbbbbbbb"}' in envelope.text
    assert envelope.details == {
        "outcome": "queued",
        "callId": "call-7",
        "questionIds": ["q-aaaaaaaaaa", "q-bbbbbbbbbb"],
        "texts": {"q-aaaaaaaaaa": "Which database?", "q-bbbbbbbbbb": "Which regions?"},
        "answers": [],
        "pending": ["q-aaaaaaaaaa", "q-bbbbbbbbbb"],
    }


def test_already_received_result() -> None:
    envelope = contract.already_received_result("call-8", [Q_NAME])
    assert envelope.outcome is Outcome.ALREADY_RECEIVED
    assert "already answered" in envelope.text
    assert "[asks feedback]" in envelope.text
    assert envelope.details["answers"] == []
    assert envelope.details["pending"] == []
    assert envelope.details["outcome"] == "already_received"


def test_feedback_text() -> None:
    text = contract.feedback_text(
        [
            answered(Q_DB, Answer(AnswerKind.OPTION, (1,), notes="for now")),
            declined(Q_NAME),
            answered(Q_REGIONS, Answer(AnswerKind.MULTI, ())),
        ]
    )
    assert text == (
        "[asks feedback] The user responded to question(s) you asked earlier:\n\n"
        'Question q-aaaaaaaaaa "Which database?": answer "SQLite". User notes: for now\n'
        "Selected preview:\nsqlite3 app.db\n\n"
        'Question q-cccccccccc "What name?": the user declined to answer.\n\n'
        'Question q-bbbbbbbbbb "Which regions?": the user selected nothing.'
    )


def test_feedback_never_calls_the_questions_non_blocking() -> None:
    """Feedback also carries answers to blocking questions whose wait was interrupted."""
    text = contract.feedback_text([declined(Q_NAME)])
    assert "non-blocking" not in text and "answered" not in text.split("\n")[0]


# ---------------------------------------------------------------- over-long headers
def test_an_over_long_header_is_shortened_not_rejected() -> None:
    result = accepted(call(q(header="Database configuration")))
    header = result.specs[0].header
    assert header == "Database config…" and len(header) == model.MAX_HEADER
    # still rejected: an empty header, and sizes no model means as a chip label
    assert error(call(q(header="   "))).code is ErrorCode.INVALID_ARGUMENTS
    assert error(call(q(header="h" * 100_000))).code is ErrorCode.INVALID_ARGUMENTS


def test_a_shortened_header_is_reported_in_the_result() -> None:
    spec = accepted(call(q(header="Database configuration"))).specs[0]
    shortened = question(spec, 0, "q-dddddddddd")
    note = 'the user sees "Database config…". Keep headers shorter next time.'
    assert note in contract.queued_result("c", [shortened]).text
    answer = answered(shortened, Answer(AnswerKind.CUSTOM, custom_text="pg"))
    assert note in contract.answered_result("c", [answer]).text
    assert note in contract.interrupted_result("c", [shortened], "x").text
    assert "Note:" not in contract.queued_result("c", [Q_DB]).text  # a header that fits


def test_no_double_period_when_a_preview_or_note_ends_a_sentence() -> None:
    spec = QuestionSpec("Pick?", "Pick", (Option("A", preview="done."), Option("B")))
    picked = answered(question(spec, 0, "q-eeeeeeeeee"), Answer(AnswerKind.OPTION, (0,)))
    text = contract.answered_result("c", [picked]).text
    assert "selected preview: done. You can now" in text and ".." not in text
    noted = answered(Q_NAME, Answer(AnswerKind.CUSTOM, custom_text="Ada", notes="Sure!"))
    assert '"What name?"="Ada" user notes: Sure! You' in contract.answered_result("c", [noted]).text


# ---------------------------------------------------------------- withdraw_question
def test_withdraw_arguments() -> None:
    assert validate_withdraw(
        {"questionIds": ["q-1", " q-2 "], "reason": " found it\x1b[2J "}
    ) == Withdraw(("q-1", "q-2"), "found it")
    assert validate_withdraw({"questionIds": ["q-1"], "reason": None}) == Withdraw(("q-1",))
    for bad in (
        {},
        {"questionIds": []},
        {"questionIds": "q-1"},
        {"questionIds": [1]},
        {"questionIds": ["q-1", "q-1"]},
        {"questionIds": ["q-1"], "why": "x"},
        {"questionIds": ["q-1"], "reason": 3},
        [],
        {"questionIds": ["q"] * 17},
        {"questionIds": ["q-1"], "reason": "r" * 201},
    ):
        err = validate_withdraw(bad)
        assert isinstance(err, ToolError) and err.code is ErrorCode.INVALID_ARGUMENTS, bad


def test_withdraw_schema_accepts_what_validation_accepts() -> None:
    schema = withdraw_tool()["function"]["parameters"]
    good = {"questionIds": ["q-0123456789"], "reason": "not needed"}
    assert not isinstance(validate_withdraw(good), ToolError)
    assert conforms(good, schema)
    assert not conforms({"questionIds": []}, schema)


def test_withdraw_errors_and_result() -> None:
    assert unknown_to_withdraw(["q-x"]).code is ErrorCode.UNKNOWN_QUESTION
    err = already_answered(["q-1", "q-2"])
    assert err.code is ErrorCode.ALREADY_ANSWERED and 'the ids "q-1", "q-2"' in err.message
    assert "reaches you once" in err.message
    text = withdrawn_text([Q_DB], "found it in the docs")
    assert text == (
        'Withdrawn: "Which database?" (id q-aaaaaaaaaa). The user no longer sees '
        "them and no answer will arrive for them. Reason shown to the user: found "
        "it in the docs."
    )
