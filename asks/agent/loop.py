"""The agent loop: turns that stream model output, run tools, steer and wake (docs/design.md).

A **turn** starts from a user message, from feedback waking an idle agent, or (for a model that
asks for it) from the start of a new session. It repeats: drain saved feedback into the context
(*steer*) → call the model, streaming text into the transcript → run the tool calls in order
→ until the model answers without tool calls.

Invariants:

* Feedback is drained before **every** model call of a turn, never in the middle of one.
* Every tool call in the context gets exactly one tool result, also when the turn is
  interrupted (Ctrl+C): unanswered calls get an ``interrupted`` result and live waits end as
  ``interrupted`` (questions stay pending).
* A failing model or tool never ends the loop: the error goes to the transcript, the turn ends,
  the REPL stays usable. A :class:`ModelError` (a provider failure) shows its one-line message;
  any other exception is a bug: one line ``Type: message (details: …)`` (the exception inside
  a nursery's group, the failed tool's line ending ``→ failed``), its traceback in the debug
  log (asks/core/diagnostics.py), as is a provider failure's error chain.
  A reply broken by such an error stays on screen but does not enter the context; an
  interrupted one (Ctrl+C) enters it with what was streamed; an empty one says so.
* Every reply passes the provider edge once (asks/agent/reply.py, asks/agent/edge.py): text and
  calls made encodable, JSON punctuation beside tool calls dropped, call ids made unique except
  for a true retry of a still-open ask call.
* The tools offered are the other tools that need no UI, then — only while the host has a UI
  (``host.ui_attached``) — ``ask_user_question`` (with the configured guidance) and the tools
  marked ``needs_ui`` (``withdraw_question``): the prefix is the same in every mode. A call to
  ``ask_user_question`` is served by the host either way (without a UI: ``no_ui``).
* Conversation messages are journaled (``chat_message``); ``ask_user_question`` results and
  feedback are journaled by the host (``tool_result``/``feedback_delivered``) — a retry the
  host answers from an earlier result is journaled by the loop — so
  :func:`context_from_journal` rebuilds exactly what the model saw. A resumed context is
  built at its first read (:attr:`Agent.messages`: the first turn), with a result for every
  call the last run left open (asks/agent/context.py).
* Transcript: a message the person sends is shown queued at once and becomes an ordinary user
  line when its turn reads it (asks/agent/transcript.py). One reply's tool calls (run by
  asks/agent/toolcalls.py) *start* in call order (a run of ``ask_user_question`` calls
  together, saved in one write; each other call's line is drawn before the next call
  starts), then run concurrently. A tool's line (``⚙ name · args``) is open while it
  runs and ends with its result (``→ …``) or ``→ interrupted``. A ``? asked:`` card is drawn
  only for a call the host accepted (questions asked or a wait opened); a refused call shows its
  error instead. A permission decision (allowed/denied) is a transcript entry of its own. Result
  and feedback cards are the person's summaries (asks/agent/lines.py: answers, pending ids, the
  outcome in words); the model's texts go into the context and the journal unchanged.
"""

from __future__ import annotations

import enum
import math
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Protocol

import attrs
import trio

from asks import contract
from asks.agent.context import FEEDBACK_ROLE, context_from_journal
from asks.agent.edge import assign_ids
from asks.agent.events import Message, ModelError, ModelEvent, ModelNotice, TextDelta, ToolCall
from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.lines import (
    feedback_summary,
)
from asks.agent.reply import SAID_NOTHING, ReplyReader
from asks.agent.toolcalls import ToolCalls
from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.core import diagnostics
from asks.core.i18n import _
from asks.core.listeners import Signal
from asks.host.agentport import AgentPort
from asks.store.entries import ChatMessage

WAKE_RETRY = 1.0  # seconds before retrying a wake whose receipt could not be written
WAKE_RETRY_MAX = 30.0  # … doubling up to this (a full disk must not make the agent spin)
__all__ = [
    "FEEDBACK_ROLE",
    "Message",
    "ModelError",
    "ModelEvent",
    "ModelNotice",
    "TextDelta",
    "ToolCall",
    "context_from_journal",
]


class Model(Protocol):
    """Streams one reply for a context: text deltas and complete tool calls."""

    @property
    def name(self) -> str: ...

    @property
    def opens_sessions(self) -> bool:
        """Wants a first turn when a new session starts."""
        ...

    def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]: ...


class ToolContext(Protocol):
    """What a tool may use while it runs."""

    host: AgentPort
    transcript: Transcript

    async def confirm(self, text: str) -> bool: ...


class Tool(Protocol):
    @property
    def name(self) -> str: ...

    def schema(self) -> dict[str, Any]: ...

    async def run(self, call: ToolCall, context: ToolContext) -> str: ...


class AgentState(enum.StrEnum):
    IDLE = "idle"
    WORKING = "working"
    ABSENT = "absent"  # no agent runs in this session (``asks hub``: asks/agent/absent.py)


class Sent(enum.StrEnum):
    """What came of a chat line given to an agent (:meth:`Agent.send`)."""

    QUEUED = "queued"  # a turn reads it
    HANDLED = "handled"  # done at once, nothing for a turn (asks hub: a note saved)
    REFUSED = "refused"  # nothing was sent (asks hub: no such agent): the line is the person's


class TurnOutcome(enum.StrEnum):
    """How a turn ended: the model answered without tool calls, it was interrupted, or a
    model/tool error ended it."""

    FINISHED = "finished"
    INTERRUPTED = "interrupted"
    FAILED = "failed"


class Agent:
    """Runs turns for one session (see module docstring)."""

    # A plain class, not attrs: building one is ~1 M instructions of every launch.
    __slots__ = (
        "_changes",
        "_inbox",
        "_inbox_send",
        "_messages",
        "_restore",
        "_turn_scope",
        "confirm",
        "guidance",
        "hints",
        "host",
        "model",
        "state",
        "tools",
        "transcript",
    )

    def __init__(
        self,
        host: AgentPort,
        model: Model,
        tools: Sequence[Tool],
        transcript: Transcript,
        confirm: Callable[[str], Any],  # async (text) -> bool: the foreign-prompt broker
        *,
        messages: list[Message] | None = None,
        guidance: contract.Guidance = contract.DEFAULT_GUIDANCE,
        hints: AnswerHints = LINE_HINTS,  # how the person answers on this surface (result cards)
        state: AgentState = AgentState.IDLE,
        restore: tuple[Callable[[], list[Message]], str | None] | None = None,
    ) -> None:
        self.host = host
        self.model = model
        self.tools = tools
        self.transcript = transcript
        self.confirm = confirm
        self._messages: list[Message] = [] if messages is None else messages
        self.guidance = guidance
        self.hints = hints
        self.state = state
        self._inbox_send: trio.MemorySendChannel[Entry]  # queued messages
        self._inbox: trio.MemoryReceiveChannel[Entry]
        self._inbox_send, self._inbox = trio.open_memory_channel[Entry](math.inf)
        self._turn_scope: trio.CancelScope | None = None
        self._changes = Signal()
        # a context not built yet: (its builder, the reason its open calls are closed with, if)
        self._restore = restore

    @property
    def messages(self) -> list[Message]:
        """The model's context. A resumed one is built at its first read (the first turn):
        the journal's messages, then a result for every call the last run left open, journaled
        (:meth:`close_open_calls`); the same context an eager build gives (module docstring)."""
        if self._restore is not None:
            build, reason = self._restore
            self._restore = None
            self._messages = build()
            if reason is not None:
                self.close_open_calls(reason)
        return self._messages

    # -- the UI side ---------------------------------------------------------------------
    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns an unsubscribe function."""
        return self._changes.subscribe(listener)

    @property
    def opens_sessions(self) -> bool:
        return self.model.opens_sessions

    def addressees(self) -> tuple[str, ...]:
        return ()  # nobody else is written to from this agent's chat

    def send(self, text: str) -> Sent:
        """The person sent a chat message; it starts (or queues for) the next turn. It is
        shown as queued at once, and as an ordinary user line when its turn reads it."""
        self._inbox_send.send_nowait(self.transcript.queue(text))
        return Sent.QUEUED

    def interrupt(self) -> bool:
        """Ctrl+C: cancel the running turn. Returns False when there was none."""
        if self._turn_scope is None:
            return False
        self._turn_scope.cancel()
        return True

    # -- the loop --------------------------------------------------------------------------
    async def run(self, *, opening_turn: bool = False) -> None:
        """Serve forever: user messages and feedback wakes, one turn at a time."""
        if opening_turn and self.model.opens_sessions:
            await self._turn(None)
        backoff = 0.0
        while True:
            message = await self._next_trigger(backoff)
            if message is None:
                # while still idle: the host marks this delivery a *wake*
                if not self._steer():  # its receipt could not be written (storage): no turn,
                    backoff = min(max(2 * backoff, WAKE_RETRY), WAKE_RETRY_MAX)  # try later
                    continue
                backoff = 0.0
            await self._turn(message)

    async def _next_trigger(self, feedback_after: float = 0.0) -> Entry | None:
        """The next queued user message, or ``None`` when saved feedback wakes the agent (not
        before ``feedback_after`` seconds: the back-off after a wake whose receipt failed)."""
        try:
            return self._inbox.receive_nowait()
        except trio.WouldBlock:
            pass
        result: list[Entry | None] = []
        async with trio.open_nursery() as nursery:

            async def user() -> None:
                result.append(await self._inbox.receive())
                nursery.cancel_scope.cancel()

            async def feedback() -> None:
                await trio.sleep(feedback_after)
                await self.host.wait_for_feedback()
                result.append(None)
                nursery.cancel_scope.cancel()

            nursery.start_soon(user)
            nursery.start_soon(feedback)
        return result[0]

    async def run_turn(self, user_text: str) -> TurnOutcome:
        """Run one turn for a user message, outside :meth:`run` (the non-interactive mode)."""
        return await self._turn(user_text)

    def offered_tools(self) -> list[dict[str, Any]]:
        """The tool schemas of the next model call (module docstring): the tools that work
        without a UI first, so the list (a prompt-cache prefix) is the same in every mode."""
        always = [t.schema() for t in self.tools if not getattr(t, "needs_ui", False)]
        if not self.host.ui_attached:
            return always
        with_ui = [t.schema() for t in self.tools if getattr(t, "needs_ui", False)]
        return [*always, contract.openai_tool(self.guidance), *with_ui]

    async def _turn(self, user: Entry | str | None) -> TurnOutcome:
        """One turn for a queued message, a message given directly (``run_turn``) or a wake."""
        self._set_state(AgentState.WORKING)
        self.host.turn_started()
        if user is not None:
            text = user.text if isinstance(user, Entry) else user
            self._append(Message("user", text))
            if isinstance(user, Entry):
                self.transcript.take(user)  # no longer queued: read here, where it is journaled
            else:
                self.transcript.add(EntryKind.USER, text)
        outcome = TurnOutcome.FINISHED
        try:
            with trio.CancelScope() as scope:
                self._turn_scope = scope
                await self._steps()
            if scope.cancelled_caught:
                self._interrupted()
                outcome = TurnOutcome.INTERRUPTED
        except ModelError as exc:  # a provider failure: its line, the error chain in the log
            diagnostics.logger(__name__).warning("model error: %s", exc, exc_info=exc)
            self.transcript.add(EntryKind.ERROR, diagnostics.with_details(str(exc)), "model error")
            self.close_open_calls("the turn failed")
            outcome = TurnOutcome.FAILED
        except Exception as exc:  # a bug (here, in a model or a tool): one line, the traceback
            line = diagnostics.unexpected(exc, __name__, "the turn failed")
            self.transcript.add(EntryKind.ERROR, line, "agent error")
            self.close_open_calls("the turn failed")
            outcome = TurnOutcome.FAILED
        finally:
            self._turn_scope = None
            self.host.turn_ended()
            self._set_state(AgentState.IDLE)
        return outcome

    async def _steps(self) -> None:
        while True:
            self._steer()
            calls = await self._model_call()
            if not calls:
                return
            await self._run_tools(calls)

    async def _run_tools(self, calls: Sequence[ToolCall]) -> None:
        """One reply's tool calls (asks/agent/toolcalls.py)."""
        run = ToolCalls(
            self.host, self.transcript, self.tools, self.confirm, self.hints, self._tool_message
        )
        await run.run(calls)

    def _steer(self) -> bool:
        """Take saved feedback into the context; False if there was none to take (nothing
        saved, or its receipt could not be journaled: then it stays in the outbox)."""
        feedback = self.host.take_feedback()
        if feedback is None:
            return False
        self.messages.append(Message(FEEDBACK_ROLE, feedback.text))  # journaled as receipt
        summary = feedback_summary(self.host.projection, feedback.refs)  # the person's words
        self.transcript.add(EntryKind.FEEDBACK, summary, feedback.mode.value)
        return True

    async def _model_call(self) -> tuple[ToolCall, ...]:
        """One model call read through the provider edge (asks/agent/reply.py). A completed
        or interrupted reply enters the context; a broken one (a provider error mid-stream)
        stays on screen only, so the model is never fed a fragment as its own words."""
        reader = ReplyReader(self.transcript, self.model.name)
        try:
            async for event in self.model.stream(list(self.messages), self.offered_tools()):
                reader.add(event)
        except Exception:
            reader.close()
            raise
        except BaseException:  # interrupted (Ctrl+C): keep what the model said so far
            reader.close()
            self._append(
                Message("assistant", reader.text(complete=False), self._unique(reader.calls))
            )
            raise
        reader.close()
        calls = self._unique(reader.calls)
        text = reader.text(complete=True)
        self._append(Message("assistant", text, calls))
        if not text and not calls:
            self.transcript.add(EntryKind.NOTICE, _(SAID_NOTHING))
        return calls

    def _unique(self, calls: Sequence[ToolCall]) -> tuple[ToolCall, ...]:
        """Unique call ids but for true retries (asks/agent/edge.py)."""
        earlier = [c for m in self.messages for c in m.tool_calls]
        return tuple(
            assign_ids(
                calls, earlier, self._still_open, lambda call, new: attrs.evolve(call, id=new)
            )
        )

    def _still_open(self, call_id: str) -> bool:
        """An ask call whose questions are (some of them) still pending."""
        state = self.host.projection.calls.get(call_id)
        pending = self.host.projection.pending
        return state is not None and any(ref in pending for ref in state.refs)

    # -- interruption ----------------------------------------------------------------------
    def _interrupted(self) -> None:
        self.host.interrupt("the person interrupted the turn (Ctrl+C)")
        self.close_open_calls("interrupted by the person (Ctrl+C)")
        self.transcript.add(EntryKind.NOTICE, _("Interrupted. Pending questions stay open."))

    def close_open_calls(self, reason: str) -> None:
        """Give every tool call in the context a result if it has none (after an interrupt,
        a failed turn, or a crash found at resume): chat APIs refuse unanswered calls. The
        results the host journaled come first, in journal order (interrupted waits end in
        the order their tasks were cancelled), then the others, journaled now: the context
        stays what the journal rebuilds."""
        answered = {m.tool_call_id for m in self.messages if m.role == "tool"}
        calls = [c for m in self.messages if m.role == "assistant" for c in m.tool_calls]
        open_calls = [call for call in calls if call.id not in answered]
        saved = []  # (its result's record, its result): journaled by the host
        for call in open_calls:
            state = self.host.projection.calls.get(call.id)
            if state is not None and state.result is not None:
                saved.append((state.result_in, call.id, state.result.text))
        for _record, call_id, text in sorted(saved):  # journal order (waits end in any order)
            self.messages.append(Message("tool", text, tool_call_id=call_id))
        done = {call_id for _record, call_id, _text in saved}
        for call in open_calls:
            if call.id not in done:
                self._append(
                    Message("tool", contract.interrupted(reason).text, tool_call_id=call.id)
                )

    # -- plumbing --------------------------------------------------------------------------
    def _append(self, message: Message) -> None:
        """Add to the context and journal it as a chat message."""
        self.messages.append(message)
        calls: tuple[dict[str, Any], ...] = tuple(
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls
        )
        if message.tool_call_id is not None:
            calls += ({"tool_call_id": message.tool_call_id},)
        self.host.record_message(ChatMessage(message.role, message.content, calls))

    def _tool_message(self, message: Message, journaled: bool) -> None:
        """A tool's result into the context; journaled here unless the host did."""
        if journaled:
            self.messages.append(message)
        else:
            self._append(message)

    def _set_state(self, state: AgentState) -> None:
        self.state = state
        self._changes.emit()
