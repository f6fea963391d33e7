"""Tool results: one builder per :class:`~asks.core.model.Outcome`, and the feedback text.

Each builder returns a :class:`ResultEnvelope`: the text the model reads plus JSON-serialisable
``details``. :func:`feedback_text` is the message that carries async answers. These use the
stored, already sanitised strings as-is; only host-supplied extras (a reason, a storage detail,
a call id) are sanitised here.

A :class:`GroupNote` is the person's one note for several questions answered together (the
Review tab's note, line mode's note after a group, the web page's note of a group). Results
that carry answers or declines (:func:`answered_result`, :func:`declined_result`) put each
note after the answers (``User note for all questions: …``) and in ``details["groupNote"]``
(the notes' texts, one blank line apart; ``""`` when there is none); :func:`feedback_text`
ends with each note and the ids of the questions it was given with.

A *message* of :func:`feedback_text` is a note the person sent an agent on its own (``asks
hub``: ``@name text``), not with any answer: ``The user sent you a note: …``, after the
answers (a feedback made of messages only has no answers' framing line).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from typing import Any, Final

import attrs

from asks.contract.errors import DETAIL_MAX
from asks.contract.schema import FEEDBACK_PREFIX, REF_KEY, TOOL_NAME
from asks.contract.validate import SHORTENED
from asks.core.model import MAX_HEADER, Answer, Outcome, Question, Resolution, ResolutionKind
from asks.sanitize import sanitize_line


@attrs.frozen
class GroupNote:
    """The person's note for the questions answered together with it (module docstring)."""

    text: str
    question_ids: tuple[str, ...] = ()


class QuestionOutcome(enum.StrEnum):
    """What became of one question of a tool call, for a program (not the model).

    ``ANSWERED`` and ``DECLINED`` are the person's; ``DEFERRED`` means the person chose "later"
    (Alt+L, or answered only some questions of the group): the question stays pending and its
    answer will come as feedback; ``INTERRUPTED`` means the wait ended without the person
    (cancelled, Ctrl+C, UI detached, restart) — never a decline, the question stays pending;
    ``WITHDRAWN``: the agent took it back, no answer will come. ``QUEUED``: asked without
    blocking, pending, its answer comes as feedback. ``ALREADY_RECEIVED``: a wait on a
    question whose answer was already delivered as feedback (use that feedback)."""

    ANSWERED = "answered"
    DECLINED = "declined"
    DEFERRED = "deferred"
    WITHDRAWN = "withdrawn"
    INTERRUPTED = "interrupted"
    QUEUED = "queued"
    ALREADY_RECEIVED = "already_received"


@attrs.frozen
class QuestionResult:
    """One question of a tool call's result, typed: its id and text, its outcome and — when
    ``ANSWERED`` — what the person chose.

    ``labels`` / ``indices``: the chosen options' labels and 0-based indices, in option order
    (one for a single-select answer, zero or more for multi-select, none for free text);
    ``custom_text``: what was typed in the "Type something." row (``None`` if nothing);
    ``notes``: the person's note on this question (Alt+N; ``""`` if none); ``preview``: the
    chosen option's preview (single select), if it has one. All empty unless answered."""

    question_id: str
    question: str
    outcome: QuestionOutcome
    labels: tuple[str, ...] = ()
    indices: tuple[int, ...] = ()
    custom_text: str | None = None
    notes: str = ""
    preview: str | None = None

    @property
    def answer(self) -> str:
        """The answer as the person sees it: the labels, then the custom text, comma-joined."""
        return ", ".join(self.labels + ((self.custom_text,) if self.custom_text else ()))


_PER_QUESTION: Final = {
    Outcome.ANSWERED: QuestionOutcome.DEFERRED,  # never used: answered calls have no pending
    Outcome.PARTIAL: QuestionOutcome.DEFERRED,
    Outcome.DECLINED: QuestionOutcome.DECLINED,
    Outcome.DEFERRED: QuestionOutcome.DEFERRED,
    Outcome.WITHDRAWN: QuestionOutcome.WITHDRAWN,
    Outcome.INTERRUPTED: QuestionOutcome.INTERRUPTED,
    Outcome.QUEUED: QuestionOutcome.QUEUED,
    Outcome.ALREADY_RECEIVED: QuestionOutcome.ALREADY_RECEIVED,
}


@attrs.frozen
class CallResult:
    """A tool call's result for a program: the call's :class:`~asks.core.model.Outcome`, one
    :class:`QuestionResult` per question (in the order asked) and the person's group note
    (``""`` if none; several notes one blank line apart).

    The call outcomes: ``ANSWERED`` (every question answered or declined one by one),
    ``PARTIAL`` (some answered; the rest ``DEFERRED``, their answers come as feedback),
    ``DECLINED`` (the person declined the whole group), ``DEFERRED`` (the person chose
    "later"), ``WITHDRAWN``, ``INTERRUPTED`` (never a decline), ``QUEUED`` (a non-blocking call
    was accepted: ids now, answers later as feedback), ``ALREADY_RECEIVED`` (a
    ``{"questionId": …}`` wait on answers already delivered as feedback: nothing to wait for)."""

    outcome: Outcome
    questions: tuple[QuestionResult, ...]
    group_note: str = ""

    @property
    def question_ids(self) -> tuple[str, ...]:
        """The ids of the call's questions, in the order asked."""
        return tuple(q.question_id for q in self.questions)

    def get(self, question_id: str) -> QuestionResult | None:
        """The result of question ``question_id`` (``None`` if the call did not have it)."""
        found = [q for q in self.questions if q.question_id == question_id]
        return found[0] if found else None

    @classmethod
    def of(cls, outcome: Outcome, details: dict[str, Any]) -> CallResult:
        """Read a result from its journaled ``details`` (what :class:`ResultEnvelope` holds)."""
        answered = {a["questionId"]: _question_result(a) for a in details.get("answers", [])}
        rest = _PER_QUESTION[outcome]
        questions = tuple(
            answered.get(qid) or QuestionResult(qid, details.get("texts", {}).get(qid, ""), rest)
            for qid in details.get("questionIds", [])
        )
        return cls(outcome, questions, details.get("groupNote", ""))


def question_result(question: Question, resolution: Resolution) -> QuestionResult:
    """One saved answer (or decline) as a typed :class:`QuestionResult` (what a feedback
    message delivered: :meth:`asks.AgentPort.results_of`)."""
    return _question_result(_answer_detail(question, resolution))


def _question_result(detail: dict[str, Any]) -> QuestionResult:
    qid, text = detail["questionId"], detail["question"]
    if detail["kind"] == "declined":
        return QuestionResult(qid, text, QuestionOutcome.DECLINED)
    labels = tuple(detail["selected"])
    return QuestionResult(
        qid,
        text,
        QuestionOutcome.ANSWERED,
        labels,
        tuple(detail["optionIndices"]),
        detail.get("customText", _custom_of(detail["answer"], labels)),
        detail["notes"],
        detail["preview"],
    )


def _custom_of(answer: str, labels: tuple[str, ...]) -> str | None:
    """The custom text inside an answer journaled before ``customText`` existed."""
    chosen = ", ".join(labels)
    rest = answer[len(chosen) :].removeprefix(", ") if chosen else answer
    return rest or None


@attrs.frozen
class ResultEnvelope:
    """A tool result: its outcome, the text the model reads, and JSON-serialisable details.

    Programs read :attr:`result` (typed); ``details`` is the journaled form of the same."""

    outcome: Outcome
    text: str
    details: dict[str, Any]

    @property
    def result(self) -> CallResult:
        """The result as typed values: each question's outcome, choices, notes, group note."""
        return CallResult.of(self.outcome, self.details)


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
            "customText": None,
        }
    indices = sorted(answer.option_indices)
    return detail | {
        "kind": answer.kind.value,
        "customText": answer.custom_text or None,
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
    notes: Sequence[GroupNote] | None = None,
) -> ResultEnvelope:
    details: dict[str, Any] = {
        "outcome": outcome.value,
        "callId": call_id,
        "questionIds": [q.id for q in questions],
        "texts": {q.id: q.spec.question for q in questions},
        "answers": [_answer_detail(q, r) for q, r in answers],
        "pending": [q.id for q in pending],
    }
    if notes is not None:
        details["groupNote"] = "\n\n".join(note.text for note in notes)
    return ResultEnvelope(outcome, text, details)


def _notes_phrase(notes: Sequence[GroupNote]) -> str:
    """`` User note for all questions: ….`` per note (a leading space), or ``""``."""
    return "".join(f" {_sentence(f'User note for all questions: {note.text}')}" for note in notes)


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


def _sentence(text: str) -> str:
    """``text`` ended by a period, unless it already ends a sentence (no "..")."""
    return text if text.rstrip().endswith((".", "!", "?", "…")) else text + "."


def header_note(questions: Sequence[Question]) -> str:
    """`` Note: …`` naming headers that validation shortened to fit the chip, or ``""``."""
    cut = [
        q.spec.header
        for q in questions
        if len(q.spec.header) == MAX_HEADER and q.spec.header.endswith(SHORTENED)
    ]
    if not cut:
        return ""
    shown = ", ".join(f'"{h}"' for h in cut)
    return (
        f" Note: headers are chips of at most {MAX_HEADER} characters; the user sees "
        f"{shown}. Keep headers shorter next time."
    )


def _listing(questions: Sequence[Question]) -> str:
    return ", ".join(f'"{q.spec.question}" (id {q.id})' for q in questions)


def _wait_hint(questions: Sequence[Question]) -> str:
    """``call ask_user_question with {"questions":[{"questionId":"q-…"}]}``: the compact
    JSON of the stdlib's ``json.dumps``, written directly when every id is printable ASCII
    without ``"`` or ``\\`` (ids are ``q-`` and hex: what ``json`` writes as it is)."""
    ids = [q.id for q in questions]
    if all(_verbatim(qid) for qid in ids):
        entries = ",".join(f'{{"{REF_KEY}":"{qid}"}}' for qid in ids)
        return f'call {TOOL_NAME} with {{"questions":[{entries}]}}'
    call = {"questions": [{REF_KEY: qid} for qid in ids]}
    return f"call {TOOL_NAME} with {json.dumps(call, separators=(',', ':'))}"


def _verbatim(text: str) -> bool:
    """Does ``json.dumps`` (ASCII) write ``text`` between its quotes unchanged?"""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def _arrives_later(questions: Sequence[Question]) -> str:
    return (
        f'Their answers will arrive as feedback messages starting with "{FEEDBACK_PREFIX}"; '
        f"do not ask again. If you cannot continue without them, {_wait_hint(questions)}."
    )


def answered_result(
    call_id: str,
    items: Sequence[tuple[Question, Resolution]],
    still_pending: Sequence[Question] = (),
    notes: Sequence[GroupNote] = (),
) -> ResultEnvelope:
    """The user answered (or declined some of) the questions; PARTIAL if some still pend.
    ``notes``: the person's notes for all of them (module docstring)."""
    text = "User has answered your questions: "
    text += " ".join(_sentence(_answer_phrase(q, r)) for q, r in items)
    text += _notes_phrase(notes)
    if still_pending:
        text += f" Still pending: {_listing(still_pending)}. {_arrives_later(still_pending)}"
    text += " You can now continue with the user's answers in mind."
    questions = [q for q, _ in items] + list(still_pending)
    text += header_note(questions)
    outcome = Outcome.PARTIAL if still_pending else Outcome.ANSWERED
    return _envelope(
        outcome, call_id, text, questions, answers=items, pending=still_pending, notes=notes
    )


def declined_result(
    call_id: str, questions: Sequence[Question], notes: Sequence[GroupNote] = ()
) -> ResultEnvelope:
    """The user explicitly declined to answer (``notes``: what they said about all of them)."""
    text = (
        f"User declined to answer questions.{_notes_phrase(notes)} Do not ask them again "
        "unless the user asks you to; continue with your best judgement and mention the "
        "assumptions you make." + header_note(questions)
    )
    declined = [(q, Resolution(q.ref, ResolutionKind.DECLINED)) for q in questions]
    return _envelope(Outcome.DECLINED, call_id, text, questions, answers=declined, notes=notes)


def deferred_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """The user chose to answer later: the questions stay pending."""
    text = (
        f"The user chose to answer later. Pending: {_listing(questions)}. Keep working on "
        f"what you can. {_arrives_later(questions)}{header_note(questions)}"
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
    cause = sanitize_line(reason[: DETAIL_MAX * 4]).strip()[:DETAIL_MAX]
    text = (
        f"Waiting for the user's answer was interrupted{f' ({cause})' if cause else ''}. "
        f"This is not a decline: the user has not answered yet. The questions stay pending: "
        f"{_listing(questions)}. {_arrives_later(questions)}{header_note(questions)}"
    )
    return _envelope(Outcome.INTERRUPTED, call_id, text, questions, pending=questions)


def queued_result(call_id: str, questions: Sequence[Question]) -> ResultEnvelope:
    """A non-blocking call was accepted: ids now, answers later as feedback."""
    text = (
        f"Questions sent to the user without blocking: {_listing(questions)}. Keep working "
        "on the task; the user answers whenever they like and there is no timeout. "
        f"{_arrives_later(questions)}{header_note(questions)}"
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


def _feedback_note(note: GroupNote) -> str:
    ids = ", ".join(note.question_ids)
    return (
        f"User note for all of questions {ids}: {note.text}"
        if ids
        else (f"User note for all questions: {note.text}")
    )


NOTE_PHRASE = "The user sent you a note:"


def feedback_text(
    items: Sequence[tuple[Question, Resolution]],
    notes: Sequence[GroupNote] = (),
    messages: Sequence[str] = (),
) -> str:
    """The feedback message carrying saved answers that no tool result delivered (questions
    asked without blocking, or whose blocking wait was interrupted or deferred): a fixed
    framing line, then one paragraph per item naming the question id, the question and the
    answer (or the decline), then one per note naming the questions it was given with; then
    one per message (module docstring)."""
    said = [f"{NOTE_PHRASE} {text}" for text in messages]
    if not items and not notes:
        return "\n\n".join([f"{FEEDBACK_PREFIX} {said[0]}", *said[1:]]) if said else ""
    intro = f"{FEEDBACK_PREFIX} The user responded to question(s) you asked earlier:"
    paragraphs = [_feedback_item(q, r) for q, r in items] + [_feedback_note(n) for n in notes]
    return "\n\n".join([intro, *paragraphs, *said])
