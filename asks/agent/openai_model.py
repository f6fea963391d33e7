"""The OpenAI-compatible model: chat completions with tools, through a thin httpx client.

Works with any server that speaks the chat-completions API with function tools (OpenAI, vLLM,
llama.cpp server, Ollama, LiteLLM / OpenRouter proxies). The HTTP side (retries, timeouts,
server-sent events, error classes) is :mod:`asks.agent.chat_client`, on httpx under trio, so
cancelling the awaiting task (Ctrl+C cancels the turn's scope) closes the in-flight connection
at once. (Until issue 14 this was the official ``openai`` SDK; it cost ~25 MiB of RSS and
~0.1 ms of CPU per streamed chunk, bench/provider_bench.py.)

Semantics:

* **Lazy import.** Nothing here imports httpx at module import. httpx is imported and the
  client built on the first model call or on :meth:`OpenAIModel.warm_up`, in a worker thread
  (:class:`~asks.agent.provider.LazyClient`).
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
  (:func:`~asks.agent.provider.describe`). Connection errors, timeouts, 408/409/429 and 5xx are
  retried ``max_retries`` times (honouring ``Retry-After``); other 4xx are not. A stream that
  ends without a ``finish_reason`` was cut short: also a ModelError.
* **The API key** lives only in :class:`~asks.agent.provider.Settings` (excluded from its repr)
  and in the client's headers; it is never journaled or logged. A loopback server needs no key.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from typing import Any, Final

import attrs

from asks.agent import chat_client
from asks.agent.events import Message, ModelError, ModelEvent, ModelNotice, TextDelta, ToolCall
from asks.agent.provider import (
    DEFAULT_BASE_URL,
    PLACEHOLDER_KEY,
    STREAM_HINT,
    SdkModel,
    Settings,
    SettingsError,
    describe,
    is_loopback,
    is_provider_error,
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
    """The context in chat-completions shape (NOTES.md, "Provider"): the system message, then
    user / assistant (with ``tool_calls``) / ``tool`` (with ``tool_call_id``) messages; feedback
    is already a user message starting with ``[asks feedback]``. Assistant messages with
    neither text nor tool calls (an interrupted or empty reply) carry nothing and are left out.
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
                    {"id": c.id, "type": "function",
                     "function": {"name": c.name, "arguments": c.arguments}}
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
class OpenAIModel(SdkModel):
    """A `Model` backed by an OpenAI-compatible server (module docstring)."""

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

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        client: chat_client.ChatClient = await self._client.get()
        body = self.request(messages, tools)
        started = False
        try:
            if not self.settings.stream:
                for event in _whole_reply(await client.complete(body)):
                    yield event
                return
            async with client.stream(body) as chunks:
                started = True
                async for event in _assembled(chunks):
                    yield event
        except ModelError:
            raise
        except Exception as exc:
            if not is_provider_error(exc, chat_client, "ChatError"):
                raise
            raise ModelError(self.describe(exc, streaming=started)) from exc

    def _build_client(self) -> chat_client.ChatClient:
        return chat_client.ChatClient.build(self.settings)

    def describe(self, exc: BaseException, *, streaming: bool = False) -> str:
        """One line for the transcript: what failed, where, and what to check."""
        return describe(exc, self.settings, chat_client, streaming=streaming)


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
        raise ModelError("the reply stream ended before the model finished (connection cut?); "
                         + STREAM_HINT)
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
        raise ModelError("the server returned a reply with no choices")
    message = choices[0].get("message")
    message = message if isinstance(message, dict) else {}
    events: list[ModelEvent] = []
    if message.get("content"):
        events.append(TextDelta(str(message["content"])))
    for call in _dicts(message.get("tool_calls")):
        function = call.get("function")
        if not isinstance(function, dict):
            continue
        events.append(ToolCall(str(call.get("id") or ""), str(function.get("name") or ""),
                               str(function.get("arguments") or "")))
    reason = str(choices[0].get("finish_reason") or "")
    if reason in _FINISH_NOTICES:
        events.append(ModelNotice(_(_FINISH_NOTICES[reason])))
    return events
