"""The tab strip: which tabs the panel has, in what order, and which one is selected.

Tabs are the pending questions in the order given (the host groups them by agent,
:mod:`asks.core.agents`; each agent's in arrival order); a multi-question wait adds its Review tab
right after its last pending question. The strip is rebuilt only when marked dirty (the
projection or the set of waits changed), and keeps an index, made at the first lookup after a
rebuild, so that lookups and relative moves cost the same with 1 or 100 tabs. When the selected
tab goes away, the nearest surviving tab after it (else before it) is selected: a resolution
never throws the person to the far end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import attrs

from asks.core.model import QuestionRef


@attrs.frozen
class ReviewKey:
    """The Review tab of a multi-question wait."""

    call_id: str


TabKey = QuestionRef | ReviewKey


class TabStrip:
    """Ordered tabs with an index and a selection (see module docstring)."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("_dirty", "_indexed", "_selected", "tabs")

    def __init__(self, tabs: tuple[TabKey, ...] = (), selected: TabKey | None = None) -> None:
        self.tabs = tabs
        self._selected = selected
        self._dirty = True
        self._indexed: dict[TabKey, int] | None = None  # made at the first lookup after a rebuild

    @property
    def _index(self) -> dict[TabKey, int]:
        """Each tab's position: made when first asked for after a rebuild (a burst of
        rebuilds with no lookup between, as the hub's batches under load, makes none)."""
        if self._indexed is None:
            self._indexed = dict(zip(self.tabs, range(len(self.tabs)), strict=True))
        return self._indexed

    def __contains__(self, tab: object) -> bool:
        return tab in self._index

    @property
    def selected(self) -> TabKey | None:
        return self._selected

    def index_of(self, tab: TabKey) -> int | None:
        """The position of ``tab`` in :attr:`tabs`; ``None`` if it is not there."""
        return self._index.get(tab)

    def select(self, tab: TabKey) -> None:
        """Select ``tab`` if the strip has it (after the next rebuild, tabs it will have)."""
        self._selected = tab

    @property
    def dirty(self) -> bool:
        """Will the next :meth:`rebuild` rebuild?"""
        return self._dirty

    def invalidate(self) -> None:
        """The pending questions or the waits changed: rebuild at the next :meth:`rebuild`."""
        self._dirty = True

    def rebuild(
        self,
        pending: Iterable[QuestionRef],
        staged_waits: Sequence[tuple[str, Sequence[QuestionRef]]],
    ) -> None:
        """Rebuild from pending refs and ``(call_id, refs)`` of multi-question waits, if dirty."""
        if not self._dirty:
            return
        self._dirty = False
        old = self.tabs
        self.tabs = (
            tuple(pending) if not staged_waits else self._with_reviews(pending, staged_waits)
        )
        self._indexed = None
        if self._selected is None or self._selected not in self.tabs:  # C-speed, identity first
            self._reselect(old)

    @staticmethod
    def _with_reviews(
        pending: Iterable[QuestionRef], staged_waits: Sequence[tuple[str, Sequence[QuestionRef]]]
    ) -> tuple[TabKey, ...]:
        """The pending refs with each multi-question wait's Review tab after its last ref."""
        tabs: list[TabKey] = list(pending)
        position = {ref: i for i, ref in enumerate(tabs)}
        reviews = [
            (max((position[r] for r in refs if r in position), default=-1), call_id)
            for call_id, refs in staged_waits
        ]
        for last, call_id in sorted(reviews, reverse=True):
            tabs.insert(last + 1, ReviewKey(call_id))
        return tuple(tabs)

    def _reselect(self, old: tuple[TabKey, ...]) -> None:
        if not self.tabs:
            self._selected = None
            return
        index = old.index(self.selected) if self.selected in old else 0
        for candidate in old[index:] + old[:index][::-1]:
            if candidate in self._index:
                self._selected = candidate
                return
        self._selected = self.tabs[0]

    def step(self, tab: TabKey | None, delta: int) -> None:
        """Select the tab ``delta`` places from ``tab`` (wrapping)."""
        if self.tabs:
            index = self._index.get(tab, 0) if tab is not None else 0
            self._selected = self.tabs[(index + delta) % len(self.tabs)]

    def select_matching(self, keep: Callable[[TabKey], bool], delta: int) -> None:
        """Select among the tabs ``keep`` accepts: the first (delta 0), or ``delta`` places on
        from the current selection (wrapping)."""
        chosen = [t for t in self.tabs if keep(t)]
        if not chosen:
            return
        if delta and self.selected in chosen:
            index = chosen.index(self.selected)
            self._selected = chosen[(index + delta) % len(chosen)]
        else:
            self._selected = chosen[0]

    def questions(self) -> list[QuestionRef]:
        return [t for t in self.tabs if isinstance(t, QuestionRef)]
