"""The Anthropic Messages model (Claude), through the thin httpx client of the OpenAI one.

:mod:`asks.agent.chat_client` does the HTTP (retries, timeouts, server-sent events, error
classes) under trio, so cancelling the awaiting task (Ctrl+C) closes the in-flight connection at
once. (This was once the official ``anthropic`` SDK: ~53 MiB of RSS and ~0.9 s of CPU
to import, bench/provider_bench.py.) Same contract as :mod:`asks.agent.openai_model`; what
differs is the wire shape:

* **Lazy import.** httpx is imported, and the client built, in a worker thread on the first
  model call or :meth:`AnthropicModel.warm_up` (:class:`~asks.agent.http_model.HttpModel`).
* **Requests.** ``POST {base_url}/v1/messages`` with the key as a bearer token and
  ``anthropic-version`` (:data:`API_VERSION`, as the SDK 2.14 sent them); the body:
  ``model``, ``max_tokens``, ``system`` (the shared :func:`~asks.agent.provider.system_prompt`),
  ``messages`` (:func:`anthropic_messages`), ``tools`` (:func:`anthropic_tools`: the agent's
  function schemas as ``input_schema`` tools), ``temperature`` when configured, and
  ``"stream": true`` unless ``[model] stream = false``.
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
* **Errors** as for OpenAI (:func:`~asks.agent.http_model.describe`): 401/403 name the key
  variable, 404 the model name, 429 and 529 (overloaded) are retried (``max_retries``,
  ``Retry-After`` honoured) then reported "after N retries", as are 5xx and unreachable
  servers; an ``error`` event inside the stream and a cut stream are "broke off".
* **The key** comes from :class:`~asks.agent.provider.Settings` only (no environment variables
  or profiles of the SDK are consulted) and lives in the client's headers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any, ClassVar, Final

import attrs

from asks.agent.events import Message, ModelEvent, ModelNotice, TextDelta, ToolCall
from asks.agent.http_errors import StreamCutError
from asks.agent.http_model import HttpModel
from asks.agent.provider import system_prompt
from asks.core.i18n import N_, _

API_VERSION: Final = "2026-10-21"  # the anthropic-version the SDK 2.14 sent
_STOP_NOTICES: Final = {  # shown to the person (translated), never in the context
    "max_tokens": N_("The reply was cut off at max_tokens ({max_tokens})."),
    "refusal": N_("The model declined to go on (stop_reason: refusal)."),
    "pause_turn": N_(
        "The server paused the turn (stop_reason: pause_turn); send a message to go on."
    ),
    "model_context_window_exceeded": N_(
        "The conversation no longer fits the model's context window."
    ),
}


def anthropic_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's tools (OpenAI function shape) as Messages API tools."""
    out: list[dict[str, Any]] = []
    for tool in tools:
        function = tool.get("function", tool)
        schema = function.get("parameters") or function.get("input_schema")
        out.append(
            {
                "name": function["name"],
                "description": function.get("description", ""),
                "input_schema": schema or {"type": "object", "properties": {}},
            }
        )
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
        blocks += [
            {"type": "tool_use", "id": c.id, "name": c.name, "input": _input(c.arguments)}
            for c in m.tool_calls
        ]
        return "assistant", blocks
    if m.role == "tool":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": m.tool_call_id or "",
            "content": m.content,
        }
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
class AnthropicModel(HttpModel):
    """A `Model` backed by the Anthropic Messages API (module docstring)."""

    PATH: ClassVar[str] = "/v1/messages"

    def headers(self) -> dict[str, str]:
        return {
            "authorization": f"Bearer {self.settings.api_key}",
            "anthropic-version": API_VERSION,
        }

    def request(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        """The JSON body of the Messages request for one model call."""
        body: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": self.settings.max_tokens,
            "system": system_prompt(self.guidance),
            "messages": anthropic_messages(messages),
        }
        if tools:
            body["tools"] = anthropic_tools(tools)
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        if self.settings.stream:
            body["stream"] = True
        return body

    def _notice(self, stop_reason: object) -> ModelNotice | None:
        text = _STOP_NOTICES.get(stop_reason) if isinstance(stop_reason, str) else None
        return ModelNotice(_(text).format(max_tokens=self.settings.max_tokens)) if text else None

    async def assembled(self, events: AsyncIterator[Any]) -> AsyncIterator[ModelEvent]:
        """Text as it comes; each tool call when its block stops (module docstring)."""
        calls: dict[int, _ToolBlock] = {}
        stop_reason: object = None
        finished = False
        async for event in events:
            if not isinstance(event, dict):
                continue
            kind, index = event.get("type"), event.get("index", 0)
            if kind == "content_block_start":
                block = _dict(event.get("content_block"))
                if block.get("type") == "tool_use":
                    calls[index] = _ToolBlock(
                        str(block.get("id") or ""),
                        str(block.get("name") or ""),
                        initial=block.get("input"),
                    )
                elif block.get("type") == "text" and block.get("text"):
                    yield TextDelta(str(block["text"]))
            elif kind == "content_block_delta":
                delta = _dict(event.get("delta"))
                if delta.get("type") == "text_delta" and delta.get("text"):
                    yield TextDelta(str(delta["text"]))
                elif delta.get("type") == "input_json_delta" and index in calls:
                    calls[index].parts.append(str(delta.get("partial_json") or ""))
            elif kind == "content_block_stop" and index in calls:
                yield calls.pop(index).done()
            elif kind == "message_delta":
                stop_reason = _dict(event.get("delta")).get("stop_reason") or stop_reason
            elif kind == "message_stop":
                finished = True
        if not finished:
            raise StreamCutError("no message_stop")
        notice = self._notice(stop_reason)
        if notice is not None:
            yield notice

    def whole_reply(self, reply: object) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        for block in _dicts(_dict(reply).get("content")):
            if block.get("type") == "text" and block.get("text"):
                events.append(TextDelta(str(block["text"])))
            elif block.get("type") == "tool_use":
                arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
                events.append(
                    ToolCall(str(block.get("id") or ""), str(block.get("name") or ""), arguments)
                )
        notice = self._notice(_dict(reply).get("stop_reason"))
        if notice is not None:
            events.append(notice)
        return events


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(items: object) -> Iterable[dict[str, Any]]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []
