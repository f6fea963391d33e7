"""The transcript: what the chat shows, as a pure list of typed entries.

The agent loop appends entries (and streams text into the last agent entry); the transcript
widget renders them. Entries are values except :class:`AgentText`, whose text grows while the
model streams. Listeners are called after every change (scoped to this object, no global bus).

Queued messages: a message the person sends is shown at once, in :attr:`Transcript.queued`
(drawn after every entry, ``you (queued) › …``), until the agent's turn reads it: then
:meth:`Transcript.take` moves it out of the queue and appends it as an ordinary user entry —
at the place in the conversation where the agent read it, which is where the journal has it
(so a resumed transcript shows it at the same place). ``entries`` never holds a queued message.

History: a resumed transcript may start with only the conversation's last entries; the older
ones stay in its :attr:`Transcript.history` (asks/agent/history.py) until
:meth:`Transcript.load_older` puts them in front of ``entries`` (the transcript view does,
when the person scrolls up to them; :meth:`Transcript.load_all` for a surface that prints
everything). Loading is not a change: listeners are not called (nothing happened), and
whoever loads accounts for the entries it put in front.

All text is stored as given; rendering sanitises it (docs/design.md, "Security").
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final, Protocol

from asks.core.listeners import Signal

QUEUED: Final = "queued"  # the title of a queued message (a word of ours, translated when drawn)


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


class Entry:
    """One transcript entry. ``text`` may grow for AGENT entries while streaming."""

    # Plain classes here, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("done", "kind", "text", "title")

    def __init__(self, kind: EntryKind, text: str, title: str = "", done: bool = True) -> None:
        self.kind = kind
        self.text = text
        self.title = title
        self.done = done

    def __repr__(self) -> str:
        return f"Entry({self.kind!r}, {self.text!r}, {self.title!r}, {self.done!r})"


class History(Protocol):
    """Older entries, given on demand, oldest first (asks/agent/history.py)."""

    @property
    def remaining(self) -> int:
        """0 when nothing is left."""
        ...

    def older(self, minimum: int) -> list[Entry]: ...


class Transcript:
    """Ordered entries plus change listeners."""

    __slots__ = ("_changes", "entries", "history", "queued")

    def __init__(
        self,
        entries: list[Entry] | None = None,
        queued: list[Entry] | None = None,
        history: History | None = None,
    ) -> None:
        self.entries: list[Entry] = [] if entries is None else entries
        self.queued: list[Entry] = [] if queued is None else queued  # sent, not read yet
        self.history = history  # older entries not loaded yet (module docstring)
        self._changes = Signal()

    @property
    def complete(self) -> bool:
        """Whether ``entries`` starts at the conversation's start (no history left)."""
        return self.history is None or not self.history.remaining

    def load_older(self, minimum: int) -> int:
        """Put at least ``minimum`` older entries in front of ``entries`` (fewer at the
        history's start); how many. Listeners are not called (module docstring)."""
        if self.history is None:
            return 0
        older = self.history.older(minimum)
        self.entries[:0] = older
        return len(older)

    def load_all(self) -> int:
        """Put every older entry in front of ``entries``; how many."""
        loaded = 0
        while not self.complete:
            loaded += self.load_older(1 << 30)
        return loaded

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns an unsubscribe function."""
        return self._changes.subscribe(listener)

    def add(self, kind: EntryKind, text: str, title: str = "", *, done: bool = True) -> Entry:
        return self.append(Entry(kind, text, title, done))

    def append(self, entry: Entry) -> Entry:
        """Add ``entry`` as it is (a subclass may make its text when read)."""
        self.entries.append(entry)
        self._notify()
        return entry

    def queue(self, text: str) -> Entry:
        """The person sent ``text`` and the agent has not read it yet (module docstring)."""
        entry = Entry(EntryKind.USER, text, QUEUED)
        self.queued.append(entry)
        self._notify()
        return entry

    def take(self, queued: Entry) -> Entry:
        """The agent reads ``queued``: it leaves the queue and a user entry with its text is
        appended (returned)."""
        if queued in self.queued:  # by identity (entries compare by identity)
            self.queued.remove(queued)
        return self.add(EntryKind.USER, queued.text)

    def stream(self, entry: Entry, delta: str) -> None:
        entry.text += delta
        self._notify()

    def finish(self, entry: Entry, suffix: str = "") -> None:
        entry.text += suffix
        entry.done = True
        self._notify()

    def _notify(self) -> None:
        self._changes.emit()
