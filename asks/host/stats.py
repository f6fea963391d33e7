"""The host's frozen statistics snapshot (what status lines and notifiers read)."""

from __future__ import annotations

import attrs

from asks.core.focus import KeysTo
from asks.host.commands import PanelMode
from asks.store.journal import StorageState


@attrs.frozen
class KeysStatus:
    """Where the keys go (focus rule 9): ``to``; on the panel, the header of the question
    they go to (``None``: the Review tab); ``waiting``: while a claim holds the keys back
    until a pause, the header of the required question that takes them then."""

    to: KeysTo
    question: str | None = None
    waiting: str | None = None


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
    keys: KeysStatus | None = None  # None: nothing but the chat (no questions, no prompt)
