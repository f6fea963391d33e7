"""What a surface needs of the agent it chats with (the REPL screen, line mode).

Two kinds fill the seat: the built-in agent loop (:class:`asks.agent.loop.Agent`) and, in an
``asks hub`` session, nobody (:class:`asks.agent.absent.AbsentAgent`): the surfaces hold a
:class:`ChatAgent` and never ask which it is.

* ``state`` — working or idle (``absent``: there is no agent; the status shows no state);
* ``opens_sessions`` — it takes an opening turn when a new session starts;
* ``send(text)`` — the person's chat line; :class:`~asks.agent.loop.Sent` says what came
  of it: ``QUEUED`` (a turn will read it), ``HANDLED`` (done at once, e.g. a note to a hub
  agent saved) or ``REFUSED`` (nothing was sent: a surface keeps the line for the person);
* ``interrupt()`` — Ctrl+C: True when a running turn was cancelled;
* ``addressees()`` — the names ``@`` completes in the chat editor (hub agents; else none);
* ``run(opening_turn=…)`` — serve until cancelled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from asks.agent.loop import AgentState, Sent


class ChatAgent(Protocol):
    """The agent a surface chats with (module docstring)."""

    @property
    def state(self) -> AgentState: ...

    @property
    def opens_sessions(self) -> bool: ...

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]: ...

    def send(self, text: str) -> Sent: ...

    def interrupt(self) -> bool: ...

    def addressees(self) -> tuple[str, ...]: ...

    async def run(self, *, opening_turn: bool = False) -> None: ...
