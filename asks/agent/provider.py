"""What every real model provider is configured with: settings, the key, the system prompt.

The providers (:mod:`asks.agent.openai_model`, :mod:`asks.agent.anthropic_model`) share their
model class and error lines (:mod:`asks.agent.http_model`) and talk HTTP through
:mod:`asks.agent.chat_client`, which imports httpx lazily; this module imports none of them
(``asks.cli`` reads the settings without loading any of that).

* :class:`Settings` — provider, model, base URL, the API key (never in ``repr``), timeouts,
  streaming. :func:`resolve_settings` builds them from flags/config and the environment: the
  key comes from the variable named by ``api_key_env`` (default per provider:
  ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``); a loopback base URL needs none (a placeholder is
  sent); a remote one without a key is a :class:`SettingsError` naming the variable.
* :func:`system_prompt` — one text for every mode, so a local server's prompt cache is shared
  between ``asks -p`` and the REPL: the base prompt, the tool guidance, then the line for runs
  where ``ask_user_question`` is not offered.
"""

from __future__ import annotations

import enum
import ipaddress
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

import attrs

from asks import contract
from asks.sanitize import sanitize_line

PLACEHOLDER_KEY: Final = "no-key"  # sent to loopback servers when no key is set
MAX_RETRIES: Final = 2
DEFAULT_MAX_TOKENS: Final = 4096  # Anthropic requires a bound; OpenAI gets none


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
    return Settings(
        name, url, key, variable, timeout, stream, provider=provider, temperature=temperature
    )


def system_prompt(guidance: contract.Guidance) -> str:
    """The system message of every model call (module docstring)."""
    parts = (BASE_PROMPT, guidance.prompt_snippet, guidance.guidelines, NO_UI_PROMPT)
    return "\n\n".join(p.strip() for p in parts if p.strip())
