"""What the transcript says about tool calls: pure text, no I/O, no terminal codes.

* :func:`call_summary` — a tool call as a person reads it: ``work · seconds: 12 · label:
  indexing``. Arguments are the model's JSON object in its own key order; strings are shown
  without quotes (whitespace runs collapsed), other values as compact JSON. Arguments that are
  not a JSON object are shown raw. Long lines are cut with ``…``.
* :func:`outcome_summary` — the first line of a tool's result, cut, for the end of its line.
* :func:`questions_summary` — the questions of an ``ask_user_question`` call, one per line; a
  ``{questionId}`` entry (a promoted question) shows that question's text, looked up by the
  caller, with its id. Several questions are numbered (:func:`numbered`), so every one of
  them has its mark, not only the first (which follows the card's own prefix).
* :func:`result_summary` — what the person sees of a question result: the outcome in words
  where there is no answer to show (``Deferred: the agent gets your answer when you give it.``),
  ``question → answer`` per answer (with the person's notes; ``→ declined``), the person's
  note for all the questions if any, then the ids still pending and how to answer them on the
  surface in front of the person (:mod:`asks.agent.hints`: ``Shift+Tab or /asks`` with the
  configured key, ``/asks`` in line mode).
* :func:`feedback_summary` — what the person sees of a feedback delivery: ``question →
  answer`` per saved answer it carried, then the person's note for all the questions, if any.

The person never reads the text meant for the model here (ids to wait on, tool-call hints);
the model gets that text unchanged (the tool result, the feedback message, the journal).

Nothing here sanitises: the transcript widget does, when drawing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from asks import contract
from asks.agent.hints import LINE_HINTS, AnswerHints, how_to_answer
from asks.core.i18n import N_, _
from asks.core.model import Outcome, QuestionRef, ResolutionKind
from asks.store.projection import ProjectionView

MAX_CALL_LINE: Final = 120
MAX_OUTCOME: Final = 100
MAX_VALUE: Final = 60

QuestionLookup = Callable[[str], str | None]


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in ``…`` when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value_text(value: object) -> str:
    if isinstance(value, str):
        return shorten(" ".join(value.split()), MAX_VALUE)
    return shorten(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")), MAX_VALUE)


def call_summary(name: str, arguments: str) -> str:
    """``name · key: value · …`` (module docstring)."""
    try:
        value = json.loads(arguments or "{}")
    except (ValueError, RecursionError):  # not JSON, or nested too deep to read
        value = None
    if not isinstance(value, dict):
        return shorten(f"{name}: {' '.join(arguments.split())}", MAX_CALL_LINE)
    parts = [name, *(f"{key}: {_value_text(item)}" for key, item in value.items())]
    return shorten(" · ".join(parts), MAX_CALL_LINE)


def outcome_summary(text: str) -> str:
    """The first non-blank line of a tool result, cut to :data:`MAX_OUTCOME`."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return shorten(first, MAX_OUTCOME)


def decided_result(name: str, text: str) -> str:
    """``name → outcome``: a tool's result on a line of its own, after the permission decision
    that closed its call's line (asks/agent/toolcalls.py, asks/agent/replay.py)."""
    return f"{name} → {outcome_summary(text)}"


def questions_summary(arguments: object, lookup: QuestionLookup) -> str:
    """One line per question of a parsed ``ask_user_question`` call (module docstring)."""
    questions = arguments.get("questions") if isinstance(arguments, dict) else None
    if not isinstance(questions, list):
        return ""
    lines = []
    for item in questions:
        if not isinstance(item, dict):
            continue
        if item.get("question"):
            lines.append(str(item["question"]))
        elif item.get("questionId"):
            qid = str(item["questionId"])
            text = lookup(qid)
            lines.append(f"{text} ({qid})" if text else qid)
    return numbered(lines)


def numbered(questions: Sequence[str]) -> str:
    """One question per line; with several, each starts with its number (``1. ``, ``2. ``)
    and the further lines of a multi-line question are indented under its text."""
    if len(questions) < 2:
        return "\n".join(questions)
    lines = []
    for number, text in enumerate(questions, start=1):
        mark = f"{number}. "
        first, *rest = text.split("\n")
        lines += [mark + first, *(" " * len(mark) + line for line in rest)]
    return "\n".join(lines)


def result_summary(envelope: contract.ResultEnvelope, hints: AnswerHints = LINE_HINTS) -> str:
    """What the person reads of a question result (module docstring): the outcome in their
    words where it has no answers to show, ``question → answer (notes: …)`` per answer, the
    ids still pending. Never the model's text."""
    details = envelope.details
    head = _(OUTCOME_WORDS[envelope.outcome]) if envelope.outcome in OUTCOME_WORDS else None
    lines = [head] if head else []
    lines += [
        _answer_line(str(a.get("question", "")), _detail_answer(a), str(a.get("notes") or ""))
        for a in details.get("answers", [])
        if isinstance(a, dict)
    ]
    note = str(details.get("groupNote") or "").strip()
    if note:
        lines.append(_("note for all questions: {note}").format(note=note))
    pending = [str(p) for p in details.get("pending", [])]
    if pending:
        line = _("pending: {ids} (answer any time: {how})")
        lines.append(line.format(ids=", ".join(pending), how=how_to_answer(hints)))
    return "\n".join(lines) or _(envelope.outcome.value)


def feedback_summary(projection: ProjectionView, refs: Sequence[QuestionRef]) -> str:
    """What the person reads of a feedback delivery carrying ``refs``: ``question → answer
    (notes: …)`` per saved answer (``→ declined`` for a decline), then the person's notes for
    all the questions they were given with. Never the model's text."""
    lines = []
    for ref in refs:
        state = projection.by_ref.get(ref)
        if state is None:
            continue
        question, resolution = state.question, state.resolution
        answer = resolution.answer if resolution is not None else None
        if resolution is None or resolution.kind is not ResolutionKind.ANSWERED or answer is None:
            lines.append(_answer_line(question.spec.question, None, ""))
        else:
            text = answer.text(question.spec) or _("nothing selected")
            lines.append(_answer_line(question.spec.question, text, answer.notes))
    lines += [
        _("note for all questions: {note}").format(note=note)
        for note, _refs in projection.group_notes(refs)
    ]
    return "\n".join(lines)


# Outcomes whose result card says what happened in words (the others show their answers).
OUTCOME_WORDS: Final[Mapping[Outcome, str]] = {
    Outcome.DEFERRED: N_("Deferred: the agent gets your answer when you give it."),
    Outcome.INTERRUPTED: N_(
        "The wait was interrupted: the agent gets your answer when you give it."
    ),
    Outcome.WITHDRAWN: N_("Withdrawn by the agent: no answer is needed."),
    Outcome.ALREADY_RECEIVED: N_("Already answered: the agent has your answer."),
}


def _detail_answer(answer: Mapping[str, Any]) -> str | None:
    """The answer text of a result's ``answers`` item; ``None`` for a decline."""
    if answer.get("kind") == "declined":
        return None
    return str(answer.get("answer") or "") or _("nothing selected")


def _answer_line(question: str, answer: str | None, notes: str) -> str:
    line = f"{question} → {answer if answer is not None else _('declined')}"
    notes = notes.strip()
    return f"{line} " + _("(notes: {notes})").format(notes=notes) if notes else line
