"""The web bridge's HTTP plumbing over ASGI: request headers, the body, the response.

Every response carries the same security headers (:data:`SECURITY_HEADERS`: the strict
Content-Security-Policy :data:`CSP` with no inline script or style, ``nosniff``,
``no-referrer``, ``DENY`` framing, ``no-store``). A request whose ``Host``, ``Origin``,
``Content-Type`` or ``Content-Length`` header is repeated is refused (400); a body over
:data:`~asks.surfaces.web_forms.MAX_BODY` (declared or streamed) is 413.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPScope

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
