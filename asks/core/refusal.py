"""Why the host refused a request from a person-facing surface: one typed refusal for all.

Every ``*_nowait`` request of the panel, the layer and other surfaces (web, line mode) that can
be refused returns ``Refusal | None``; :attr:`Refusal.text` is the sentence shown to the person
(the host also puts it in its notice). Nothing is changed when a request is refused.
"""

from __future__ import annotations

import enum


class Refusal(enum.StrEnum):
    NO_QUESTIONS = "no_questions"  # nothing is pending
    PROMPT_OPEN = "prompt_open"  # a foreign prompt (permission confirm) has the keyboard
    UNKNOWN_QUESTION = "unknown_question"  # no such (pending) question
    BLOCKER_WAITING = "blocker_waiting"  # a required question holds the panel (rule 4)
    NOT_BLOCKING = "not_blocking"  # defer/partial on a question nobody waits for
    ALREADY_ANSWERED = "already_answered"  # answered or declined (terminal, another surface)
    WITHDRAWN = "withdrawn"  # the agent took it back
    INVALID_ANSWER = "invalid_answer"  # does not fit the question (see ``answer_problem``)
    NOTHING_ANSWERED = "nothing_answered"  # a partial submit with no answer saved yet
    NOT_SAVED = "not_saved"  # the journal append failed (see ``statistics().notice``)

    @property
    def text(self) -> str:
        return _TEXT[self]


_TEXT = {
    Refusal.NO_QUESTIONS: "No pending questions.",
    Refusal.PROMPT_OPEN: "Finish the open prompt first.",
    Refusal.UNKNOWN_QUESTION: "No pending question with that id.",
    Refusal.BLOCKER_WAITING: "A required question is waiting: answer, Decline or Defer it.",
    Refusal.NOT_BLOCKING: "This question is not blocking; it simply stays pending.",
    Refusal.ALREADY_ANSWERED: "That question was already answered.",
    Refusal.WITHDRAWN: "That question was withdrawn by the agent.",
    Refusal.INVALID_ANSWER: "That answer does not fit the question.",
    Refusal.NOTHING_ANSWERED: "Answer at least one question first, or Decline or Defer.",
    Refusal.NOT_SAVED: "Not saved: storage failed. Your draft is kept.",
}
