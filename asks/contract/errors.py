"""Coded errors of the tools: the one :class:`ErrorCode` enum and the :class:`ToolError` value.

A rejected tool call is answered with ``Error [code]: sentence``: the code is machine-readable
(one member of :class:`ErrorCode`, for every tool of the agent, not only ``ask_user_question``)
and the sentence tells the model what was wrong and how to fix the call. Model-supplied text
quoted in a sentence is sanitised and cut to about 40 characters (:func:`quote`); host-supplied
details are sanitised and bounded (:func:`reason`). Pure: no I/O, no state.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Sequence
from typing import Final

import attrs

from asks.sanitize import sanitize_line

QUOTE_MAX: Final = 40
DETAIL_MAX: Final = 200


class ErrorCode(enum.StrEnum):
    """Why a tool call was rejected or failed; the value appears in the text as ``Error [code]``.

    The one code enum of every tool the agent offers (``ask_user_question``,
    ``withdraw_question``, ``run_command``, ``read_file``) and of the agent loop itself."""

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
    ALREADY_ANSWERED = "already_answered"  # withdraw_question on an answered question
    UNKNOWN_TOOL = "unknown_tool"
    INTERRUPTED = "interrupted"  # the call was cut short (Ctrl+C, failed turn, restart)
    PERMISSION_DENIED = "permission_denied"  # the person said no (or nobody could be asked)
    OUTSIDE_WORKDIR = "outside_workdir"  # read_file: the path leaves the working directory
    NOT_FOUND = "not_found"
    NOT_A_FILE = "not_a_file"
    BINARY_FILE = "binary_file"
    FILE_TOO_LARGE = "file_too_large"
    UNREADABLE = "unreadable"


@attrs.frozen
class ToolError:
    """A rejected call: a code and a sentence for the model on how to fix it."""

    code: ErrorCode
    message: str

    @property
    def text(self) -> str:
        """The tool result the model reads: ``Error [code]: message``."""
        return f"Error [{self.code}]: {self.message}"


def quote(value: object) -> str:
    """A short, sanitised, quoted rendering of model-supplied text for an error message."""
    text = sanitize_line((value if isinstance(value, str) else repr(value))[: QUOTE_MAX * 4])
    if len(text) > QUOTE_MAX:
        text = text[:QUOTE_MAX] + "…"
    return f'"{text}"'


def reason(detail: str) -> str:
    """`` (detail)`` for a message, sanitised and bounded; empty for no detail."""
    text = sanitize_line(detail[: DETAIL_MAX * 4]).strip()[:DETAIL_MAX]
    return f" ({text})" if text else ""


# ------------------------------------------------------------------ host-side errors


def id_list(ids: Sequence[str]) -> str:
    """The ids named in an error sentence: at most ten, quoted."""
    quoted = ", ".join(quote(i) for i in ids[:10]) + (", …" if len(ids) > 10 else "")
    return f"the id {quoted}" if len(ids) == 1 else f"the ids {quoted}"


def unknown_question(ids: Sequence[str]) -> ToolError:
    return ToolError(
        ErrorCode.UNKNOWN_QUESTION,
        f"There is nothing to wait for with {id_list(ids)}: no such question was asked in this "
        "conversation, or it was withdrawn. Wait only on ids that an earlier "
        "ask_user_question call returned, or ask a new question instead.",
    )


def already_waiting(ids: Sequence[str]) -> ToolError:
    return ToolError(
        ErrorCode.ALREADY_WAITING,
        f"Another ask_user_question call is already waiting on {id_list(ids)}. Do not wait twice; "
        "that call's result will carry the answer.",
    )


def no_ui() -> ToolError:
    return ToolError(
        ErrorCode.NO_UI,
        "Nobody can answer questions in this run: there is no interactive user interface. "
        "Do not call ask_user_question again; continue with your best judgement and state the "
        "assumptions you made.",
    )


def storage_failed(detail: str) -> ToolError:
    why = reason(detail)
    return ToolError(
        ErrorCode.STORAGE_FAILED,
        f"Saving to the conversation journal failed{why}, so the call had no effect and "
        "nothing was shown to the user. Do not retry now; continue without the user's answer "
        "and tell the user that questions are currently unavailable.",
    )


def result_not_saved(detail: str) -> ToolError:
    """The wait ended but its tool result could not be journaled: answers come as feedback."""
    why = reason(detail)
    return ToolError(
        ErrorCode.STORAGE_FAILED,
        f"The wait ended, but its result could not be saved to the conversation journal"
        f"{why}. Any answers the user saved are kept and will reach you as feedback "
        "messages once saving works again; continue with the task meanwhile.",
    )


def record_unreadable(detail: str) -> ToolError:
    """A call that needed a question saved earlier, which could not be read back from the
    journal (docs/fleet-scale.md, "Questions by number")."""
    return ToolError(
        ErrorCode.STORAGE_FAILED,
        f"A question saved earlier could not be read back from the conversation journal"
        f"{reason(detail)}. Nothing was changed and nothing was shown to the user again. Do "
        "not retry now; continue with the task and tell the user that the journal could not "
        "be read.",
    )


def result_unreadable(detail: str) -> ToolError:
    """A retried call whose earlier result, saved in the journal, could not be read back."""
    why = reason(detail)
    return ToolError(
        ErrorCode.STORAGE_FAILED,
        f"This call was made before, but its saved result could not be read back from the "
        f"conversation journal{why}. Nothing was changed and nothing was shown to the user "
        "again. Do not retry now; continue with the task and tell the user that the journal "
        "could not be read.",
    )


@attrs.frozen
class EarlierQuestion:
    """A question of the earlier call that holds a tool-call id (:func:`call_conflict`)."""

    question_id: str
    question: str
    pending: bool


def call_conflict(
    call_id: str,
    agent: str | None = None,
    earlier: Sequence[EarlierQuestion] = (),
    asked_at: float | None = None,
) -> ToolError:
    """``call_id`` holds another call: say whose (``agent``; ``None``: this session's own
    agent) and which — its questions and when it was made (a UNIX time, shown in UTC) — so
    that a client numbering its call ids anew each run sees why its second run is refused."""
    by = f" by agent {quote(agent)}" if agent else ""
    when = f" at {_utc(asked_at)}" if asked_at is not None else ""
    listed = "; ".join(
        f"{quote(q.question)} ({q.question_id}, {'still pending' if q.pending else 'closed'})"
        for q in earlier
    )
    what = f" asking {listed}" if listed else ""
    return ToolError(
        ErrorCode.CALL_CONFLICT,
        f"The tool-call id {quote(call_id)} was already used{by} for an earlier, different "
        f"ask_user_question call made{when}{what}, so these questions were not asked. "
        "A client that numbers its tool calls anew each run reuses ids after a restart. Make "
        "the call again as a new tool call; if the earlier questions are stale, take them "
        "back with withdraw_question.",
    )


def _utc(timestamp: float) -> str:
    """``timestamp`` (UNIX time) as ``2026-12-05 12:27:21 UTC``."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(timestamp))


def unknown_tool(name: str) -> ToolError:
    shown = quote(name)[1:-1]  # sanitised and bounded: the name is the caller's text
    return ToolError(ErrorCode.UNKNOWN_TOOL, f"there is no tool named '{shown}'.")


def takes_no_arguments(tool: str, keys: Sequence[str]) -> ToolError:
    """A call with arguments to a tool whose schema has none (unknown keys are refused)."""
    named = ", ".join(quote(key) for key in keys[:10]) + (", …" if len(keys) > 10 else "")
    return ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        f"{tool} takes no arguments; remove {named} and call it again with {{}}.",
    )


def interrupted(reason: str) -> ToolError:
    """A call that got no real result: the turn was interrupted or failed, or asks restarted."""
    text = sanitize_line(reason[: DETAIL_MAX * 4]).strip()[:DETAIL_MAX] or "interrupted"
    return ToolError(ErrorCode.INTERRUPTED, f"{text}.")
