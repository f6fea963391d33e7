"""A mapping over a checkpoint's columns whose values are built on access
(:mod:`asks.store.checkpoint`).

:class:`LazyMap` behaves as the ``dict`` it stands for: the same keys in the same order
(the checkpoint's, in its order, then keys inserted since, in insertion order; assigning to a
key keeps its place), the same values. The checkpoint's ``n`` keys are known by position
``0..n-1``; ``key(p)`` names one, ``make(p)`` builds its value, ``positions()`` maps every
key to its position (built when a lookup misses the positions ``seed`` knew), both keyed by
``norm(key)`` if given (a plain tuple hashes in C, an attrs key in Python).

* A point lookup, ``in`` or assignment builds at most one value, kept: the same object on
  every read, as a dict gives (the projection's states are mutated in place). ``len`` is
  counted.
* Iterating the keys builds no value (``items()`` and ``values()`` build each, as lookups).
* Deletion and ``repr`` first build the whole ``dict`` once (every value not built yet) and
  from then on it is that dict's.
* :meth:`LazyMap.peek` reads what ``peek(p)`` gives of a key's value from the columns (a
  plain tuple of some of its fields) while that value is not built (``None`` once it is, or
  for a key not from the checkpoint): a reader that needs a part of many values (who asked
  each pending question) builds none.
* What a checkpoint writer reads: :attr:`count`, the values built so far by position
  (:attr:`made`), the keys inserted since (:attr:`inserted`) and, once thawed, the whole
  dict (:attr:`thawed`): the saved columns of the values never built are still right.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, TypeVar

__all__ = ["LazyMap"]

K = TypeVar("K")
V = TypeVar("V")


class LazyMap(MutableMapping[K, V]):
    """A dict of a checkpoint's keys, its values built on access (module docstring)."""

    __slots__ = (
        "_count",
        "_key",
        "_made",
        "_make",
        "_new",
        "_norm",
        "_peek",
        "_positions",
        "_seed",
        "_whole",
        "source",
    )

    def __init__(
        self,
        count: int,
        key: Callable[[int], K],
        make: Callable[[int], V],
        positions: Callable[[], dict[Any, int]],
        *,
        seed: dict[Any, int] | None = None,
        norm: Callable[[K], Any] | None = None,
        source: Any = None,
        peek: Callable[[int], Any] | None = None,
    ) -> None:
        self._count, self._norm, self._peek = count, norm, peek
        self._key, self._make = key, make
        self._positions: Callable[[], dict[Any, int]] | dict[Any, int] = positions
        self._seed = seed or {}
        self._made: dict[int, V] = {}
        self._new: dict[K, V] = {}  # keys not in the checkpoint, inserted since
        self._whole: dict[K, V] | None = None
        self.source = source  # the saved columns it was made from, for a checkpoint writer

    @property
    def count(self) -> int:
        """The keys known by position (``0..count-1``)."""
        return self._count

    def key_at(self, position: int) -> K:
        return self._key(position)

    def position(self, key: K) -> int | None:
        """The position of ``key`` among the checkpoint's keys (``None``: not one of them)."""
        return self._position(key)

    @property
    def thawed(self) -> dict[K, V] | None:
        """The whole dict, once something needed all of it (else ``None``)."""
        return self._whole

    @property
    def made(self) -> dict[int, V]:
        """The values built so far, by position."""
        return self._made

    @property
    def inserted(self) -> dict[K, V]:
        """The keys inserted that the checkpoint did not have, in order."""
        return self._new

    def peek(self, key: K) -> Any:
        """``peek(position)`` of ``key`` while its value is not built and the map not thawed
        (module docstring); else ``None``."""
        peek = self._peek
        if peek is None or self._whole is not None or key in self._new:
            return None
        position = self._position(key)
        if position is None or position in self._made:
            return None
        return peek(position)

    def _position(self, key: K) -> int | None:
        if self._norm is not None:
            key = self._norm(key)
        found = self._seed.get(key)
        if found is not None:
            return found
        positions = self._positions
        if callable(positions):
            positions = self._positions = positions()
        return positions.get(key)

    def _value(self, position: int) -> V:
        made = self._made
        if position in made:
            return made[position]
        value = made[position] = self._make(position)
        return value

    def _thaw(self) -> dict[K, V]:
        whole = self._whole
        if whole is None:
            key, value = self._key, self._value
            whole = {key(p): value(p) for p in range(self._count)}
            whole.update(self._new)
            self._whole = whole
        return whole

    def __getitem__(self, key: K) -> V:
        if self._whole is not None:
            return self._whole[key]
        if key in self._new:
            return self._new[key]
        position = self._position(key)
        if position is None:
            raise KeyError(key)
        return self._value(position)

    def __setitem__(self, key: K, value: V) -> None:
        if self._whole is not None:
            self._whole[key] = value
        elif key in self._new:
            self._new[key] = value
        elif (position := self._position(key)) is not None:
            self._made[position] = value
        else:
            self._new[key] = value

    def __contains__(self, key: object) -> bool:
        if self._whole is not None:
            return key in self._whole
        if key in self._new:
            return True
        try:
            return self._position(key) is not None  # type: ignore[arg-type]
        except TypeError:  # an unhashable key is in no dict
            return False

    def __delitem__(self, key: K) -> None:
        del self._thaw()[key]

    def __iter__(self) -> Iterator[K]:
        if self._whole is not None:
            return iter(self._whole)
        return itertools.chain(map(self._key, range(self._count)), list(self._new))

    def __len__(self) -> int:
        if self._whole is not None:
            return len(self._whole)
        return self._count + len(self._new)

    def __repr__(self) -> str:
        return repr(self._thaw())
