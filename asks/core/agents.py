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

from asks.core.model import QuestionRef

Agent = str | None  # a source label; None: the session's own agent
ADDRESS = "@"


class AgentOrder:
    """The agents' ranks, first asked first (module docstring)."""

    # A plain class, not attrs: the host builds one at every launch.
    __slots__ = ("_known", "_ranks")

    def __init__(self) -> None:
        self._ranks: dict[Agent, int] = {}
        self._known: dict[QuestionRef, int] = {}  # the rank of each pending ref, once read

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
    ) -> list[QuestionRef]:
        """``refs`` (pending, in arrival order) grouped by agent in rank order, each agent's
        in arrival order. ``agent_of`` is called once per ref while it stays pending."""
        known = self._known
        ranked = []
        for ref in refs:
            rank = known.get(ref)
            if rank is None:
                rank = self.rank(agent_of(ref))
            ranked.append((rank, ref))
        self._known = dict([(ref, rank) for rank, ref in ranked])
        if all(rank == ranked[0][0] for rank, _ in ranked):
            return [ref for _, ref in ranked]
        groups: dict[int, list[QuestionRef]] = {}
        for rank, ref in ranked:
            groups.setdefault(rank, []).append(ref)
        return [ref for rank in sorted(groups) for ref in groups[rank]]


def named_agent(word: str) -> str | None:
    """The agent ``@name`` names (``"@builder"`` → ``"builder"``); ``None`` if ``word`` is
    not an ``@name``."""
    if not word.startswith(ADDRESS) or len(word) == len(ADDRESS):
        return None
    return word[len(ADDRESS) :]
