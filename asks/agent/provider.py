"""What every real model provider shares: settings, the key, the system prompt, error lines.

The providers (:mod:`asks.agent.openai_model`, :mod:`asks.agent.anthropic_model`) talk HTTP
through :mod:`asks.agent.chat_client`, which imports httpx lazily; this module imports neither.

* :class:`Settings` — provider, model, base URL, the API key (never in ``repr``), timeouts,
  streaming. :func:`resolve_settings` builds them from flags/config and the environment: the
  key comes from the variable named by ``api_key_env`` (default per provider:
  ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``); a loopback base URL needs none (a placeholder is
  sent); a remote one without a key is a :class:`SettingsError` naming the variable.
* :func:`system_prompt` — one text for every mode, so a local server's prompt cache is shared
  between ``asks -p`` and the REPL: the base prompt, the tool guidance, then the line for runs
  where ``ask_user_question`` is not offered.
* :func:`describe` — one line for a provider failure: what failed, where, what to check.
"""

from __future__ import annotations

import enum
import ipaddress
import json
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, Final
from urllib.parse import urlsplit

import attrs
import trio

from asks import contract
from asks.sanitize import sanitize_line

PLACEHOLDER_KEY: Final = "no-key"  # sent to loopback servers when no key is set
MAX_RETRIES: Final = 2
DEFAULT_MAX_TOKENS: Final = 4096  # Anthropic requires a bound; OpenAI gets none
_DETAIL_MAX: Final = 200


class Provider(enum.StrEnum):
    """Which wire protocol a real model speaks."""

    OPENAI = "openai"  # chat completions (OpenAI, vLLM, llama.cpp, Ollama, LiteLLM, …)
    ANTHROPIC = "anthropic"  # the Anthropic Messages API (Claude)


DEFAULT_BASE_URLS: Final = {
    Provider.OPENAI: "https://api.openai.com/v1",
    Provider.ANTHROPIC: "https://api.anthropic.com",
}
DEFAULT_KEY_ENVS: Final = {
    Provider.OPENAI: "OPENAI_API_KEY",
    Provider.ANTHROPIC: "ANTHROPIC_API_KEY",
}
DEFAULT_BASE_URL: Final = DEFAULT_BASE_URLS[Provider.OPENAI]

BASE_PROMPT: Final = (
    "You are a helpful assistant working with a person in a terminal chat REPL. Use the tools "
    "you are offered when they help; keep replies short."
)
NO_UI_PROMPT: Final = (
    f"When {contract.TOOL_NAME} is not among your tools, this run is non-interactive: nobody "
    "can answer questions. Then do not ask the user anything; use your best judgement and "
    "state the assumptions you made."
)


class SettingsError(ValueError):
    """The provider cannot be configured (e.g. no API key for a remote server); one line."""


@attrs.frozen
class Settings:
    """What a provider needs. ``api_key`` is excluded from ``repr`` so it cannot leak into a
    log line or traceback by accident."""

    model: str
    base_url: str = DEFAULT_BASE_URL
    api_key: str = attrs.field(default=PLACEHOLDER_KEY, repr=False)
    api_key_env: str = DEFAULT_KEY_ENVS[Provider.OPENAI]
    timeout: float = 60.0
    stream: bool = True
    max_retries: int = MAX_RETRIES
    provider: Provider = Provider.OPENAI
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float | None = None  # None: the server's default


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
    api_key_env: str | None,
    timeout: float,
    env: Mapping[str, str],
    *,
    stream: bool = True,
    provider: Provider = Provider.OPENAI,
    temperature: float | None = None,
) -> Settings:
    """Settings for model ``name`` of ``provider`` at ``base_url`` (default: the provider's
    own service), the key read from ``env`` (module docstring).

    Raises :class:`SettingsError` for a URL that is not http(s), or a remote server with no key.
    """
    url = (base_url or DEFAULT_BASE_URLS[provider]).rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError(f"the base URL {sanitize_line(url)!r} is not an http(s) URL")
    variable = api_key_env or DEFAULT_KEY_ENVS[provider]
    key = env.get(variable, "").strip()
    if not key:
        if not is_loopback(url):
            raise SettingsError(
                f"no API key for {sanitize_line(url)}: set the environment variable "
                f"{variable} (or name another one with [model] api_key_env)"
            )
        key = PLACEHOLDER_KEY
    return Settings(name, url, key, variable, timeout, stream, provider=provider,
                    temperature=temperature)


def system_prompt(guidance: contract.Guidance) -> str:
    """The system message of every model call (module docstring)."""
    parts = (BASE_PROMPT, guidance.prompt_snippet, guidance.guidelines, NO_UI_PROMPT)
    return "\n\n".join(p.strip() for p in parts if p.strip())


@attrs.define(eq=False)
class LazyClient:
    """The HTTP client, built on first use in a worker thread (importing httpx and loading the
    certificates take ~0.1 s of CPU; the UI keeps running meanwhile) and closed once at the
    end."""

    build: Callable[[], Any]
    _client: Any = None
    _lock: trio.Lock = attrs.Factory(trio.Lock)

    async def get(self) -> Any:
        async with self._lock:
            if self._client is None:
                self._client = await trio.to_thread.run_sync(self.build, abandon_on_cancel=True)
            return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with trio.move_on_after(2, shield=True):
                await client.close()


@attrs.define(eq=False)
class SdkModel:
    """What the HTTP-backed models share: settings, guidance, and a client built on first use
    (subclasses give ``_build_client``, which imports httpx). (The name is from when each
    provider used its vendor's SDK.)"""

    settings: Settings
    guidance: contract.Guidance = contract.DEFAULT_GUIDANCE
    opens_sessions: bool = False
    _client: LazyClient = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._client = LazyClient(self._build_client)

    @property
    def name(self) -> str:
        return self.settings.model

    async def warm_up(self) -> None:
        """Import httpx and build the client now (in a worker thread)."""
        await self._client.get()

    async def aclose(self) -> None:
        """Close the HTTP connection pool (call once, at the end of the run)."""
        await self._client.aclose()

    def _build_client(self) -> Any:
        raise NotImplementedError


# ------------------------------------------------------------------------------- errors

STREAM_HINT: Final = (
    "the partial reply is kept on screen but not sent back to the model; if this server keeps "
    "breaking streams, set [model] stream = false"
)


def is_provider_error(exc: BaseException, sdk: ModuleType | None, base: str) -> bool:
    """An error of the client module ``sdk`` (its base class named ``base``), the HTTP stack or
    reply decoding."""
    root_class = getattr(sdk, base, None) if sdk is not None else None
    if isinstance(root_class, type) and isinstance(exc, root_class):
        return True
    if isinstance(exc, json.JSONDecodeError):
        return True
    root = type(exc).__module__.split(".")[0]
    return root in {"httpx", "httpcore", "h11", "anyio"}


def detail(exc: BaseException) -> str:
    """The server's own message (``{"error": {"message"}}`` bodies), an error page's gist, or
    the exception's message; one line, bounded."""
    body = getattr(exc, "body", None)
    message: object = None
    if isinstance(body, dict):
        inner = body.get("error")
        message = inner.get("message") if isinstance(inner, dict) else body.get("message")
    reason = getattr(exc, "reason", None)  # an error page's gist (the message repeats the status)
    text = str(message or reason or getattr(exc, "message", None) or exc or type(exc).__name__)
    return sanitize_line(text[: _DETAIL_MAX * 4]).strip()[:_DETAIL_MAX]


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    inner = detail(cause) if cause is not None else detail(exc)
    return inner or type(exc).__name__


def describe(
    exc: BaseException, settings: Settings, sdk: ModuleType | None, *, streaming: bool = False
) -> str:
    """One line for the transcript: what failed, where, and what to check. ``sdk`` is the
    client module (its ``APITimeoutError``/``APIConnectionError`` classes);
    ``streaming``: the reply had started arriving."""
    s = settings
    url = sanitize_line(s.base_url)
    tries = f"after {s.max_retries} {'retry' if s.max_retries == 1 else 'retries'}"
    status = getattr(exc, "status_code", None)
    why = detail(exc)
    timeout = getattr(sdk, "APITimeoutError", None)
    connection = getattr(sdk, "APIConnectionError", None)
    if isinstance(timeout, type) and isinstance(exc, timeout):
        return f"{url} did not answer within {s.timeout:g} s ([model] timeout), {tries}"
    if isinstance(connection, type) and isinstance(exc, connection):
        if streaming:
            return f"the reply stream from {url} broke off ({_cause(exc)}); {STREAM_HINT}"
        return f"cannot reach {url} ({_cause(exc)}), {tries}"
    if streaming and status in (None, 200):  # an error event inside the stream
        return f"the reply stream from {url} broke off ({why}); {STREAM_HINT}"
    return _status_line(status, url, why, tries, s)


def _status_line(status: object, url: str, why: str, tries: str, s: Settings) -> str:
    if status in (401, 403):
        return (f"{url} refused the request (HTTP {status}: {why}); check the API key "
                f"in ${s.api_key_env}")
    if status == 404:
        where = "it usually ends in /v1" if s.provider is Provider.OPENAI else "without /v1"
        return (f"HTTP 404 from {url}: {why}; check the model name {s.model!r} and the "
                f"base URL ({where})")
    if status == 429:
        return f"{url} is rate limiting (HTTP 429: {why}), {tries}"
    if status == 529:
        return f"{url} is overloaded (HTTP 529: {why}), {tries}"
    if isinstance(status, int) and status >= 500:
        return f"{url} failed (HTTP {status}: {why}), {tries}"
    if isinstance(status, int):
        return f"HTTP {status} from {url}: {why}"
    return f"bad reply from {url}: {why}"
