"""What the person is told when a question was answered on another surface.

An :class:`~asks.core.events.AnswerSaved` from a surface other than the one the person looks at
(the browser, while the terminal shows the panel or runs line mode) is said in one line per
question: ``Checks answered in the browser: Lint`` or ``Checks declined in the browser.``.
Headers and answers are sanitised: they come from the model and from the browser.
"""

from __future__ import annotations

from typing import Final

from asks.core.events import AnswerSaved
from asks.core.i18n import N_, _
from asks.sanitize import sanitize_line
from asks.store.projection import Projection

SURFACE_NAMES: Final = {"web": N_("in the browser"), "line": N_("in line mode")}


def elsewhere_lines(projection: Projection, event: AnswerSaved) -> list[str]:
    """``Checks answered in the browser: Lint`` for each question the event saved."""
    named = SURFACE_NAMES.get(event.source)
    where = _(named) if named else _("from {source}").format(source=event.source)
    lines = []
    for ref in event.refs:
        state = projection.by_ref[ref]
        answer = state.resolution.answer if state.resolution is not None else None
        header = sanitize_line(state.question.spec.header)
        if answer is None:
            lines.append(_("{header} declined {where}.").format(header=header, where=where))
        else:
            text = sanitize_line(answer.text(state.question.spec))
            line = _("{header} answered {where}: {text}")
            lines.append(line.format(header=header, where=where, text=text))
    return lines
