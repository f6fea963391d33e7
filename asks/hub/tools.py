"""The hub's three tools, on the host's :class:`~asks.host.hub.HubPort` (docs/design.md, "The hub").

* ``ask_user_question`` — the tool contract unchanged (blocking and async, ``{questionId}`` waits,
  the same validation and coded errors). While a blocking call waits, a progress notification goes
  out every ``progress_every`` seconds when the call carried a ``progressToken`` (Claude Code's idle
  watchdog resets on them). If the client cancels (the SDK cancels this handler) or its connection
  goes away (:func:`~asks.hub.guard.connection_gone`), the wait ends ``interrupted`` — never
  declined — and the question stays pending; its answer reaches the agent at its next asks call. A
  blocking call of a client that declared MCP Tasks is answered as a task instead
  (:mod:`asks.hub.tasks`): its result comes with ``tasks/get``.
* ``withdraw_question`` — takes back the agent's own pending questions.
* ``check_answers`` — the agent's answers not delivered yet (each once), and its pending ids.

**Every** result begins with the agent's undelivered feedback (offered, then receipted when
the response was handed over: :mod:`asks.hub.guard`), so an agent that calls any asks tool
gets its answers — except a result whose client is gone already: nothing is offered to it.
``check_answers`` takes no arguments: any is refused (``invalid_arguments``), as the contract
refuses unknown keys everywhere. Texts for the model are English, as everywhere in the
contract. With a :class:`~asks.hub.codexqueue.CodexCourier`, each call tells it that the
agent's call runs (and its Codex thread), so a late answer is queued only while none runs.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any, Final

import attrs
import mcp_types as types
import trio

from asks import contract
from asks.core.model import Outcome
from asks.host.hub import HubPort, Offer
from asks.host.tasks import TASK_SILENCE_MS, TASK_TTL_MS
from asks.host.waits import ToolReply, Wait
from asks.hub.codexqueue import CodexCourier
from asks.hub.guard import bound_agent, carry, connection_gone
from asks.hub.identity import agent_label
from asks.hub.lazy import PROGRESS_EVERY
from asks.hub.tasks import TaskMethods, created, declares_tasks, now_ms

CHECK_TOOL: Final = contract.CHECK_TOOL
CALL_ID_META: Final = ("claudecode/toolUseId", "callId")  # what the clients send, if any
MAX_CALL_ID: Final = 120
_UNSAFE_ID: Final = re.compile(r"[^A-Za-z0-9._:-]+")
ARRIVAL: Final = (
    ' Through this MCP server, answers to questions asked with "blocking": false — or whose '
    "blocking call ended before the answer (you cancelled or timed out) — arrive at the start "
    f"of the result of your next call to any asks tool, each exactly once; call {CHECK_TOOL} "
    "to collect them. If your call times out, the question stays pending and is not declined."
)


LATER: Final = frozenset({Outcome.QUEUED, Outcome.DEFERRED, Outcome.INTERRUPTED})
HUB_LATER: Final = (
    f"Through asks' MCP server those answers start the result of your next call to any asks "
    f"tool; call {CHECK_TOOL} to collect them."
)


def tool_list() -> list[types.Tool]:
    """The tools as MCP lists them (descriptions say how answers arrive)."""
    ask = contract.openai_tool()["function"]
    withdraw = contract.withdraw_tool()["function"]
    check = types.Tool(
        name=CHECK_TOOL,
        description=(
            "Collect the user's answers to your earlier asks questions that you have not "
            "received yet (each is given once), and list the ids still pending."
        ),
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
    )
    return [
        types.Tool(
            name=ask["name"],
            description=ask["description"] + ARRIVAL,
            input_schema=ask["parameters"],
        ),
        types.Tool(
            name=withdraw["name"],
            description=withdraw["description"],
            input_schema=withdraw["parameters"],
        ),
        check,
    ]


def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema by name, as :func:`tool_list` lists it (the SDK checks a
    call's ``Mcp-Param-*`` headers against it; the list is the same for every agent)."""
    return {tool.name: tool.input_schema for tool in tool_list()}


def call_id_of(meta: Mapping[str, Any] | None) -> str:
    """The client's own id of this call if it sends one (a retry then maps to the same
    questions), else a fresh one. It is the client's text and reaches the journal and hook
    payloads: kept to letters, digits and ``._:-`` (anything else becomes ``-``), at most
    :data:`MAX_CALL_ID` characters."""
    for key in CALL_ID_META:
        value = meta.get(key) if meta is not None else None
        if isinstance(value, str) and (cleaned := _UNSAFE_ID.sub("-", value)[:MAX_CALL_ID]):
            return cleaned
    return f"r-{uuid.uuid4().hex[:16]}"


@attrs.define(eq=False)
class HubTools:
    """Runs one tool call for the agent behind the request (module docstring)."""

    port: HubPort
    progress_every: float = PROGRESS_EVERY
    task_ttl_ms: int = TASK_TTL_MS
    task_silence_ms: int = TASK_SILENCE_MS
    tasks: TaskMethods | None = None  # set: blocking asks become tasks where declared
    courier: CodexCourier | None = None  # set: late answers go to Codex with codex queue

    async def list_tools(self, _ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tool_list())

    def label_of(self, ctx: Any) -> str:
        """The label of the agent behind the request of ``ctx`` (:mod:`asks.hub.identity`)."""
        scope = getattr(ctx.request, "scope", None)
        return agent_label(bound_agent(scope), _headers(ctx), ctx.meta, _handshake_name(ctx))

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | dict[str, Any]:
        label = self.label_of(ctx)
        self.port.seen(label)
        rewake = self.port.rewake
        rewake.call_started(label)
        if self.courier is not None:
            self.courier.call_started(label, ctx.meta)
        try:
            return await self._call(ctx, label, params)
        finally:
            if self.courier is not None:
                self.courier.call_ended(label)
            rewake.call_ended(label)

    async def _call(
        self, ctx: Any, label: str, params: types.CallToolRequestParams
    ) -> types.CallToolResult | dict[str, Any]:
        meta: Mapping[str, Any] | None = ctx.meta
        scope = getattr(ctx.request, "scope", None)
        arguments = params.arguments if params.arguments is not None else {}
        match params.name:
            case "ask_user_question":
                asked = await self._ask(ctx, label, call_id_of(meta), arguments, scope)
                if isinstance(asked, dict):
                    return asked  # answered as a task: its result comes with tasks/get
                text, failed = asked
            case contract.WITHDRAW_TOOL:
                text, failed = self._withdraw(label, arguments)
            case "check_answers":
                text, failed = self._check(label, arguments)
            case other:
                text, failed = contract.unknown_tool(other).text, True
        gone = connection_gone(scope)
        if gone is not None and gone.is_set():  # no response can reach the client now
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], is_error=failed
            )
        feedback = self.port.offer_feedback(label)
        if feedback is not None:
            carry(scope, ctx.request_id, feedback, self.port)
            text = f"{feedback.text}\n\n{text}"
        elif params.name == CHECK_TOOL and not failed:
            text = f"No new answers.\n{text}"
        repeat = self.port.rewake.repeat_of(label)
        if repeat is not None:  # first, marked: never taken for a new answer
            text = f"{repeat}\n\n{text}"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=failed
        )

    async def _ask(
        self, ctx: Any, label: str, call_id: str, arguments: object, scope: Any
    ) -> tuple[str, bool] | dict[str, Any]:
        """The call's text and whether it failed; or, for a blocking call of a client that
        declared tasks, the task that answers it (:mod:`asks.hub.tasks`)."""
        reply: ToolReply | None
        if self.tasks is not None and declares_tasks(ctx):
            started = self.port.start_call(label, call_id, arguments)
            if isinstance(started, Wait) and not started.done:
                task = self.port.tasks.detach(
                    label,
                    call_id,
                    started,
                    now_ms=now_ms(),
                    ttl_ms=self.task_ttl_ms,
                    silence_ms=self.task_silence_ms,
                )
                self.tasks.started()
                return created(task)
            reply = started.reply if isinstance(started, Wait) else started
        else:
            reply = await self._wait(ctx, label, call_id, arguments, scope)
        if reply is None:  # the client went away: the wait ended interrupted (journaled)
            return "The connection closed while waiting; the questions stay pending.", True
        if isinstance(reply, contract.ToolError):
            return reply.text, True
        offer: Offer | None = self.port.result_offer(label, call_id)
        if offer is not None:
            carry(scope, ctx.request_id, offer, self.port)
        if reply.outcome in LATER:  # the contract says "feedback messages": say how, here
            return f"{reply.text}\n{HUB_LATER}", False
        return reply.text, False

    async def _wait(
        self, ctx: Any, label: str, call_id: str, arguments: object, scope: Any
    ) -> ToolReply | None:
        """Run the call while its request lasts: progress while it waits; ``None`` if the
        client went away first (the wait then ended interrupted)."""
        reply: ToolReply | None = None
        async with trio.open_nursery() as nursery:
            if ctx.meta is not None and ctx.meta.get("progress_token") is not None:
                nursery.start_soon(self._progress, ctx)
            gone = connection_gone(scope)
            if gone is not None:
                nursery.start_soon(_cancel_when_set, gone, nursery.cancel_scope)
            reply = await self.port.ask(label, call_id, arguments)
            nursery.cancel_scope.cancel()
        return reply

    def _check(self, label: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        if arguments:
            return contract.takes_no_arguments(CHECK_TOOL, sorted(arguments)).text, True
        pending = self.port.pending_ids(label)
        return "Pending: " + (", ".join(pending) if pending else "none") + ".", False

    def _withdraw(self, label: str, arguments: object) -> tuple[str, bool]:
        request = contract.validate_withdraw(arguments)
        if isinstance(request, contract.ToolError):
            return request.text, True
        report = self.port.withdraw(label, list(request.question_ids), request.reason)
        return report.text, not report.withdrawn

    async def _progress(self, ctx: Any) -> None:
        beats = 0
        while True:
            await trio.sleep(self.progress_every)
            beats += 1
            await ctx.session.report_progress(beats, None, "waiting for the user's answer")


async def _cancel_when_set(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


def _headers(ctx: Any) -> Mapping[str, str] | None:
    return getattr(ctx.request, "headers", None)


def _handshake_name(ctx: Any) -> str | None:
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    return name if isinstance(name, str) else None
