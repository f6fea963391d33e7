"""The transcript: what the chat shows, as a pure list of typed entries.

The agent loop appends entries (and streams text into the last agent entry); the transcript
widget renders them. Entries are values except :class:`AgentText`, whose text grows while the
model streams. Listeners are called after every change (scoped to this object, no global bus).

All text is stored as given; rendering sanitises it (DESIGN §9).
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import attrs

from asks.core.listeners import Signal


class EntryKind(enum.StrEnum):
    USER = "user"  # the person's chat message
    AGENT = "agent"  # streamed model text
    TOOL = "tool"  # a tool-call line (name, summary, state)
    QUESTION = "question"  # questions were asked (card)
    RESULT = "result"  # a blocking question's result went back (card)
    FEEDBACK = "feedback"  # saved answers were steered in / woke the agent (card)
    DECISION = "decision"  # the person allowed or denied a permission prompt (title says which)
    ERROR = "error"  # something failed; the REPL goes on
    NOTICE = "notice"  # status news (interrupted, resumed, …)


@attrs.define(eq=False)
class Entry:
    """One transcript entry. ``text`` may grow for AGENT entries while streaming."""

    kind: EntryKind
    text: str
    title: str = ""
    done: bool = True


@attrs.define(eq=False)
class Transcript:
    """Ordered entries plus change listeners."""

    entries: list[Entry] = attrs.Factory(list)
    _changes: Signal = attrs.Factory(Signal)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns an unsubscribe function."""
        return self._changes.subscribe(listener)

    def add(self, kind: EntryKind, text: str, title: str = "", *, done: bool = True) -> Entry:
        entry = Entry(kind, text, title, done)
        self.entries.append(entry)
        self._notify()
        return entry

    def stream(self, entry: Entry, delta: str) -> None:
        entry.text += delta
        self._notify()

    def finish(self, entry: Entry, suffix: str = "") -> None:
        entry.text += suffix
        entry.done = True
        self._notify()

    def _notify(self) -> None:
        self._changes.emit()
