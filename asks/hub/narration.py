"""What the person reads in the transcript about the hub's agents (pure: event in, line out).

For each typed host event that concerns an agent asking through the hub (a question whose
recipient is a hub agent, :mod:`asks.host.hub`), a line, in the person's language:

* an agent asked (and whether it waits for the answer);
* an agent stopped waiting (its client cancelled, timed out or went away): the question stays
  pending and the answer reaches it at its next asks call — never a decline;
* an agent was given answers (the receipt of a hub response), and the person's notes to it
  (``asks hub``: ``@name text``) — one line for the notes of a response, after the answers'.

:func:`retold` tells a resumed ``asks hub`` session what its journal holds, in journal order,
with the same lines: each hub agent's asks, the waits it gave up, the person's notes (their
chat line and that it was saved) and what each agent was given.

Questions are quoted through :func:`asks.sanitize.sanitize_line`: their text comes from the agent
(a note's, from the person, is shown the same way: one line, no escape sequences).
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from asks.core import events as ev
from asks.core.i18n import _
from asks.core.model import Outcome, Question, QuestionRef
from asks.host.hub import RECIPIENT_PREFIX
from asks.host.notes import saved_text, split, typed_text
from asks.sanitize import sanitize_line
from asks.store.entries import GroupAsked, NoteSent, OfferDelivered, Record, ToolResult
from asks.store.projection import Projection


@attrs.frozen
class Retold:
    """One line of a resumed hub session's transcript: the person's own, or a notice."""

    text: str
    by_person: bool = False


def _hub_questions(projection: Projection, refs: tuple[QuestionRef, ...]) -> list[Question]:
    found = [projection.question(ref) for ref in refs if ref in projection.by_ref]
    return [q for q in found if (q.recipient or "").startswith(RECIPIENT_PREFIX)]


def _quoted(questions: list[Question]) -> str:
    return ", ".join(f"“{sanitize_line(q.spec.question)}”" for q in questions)


def narrate(event: ev.HostEvent, projection: Projection) -> list[str]:
    """The lines for ``event`` if it concerns a hub agent (none if it does not)."""
    lines = (_about_questions(event, projection), _about_notes(event, projection))
    return [line for line in lines if line is not None]


def note_quote(text: str, limit: int = 60) -> str:
    """A note as the transcript quotes it: one sanitised line, cut at ``limit`` characters."""
    line = " ".join(sanitize_line(text).split())
    return f"“{line if len(line) <= limit else line[: limit - 1] + '…'}”"


def _about_notes(event: ev.HostEvent, projection: Projection) -> str | None:
    if not isinstance(event, ev.Delivered) or not event.notes:
        return None
    notes = [projection.notes[ref].note for ref in event.notes if ref in projection.notes]
    if not notes:
        return None
    agent = sanitize_line(notes[0].recipient.removeprefix(RECIPIENT_PREFIX))
    quoted = ", ".join(note_quote(note.text) for note in notes)
    return _("{agent} was given your note {notes}.").format(agent=agent, notes=quoted)


def _about_questions(event: ev.HostEvent, projection: Projection) -> str | None:
    refs = getattr(event, "refs", ())
    questions = _hub_questions(projection, refs)
    if not questions:
        return None
    agent = sanitize_line(questions[0].source or "agent")
    quoted = _quoted(questions)
    match event:
        case ev.QuestionAsked(blocking=True):
            return _("{agent} asks and waits for you: {questions}").format(
                agent=agent, questions=quoted
            )
        case ev.QuestionAsked():
            return _("{agent} asks: {questions}").format(agent=agent, questions=quoted)
        case ev.WaitEnded(outcome=Outcome.INTERRUPTED):
            return _(
                "{agent} stopped waiting for {questions}: your answer reaches it at its "
                "next asks call."
            ).format(agent=agent, questions=quoted)
        case ev.Delivered(channel=ev.DeliveryChannel.HUB):
            return _("{agent} was given your answer to {questions}.").format(
                agent=agent, questions=quoted
            )
    return None


def retold(records: Iterable[Record], projection: Projection) -> list[Retold]:
    """The hub's part of a journal as transcript lines (module docstring)."""
    lines: list[Retold] = []
    for record in records:
        entry = record.entry
        event: ev.HostEvent | None = None
        match entry:
            case GroupAsked() if entry.call_id.startswith(RECIPIENT_PREFIX):
                refs = tuple(question.ref for question in entry.questions)
                event = ev.QuestionAsked(entry.call_id, refs, entry.blocking, None)
            case ToolResult(outcome=Outcome.INTERRUPTED) if entry.call_id in projection.calls:
                refs = projection.calls[entry.call_id].refs
                event = ev.WaitEnded(entry.call_id, refs, Outcome.INTERRUPTED)
            case OfferDelivered():
                questions, notes = split(projection, entry.refs)
                event = ev.Delivered(questions, ev.DeliveryChannel.HUB, notes)
            case NoteSent():
                label = sanitize_line(entry.recipient.removeprefix(RECIPIENT_PREFIX))
                lines += [
                    Retold(typed_text(label, entry.text), by_person=True),
                    Retold(saved_text(label)),
                ]
        if event is not None:
            lines += [Retold(line) for line in narrate(event, projection)]
    return lines
