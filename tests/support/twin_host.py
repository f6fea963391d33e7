"""Two hosts in lockstep: the same calls on both, to show listeners change nothing.

:class:`TwinHost` looks like a :class:`~asks.host.host.QuestionHost` to a test: reading a
port's property reads the *first* host; calling a port's method calls it on the first host
and then, with the same arguments, on the second, and returns the first one's result. The two
hosts share the session id (so question ids match), the clock and the focus targets (so a
route's target is the same object on both); each has its own journal, directory and
:class:`~support.rig.FlakyOps` (:meth:`TwinHost.fail_next_writes` injects the same failure on
both). The first host gets the listeners under test; :meth:`TwinHost.differences` names what
differs between the two states, the notice aside (it is how a failing listener is reported).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from asks.core.focus import Focus, FocusTarget
from asks.host.host import QuestionHost
from asks.store.journal import Journal
from support.rig import FlakyOps

CHAT, PANEL = FocusTarget("chat"), FocusTarget("panel")


class Tee:
    """One port of each host: reads from the first, calls on both (module docstring)."""

    def __init__(self, first: object, second: object) -> None:
        self._pair = (first, second)

    def __getattr__(self, name: str) -> Any:
        first, second = self._pair
        value = getattr(first, name)
        if not inspect.ismethod(value):
            return value
        other = getattr(second, name)

        def both(*args: Any, **kwargs: Any) -> Any:
            result = value(*args, **kwargs)
            other(*args, **kwargs)
            return result

        return both


class Side:
    """One of the two: its directory, file operations, journal and host."""

    def __init__(self, directory: Path, session_id: str | None, clock: Any) -> None:
        self.directory, self.clock = directory, clock
        self.ops = FlakyOps()
        self.journal = Journal.create(data_dir=directory, session_id=session_id, file_ops=self.ops)
        self.host = QuestionHost(self.journal, clock=clock, focus=Focus(CHAT, PANEL))

    def reopen(self) -> None:
        """Crash (drop the host mid-flight) and resume from the file."""
        self.journal.close()
        self.ops = FlakyOps()
        self.journal, records = Journal.open(
            self.journal.session_id, data_dir=self.directory, file_ops=self.ops
        )
        self.host = QuestionHost(self.journal, records, clock=self.clock, focus=Focus(CHAT, PANEL))


class TwinHost:
    """Two hosts driven as one (module docstring)."""

    def __init__(self, directory: Path, clock: Any) -> None:
        self.first = Side(directory, None, clock)
        self.second = Side(directory / "twin", self.first.journal.session_id, clock)

    @property
    def agent_port(self) -> Any:
        return Tee(self.first.host.agent_port, self.second.host.agent_port)

    @property
    def panel_port(self) -> Any:
        return Tee(self.first.host.panel_port, self.second.host.panel_port)

    @property
    def surface_port(self) -> Any:
        return Tee(self.first.host.surface_port, self.second.host.surface_port)

    def statistics(self) -> Any:
        return self.first.host.statistics()

    @property
    def _state(self) -> Any:  # the tests' look inside (outbox claims): the first host's
        return self.first.host._state

    def fail_next_writes(self, count: int, *, unconfirmed: bool) -> None:
        for side in (self.first, self.second):
            side.ops.fail_writes = count
            side.ops.fail_truncate = unconfirmed

    def reopen(self) -> None:
        self.first.reopen()
        self.second.reopen()

    def differences(self) -> list[str]:
        """What differs between the two hosts' states (empty: the same), the notice aside."""
        one, two = (state_of(side.host) for side in (self.first, self.second))
        return [f"{key}: {one[key]!r} != {two[key]!r}" for key in one if one[key] != two[key]]


def state_of(host: QuestionHost) -> dict[str, object]:
    """Everything a host's behaviour depends on, as comparable values (not the notice)."""
    state = host._state
    projection, focus = state.projection, state.focus
    return {
        "records": projection.records,
        "next_seq": state.journal.next_seq,
        "storage": state.journal.state,
        "pending": list(projection.pending),
        "undelivered": list(projection.undelivered),
        "outbox": state.outbox.refs(),
        "claimed": sorted(str(r) for r in projection.undelivered if state.outbox.is_claimed(r)),
        "waits": sorted((w.call_id, w.refs) for w in state.waits),
        "tabs": state.tabs,
        "selected": state.selected,
        "mode": state.panel.mode,
        "armed": state.panel.armed,
        "drafts": {ref: state.drafts.get(ref) for ref in projection.pending},
        "owner": focus.owner,
        "where": focus.where(),
        "claim": focus.claim,
        "foreign": list(focus.foreign),
        "agent_running": state.agent_running,
        "ui_attached": state.ui_attached,
    }
