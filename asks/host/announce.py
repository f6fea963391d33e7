"""What the host tells, and when: events and change notices after the state is consistent.

Every call into the host through a port is an **operation** (``with announcer.operation():``;
operations nest). While one runs, what it has to tell is queued, not told: the typed events
(:mod:`asks.core.events`, each emitted only after its journal line is durable — save before
notify) and the bare "something changed" for views. When the outermost operation ends — its
journal lines written, waits settled, tabs, focus and outbox re-derived — the announcer
delivers, in this order: the queued events, oldest first, to the event listeners; then, if
anything changed, the change listeners; then, if the host's statistics snapshot (what a status
line shows: :mod:`asks.host.stats`) differs from the last one delivered, the status listeners.

A listener may call back into the host: its operation's events join the queue and are told by
the delivery already running, in order, never re-entrantly. Listeners are isolated
(:class:`~asks.core.listeners.Listeners` with ``on_failure``): one that raises is reported once
and never stops the others, the delivery or the host. An emit outside any operation (a
background task: the drafts keeper's failure notice) is delivered at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from types import TracebackType

from asks.core.events import HostEvent
from asks.core.listeners import Listeners
from asks.host.stats import HostStatistics


class Announcer:
    """The host's queue of what to tell and its three listener lists (module docstring)."""

    __slots__ = (
        "_changed",
        "_delivering",
        "_depth",
        "_opens",
        "_queue",
        "_shown",
        "_snapshot",
        "changes",
        "events",
        "status",
    )

    def __init__(
        self,
        on_failure: Callable[[str], None],
        snapshot: Callable[[], HostStatistics],
        opens: Callable[[], None] = lambda: None,
    ) -> None:
        self.events: Listeners[HostEvent] = Listeners(on_failure)
        self.changes: Listeners[None] = Listeners(on_failure)
        self.status: Listeners[HostStatistics] = Listeners(on_failure)
        self._snapshot = snapshot
        self._opens = opens  # called as the outermost operation begins (the state as it was)
        self._queue: deque[HostEvent] = deque()
        self._changed = False
        self._depth = 0
        self._delivering = False
        self._shown: HostStatistics | None = None  # the snapshot the status listeners saw

    def operation(self) -> Announcer:
        """``with announcer.operation():`` — tell what it queues once it ends (outermost)."""
        return self

    def __enter__(self) -> None:
        if not self._depth:
            self._opens()
        self._depth += 1

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._depth -= 1
        if not self._depth and (self._changed or self._queue):
            self._deliver()

    def emit(self, event: HostEvent) -> None:
        """Queue ``event`` (its journal line is durable already)."""
        self._queue.append(event)
        if not self._depth:
            self._deliver()

    def changed(self) -> None:
        """Something views show changed: tell the change (and status) listeners."""
        self._changed = True
        if not self._depth:
            self._deliver()

    @property
    def queued(self) -> int:
        """Events waiting for the end of the operation (0 between operations)."""
        return len(self._queue)

    def _deliver(self) -> None:
        if self._delivering:
            return  # a listener's own operation: the running delivery tells it, in order
        self._delivering = True
        try:
            while self._queue or self._changed:
                while self._queue:
                    self.events.emit(self._queue.popleft())
                if self._changed:
                    self._changed = False
                    self.changes.emit(None)
                    self._tell_status()
        finally:
            self._delivering = False

    def _tell_status(self) -> None:
        if not len(self.status):
            self._shown = None
            return
        now = self._snapshot()
        if now != self._shown:
            self._shown = now
            self.status.emit(now)
