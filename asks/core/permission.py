"""An outside agent's permission request as a question, and the hook's reply (pure).

docs/permission-prompts.md is the state model. Here, without I/O:

* :func:`parse_request` — a ``PermissionRequest`` hook body (Claude Code's or Codex's, the
  same shape) → a :class:`PermissionRequest`, or a :class:`HookProblem` (a sentence for the
  client: the body is refused, nothing else happens). An unknown tool is fine: shown as is.
* :func:`permission_spec` — the question the panel shows: the exact command as its text
  (drawn sanitized, as every agent text), ``Allow`` / ``Deny`` as its options.
* :func:`verdict_of` — the person's resolution → :class:`Verdict`. Only the ``Allow`` option
  allows; a typed answer is a deny with that text as its reason; a decline denies.
* :func:`reply_body` — the JSON the hook answers: allow, deny with ``message``, or ``{}``
  (no decision: the agent's own dialog decides — the hand-back).

Never allowed by default: a verdict is ``ALLOW`` only from an ``Allow`` answer.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

import attrs

from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Question,
    QuestionSpec,
    Resolution,
)

if TYPE_CHECKING:
    from asks.core.brief import QuestionBrief

RECIPIENT_PREFIX: Final = "perm:"
EVENT: Final = "PermissionRequest"
ALLOW_LABEL: Final = "Allow"
DENY_LABEL: Final = "Deny"
ALLOW_INDEX: Final = 0
MAX_TOOL: Final = 200  # characters of a tool name
CHIP_COMMAND: Final = 40  # characters of the command on the tab's chip
DEFAULT_DENY: Final = "Denied by the user in asks."


class Behavior(enum.StrEnum):
    """What the hook replies: the person's allow or deny, or no decision (hand back)."""

    ALLOW = "allow"
    DENY = "deny"
    HAND_BACK = "hand_back"


class HandBack(enum.StrEnum):
    """Why a request was handed back to the agent's own dialog (journaled as the reason)."""

    LIMIT = "the hook's time limit was reached"
    GONE = "answered in the agent's own dialog, or the agent gave up"
    QUITTING = "asks is quitting"
    RESTARTED = "asks was restarted"


@attrs.frozen
class Verdict:
    """The hook's decision: ``reason`` is a deny's message ('' for none)."""

    behavior: Behavior
    reason: str = ""


@attrs.frozen
class HookProblem:
    """A refused hook body: the HTTP status and a sentence for the client."""

    status: int
    message: str


@attrs.frozen
class PermissionRequest:
    """One tool-approval request of an agent, as its hook sent it (client text: sanitize
    before showing)."""

    tool: str
    command: str  # the exact command, or the tool's input as compact JSON
    description: str = ""
    cwd: str = ""
    session_id: str = ""

    def chip(self) -> str:
        """``Bash: npm test`` — the tool and the command's first line, clipped."""
        first = self.command.strip().splitlines()[0] if self.command.strip() else ""
        if len(first) > CHIP_COMMAND:
            first = first[: CHIP_COMMAND - 1] + "…"
        return f"{self.tool}: {first}" if first else self.tool


def recipient_of(label: str) -> str:
    """The recipient of agent ``label``'s permission questions (no outbox takes it)."""
    return RECIPIENT_PREFIX + label


def is_permission(question: Question | QuestionBrief) -> bool:
    """Is ``question`` (or its brief) an agent's permission request?"""
    return question.recipient is not None and question.recipient.startswith(RECIPIENT_PREFIX)


def _text(body: Mapping[str, Any], key: str) -> str:
    value = body.get(key)
    return value if isinstance(value, str) else ""


def parse_request(raw: bytes) -> PermissionRequest | HookProblem:
    """A hook body → the request, or why it is refused (module docstring)."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return HookProblem(400, "The body is not JSON: send the hook's JSON as it is.")
    if not isinstance(body, dict):
        return HookProblem(400, "The body must be a JSON object (the hook's input).")
    if body.get("hook_event_name") != EVENT:
        return HookProblem(400, f'hook_event_name must be "{EVENT}": this endpoint is for it.')
    tool = body.get("tool_name")
    if not isinstance(tool, str) or not tool.strip() or len(tool) > MAX_TOOL:
        return HookProblem(400, f"tool_name must be a tool's name (1-{MAX_TOOL} characters).")
    tool_input = body.get("tool_input", {})
    if not isinstance(tool_input, dict):
        return HookProblem(400, "tool_input must be a JSON object.")
    command = tool_input.get("command")
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        command = " ".join(command)
    if not isinstance(command, str):
        command = json.dumps(tool_input, ensure_ascii=False, separators=(",", ":"))
    return PermissionRequest(
        tool,
        command,
        _text(tool_input, "description"),
        _text(body, "cwd"),
        _text(body, "session_id"),
    )


def permission_spec(request: PermissionRequest) -> QuestionSpec:
    """The question the panel shows for ``request`` (module docstring)."""
    context = "\n".join(
        line
        for line in (request.description, f"in {request.cwd}" if request.cwd else "")
        if line.strip()
    )
    return QuestionSpec(
        question=request.command,
        header=request.chip(),
        options=(
            Option(ALLOW_LABEL, f"let the agent run {request.tool}"),
            Option(DENY_LABEL, "refuse (type a reason in the row below to tell the agent why)"),
        ),
        context=context or None,
    )


def verdict_of(resolution: Resolution) -> Verdict:
    """The hook's decision from the person's resolution (never allow but by ``Allow``)."""
    answer: Answer | None = resolution.answer
    if answer is None:  # declined
        return Verdict(Behavior.DENY, DEFAULT_DENY)
    if answer.kind is AnswerKind.OPTION and answer.option_indices == (ALLOW_INDEX,):
        return Verdict(Behavior.ALLOW)
    reason = (answer.custom_text or "").strip() or answer.notes.strip()
    return Verdict(Behavior.DENY, reason or DEFAULT_DENY)


def reply_body(verdict: Verdict) -> dict[str, Any]:
    """The JSON the hook answers with (the same shape for Claude Code and Codex)."""
    if verdict.behavior is Behavior.HAND_BACK:
        return {}
    decision: dict[str, Any] = {"behavior": verdict.behavior.value}
    if verdict.behavior is Behavior.DENY:
        decision["message"] = verdict.reason or DEFAULT_DENY
    return {"hookSpecificOutput": {"hookEventName": EVENT, "decision": decision}}
