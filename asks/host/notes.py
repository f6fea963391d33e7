"""The person's notes to hub agents, and the text that delivers a mix of units.

A **note** (``asks hub``: ``@name text``) is the person's message to one agent asking through
the hub. It is a delivery unit like a saved answer (:class:`~asks.store.entries.NoteSent`,
ref ``n-<seq>``): journaled before anyone is told (save before notify), then in its
recipient's outbox, offered at the start of the result of that agent's next asks call (every
hub result begins with its undelivered feedback: ``The user sent you a note: …``), receipted
once the response was handed over, given back if it was not, offered again — saying so — if a
crash left it in doubt. It reaches that agent alone, never another nor the session's own.

:func:`feedback_of` is the one place a feedback message is composed from units, whatever
their kind: answers and declines first (with the group notes saved with them), then notes, all
in save order. :func:`split` tells the two kinds apart for the :class:`~asks.core.events.
Delivered` event (``refs``: questions; ``notes``: notes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from asks import contract
from asks.core.i18n import _
from asks.core.model import MAX_CUSTOM_TEXT, QuestionRef
from asks.host.lifecycle import group_notes
from asks.store.entries import NoteSent
from asks.store.projection import ProjectionView

if TYPE_CHECKING:
    from asks.host.state import HostState

NOTE_PREFIX: Final = "n-"
MAX_NOTE: Final = MAX_CUSTOM_TEXT  # characters: as much as a typed answer


def split(
    projection: ProjectionView, refs: Sequence[QuestionRef]
) -> tuple[tuple[QuestionRef, ...], tuple[QuestionRef, ...]]:
    """``refs`` as (the questions' units, the notes), each in the given order."""
    notes = projection.notes
    return tuple(r for r in refs if r not in notes), tuple(r for r in refs if r in notes)


def feedback_of(projection: ProjectionView, refs: Sequence[QuestionRef]) -> str:
    """The feedback message delivering ``refs`` (module docstring)."""
    questions, notes = split(projection, refs)
    items = []
    for ref in questions:
        state = projection.by_ref[ref]
        assert state.resolution is not None
        items.append((state.question, state.resolution))
    messages = [projection.notes[ref].note.text for ref in notes]
    return contract.feedback_text(items, group_notes(projection, questions), messages)


def send_note(host: HostState, recipient: str, text: str) -> QuestionRef | None:
    """Save a note to ``recipient`` and put it in its outbox; its ref, or ``None`` when it
    could not be saved (the host's notice says why)."""
    with host.operation():
        seq = host.journal.next_seq
        ref = QuestionRef(f"{NOTE_PREFIX}{seq}", seq)
        if host.append(NoteSent(ref, recipient, text)) is None:
            return None
        host.outbox.signal()
        host.changed()
        return ref


def saved_text(label: str) -> str:
    """What the transcript says once a note to agent ``label`` is saved (live and resumed)."""
    return _("Note for {name} saved: it reaches {name} at its next asks call.").format(name=label)


def typed_text(label: str, text: str) -> str:
    """The person's chat line that sent a note (as a resumed transcript shows it again)."""
    return f"@{label} {text}"
