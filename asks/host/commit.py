"""Group commit of the hub's tool calls: the async calls that arrive together share one write
and one fsync (docs/fleet-scale.md, "Group commit of the hub's calls").

* At most one batch is open. A call that finds none opens one and leads it: it yields to
  the scheduler (shielded from cancellation), :data:`GATHER_ROUNDS` times, so that calls
  already on their way join it (one round behind it at most), closes it,
  then decides and commits it in one synchronous step (:func:`commit`). A call that finds a
  batch open joins it and waits for the leader; cancelled before the commit, it leaves the
  batch and nothing of it is saved.
* Deciding, in queue order: a *batchable* call (a UI is attached, a valid source label, new
  questions with ``"blocking": false``, a call id neither in the projection nor earlier in the
  batch) adds its ``group_asked`` and ``tool_result`` lines to the pending write. Any other
  call first commits the pending write, then runs alone through :func:`calls.start`; so each
  call is decided against every call before it, as if they ran one by one.
* Saved before told, all or none: the pending write is one ``Journal.append_all`` through
  :meth:`HostState.append` (projected only once saved); on failure every call of it gets
  ``storage_failed`` and nothing of it is projected or emitted. The tabs and views are
  re-derived once per write.
* Other writers (keys, withdrawals, offers) append synchronously; from the first decision to
  the last reply nothing yields to the scheduler, so no write interleaves with a batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import attrs
import trio

from asks import contract
from asks.contract import NewQuestions
from asks.core.model import Question, check_source
from asks.host import calls
from asks.host.waits import ToolReply, Wait
from asks.store.entries import Entry, GroupAsked

if TYPE_CHECKING:
    from asks.host.state import HostState

Started = ToolReply | Wait
GATHER_ROUNDS: Final = 2  # the leader's yields before it closes its batch


@attrs.define(eq=False)
class Queued:
    """One call waiting in a batch; when its batch is committed, ``result`` is set, or
    ``error`` (what :func:`calls.start` raised for this call alone, e.g. a bad source label)."""

    call_id: str
    arguments: object
    asker: calls.Asker
    result: Started | None = None
    error: Exception | None = None
    task: trio.lowlevel.Task | None = None  # a follower's, rescheduled by the leader

    def run_alone(self, state: HostState) -> None:
        """Start this call through the ordinary intake (its own append)."""
        try:
            self.result = calls.start(state, self.call_id, self.arguments, self.asker)
        except Exception as exc:  # raised to this call's own caller, not the batch's leader
            self.error = exc

    def outcome(self) -> Started:
        """The committed call's reply or live wait; raises what its start raised."""
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


@attrs.define(eq=False)
class _Batch:
    """The calls of one batch, its leader first."""

    calls: list[Queued]


async def _gather(_batch: _Batch) -> None:
    """Let the calls already on their way join the batch: the leader yields to the scheduler
    :data:`GATHER_ROUNDS` times (shielded), so a call that reaches the port up to one
    scheduler round after the leader joins it."""
    for _ in range(GATHER_ROUNDS):
        await trio.lowlevel.cancel_shielded_checkpoint()


async def _follow(batch: _Batch, queued: Queued) -> None:
    """Join ``batch`` and sleep until its leader committed it. A cancellation delivered
    before that takes the call out of the batch at once (nothing of it is saved); once
    committed, the call returns its reply."""
    queued.task = trio.lowlevel.current_task()
    batch.calls.append(queued)

    def leave(_: object) -> trio.lowlevel.Abort:
        batch.calls.remove(queued)
        return trio.lowlevel.Abort.SUCCEEDED

    await trio.lowlevel.wait_task_rescheduled(leave)


class GroupCommit:
    """The hub's calls, committed in batches (see module docstring)."""

    __slots__ = ("_open", "_state")

    def __init__(self, state: HostState) -> None:
        self._state = state
        self._open: _Batch | None = None

    async def start(self, call_id: str, arguments: object, asker: calls.Asker) -> Started:
        """Validate and save a call within the batch it joins: its immediate reply, or the
        live wait of a blocking call (what :func:`calls.start` returns for it)."""
        queued = Queued(call_id, arguments, asker)
        batch = self._open
        if batch is None:
            batch = self._open = _Batch([queued])
            await _gather(batch)
            self._open = None
            try:
                commit(self._state, batch.calls)
            except Exception as exc:  # e.g. the journal was closed: every call undecided gets it
                for undecided in batch.calls:
                    if undecided.result is None and undecided.error is None:
                        undecided.error = exc
            for follower in batch.calls[1:]:
                assert follower.task is not None
                trio.lowlevel.reschedule(follower.task)
        else:
            await _follow(batch, queued)
        return queued.outcome()

    async def ask(self, call_id: str, arguments: object, asker: calls.Asker) -> ToolReply:
        """Run one call (as :func:`calls.ask`): returns once a blocking call's wait ended."""
        return await calls.finish(self._state, await self.start(call_id, arguments, asker))


@attrs.frozen
class _Planned:
    """A batchable call's lines and reply, decided but not saved."""

    at: int  # its index in the batch
    asked: GroupAsked
    reply: contract.ResultEnvelope
    entries: tuple[Entry, Entry]


def commit(state: HostState, batch: Sequence[Queued], *, stop_unsaved: bool = False) -> int:
    """Decide and save ``batch`` in order, setting each call's ``result`` (module docstring);
    how many calls were decided. All of them, unless ``stop_unsaved``: then it stops after a
    write that failed, and after a call started alone whose reply saved nothing (a refusal,
    a retry answered from before): the caller journals those replies itself, in their place,
    before it hands the rest to another ``commit`` (the agent loop, docs/fleet-scale.md)."""
    with state.operation():
        pending: list[_Planned] = []
        taken: set[str] = set()  # the pending calls' ids
        for at, queued in enumerate(batch):
            planned = _plan(state, queued, at, len(pending), taken)
            if planned is not None:
                pending.append(planned)
                taken.add(queued.call_id)
                continue
            if not _write(state, batch, pending) and stop_unsaved:
                return at
            pending.clear()
            taken.clear()
            lines = state.journal.next_seq
            queued.run_alone(state)
            if stop_unsaved and state.journal.next_seq == lines:
                return at + 1
        _write(state, batch, pending)
        return len(batch)


def _plan(
    state: HostState, queued: Queued, at: int, before: int, taken: set[str]
) -> _Planned | None:
    """The lines of ``queued`` if it is batchable behind ``before`` pending calls (whose
    ids are ``taken``), else ``None``."""
    if not state.ui_attached:
        return None
    try:
        label = check_source(queued.asker.source)
    except ValueError:
        return None  # calls.start raises it for this call alone
    call = contract.validate_call(queued.arguments)
    if not isinstance(call, NewQuestions) or call.blocking:
        return None
    call_id = queued.call_id
    if call_id in state.projection.calls or call_id in taken:
        return None
    incarnation = state.journal.next_seq + 2 * before  # two lines per call before it
    asker = calls.Asker(label, queued.asker.recipient)
    asked = calls.group_asked(state.projection.session_id, call_id, call, asker, incarnation)
    reply, result = calls.queued(asked)
    return _Planned(at, asked, reply, (asked, result))


def _write(state: HostState, batch: Sequence[Queued], pending: Sequence[_Planned]) -> bool:
    """Save the pending calls' lines in one write and fsync, then tell; all or none. False
    if the write failed (each of its calls then has ``storage_failed``)."""
    if not pending:
        return True
    first, *more = [entry for planned in pending for entry in planned.entries]
    if state.append(first, *more) is None:
        failed = contract.storage_failed(state.journal.state.value)
        for planned in pending:
            batch[planned.at].result = failed
        return False
    for planned in pending:
        questions: tuple[Question, ...] = planned.asked.questions
        state.asked(planned.asked.call_id, questions, False)
        batch[planned.at].result = planned.reply
    state.changed()
    return True


__all__ = ["GroupCommit", "Queued", "commit"]
