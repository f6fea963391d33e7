"""The host's frozen statistics snapshot (what status lines and notifiers read)."""

from __future__ import annotations

import attrs

from asks.host.commands import PanelMode
from asks.store.journal import StorageState


@attrs.frozen
class HostStatistics:
    """Snapshot for the status line."""

    pending: int
    saved_undelivered: int
    live_waits: int
    storage: StorageState
    agent_running: bool
    focus_owner: str
    mode: PanelMode
    notice: str | None
