"""One reply's tool calls, run for the agent loop (asks/agent/loop.py).

The calls *start* in call order, in **segments** (docs/fleet-scale.md, "Group commit of the
agent loop's calls") — each segment's lines or cards are drawn before the next segment starts
— then run concurrently, as chat APIs allow. Each result enters the context as its call
completes, the order the journal holds.

* A segment of asks: a run of consecutive ``ask_user_question`` calls whose arguments parse.
  They start in one synchronous step (:meth:`AgentPort.start_calls`: the async ones saved in
  one write and fsync, all or none; the others alone, in order), then each is handled in call
  order with no checkpoint between: a reply given at once → its card, its tool message, its
  result card; a live wait → its card, and a task that awaits it. So the replies given at
  once enter the context in call order, and the panel and transcript are drawn once.
* Any other call is a segment of its own (``nursery.start`` returns once it drew its line
  and reached its first wait); an ask whose arguments do not parse gets its error at once.

* Another tool: its line ``⚙ name · args`` is open while it runs and ends with its result
  (``→ …``), ``→ interrupted``, or ``→ failed`` (the exception goes up: the turn's error line
  says how). An unknown tool gets ``unknown_tool``. While it runs it may ask the person
  (:meth:`ToolRun.confirm`): the decision is journaled (``permission_decided``) and is a
  transcript entry of its own, where a resumed transcript shows it again. It closes the call's
  line, and the result comes on a line of its own after it (``⚙ name → …``): what a command
  did is never drawn above the decision that let it run.
* ``ask_user_question``: served by the host. A ``? asked:`` card is drawn only for a call the
  host accepted (questions asked or a wait opened: :class:`AskCard`); a refused call shows its
  error instead. Its result is journaled by the host (``tool_result``) — except a retry the
  host answers from an earlier result, which the loop journals — and its card is the person's
  summary (asks/agent/lines.py); the model's text enters the context unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import trio

from asks import contract
from asks.agent.events import Message, ToolCall
from asks.agent.hints import AnswerHints
from asks.agent.lines import (
    call_summary,
    decided_result,
    outcome_summary,
    questions_summary,
    result_summary,
)
from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.host.agentport import AgentPort
from asks.host.waits import ToolReply, Wait
from asks.store.entries import PermissionDecided, ToolResult

if TYPE_CHECKING:
    from asks.agent.loop import Tool


@attrs.frozen
class ToolCalls:
    """Runs tool calls for the loop; ``record`` puts a tool message into the context, and
    journals it unless the host already did (``journaled``)."""

    host: AgentPort
    transcript: Transcript
    tools: Sequence[Tool]
    confirm: Callable[[str], Any]  # async (text) -> bool: the foreign-prompt broker
    hints: AnswerHints
    record: Callable[[Message, bool], None]  # (message, journaled)

    async def run(self, calls: Sequence[ToolCall]) -> None:
        """Run one reply's calls (module docstring)."""
        async with trio.open_nursery() as nursery:
            asks: list[tuple[ToolCall, object]] = []  # the segment of asks being gathered
            for call in calls:
                arguments: object | contract.ToolError = None
                if call.name == contract.TOOL_NAME:
                    arguments = contract.parse_arguments(call.arguments)
                    if not isinstance(arguments, contract.ToolError):
                        asks.append((call, arguments))
                        continue
                self._ask_all(asks, nursery)
                asks = []
                if isinstance(arguments, contract.ToolError):
                    self._replied(call, None, None, arguments)  # arguments that do not parse
                else:
                    await nursery.start(self._run, call)
            self._ask_all(asks, nursery)

    async def _run(self, call: ToolCall, task_status: trio.TaskStatus[None]) -> None:
        """Another tool than ``ask_user_question``: its line, drawn before the next call."""
        tool = next((t for t in self.tools if t.name == call.name), None)
        line = self.transcript.add(
            EntryKind.TOOL, call_summary(call.name, call.arguments), call.name, done=False
        )
        task_status.started()
        text = "interrupted"
        try:
            if tool is None:
                text = contract.unknown_tool(call.name).text
            else:
                run = ToolRun(self.host, self.transcript, self.confirm, call.id, line)
                text = await tool.run(call, run)
        except Exception:
            text = "failed"  # the turn's error line says how
            raise
        finally:
            self._ended(line, call.name, text)
        self.record(Message("tool", text, tool_call_id=call.id), False)

    def _ended(self, line: Entry, name: str, text: str) -> None:
        """The call's result on its line, or — the line was closed by a permission decision
        — on a line of its own after the decision (:meth:`ToolRun.confirm`)."""
        if line.done:
            self.transcript.add(EntryKind.TOOL, decided_result(name, text), name)
        else:
            self.transcript.finish(line, f" → {outcome_summary(text)}")

    def _ask_all(self, asks: Sequence[tuple[ToolCall, object]], nursery: trio.Nursery) -> None:
        """Start a segment of asks (module docstring): saved together, then each call
        handled in call order; a live wait is awaited in a task of ``nursery``. A reply the
        host did not save (a refusal, a retry answered from before, a failed write) is
        journaled here before the calls after it are started."""
        while asks:
            before = [self._journaled_result(call.id) for call, _ in asks]
            started = self.host.start_calls([(call.id, arguments) for call, arguments in asks])
            for (call, arguments), earlier, reply in zip(asks, before, started, strict=False):
                card = AskCard(
                    self.transcript, questions_summary(arguments, self._question_text), call.id
                )
                given = reply.reply if isinstance(reply, Wait) else reply
                if given is None:  # a live wait (one whose questions had ended has its reply)
                    card.show()  # it is waiting: the host accepted it
                    nursery.start_soon(self._awaited, call, card, earlier, reply)
                else:
                    self._replied(call, card, earlier, given)
            asks = asks[len(started) :]

    async def _awaited(
        self, call: ToolCall, card: AskCard, before: ToolResult | None, wait: ToolReply | Wait
    ) -> None:
        """A blocking call's reply, once its wait ended (cancelled: ``interrupted``)."""
        self._replied(call, card, before, await self.host.finish_call(wait))

    def _replied(
        self, call: ToolCall, card: AskCard | None, before: ToolResult | None, reply: ToolReply
    ) -> None:
        """An ask's reply into the context (journaled by the host unless it answered a retry
        from before: ``before`` is the call's result before it started) and the transcript."""
        if card is not None:
            card.settle(accepted=not isinstance(reply, contract.ToolError))
        if isinstance(reply, contract.ToolError):
            self.record(Message("tool", reply.text, tool_call_id=call.id), False)
            self.transcript.add(EntryKind.ERROR, reply.text, "ask_user_question")
            return
        journaled = self._journaled_result(call.id) is not before
        self.record(Message("tool", reply.text, tool_call_id=call.id), journaled)
        summary = result_summary(reply, self.hints)
        self.transcript.add(EntryKind.RESULT, summary, reply.outcome.value)

    def _journaled_result(self, call_id: str) -> ToolResult | None:
        state = self.host.projection.calls.get(call_id)
        return None if state is None else state.result

    def _question_text(self, question_id: str) -> str | None:
        ref = self.host.projection.current.get(question_id)
        return None if ref is None else self.host.question(ref).spec.question


class AskCard:
    """The ``? asked:`` card of one call, drawn once the host accepted the call: when it is
    seen waiting (:meth:`show`) or when its reply is a result (:meth:`settle`); never for a
    refused call."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("call_id", "settled", "text", "transcript")

    def __init__(
        self, transcript: Transcript, text: str, call_id: str, settled: bool = False
    ) -> None:
        self.transcript = transcript
        self.text = text
        self.call_id = call_id
        self.settled = settled

    def show(self) -> None:
        if not self.settled:
            self.settled = True
            self.transcript.add(EntryKind.QUESTION, self.text, self.call_id)

    def settle(self, *, accepted: bool) -> None:
        if accepted:
            self.show()
        self.settled = True


class ToolRun:
    """The :class:`~asks.agent.loop.ToolContext` of one tool call: the agent's host and
    transcript, and a confirm that records the person's decision (module docstring)."""

    __slots__ = ("_confirm", "call_id", "host", "line", "transcript")

    def __init__(
        self,
        host: AgentPort,
        transcript: Transcript,
        confirm: Callable[[str], Any],
        call_id: str = "",
        line: Entry | None = None,
    ) -> None:
        self.host = host
        self.transcript = transcript
        self._confirm = confirm
        self.call_id = call_id
        self.line = line  # the call's ``⚙`` line, open while it runs

    async def confirm(self, text: str) -> bool:
        """Ask the person; the decision is journaled and drawn after the call's line, which
        it closes: what the command then does comes after the decision, never above it."""
        allowed = bool(await self._confirm(text))
        self.host.record_message(PermissionDecided(self.call_id, text, allowed))
        if self.line is not None and not self.line.done:
            self.transcript.finish(self.line)
        self.transcript.add(EntryKind.DECISION, text, "allowed" if allowed else "denied")
        return allowed
