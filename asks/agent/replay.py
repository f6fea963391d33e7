"""Rebuilding the visible chat of a resumed session from its journal (pure: projection in,
transcript entries out).

The replayed transcript shows what the live one showed, in journal order:

* the person's messages and the model's text;
* each tool call of a reply, in call order, right after the reply's text: an
  ``ask_user_question`` call the host accepted as its ``? asked:`` card (a promoted question
  by its text and id); one it refused as its error; any other tool as its line
  (``⚙ name · args``) ending with its result (``→ …``) — or, for a call that asked the person's
  permission, without it: its result follows its (last) decision on a line of its own
  (``⚙ name → …``), as live. A call the journal holds no result for
  was cut off by the end of the last run: its line ends with ``unfinished`` (the reason the
  resume gives it, e.g. "the session was restarted before this tool finished");
* a result the host gave at once (an async group's ``queued``, ``already_received``) right
  after its card, before the reply's next call — where the live agent drew it;
* the other question results (of this agent's own calls: not the hub's), feedback cards and
  permission decisions (``⚑ permission allowed: …``) where their lines are.

* last (asks/agent/history.py), one notice: ``Resumed session ID: N pending, M saved
  answer(s) to deliver.``

:func:`rebuild` draws every record at once (line mode and ``-p`` print them all); a resumed
REPL draws them a window at a time, from the end (asks/agent/history.py), with the same
:class:`Renderer`. The in-process and pty tests of tests/test_tour.py play a session, resume
it and compare.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import attrs

from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.lines import (
    call_summary,
    decided_result,
    feedback_summary,
    numbered,
    outcome_summary,
    questions_summary,
    result_summary,
)
from asks.agent.transcript import EntryKind, Transcript
from asks.contract import TOOL_NAME, ResultEnvelope
from asks.core.i18n import ngettext
from asks.core.model import Outcome
from asks.store.entries import ChatMessage, FeedbackDelivered, PermissionDecided, Record, ToolResult
from asks.store.projection import ProjectionView


def plural(count: int, noun: str) -> str:
    """``1 saved answer``, ``2 saved answers``, ``0 saved answers``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def rebuild(
    transcript: Transcript,
    projection: ProjectionView,
    model_name: str,
    *,
    unfinished: str,
    hints: AnswerHints = LINE_HINTS,
) -> None:
    """Append the replayed entries (module docstring) to ``transcript``; result cards say how
    to answer with ``hints`` (the surface resuming it)."""
    records = projection.conversation
    renderer = Renderer(transcript, projection, model_name, unfinished, hints)
    renderer.maps.add_before(projection, records)
    renderer.run(records)


def resumed_notice(session_id: str, pending: int, undelivered: int) -> str:
    text = ngettext(
        "Resumed session {id}: {pending} pending, {count} saved answer to deliver.",
        "Resumed session {id}: {pending} pending, {count} saved answers to deliver.",
        undelivered,
    )
    return text.format(id=session_id, pending=pending, count=undelivered)


@attrs.define(eq=False)
class Maps:
    """What the rendering of one record reads from the others: tool messages by the call id
    they answer (the first one wins), the agent's own call ids (in its replies) and the
    question results the host gave a call at once (the first one wins). Built by folding
    records **backwards** (:meth:`add_before`: an earlier record overrides), so a history
    can extend them to older records as it goes (asks/agent/history.py)."""

    results: dict[str, str] = attrs.Factory(dict)
    own: set[str] = attrs.Factory(set)
    at_once: dict[str, ToolResult] = attrs.Factory(dict)
    decided: dict[str, PermissionDecided] = attrs.Factory(dict)  # a call's last decision
    names: dict[str, str] = attrs.Factory(dict)  # the tool of each call in ``decided``

    def add_before(self, projection: ProjectionView, records: Sequence[Record]) -> None:
        """Fold ``records``, which come just before the ones folded so far."""
        for record in reversed(records):
            entry = record.entry
            if isinstance(entry, PermissionDecided):
                self.decided.setdefault(entry.call_id, entry)  # backwards: the last one stays
            elif isinstance(entry, ChatMessage):
                for call in entry.tool_calls:
                    if "name" in call:
                        made = str(call.get("id", ""))
                        self.own.add(made)
                        if made in self.decided:
                            self.names[made] = str(call["name"])
                if entry.role == "tool":
                    call_id = next(
                        (c.get("tool_call_id") for c in entry.tool_calls if "tool_call_id" in c),
                        None,
                    )
                    if call_id is not None:
                        self.results[str(call_id)] = entry.content
            elif isinstance(entry, ToolResult) and _given_at_once(projection, entry):
                self.at_once[entry.call_id] = entry


def _given_at_once(projection: ProjectionView, entry: ToolResult) -> bool:
    """A question result the host gave at once (no wait: an async group's ``queued``,
    ``already_received``): the live agent drew it right after its card, before the reply's
    next call started."""
    call = projection.calls.get(entry.call_id)
    asked = call.group_asked if call is not None else None
    async_group = (
        call is not None and call.result is entry and asked is not None and not asked.blocking
    )
    return async_group or entry.outcome is Outcome.ALREADY_RECEIVED


@attrs.define(eq=False)
class Renderer:
    """Draws records as the live transcript drew them, reading :class:`Maps` (the eager
    rebuild's cover every record; a history's, the records from the ones drawn on).
    ``more`` folds older records into the maps when an own-call lookup misses (False: none
    left)."""

    transcript: Transcript
    projection: ProjectionView
    model_name: str
    unfinished: str
    hints: AnswerHints
    maps: Maps = attrs.Factory(Maps)
    more: Callable[[], bool] = attrs.field(default=lambda: False)

    def run(self, records: Sequence[Record]) -> None:
        """Draw ``records``, in order."""
        for record in records:
            self.render(record)

    def render(self, record: Record) -> None:
        """Add the transcript entries of one conversation record (none for some)."""
        add, entry = self.transcript.add, record.entry
        if isinstance(entry, ChatMessage):
            self._chat(entry)
        elif isinstance(entry, ToolResult):
            # an at-once result was drawn beside its card; another agent's (the hub's)
            # results are not this agent's chat
            if self._own(entry.call_id) and self.maps.at_once.get(entry.call_id) is not entry:
                self._result(entry)
        elif isinstance(entry, FeedbackDelivered):
            add(EntryKind.FEEDBACK, feedback_summary(self.projection, entry.delivered), entry.mode)
        elif isinstance(entry, PermissionDecided):
            add(EntryKind.DECISION, entry.prompt, "allowed" if entry.allowed else "denied")
            if self.maps.decided.get(entry.call_id) is entry and self._own(entry.call_id):
                self._decided_result(entry.call_id)

    def _decided_result(self, call_id: str) -> None:
        """After a call's last permission decision: its result on a line of its own (its
        ``⚙`` line, above the decision, was drawn without it), as the live agent drew it."""
        name = self.maps.names.get(call_id, "")
        outcome = self.maps.results.get(call_id, f"Error [interrupted]: {self.unfinished}.")
        self.transcript.add(EntryKind.TOOL, decided_result(name, outcome), name)

    def _own(self, call_id: str) -> bool:
        while call_id not in self.maps.own and self.more():
            pass
        return call_id in self.maps.own

    def _result(self, entry: ToolResult) -> None:
        envelope = ResultEnvelope(entry.outcome, entry.text, entry.details)
        self.transcript.add(
            EntryKind.RESULT, result_summary(envelope, self.hints), entry.outcome.value
        )

    def _chat(self, entry: ChatMessage) -> None:
        if entry.role == "user" and entry.content:
            self.transcript.add(EntryKind.USER, entry.content)
        if entry.role != "assistant":
            return
        if entry.content:
            self.transcript.add(EntryKind.AGENT, entry.content, self.model_name)
        for call in entry.tool_calls:
            if "name" not in call:
                continue
            call_id, name = str(call.get("id", "")), str(call["name"])
            arguments = str(call.get("arguments", ""))
            if name == TOOL_NAME:
                self._ask_call(call_id, arguments)
                continue
            line = call_summary(name, arguments)
            if call_id not in self.maps.decided:  # else its result follows its decision
                outcome = self.maps.results.get(call_id, f"Error [interrupted]: {self.unfinished}.")
                line += f" → {outcome_summary(outcome)}"
            self.transcript.add(EntryKind.TOOL, line, name)

    def _ask_call(self, call_id: str, arguments: str) -> None:
        """The call's card (or its refusal), and its result if the host gave it at once."""
        at_once = self.maps.at_once.get(call_id)
        card = self._card(call_id, arguments, at_once is not None)
        if card is not None:
            self.transcript.add(EntryKind.QUESTION, card, call_id)
        elif (refusal := self.maps.results.get(call_id)) is not None:
            self.transcript.add(EntryKind.ERROR, refusal, TOOL_NAME)
        if at_once is not None:
            self._result(at_once)

    def _card(self, call_id: str, arguments: str, answered: bool) -> str | None:
        projection = self.projection
        state = projection.calls.get(call_id)
        if state is None:  # no questions of its own: a card only if the host answered it
            return questions_summary(_parsed(arguments), self._question_text) if answered else None
        lines = []
        for ref in state.refs:
            question = projection.by_ref.get(ref)
            text = question.question.spec.question if question is not None else ""
            promoted = state.group_asked is None
            lines.append(f"{text} ({ref.id})" if promoted and text else text or ref.id)
        return numbered(lines)

    def _question_text(self, question_id: str) -> str | None:
        ref = self.projection.current.get(question_id)
        state = self.projection.by_ref.get(ref) if ref is not None else None
        return None if state is None else state.question.spec.question


def _parsed(arguments: str) -> object:
    try:
        return json.loads(arguments or "{}")
    except (ValueError, RecursionError):
        return None
