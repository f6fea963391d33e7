"""The projection snapshot of a replay index: the projection of the indexed records, in
columns, so that a trusted open folds only the records past it (NOTES "Long sessions (issue
21)", third pass).

State model. An index of ``journal[:L]`` (:mod:`asks.store.index`) has a row per record, so
record ``n`` is row ``n``, and a snapshot: what :class:`~asks.store.projection.Projection`
holds after folding those records, by positions, not objects: each question state as its
ref (a position in the index's ref table), the record of its group and its position there,
its status, the record that saved its resolution and its position there, and ``delivered``;
``current`` as refs; each call as the record that made it (a group or a wait) and the
record of its result; ``pending``, ``open_calls``, ``undelivered`` (the record of each unit
and the resolution's position), ``notes``, ``offered`` and the conversation likewise; the
counters and the session id as scalars. Every value a state holds is read from those
records again (the source and resolution from the line that saved it, the question from its
group), so the snapshot names no value of its own.

* **Adopted** (:func:`adopt`) by an empty projection whose records are a trusted replay's
  (:class:`~asks.store.records.Records`): the small maps (pending, open calls, undelivered,
  notes, offered) are built at once, O(their size); ``by_ref``, ``current`` and ``calls``
  are :class:`~asks.store.lazymap.LazyMap`\\ s (a point lookup builds one value, anything
  else all of them, once) and the conversation a :class:`~asks.store.records.Conversation`
  over the records. The records past the index are then folded as usual. Invariant (tests:
  tests/test_snapshot.py): the projection then equals a full replay's, value for value and
  in every map's order.
* **Written** (:func:`fill`) from a fold, never from live objects: the projection of the
  previous index's snapshot (adopted over the records of those bytes) folded with the
  records decoded past it, whose values are then encoded: the previous columns copied for
  what the fold did not touch, the touched and new values encoded from the fold's own
  record of where each came from (:class:`_Fold`). O(rows) in C and O(records folded +
  values touched) in Python; with no previous index, a fold of all the records.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from asks.core.model import QuestionRef, QuestionStatus
from asks.store.entries import (
    FeedbackOffered,
    GroupAsked,
    NoteSent,
    Record,
    Resolved,
)
from asks.store.lazy import group_refs, resolved_facts
from asks.store.lazymap import LazyMap
from asks.store.records import Conversation

if TYPE_CHECKING:
    from asks.store.index import Index
    from asks.store.projection import CallState, Projection, QuestionState

__all__ = ["Snapshot", "adopt", "fill"]

STATUSES: Final = tuple(QuestionStatus)


class Snapshot:
    """A trusted index's snapshot and the records it names (record ``n`` = row ``n``)."""

    __slots__ = ("_refs", "columns", "index", "records")

    def __init__(self, index: Index, records: Sequence[Record]) -> None:
        self.index, self.records = index, records
        self.columns = index.columns_of_snapshot
        self._refs: list[QuestionRef | None] = [None] * len(index.table.ids)

    @property
    def rows(self) -> int:
        return len(self.index.kind)

    def ref(self, position: int) -> QuestionRef:
        ref = self._refs[position]
        if ref is None:
            table = self.index.table
            ref = self._refs[position] = QuestionRef(
                table.ids[position], table.incarnations[position]
            )
        return ref

    def entry(self, n: int) -> Any:
        return self.records[n].entry

    def call_id(self, n: int) -> str:
        """The call id of record ``n`` (a group or a wait), from its row's strings."""
        index = self.index
        fact = index.fact[n]
        if fact < 0:
            return str(self.entry(n).call_id)
        return index.strings[index.string_at[fact]]


def adopt(projection: Projection, snapshot: Snapshot) -> None:
    """Make the empty ``projection`` the snapshot's (module docstring)."""
    from asks.store.projection import NoteState  # noqa: PLC0415 (it imports this module)

    columns, scalars = snapshot.columns, snapshot.index.snapshot
    projection.session_id = scalars["session_id"]
    projection.unknown = scalars["unknown"]
    projection.duplicate_receipts = scalars["duplicate_receipts"]
    projection.records = scalars["records"]
    ref, entry, ids = snapshot.ref, snapshot.entry, snapshot.index.table.ids
    projection.pending = dict.fromkeys([ref(p) for p in columns["pending"]])
    projection.by_ref = _by_ref(snapshot, list(columns["pending"]))
    current = columns["current"]
    projection.current = LazyMap(
        len(current),
        lambda i: ids[current[i]],
        lambda i: ref(current[i]),
        lambda: {ids[p]: i for i, p in enumerate(current)},
    )
    projection.calls = calls = _calls(snapshot)
    open_ids = [snapshot.call_id(columns["calls"][i]) for i in columns["open_calls"]]
    projection.open_calls = {call_id: calls[call_id] for call_id in open_ids}
    undelivered: dict[QuestionRef, Any] = {}
    for n, position in zip(columns["undelivered"], columns["undelivered_position"], strict=True):
        unit = entry(n)
        if position < 0:
            undelivered[unit.ref] = unit
        else:
            undelivered[_resolved_ref(unit, position)] = unit.resolutions[position]
    projection.undelivered = undelivered
    projection.notes = {
        note.ref: NoteState(note, bool(delivered))
        for note, delivered in (
            (entry(n), d) for n, d in zip(columns["notes"], columns["notes_delivered"], strict=True)
        )
    }
    offered: dict[QuestionRef, str] = {}
    for n, position in zip(columns["offered"], columns["offered_position"], strict=True):
        offer = entry(n)
        offered[offer.refs[position]] = offer.offer_id
    projection.offered = offered
    projection.conversation = Conversation(snapshot.records, columns["conversation"])


def _by_ref(snapshot: Snapshot, seeded: list[int]) -> LazyMap[QuestionRef, QuestionState]:
    """``by_ref``, the positions of the refs ``seeded`` (the pending ones) known at once."""
    from asks.store.projection import restored_state  # noqa: PLC0415 (it imports this module)

    columns, entry = snapshot.columns, snapshot.entry
    refs = columns["by_ref"]

    def make(i: int) -> QuestionState:
        saved = columns["by_ref_saved"][i]
        return restored_state(
            entry(columns["by_ref_group"][i]),
            columns["by_ref_position"][i],
            STATUSES[columns["by_ref_status"][i]],
            bool(columns["by_ref_delivered"][i]),
            (entry(saved), columns["by_ref_saved_position"][i]) if saved >= 0 else None,
        )

    table = snapshot.index.table
    seed = {(table.ids[p], table.incarnations[p]): refs.index(p) for p in seeded}
    return LazyMap(
        len(refs),
        lambda i: snapshot.ref(refs[i]),
        make,
        lambda: _ref_positions(snapshot),
        seed=seed,
        norm=_pair,
    )


def _pair(ref: QuestionRef) -> tuple[str, int]:
    return (ref.id, ref.incarnation)


def _ref_positions(snapshot: Snapshot) -> dict[tuple[str, int], int]:
    """``(id, incarnation)`` → position in ``by_ref`` (in C when, as usual, by_ref holds the
    ref table's first refs in order)."""
    refs, table = snapshot.columns["by_ref"], snapshot.index.table
    ids, incarnations = table.ids, table.incarnations.tolist()
    count = len(refs)
    if refs == array("i", range(count)):
        pairs = zip(ids[:count], incarnations[:count], strict=True)
        return dict(zip(pairs, range(count), strict=True))
    return {(ids[p], incarnations[p]): i for i, p in enumerate(refs)}


def _calls(snapshot: Snapshot) -> LazyMap[str, CallState]:
    from asks.store.projection import CallState  # noqa: PLC0415 (it imports this module)

    columns, entry = snapshot.columns, snapshot.entry
    origins, results = columns["calls"], columns["calls_result"]

    def make(i: int) -> CallState:
        origin = entry(origins[i])
        if isinstance(origin, GroupAsked):
            refs = group_refs(origin)
            if refs is None:
                refs = tuple([question.ref for question in origin.questions])
            call = CallState(origin.call_id, refs, origin.blocking, origin)
        else:
            call = CallState(origin.call_id, origin.refs, blocking=True)
        if results[i] >= 0:
            call.result = entry(results[i])
        call.asked_at = snapshot.records[origins[i]].ts
        return call

    open_positions = {snapshot.call_id(origins[i]): i for i in columns["open_calls"]}
    return LazyMap(
        len(origins),
        lambda i: snapshot.call_id(origins[i]),
        make,
        lambda: {snapshot.call_id(n): i for i, n in enumerate(origins)},
        seed=open_positions,
    )


def _resolved_ref(entry: Resolved, position: int) -> QuestionRef:
    facts = resolved_facts(entry)
    return facts[position][0] if facts is not None else entry.resolutions[position].ref


def _refs_of(entry: Any) -> tuple[QuestionRef, ...]:
    if isinstance(entry, Resolved):
        facts = resolved_facts(entry)
        if facts is not None:
            return tuple(ref for ref, _ in facts)
        return tuple(resolution.ref for resolution in entry.resolutions)
    refs = group_refs(entry)
    return refs if refs is not None else tuple(q.ref for q in entry.questions)


def _fold_class() -> type[Projection]:
    """:class:`_Fold`, a subclass of the projection that notes where each value came from
    (built on first use: the projection's module imports this one)."""
    from asks.store.projection import Projection  # noqa: PLC0415

    class _Fold(Projection):
        """A projection folding records ``n``, ``n + 1``, … that notes, for each value it
        sets, the record (and position) it came from."""

        ordinal: int = 0
        origin: dict[QuestionRef, tuple[int, int]]  # a question state's group, position
        saved: dict[QuestionRef, tuple[int, int]]  # the record that saved its resolution
        unit: dict[QuestionRef, tuple[int, int]]  # an undelivered unit's record, position
        call_origin: dict[str, int]
        offer: dict[QuestionRef, tuple[int, int]]
        note: dict[QuestionRef, int]
        made: dict[int, int]  # id(entry) → its record, for the records folded

        def _fold(self, record: Record) -> None:
            n = self.ordinal
            entry = record.entry
            self.made[id(entry)] = n
            super()._fold(record)
            if type(entry) is NoteSent and self.undelivered.get(entry.ref) is entry:
                self.unit[entry.ref] = (n, -1)
                self.note[entry.ref] = n
            elif type(entry) is FeedbackOffered:
                for position, ref in enumerate(entry.refs):
                    if self.offered.get(ref) == entry.offer_id:
                        self.offer[ref] = (n, position)

        def _group_asked(self, entry: GroupAsked) -> None:
            super()._group_asked(entry)
            for position, ref in enumerate(_refs_of(entry)):
                self.origin[ref] = (self.ordinal, position)
            self.call_origin[entry.call_id] = self.ordinal

        def _open_call(self, call: CallState) -> None:
            super()._open_call(call)
            self.call_origin[call.call_id] = self.ordinal

        def _resolved_entry(self, entry: Resolved) -> None:
            refs = _refs_of(entry)
            was = {ref for ref in refs if (s := self.by_ref.get(ref)) and s.status is _PENDING}
            super()._resolved_entry(entry)
            for position, ref in reversed(list(enumerate(refs))):  # the first one counts
                if ref in was:
                    self.saved[ref] = self.unit[ref] = (self.ordinal, position)

    return _Fold


_PENDING: Final = QuestionStatus.PENDING


def fill(index: Index, kept: Index | None, records: Sequence[Record], start: int) -> None:
    """Give ``index`` (rows for ``records``, record ``n`` = row ``n``) the snapshot of
    ``records``: ``kept``'s (whose rows are the first ``start``) folded with the rest."""
    fold: Any = _fold_class()()
    for name in ("origin", "saved", "unit", "call_origin", "offer", "note", "made"):
        setattr(fold, name, {})
    base: Snapshot | None = None
    if kept is not None:
        base = Snapshot(kept, records)
        adopt(fold, base)
        _seed_origins(fold, base)
    for n in range(start, len(records)):
        fold.ordinal = n
        fold.apply(records[n])
    _Encoder(index, fold, base).encode()


def _seed_origins(fold: Any, base: Snapshot) -> None:
    """Where the snapshot's small maps came from (the large ones are read from ``base``)."""
    columns = base.columns
    pairs = zip(columns["undelivered"], columns["undelivered_position"], strict=True)
    for key, (n, position) in zip(fold.undelivered, pairs, strict=True):
        fold.unit[key] = (n, position)
    for key, n in zip(fold.notes, columns["notes"], strict=True):
        fold.note[key] = n
    pairs = zip(columns["offered"], columns["offered_position"], strict=True)
    for key, (n, position) in zip(fold.offered, pairs, strict=True):
        fold.offer[key] = (n, position)


class _Encoder:
    """The columns of a fold's projection (module docstring: copied where not touched)."""

    def __init__(self, index: Index, fold: Any, base: Snapshot | None) -> None:
        self.index, self.fold, self.base = index, fold, base
        self.out = index.columns_of_snapshot
        self.made: dict[int, int] = fold.made

    def ordinal(self, entry: object, fallback: int = -1) -> int:
        return self.made.get(id(entry), fallback)

    def encode(self) -> None:
        fold, index, add = self.fold, self.index, self.index.table.add
        index.snapshot.update(
            session_id=fold.session_id,
            unknown=fold.unknown,
            duplicate_receipts=fold.duplicate_receipts,
            records=fold.records,
        )
        self._by_ref()
        self._current()
        self.out["pending"].extend([add(ref) for ref in fold.pending])
        positions = self._calls()
        self.out["open_calls"].extend([positions[call_id] for call_id in fold.open_calls])
        for ref in fold.undelivered:
            n, position = fold.unit[ref]
            self.out["undelivered"].append(n)
            self.out["undelivered_position"].append(position)
        for ref, note in fold.notes.items():
            self.out["notes"].append(fold.note[ref])
            self.out["notes_delivered"].append(int(note.delivered))
        for ref in fold.offered:
            n, position = fold.offer[ref]
            self.out["offered"].append(n)
            self.out["offered_position"].append(position)
        conversation = fold.conversation
        self.out["conversation"].extend(conversation.base)
        self.out["conversation"].extend([self.made[id(r.entry)] for r in conversation.tail])
        index.snapshot["sizes"] = {name: len(column) for name, column in self.out.items()}

    def _patched(
        self, names: Sequence[str], mapping: MutableMapping[Any, Any]
    ) -> Iterator[tuple[int, Any, Any]]:
        """Copy the base's columns ``names`` whole (in C), then yield ``(position, key,
        value)`` for each value to encode: the base's values built since (to write over the
        copy at ``position``: their key is ``None``, the base's) and the new keys, in order
        (``position`` -1: to append)."""
        if isinstance(mapping, LazyMap) and mapping.thawed is None:
            assert self.base is not None
            for name in names:
                self.out[name].extend(self.base.columns[name])
            yield from ((i, None, value) for i, value in sorted(mapping.made.items()))
            yield from ((-1, key, value) for key, value in mapping.inserted.items())
            return
        if isinstance(mapping, LazyMap):
            raise ValueError("a folded snapshot map was thawed")  # the fold never iterates
        yield from ((-1, key, value) for key, value in mapping.items())

    def _put(self, names: Sequence[str], position: int, values: Sequence[int]) -> None:
        out = self.out
        for name, value in zip(names, values, strict=True):
            if position < 0:
                out[name].append(int(value))
            else:
                out[name][position] = int(value)

    def _by_ref(self) -> None:
        names = (
            "by_ref",
            "by_ref_group",
            "by_ref_position",
            "by_ref_saved",
            "by_ref_saved_position",
            "by_ref_status",
            "by_ref_delivered",
        )
        fold, add = self.fold, self.index.table.add
        base = self.base.columns if self.base is not None else {}
        for i, key, state in self._patched(names, fold.by_ref):
            ref = key if i < 0 else self.base.ref(base["by_ref"][i])  # type: ignore[union-attr]
            group, saved = fold.origin.get(ref), fold.saved.get(ref)
            if (group is None or (saved is None and state.saved_in is not None)) and i < 0:
                raise ValueError(f"question {ref}: not from the records folded")
            if group is None:
                group = (base["by_ref_group"][i], base["by_ref_position"][i])
            if state.saved_in is None:
                saved = (-1, -1)
            elif saved is None:
                saved = (base["by_ref_saved"][i], base["by_ref_saved_position"][i])
            status = STATUSES.index(state.status)
            self._put(names, i, (add(ref), *group, *saved, status, state.delivered))

    def _current(self) -> None:
        add = self.index.table.add
        for i, _key, ref in self._patched(("current",), self.fold.current):
            self._put(("current",), i, (add(ref),))

    def _calls(self) -> Mapping[str, int]:
        """Encode the calls; the position of each open call among them."""
        fold = self.fold
        base = self.base.columns if self.base is not None else {}
        positions: dict[str, int] = {}
        count = len(base["calls"]) if isinstance(fold.calls, LazyMap) else 0
        for i, key, call in self._patched(("calls", "calls_result"), fold.calls):
            call_id = key if i < 0 else call.call_id
            if i < 0:
                positions[call_id], count = count, count + 1
            else:
                positions[call_id] = i
            origin = fold.call_origin.get(call_id)
            result = -1 if call.result is None else self.ordinal(call.result, -2)
            if (origin is None or result == -2) and i < 0:
                raise ValueError(f"call {call_id!r}: not from the records folded")
            if origin is None:
                origin = base["calls"][i]
            if result == -2:  # the snapshot's own result
                result = base["calls_result"][i]
            self._put(("calls", "calls_result"), i, (origin, result))
        for call_id in fold.open_calls:  # an open call is always built (adopt builds them)
            if call_id not in positions:
                raise ValueError(f"open call {call_id!r} was not folded")
        return positions


def new_columns() -> dict[str, array[int]]:
    """Empty snapshot columns (as :class:`~asks.store.index.Index` holds them)."""
    from asks.store.index import SNAPSHOT_COLUMNS  # noqa: PLC0415

    return {name: array(code) for name, code in SNAPSHOT_COLUMNS}
