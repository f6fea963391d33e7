"""What every port of the host offers: change and status subscriptions, the statistics.

A port is one consumer's view of a :class:`~asks.host.state.HostState` — like trio's channel
ends over their shared state, it implements its operations on that state (through the host's
collaborators) and holds nothing else. The ports: :class:`~asks.host.agentport.AgentPort`
(the agent loop), :class:`~asks.host.surfaceport.SurfacePort` (other surfaces),
:class:`~asks.host.panelport.PanelPort` (the terminal panel and its layer) and
:class:`~asks.host.hub.HubPort` (asks' MCP server). Each port call that changes something runs
as one operation of the state: what it has to tell is told once the state is consistent
(:mod:`asks.host.announce`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from asks.core.model import Question, QuestionRef
from asks.core.tabs import TabKey
from asks.host.state import HostState
from asks.host.stats import HostStatistics, snapshot
from asks.store.projection import ProjectionView

if TYPE_CHECKING:
    from asks.core.brief import QuestionBrief


class Port:
    """The part every port shares (module docstring)."""

    __slots__ = ("_state",)

    def __init__(self, state: HostState) -> None:
        self._state = state

    @property
    def projection(self) -> ProjectionView:
        """What is on disk (the questions, their resolutions, the conversation), as a
        read-only view."""
        return self._state.projection

    def question(self, ref: QuestionRef) -> Question:
        """The question ``ref`` (any state: pending, answered, withdrawn)."""
        return self._state.question(ref)

    def brief(self, ref: QuestionRef) -> QuestionBrief:
        """Question ``ref``'s header, who asked it and who its answer goes to (any state),
        without decoding the question where a resume has not yet (the tab bar reads it for
        every tab)."""
        return self._state.projection.brief(ref)

    def agent_of(self, tab: TabKey) -> str | None:
        """Who asked the question of ``tab`` (a Review tab: its wait's questions): its source
        label, ``None`` for the session's own agent."""
        return self._state.tab_agent(tab)

    def pending_by_agent(self) -> tuple[tuple[str | None, tuple[QuestionRef, ...]], ...]:
        """The pending questions grouped by who asked them, in the panel's order: agents as
        they first asked in this session, each agent's questions in arrival order
        (:mod:`asks.core.agents`)."""
        state = self._state
        groups: dict[str | None, list[QuestionRef]] = {}
        for ref in state.strip.questions():
            groups.setdefault(state.agent_of(ref), []).append(ref)
        return tuple((agent, tuple(refs)) for agent, refs in groups.items())

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after every change of what the views show (once per operation,
        after its events); returns an unsubscribe function."""
        return self._state.subscribe(listener)

    def subscribe_status(self, listener: Callable[[HostStatistics], None]) -> Callable[[], None]:
        """Call ``listener(statistics)`` whenever :meth:`statistics` — what a status line shows
        (pending, saved feedback, the notice, where the keys are, …) — changed; returns an
        unsubscribe function. No polling: it is told at the end of the change."""
        return self._state.announcer.status.add(listener)

    def statistics(self) -> HostStatistics:
        """The host's state now, for a status line (:class:`~asks.host.stats.HostStatistics`)."""
        return snapshot(self._state)
