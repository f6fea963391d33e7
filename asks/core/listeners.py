"""Per-object listener lists: the one helper every observable model uses.

``Listeners[T]`` holds callbacks taking a ``T`` (``None`` for a bare "something changed").
:meth:`Listeners.add` returns an unsubscribe function; :meth:`Listeners.emit` calls every
listener present when it starts, in subscription order (a listener may unsubscribe itself or
others while being called). Scoped to the object that owns it — never a module-level bus.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Listeners(Generic[T]):
    """Callbacks of one observable object (see module docstring)."""

    __slots__ = ("_callbacks",)

    def __init__(self) -> None:
        self._callbacks: list[Callable[[T], None]] = []

    def add(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Subscribe ``callback``; the returned function unsubscribes it (idempotent)."""
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    def emit(self, value: T) -> None:
        for callback in list(self._callbacks):
            callback(value)

    def __len__(self) -> int:
        return len(self._callbacks)


class Signal:
    """A bare "something changed" listener list (``Listeners[None]`` with a plain API)."""

    __slots__ = ("_listeners",)

    def __init__(self) -> None:
        self._listeners: Listeners[None] = Listeners()

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return self._listeners.add(lambda _: callback())

    def emit(self) -> None:
        self._listeners.emit(None)
