"""The hub's three tools, on the host's :class:`~asks.host.hub.HubPort`, without the MCP SDK
(docs/design.md, "The hub"; docs/fleet-scale.md, "The lean path for the hot calls").

Both carriers of a tool call run it here: the SDK's handlers (:mod:`asks.hub.tools`) and the
guard's lean path (:mod:`asks.hub.lean`), each with a :class:`CallSite` saying who asks and
how to reach the request.

* ``ask_user_question`` — the tool contract unchanged (blocking and async, ``{questionId}`` waits,
  the same validation and coded errors). While a blocking call waits, the site's ``progress`` is
  called every ``progress_every`` seconds (the SDK sends a progress notification when the call
  carried a ``progressToken``: Claude Code's idle watchdog resets on them). If the client cancels
  (the carrier cancels this call) or its connection goes away (the site's ``until_gone``), the
  wait ends ``interrupted`` — never declined — and the question stays pending; its answer reaches
  the agent at its next asks call. A blocking call of a client that declared MCP Tasks is answered
  as a task instead (the SDK's ``detach``; :mod:`asks.hub.tasks`).
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
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import attrs
import trio

from asks import contract
from asks.core.model import Outcome
from asks.host.hub import HubPort, Offer
from asks.host.waits import ToolReply, Wait
from asks.hub.asgi import Scope
from asks.hub.codexqueue import CodexCourier
from asks.hub.guard import carry, connection_gone
from asks.store.records import RecordUnreadable

ASK_TOOL: Final = "ask_user_question"
CHECK_TOOL: Final = contract.CHECK_TOOL
CALL_ID_META: Final = ("claudecode/toolUseId", "callId")  # what the clients send, if any
MAX_CALL_ID: Final = 120
# seconds between progress notifications of a blocking call: well under Claude Code's 30 s
# watchdog check
PROGRESS_EVERY: Final = 10.0
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
GONE_TEXT: Final = "The connection closed while waiting; the questions stay pending."

Detach = Callable[[str, str, Wait], dict[str, Any]]
"""Turns a live wait (label, call id, wait) into the ``tools/call`` result of a task."""


def tool_dicts() -> list[dict[str, Any]]:
    """The tools as MCP lists them, as plain JSON data (descriptions say how answers arrive)."""
    ask = contract.openai_tool()["function"]
    withdraw = contract.withdraw_tool()["function"]
    return [
        {
            "name": ask["name"],
            "description": ask["description"] + ARRIVAL,
            "inputSchema": ask["parameters"],
        },
        {
            "name": withdraw["name"],
            "description": withdraw["description"],
            "inputSchema": withdraw["parameters"],
        },
        {
            "name": CHECK_TOOL,
            "description": (
                "Collect the user's answers to your earlier asks questions that you have not "
                "received yet (each is given once), and list the ids still pending."
            ),
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    ]


def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input schema by name, as :func:`tool_dicts` lists it (the SDK checks a
    call's ``Mcp-Param-*`` headers against it; the list is the same for every agent)."""
    return {tool["name"]: tool["inputSchema"] for tool in tool_dicts()}


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


@attrs.frozen
class CallSite:
    """Where one tool call comes from: the agent's ``label``, the request's ASGI ``scope``
    (``None`` without HTTP) and JSON-RPC ``request_id``, its ``_meta``; ``until_gone``
    returns once the client is gone (``None``: never known); ``progress`` sends the n-th
    progress beat of a blocking wait (``None``: the call asked for none); ``detach`` answers
    a blocking call as a task (``None``: the client declared no tasks)."""

    label: str
    scope: Scope | None
    request_id: object
    meta: Mapping[str, Any] | None
    until_gone: Callable[[], Awaitable[object]] | None = None
    progress: Callable[[int], Awaitable[None]] | None = None
    detach: Detach | None = None


Outcome_ = tuple[str, bool] | dict[str, Any]
"""A call's text and whether it failed; or the task that answers it."""


@attrs.define(eq=False)
class HubCalls:
    """Runs one tool call for the agent behind a :class:`CallSite` (module docstring)."""

    port: HubPort
    progress_every: float = PROGRESS_EVERY
    courier: CodexCourier | None = None  # set: late answers go to Codex with codex queue

    async def run(self, site: CallSite, name: str, arguments: Mapping[str, Any]) -> Outcome_:
        """Run tool ``name`` with ``arguments`` for ``site``'s agent; its result text (the
        agent's feedback first) and whether it failed, or the task that answers it."""
        label = site.label
        self.port.seen(label)
        rewake = self.port.rewake
        rewake.call_started(label)
        if self.courier is not None:
            self.courier.call_started(label, site.meta)
        try:
            return await self._call(site, name, arguments)
        finally:
            if self.courier is not None:
                self.courier.call_ended(label)
            rewake.call_ended(label)

    async def _call(self, site: CallSite, name: str, arguments: Mapping[str, Any]) -> Outcome_:
        label = site.label
        match name:
            case "ask_user_question":
                asked = await self._ask(site, arguments)
                if isinstance(asked, dict):
                    return asked  # answered as a task: its result comes with tasks/get
                text, failed = asked
            case contract.WITHDRAW_TOOL:
                text, failed = self._withdraw(label, arguments)
            case "check_answers":
                text, failed = self._check(label, arguments)
            case other:
                text, failed = contract.unknown_tool(other).text, True
        gone = connection_gone(site.scope)
        if gone is not None and gone.is_set():  # no response can reach the client now
            return text, failed
        try:
            feedback = self.port.offer_feedback(label)
        except RecordUnreadable as exc:  # nothing journaled: the answers wait (fleet-scale.md)
            return f"{contract.record_unreadable(str(exc)).text}\n\n{text}", failed
        if feedback is not None:
            carry(site.scope, site.request_id, feedback, self.port)
            text = f"{feedback.text}\n\n{text}"
        elif name == CHECK_TOOL and not failed:
            text = f"No new answers.\n{text}"
        repeat = self.port.rewake.repeat_of(label)
        if repeat is not None:  # first, marked: never taken for a new answer
            text = f"{repeat}\n\n{text}"
        return text, failed

    async def _ask(self, site: CallSite, arguments: object) -> Outcome_:
        """The call's text and whether it failed; or, for a blocking call of a client that
        declared tasks, the task that answers it."""
        label, call_id = site.label, call_id_of(site.meta)
        started = await self.port.begin(label, call_id, arguments)
        if isinstance(started, Wait) and not started.done and site.detach is not None:
            return site.detach(label, call_id, started)
        reply = await self._wait(site, started)
        if reply is None:  # the client went away: the wait ended interrupted (journaled)
            return GONE_TEXT, True
        if isinstance(reply, contract.ToolError):
            return reply.text, True
        offer: Offer | None = self.port.result_offer(label, call_id)
        if offer is not None:
            carry(site.scope, site.request_id, offer, self.port)
        if reply.outcome in LATER:  # the contract says "feedback messages": say how, here
            return f"{reply.text}\n{HUB_LATER}", False
        return reply.text, False

    async def _wait(self, site: CallSite, started: ToolReply | Wait) -> ToolReply | None:
        """The call's reply: at once unless it waits; a wait lasts while its request does,
        with progress beats; ``None`` if the client went away first (the wait then ended
        interrupted)."""
        if not isinstance(started, Wait) or started.done:
            return await self.port.finish(started)
        reply: ToolReply | None = None
        async with trio.open_nursery() as nursery:
            if site.progress is not None:
                nursery.start_soon(self._progress, site.progress)
            if site.until_gone is not None:
                nursery.start_soon(_cancel_after, site.until_gone, nursery.cancel_scope)
            reply = await self.port.finish(started)
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

    async def _progress(self, beat: Callable[[int], Awaitable[None]]) -> None:
        beats = 0
        while True:
            await trio.sleep(self.progress_every)
            beats += 1
            await beat(beats)


async def _cancel_after(until: Callable[[], Awaitable[object]], scope: trio.CancelScope) -> None:
    await until()
    scope.cancel()
