"""What the real models share: a `Model` over the HTTP client, and one line per failure.

:class:`HttpModel` is the half of :class:`~asks.agent.openai_model.OpenAIModel` and
:class:`~asks.agent.anthropic_model.AnthropicModel` that does not depend on the wire format:

* **The client** (:class:`~asks.agent.chat_client.ChatClient`) is built on the first model call
  or :meth:`HttpModel.warm_up`, in a worker thread (:class:`LazyClient`: importing httpx and
  loading certificates take ~0.1 s of CPU; the UI keeps running meanwhile), and closed once by
  :meth:`HttpModel.aclose`.
* **One model call** (:meth:`HttpModel.stream`): the provider's request body, POSTed streamed
  (or whole with ``[model] stream = false``), read by the provider's reader: text deltas as
  they arrive, tool calls once complete, notices. Any error of the client or the reader (an
  :class:`~asks.agent.http_errors.ChatError`, and only those) becomes a
  :class:`~asks.agent.events.ModelError` with :func:`describe`'s line; anything else is a bug
  and propagates as itself.
* **A provider** gives its wire: :attr:`HttpModel.PATH`, :meth:`HttpModel.headers` (the key
  goes there and nowhere else), :meth:`HttpModel.request`, :meth:`HttpModel.assembled` (the
  parsed events of a stream → model events; raises
  :class:`~asks.agent.http_errors.StreamCutError` when the stream ends unfinished) and
  :meth:`HttpModel.whole_reply`.

:func:`describe` is the one line for the transcript: what failed, where, and what to check —
the key variable for 401/403, the model name and base URL for 404, "after N retries" for what
was retried, the timeout setting; a redirect with its Location (and the base URL it points
to); a reply of the wrong content type by what it was (a web page: its title); and for a
stream that broke off, that the partial reply is not sent back to the model.
"""

from __future__ import annotations

import abc
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, ClassVar, Final

import attrs
import trio

from asks import contract
from asks.agent.chat_client import ChatClient, is_json
from asks.agent.events import Message, ModelError, ModelEvent
from asks.agent.http_errors import (
    BadReplyError,
    ChatError,
    ContentTypeError,
    EventError,
    RedirectError,
    StatusError,
    StreamCutError,
    TimedOutError,
    TransportError,
)
from asks.agent.provider import Provider, Settings
from asks.sanitize import sanitize_line

STREAM_HINT: Final = (
    "the partial reply is kept on screen but not sent back to the model; if this server keeps "
    "breaking streams, set [model] stream = false"
)
BASE_URL_SETTING: Final = "[model] base_url or --base-url"
_DETAIL_MAX: Final = 200


@attrs.define(eq=False)
class LazyClient:
    """A client built on first use in a worker thread, and closed once at the end."""

    build: Callable[[], ChatClient]
    _client: ChatClient | None = None
    _lock: trio.Lock = attrs.Factory(trio.Lock)

    async def get(self) -> ChatClient:
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
class HttpModel(abc.ABC):
    """A `Model` backed by a model server over HTTP (module docstring)."""

    PATH: ClassVar[str]  # appended to the base URL

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

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        """One model call (module docstring)."""
        client = await self._client.get()
        body = self.request(messages, tools)
        started = False
        try:
            if not self.settings.stream:
                for event in self.whole_reply(await client.complete(body)):
                    yield event
                return
            async with client.stream(body) as events:
                started = True
                async for event in self.assembled(events):
                    yield event
        except ChatError as exc:
            raise ModelError(describe(exc, self.settings, streaming=started)) from exc

    def _build_client(self) -> ChatClient:
        return ChatClient.build(self.settings, self.PATH, self.headers())

    @abc.abstractmethod
    def headers(self) -> dict[str, str]:
        """The headers of every request (the key among them)."""

    @abc.abstractmethod
    def request(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        """The JSON body of the request for one model call."""

    @abc.abstractmethod
    def assembled(self, events: AsyncIterator[Any]) -> AsyncIterator[ModelEvent]:
        """A stream's parsed events as model events (module docstring)."""

    @abc.abstractmethod
    def whole_reply(self, reply: object) -> list[ModelEvent]:
        """A non-streamed reply's parsed JSON as model events."""


# ------------------------------------------------------------------------------- errors
def describe(exc: ChatError, settings: Settings, *, streaming: bool = False) -> str:
    """One line for the transcript (module docstring); ``streaming``: the reply had started
    arriving."""
    s = settings
    url = sanitize_line(s.base_url)
    tries = f"after {s.max_retries} {'retry' if s.max_retries == 1 else 'retries'}"
    match exc:
        case RedirectError():
            return _redirect_line(exc, url)
        case ContentTypeError():
            return _type_line(exc, url)
        case TimedOutError():
            return f"{url} did not answer within {s.timeout:g} s ([model] timeout), {tries}"
        case TransportError() if streaming:
            return f"the reply stream from {url} broke off ({_cause(exc)}); {STREAM_HINT}"
        case TransportError():
            return f"cannot reach {url} ({_cause(exc)}), {tries}"
        case StreamCutError():
            return (
                f"the reply stream from {url} ended before the model finished "
                f"(connection cut?); {STREAM_HINT}"
            )
        case EventError() | BadReplyError() if streaming:
            return f"the reply stream from {url} broke off ({detail(exc)}); {STREAM_HINT}"
        case StatusError():
            return _status_line(exc.status_code, url, detail(exc), tries, s)
    return f"bad reply from {url}: {detail(exc)}"


def detail(exc: BaseException) -> str:
    """The server's own message (``{"error": {"message"}}`` bodies), an error page's gist, or
    the exception's message; one line, bounded."""
    body = exc.body if isinstance(exc, ChatError) else None
    message: object = None
    if isinstance(body, dict):
        inner = body.get("error")
        message = inner.get("message") if isinstance(inner, dict) else body.get("message")
    reason = exc.reason if isinstance(exc, StatusError) else None  # the gist of an error page
    text = str(message or reason or exc or type(exc).__name__)
    return sanitize_line(text[: _DETAIL_MAX * 4]).strip()[:_DETAIL_MAX]


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    inner = detail(cause) if cause is not None else detail(exc)
    return inner or type(exc).__name__


def _redirect_line(exc: RedirectError, url: str) -> str:
    if not exc.location:
        return (
            f"{url} answered HTTP {exc.status_code} (a redirect) without a Location; "
            f"check the base URL ({BASE_URL_SETTING})"
        )
    fix = (
        f"set the base URL to {exc.base_url}" if exc.base_url is not None else "check the base URL"
    )
    return (
        f"{url} redirected the request (HTTP {exc.status_code}) to {exc.location}; "
        f"redirects are not followed: {fix} ({BASE_URL_SETTING})"
    )


def _type_line(exc: ContentTypeError, url: str) -> str:
    kind = sanitize_line(exc.content_type)[:80]
    reason = sanitize_line(exc.reason)
    if kind in ("text/html", "application/xhtml+xml"):
        gist = f" ({reason})" if reason else ""
        return (
            f"{url} answered with a web page{gist}, not the model's API; check the base "
            f"URL ({BASE_URL_SETTING})"
        )
    if exc.wanted_stream and is_json(kind):
        said = f" ({detail(exc)})" if isinstance(exc.body, dict) and "error" in exc.body else ""
        return (
            f"{url} answered with JSON instead of an event stream{said}; if it cannot "
            "stream, set [model] stream = false"
        )
    if not exc.wanted_stream and kind == "text/event-stream":
        return (
            f"{url} answered with an event stream to a request without streaming; set "
            "[model] stream = true"
        )
    gist = f" ({reason})" if reason else ""
    wanted = "an event stream" if exc.wanted_stream else "JSON"
    return f"{url} answered with {kind}{gist} instead of {wanted}; check the base URL"


def _status_line(status: int, url: str, why: str, tries: str, s: Settings) -> str:
    if status in (401, 403):
        return (
            f"{url} refused the request (HTTP {status}: {why}); check the API key "
            f"in ${s.api_key_env}"
        )
    if status == 404:
        where = "it usually ends in /v1" if s.provider is Provider.OPENAI else "without /v1"
        return (
            f"HTTP 404 from {url}: {why}; check the model name {s.model!r} and the "
            f"base URL ({where})"
        )
    if status == 429:
        return f"{url} is rate limiting (HTTP 429: {why}), {tries}"
    if status == 529:
        return f"{url} is overloaded (HTTP 529: {why}), {tries}"
    if status >= 500:
        return f"{url} failed (HTTP {status}: {why}), {tries}"
    return f"HTTP {status} from {url}: {why}"
