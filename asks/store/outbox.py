"""Delivery: saved-but-undelivered units on their way to the agent (steer or wake).

The **outbox** is every unit the projection holds as undelivered — resolutions, and the
person's notes to hub agents — minus those claimed by a live blocking wait or an open hub
offer (their response will deliver them). Its order is save order.

The agent-facing protocol (implemented by :class:`asks.host.agentport.AgentPort`):

* ``turn_started()`` / ``turn_ended()`` — the agent loop says whether a turn runs.
* Before **every** model call of a running turn the loop calls ``take_feedback()``; a
  non-``None`` :class:`Feedback` is appended to the model context as a user-role message
  (mode ``steer``). Its receipt is already durable when it is returned.
* An idle loop awaits ``wait_for_feedback()``; when it returns, the loop starts a turn whose
  first context addition is ``take_feedback()`` (mode ``wake``).
* ``await ask(call_id, arguments)`` runs the tool; ``interrupt(reason)`` ends every live
  wait as ``interrupted`` (Ctrl+C), and cancelling ``ask`` does the same for that call.

Delivery is partitioned by **recipient** (``Question.recipient``): ``None`` is the session's own
agent, ``"mcp:<label>"`` an agent asking through the hub. Every query takes the recipient and
sees only the units of its questions (and the notes addressed to it), so an answer can only
ever reach the agent that asked.
"""

from __future__ import annotations

import enum

import attrs
import trio

from asks.core.model import QuestionRef
from asks.store.projection import Projection


class DeliveryMode(enum.StrEnum):
    """How a :class:`Feedback` reaches the agent (its receipt says which)."""

    STEER = "steer"  # added to a running turn before its next model call
    WAKE = "wake"  # started a turn of an idle agent
    HUB = "hub"  # handed to an agent outside asks in a response of the hub


@attrs.frozen
class Feedback:
    """A feedback message whose receipt (journal ``seq``) is durable."""

    text: str
    refs: tuple[QuestionRef, ...]
    mode: DeliveryMode
    seq: int


@attrs.define(eq=False)
class Outbox:
    """Undelivered resolutions not claimed by a live wait, plus the wake signal."""

    projection: Projection
    _claimed: set[QuestionRef] = attrs.Factory(set)
    _ready: trio.Event = attrs.Factory(trio.Event)
    _revision: int = 0  # bumped by every claim and release
    # (records, revision) → units per recipient (count)
    _counted: tuple[tuple[int, int], dict[str | None, int]] = attrs.Factory(lambda: ((-1, -1), {}))

    def claim(self, ref: QuestionRef) -> None:
        """A live wait will deliver ``ref`` in its tool result: keep it out of feedback."""
        self._claimed.add(ref)
        self._revision += 1

    def release(self, ref: QuestionRef) -> None:
        """The wait that claimed ``ref`` ended without delivering it: feedback may take it."""
        self._claimed.discard(ref)
        self._revision += 1

    def count(self, recipient: str | None = None) -> int:
        """``len(self.refs(recipient))``, remembered until a record or a claim changes it (the
        status line asks at every refresh)."""
        key = (self.projection.records, self._revision)
        if self._counted[0] != key:
            self._counted = (key, {})
        counts = self._counted[1]
        if recipient not in counts:
            counts[recipient] = len(self.refs(recipient))
        return counts[recipient]

    def is_claimed(self, ref: QuestionRef) -> bool:
        return ref in self._claimed

    def refs(self, recipient: str | None = None) -> tuple[QuestionRef, ...]:
        """The deliverable units of ``recipient``'s questions and notes, in save order."""
        recipient_of = self.projection.recipient
        return tuple(
            r
            for r in self.projection.undelivered
            if r not in self._claimed and recipient_of(r) == recipient
        )

    def __len__(self) -> int:
        """Deliverable units of every recipient (the status line's saved feedback)."""
        undelivered = self.projection.undelivered
        return len(undelivered) - sum(1 for r in self._claimed if r in undelivered)

    def signal(self) -> None:
        """Wake waiters if anything is deliverable."""
        if len(self):
            self._ready.set()
            self._ready = trio.Event()

    async def wait_ready(self, recipient: str | None = None) -> None:
        """Return once ``recipient`` has something deliverable."""
        while not self.refs(recipient):
            await self._ready.wait()
