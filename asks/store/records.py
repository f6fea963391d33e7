"""A replay's records as a sequence built on access, and the conversation over it (NOTES
"Long sessions (issue 21)", third pass).

* :class:`Records` is the list a replay gives, with the records of a trusted replay index's
  rows (:mod:`asks.store.lazy`) built when first read (record ``n`` is row ``n``: every record
  of the indexed bytes has one) and then kept, so each is one object for the life of the
  sequence, as in a list (the projection's states name entries by identity). Records decoded
  past the index, and appended since, are held as they are. ``==`` compares it, element by
  element, with any sequence, as a list would. It carries the snapshot of the projection of
  its first rows (:mod:`asks.store.snapshot`), if the replay had one.
* :class:`Conversation` is the projection's conversation: a list of records, of which the
  first are named by their position in a :class:`Records` (a snapshot's), built on access.
  :meth:`Conversation.copy` is a copy of the list, not of the records, in O(1) for those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

from asks.store.entries import Record

if TYPE_CHECKING:
    from asks.store.snapshot import Snapshot

__all__ = ["Conversation", "Records"]


class Records(Sequence[Record]):
    """A replay's records, the indexed ones built on access (module docstring)."""

    __slots__ = ("_build", "_kinds", "_made", "_types", "snapshot")

    def __init__(
        self,
        records: Iterable[Record | None] = (),
        build: Callable[[int], Record] | None = None,
        kinds: tuple[bytes | bytearray, Sequence[type[Any] | None]] | None = None,
        snapshot: Snapshot | None = None,
    ) -> None:
        self._made: list[Record | None] = list(records)
        self._build = build
        # The rows' kinds (record n = row n) and the entry class of each kind (None: any).
        self._kinds, self._types = kinds if kinds is not None else (b"", ())
        self.snapshot = snapshot  # of the first rows, or None

    def _one(self, n: int) -> Record:
        made = self._made[n]
        if made is None:
            assert self._build is not None  # only rows are left unbuilt
            made = self._made[n] = self._build(n if n >= 0 else n + len(self._made))
        return made

    @overload
    def __getitem__(self, n: int) -> Record: ...
    @overload
    def __getitem__(self, n: slice) -> list[Record]: ...
    def __getitem__(self, n: int | slice) -> Record | list[Record]:
        if isinstance(n, slice):
            return [self._one(i) for i in range(*n.indices(len(self._made)))]
        return self._one(n)

    def __len__(self) -> int:
        return len(self._made)

    def __iter__(self) -> Iterator[Record]:
        for n in range(len(self._made)):
            yield self._one(n)

    def append(self, record: Record) -> None:
        self._made.append(record)

    def last_of(self, cls: type[Any]) -> Record | None:
        """The last record whose entry is a ``cls``: the rows are searched by their kinds (in
        C), building only rows of ``cls``'s kind or of a kind any class may have."""
        rows = len(self._kinds)
        for n in range(len(self._made) - 1, rows - 1, -1):  # the records past the rows
            if type(self._one(n).entry) is cls:
                return self._one(n)
        codes = [bytes([k]) for k, known in enumerate(self._types) if known in (cls, None)]
        end = rows
        while codes and end > 0:
            n = max(self._kinds.rfind(code, 0, end) for code in codes)
            if n < 0:
                break
            if type(self._one(n).entry) is cls:
                return self._one(n)
            end = n
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"Records({list(self)!r})"


class Conversation(Sequence[Record]):
    """The projection's conversation: records, the first ``len(base)`` of them named by their
    position in ``records`` (module docstring)."""

    __slots__ = ("_base", "_records", "_tail")

    def __init__(
        self, records: Sequence[Record] = (), base: Sequence[int] = (), tail: Iterable[Record] = ()
    ) -> None:
        self._records, self._base = records, base
        self._tail: list[Record] = list(tail)

    @overload
    def __getitem__(self, n: int) -> Record: ...
    @overload
    def __getitem__(self, n: slice) -> list[Record]: ...
    def __getitem__(self, n: int | slice) -> Record | list[Record]:
        if isinstance(n, slice):
            return [self._one(i) for i in range(*n.indices(len(self)))]
        return self._one(n if n >= 0 else n + len(self))

    def _one(self, n: int) -> Record:
        base = self._base
        if 0 <= n < len(base):
            return self._records[base[n]]
        if n < 0:
            raise IndexError(n)
        return self._tail[n - len(base)]

    def __len__(self) -> int:
        return len(self._base) + len(self._tail)

    def __iter__(self) -> Iterator[Record]:
        records = self._records
        for position in self._base:
            yield records[position]
        yield from self._tail

    def append(self, record: Record) -> None:
        self._tail.append(record)

    def copy(self) -> Conversation:
        """The list as it is now (the snapshot's part shared: it never changes)."""
        return Conversation(self._records, self._base, self._tail)

    @property
    def base(self) -> Sequence[int]:
        """The positions in the records of the snapshot's part."""
        return self._base

    @property
    def tail(self) -> list[Record]:
        """The records after the snapshot's part."""
        return self._tail

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Conversation({list(self)!r})"
