"""One reply's tool calls, run for the agent loop (asks/agent/loop.py).

The calls *start* in call order — each call's line or card is drawn before the next call
starts (``nursery.start`` returns once a call drew it and reached its first wait) — then run
concurrently, as chat APIs allow. Each result enters the context as its call completes, the
order the journal holds.

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
            for call in calls:
                card: AskCard | None = await nursery.start(self._run, call)
                if card is not None and self.host.wait_of_call(call.id) is not None:
                    card.show()  # it is waiting: the host accepted it

    async def _run(self, call: ToolCall, task_status: trio.TaskStatus[AskCard | None]) -> None:
        if call.name == contract.TOOL_NAME:
            await self._ask(call, task_status)
            return
        tool = next((t for t in self.tools if t.name == call.name), None)
        line = self.transcript.add(
            EntryKind.TOOL, call_summary(call.name, call.arguments), call.name, done=False
        )
        task_status.started(None)
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

    async def _ask(self, call: ToolCall, task_status: trio.TaskStatus[AskCard | None]) -> None:
        arguments = contract.parse_arguments(call.arguments)
        if isinstance(arguments, contract.ToolError):
            task_status.started(None)
            reply: contract.ToolError | contract.ResultEnvelope = arguments
        else:
            card = AskCard(
                self.transcript, questions_summary(arguments, self._question_text), call.id
            )
            task_status.started(card)  # the caller shows the card if this call now waits
            before = self._journaled_result(call.id)
            reply = await self.host.ask(call.id, arguments)
            card.settle(accepted=not isinstance(reply, contract.ToolError))
        if isinstance(reply, contract.ToolError):
            self.record(Message("tool", reply.text, tool_call_id=call.id), False)
            self.transcript.add(EntryKind.ERROR, reply.text, "ask_user_question")
            return
        # the host journaled it (tool_result line), unless it answered a retry from before
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
