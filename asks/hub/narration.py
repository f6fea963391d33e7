"""What the person reads in the transcript about the hub's agents (pure: event in, line out).

For each typed host event that concerns an agent asking through the hub (a question whose
recipient is a hub agent, :mod:`asks.host.hub`), one line, in the person's language:

* an agent asked (and whether it waits for the answer);
* an agent stopped waiting (its client cancelled, timed out or went away): the question stays
  pending and the answer reaches it at its next asks call — never a decline;
* an agent was given answers (the receipt of a hub response).

Questions are quoted through :func:`asks.sanitize.sanitize_line`: their text comes from the agent.
"""

from __future__ import annotations

from asks.core import events as ev
from asks.core.i18n import _
from asks.core.model import Outcome, Question, QuestionRef
from asks.host.hub import RECIPIENT_PREFIX
from asks.sanitize import sanitize_line
from asks.store.projection import Projection


def _hub_questions(projection: Projection, refs: tuple[QuestionRef, ...]) -> list[Question]:
    found = [projection.question(ref) for ref in refs if ref in projection.by_ref]
    return [q for q in found if (q.recipient or "").startswith(RECIPIENT_PREFIX)]


def _quoted(questions: list[Question]) -> str:
    return ", ".join(f"“{sanitize_line(q.spec.question)}”" for q in questions)


def narrate(event: ev.HostEvent, projection: Projection) -> str | None:
    """The line for ``event`` if it concerns a hub agent, else ``None``."""
    refs = getattr(event, "refs", ())
    questions = _hub_questions(projection, refs)
    if not questions:
        return None
    agent = sanitize_line(questions[0].source or "agent")
    quoted = _quoted(questions)
    match event:
        case ev.QuestionAsked(blocking=True):
            return _("{agent} asks and waits for you: {questions}").format(
                agent=agent, questions=quoted)
        case ev.QuestionAsked():
            return _("{agent} asks: {questions}").format(agent=agent, questions=quoted)
        case ev.WaitEnded(outcome=Outcome.INTERRUPTED):
            return _("{agent} stopped waiting for {questions}: your answer reaches it at its "
                     "next asks call.").format(agent=agent, questions=quoted)
        case ev.Delivered(channel=ev.DeliveryChannel.HUB):
            return _("{agent} was given your answer to {questions}.").format(
                agent=agent, questions=quoted)
    return None
