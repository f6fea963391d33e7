"""Who asks: the agents of a session in a stable order, and the tabs grouped by them.

An **agent** is a question's ``source`` label (:attr:`asks.core.model.Question.source`: an
agent asking through the hub, or a label an embedder gave); ``None`` is the session's own
agent. With several agents the person must always be able to tell them apart, so the panel
shows each agent's questions together and in a stable order:

* **The order** is the order in which the agents first asked in this session. An agent keeps
  its rank for the whole run, even while none of its questions is pending; a resumed session
  is seeded with the same order from its journal (:meth:`AgentOrder.seed`).
* **The tabs** are the pending questions grouped by agent in that order, each agent's in
  arrival order (:meth:`AgentOrder.arrange`). A new question goes at the end of its agent's
  group and a new agent after every other, so a tab never moves past another when someone
  asks: the relative order of the tabs already there never changes.

:func:`named_agent` reads ``@name`` as the person types it (``/asks @builder``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain, islice

from asks.core.model import QuestionRef

Agent = str | None  # a source label; None: the session's own agent
ADDRESS = "@"


class AgentOrder:
    """The agents' ranks, first asked first (module docstring)."""

    # A plain class, not attrs: the host builds one at every launch.
    __slots__ = ("_groups", "_known", "_ranks")

    def __init__(self) -> None:
        self._ranks: dict[Agent, int] = {}
        self._known: dict[QuestionRef, int] = {}  # the rank of each pending ref, once read
        self._groups: dict[int, dict[QuestionRef, None]] = {}  # rank → its pending refs

    @property
    def agents(self) -> tuple[Agent, ...]:
        """Every agent seen so far, in rank order."""
        return tuple(self._ranks)

    def rank(self, agent: Agent) -> int:
        """The rank of ``agent``; an agent not seen before ranks after every other."""
        rank = self._ranks.get(agent)
        if rank is None:
            rank = self._ranks[agent] = len(self._ranks)
        return rank

    def seed(self, agents: Iterable[Agent]) -> None:
        """Rank ``agents`` (first asked first) before anything else is seen: a resumed
        session's order, read from its journal."""
        for agent in agents:
            self.rank(agent)

    def arrange(
        self, refs: Iterable[QuestionRef], agent_of: Callable[[QuestionRef], Agent]
    ) -> tuple[QuestionRef, ...]:
        """``refs`` (pending, in arrival order) grouped by agent in rank order, each agent's
        in arrival order (a tuple: the tab strip keeps it as it is, no copy). ``agent_of`` is
        called once per ref while it stays pending.

        Called again with the next pending questions, the work done in Python is per ref
        that came or went since the last call, not per pending ref: ``refs`` keep their
        order while pending and new ones come after them (a pending dict, as the projection
        keeps). A call that breaks that (a known ref after a new one) is arranged afresh,
        with the same result."""
        if isinstance(refs, dict):
            new = self._added(refs)
            if new is not None:  # nothing went: the work is per new ref only
                return self._add(new, agent_of)
            pending = refs
        else:
            pending = dict.fromkeys(refs)
        known = self._known
        gone = set(known).difference(pending)  # C speed: the hashes are the dicts' own
        count = len(pending) - len(known) + len(gone)
        new = list(islice(reversed(pending), count))[::-1] if count > 0 else []
        if any(ref in known for ref in new):
            self._known, self._groups = {}, {}
            return self._add(list(pending), agent_of)
        for ref in gone:
            rank = known.pop(ref)
            group = self._groups[rank]
            del group[ref]
            if not group:
                del self._groups[rank]
        return self._add(new, agent_of)

    def _added(self, pending: dict[QuestionRef, None]) -> list[QuestionRef] | None:
        """The refs of ``pending`` not known yet, in arrival order, if no known ref went;
        ``None`` if some did. Reads ``pending`` from its end down to its newest known ref:
        per new ref, not per pending ref (a dict inserts at its end, so every ref not known
        comes after every known one)."""
        known = self._known
        new: list[QuestionRef] = []
        for ref in reversed(pending):
            if ref in known:
                break
            new.append(ref)
        if len(known) + len(new) != len(pending):
            return None
        new.reverse()
        return new

    def _add(
        self, refs: list[QuestionRef], agent_of: Callable[[QuestionRef], Agent]
    ) -> tuple[QuestionRef, ...]:
        """Rank ``refs`` (new, in arrival order) into their groups; the tabs in order."""
        known, groups = self._known, self._groups
        for ref in refs:
            rank = known[ref] = self.rank(agent_of(ref))
            group = groups.get(rank)
            if group is None:
                group = groups[rank] = {}
            group[ref] = None
        if len(groups) == 1:
            return tuple(next(iter(groups.values())))
        return tuple(chain.from_iterable(groups[rank] for rank in sorted(groups)))


def named_agent(word: str) -> str | None:
    """The agent ``@name`` names (``"@builder"`` → ``"builder"``); ``None`` if ``word`` is
    not an ``@name``."""
    if not word.startswith(ADDRESS) or len(word) == len(ADDRESS):
        return None
    return word[len(ADDRESS) :]
