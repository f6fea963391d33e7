"""Validation of ``ask_user_question`` arguments: any decoded JSON value → a :data:`Call` or a
:class:`~asks.contract.errors.ToolError`; it never raises.

:func:`parse_arguments` decodes the model's JSON arguments string and :func:`validate_call` turns
*any* decoded JSON value into a :data:`Call` or a ``ToolError``. A call either asks 1–4 new
questions (:class:`NewQuestions`, blocking by default) or waits on earlier async questions by id
(:class:`WaitOn`, always blocking). Every accepted text is stripped of surrounding whitespace
and sanitised (:mod:`asks.sanitize`) *before* its length is checked; ``null`` counts as
absent for optional fields. Option labels and headers, short texts many questions repeat,
are interned (``sys.intern``: one string per text in the process). A ``header`` over its
limit is shortened (it is only a chip label; the results tell the model, see
:func:`asks.contract.results.header_note`). Checks run per question in order — structure,
types and lengths; then reserved labels; then duplicate labels — and duplicate questions are
checked last, across the call. Errors carry a code and a full sentence for the model saying
what was wrong and how to fix the call; quoted model text is sanitised and cut to about 40
characters.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import attrs

from asks.contract.errors import ErrorCode, ToolError, quote
from asks.contract.schema import REF_KEY
from asks.core import model
from asks.core.model import Option, QuestionSpec
from asks.sanitize import sanitize_line, sanitize_text

_RAW_FACTOR: Final = 8
SHORTENED: Final = "…"  # ends a header that was cut to fit (see :func:`shorten_header`)

_TOP_KEYS: Final = ("questions", "blocking")
_QUESTION_KEYS: Final = ("question", "header", "options", "multiSelect", "context", "custom")
_OPTION_KEYS: Final = ("label", "description", "preview")


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


class _RejectError(Exception):
    """Internal: carries a :class:`ToolError` out of nested checks to :func:`validate_call`."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error = ToolError(code, message)


def _invalid(message: str) -> _RejectError:
    return _RejectError(ErrorCode.INVALID_ARGUMENTS, message)


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
                f"{where} has the unknown key {quote(key)}; "
                f"the allowed keys are {_allowed(allowed)}. Remove it and call again."
            )


_HINTS: Final = {
    "question": "the full question to show the user",
    "header": f'a short chip label of at most {model.MAX_HEADER} characters, e.g. "Database"',
    "label": f"the option's text, at most {model.MAX_LABEL} characters",
    REF_KEY: "the id of an earlier question, as returned by ask_user_question",
}


@functools.cache
def _leading_blank_lines() -> re.Pattern[str]:
    """Blank lines at the start of a text; compiled on first use (not at launch)."""
    return re.compile(r"\A(?:[ ]*\n)+")


def _clean_text(s: str) -> str:
    return sanitize_text(s).strip()


def _clean_line(s: str) -> str:
    return sanitize_line(s).strip()


def _clean_block(s: str) -> str:
    """Sanitise a preformatted block: keep the first line's indentation, drop blank edges."""
    return _leading_blank_lines().sub("", sanitize_text(s).rstrip())


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


def shorten_header(text: str) -> str:
    """A header over the limit, cut for display: ``MAX_HEADER - 1`` characters and "…"."""
    if len(text) <= model.MAX_HEADER:
        return text
    return text[: model.MAX_HEADER - 1].rstrip() + SHORTENED


def _header(s: str) -> str:
    """The chip label, cleaned, and shortened rather than rejected when too long (the full
    question text is shown anyway; small models should not fail on a chip label)."""
    return shorten_header(_clean_line(s[: model.MAX_HEADER * _RAW_FACTOR + 64]))


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
            if key != REF_KEY:
                raise _invalid(
                    f'Question {n} has "questionId" together with {quote(key)}. An entry is '
                    'either a new question or only {"questionId": "..."} to wait on an '
                    "earlier question; send those in separate calls."
                )
        qid = _required_text(entry, REF_KEY, f"Question {n}", model.MAX_ID, _clean_line)
        if qid in ids:
            raise _invalid(f"Question {n} repeats the id {quote(qid)}; list each id once.")
        ids.append(qid)
    return WaitOn(tuple(ids))


def _option(n: int, m: int, raw: object, multi: bool) -> Option:
    where = f"Question {n}, option {m}"
    if not isinstance(raw, dict):
        raise _invalid(f'{where} must be an object with a "label", not {_json_type(raw)}.')
    _reject_unknown_keys(raw, _OPTION_KEYS, where)
    # short texts that many questions repeat (labels, headers): one string each (sys.intern)
    label = sys.intern(_required_text(raw, "label", where, model.MAX_LABEL, _clean_line))
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
                f"Question {n}, option {m} uses the reserved label {quote(option.label)}. "
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
                f"{quote(option.label)}. Labels must differ (ignoring case).",
            )
        seen[key] = m


def _new_question(n: int, entry: dict[Any, Any]) -> QuestionSpec:
    where = f"Question {n}"
    _reject_unknown_keys(entry, _QUESTION_KEYS, where)
    question = _required_text(entry, "question", where, model.MAX_QUESTION_TEXT, _clean_text)
    # Limit: what is accepted raw (then shortened); only absurd sizes are rejected.
    header = sys.intern(_required_text(entry, "header", where, model.MAX_QUESTION_TEXT, _header))
    multi = _optional_bool(entry, "multiSelect", False, where)
    context = _optional_text(entry, "context", where, model.MAX_CONTEXT, _clean_text)
    options = _options(n, entry.get("options"), multi)
    if multi and not options:
        raise _invalid(
            f'{where} sets "multiSelect": true but has no options. Add {model.MIN_OPTIONS} '
            f'to {model.MAX_OPTIONS} options, or drop "multiSelect" for a free-text answer.'
        )
    custom = _optional_bool(entry, "custom", True, where)
    if not custom and not options:
        raise _invalid(
            f'{where} sets "custom": false but has no options: the person could not answer. '
            f'Add {model.MIN_OPTIONS} to {model.MAX_OPTIONS} options, or drop "custom".'
        )
    _check_labels(n, options)
    return QuestionSpec(question, header, options, multi, context, custom)


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
    refs = [REF_KEY in entry for entry in entries]
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
