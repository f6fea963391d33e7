"""Why the host refused a request from a person-facing surface: one typed refusal for all.

Every request of the panel, the layer and other surfaces (web, line mode) that can
be refused returns ``Refusal | None``; :attr:`Refusal.text` is the sentence shown to the person
(the host also puts it in its notice), in the person's language (:mod:`asks.core.i18n`;
English outside a translator scope). Nothing is changed when a request is refused.
"""

from __future__ import annotations

import enum

from asks.core.i18n import N_, _


class Refusal(enum.StrEnum):
    """Why a panel command or a surface's request was refused; :attr:`text` is the sentence
    for the person."""

    NO_QUESTIONS = "no_questions"  # nothing is pending
    PROMPT_OPEN = "prompt_open"  # a foreign prompt (permission confirm) has the keyboard
    UNKNOWN_QUESTION = "unknown_question"  # no such (pending) question
    UNKNOWN_AGENT = "unknown_agent"  # no pending question from that agent (``/asks @name``)
    BLOCKER_WAITING = "blocker_waiting"  # a required question holds the panel
    NOT_BLOCKING = "not_blocking"  # defer/partial on a question nobody waits for
    ALREADY_ANSWERED = "already_answered"  # answered or declined (terminal, another surface)
    WITHDRAWN = "withdrawn"  # the agent took it back
    INVALID_ANSWER = "invalid_answer"  # does not fit the question (see ``answer_problem``)
    NOTHING_ANSWERED = "nothing_answered"  # a partial submit with no answer saved yet
    NOT_SAVED = "not_saved"  # the journal append failed (see ``statistics().notice``)

    @property
    def text(self) -> str:
        """The sentence for the person, in their language."""
        return _(_TEXT[self])


_TEXT = {
    Refusal.NO_QUESTIONS: N_("No pending questions."),
    Refusal.PROMPT_OPEN: N_("Finish the open prompt first."),
    Refusal.UNKNOWN_QUESTION: N_("No pending question with that id."),
    Refusal.UNKNOWN_AGENT: N_("No pending questions from that agent."),
    Refusal.BLOCKER_WAITING: N_("A required question is waiting: answer, Decline or Defer it."),
    Refusal.NOT_BLOCKING: N_("This question is not blocking; it simply stays pending."),
    Refusal.ALREADY_ANSWERED: N_("That question was already answered."),
    Refusal.WITHDRAWN: N_("That question was withdrawn by the agent."),
    Refusal.INVALID_ANSWER: N_("That answer does not fit the question."),
    Refusal.NOTHING_ANSWERED: N_("Answer at least one question first, or Decline or Defer."),
    Refusal.NOT_SAVED: N_("Not saved: storage failed. Your draft is kept."),
}
