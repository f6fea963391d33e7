"""The older part of a resumed transcript, drawn on demand (docs/architecture.md, "Long sessions").

A resumed REPL shows the end of the conversation at once and the rest when the person scrolls
up to it. :class:`TranscriptHistory` holds the conversation's records as they were at resume
and draws them into transcript entries a *window* of records at a time, from the end
backwards: :meth:`TranscriptHistory.older` gives the entries of the next older windows, in
order, to go before the ones given so far.

Invariant: the entries of every window, concatenated in order, are the entries the eager
rebuild (:func:`asks.agent.replay.rebuild`) gives for the same projection. A record's entries
depend on the records after it (a call's tool message and question results come after the
call: the agent journals a reply before it runs the reply's tools) and, for a question
result, on whether its call is one of this agent's (a call in an earlier reply): the maps
(:class:`~asks.agent.replay.Maps`) cover the records from the oldest window drawn to the end,
and an own-call lookup that misses folds older records in, one window at a time, until the
call is found or none are left (at most one full rebuild's reading in all).
"""

from __future__ import annotations

from typing import Final

from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.replay import Renderer, resumed_notice
from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.host.host import QuestionHost
from asks.store.projection import ProjectionView

__all__ = ["TAIL", "WINDOW", "TranscriptHistory", "resume_transcript"]

WINDOW: Final = 64  # records drawn (or folded into the maps) at a time (~75 entries)
TAIL: Final = 80  # entries a resumed transcript starts with (more than a screen shows)


def resume_transcript(
    transcript: Transcript,
    host: QuestionHost,
    model_name: str,
    *,
    unfinished: str,
    hints: AnswerHints = LINE_HINTS,
) -> None:
    """Give ``transcript`` the history of ``host``'s journal, its last :data:`TAIL` entries
    loaded, then the resumed notice."""
    history = TranscriptHistory(
        host.surface_port.projection, model_name, unfinished=unfinished, hints=hints
    )
    transcript.history = history
    transcript.load_older(TAIL)
    stats = host.statistics()
    notice = resumed_notice(host.session_id, stats.pending, stats.saved_undelivered)
    transcript.add(EntryKind.NOTICE, notice)


class TranscriptHistory:
    """The conversation at resume, drawn backwards on demand (module docstring)."""

    def __init__(
        self,
        projection: ProjectionView,
        model_name: str,
        *,
        unfinished: str,
        hints: AnswerHints = LINE_HINTS,
        window: int = WINDOW,
    ) -> None:
        self._records = projection.conversation.copy()  # records built as they are drawn
        self._window = max(window, 1)
        self._drawn = len(self._records)  # records from here on are drawn
        self._folded = len(self._records)  # records from here on are in the maps
        self._sink = Transcript()
        self._renderer = Renderer(
            self._sink, projection, model_name, unfinished, hints, more=self._fold_window
        )

    @property
    def remaining(self) -> int:
        """Records not drawn yet (0: the history is all in the transcript)."""
        return self._drawn

    def older(self, minimum: int) -> list[Entry]:
        """The entries of the next older windows, oldest first: at least ``minimum`` of them
        unless the conversation's start is reached first (then what is left, maybe none)."""
        found: list[Entry] = []
        while self._drawn and len(found) < minimum:
            start = max(0, self._drawn - self._window)
            self._fold_to(start)
            sink = self._sink
            sink.entries = []
            self._renderer.run(self._records[start : self._drawn])
            found[:0] = sink.entries
            self._drawn = start
        return found

    def _fold_to(self, start: int) -> None:
        if start < self._folded:
            renderer = self._renderer
            renderer.maps.add_before(renderer.projection, self._records[start : self._folded])
            self._folded = start

    def _fold_window(self) -> bool:
        """Fold the next older window into the maps; False when every record is in them."""
        if not self._folded:
            return False
        self._fold_to(max(0, self._folded - self._window))
        return True
