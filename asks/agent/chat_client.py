"""A thin JSON-over-HTTP model client on httpx: one POST, retries, server-sent events, errors.

Both providers use it (chat completions for OpenAI-compatible servers, the Messages API for
Anthropic). Why not the official ``openai`` / ``anthropic`` SDKs (bench/HISTORY.md,
bench/provider_bench.py): importing ``openai`` adds ~25 MiB of RSS to an asks process
(pydantic, its models) and ~0.3 s of CPU, ``anthropic`` ~53 MiB and ~0.9 s, and every streamed
chunk was validated into pydantic objects (~0.1 ms each); httpx alone adds ~3 MiB. Everything
asks used the SDKs for is here, with the same semantics:

* **Request.** ``POST {base_url}{path}`` with the provider's headers (the key among them)
  and the body as given (JSON through orjson; a body orjson refuses, e.g. a lone surrogate,
  through the stdlib encoder). The key lives in :class:`~asks.agent.provider.Settings` and
  this client's headers only.
* **Timeouts.** ``Settings.timeout`` for connecting, each read (also between streamed chunks),
  each write and waiting for a pooled connection.
* **Retries** (before any byte of the reply was used): connection errors, timeouts, HTTP
  408/409/429 and 5xx, at most ``Settings.max_retries`` times; the wait is the server's
  ``retry-after-ms`` / ``retry-after`` when it is between 0 and 60 s, else 0.5 s doubling up to
  8 s, minus up to 25 % jitter; ``x-should-retry: true|false`` overrides. A stream that broke
  off mid-way is never retried (its text was already shown).
* **Redirects** (3xx) are not followed: a ``RedirectError`` names the status and the
  ``Location`` (sanitised, bounded) and, when the Location ends in the request's path, the
  base URL it points to. Following would be wrong for an API call: after a 301, 302 or 303 a
  POST becomes a GET (httpx changes the method as browsers do), a 307/308 to another host
  drops the ``Authorization`` header, and a redirect is a base URL to fix once rather than a
  round trip on every call. Not retried.
* **Content types.** A success must be ``text/event-stream`` for a streamed request and JSON
  (``application/json`` or ``…+json``, parameters ignored) otherwise; a response without a
  content type is read as what was asked for; any other raises ``ContentTypeError`` (after
  reading at most :data:`PAGE_MAX` bytes to say what it was: a web page's title, a JSON
  error's message). Streams are UTF-8 whatever the charset says (the SSE standard).
* **Errors** are :mod:`asks.agent.http_errors`' classes, and only those (an httpx error or
  undecodable JSON never leaves this module as itself): an error status is a ``StatusError``
  (its body parsed when it is JSON, else summed up in one line: an HTML page's title or text,
  never its markup, :func:`summary`); a connection that fails, or breaks while the body is
  read, ``TransportError`` (``TimedOutError`` for a timeout; the httpx error as ``__cause__``);
  an ``{"error": …}`` event inside the stream, ``EventError``; a body that is not JSON,
  ``BadReplyError``.
* **Server-sent events** are decoded by :mod:`asks.agent.sse` (the standard's grammar: CR,
  LF or CR LF line ends only, comments, multi-line ``data``, ``retry:``; the event type is not
  used: the payloads name their own). Each event's data is parsed as JSON, except an empty one
  (skipped) and ``[DONE]`` (OpenAI), which ends the stream (the rest of the body is read for up
  to :data:`DRAIN_S` so the connection can be reused, then it is closed); else the end of the
  body does. An event whose JSON has an ``error`` member raises.
* **Cancellation.** All I/O is httpx under trio: cancelling the awaiting task closes the
  connection at once (the response is closed on the way out).
* **TLS.** The certificate store is loaded only when the base URL is ``https`` or a proxy from
  the environment is (it costs ~4 MiB); a plain-http server is never talked to over TLS.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing, asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any, Final

import attrs
import orjson
import trio

from asks.agent import sse
from asks.agent.http_errors import (
    BadReplyError,
    ContentTypeError,
    EventError,
    RedirectError,
    StatusError,
    TimedOutError,
    TransportError,
)
from asks.agent.provider import Settings
from asks.sanitize import sanitize_line

if TYPE_CHECKING:
    import httpx

RETRY_STATUSES: Final = frozenset({408, 409, 429})
INITIAL_RETRY_S: Final = 0.5
MAX_RETRY_S: Final = 8.0
MAX_RETRY_AFTER_S: Final = 60.0
DRAIN_S: Final = 0.05
SUMMARY_MAX: Final = 120  # characters of an error page's gist
LOCATION_MAX: Final = 200  # characters of a redirect's Location shown
PAGE_MAX: Final = 64 * 1024  # bytes read of a body of the wrong type (to sum it up)
SSE: Final = "text/event-stream"


def loads(data: bytes | str) -> Any:
    """JSON through orjson; what it refuses (lone surrogate escapes) through the stdlib; what
    neither reads raises :class:`~asks.agent.http_errors.BadReplyError`."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(data)
    except ValueError as exc:  # UnicodeDecodeError too
        text = data if isinstance(data, str) else data.decode("utf-8", "replace")
        raise BadReplyError(f"not JSON: {exc}", text) from exc


def dumps(body: Mapping[str, Any]) -> bytes:
    try:
        return orjson.dumps(body)
    except TypeError:  # a lone surrogate: ASCII escapes keep it encodable
        return json.dumps(body).encode("ascii")


def needs_tls(url: str) -> bool:
    """Whether talking to ``url`` can involve TLS (module docstring)."""
    import urllib.request  # noqa: PLC0415 (http.client, email: ~8 ms, only when a client is built)

    proxies = urllib.request.getproxies().values()
    return url.startswith("https:") or any(p.startswith("https:") for p in proxies)


@attrs.define(eq=False)
class ChatClient:
    """JSON requests to ``settings.base_url + path`` (module docstring)."""

    settings: Settings
    path: str
    http: httpx.AsyncClient = attrs.field(repr=False)  # its headers hold the key

    @classmethod
    def build(cls, settings: Settings, path: str, headers: Mapping[str, str]) -> ChatClient:
        """Import httpx and build the connection pool (slow: call it in a worker thread).
        ``headers`` go with every request (the provider's: the key is among them)."""
        import httpx  # noqa: PLC0415 — lazy on purpose: only with a model configured

        http = httpx.AsyncClient(
            timeout=httpx.Timeout(settings.timeout),
            verify=needs_tls(settings.base_url),
            headers={**headers, "accept": "application/json"},
        )
        return cls(settings, path, http)

    async def close(self) -> None:
        await self.http.aclose()

    async def complete(self, body: Mapping[str, Any]) -> Any:
        """A non-streamed completion: the reply's parsed JSON."""
        async with self._response(body, stream=False) as response:
            return loads(response.content)

    @asynccontextmanager
    async def stream(self, body: Mapping[str, Any]) -> AsyncIterator[AsyncIterator[Any]]:
        """A streamed completion, entered once the server answered with a success status: each
        event's parsed JSON, until ``[DONE]`` or the body ends. Leaving closes the response."""
        async with self._response(body, stream=True) as response:
            yield _events(response)

    @asynccontextmanager
    async def _response(
        self, body: Mapping[str, Any], *, stream: bool
    ) -> AsyncIterator[httpx.Response]:
        response = await self._send(dumps(body), stream)
        try:
            await _check_type(response, stream)
            yield response
        finally:
            with trio.CancelScope(shield=True):
                await response.aclose()

    async def _send(self, content: bytes, stream: bool) -> httpx.Response:
        """POST with retries (module docstring): the response, status 1xx/2xx, its body still
        to be read when ``stream``."""
        import httpx  # noqa: PLC0415 — already loaded by build()

        url = f"{self.settings.base_url}{self.path}"
        headers = {"content-type": "application/json"}
        for attempt in range(self.settings.max_retries + 1):
            last = attempt == self.settings.max_retries
            request = self.http.build_request("POST", url, content=content, headers=headers)
            try:
                response = await self.http.send(request, stream=stream)
                if response.status_code >= 400:
                    await response.aread()
            except httpx.TimeoutException as exc:
                if last:
                    raise TimedOutError("request timed out") from exc
                await trio.sleep(_backoff(attempt, None))
                continue
            except httpx.DecodingError as exc:  # a body its content-encoding cannot decode
                raise BadReplyError(f"undecodable body ({exc})") from exc
            except httpx.RequestError as exc:  # the transport, too many redirects
                if last:
                    raise TransportError("connection error") from exc
                await trio.sleep(_backoff(attempt, None))
                continue
            if response.status_code < 300:
                return response
            await response.aclose()
            if response.status_code < 400:
                raise redirect_error(response, self.path)
            if last or not _should_retry(response):
                kind = response.headers.get("content-type", "")
                raise status_error(response.status_code, response.content, kind)
            await trio.sleep(_backoff(attempt, response.headers))
        raise AssertionError("unreachable: the last attempt returns or raises")


def redirect_error(response: httpx.Response, path: str) -> RedirectError:
    """The error for a redirect (module docstring): its status, its Location (sanitised,
    bounded) and, when that ends in ``path``, the base URL it points to."""
    status, sent = response.status_code, response.headers.get("location", "")
    location = sanitize_line(sent)[:LOCATION_MAX]
    base = None
    if sent:
        target = str(response.request.url.join(sent)).split("?")[0].split("#")[0]
        if target.endswith(path) and len(target) > len(path):
            base = sanitize_line(target.removesuffix(path))[:LOCATION_MAX]
    return RedirectError(
        f"HTTP {status}: redirected to {location or '(no Location)'}", status, location, base
    )


async def _check_type(response: httpx.Response, stream: bool) -> None:
    """Raise :class:`~asks.agent.http_errors.ContentTypeError` unless the response is of the
    type asked for (module docstring); for that, at most :data:`PAGE_MAX` bytes are read."""
    kind = media_type(response.headers.get("content-type", ""))
    if not kind or (kind == SSE if stream else is_json(kind)):
        return
    head = bytearray()
    async with aclosing(_transport_errors(response.aiter_bytes())) as chunks:
        async for chunk in chunks:
            head += chunk
            if len(head) >= PAGE_MAX:
                break
    text = bytes(head[:PAGE_MAX]).decode("utf-8", "replace")
    body: object = text
    if is_json(kind):
        with suppress(BadReplyError):
            body = loads(text)
    reason = summary(text, kind) if isinstance(body, str) else ""
    wanted = "an event stream" if stream else "JSON"
    raise ContentTypeError(
        f"{kind} instead of {wanted}", kind, wanted_stream=stream, body=body, reason=reason
    )


def media_type(content_type: str) -> str:
    """``text/html; charset=utf-8`` → ``text/html``."""
    return content_type.partition(";")[0].strip().lower()


def is_json(kind: str) -> bool:
    return kind == "application/json" or kind.endswith("+json")


async def _events(response: httpx.Response) -> AsyncIterator[Any]:
    """The server-sent events of ``response``, each event's data parsed (module docstring)."""
    decoder = sse.Decoder()
    async with aclosing(_transport_errors(response.aiter_bytes())) as chunks:
        async for chunk in chunks:
            for event in decoder.feed(chunk):
                if not event.data:
                    continue  # carries nothing (a keep-alive)
                if event.data == "[DONE]":
                    with trio.move_on_after(DRAIN_S):  # normally just the end of the body
                        async for _ in chunks:
                            pass
                    return
                data = loads(event.data)
                if isinstance(data, dict) and data.get("error") is not None:
                    raise EventError(f"error event: {event.data[:500]}", data)
                yield data


async def _transport_errors(items: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
    """``items``, an httpx error while reading them raised as
    :class:`~asks.agent.http_errors.TransportError`."""
    import httpx  # noqa: PLC0415 — already loaded by ChatClient.build()

    try:
        async for item in items:
            yield item
    except httpx.DecodingError as exc:
        raise BadReplyError(f"undecodable body ({exc})") from exc
    except httpx.RequestError as exc:
        raise TransportError("the connection broke off") from exc


def status_error(status: int, data: bytes, content_type: str = "") -> StatusError:
    """The error for HTTP status ``status`` with the body ``data`` (module docstring)."""
    text = data.decode("utf-8", "replace")
    try:
        body: object = loads(data) if data else text
    except BadReplyError:
        body = text
    reason = summary(text, content_type) if isinstance(body, str) else ""
    return StatusError(f"HTTP {status}: {reason or text[:500]}", status, body, reason)


def summary(text: str, content_type: str = "") -> str:
    """A page's gist in one short line: an HTML page's ``<title>`` (else its visible text),
    or plain text with its whitespace collapsed; at most :data:`SUMMARY_MAX` characters."""
    head = text.lstrip()[:200].lower()
    if "html" in content_type.lower() or head.startswith(("<!doctype html", "<html")):
        from asks.agent.error_page import page_text  # noqa: PLC0415 (only for an error page)

        text = page_text(text)
    line = " ".join(text.split())
    return line if len(line) <= SUMMARY_MAX else line[: SUMMARY_MAX - 1].rstrip() + "…"


def _should_retry(response: httpx.Response) -> bool:
    override = str(response.headers.get("x-should-retry", "")).lower()
    if override in ("true", "false"):
        return override == "true"
    status = response.status_code
    return status in RETRY_STATUSES or status >= 500


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """The server's wish in seconds, if it sent one (``retry-after-ms`` or ``retry-after``:
    seconds or an HTTP date)."""
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            from email.utils import parsedate_to_datetime  # noqa: PLC0415 (rare: an HTTP date)

            return parsedate_to_datetime(value).timestamp() - time.time()
    except (ValueError, TypeError):
        return None


def _backoff(attempt: int, headers: Mapping[str, str] | None) -> float:
    """Seconds to wait before retry number ``attempt + 1`` (module docstring)."""
    wanted = _retry_after(headers) if headers is not None else None
    if wanted is not None and 0 < wanted <= MAX_RETRY_AFTER_S:
        return wanted
    return min(INITIAL_RETRY_S * 2.0**attempt, MAX_RETRY_S) * (1 - 0.25 * random.random())
