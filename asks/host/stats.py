"""The host's frozen statistics snapshot (what status lines and notifiers read).

Semantics: :class:`HostStatistics`'s docstring (what ``help(HostStatistics)`` shows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from asks.core.focus import KeysTo
from asks.host.commands import PanelMode
from asks.store.journal import StorageState

if TYPE_CHECKING:
    from asks.host.state import HostState


@attrs.frozen
class KeysStatus:
    """Where the keys go: ``to``; on the panel, the header of the question
    they go to (``None``: the Review tab) and ``agent``, who asked it (its source label;
    ``None``: the session's own agent, not named); ``waiting``: while a claim holds the keys
    back until a pause, the header of the required question that takes them then, asked by
    ``waiting_agent``; ``prompt_waiting``: a foreign prompt is up and takes the keys at the
    pause."""

    to: KeysTo
    question: str | None = None
    waiting: str | None = None
    prompt_waiting: bool = False
    agent: str | None = None
    waiting_agent: str | None = None


@attrs.frozen
class HostStatistics:
    """Snapshot for the status line.

    * ``pending``: questions waiting for the person; ``pending_agents``: how many agents asked
      them, counted only when some of them asked through the hub (``Asks: 3 pending from 2
      agents``; the session's own agent counts as one), else 0.
    * ``saved_undelivered``: units saved and not delivered yet, for every recipient (answers,
      declines, notes); ``saved_for_agent``: those of the session's own agent (what would wake it).
    * ``keys``: where the keys go (:class:`KeysStatus`).
    """

    pending: int
    saved_undelivered: int
    live_waits: int
    storage: StorageState
    agent_running: bool
    focus_owner: str
    mode: PanelMode
    notice: str | None
    keys: KeysStatus | None = None  # None: nothing but the chat (no questions, no prompt)
    pending_agents: int = 0
    saved_for_agent: int = 0


def snapshot(host: HostState) -> HostStatistics:
    return HostStatistics(
        pending=len(host.projection.pending),
        saved_undelivered=len(host.outbox),
        live_waits=len(host.waits),
        storage=host.journal.state,
        agent_running=host.agent_running,
        focus_owner=host.focus.owner.name,
        mode=host.panel.mode,
        notice=host.keys.notice,
        keys=host.keys.status(),
        pending_agents=host.projection.pending_senders(),
        saved_for_agent=host.outbox.count(),
    )
