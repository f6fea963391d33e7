"""The question host: one session's questions, and the documented face an embedder holds.

Semantics: :class:`QuestionHost`'s docstring (what ``help(QuestionHost)`` shows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import trio

from asks.core.events import HostEvent
from asks.core.focus import Focus
from asks.core.renamed import renamed
from asks.host.agentport import AgentPort
from asks.host.lifecycle import detach_ui
from asks.host.panelport import PanelPort
from asks.host.state import HostState
from asks.host.stats import HostStatistics, snapshot
from asks.host.surfaceport import SurfacePort
from asks.store.entries import Record
from asks.store.journal import Journal

if TYPE_CHECKING:
    from asks.host.hub import HubPort


class QuestionHost:
    """The questions of one session and the ports to them.

    ``QuestionHost(journal, records=(), *, focus=None, clock=trio.current_time, ui_attached=True)``
    builds the host of one journal (a second host on the same journal is refused): the questions
    of its records (a resume), the waits, drafts, tabs and focus. An embedder holds it and hands
    out its **ports**, one per consumer, each implementing what that consumer may do:

    * :attr:`QuestionHost.agent_port` (:class:`~asks.host.agentport.AgentPort`) — the agent loop:
      ``ask``, withdraw, feedback before each model call, turns, interrupt;
    * :attr:`QuestionHost.panel_port` (:class:`~asks.host.panelport.PanelPort`) — the terminal
      panel: what :class:`~asks.widgets.layer.AsksLayer` takes;
    * :attr:`QuestionHost.surface_port` (:class:`~asks.host.surfaceport.SurfacePort`) — other
      surfaces (a web page, a notifier): answer, decline, defer, typed events;
    * ``hub_port`` — asks' own MCP server's (not for embedders).

    and follows it: :meth:`QuestionHost.subscribe` (something changed), :meth:`QuestionHost.
    subscribe_events` (typed events, :mod:`asks.core.events`), :meth:`QuestionHost.subscribe_status`
    (what a status line shows changed: no polling of ``status_text()``), :meth:`QuestionHost.
    statistics`; and :meth:`QuestionHost.detach_ui` when its UI goes away.

    Behind the facade and the ports is one private :class:`~asks.host.state.HostState` (like trio's
    channel state behind its two ends): the journal, the projection, the outbox, the live waits,
    and the collaborators that keep **save before notify** — a change is journaled and folded in,
    waits, tabs, focus and outbox follow, and only then are events and listeners told
    (:mod:`asks.host.announce`). Nothing public journals an arbitrary entry or emits an event.
    Storage failures never raise out of the host: the draft stays, the notice says what happened,
    the agent gets ``storage_failed``, and nothing is reported saved unless it is durable.
    """

    __slots__ = ("_agent", "_hub", "_panel", "_state", "_surface")

    def __init__(
        self,
        journal: Journal,
        records: Iterable[Record] = (),
        *,
        focus: Focus | None = None,
        clock: Callable[[], float] = trio.current_time,
        ui_attached: bool = True,
    ) -> None:
        """``records``: the journal's records at a resume (``Journal.open``); ``clock``:
        trio's by default (the typing guard compares it with the times keys are read at);
        ``ui_attached=False``: no panel (calls get ``no_ui``)."""
        journal.attach(self)
        self._state = HostState(journal, records, focus=focus, clock=clock, ui_attached=ui_attached)
        self._agent = AgentPort(self._state)
        self._panel = PanelPort(self._state)
        self._surface = SurfacePort(self._state)
        self._hub: HubPort | None = None

    @property
    def session_id(self) -> str:
        """The id of the journal's session (``asks --resume ID`` opens it)."""
        return self._state.journal.session_id

    @property
    def agent_port(self) -> AgentPort:
        """The agent loop's port (give it to your agent, not the host)."""
        return self._agent

    @property
    def panel_port(self) -> PanelPort:
        """The terminal panel's port (``AsksLayer(host.panel_port, editor)``)."""
        return self._panel

    @property
    def surface_port(self) -> SurfacePort:
        """Other surfaces' port: a web page, line mode, a notifier."""
        return self._surface

    @property
    def hub_port(self) -> HubPort:
        """asks' MCP server's port (``asks --mcp``); one per host, made on first use."""
        if self._hub is None:
            from asks.host.hub import HubPort  # noqa: PLC0415 (only a hub session needs it)

            self._hub = HubPort(self._state)
        return self._hub

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` after every change (once per change, after its events, once the
        host is consistent again); returns an unsubscribe function."""
        return self._state.subscribe(listener)

    def subscribe_events(self, listener: Callable[[HostEvent], None]) -> Callable[[], None]:
        """Call ``listener(event)`` with each typed event, after its journal line is durable
        and the change behind it is complete; returns an unsubscribe function."""
        return self._state.announcer.events.add(listener)

    def subscribe_status(self, listener: Callable[[HostStatistics], None]) -> Callable[[], None]:
        """Call ``listener(statistics)`` whenever :meth:`statistics` changed (what a status
        line shows: pending, saved feedback, the notice, where the keys are); returns an
        unsubscribe function. A listener that raises is reported once and changes nothing."""
        return self._state.announcer.status.add(listener)

    def statistics(self) -> HostStatistics:
        """The host now, for a status line or a notifier."""
        return snapshot(self._state)

    def detach_ui(self) -> None:
        """No UI any more: live waits end ``interrupted``; later calls get ``no_ui``."""
        detach_ui(self._state)

    # The names before the rename (asks.core.renamed): they warn, then do the same.
    detach_ui_nowait = renamed(detach_ui, "detach_ui_nowait")
