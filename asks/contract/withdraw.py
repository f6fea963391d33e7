"""The ``withdraw_question`` tool contract: the model takes back questions it no longer needs.

Arguments: ``{"questionIds": ["q-…", …], "reason"?: "…"}`` — 1 to :data:`MAX_WITHDRAW` distinct
ids of pending questions and an optional short reason shown to the person. Pure, like the rest
of :mod:`asks.contract`:

* :func:`validate_withdraw` turns any decoded JSON value into a :class:`Withdraw` or a
  :class:`~asks.contract.errors.ToolError` (``invalid_arguments``); it never raises.
* The call is all or nothing. Ids that name no question (or one already withdrawn) give
  ``unknown_question`` (:func:`unknown_to_withdraw`); ids of questions the person already
  answered or declined give ``already_answered`` (:func:`already_answered`): such an answer is
  not taken back — it was, or will be, delivered once like any other.
* :func:`withdrawn_text` is the result the model reads when the questions were withdrawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs

from asks.contract.errors import ErrorCode, ToolError, id_list, quote
from asks.core import model
from asks.core.model import Question
from asks.sanitize import sanitize_line

WITHDRAW_TOOL: Final = "withdraw_question"
MAX_WITHDRAW: Final = 16
MAX_REASON: Final = 200
_KEYS: Final = ("questionIds", "reason")


@attrs.frozen
class Withdraw:
    """A valid ``withdraw_question`` call: distinct ids and a sanitised reason ("" if none)."""

    question_ids: tuple[str, ...]
    reason: str = ""


def withdraw_tool() -> dict[str, Any]:
    """The tool in OpenAI function-calling shape (the providers convert it as they need)."""
    return {
        "type": "function",
        "function": {
            "name": WITHDRAW_TOOL,
            "description": (
                "Take back pending questions you asked with ask_user_question that you no "
                "longer need (e.g. you found the answer yourself). They leave the user's panel "
                "and no answer will arrive for them; a blocking wait on them ends as "
                '"withdrawn". Questions the user already answered cannot be withdrawn.'
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "questionIds": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": MAX_WITHDRAW,
                        "items": {"type": "string", "minLength": 1, "maxLength": model.MAX_ID},
                        "description": "Ids of pending questions, as ask_user_question "
                        "returned them (q- and 10 hex digits).",
                    },
                    "reason": {
                        "type": "string",
                        "maxLength": MAX_REASON,
                        "description": "Optional: why, in a few words, shown to the user.",
                    },
                },
                "required": ["questionIds"],
                "additionalProperties": False,
            },
        },
    }


def _invalid(message: str) -> ToolError:
    return ToolError(ErrorCode.INVALID_ARGUMENTS, message)


def _ids(raw: object) -> tuple[str, ...] | ToolError:
    if not isinstance(raw, list) or not raw:
        return _invalid(
            '"questionIds" must be a non-empty array of question ids such as '
            '["<an id the tool returned>"].'
        )
    if len(raw) > MAX_WITHDRAW:
        return _invalid(
            f'"questionIds" has {len(raw)} ids; withdraw at most {MAX_WITHDRAW} in one call.'
        )
    ids: list[str] = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, str) or not item.strip() or len(item) > model.MAX_ID:
            return _invalid(f'"questionIds" item {n} must be a question id (a short string).')
        qid = sanitize_line(item).strip()
        if qid in ids:
            return _invalid(f"the id {quote(qid)} is listed twice; list each id once.")
        ids.append(qid)
    return tuple(ids)


def validate_withdraw(arguments: object) -> Withdraw | ToolError:
    """Validate decoded JSON arguments (module docstring). Never raises."""
    if not isinstance(arguments, dict):
        return _invalid(
            "The arguments must be a JSON object such as "
            '{"questionIds": ["<an id the tool returned>"]}.'
        )
    for key in arguments:
        if key not in _KEYS:
            return _invalid(
                f"The call has the unknown key {quote(key)}; the allowed keys are "
                '"questionIds", "reason". Remove it and call again.'
            )
    ids = _ids(arguments.get("questionIds"))
    if isinstance(ids, ToolError):
        return ids
    reason = arguments.get("reason")
    if reason is not None and not isinstance(reason, str):
        return _invalid('"reason" must be a string.')
    text = sanitize_line(reason or "").strip()
    if len(text) > MAX_REASON:
        return _invalid(f'"reason" is too long; the limit is {MAX_REASON} characters.')
    return Withdraw(ids, text)


def unknown_to_withdraw(ids: Sequence[str]) -> ToolError:
    return ToolError(
        ErrorCode.UNKNOWN_QUESTION,
        f"Nothing was withdrawn: {id_list(ids)} name no pending question in this conversation "
        "(never asked, or already withdrawn). Withdraw only ids that ask_user_question "
        "returned and that are still pending.",
    )


def already_answered(ids: Sequence[str]) -> ToolError:
    return ToolError(
        ErrorCode.ALREADY_ANSWERED,
        f"Nothing was withdrawn: the user already answered (or declined) {id_list(ids)}. An "
        "answer cannot be taken back; it reaches you once, as a tool result or a feedback "
        "message. Withdraw only questions that are still pending.",
    )


def withdrawn_text(questions: Sequence[Question], reason: str) -> str:
    """The result of a successful call: which questions were taken back."""
    listing = ", ".join(f'"{q.spec.question}" (id {q.id})' for q in questions)
    why = f" Reason shown to the user: {reason}" if reason else ""
    ending = "" if why.endswith((".", "!", "?")) or not why else "."
    return (
        f"Withdrawn: {listing}. The user no longer sees them and no answer will arrive for "
        f"them.{why}{ending}"
    )
