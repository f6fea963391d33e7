"""A journal's records as a sequence, and the projection's conversation over it.

* :class:`Records` is the list a replay gives: every record of the journal, in file order.
  Those a trusted checkpoint covers (:mod:`asks.store.checkpoint`) are decoded from their
  lines when first read and then kept, so each is one object for the life of the sequence,
  as in a list (the projection's states name entries by identity); the others are held as
  they were decoded or appended. This is the cache's one edge on the record side: a record
  built here is :func:`~asks.store.entries.decode` of its line, the same plain record a full
  replay makes; its ``seq`` is checked against the checkpoint's, and a line that is not the
  one the checkpoint named raises :class:`ValueError` when read. ``==`` compares it, element
  by element, with any sequence, as a list would.
* :class:`Conversation` is the projection's conversation: records and the number of each
  (its position in the journal's records), the first ones read by number from a
  :class:`Records` (a checkpoint's), built on access. :meth:`Conversation.copy` is a copy of
  the list, not of the records. Given a reader (``read``: the journal's
  :meth:`~asks.store.journal.Journal.record`), it keeps the tool results appended to it by
  number only and reads them back when asked for (docs/fleet-scale.md, "The lean pending
  state").
* :class:`RecentGroups` reads the ``group_asked`` records a host's projection keeps by number
  (its questions and calls), keeping the last :data:`RECENT_GROUPS` read:
  :func:`read_group` and :func:`read_question` check that the record read is the one named.
* :class:`RecordUnreadable` is what a record read back by number raises when it cannot be
  read or is not the record named: its value is unknown, never guessed.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final, overload

import attrs

from asks.core.model import Question, QuestionRef
from asks.store.entries import (
    TAGS,
    DecodeError,
    GroupAsked,
    Record,
    ToolResult,
    UnknownEntry,
    decode,
)
from asks.store.files import Data

__all__ = [
    "KINDS",
    "Conversation",
    "Lines",
    "RecentGroups",
    "RecordUnreadable",
    "Records",
    "Table",
    "kind_of",
    "read_group",
    "read_question",
    "read_result",
]

Read = Callable[[int], Record]  # record ``n`` of a journal, read back (Journal.record)


class RecordUnreadable(Exception):  # noqa: N818 (it names the state, as StorageUnconfirmed)
    """A record saved earlier could not be read back (an I/O error, the journal closed, a
    line that is not the record named): its value is unknown, and nothing is guessed."""


def read_result(read: Read, number: int, call_id: str) -> ToolResult:
    """Record ``number``'s tool result, which must be call ``call_id``'s (else
    :class:`RecordUnreadable`)."""
    entry = read(number).entry
    if not isinstance(entry, ToolResult) or entry.call_id != call_id:
        raise RecordUnreadable(f"the journal's record {number} is not the result of {call_id!r}")
    return entry


RECENT_GROUPS: Final = 64  # groups a RecentGroups keeps: the shown cards, a retry's, …


class RecentGroups:
    """Record ``n`` read with ``read``, the last :data:`RECENT_GROUPS` numbers read kept (the
    cards on screen and the question being answered are read once, not per frame). Only what
    ``read`` returned is kept, so a number read again gives what the journal gave."""

    __slots__ = ("_kept", "_read")

    def __init__(self, read: Read) -> None:
        self._read = read
        self._kept: OrderedDict[int, Record] = OrderedDict()

    def __call__(self, number: int) -> Record:
        kept = self._kept
        found = kept.get(number)
        if found is not None:
            kept.move_to_end(number)
            return found
        record = kept[number] = self._read(number)
        if len(kept) > RECENT_GROUPS:
            kept.popitem(last=False)
        return record


def read_group(read: Read, number: int, call_id: str) -> GroupAsked:
    """Record ``number``'s ``group_asked`` line, which must be call ``call_id``'s (else
    :class:`RecordUnreadable`)."""
    entry = read(number).entry
    if not isinstance(entry, GroupAsked) or entry.call_id != call_id:
        raise RecordUnreadable(f"the journal's record {number} is not the group of {call_id!r}")
    return entry


def read_question(read: Read, number: int, ref: QuestionRef) -> Question:
    """Question ``ref`` as record ``number`` (a ``group_asked`` line) asked it (else
    :class:`RecordUnreadable`)."""
    entry = read(number).entry
    if isinstance(entry, GroupAsked):
        for question in entry.questions:
            if question.ref == ref:
                return question
    raise RecordUnreadable(f"the journal's record {number} did not ask {ref.id!r}")


_NEWLINE: Final = 10
KINDS: Final = (*TAGS, UnknownEntry)  # a record's kind: the position of its entry's class here
_KIND_OF: Final = {cls: n for n, cls in enumerate(KINDS)}


def kind_of(record: Record) -> int:
    """The kind of ``record`` (its entry's class, by position in :data:`KINDS`)."""
    return _KIND_OF[type(record.entry)]


class Table:
    """Where a journal's records are: record ``n`` is the line starting at ``starts[n]``, its
    ``seq`` is ``seqs[n]``, its kind ``kinds[n]``."""

    __slots__ = ("kinds", "seqs", "starts")

    def __init__(self, starts: bytes = b"", seqs: bytes = b"", kinds: bytes = b"") -> None:
        self.starts, self.seqs, self.kinds = array("q"), array("q"), bytearray(kinds)
        self.starts.frombytes(starts)
        self.seqs.frombytes(seqs)

    def __len__(self) -> int:
        return len(self.seqs)

    def add(self, start: int, record: Record) -> None:
        """Record ``len(self)`` is ``record``, its line starting at ``start``."""
        self.starts.append(start)
        self.seqs.append(record.seq)
        self.kinds.append(kind_of(record))

    def extend(self, other: Table) -> None:
        self.starts.extend(other.starts)
        self.seqs.extend(other.seqs)
        self.kinds.extend(other.kinds)

    def columns(self) -> tuple[bytes, bytes, bytes]:
        """The table as bytes (``Table(*columns)`` is a copy)."""
        return self.starts.tobytes(), self.seqs.tobytes(), bytes(self.kinds)


@attrs.define(eq=False)
class Lines:
    """The records of a journal's covered bytes: ``table`` says where in ``data`` each is."""

    data: Data
    table: Table


class Records(Sequence[Record]):
    """A journal's records, those of a checkpoint built on access (module docstring)."""

    __slots__ = ("_lines", "_made", "checkpoint")

    def __init__(
        self,
        records: Iterable[Record] = (),
        lines: Lines | None = None,
        checkpoint: Any = None,
    ) -> None:
        made: list[Record | None] = [None] * len(lines.table) if lines is not None else []
        made.extend(records)
        self._made = made
        self._lines = lines
        self.checkpoint = checkpoint  # the trusted checkpoint of the first records, or None

    def _one(self, n: int) -> Record:
        made = self._made[n]
        if made is None:
            made = self._made[n] = self._build(n if n >= 0 else n + len(self._made))
        return made

    def _build(self, n: int) -> Record:
        """Record ``n`` of the checkpoint, decoded from its line (module docstring)."""
        lines = self._lines
        assert lines is not None  # only a checkpoint's records are left unbuilt
        table = lines.table
        data, start = lines.data, table.starts[n]
        end = data.find(b"\n", start)
        if end < 0 or (start and data[start - 1] != _NEWLINE):
            raise ValueError(f"the checkpoint's record {n} names no line of the journal")
        try:
            record = decode(bytes(data[start:end]))
        except DecodeError as exc:
            raise ValueError(
                f"the checkpoint's record {n} is not the journal's line: {exc}"
            ) from exc
        if record.seq != table.seqs[n] or kind_of(record) != table.kinds[n]:
            raise ValueError(f"the checkpoint's record {n} is not the journal's line")
        return record

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
        """The last record whose entry is a ``cls``: the checkpoint's records are searched by
        their kinds (in C), building only the one found."""
        covered = 0 if self._lines is None else len(self._lines.table)
        for n in range(len(self._made) - 1, covered - 1, -1):  # the records past them
            if type(self._one(n).entry) is cls:
                return self._one(n)
        if self._lines is None or cls not in _KIND_OF:
            return None
        n = self._lines.table.kinds.rfind(bytes([_KIND_OF[cls]]))
        return None if n < 0 else self._one(n)

    def of_kinds(self, classes: Iterable[type[Any]]) -> Iterator[Record]:
        """The records whose entry is one of ``classes``, in order: the checkpoint's chosen
        by their kinds, built only when chosen."""
        for n in self.numbers_of(classes):
            yield self._one(n)

    def numbers_of(self, classes: Iterable[type[Any]]) -> list[int]:
        """The numbers of the records whose entry is one of ``classes``, in order: the
        checkpoint's found by their kinds (none built), the others by their entries."""
        wanted = tuple(classes)
        codes = {_KIND_OF[cls] for cls in wanted if cls in _KIND_OF}
        found: list[int] = []
        covered = 0
        if self._lines is not None:
            kinds = self._lines.table.kinds
            covered = len(kinds)
            found = [n for n in range(covered) if kinds[n] in codes]
        found += [n for n in range(covered, len(self._made)) if type(self._one(n).entry) in wanted]
        return found

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"Records({list(self)!r})"


class Conversation(Sequence[Record]):
    """The projection's conversation: records and their numbers, the first ``len(base)`` of
    them read by number from ``records`` (module docstring)."""

    __slots__ = ("_base", "_numbers", "_read", "_records", "_tail")

    def __init__(
        self,
        records: Sequence[Record] = (),
        base: array[int] | None = None,
        *,
        read: Read | None = None,
    ) -> None:
        self._records = records
        self._base: array[int] = array("q") if base is None else base
        self._tail: list[Record | None] = []  # None: a tool result, read back by its number
        self._numbers: array[int] = array("q")  # of the tail's records
        self._read = read

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
        at = n - len(base)
        return self._tail[at] or self._read_back(at)

    def _read_back(self, at: int) -> Record:
        """Tail record ``at``, kept by number (a tool result): read back."""
        assert self._read is not None  # only a conversation with a reader keeps numbers
        record = self._read(self._numbers[at])
        if not isinstance(record.entry, ToolResult):
            raise RecordUnreadable(f"the journal's record {self._numbers[at]} is no tool result")
        return record

    def __len__(self) -> int:
        return len(self._base) + len(self._tail)

    def __iter__(self) -> Iterator[Record]:
        records = self._records
        for number in self._base:
            yield records[number]
        for at, record in enumerate(self._tail):
            yield record or self._read_back(at)

    def read_back(self, read: Read) -> None:
        """Keep the tool results appended from now on by number, read back with ``read``."""
        self._read = read

    def append(self, record: Record, number: int) -> None:
        """Add ``record``, the journal's record number ``number`` (a tool result by its number
        only, when the conversation has a reader)."""
        keep = self._read is None or type(record.entry) is not ToolResult
        self._tail.append(record if keep else None)
        self._numbers.append(number)

    def copy(self) -> Conversation:
        """The list as it is now (the checkpoint's part shared: it never changes)."""
        copied = Conversation(self._records, self._base, read=self._read)
        copied._tail, copied._numbers = list(self._tail), array("q", self._numbers)
        return copied

    @property
    def numbers(self) -> array[int]:
        """The number of each record, in order."""
        return self._base + self._numbers

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Conversation({list(self)!r})"
