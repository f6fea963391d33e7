"""Blocking hub calls answered as MCP tasks (``io.modelcontextprotocol/tasks``).

State model: docs/late-answers.md, "MCP Tasks". In short:

* A blocking ``ask_user_question`` whose wait is live becomes a **task**: the wait is detached
  from the request (:meth:`~asks.host.waits.Wait.detach`) and stays live until its questions
  close, the person defers, the agent withdraws, the agent cancels the task or its ttl passes.
  A detached wait's tool result delivers nothing: its answers go to the agent's outbox.
* The **task id** (:class:`TaskId`) names the call, its creation time and ttl. Everything else
  is read from the journal's projection, so a task outlives a restart: its status is
  ``working`` while a question of its call is pending (or a unit of it is in flight in another
  response), else ``completed``.
* A completed status **offers** the agent's undelivered units (the task's answers and any
  other): the receipt is written once the response carrying it was handed over, as for any hub
  response. The task's answers that another response delivered first are repeated marked as a
  repeat, never as a new answer.
* An unknown id, another agent's call, or an expired task are all one answer: unknown.
* **Gone means interrupted**, as for a blocking call whose connection closed: a live task that
  nobody polled for its silence (the client quit: its tasks die with its session) has its
  wait ended ``interrupted``; its questions stay pending and their answers reach the agent at
  its next call. A poll after that still finds the task (its status is read from the journal).

Times are wall-clock milliseconds (``time.time``): a task's ttl must mean the same after a
restart.
"""

from __future__ import annotations

import enum
import time
from typing import TYPE_CHECKING, Final

import attrs

from asks.core.model import Outcome, QuestionRef
from asks.host.notes import feedback_of
from asks.host.waits import Wait

if TYPE_CHECKING:
    from asks.host.hub import HubPort, Offer
    from asks.host.state import HostState

TASK_VERSION: Final = "t1"
TASK_TTL_MS: Final = 7 * 24 * 3600 * 1000  # Claude Code tracks a task up to 7 days
TASK_SILENCE_MS: Final = 30_000  # no poll for this long: the client is gone (it polls each 1 s)
WITHDRAWN_TEXT: Final = "You withdrew these questions; there is no answer to wait for."


class TaskStatus(enum.StrEnum):
    """A task's status as the MCP tasks extension names it (the ones asks reports)."""

    WORKING = "working"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


@attrs.frozen
class TaskId:
    """What a task id says: ``t1.<created ms>.<ttl ms>.<the client's call id>``."""

    created_ms: int
    ttl_ms: int
    call_id: str  # the client's own call id (the agent's namespace is added by the port)

    @property
    def expires_ms(self) -> int:
        return self.created_ms + self.ttl_ms

    def text(self) -> str:
        return f"{TASK_VERSION}.{self.created_ms}.{self.ttl_ms}.{self.call_id}"

    @classmethod
    def parse(cls, text: object) -> TaskId | None:
        """The id ``text`` is, or ``None`` if it is not one of asks' task ids."""
        if not isinstance(text, str):
            return None
        parts = text.split(".", 3)
        if len(parts) != 4 or parts[0] != TASK_VERSION or not parts[3]:
            return None
        if not (parts[1].isdigit() and parts[2].isdigit()):
            return None
        return cls(int(parts[1]), int(parts[2]), parts[3])


@attrs.frozen
class TaskView:
    """A task's status now; a completed one's text and the offer its response carries."""

    status: TaskStatus
    text: str = ""
    offer: Offer | None = None


def clock_text(moment: float | None) -> str:
    """``at 14:02`` (local time) for a known moment, else ``earlier``."""
    return "earlier" if moment is None else time.strftime("at %H:%M", time.localtime(moment))


class TaskDesk:
    """The tasks of the hub's agents (module docstring)."""

    __slots__ = ("_cancelled", "_live", "_port", "_state")

    def __init__(self, state: HostState, port: HubPort) -> None:
        self._state = state
        self._port = port
        self._cancelled: set[str] = set()  # hub call ids whose task the agent cancelled
        # hub call id of a live detached wait → its expiry, last poll, silence allowed (ms)
        self._live: dict[str, tuple[int, int, int]] = {}

    def detach(
        self,
        label: str,
        call_id: str,
        wait: Wait,
        *,
        now_ms: int,
        ttl_ms: int = TASK_TTL_MS,
        silence_ms: int = TASK_SILENCE_MS,
    ) -> TaskId:
        """Agent ``label``'s call ``call_id`` (its live ``wait``) is answered as a task that
        lives ``ttl_ms``; its wait ends if nobody polls it for ``silence_ms``."""
        wait.detach()
        task = TaskId(now_ms, ttl_ms, call_id)
        self._live[self._port.hub_call_id(label, call_id)] = (task.expires_ms, now_ms, silence_ms)
        return task

    def view(self, label: str, text: object, now_ms: int) -> TaskView | None:
        """The status of agent ``label``'s task ``text``; ``None`` if it has no such task
        (unknown, another agent's, or expired)."""
        task = TaskId.parse(text)
        if task is None:
            return None
        hub_call = self._port.hub_call_id(label, task.call_id)
        call = self._state.projection.calls.get(hub_call)
        if call is None or not call.blocking:
            return None
        if hub_call in self._live:
            expires, _polled, silence = self._live[hub_call]
            self._live[hub_call] = (expires, now_ms, silence)
        if now_ms >= task.expires_ms:
            self.expire(now_ms)
            return None
        if hub_call in self._cancelled:
            return TaskView(TaskStatus.CANCELLED)
        if self._unsettled(call.refs):
            return TaskView(TaskStatus.WORKING)
        return self._completed(label, call.refs)

    def carried(self, label: str) -> frozenset[QuestionRef]:
        """The questions of agent ``label``'s live tasks: the client polls those tasks, whose
        completed result will carry their answers."""
        prefix = self._port.hub_call_id(label, "")
        calls = self._state.projection.calls
        return frozenset(
            ref
            for hub_call in self._live
            if hub_call.startswith(prefix) and (call := calls.get(hub_call)) is not None
            for ref in call.refs
        )

    def cancel(self, label: str, text: object, now_ms: int) -> TaskView | None:
        """The agent gives its task up: a live wait ends ``interrupted`` (its questions stay
        pending; their answers reach the agent at its next call). ``None`` if unknown."""
        view = self.view(label, text, now_ms)
        if view is None or view.status is not TaskStatus.WORKING:
            return view
        task = TaskId.parse(text)
        assert task is not None
        hub_call = self._port.hub_call_id(label, task.call_id)
        self._cancelled.add(hub_call)
        self._end(hub_call, "the agent cancelled its task")
        return TaskView(TaskStatus.CANCELLED)

    def expire(self, now_ms: int) -> int | None:
        """End the live detached waits whose ttl passed or that nobody polled for their
        silence; when the next one falls due (ms), if any."""
        due: list[int] = []
        for hub_call, (expires, polled, silence) in list(self._live.items()):
            if now_ms >= expires:
                self._end(hub_call, "its task expired")
            elif now_ms >= polled + silence:
                self._end(hub_call, "the agent stopped polling its task")
            else:
                due.append(min(expires, polled + silence))
        return min(due, default=None)

    def _end(self, hub_call: str, reason: str) -> None:
        self._live.pop(hub_call, None)
        wait = self._state.waits.of_call(hub_call)
        if wait is None or wait.done or not wait.detached:
            return
        with self._state.operation():
            self._state.finish_wait(wait, Outcome.INTERRUPTED, reason)
            self._state.changed()

    def _unsettled(self, refs: tuple[QuestionRef, ...]) -> bool:
        """A question of ``refs`` is pending, or a unit of them is claimed by a wait or an
        open offer (its delivery is under way elsewhere)."""
        projection, outbox = self._state.projection, self._state.outbox
        return any(
            ref in projection.pending
            or (not projection.by_ref[ref].delivered and outbox.is_claimed(ref))
            for ref in refs
        )

    def _completed(self, label: str, refs: tuple[QuestionRef, ...]) -> TaskView:
        projection = self._state.projection
        answered = [r for r in refs if projection.by_ref[r].resolution is not None]
        before = [r for r in answered if projection.by_ref[r].delivered]
        parts = []
        if before:
            moment = max((self._port.sent_at(r) or 0.0 for r in before), default=0.0)
            parts.append(
                f"(Already sent to you {clock_text(moment or None)}; this repeats it, it is "
                f"not a new answer.)\n{feedback_of(projection, before)}"
            )
        offer = self._port.offer_feedback(label)
        if offer is not None:
            parts.append(offer.text)
        if not answered:
            parts.append(WITHDRAWN_TEXT)
        return TaskView(TaskStatus.COMPLETED, "\n\n".join(parts), offer)
