"""Per-object listener lists: the one helper every observable model uses.

``Listeners[T]`` holds callbacks taking a ``T`` (``None`` for a bare "something changed").
:meth:`Listeners.add` returns an unsubscribe function; :meth:`Listeners.emit` calls every
listener present when it starts, in subscription order (a listener may unsubscribe itself or
others while being called). Scoped to the object that owns it — never a module-level bus.

**Listeners can be isolated** (``Listeners(on_failure=...)``: the host's are). A listener
that raises (an :class:`Exception`; a cancellation or ``KeyboardInterrupt`` still propagates)
neither stops the others nor reaches the code that emitted: its first failure is logged with
its traceback (:func:`asks.core.diagnostics.unexpected`, the opt-in debug log) and the one line
for the person is handed to ``on_failure`` (the host shows it as its notice); its later
failures are counted (:attr:`Listeners.failures`) and logged without a traceback, never
reported again. Without ``on_failure`` an exception propagates to the emitter (the
transcript's and the agent's own views: a bug there is a traceback).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from asks.core import diagnostics

T = TypeVar("T")


class Listeners(Generic[T]):
    """Callbacks of one observable object (see module docstring)."""

    __slots__ = ("_callbacks", "_failed", "_on_failure", "failures")

    def __init__(self, on_failure: Callable[[str], None] | None = None) -> None:
        self._callbacks: list[Callable[[T], None]] = []
        self._on_failure = on_failure
        self._failed: list[Callable[[T], None]] = []  # reported once each
        self.failures = 0

    def add(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Subscribe ``callback``; the returned function unsubscribes it (idempotent)."""
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def emit(self, value: T) -> None:
        for callback in list(self._callbacks):
            try:
                callback(value)
            except Exception as exc:
                if self._on_failure is None:
                    raise
                self._failed_once(callback, exc, self._on_failure)

    def _failed_once(
        self, callback: Callable[[T], None], exc: Exception, report: Callable[[str], None]
    ) -> None:
        self.failures += 1
        if any(seen is callback for seen in self._failed):
            diagnostics.logger(__name__).debug("%r failed again: %r", callback, exc)
            return
        self._failed.append(callback)
        line = diagnostics.unexpected(exc, __name__, f"the listener {callback!r} failed")
        report(line)

    def __len__(self) -> int:
        return len(self._callbacks)


class Signal:
    """A bare "something changed" listener list (``Listeners[None]`` with a plain API)."""

    __slots__ = ("_listeners",)

    def __init__(self, on_failure: Callable[[str], None] | None = None) -> None:
        self._listeners: Listeners[None] = Listeners(on_failure)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return self._listeners.add(lambda _: callback())

    def emit(self) -> None:
        self._listeners.emit(None)
