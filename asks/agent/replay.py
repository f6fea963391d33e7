"""Rebuilding the visible chat of a resumed session from its journal (pure: projection in,
transcript entries out).

The replayed transcript shows what the live one showed, in journal order:

* the person's messages and the model's text;
* each tool call of a reply, in call order, right after the reply's text: an
  ``ask_user_question`` call the host accepted as its ``? asked:`` card (a promoted question
  by its text and id); one it refused as its error; any other tool as its line
  (``⚙ name · args``) ending with its result (``→ …``). A call the journal holds no result for
  was cut off by the end of the last run: its line ends with ``unfinished`` (the reason the
  resume gives it, e.g. "the session was restarted before this tool finished");
* question results and feedback cards where their lines are;
* last, one notice: ``Resumed session ID: N pending, M saved answer(s) to deliver.``
"""

from __future__ import annotations

from collections.abc import Sequence

from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.lines import (
    call_summary,
    feedback_summary,
    numbered,
    outcome_summary,
    result_summary,
)
from asks.agent.transcript import EntryKind, Transcript
from asks.contract import TOOL_NAME, ResultEnvelope
from asks.core.i18n import ngettext
from asks.host.host import QuestionHost
from asks.store.entries import ChatMessage, FeedbackDelivered, Record, ToolResult
from asks.store.projection import Projection


def plural(count: int, noun: str) -> str:
    """``1 saved answer``, ``2 saved answers``, ``0 saved answers``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def rebuild(
    transcript: Transcript, projection: Projection, model_name: str, *, unfinished: str,
    hints: AnswerHints = LINE_HINTS,
) -> None:
    """Append the replayed entries (module docstring) to ``transcript``; result cards say how
    to answer with ``hints`` (the surface resuming it)."""
    results = _tool_messages(projection.conversation)
    for record in projection.conversation:
        entry = record.entry
        if isinstance(entry, ChatMessage):
            _chat(transcript, projection, entry, results, model_name, unfinished)
        elif isinstance(entry, ToolResult):
            envelope = ResultEnvelope(entry.outcome, entry.text, entry.details)
            transcript.add(EntryKind.RESULT, result_summary(envelope, hints), entry.outcome.value)
        elif isinstance(entry, FeedbackDelivered):
            summary = feedback_summary(projection, entry.delivered)
            transcript.add(EntryKind.FEEDBACK, summary, entry.mode)


def replay_session(
    transcript: Transcript, host: QuestionHost, model_name: str, *, unfinished: str,
    hints: AnswerHints = LINE_HINTS,
) -> None:
    """Rebuild the visible chat of ``host``'s journal (:func:`rebuild`), then say so."""
    rebuild(transcript, host.projection, model_name, unfinished=unfinished, hints=hints)
    stats = host.statistics()
    notice = resumed_notice(host.journal.session_id, stats.pending, stats.saved_undelivered)
    transcript.add(EntryKind.NOTICE, notice)


def resumed_notice(session_id: str, pending: int, undelivered: int) -> str:
    text = ngettext(
        "Resumed session {id}: {pending} pending, {count} saved answer to deliver.",
        "Resumed session {id}: {pending} pending, {count} saved answers to deliver.",
        undelivered,
    )
    return text.format(id=session_id, pending=pending, count=undelivered)


def _tool_messages(records: Sequence[Record]) -> dict[str, str]:
    """Tool-role chat messages by the call id they answer (first one wins)."""
    found: dict[str, str] = {}
    for record in records:
        entry = record.entry
        if isinstance(entry, ChatMessage) and entry.role == "tool":
            call_id = next((c.get("tool_call_id") for c in entry.tool_calls
                            if "tool_call_id" in c), None)
            if call_id is not None:
                found.setdefault(str(call_id), entry.content)
    return found


def _chat(  # noqa: PLR0917 — one dispatch, all of it needed
    transcript: Transcript,
    projection: Projection,
    entry: ChatMessage,
    results: dict[str, str],
    model_name: str,
    unfinished: str,
) -> None:
    if entry.role == "user" and entry.content:
        transcript.add(EntryKind.USER, entry.content)
    if entry.role != "assistant":
        return
    if entry.content:
        transcript.add(EntryKind.AGENT, entry.content, model_name)
    for call in entry.tool_calls:
        if "name" not in call:
            continue
        call_id, name = str(call.get("id", "")), str(call["name"])
        arguments = str(call.get("arguments", ""))
        if name == TOOL_NAME:
            _ask_call(transcript, projection, call_id, results.get(call_id))
            continue
        outcome = results.get(call_id, f"Error [interrupted]: {unfinished}.")
        line = f"{call_summary(name, arguments)} → {outcome_summary(outcome)}"
        transcript.add(EntryKind.TOOL, line, name)


def _ask_call(
    transcript: Transcript, projection: Projection, call_id: str, refusal: str | None
) -> None:
    state = projection.calls.get(call_id)
    if state is None:
        if refusal is not None:
            transcript.add(EntryKind.ERROR, refusal, TOOL_NAME)
        return
    lines = []
    for ref in state.refs:
        question = projection.by_ref.get(ref)
        text = question.question.spec.question if question is not None else ""
        promoted = state.group_asked is None
        lines.append(f"{text} ({ref.id})" if promoted and text else text or ref.id)
    transcript.add(EntryKind.QUESTION, numbered(lines), call_id)
