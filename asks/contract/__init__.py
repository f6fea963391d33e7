"""The ``ask_user_question`` tool contract: what the model sees and sends.

Three parts, all pure (no I/O, no host state):

* **Validation.** :func:`parse_arguments` decodes the model's JSON arguments string and
  :func:`validate_call` turns *any* decoded JSON value into a :data:`Call` or a
  :class:`ToolError`; it never raises. A call either asks 1–4 new questions
  (:class:`NewQuestions`, blocking by default) or waits on earlier async questions by id
  (:class:`WaitOn`, always blocking). Every accepted text is stripped of surrounding whitespace
  and sanitised (:mod:`asks.sanitize`) *before* its length is checked; ``null`` counts as
  absent for optional fields. Checks run per question in order — structure, types and lengths;
  then reserved labels; then duplicate labels — and duplicate questions are checked last,
  across the call. Errors carry a code and a full sentence for the model saying what was wrong
  and how to fix the call; quoted model text is sanitised and cut to about 40 characters.
* **Schema and guidance.** :func:`input_schema` is the one JSON Schema of the arguments;
  :func:`openai_tool` and :func:`anthropic_tool` wrap it with the configurable
  :class:`Guidance` text.
* **Results.** One builder per :class:`~asks.core.model.Outcome` returns a :class:`ResultEnvelope`:
  the text the model reads plus JSON-serialisable ``details``. :func:`feedback_text` is the
  message that carries async answers. These use the stored, already sanitised strings as-is;
  only host-supplied extras (a reason, a storage detail, a call id) are sanitised here.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import attrs

from asks.core import model
from asks.core.model import (
    Answer,
    Option,
    Outcome,
    Question,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.sanitize import sanitize_line, sanitize_text

TOOL_NAME: Final = "ask_user_question"
FEEDBACK_PREFIX: Final = "[asks feedback]"
_QUOTE_MAX: Final = 40
_DETAIL_MAX: Final = 200
_RAW_FACTOR: Final = 8

_TOP_KEYS: Final = ("questions", "blocking")
_QUESTION_KEYS: Final = ("question", "header", "options", "multiSelect", "context")
_OPTION_KEYS: Final = ("label", "description", "preview")
_REF_KEY: Final = "questionId"


class ErrorCode(enum.StrEnum):
    """Why a call was rejected; the value appears in the error text as ``Error [code]``."""

    NO_QUESTIONS = "no_questions"
    TOO_MANY_QUESTIONS = "too_many_questions"
    DUPLICATE_QUESTION = "duplicate_question"
    EMPTY_OPTIONS = "empty_options"
    RESERVED_LABEL = "reserved_label"
    DUPLICATE_OPTION_LABEL = "duplicate_option_label"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_QUESTION = "unknown_question"
    ALREADY_WAITING = "already_waiting"
    NO_UI = "no_ui"
    STORAGE_FAILED = "storage_failed"
    CALL_CONFLICT = "call_conflict"


@attrs.frozen
class ToolError:
    """A rejected call: a code and a sentence for the model on how to fix it."""

    code: ErrorCode
    message: str

    @property
    def text(self) -> str:
        return f"Error [{self.code}]: {self.message}"


@attrs.frozen
class NewQuestions:
    """A valid call asking new questions (1–4 specs, already sanitised)."""

    specs: tuple[QuestionSpec, ...]
    blocking: bool


@attrs.frozen
class WaitOn:
    """A valid call that waits (blocking) on earlier questions, by id, without asking anew."""

    question_ids: tuple[str, ...]


Call: TypeAlias = NewQuestions | WaitOn


# --------------------------------------------------------------------------- validation


class _RejectError(Exception):
    """Internal: carries a :class:`ToolError` out of nested checks to :func:`validate_call`."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error = ToolError(code, message)


def _invalid(message: str) -> _RejectError:
    return _RejectError(ErrorCode.INVALID_ARGUMENTS, message)


def _quote(value: object) -> str:
    """A short, sanitised, quoted rendering of model-supplied text for an error message."""
    text = sanitize_line((value if isinstance(value, str) else repr(value))[: _QUOTE_MAX * 4])
    if len(text) > _QUOTE_MAX:
        text = text[:_QUOTE_MAX] + "…"
    return f'"{text}"'


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _allowed(keys: Sequence[str]) -> str:
    return ", ".join(f'"{key}"' for key in keys)


def _reject_unknown_keys(obj: dict[Any, Any], allowed: Sequence[str], where: str) -> None:
    for key in obj:
        if key not in allowed:
            raise _invalid(
                f"{where} has the unknown key {_quote(key)}; "
                f"the allowed keys are {_allowed(allowed)}. Remove it and call again."
            )


_HINTS: Final = {
    "question": "the full question to show the user",
    "header": f'a short chip label of at most {model.MAX_HEADER} characters, e.g. "Database"',
    "label": f"the option's text, at most {model.MAX_LABEL} characters",
    _REF_KEY: "the id of an earlier question, as returned by ask_user_question",
}


_LEADING_BLANK_LINES: Final = re.compile(r"\A(?:[ ]*\n)+")


def _clean_text(s: str) -> str:
    return sanitize_text(s).strip()


def _clean_line(s: str) -> str:
    return sanitize_line(s).strip()


def _clean_block(s: str) -> str:
    """Sanitise a preformatted block: keep the first line's indentation, drop blank edges."""
    return _LEADING_BLANK_LINES.sub("", sanitize_text(s).rstrip())


def _clean(value: str, limit: int, clean: Callable[[str], str], where: str, key: str) -> str:
    # A raw string far over the limit is rejected without the cost of cleaning it.
    text = clean(value) if len(value) <= limit * _RAW_FACTOR + 64 else None
    if text is None or len(text) > limit:
        size = "" if text is None else f" ({len(text)} characters)"
        raise _invalid(
            f'{where}: "{key}" is too long{size}; the limit is {limit} characters. '
            "Shorten it and call again."
        )
    return text


def _string(obj: dict[Any, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _invalid(f'{where}: "{key}" must be a string, not {_json_type(value)}.')


def _required_text(
    obj: dict[Any, Any], key: str, where: str, limit: int, clean: Callable[[str], str]
) -> str:
    value = _string(obj, key, where)
    hint = _HINTS.get(key, "text")
    if value is None:
        raise _invalid(f'{where} is missing "{key}" ({hint}). Add it and call again.')
    text = _clean(value, limit, clean, where, key)
    if not text:
        raise _invalid(f'{where}: "{key}" is empty; it must be {hint}.')
    return text


def _optional_text(
    obj: dict[Any, Any], key: str, where: str, limit: int, clean: Callable[[str], str]
) -> str | None:
    value = _string(obj, key, where)
    if value is None:
        return None
    return _clean(value, limit, clean, where, key) or None


def _optional_bool(obj: dict[Any, Any], key: str, default: bool, where: str) -> bool:
    value = obj.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    raise _invalid(f'{where}: "{key}" must be true or false, not {_json_type(value)}.')


def _question_entries(raw: object) -> list[dict[Any, Any]]:
    if raw is None or raw == []:
        raise _RejectError(
            ErrorCode.NO_QUESTIONS,
            'The call has no questions. Pass "questions": an array of 1 to '
            f'{model.MAX_QUESTIONS} question objects, each with "question" and "header".',
        )
    if not isinstance(raw, list):
        raise _invalid(f'"questions" must be an array of question objects, not {_json_type(raw)}.')
    if len(raw) > model.MAX_QUESTIONS:
        raise _RejectError(
            ErrorCode.TOO_MANY_QUESTIONS,
            f"The call has {len(raw)} questions but at most {model.MAX_QUESTIONS} are allowed "
            "in one call. Ask the most important ones now and the rest in a later call.",
        )
    for n, entry in enumerate(raw, 1):
        if not isinstance(entry, dict):
            raise _invalid(
                f'Question {n} must be an object with "question" and "header" (or only '
                f'"questionId"), not {_json_type(entry)}.'
            )
    return raw


def _wait_on(entries: list[dict[Any, Any]], blocking: bool) -> WaitOn:
    if not blocking:
        raise _invalid(
            'Waiting on questions by "questionId" is always blocking; remove "blocking": '
            "false. To keep working instead, just don't wait: the answers will arrive as "
            "feedback messages."
        )
    ids: list[str] = []
    for n, entry in enumerate(entries, 1):
        for key in entry:
            if key != _REF_KEY:
                raise _invalid(
                    f'Question {n} has "questionId" together with {_quote(key)}. An entry is '
                    'either a new question or only {"questionId": "..."} to wait on an '
                    "earlier question; send those in separate calls."
                )
        qid = _required_text(entry, _REF_KEY, f"Question {n}", model.MAX_ID, _clean_line)
        if qid in ids:
            raise _invalid(f"Question {n} repeats the id {_quote(qid)}; list each id once.")
        ids.append(qid)
    return WaitOn(tuple(ids))


def _option(n: int, m: int, raw: object, multi: bool) -> Option:
    where = f"Question {n}, option {m}"
    if not isinstance(raw, dict):
        raise _invalid(f'{where} must be an object with a "label", not {_json_type(raw)}.')
    _reject_unknown_keys(raw, _OPTION_KEYS, where)
    label = _required_text(raw, "label", where, model.MAX_LABEL, _clean_line)
    description = _optional_text(raw, "description", where, model.MAX_DESCRIPTION, _clean_text)
    if multi and raw.get("preview") is not None:
        raise _invalid(
            f'{where} has a "preview", but previews are only allowed in single-select '
            'questions. Remove the preview or set "multiSelect" to false.'
        )
    preview = _optional_text(raw, "preview", where, model.MAX_PREVIEW, _clean_block)
    return Option(label=label, description=description or "", preview=preview)


def _options(n: int, raw: object, multi: bool) -> tuple[Option, ...]:
    if raw is None:
        return ()
    if raw == []:
        raise _RejectError(
            ErrorCode.EMPTY_OPTIONS,
            f'Question {n} has an empty "options" array. Give {model.MIN_OPTIONS} to '
            f'{model.MAX_OPTIONS} options, or leave "options" out for a free-text answer.',
        )
    if not isinstance(raw, list):
        raise _invalid(f'Question {n}: "options" must be an array, not {_json_type(raw)}.')
    if not model.MIN_OPTIONS <= len(raw) <= model.MAX_OPTIONS:
        raise _invalid(
            f"Question {n} has {len(raw)} option{'' if len(raw) == 1 else 's'}; give "
            f'{model.MIN_OPTIONS} to {model.MAX_OPTIONS}, or leave "options" out for a '
            "free-text answer."
        )
    return tuple(_option(n, m, item, multi) for m, item in enumerate(raw, 1))


def _check_labels(n: int, options: Sequence[Option]) -> None:
    reserved = {label.casefold() for label in model.RESERVED_LABELS}
    for m, option in enumerate(options, 1):
        if option.label.casefold() in reserved:
            raise _RejectError(
                ErrorCode.RESERVED_LABEL,
                f"Question {n}, option {m} uses the reserved label {_quote(option.label)}. "
                f"The panel adds its own rows ({_allowed(model.RESERVED_LABELS)}) and the "
                "user can always type a custom answer, so remove that option or rename it.",
            )
    seen: dict[str, int] = {}
    for m, option in enumerate(options, 1):
        key = option.label.casefold()
        if key in seen:
            raise _RejectError(
                ErrorCode.DUPLICATE_OPTION_LABEL,
                f"Question {n}: options {seen[key]} and {m} have the same label "
                f"{_quote(option.label)}. Labels must differ (ignoring case).",
            )
        seen[key] = m


def _new_question(n: int, entry: dict[Any, Any]) -> QuestionSpec:
    where = f"Question {n}"
    _reject_unknown_keys(entry, _QUESTION_KEYS, where)
    question = _required_text(entry, "question", where, model.MAX_QUESTION_TEXT, _clean_text)
    header = _required_text(entry, "header", where, model.MAX_HEADER, _clean_line)
    multi = _optional_bool(entry, "multiSelect", False, where)
    context = _optional_text(entry, "context", where, model.MAX_CONTEXT, _clean_text)
    options = _options(n, entry.get("options"), multi)
    if multi and not options:
        raise _invalid(
            f'{where} sets "multiSelect": true but has no options. Add {model.MIN_OPTIONS} '
            f'to {model.MAX_OPTIONS} options, or drop "multiSelect" for a free-text answer.'
        )
    _check_labels(n, options)
    return QuestionSpec(question, header, options, multi, context)


def _check_distinct(specs: Sequence[QuestionSpec]) -> None:
    seen: dict[str, int] = {}
    for n, spec in enumerate(specs, 1):
        key = " ".join(spec.question.casefold().split())
        if key in seen:
            raise _RejectError(
                ErrorCode.DUPLICATE_QUESTION,
                f"Questions {seen[key]} and {n} ask the same thing. Ask each question once.",
            )
        seen[key] = n


def _validate(arguments: object) -> Call:
    if not isinstance(arguments, dict):
        raise _invalid(
            'The arguments must be a JSON object such as {"questions": [...]}, '
            f"not {_json_type(arguments)}."
        )
    _reject_unknown_keys(arguments, _TOP_KEYS, "The call")
    blocking = _optional_bool(arguments, "blocking", True, "The call")
    entries = _question_entries(arguments.get("questions"))
    refs = [_REF_KEY in entry for entry in entries]
    if all(refs):
        return _wait_on(entries, blocking)
    if any(refs):
        raise _invalid(
            'The call mixes new questions with {"questionId": ...} wait entries. Ask new '
            "questions and wait on earlier ones in separate calls."
        )
    specs = tuple(_new_question(n, entry) for n, entry in enumerate(entries, 1))
    _check_distinct(specs)
    return NewQuestions(specs, blocking)


def validate_call(arguments: object) -> Call | ToolError:
    """Validate decoded JSON arguments into a :data:`Call`, or say why not. Never raises."""
    try:
        return _validate(arguments)
    except _RejectError as reject:
        return reject.error


def parse_arguments(raw: str | bytes | None) -> object | ToolError:
    """Decode a model's JSON arguments string; ``None`` or blank text decodes to ``{}``."""
    if raw is None:
        return {}
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                "The arguments are not valid UTF-8 text. Send them as one JSON object.",
            )
    if not raw.strip():
        return {}
    try:
        decoded: object = json.loads(raw, parse_constant=_reject_constant)
        return decoded
    except json.JSONDecodeError as exc:
        where = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    except (ValueError, RecursionError):
        where = "unsupported value or nesting"
    return ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        f"The arguments are not valid JSON ({where}). Send one JSON object such as "
        '{"questions": [{"question": "Which database?", "header": "Database"}]}.',
    )


def _reject_constant(name: str) -> object:
    raise ValueError(name)


# ------------------------------------------------------------------ host-side errors


def _ids(ids: Sequence[str]) -> str:
    quoted = ", ".join(_quote(i) for i in ids[:10]) + (", …" if len(ids) > 10 else "")
    return f"the id {quoted}" if len(ids) == 1 else f"the ids {quoted}"


def unknown_question(ids: Sequence[str]) -> ToolError:
    return ToolError(
        ErrorCode.UNKNOWN_QUESTION,
        f"There is nothing to wait for with {_ids(ids)}: no such question was asked in this "
        "conversation, or it was withdrawn. Wait only on ids that an earlier "
        "ask_user_question call returned, or ask a new question instead.",
    )


def already_waiting(ids: Sequence[str]) -> ToolError:
    return ToolError(
        ErrorCode.ALREADY_WAITING,
        f"Another ask_user_question call is already waiting on {_ids(ids)}. Do not wait twice; "
        "that call's result will carry the answer.",
    )


def no_ui() -> ToolError:
    return ToolError(
        ErrorCode.NO_UI,
        "Nobody can answer questions in this run: there is no interactive user interface. "
        "Do not call ask_user_question again; continue with your best judgement and state the "
        "assumptions you made.",
    )


def _reason(detail: str) -> str:
    """`` (detail)`` for a message, sanitised and bounded; empty for no detail."""
    text = sanitize_line(detail[: _DETAIL_MAX * 4]).strip()[:_DETAIL_MAX]
    return f" ({text})" if text else ""


def storage_failed(detail: str) -> ToolError:
    reason = _reason(detail)
    return ToolError(
        ErrorCode.STORAGE_FAILED,
        f"Saving to the conversation journal failed{reason}, so the call had no effect and "
        "nothing was shown to the user. Do not retry now; continue without the user's answer "
        "and tell the user that questions are currently unavailable.",
    )


def result_not_saved(detail: str) -> ToolError:
    """The wait ended but its tool result could not be journaled: answers come as feedback."""
    reason = _reason(detail)
    return ToolError(
        ErrorCode.STORAGE_FAILED,
        f"The wait ended, but its result could not be saved to the conversation journal"
        f"{reason}. Any answers the user saved are kept and will reach you as feedback "
        "messages once saving works again; continue with the task meanwhile.",
    )


def call_conflict(call_id: str) -> ToolError:
    return ToolError(
        ErrorCode.CALL_CONFLICT,
        f"The tool-call id {_quote(call_id)} was already used for a different "
        "ask_user_question call in this conversation, so these questions were not asked. "
        "Make the call again as a new tool call.",
    )


# ----------------------------------------------------------------- schema and guidance

_DESCRIPTION: Final = (
    "Ask the user 1 to 4 questions in a panel above their chat input, each with 2-4 options "
    "or a free-text answer. Use it for decisions or information only the user has. By "
    "default the call is blocking: it returns once the user has answered, declined, or "
    'chosen to answer later. With "blocking": false it returns at once with a stable id per '
    "question (like q-1a2b3c4d5e) and you keep working; each answer arrives later as a "
    f'message starting with "{FEEDBACK_PREFIX}". To wait for such a question, call the tool '
    'with only its id: {"questions": [{"questionId": "q-1a2b3c4d5e"}]}. There is no '
    "timeout: silence is never consent."
)
_PROMPT_SNIPPET: Final = (
    f"{TOOL_NAME}: ask the user 1-4 questions, blocking by default or non-blocking with "
    f'"blocking": false (answers then arrive as "{FEEDBACK_PREFIX}" messages).'
)
_GUIDELINES: Final = f"""\
- Ask only what you cannot find out yourself; prefer options with clear trade-offs in
  "description". Keep "header" to a short chip (at most {model.MAX_HEADER} characters).
- Never add an "Other" option: the user can always type their own answer.
- Block (the default) when you cannot continue without the answer. Use "blocking": false when
  you can keep working; note the returned ids and carry on.
- Answers to non-blocking questions arrive as "{FEEDBACK_PREFIX}" messages naming the
  question id. Do not ask the same question again while it is pending.
- To wait for pending questions, call {TOOL_NAME} with only their ids:
  {{"questions": [{{"questionId": "q-..."}}]}}.
- There is no timeout. A question the user has not answered is not consent.
- "declined" means the user chose not to answer: do not ask again unless they bring it up.
  "interrupted" is not a decline: the question stays pending.
"""


@attrs.frozen
class Guidance:
    """The text that teaches the model the tool: its description, a system-prompt snippet
    and longer guidelines. Every field is configurable; the defaults stand on their own."""

    description: str = _DESCRIPTION
    prompt_snippet: str = _PROMPT_SNIPPET
    guidelines: str = _GUIDELINES


DEFAULT_GUIDANCE: Final = Guidance()


def _text_schema(max_length: int, description: str, min_length: int = 1) -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": min_length,
        "maxLength": max_length,
        "description": description,
    }


def _option_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "label": _text_schema(model.MAX_LABEL, "The option's short text."),
            "description": _text_schema(
                model.MAX_DESCRIPTION, "What choosing this option means.", 0
            ),
            "preview": _text_schema(
                model.MAX_PREVIEW,
                "Optional preformatted text (code, mock-up) shown when the option is "
                "highlighted. Single-select questions only.",
                0,
            ),
        },
        "required": ["label"],
        "additionalProperties": False,
    }


def _new_question_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "question": _text_schema(model.MAX_QUESTION_TEXT, "The full question."),
            "header": _text_schema(model.MAX_HEADER, "A very short chip label for the tab."),
            "options": {
                "type": "array",
                "minItems": model.MIN_OPTIONS,
                "maxItems": model.MAX_OPTIONS,
                "items": _option_schema(),
                "description": "Choices with distinct labels; leave out for a free-text "
                'answer. Do not include "Other": the user can always type an answer.',
            },
            "multiSelect": {
                "type": "boolean",
                "default": False,
                "description": "Let the user pick several options.",
            },
            "context": _text_schema(
                model.MAX_CONTEXT, "Optional background shown under the question.", 0
            ),
        },
        "required": ["question", "header"],
        "additionalProperties": False,
    }


def _wait_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            _REF_KEY: _text_schema(
                model.MAX_ID, "Id of an earlier non-blocking question to wait for."
            ),
        },
        "required": [_REF_KEY],
        "additionalProperties": False,
    }


def input_schema() -> dict[str, Any]:
    """The JSON Schema of the tool's arguments (a fresh dict on every call)."""
    return {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": model.MAX_QUESTIONS,
                "items": {"anyOf": [_new_question_schema(), _wait_schema()]},
                "description": "New questions, or only {questionId} entries to wait on "
                "earlier non-blocking questions (not both in one call).",
            },
            "blocking": {
                "type": "boolean",
                "default": True,
                "description": "false: return at once with question ids; answers arrive "
                "later as feedback messages.",
            },
        },
        "required": ["questions"],
        "additionalProperties": False,
    }


def openai_tool(guidance: Guidance = DEFAULT_GUIDANCE) -> dict[str, Any]:
    """The tool in OpenAI chat-completions function-calling shape."""
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": guidance.description,
            "parameters": input_schema(),
        },
    }


def anthropic_tool(guidance: Guidance = DEFAULT_GUIDANCE) -> dict[str, Any]:
    """The tool in Anthropic Messages API shape."""
    return {"name": TOOL_NAME, "description": guidance.description, "input_schema": input_schema()}


# -------------------------------------------------------------------------- results


@attrs.frozen
class ResultEnvelope:
    """A tool result: its outcome, the text the model reads, and JSON-serialisable details."""

    outcome: Outcome
    text: str
    details: dict[str, Any]


def _answer_of(resolution: Resolution) -> Answer | None:
    if resolution.kind is ResolutionKind.ANSWERED:
        return resolution.answer
    return None


def _answer_detail(question: Question, resolution: Resolution) -> dict[str, Any]:
    spec = question.spec
    detail: dict[str, Any] = {
        "questionIndex": question.index,
        "questionId": question.id,
        "question": spec.question,
    }
    answer = _answer_of(resolution)
    if answer is None:
        return detail | {
            "kind": "declined",
            "answer": "",
            "selected": [],
            "optionIndices": [],
            "notes": "",
            "preview": None,
        }
    indices = sorted(answer.option_indices)
    return detail | {
        "kind": answer.kind.value,
        "answer": answer.text(spec),
        "selected": [spec.options[i].label for i in indices],
        "optionIndices": indices,
        "notes": answer.notes,
        "preview": answer.preview(spec),
    }


def _envelope(
    outcome: Outcome,
    call_id: str,
    text: str,
    questions: Sequence[Question],
    *,
    answers: Sequence[tuple[Question, Resolution]] = (),
    pending: Sequence[Question] = (),
) -> ResultEnvelope:
    details: dict[str, Any] = {
        "outcome": outcome.value,
        "callId": call_id,
        "questionIds": [q.id for q in questions],
        "answers": [_answer_detail(q, r) for q, r in answers],
        "pending": [q.id for q in pending],
    }
    return ResultEnvelope(outcome, text, details)


def _answer_phrase(question: Question, resolution: Resolution) -> str:
    """``"Q"="A" user notes: … selected preview: …`` or ``"Q"=(declined)``."""
    answer = _answer_of(resolution)
    if answer is None:
        return f'"{question.spec.question}"=(declined)'
    text = answer.text(question.spec)
    phrase = f'"{question.spec.question}"=' + (f'"{text}"' if text else "(nothing selected)")
    if answer.notes:
        phrase += f" user notes: {answer.notes}"
    preview = answer.preview(question.spec)
    if preview:
        phrase += f" selected preview: {preview}"
    return phrase


def _listing(questions: Sequence[Question]) -> str:
    return ", ".join(f'"{q.spec.question}" (id {q.id})' for q in questions)


def _wait_hint(questions: Sequence[Question]) -> str:
    call = {"questions": [{_REF_KEY: q.id} for q in questions]}
    return f"call {TOOL_NAME} with {json.dumps(call, separators=(',', ':'))}"


def _arrives_later(questions: Sequence[Question]) -> str:
    return (
        f'Their answers will arrive as feedback messages starting with "{FEEDBACK_PREFIX}"; '
        f"do not ask again. If you cannot continue without them, {_wait_hint(questions)}."
    )


def answered_result(
    call_id: str,
    items: Sequence[tuple[Question, Resolution]],
    still_pending: Sequence[Question] = (),
) -> ResultEnvelope:
    """The user answered (or declined some of) the questions; PARTIAL if some still pend."""
    text = "User has answered your questions: "
    text += " ".join(_answer_phrase(q, r) + "." for q, r in items)
    if still_pending:
        text += f" Still pending: {_listing(still_pending)}. {_arrives_later(still_pending)}"
    text += " You can now continue with the user's answers in mind."
    outcome = Outcome.PARTIAL if still_pending else Outcome.ANSWERED
    questions = [q for q, _ in items] + list(still_pending)
    return _envelope(outcome, call_id, text, questions, answers=items, pending=still_pending)


def declined_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """The user explicitly declined to answer."""
    text = (
        "User declined to answer questions. Do not ask them again unless the user asks you "
        "to; continue with your best judgement and mention the assumptions you make."
    )
    declined = [(q, Resolution(q.ref, ResolutionKind.DECLINED)) for q in questions]
    return _envelope(Outcome.DECLINED, call_id, text, questions, answers=declined)


def deferred_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """The user chose to answer later: the questions stay pending."""
    text = (
        f"The user chose to answer later. Pending: {_listing(questions)}. Keep working on "
        f"what you can. {_arrives_later(questions)}"
    )
    return _envelope(Outcome.DEFERRED, call_id, text, questions, pending=questions)


def withdrawn_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """The questions were withdrawn: no answer will come."""
    text = (
        f"The questions were withdrawn and are no longer shown to the user: "
        f"{_listing(questions)}. No answer will arrive for them; continue without them."
    )
    return _envelope(Outcome.WITHDRAWN, call_id, text, questions)


def interrupted_result(call_id: str, questions: Sequence[Question], reason: str) -> ResultEnvelope:
    """The wait ended without the user (abort, detach, shutdown). Never a human decline."""
    cause = sanitize_line(reason[: _DETAIL_MAX * 4]).strip()[:_DETAIL_MAX]
    text = (
        f"Waiting for the user's answer was interrupted{f' ({cause})' if cause else ''}. "
        f"This is not a decline: the user has not answered yet. The questions stay pending: "
        f"{_listing(questions)}. {_arrives_later(questions)}"
    )
    return _envelope(Outcome.INTERRUPTED, call_id, text, questions, pending=questions)


def queued_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """A non-blocking call was accepted: ids now, answers later as feedback."""
    text = (
        f"Questions sent to the user without blocking: {_listing(questions)}. Keep working "
        "on the task; the user answers whenever they like and there is no timeout. "
        f"{_arrives_later(questions)}"
    )
    return _envelope(Outcome.QUEUED, call_id, text, questions, pending=questions)


def already_received_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """A wait on questions whose answers were already delivered as feedback."""
    text = (
        f"The user already answered {_listing(questions)} earlier; the answer was delivered "
        f'to you as a feedback message starting with "{FEEDBACK_PREFIX}". Use that answer; '
        "there is nothing to wait for."
    )
    return _envelope(Outcome.ALREADY_RECEIVED, call_id, text, questions)


def _feedback_item(question: Question, resolution: Resolution) -> str:
    spec = question.spec
    answer = _answer_of(resolution)
    head = f'Question {question.id} "{spec.question}"'
    if answer is None:
        return f"{head}: the user declined to answer."
    text = answer.text(spec)
    item = f'{head}: answer "{text}".' if text else f"{head}: the user selected nothing."
    if answer.notes:
        item += f" User notes: {answer.notes}"
    preview = answer.preview(spec)
    if preview:
        item += f"\nSelected preview:\n{preview}"
    return item


def feedback_text(items: Sequence[tuple[Question, Resolution]]) -> str:
    """The feedback message carrying async answers: a fixed framing line, then one paragraph
    per item naming the question id, the question and the answer (or the decline)."""
    intro = f"{FEEDBACK_PREFIX} The user answered your earlier non-blocking question(s):"
    return "\n\n".join([intro, *(_feedback_item(q, r) for q, r in items)])
