"""The OpenAI-compatible model: chat completions with tools, through a thin httpx client.

Works with any server that speaks the chat-completions API with function tools (OpenAI, vLLM,
llama.cpp server, Ollama, LiteLLM / OpenRouter proxies). The HTTP side (retries, timeouts,
server-sent events, error classes) is :mod:`asks.agent.chat_client`, on httpx under trio, so
cancelling the awaiting task (Ctrl+C cancels the turn's scope) closes the in-flight connection
at once. (This was once the official ``openai`` SDK; it cost ~25 MiB of RSS and
~0.1 ms of CPU per streamed chunk, bench/provider_bench.py.)

Semantics:

* **Lazy import.** Nothing here imports httpx at module import. httpx is imported and the
  client built on the first model call or on :meth:`OpenAIModel.warm_up`, in a worker thread
  (:class:`~asks.agent.http_model.HttpModel`, which this model shares with Anthropic's).
* **Requests.** One ``POST …/chat/completions`` per model call (:meth:`OpenAIModel.request`):
  ``model``, the context mapped by :func:`chat_messages` behind the system message
  (:func:`~asks.agent.provider.system_prompt`, the same in every mode), the tools the agent
  offers, ``temperature`` when configured, and ``"stream": true`` by default: text deltas are
  yielded as they arrive; tool calls are assembled from the deltas keyed by ``index`` (id and
  name from the first delta that has them, a repeated name ignored, a split one joined,
  ``arguments`` concatenated; a delta without ``index``: a new id starts a new call, else it
  continues the last) and yielded, complete, once the reply has finished. Only choice 0 counts.
  Ids are passed on as the server sent them: the agent loop makes them unique
  (:mod:`asks.agent.edge`). ``stream=False`` (``[model] stream = false``) sends one request
  without ``stream`` and yields the whole reply. ``finish_reason`` "length" or
  "content_filter" is reported as a :class:`~asks.agent.loop.ModelNotice`.
* **Errors.** Every server, transport or decoding failure becomes a `ModelError` with one line
  (:func:`~asks.agent.http_model.describe`). Connection errors, timeouts, 408/409/429 and 5xx
  are retried ``max_retries`` times (honouring ``Retry-After``); other 4xx are not. A stream
  that ends without a ``finish_reason`` was cut short (``StreamCutError``): also a ModelError.
* **The API key** lives only in :class:`~asks.agent.provider.Settings` (excluded from its repr)
  and in the client's headers; it is never journaled or logged. A loopback server needs no key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

import attrs

from asks.agent.events import Message, ModelEvent, ModelNotice, TextDelta, ToolCall
from asks.agent.http_errors import BadReplyError, StreamCutError
from asks.agent.http_model import HttpModel
from asks.agent.provider import (
    DEFAULT_BASE_URL,
    PLACEHOLDER_KEY,
    Settings,
    SettingsError,
    is_loopback,
    resolve_settings,
    system_prompt,
)
from asks.core.i18n import N_, _

__all__ = [
    "DEFAULT_BASE_URL",
    "PLACEHOLDER_KEY",
    "OpenAIModel",
    "Settings",
    "SettingsError",
    "chat_messages",
    "is_loopback",
    "resolve_settings",
]

_FINISH_NOTICES: Final = {  # shown to the person (translated), never in the context
    "length": N_("The reply was cut off at the model's length limit."),
    "content_filter": N_("The server's content filter cut the reply short."),
}


def chat_messages(messages: Sequence[Message], system: str) -> list[dict[str, Any]]:
    """The context in chat-completions shape (docs/architecture.md, "Providers"): the system
    message, then user / assistant (with ``tool_calls``) / ``tool`` (with ``tool_call_id``)
    messages; feedback is already a user message starting with ``[asks feedback]``. Assistant
    messages with neither text nor tool calls (an interrupted or empty reply) carry nothing and are
    left out.
    """
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id or "", "content": m.content})
        elif m.role == "assistant":
            if not m.content and not m.tool_calls:
                continue
            item: dict[str, Any] = {"role": "assistant", "content": m.content or None}
            if m.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in m.tool_calls
                ]
            out.append(item)
        else:
            out.append({"role": m.role, "content": m.content})
    return out


@attrs.define
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = attrs.Factory(list)

    def merge(self, delta: Mapping[str, Any]) -> None:
        if delta.get("id") and not self.id:
            self.id = str(delta["id"])
        function = delta.get("function")
        if not isinstance(function, dict):
            return
        name = function.get("name")
        if name and name != self.name:  # some servers repeat the name; a split one is joined
            self.name += str(name)
        arguments = function.get("arguments")
        if arguments:
            self.arguments.append(str(arguments))

    def done(self) -> ToolCall:
        return ToolCall(self.id, self.name, "".join(self.arguments))


@attrs.define(eq=False)
class OpenAIModel(HttpModel):
    """A `Model` backed by an OpenAI-compatible server (module docstring)."""

    PATH: ClassVar[str] = "/chat/completions"

    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.settings.api_key}"}

    def request(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        """The JSON body of the chat-completions request for one model call."""
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": chat_messages(messages, system_prompt(self.guidance)),
        }
        if tools:
            body["tools"] = list(tools)
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        if self.settings.stream:
            body["stream"] = True
        return body

    def assembled(self, events: AsyncIterator[Any]) -> AsyncIterator[ModelEvent]:
        return _assembled(events)

    def whole_reply(self, reply: object) -> list[ModelEvent]:
        return _whole_reply(reply)


async def _assembled(chunks: AsyncIterator[Any]) -> AsyncIterator[ModelEvent]:
    """Text deltas as they come; tool calls once the reply finished (module docstring)."""
    partial: dict[int, _PartialCall] = {}
    finished: str | None = None
    async for chunk in chunks:
        for choice in _choices(chunk):
            if choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                if delta.get("content"):
                    yield TextDelta(str(delta["content"]))
                for call in _dicts(delta.get("tool_calls")):
                    _merge(partial, call)
            if choice.get("finish_reason"):
                finished = str(choice["finish_reason"])
    if finished is None:
        raise StreamCutError("no finish_reason")
    for index in sorted(partial):
        yield partial[index].done()
    if finished in _FINISH_NOTICES:
        yield ModelNotice(_(_FINISH_NOTICES[finished]))


def _merge(partial: dict[int, _PartialCall], call: Mapping[str, Any]) -> None:
    """One tool-call delta into the call it continues (module docstring)."""
    index = call.get("index")
    if not isinstance(index, int):  # not in the spec, but seen: a new id starts a new call
        fresh = call.get("id") and all(p.id != call["id"] for p in partial.values())
        index = len(partial) if fresh or not partial else max(partial)
    partial.setdefault(index, _PartialCall()).merge(call)


def _dicts(items: object) -> Iterable[dict[str, Any]]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _choices(reply: object) -> Iterable[dict[str, Any]]:
    return _dicts(reply.get("choices")) if isinstance(reply, dict) else []


def _whole_reply(completion: object) -> list[ModelEvent]:
    """A non-streamed reply: its text, then its tool calls."""
    choices = list(_choices(completion))
    if not choices:
        raise BadReplyError("a reply with no choices", completion)
    message = choices[0].get("message")
    message = message if isinstance(message, dict) else {}
    events: list[ModelEvent] = []
    if message.get("content"):
        events.append(TextDelta(str(message["content"])))
    for call in _dicts(message.get("tool_calls")):
        function = call.get("function")
        if not isinstance(function, dict):
            continue
        events.append(
            ToolCall(
                str(call.get("id") or ""),
                str(function.get("name") or ""),
                str(function.get("arguments") or ""),
            )
        )
    reason = str(choices[0].get("finish_reason") or "")
    if reason in _FINISH_NOTICES:
        events.append(ModelNotice(_(_FINISH_NOTICES[reason])))
    return events
