"""The OpenAI-compatible model: chat completions with tools through the official ``openai`` SDK.

Works with any server that speaks the chat-completions API with function tools (OpenAI, vLLM,
llama.cpp server, Ollama, LiteLLM / OpenRouter proxies). ``AsyncOpenAI`` runs under trio: the
SDK does its I/O through httpx/anyio, which detect trio, so cancelling the awaiting task (Ctrl+C
cancels the turn's scope) closes the in-flight connection at once.

Semantics:

* **Lazy import.** Nothing here imports ``openai`` at module import. The SDK is imported and
  the client built on the first model call or on :meth:`OpenAIModel.warm_up`, in a worker
  thread (the import takes ~0.5 s of CPU; the UI keeps running meanwhile).
* **Requests.** One ``chat.completions.create`` per model call: the context mapped by
  :func:`chat_messages` behind a system message (:func:`system_prompt`: the tool guidance's
  prompt snippet and guidelines when ``ask_user_question`` is offered), and the tools the agent
  offers. ``stream=True`` by default: text deltas are yielded as they arrive; tool calls are
  assembled from the deltas keyed by ``index`` (id and name from the first delta that has them,
  ``arguments`` concatenated) and yielded, complete, once the reply has finished. A call id
  that is missing, or already used in the context or the reply (some local servers number
  calls ``call_0``, ``call_1``… in every reply), is replaced by a fresh unique id: the host
  derives question ids from call ids and treats a repeated id as a retry of that call.
  ``stream=False`` (``[model] stream = false``) sends one request and yields the whole reply.
* **Errors.** Every SDK, transport or decoding failure becomes a `ModelError`
  with one line naming the server and what to check. The SDK retries connection errors,
  timeouts, 408/409/429 and 5xx ``max_retries`` times (honouring ``Retry-After``); 4xx are not
  retried. A stream that ends without a ``finish_reason`` was cut short: also a ModelError.
* **The API key** lives only in :class:`Settings` (excluded from its repr) and in the SDK
  client; it is never journaled or logged. A loopback server needs no key (a placeholder is sent).
"""

from __future__ import annotations

import ipaddress
import json
import sys
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

import attrs
import trio

from asks import contract
from asks.agent.loop import Message, ModelError, ModelEvent, TextDelta, ToolCall
from asks.sanitize import sanitize_line

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
PLACEHOLDER_KEY: Final = "no-key"  # sent to loopback servers when no key is set
MAX_RETRIES: Final = 2
_DETAIL_MAX: Final = 200

BASE_PROMPT: Final = (
    "You are a helpful assistant working with a person in a terminal chat REPL. Use the tools "
    "you are offered when they help; keep replies short."
)
NO_UI_PROMPT: Final = (
    "This run is non-interactive: nobody can answer questions. Do not ask the user anything; "
    "use your best judgement and state the assumptions you made."
)


class SettingsError(ValueError):
    """The provider cannot be configured (e.g. no API key for a remote server); one line."""


@attrs.frozen
class Settings:
    """What the provider needs. ``api_key`` is excluded from ``repr`` so it cannot leak
    into a log line or traceback by accident."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key: str = attrs.field(default=PLACEHOLDER_KEY, repr=False)
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    stream: bool = True
    max_retries: int = MAX_RETRIES


def is_loopback(url: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_settings(
    name: str,
    base_url: str | None,
    api_key_env: str,
    timeout: float,
    env: Mapping[str, str],
    *,
    stream: bool = True,
) -> Settings:
    """Settings for ``name`` at ``base_url`` (default: OpenAI) with the key from ``env``.

    Raises :class:`SettingsError` for a URL that is not http(s), or a remote server with no key.
    """
    url = (base_url or DEFAULT_BASE_URL).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError(f"the base URL {sanitize_line(url)!r} is not an http(s) URL")
    key = env.get(api_key_env, "").strip()
    if not key:
        if not is_loopback(url):
            raise SettingsError(
                f"no API key for {sanitize_line(url)}: set the environment variable "
                f"{api_key_env} (or name another one with [model] api_key_env)"
            )
        key = PLACEHOLDER_KEY
    return Settings(name, url, key, api_key_env, timeout, stream)


def system_prompt(tools: Sequence[Mapping[str, Any]], guidance: contract.Guidance) -> str:
    """The system message: the base prompt, then the guidance when the ask tool is offered
    (or the no-UI note when it is not)."""
    offered = any(t.get("function", {}).get("name") == contract.TOOL_NAME for t in tools)
    if not offered:
        return f"{BASE_PROMPT}\n\n{NO_UI_PROMPT}"
    return f"{BASE_PROMPT}\n\n{guidance.prompt_snippet}\n\n{guidance.guidelines}".rstrip()


def chat_messages(messages: Sequence[Message], system: str) -> list[dict[str, Any]]:
    """The context in chat-completions shape (NOTES.md, "Provider"): the system message, then
    user / assistant (with ``tool_calls``) / ``tool`` (with ``tool_call_id``) messages; feedback
    is already a user message starting with ``[asks feedback]``. Assistant messages with
    neither text nor tool calls (an interrupted or failed reply) carry nothing and are left out.
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

    def done(self, used: set[str]) -> ToolCall:
        return ToolCall(_unique_id(self.id, used), self.name, "".join(self.arguments))


def _unique_id(call_id: str | None, used: set[str]) -> str:
    """``call_id``, or a fresh id when it is empty or taken; the result is added to ``used``."""
    if not call_id or call_id in used:
        call_id = f"call_{uuid.uuid4().hex[:16]}"
    used.add(call_id)
    return call_id


@attrs.define(eq=False)
class OpenAIModel:
    """A `Model` backed by an OpenAI-compatible server (module docstring)."""

    settings: Settings
    guidance: contract.Guidance = contract.DEFAULT_GUIDANCE
    opens_sessions: bool = False
    _client: Any = None
    _lock: trio.Lock = attrs.Factory(trio.Lock)

    @property
    def name(self) -> str:
        return self.settings.model

    async def warm_up(self) -> None:
        """Import the SDK and build the client now (in a worker thread)."""
        await self._sdk()

    async def aclose(self) -> None:
        """Close the HTTP connection pool (call once, at the end of the run)."""
        client, self._client = self._client, None
        if client is not None:
            with trio.move_on_after(2, shield=True):
                await client.close()

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        client = await self._sdk()
        body: dict[str, Any] = {
            "messages": chat_messages(messages, system_prompt(tools, self.guidance)),
        }
        if tools:
            body["tools"] = list(tools)
        # The context goes in ``extra_body``, which the SDK merges into the JSON body as is:
        # passed as ``messages=`` it is walked by the SDK's typed transform (~0.2 ms per
        # message on this thread, measured in bench/provider_bench.py). NOTES.md, "Provider".
        request: dict[str, Any] = {"model": self.settings.model, "messages": [],
                                   "extra_body": body}
        used = {c.id for m in messages for c in m.tool_calls}
        started = False
        try:
            if not self.settings.stream:
                completion = await client.chat.completions.create(**request)
                for event in _whole_reply(completion, used):
                    yield event
                return
            response = await client.chat.completions.create(**request, stream=True)
            started = True
            async with response:
                async for event in _assembled(response, used):
                    yield event
        except ModelError:
            raise
        except Exception as exc:
            if not _is_provider_error(exc):
                raise
            raise ModelError(self.describe(exc, streaming=started)) from exc

    async def _sdk(self) -> Any:
        async with self._lock:
            if self._client is None:
                self._client = await trio.to_thread.run_sync(
                    self._build_client, abandon_on_cancel=True
                )
            return self._client

    def _build_client(self) -> Any:
        import openai  # noqa: PLC0415 — lazy on purpose (module docstring)

        s = self.settings
        return openai.AsyncOpenAI(
            api_key=s.api_key, base_url=s.base_url, timeout=s.timeout, max_retries=s.max_retries
        )

    def describe(self, exc: BaseException, *, streaming: bool = False) -> str:
        """One line for the transcript: what failed, where, and what to check."""
        openai: Any = sys.modules.get("openai")
        s = self.settings
        url = sanitize_line(s.base_url)
        tries = f"after {s.max_retries} {'retry' if s.max_retries == 1 else 'retries'}"
        status = getattr(exc, "status_code", None)
        detail = _detail(exc)
        if openai is not None and isinstance(exc, openai.APITimeoutError):
            return f"{url} did not answer within {s.timeout:g} s ([model] timeout), {tries}"
        if openai is not None and isinstance(exc, openai.APIConnectionError):
            if streaming:
                return f"the reply stream from {url} broke off: {_cause(exc)}"
            return f"cannot reach {url} ({_cause(exc)}), {tries}"
        if status in (401, 403):
            return (f"{url} refused the request (HTTP {status}: {detail}); check the API key "
                    f"in ${s.api_key_env}")
        if status == 404:
            return (f"HTTP 404 from {url}: {detail}; check the model name {s.model!r} and the "
                    "base URL (it usually ends in /v1)")
        if status == 429:
            return f"{url} is rate limiting (HTTP 429: {detail}), {tries}"
        if isinstance(status, int) and status >= 500:
            return f"{url} failed (HTTP {status}: {detail}), {tries}"
        if isinstance(status, int):
            return f"HTTP {status} from {url}: {detail}"
        return f"bad reply from {url}: {detail}"


def _is_provider_error(exc: BaseException) -> bool:
    """An error of the SDK, the HTTP stack or reply decoding (not a bug of ours)."""
    openai: Any = sys.modules.get("openai")
    if openai is not None and isinstance(exc, openai.OpenAIError):
        return True
    if isinstance(exc, json.JSONDecodeError):
        return True
    root = type(exc).__module__.split(".")[0]
    return root in {"httpx", "httpx2", "httpcore", "httpcore2", "h11", "anyio", "pydantic"}


def _detail(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    message: object = None
    if isinstance(body, dict):
        inner = body.get("error")
        message = inner.get("message") if isinstance(inner, dict) else body.get("message")
    text = str(message or getattr(exc, "message", None) or exc or type(exc).__name__)
    return sanitize_line(text[: _DETAIL_MAX * 4]).strip()[:_DETAIL_MAX]


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    inner = _detail(cause) if cause is not None else _detail(exc)
    return inner or type(exc).__name__


async def _assembled(response: AsyncIterator[Any], used: set[str]) -> AsyncIterator[ModelEvent]:
    """Text deltas as they come; tool calls once the reply finished (module docstring)."""
    partial: dict[int, _PartialCall] = {}
    finished = False
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
                finished = True
    if not finished:
        raise ModelError("the reply stream ended before the model finished (connection cut?)")
    for index in sorted(partial):
        yield partial[index].done(used)


def _whole_reply(completion: Any, used: set[str]) -> list[ModelEvent]:
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
        call_id = _unique_id(str(call.id or ""), used)
        events.append(ToolCall(call_id, str(function.name), str(function.arguments or "")))
    return events
