"""What the transcript says when the person answers: who was answered, and where.

For each question an :class:`~asks.core.events.AnswerSaved` saved (:func:`answer_lines`):

* a question **another agent** asked (it has a source label: an agent asking through the hub,
  or a label an embedder gave) always gets one line, whatever the surface, so that with five
  agents the transcript says who got which answer: ``You answered builder: Deploy to canary
  now? → No``, ``You declined builder: Deploy to canary now?``; from another surface than
  the one the person looks at, where: ``You answered builder in the browser: … → No``;
* a question of the session's **own agent** gets a line only when it was answered on another
  surface (the agent's own transcript shows the rest): ``Checks answered in the browser:
  Lint`` or ``Checks declined in the browser.``.

Every line is one line: headers, questions and answers come from the model and from the
browser, so they are sanitised (:func:`asks.sanitize.sanitize_line`), their runs of white
space folded, and questions and answers longer than :data:`QUESTION_CHARS` /
:data:`ANSWER_CHARS` characters cut with ``…``.
"""

from __future__ import annotations

from typing import Final

from asks.core.events import AnswerSaved
from asks.core.i18n import N_, _
from asks.core.model import Question, Resolution
from asks.sanitize import sanitize_line
from asks.store.projection import ProjectionView

SURFACE_NAMES: Final = {"web": N_("in the browser"), "line": N_("in line mode")}
QUESTION_CHARS: Final = 60
ANSWER_CHARS: Final = 80


def clipped(text: str, limit: int) -> str:
    """``text`` as one sanitised line of at most ``limit`` characters (``…`` if cut)."""
    line = " ".join(sanitize_line(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def answer_lines(projection: ProjectionView, event: AnswerSaved, here: str) -> list[str]:
    """The transcript's lines for ``event`` on the surface ``here`` (module docstring)."""
    lines = []
    for ref in event.refs:
        state = projection.by_ref[ref]
        if state.resolution is None:
            continue
        if state.question.source:
            lines.append(_agent_line(state.question, state.resolution, event.source, here))
        elif event.source != here:
            lines.append(_elsewhere_line(state.question, state.resolution, event.source))
    return lines


def _where(source: str) -> str:
    named = SURFACE_NAMES.get(source)
    return _(named) if named else _("from {source}").format(source=sanitize_line(source))


def _agent_line(question: Question, resolution: Resolution, source: str, here: str) -> str:
    agent = sanitize_line(question.source or "")
    asked = clipped(question.spec.question, QUESTION_CHARS)
    answer = resolution.answer
    if source == here:
        if answer is None:
            return _("You declined {agent}: {question}").format(agent=agent, question=asked)
        text = clipped(answer.text(question.spec), ANSWER_CHARS)
        return _("You answered {agent}: {question} → {answer}").format(
            agent=agent, question=asked, answer=text
        )
    where = _where(source)
    if answer is None:
        return _("You declined {agent} {where}: {question}").format(
            agent=agent, where=where, question=asked
        )
    text = clipped(answer.text(question.spec), ANSWER_CHARS)
    return _("You answered {agent} {where}: {question} → {answer}").format(
        agent=agent, where=where, question=asked, answer=text
    )


def _elsewhere_line(question: Question, resolution: Resolution, source: str) -> str:
    """``Checks answered in the browser: Lint`` (the session's own agent's question)."""
    where = _where(source)
    header = sanitize_line(question.spec.header)
    if resolution.answer is None:
        return _("{header} declined {where}.").format(header=header, where=where)
    text = sanitize_line(resolution.answer.text(question.spec))
    return _("{header} answered {where}: {text}").format(header=header, where=where, text=text)
