"""The web bridge's HTTP plumbing over ASGI: the app, the server, request headers, the body,
the response.

:class:`AsgiApp` is the plain ASGI app around the bridge's one handler: it completes the
lifespan protocol, serves ``http`` only (a websocket is refused by the server: never accepted),
answers an :class:`~asks.surfaces.web_forms.HttpError` with its short page, and a bug (any other
exception) with 500, logged with its traceback (asks/core/diagnostics.py) — the server and the
REPL go on. It counts what it refused (4xx/5xx) and the bugs. :func:`server_config` is
hypercorn's configuration (its error log to the debug log, never the terminal; no access log,
no ``Server`` header); :func:`plain_oserror` unwraps a bind failure from trio's groups.

Every response carries the same security headers (:data:`SECURITY_HEADERS`: the strict
Content-Security-Policy :data:`CSP` with no inline script or style, ``nosniff``,
``no-referrer``, ``DENY`` framing, ``no-store``). A request whose ``Host``, ``Origin``,
``Content-Type`` or ``Content-Length`` header is repeated is refused (400); a body over
:data:`~asks.surfaces.web_forms.MAX_BODY` (declared or streamed) is 413.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Final

import attrs
import hypercorn.config
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPScope, Scope

from asks.core import diagnostics
from asks.core.i18n import _
from asks.surfaces.web_forms import MAX_BODY, HttpError, Response, is_ascii_number, too_large

CSP: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS: Final = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
)


def headers_of(scope: HTTPScope) -> dict[str, str]:
    """Request headers by lower-case name (a repeated Host/Origin makes the request invalid)."""
    found: dict[str, str] = {}
    for name, value in scope["headers"]:
        key = name.decode("latin-1").lower()
        if key in found and key in ("host", "origin", "content-type", "content-length"):
            raise HttpError(
                400, _("Bad request"), _("Repeated {name} header.").format(name=key), back=False
            )
        found[key] = value.decode("latin-1")
    return found


async def read_body(headers: Mapping[str, str], receive: ASGIReceiveCallable) -> bytes:
    declared = headers.get("content-length")
    if declared is not None and (not is_ascii_number(declared) or int(declared) > MAX_BODY):
        raise too_large()
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise HttpError(400, _("Bad request"), _("The request ended early."))
        body += message["body"]
        if len(body) > MAX_BODY:
            raise too_large()
        if not message["more_body"]:
            return bytes(body)


async def send_response(send: ASGISendCallable, response: Response) -> None:
    headers = [(b"content-type", response.content_type.encode()), *SECURITY_HEADERS]
    if response.location is not None:
        headers.append((b"location", response.location.encode()))
    headers.append((b"content-length", str(len(response.body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    await send({"type": "http.response.body", "body": response.body, "more_body": False})


Handler = Callable[
    [HTTPScope, ASGIReceiveCallable, ASGISendCallable], Awaitable[Response | None]
]  # ``None``: the handler sent the response itself (an event stream)


@attrs.define(eq=False)
class AsgiApp:
    """The ASGI app around ``handle`` (module docstring); ``page`` renders a refusal, a bug is
    logged under the logger ``where``."""

    handle: Handler
    page: Callable[[HttpError], Response]
    where: str
    refused: int = attrs.field(default=0, init=False)  # answered with a 4xx/5xx status
    errors: int = attrs.field(default=0, init=False)  # unexpected exceptions (answered 500)

    async def __call__(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # websockets: refused by the server (the app never accepts)
        try:
            response = await self.handle(scope, receive, send)
        except HttpError as refused:
            response = self.page(refused)
        except Exception as exc:  # a bug: answered 500; the server (and the REPL) go on
            self.errors += 1
            diagnostics.unexpected(exc, self.where, f"{scope.get('method')} {scope.get('path')}")
            response = self.page(HttpError(500, _("Error"), _("Internal error."), back=False))
        if response is not None:
            if response.status >= 400:
                self.refused += 1
            await send_response(send, response)


async def _lifespan(receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def server_config(bind: str) -> hypercorn.config.Config:
    """Hypercorn's configuration for one bind (``host:port``), module docstring."""
    config = hypercorn.config.Config()
    config.bind = [bind]
    config.errorlog = diagnostics.debug_logger("hypercorn.error")  # never the terminal
    config.accesslog = None
    config.include_server_header = False
    config.graceful_timeout = 2.0
    return config


def plain_oserror(group: BaseExceptionGroup[BaseException]) -> OSError | None:
    """The OSError (a bind failure) if that is all ``group`` holds, for a plain ``raise``."""
    matched, rest = group.split(OSError)
    while rest is None and matched is not None:
        inner = matched.exceptions[0]
        if isinstance(inner, OSError):
            return inner
        matched = inner if isinstance(inner, BaseExceptionGroup) else None
    return None
