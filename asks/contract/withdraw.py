"""The ``withdraw_question`` tool contract: the model takes back questions it no longer needs.

Arguments: ``{"questionIds": ["q-…", …], "reason"?: "…"}`` — 1 to :data:`MAX_WITHDRAW` distinct
ids of pending questions and an optional short reason shown to the person. Pure, like the rest
of :mod:`asks.contract`:

* :func:`validate_withdraw` turns any decoded JSON value into a :class:`Withdraw` or a
  :class:`~asks.contract.errors.ToolError` (``invalid_arguments``); it never raises.
* Each id gets its own :class:`WithdrawOutcome` in a :class:`WithdrawReport`: the pending ones
  are withdrawn (in one journal line), an id of a question the person already answered or
  declined is ``already_answered`` (such an answer is not taken back — it was, or will be,
  delivered once like any other), an id that names no question of this asker (never asked,
  another agent's, or already withdrawn) is ``unknown``; and if the journal could not save the
  withdrawal, the ids that were pending are ``not_saved`` (they stay pending).
  :attr:`WithdrawReport.text` is the result the model reads: what was withdrawn, then each id
  that was not and why. (:func:`unknown_to_withdraw` and :func:`already_answered` are the coded
  errors of the former all-or-nothing call, kept for callers that want a refusal.)
* :func:`withdrawn_text` is the sentence naming the questions that were withdrawn.
"""

from __future__ import annotations

import enum
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
                '"withdrawn". Each id is handled on its own: the pending ones are withdrawn, '
                "and the result names any id that was not (already answered: its answer "
                "still reaches you; or unknown)."
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


class WithdrawOutcome(enum.StrEnum):
    """What a ``withdraw_question`` call (or ``AgentPort.withdraw``) did with one id:
    ``WITHDRAWN`` (it was pending: it left the panel, no answer will come);
    ``ALREADY_ANSWERED`` (answered or declined: that answer is not taken back, it is
    delivered once); ``UNKNOWN`` (never asked by this asker, another agent's, or already
    withdrawn); ``NOT_SAVED`` (pending, but the journal could not save the withdrawal: it
    stays pending)."""

    WITHDRAWN = "withdrawn"  # it was pending; it left the panel, no answer will come
    ALREADY_ANSWERED = "already_answered"  # answered or declined: its answer still arrives once
    UNKNOWN = "unknown"  # never asked by this asker, or already withdrawn
    NOT_SAVED = "not_saved"  # pending, but the journal could not save the withdrawal


@attrs.frozen
class WithdrawItem:
    """One id of a ``withdraw_question`` call and what became of it; ``question`` is its text
    when the asker may know it (``""`` for an unknown id)."""

    question_id: str
    outcome: WithdrawOutcome
    question: str = ""


_WHY: Final = {
    WithdrawOutcome.ALREADY_ANSWERED: (
        "the user already answered (or declined) it; an answer cannot be taken back, it "
        "reaches you once, as a tool result or a feedback message"
    ),
    WithdrawOutcome.UNKNOWN: (
        "no pending question of yours has this id (never asked, or already withdrawn)"
    ),
    WithdrawOutcome.NOT_SAVED: (
        "the withdrawal could not be saved (storage failed); it is still pending"
    ),
}


@attrs.frozen
class WithdrawReport:
    """The result of one ``withdraw_question`` call: one :class:`WithdrawItem` per id, in the
    order asked, and the reason shown to the person. Never all-or-nothing: the pending ids are
    withdrawn whatever the others are."""

    items: tuple[WithdrawItem, ...]
    reason: str = ""

    @property
    def withdrawn(self) -> tuple[str, ...]:
        """The ids that were withdrawn."""
        return self.ids(WithdrawOutcome.WITHDRAWN)

    @property
    def all_withdrawn(self) -> bool:
        """True when every id was withdrawn."""
        return all(item.outcome is WithdrawOutcome.WITHDRAWN for item in self.items)

    def ids(self, outcome: WithdrawOutcome) -> tuple[str, ...]:
        """The ids that got ``outcome``."""
        return tuple(item.question_id for item in self.items if item.outcome is outcome)

    def outcome_of(self, question_id: str) -> WithdrawOutcome | None:
        """What became of ``question_id`` (``None`` if the call did not name it)."""
        found = [item.outcome for item in self.items if item.question_id == question_id]
        return found[0] if found else None

    @property
    def text(self) -> str:
        """What the model reads: what was withdrawn, then each other id and why."""
        done = [item for item in self.items if item.outcome is WithdrawOutcome.WITHDRAWN]
        parts = [withdrawn_text(done, self.reason)] if done else ["Nothing was withdrawn."]
        parts += [
            f"Not withdrawn: {quote(item.question_id)} — {_WHY[item.outcome]}."
            for item in self.items
            if item.outcome is not WithdrawOutcome.WITHDRAWN
        ]
        return " ".join(parts)


def withdrawn_text(questions: Sequence[Question | WithdrawItem], reason: str) -> str:
    """The sentence naming the questions that were taken back (and the reason shown)."""
    listing = ", ".join(f'"{_text_of(q)}" (id {_id_of(q)})' for q in questions)
    why = f" Reason shown to the user: {reason}" if reason else ""
    ending = "" if why.endswith((".", "!", "?")) or not why else "."
    return (
        f"Withdrawn: {listing}. The user no longer sees them and no answer will arrive for "
        f"them.{why}{ending}"
    )


def _text_of(item: Question | WithdrawItem) -> str:
    return item.question if isinstance(item, WithdrawItem) else item.spec.question


def _id_of(item: Question | WithdrawItem) -> str:
    return item.question_id if isinstance(item, WithdrawItem) else item.id
