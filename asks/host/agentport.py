"""The agent loop's port: run ``ask_user_question``, withdraw, take feedback, say turns.

Semantics: :class:`AgentPort`'s docstring (what ``help(AgentPort)`` shows).
"""

from __future__ import annotations

from collections.abc import Sequence

from asks.contract import QuestionResult, WithdrawReport, question_result
from asks.core import events as ev
from asks.core.renamed import renamed
from asks.host import calls
from asks.host.commit import Queued, commit
from asks.host.lifecycle import interrupt
from asks.host.notes import feedback_of, split
from asks.host.port import Port
from asks.host.waits import ToolReply, Wait
from asks.store.entries import AgentRecord, FeedbackDelivered
from asks.store.outbox import DeliveryMode, Feedback


class AgentPort(Port):
    """The agent loop's view of the host.

    What an agent loop does with it (the guide: docs/embedding.md):

    * ``await port.ask(call_id, arguments, source=...)`` runs one tool call and returns its
      :data:`~asks.host.waits.ToolReply` (a result envelope for the model, or a coded error); a
      blocking call returns when its wait ends; cancelling it ends the wait ``interrupted``.
      :meth:`AgentPort.start_call` is the same without waiting: the reply, or the live
      :class:`~asks.host.waits.Wait`; :meth:`AgentPort.start_calls` starts one reply's
      calls together (its async ones saved in one write).
    * Before **each** model call, :meth:`AgentPort.take_feedback`: the answers saved since,
      as one user-role message whose receipt is already durable (mode ``steer`` while a turn runs,
      ``wake`` otherwise); an idle agent awaits :meth:`AgentPort.wait_for_feedback` first.
      :meth:`AgentPort.results_of` gives a program the same answers typed.
    * :meth:`AgentPort.turn_started` / :meth:`AgentPort.turn_ended` say whether a
      turn runs; :meth:`AgentPort.interrupt` ends every live wait ``interrupted`` (Ctrl+C).
    * :meth:`AgentPort.withdraw` takes questions back per id (a
      :class:`~asks.contract.WithdrawReport`); :meth:`AgentPort.pending_ids` lists what is pending.
    * :meth:`AgentPort.record_message` journals the conversation's messages and the
      person's permission decisions, so a resumed session rebuilds the conversation.
    """

    __slots__ = ()

    @property
    def ui_attached(self) -> bool:
        """False once the UI detached: calls then get ``no_ui``."""
        return self._state.ui_attached

    def wait_of_call(self, call_id: str) -> Wait | None:
        """The live wait of a tool call (its ``? asked:`` card shows once it waits)."""
        return self._state.waits.of_call(call_id)

    # -- tool calls ----------------------------------------------------------------------
    async def ask(self, call_id: str, arguments: object, *, source: str | None = None) -> ToolReply:
        """Run one ``ask_user_question`` call (``arguments``: the tool's JSON arguments);
        ``source`` labels who asks (several agents on one host), shown and journaled.
        Returns when a blocking call's wait ends; cancelling it ends the wait ``interrupted``."""
        return await calls.ask(self._state, call_id, arguments, calls.Asker(source))

    def start_call(
        self, call_id: str, arguments: object, *, source: str | None = None
    ) -> ToolReply | Wait:
        """Validate and save a call; its immediate reply, or the live :class:`Wait` (await
        ``wait.result()``). A bad ``source`` raises :class:`ValueError` naming the fix."""
        return calls.start(self._state, call_id, arguments, calls.Asker(source))

    def start_calls(
        self, requests: Sequence[tuple[str, object]], *, source: str | None = None
    ) -> tuple[ToolReply | Wait, ...]:
        """Start one model reply's calls (``(call_id, arguments)`` each, in order) as
        :meth:`start_call` would one by one; their replies or live waits, in order, for the
        calls up to and including the first whose reply saved nothing (a refusal, a retry
        answered from before) or whose write failed: a loop that journals such replies does
        so, then passes the rest again. The async calls with new questions are saved in one
        write and fsync, all or none (if it fails, each of them gets ``storage_failed`` and
        the person one notice); any other call commits what is pending first, then is
        started alone. The journal's lines and the questions are those of the calls one by
        one (the timestamps one per write). A bad ``source`` raises :class:`ValueError`
        naming the fix, and nothing of the calls is saved."""
        batch = [Queued(call_id, arguments, calls.Asker(source)) for call_id, arguments in requests]
        decided = commit(self._state, batch, stop_unsaved=True)
        return tuple(queued.outcome() for queued in batch[:decided])

    async def finish_call(self, started: ToolReply | Wait) -> ToolReply:
        """The reply of a call :meth:`start_call` or :meth:`start_calls` started: at once,
        or once its wait ended; cancelled, the wait ends ``interrupted`` (journaled)."""
        return await calls.finish(self._state, started)

    def withdraw(self, question_ids: Sequence[str], reason: str = "") -> WithdrawReport:
        """Take back, per id, the questions still pending (journaled in one line; their drafts
        dropped; a wait on them ends ``withdrawn``). Never all or nothing: the report gives each
        id its :class:`~asks.contract.WithdrawOutcome` (``withdrawn``, ``already_answered`` —
        its answer still arrives once —, ``unknown``, or ``not_saved`` if the journal failed),
        and ``report.text`` is the tool result for the model."""
        return calls.withdraw(self._state, question_ids, reason, None)

    def pending_ids(self) -> tuple[str, ...]:
        """This agent's questions still pending (not answered, declined or withdrawn), in the
        order they were asked — a blocking question answered later (deferred) or whose wait was
        interrupted included: what :meth:`withdraw` can take back and what
        ``{"questionId": …}`` can wait on. Questions of hub agents are not listed."""
        projection = self._state.projection
        return tuple(ref.id for ref in projection.pending if projection.answer_to(ref) is None)

    def interrupt(self, reason: str = "the turn was interrupted") -> None:
        """End every live wait as ``interrupted``; questions stay pending (Ctrl+C, shutdown)."""
        interrupt(self._state, reason)

    # -- turns and feedback --------------------------------------------------------------
    def turn_started(self) -> None:
        """A turn runs: feedback is now delivered as ``steer`` (into the running turn)."""
        with self._state.operation():
            self._state.agent_running = True
            self._state.notify()

    def turn_ended(self) -> None:
        """The turn ended: what is saved meanwhile wakes the agent (``wake``)."""
        state = self._state
        with state.operation():
            state.agent_running = False
            state.outbox.signal()
            state.notify()

    def take_feedback(self) -> Feedback | None:
        """Drain this agent's outbox into one feedback message; its receipt is durable."""
        state = self._state
        refs = state.outbox.refs()
        if not refs:
            return None
        with state.operation():
            text = feedback_of(state.projection, refs)
            mode = DeliveryMode.STEER if state.agent_running else DeliveryMode.WAKE
            record = state.append(FeedbackDelivered(refs, text, mode.value))
            if record is None:
                return None
            questions, notes = split(state.projection, refs)
            state.emit(ev.Delivered(questions, ev.DeliveryChannel(mode.value), notes))
            state.notify()
            return Feedback(text, refs, mode, record.seq)

    def results_of(self, feedback: Feedback) -> tuple[QuestionResult, ...]:
        """The answers and declines ``feedback`` delivered, typed, in its order (each
        ``ANSWERED`` or ``DECLINED``; notes the person sent on their own are only in its text):
        what a program reads where the model reads ``feedback.text``."""
        projection = self._state.projection
        questions, _ = split(projection, feedback.refs)
        results = []
        for ref in questions:
            state = projection.by_ref[ref]
            if state.resolution is not None:
                results.append(question_result(state.question, state.resolution))
        return tuple(results)

    async def wait_for_feedback(self) -> None:
        """Return once something is deliverable (an idle agent awaits this to be woken)."""
        await self._state.outbox.wait_ready()

    def record_message(self, message: AgentRecord) -> bool:
        """Journal a chat message, or the person's decision at a permission prompt (a line of
        the visible chat, so a resumed transcript shows it; not in the model's context);
        False if it could not be saved."""
        with self._state.operation():
            return self._state.append(message) is not None

    # The names before the rename (asks.core.renamed): they warn, then do the same.
    start_call_nowait = renamed(start_call, "start_call_nowait")
    withdraw_nowait = renamed(withdraw, "withdraw_nowait")
    interrupt_nowait = renamed(interrupt, "interrupt_nowait")
    turn_started_nowait = renamed(turn_started, "turn_started_nowait")
    turn_ended_nowait = renamed(turn_ended, "turn_ended_nowait")
    take_feedback_nowait = renamed(take_feedback, "take_feedback_nowait")
    record_message_nowait = renamed(record_message, "record_message_nowait")
