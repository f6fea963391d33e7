"""Other surfaces' port: the web bridge, line mode, hooks and embedders' notifiers.

Semantics: :class:`SurfacePort`'s docstring (what ``help(SurfacePort)`` shows).
"""

from __future__ import annotations

from collections.abc import Callable

from asks.core.events import HostEvent
from asks.core.model import Answer, QuestionRef
from asks.core.refusal import Refusal
from asks.core.renamed import renamed
from asks.host import answering
from asks.host.port import Port
from asks.host.waits import Wait


class SurfacePort(Port):
    """The view of other surfaces.

    They read what is pending (:attr:`SurfacePort.projection`, :meth:`SurfacePort.question`,
    which questions a wait holds), follow the typed events (:meth:`SurfacePort.subscribe_events`:
    each told after its journal line is durable and the host's state is consistent again), and act
    for the person: answer or decline a question (:meth:`SurfacePort.answer_from`: checked,
    then saved the panel's way, :mod:`asks.host.answering`), answer a wait later
    (:meth:`SurfacePort.defer`) or send what was answered of it
    (:meth:`SurfacePort.submit_partial`). Refusals are :class:`~asks.core.refusal.Refusal`.
    """

    __slots__ = ()

    @property
    def notice(self) -> str | None:
        """The host's one-line refusal or hint now (``None``: none)."""
        return self._state.keys.notice

    @property
    def live_waits(self) -> tuple[Wait, ...]:
        """The blocking calls waiting now, oldest first."""
        return tuple(self._state.waits)

    def wait_for(self, ref: QuestionRef) -> Wait | None:
        """The live wait holding question ``ref`` (``None``: it is async, or answered)."""
        return self._state.waits.of_ref(ref)

    def subscribe_events(self, listener: Callable[[HostEvent], None]) -> Callable[[], None]:
        """Call ``listener(event)`` with each typed event (the class docstring); returns an
        unsubscribe function. A listener that raises is reported once, never breaks the host."""
        return self._state.announcer.events.add(listener)

    def answer_from(
        self,
        question_id: str,
        incarnation: int,
        answer: Answer | None,
        source: str = "web",
        group_note: str = "",
    ) -> Refusal | None:
        """Save an answer (``None``: decline) given on surface ``source`` (``"web"``, …);
        ``group_note``: the person's note for all the questions of its group, delivered with
        them. A refusal if the question is gone, answered, or the answer does not fit."""
        state = self._state
        with state.operation():
            ref = QuestionRef(question_id, incarnation)
            refusal = answering.answer_from(state, ref, answer, source, group_note)
            state.changed()
            return refusal

    def defer(self, question_id: str) -> Refusal | None:
        """End the wait holding ``question_id`` as deferred (its questions stay pending)."""
        with self._state.operation():
            return self._state.changed_if(self._state.life.defer(question_id))

    def submit_partial(self, question_id: str) -> Refusal | None:
        """End the wait holding ``question_id`` now: what was saved is delivered (``partial``),
        the rest stays pending. Refused if nothing of the wait was saved yet."""
        with self._state.operation():
            return self._state.changed_if(self._state.life.submit_partial(question_id))

    # The names before the rename (asks.core.renamed): they warn, then do the same.
    answer_from_nowait = renamed(answer_from, "answer_from_nowait")
    defer_nowait = renamed(defer, "defer_nowait")
    submit_partial_nowait = renamed(submit_partial, "submit_partial_nowait")
