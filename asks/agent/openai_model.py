"""The OpenAI-compatible model: chat completions with tools through the official ``openai`` SDK.

Works with any server that speaks the chat-completions API with function tools (OpenAI, vLLM,
llama.cpp server, Ollama, LiteLLM / OpenRouter proxies). ``AsyncOpenAI`` runs under trio: the
SDK does its I/O through httpx/anyio, which detect trio, so cancelling the awaiting task (Ctrl+C
cancels the turn's scope) closes the in-flight connection at once.

Semantics:

* **Lazy import.** Nothing here imports ``openai`` at module import. The SDK is imported and
  the client built on the first model call or on :meth:`OpenAIModel.warm_up`, in a worker
  thread (:class:`~asks.agent.provider.LazyClient`).
* **Requests.** One ``chat.completions.create`` per model call: the context mapped by
  :func:`chat_messages` behind the system message (:func:`~asks.agent.provider.system_prompt`,
  the same in every mode), and the tools the agent offers. ``stream=True`` by default: text
  deltas are yielded as they arrive; tool calls are assembled from the deltas keyed by
  ``index`` (id and name from the first delta that has them, ``arguments`` concatenated) and
  yielded, complete, once the reply has finished. Ids are passed on as the server sent them:
  the agent loop makes them unique (:mod:`asks.agent.edge`). ``stream=False`` (``[model]
  stream = false``) sends one request and yields the whole reply. ``finish_reason`` "length"
  or "content_filter" is reported as a :class:`~asks.agent.loop.ModelNotice`.
* **Errors.** Every SDK, transport or decoding failure becomes a `ModelError` with one line
  (:func:`~asks.agent.provider.describe`). The SDK retries connection errors, timeouts,
  408/409/429 and 5xx ``max_retries`` times (honouring ``Retry-After``); 4xx are not retried. A
  stream that ends without a ``finish_reason`` was cut short: also a ModelError.
* **The API key** lives only in :class:`~asks.agent.provider.Settings` (excluded from its repr)
  and in the SDK client; it is never journaled or logged. A loopback server needs no key.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import attrs

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

    def merge(self, delta: Any) -> None:
        if getattr(delta, "id", None) and not self.id:
            self.id = str(delta.id)
        function = getattr(delta, "function", None)
        if function is None:
            return
        name = getattr(function, "name", None)
        if name and name != self.name:  # some servers repeat the name; a split one is joined
            self.name += str(name)
        arguments = getattr(function, "arguments", None)
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
        """The keyword arguments of ``chat.completions.create`` for one model call."""
        body: dict[str, Any] = {
            "messages": chat_messages(messages, system_prompt(self.guidance)),
        }
        if tools:
            body["tools"] = list(tools)
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        # The context goes in ``extra_body``, which the SDK merges into the JSON body as is:
        # passed as ``messages=`` it is walked by the SDK's typed transform (~0.2 ms per
        # message on this thread, measured in bench/provider_bench.py). NOTES.md, "Provider".
        return {"model": self.settings.model, "messages": [], "extra_body": body}

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        client = await self._client.get()
        request = self.request(messages, tools)
        started = False
        try:
            if not self.settings.stream:
                completion = await client.chat.completions.create(**request)
                for event in _whole_reply(completion):
                    yield event
                return
            response = await client.chat.completions.create(**request, stream=True)
            started = True
            async with response:
                async for event in _assembled(response):
                    yield event
        except ModelError:
            raise
        except Exception as exc:
            if not is_provider_error(exc, sys.modules.get("openai"), "OpenAIError"):
                raise
            raise ModelError(self.describe(exc, streaming=started)) from exc

    def _build_client(self) -> Any:
        import openai  # noqa: PLC0415 — lazy on purpose (module docstring)

        s = self.settings
        return openai.AsyncOpenAI(
            api_key=s.api_key, base_url=s.base_url, timeout=s.timeout, max_retries=s.max_retries
        )

    def describe(self, exc: BaseException, *, streaming: bool = False) -> str:
        """One line for the transcript: what failed, where, and what to check."""
        return describe(exc, self.settings, sys.modules.get("openai"), streaming=streaming)


async def _assembled(response: AsyncIterator[Any]) -> AsyncIterator[ModelEvent]:
    """Text deltas as they come; tool calls once the reply finished (module docstring)."""
    partial: dict[int, _PartialCall] = {}
    finished: str | None = None
    async for chunk in response:
        for choice in getattr(chunk, "choices", None) or ():
            if getattr(choice, "index", 0) not in (0, None):
                continue
            delta = choice.delta
            if delta is not None and delta.content:
                yield TextDelta(str(delta.content))
            for call in (delta.tool_calls if delta is not None else None) or ():
                index = getattr(call, "index", None)
                if index is None:  # not in the spec, but seen: a new id starts a new call
                    fresh = getattr(call, "id", None) and all(
                        p.id != call.id for p in partial.values()
                    )
                    index = len(partial) if fresh or not partial else max(partial)
                partial.setdefault(int(index), _PartialCall()).merge(call)
            if choice.finish_reason:
                finished = str(choice.finish_reason)
    if finished is None:
        raise ModelError("the reply stream ended before the model finished (connection cut?); "
                         + STREAM_HINT)
    for index in sorted(partial):
        yield partial[index].done()
    if finished in _FINISH_NOTICES:
        yield ModelNotice(_(_FINISH_NOTICES[finished]))


def _whole_reply(completion: Any) -> list[ModelEvent]:
    """A non-streamed reply: its text, then its tool calls."""
    choices = getattr(completion, "choices", None) or ()
    if not choices:
        raise ModelError("the server returned a reply with no choices")
    message = choices[0].message
    events: list[ModelEvent] = []
    if message.content:
        events.append(TextDelta(str(message.content)))
    for call in message.tool_calls or ():
        function = getattr(call, "function", None)
        if function is None:
            continue
        events.append(ToolCall(str(call.id or ""), str(function.name),
                               str(function.arguments or "")))
    reason = str(getattr(choices[0], "finish_reason", "") or "")
    if reason in _FINISH_NOTICES:
        events.append(ModelNotice(_(_FINISH_NOTICES[reason])))
    return events
