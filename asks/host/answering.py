"""Answers given on other surfaces (web, line mode): checked, then saved the panel's way.

:func:`answer_from` is the host's seam for them. The check-then-save is one synchronous call
on the trio thread, so two surfaces can never both save a question: a question that is no
longer pending is refused (``already_answered`` / ``withdrawn``), an answer of the wrong shape
is ``invalid_answer``. Saving writes one ``resolved`` line (its ``source``, and the person's
note for all the questions of the group, if any) before anything is told. A question that a
live wait holds is claimed by that wait first, so its tool result — not a feedback message —
delivers it; if the line cannot be written the claim is released and ``not_saved`` returned.
A wait whose questions are all closed now ends. Only this question's own draft is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from asks.core.answers import answer_problem
from asks.core.model import Answer, QuestionRef, QuestionStatus, Resolution, ResolutionKind
from asks.core.refusal import Refusal
from asks.host.waits import WaitBook
from asks.store.outbox import Outbox
from asks.store.projection import Projection
from asks.store.records import RecordUnreadable


class AnsweringCore(Protocol):
    """What saving a surface's answer needs from the orchestrator."""

    projection: Projection
    waits: WaitBook
    outbox: Outbox

    def save(
        self, resolutions: Sequence[Resolution], source: str = "panel", group_note: str = ""
    ) -> bool: ...
    def settle_waits(self, refs: Sequence[QuestionRef]) -> None: ...


def answer_from(
    core: AnsweringCore, ref: QuestionRef, answer: Answer | None, source: str, group_note: str
) -> Refusal | None:
    """Save ``answer`` (``None``: a decline) to ``ref`` from ``source`` (module docstring)."""
    state = core.projection.by_ref.get(ref)
    if state is None:
        return Refusal.UNKNOWN_QUESTION
    if state.status is QuestionStatus.WITHDRAWN:
        return Refusal.WITHDRAWN
    if state.status is not QuestionStatus.PENDING:
        return Refusal.ALREADY_ANSWERED
    try:  # read back (fleet-scale.md, "Questions by number"): never another question's spec
        spec = state.question.spec
    except RecordUnreadable:
        return Refusal.NOT_SAVED
    if answer is not None and answer_problem(spec, answer) is not None:
        return Refusal.INVALID_ANSWER
    kind = ResolutionKind.DECLINED if answer is None else ResolutionKind.ANSWERED
    if core.waits.of_ref(ref) is not None:
        core.outbox.claim(ref)  # the wait's tool result will deliver it
    if not core.save([Resolution(ref, kind, answer)], source, group_note):
        core.outbox.release(ref)
        return Refusal.NOT_SAVED
    core.settle_waits([ref])
    return None
