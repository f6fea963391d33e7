"""The Anthropic Messages model (Claude) through the official ``anthropic`` SDK.

``AsyncAnthropic`` runs under trio like the OpenAI SDK (httpx/anyio detect trio), so cancelling
the awaiting task (Ctrl+C) closes the in-flight connection at once. Same contract as
:mod:`asks.agent.openai_model`; what differs is the wire shape:

* **Lazy import.** ``anthropic`` is imported, and the client built, in a worker thread on the
  first model call or :meth:`AnthropicModel.warm_up` (:class:`~asks.agent.provider.LazyClient`).
* **Requests.** ``messages.create`` with ``model``, ``max_tokens`` and, in ``extra_body`` (merged
  into the JSON body as is, skipping the SDK's per-message transform), ``system`` (the shared
  :func:`~asks.agent.provider.system_prompt`), ``messages`` (:func:`anthropic_messages`) and
  ``tools`` (:func:`anthropic_tools`: the agent's function schemas as ``input_schema`` tools).
* **Context mapping.** A person's message and feedback are user text blocks; a model reply is
  an assistant message of a text block and ``tool_use`` blocks (``input`` = the call's JSON
  arguments); a tool result is a ``tool_result`` block in a user message (``is_error`` for a
  coded ``Error [...]`` result). Consecutive messages of one role are merged into one message
  (the API alternates roles), ``tool_result`` blocks first; empty replies are left out.
* **Streaming.** ``text_delta`` events are yielded as they arrive; a ``tool_use`` block's
  ``input_json_delta`` pieces are joined and the call is yielded when its block stops
  (complete, never half-built). A stream without ``message_stop`` was cut short: a
  `ModelError`. ``stop_reason`` ``end_turn``/``tool_use``/``stop_sequence`` end the reply
  normally; ``max_tokens``, ``refusal``, ``pause_turn`` and a full context window are reported
  as a :class:`~asks.agent.loop.ModelNotice`. ``[model] stream = false`` sends one request and
  yields the whole reply.
* **Errors** as for OpenAI (:func:`~asks.agent.provider.describe`): 401/403 name the key
  variable, 404 the model name, 429 and 529 (overloaded) are retried by the SDK
  (``max_retries``, ``Retry-After`` honoured) then reported "after N retries", as are 5xx and
  unreachable servers; an ``error`` event inside the stream and a cut stream are "broke off".
* **The key** (``x-api-key``, or a bearer header in newer SDKs) comes from
  :class:`~asks.agent.provider.Settings` only: the base URL and key are always passed
  explicitly, so the SDK's own environment variables and profiles are not consulted.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import attrs

from asks.agent.events import Message, ModelError, ModelEvent, ModelNotice, TextDelta, ToolCall
from asks.agent.provider import (
    STREAM_HINT,
    SdkModel,
    describe,
    is_provider_error,
    system_prompt,
)
from asks.core.i18n import N_, _

_STOP_NOTICES: Final = {  # shown to the person (translated), never in the context
    "max_tokens": N_("The reply was cut off at max_tokens ({max_tokens})."),
    "refusal": N_("The model declined to go on (stop_reason: refusal)."),
    "pause_turn": N_(
        "The server paused the turn (stop_reason: pause_turn); send a message to go on."),
    "model_context_window_exceeded": N_("The conversation no longer fits the model's context "
                                        "window."),
}


def anthropic_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's tools (OpenAI function shape) as Messages API tools."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        function = tool.get("function", tool)
        schema = function.get("parameters") or function.get("input_schema")
        out.append({"name": function["name"], "description": function.get("description", ""),
                    "input_schema": schema or {"type": "object", "properties": {}}})
    return out


def _input(arguments: str) -> dict[str, Any]:
    """A call's arguments as a ``tool_use`` input (an object, as the API requires)."""
    try:
        value = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"_unparsed_arguments": arguments}


def _blocks(m: Message) -> tuple[str, list[dict[str, Any]]]:
    if m.role == "assistant":
        blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
        blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)}
                   for c in m.tool_calls]
        return "assistant", blocks
    if m.role == "tool":
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.tool_call_id or "",
                                  "content": m.content}
        if m.content.startswith("Error ["):
            result["is_error"] = True
        return "user", [result]
    return "user", [{"type": "text", "text": m.content}] if m.content else []


def anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The context as Messages API messages (module docstring)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        role, blocks = _blocks(m)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    for message in out:  # tool results first in a user message (stable otherwise)
        message["content"].sort(key=lambda block: block["type"] != "tool_result")
    return out


@attrs.define
class _ToolBlock:
    id: str
    name: str
    parts: list[str] = attrs.Factory(list)
    initial: Any = None  # a non-empty ``input`` sent in content_block_start (not streamed)

    def done(self) -> ToolCall:
        arguments = "".join(self.parts)
        if not arguments.strip() and self.initial:
            arguments = json.dumps(self.initial, ensure_ascii=False)
        return ToolCall(self.id, self.name, arguments or "{}")


@attrs.define(eq=False)
class AnthropicModel(SdkModel):
    """A `Model` backed by the Anthropic Messages API (module docstring)."""

    def request(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for one model call."""
        body: dict[str, Any] = {"system": system_prompt(self.guidance),
                                "messages": anthropic_messages(messages)}
        if tools:
            body["tools"] = anthropic_tools(tools)
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return {"model": self.settings.model, "max_tokens": self.settings.max_tokens,
                "messages": [], "extra_body": body}

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        client = await self._client.get()
        request = self.request(messages, tools)
        started = False
        try:
            if not self.settings.stream:
                reply = await client.messages.create(**request)
                for event in self._whole_reply(reply):
                    yield event
                return
            response = await client.messages.create(**request, stream=True)
            started = True
            async with response:
                async for event in self._assembled(response):
                    yield event
        except ModelError:
            raise
        except Exception as exc:
            if not is_provider_error(exc, sys.modules.get("anthropic"), "AnthropicError"):
                raise
            raise ModelError(self.describe(exc, streaming=started)) from exc

    def _build_client(self) -> Any:
        import anthropic  # noqa: PLC0415 — lazy on purpose (module docstring)

        s = self.settings
        return anthropic.AsyncAnthropic(
            api_key=s.api_key, base_url=s.base_url, timeout=s.timeout, max_retries=s.max_retries
        )

    def describe(self, exc: BaseException, *, streaming: bool = False) -> str:
        return describe(exc, self.settings, sys.modules.get("anthropic"), streaming=streaming)

    def _notice(self, stop_reason: str | None) -> ModelNotice | None:
        text = _STOP_NOTICES.get(stop_reason or "")
        return ModelNotice(_(text).format(max_tokens=self.settings.max_tokens)) if text else None

    async def _assembled(self, response: AsyncIterator[Any]) -> AsyncIterator[ModelEvent]:
        """Text as it comes; each tool call when its block stops (module docstring)."""
        calls: dict[int, _ToolBlock] = {}
        stop_reason: str | None = None
        finished = False
        async for event in response:
            kind = getattr(event, "type", "")
            index = getattr(event, "index", 0)
            if kind == "content_block_start":
                block = event.content_block
                if block.type == "tool_use":
                    calls[index] = _ToolBlock(str(block.id), str(block.name),
                                              initial=getattr(block, "input", None))
                elif block.type == "text" and block.text:
                    yield TextDelta(str(block.text))
            elif kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta" and delta.text:
                    yield TextDelta(str(delta.text))
                elif delta.type == "input_json_delta" and index in calls:
                    calls[index].parts.append(str(delta.partial_json))
            elif kind == "content_block_stop" and index in calls:
                yield calls.pop(index).done()
            elif kind == "message_delta":
                stop_reason = getattr(event.delta, "stop_reason", None) or stop_reason
            elif kind == "message_stop":
                finished = True
        if not finished:
            raise ModelError("the reply stream ended before the model finished (connection "
                             f"cut?); {STREAM_HINT}")
        notice = self._notice(stop_reason)
        if notice is not None:
            yield notice

    def _whole_reply(self, reply: Any) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        for block in getattr(reply, "content", None) or ():
            if block.type == "text" and block.text:
                events.append(TextDelta(str(block.text)))
            elif block.type == "tool_use":
                arguments = json.dumps(block.input or {}, ensure_ascii=False)
                events.append(ToolCall(str(block.id), str(block.name), arguments))
        notice = self._notice(getattr(reply, "stop_reason", None))
        if notice is not None:
            events.append(notice)
        return events
