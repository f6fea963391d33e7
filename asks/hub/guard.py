"""The ASGI layer in front of the MCP SDK's app: who may talk to the hub, and receipts.

Every HTTP request, before the SDK sees it:

0. A header the guard decides on (``Host``, ``Origin``, ``Authorization``, ``X-Asks-Agent``:
   :data:`SINGLE`) sent more than once → 400: the guard and the SDK's handlers would read
   different copies (the guard the last, Starlette the first).
1. ``Host`` must be one of the names the server is bound as (``127.0.0.1:P``, ``localhost:P``,
   ``[::1]:P``; DNS rebinding) → else 421; an ``Origin``, if sent, must be such a name too →
   else 403 (the MCP spec's rule for streamable HTTP).
2. A token in the query string (``?token=`` / ``?access_token=``) → 400 naming the header: URLs
   end up in logs and shell history, so the hub never accepts one there.
3. ``Authorization: Bearer <token>``, a credential of the :class:`~asks.hub.credentials.Keyring`
   as its files are now → else 401 with ``WWW-Authenticate: Bearer`` and a body that says
   nothing of the session.
4. The agent: with an agent's own token, an ``X-Asks-Agent`` header, if sent, must name that
   agent → else 403 naming both; with the shared token, a header must be a label as it stands
   (:func:`~asks.hub.identity.label_problem`) → else 400: two distinct names are never folded
   into one agent. The agent a token names rides in the scope (:func:`bound_agent`).
5. Only the MCP path is served (404 otherwise, after the token: nothing is revealed without it).
6. A POST's body is read whole (at most ``max_body`` bytes) and must be one JSON-RPC message
   (:mod:`asks.hub.bodies`: a JSON-RPC error otherwise). The hot calls of the 2026-07-28
   protocol are answered here, on the lean path (``lean``: :mod:`asks.hub.lean`); the SDK
   gets every other request, with the same bytes.

**Refusals are reported** (``on_refused``, a :class:`Refusal`: what was refused and the
label it gave, as received) for 401, 403 and 400-for-a-label: the session tells the person that
a client could not connect, and how to set it up again.

**The connection.** Each request's scope holds an event set once its client is gone: the
connection closed (``http.disconnect``) or the request ended before its handler did
(:func:`connection_gone`). A blocking ``ask_user_question`` waits only while it is not set
(:mod:`asks.hub.tools`): on an ``initialize`` session (Codex) the SDK runs the handler apart
from the POST that carried it and would otherwise keep waiting for a client that left.

**Receipts.** A tool call's handler registers the offers its response carries
(:func:`carry`) on the request's ASGI scope, which the SDK hands the handler as its starlette
request. When a body message holding the JSON-RPC response with that id has been handed to
the server (``await send`` returned: the server has written it to the socket), the offer is
delivered (:meth:`~asks.host.hub.HubPort.delivered`). If the request ends without that — the
client went away, the stream closed, the handler failed — the offer is released. What that
proves and what it cannot is in docs/architecture.md ("The hub").
"""

from __future__ import annotations

import enum
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, Protocol
from urllib.parse import parse_qs

import attrs
import trio

from asks.host.hub import HubPort, Offer
from asks.hub.asgi import App, Message, Receive, Scope, Send
from asks.hub.bodies import BodyProblem, BodyTooLargeError, parse, read_body, too_large
from asks.hub.credentials import Keyring
from asks.hub.identity import DEFAULT_LABEL, HEADER, label_problem

HookApp = Callable[[Scope, Receive, Send, str], Awaitable[None]]


class LeanAnswer(Protocol):
    """A request the guard answers itself, without the SDK (:mod:`asks.hub.lean`)."""

    async def answer(self, scope: Scope, send: Send) -> None: ...


LeanTaker = Callable[[Iterable[tuple[bytes, bytes]], Mapping[str, Any]], LeanAnswer | None]
"""Whether the guard answers a request itself: from its raw headers and decoded body."""

OFFERS_KEY: Final = "asks.offers"
GONE_KEY: Final = "asks.gone"
AGENT_KEY: Final = "asks.agent"
QUERY_TOKENS: Final = ("token", "access_token", "bearer")
SEND_GRACE: Final = 5.0  # seconds a response carrying answers may take to be handed over


class Refused(enum.StrEnum):
    """Why a request was refused (the ones the person is told about)."""

    TOKEN = "token"  # no token, or one the hub does not hold (any more)
    OTHER_AGENT = "other_agent"  # an agent's token, and a header naming another agent
    LABEL = "label"  # the shared token, and a header that is not a label


@attrs.frozen
class Refusal:
    """One refused request: why, the agent its token names (:attr:`Refused.OTHER_AGENT`) and
    the ``X-Asks-Agent`` it sent, as received (client text: sanitize before showing)."""

    why: Refused
    token_agent: str | None = None
    label: str | None = None


def hook_label(scope: Scope) -> str:
    """The agent a hook request speaks as: its token's agent, else its ``X-Asks-Agent``
    header (a label: the guard refused any other), else ``agent``."""
    bound = bound_agent(scope)
    if bound is not None:
        return bound
    for name, value in scope["headers"]:
        if bytes(name).decode("latin-1").lower() == HEADER:
            return bytes(value).decode("latin-1")
    return DEFAULT_LABEL


def bound_agent(scope: Scope | None) -> str | None:
    """The agent the request's credential names; ``None`` for the shared token."""
    agent = scope.get(AGENT_KEY) if scope is not None else None
    return agent if isinstance(agent, str) else None


def connection_gone(scope: Scope | None) -> trio.Event | None:
    """Set once the client of the request behind ``scope`` is gone (module docstring);
    ``None`` without an HTTP request."""
    gone = scope.get(GONE_KEY) if scope is not None else None
    return gone if isinstance(gone, trio.Event) else None


def carry(scope: Scope | None, request_id: object, offer: Offer, port: HubPort) -> None:
    """The response to ``request_id`` carries ``offer``: its receipt waits for the send.
    Without a scope (no HTTP transport) there is nothing to wait for: delivered now; with
    its client gone, nothing can carry it: released now."""
    if scope is None:
        port.delivered(offer)
        return
    gone = connection_gone(scope)
    if gone is not None and gone.is_set():
        port.released(offer)
        return
    scope.setdefault(OFFERS_KEY, []).append((request_id, offer))


def response_ids(body: bytes) -> set[object]:
    """The ids of the JSON-RPC responses (results or errors) in a JSON body or in the
    ``data:`` lines of complete server-sent events."""
    found: set[object] = set()
    chunks = (
        [body]
        if body.lstrip()[:1] in (b"{", b"[")
        else [
            line[5:]
            for line in body.replace(b"\r\n", b"\n").split(b"\n")
            if line.startswith(b"data:")
        ]
    )
    for chunk in chunks:
        try:
            parsed = json.loads(chunk)
        except ValueError:
            continue
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, dict) and ("result" in message or "error" in message):
                found.add(message.get("id"))
    return found


@attrs.define(eq=False)
class _Sent:
    """What one response has handed to the server so far: complete JSON-RPC messages are
    read from it (a JSON body once it is whole; each server-sent event once it ended)."""

    events: bool = False  # text/event-stream (else one JSON body)
    buffer: bytes = b""

    def start(self, message: Message) -> None:
        headers = dict(message.get("headers", ()))
        self.events = headers.get(b"content-type", b"").startswith(b"text/event-stream")

    def body(self, message: Message) -> set[object]:
        self.buffer += message.get("body", b"")
        if not self.events:
            if message.get("more_body", False):
                return set()
            whole, self.buffer = self.buffer, b""
            return response_ids(whole)
        text = self.buffer.replace(b"\r\n", b"\n")
        complete, _, self.buffer = text.rpartition(b"\n\n")
        return response_ids(complete) if complete else set()


@attrs.define(eq=False)
class HubGuard:
    """ASGI app wrapping the SDK's app (module docstring)."""

    app: App
    port: HubPort
    keyring: Keyring
    hosts: frozenset[str]  # the Host values this server answers to
    path: str = "/mcp"
    max_body: int = 1024 * 1024
    on_refused: Callable[[Refusal], None] | None = None
    hooks: Mapping[str, HookApp] = attrs.Factory(dict)  # path → its hook (asks/hub/hooks.py)
    lean: LeanTaker | None = None  # the requests answered without the SDK (asks/hub/lean.py)
    heard: Callable[[], None] | None = None  # told of every HTTP request (asks/hub/heap.py)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan: the SDK's session manager
            return
        if self.heard is not None:
            self.heard()
        refusal = self._refusal(scope)
        if refusal is not None:
            await _plain(send, *refusal)  # the body is never read: see _plain
            return
        hook = self.hooks.get(scope["path"].rstrip("/"))
        if hook is not None:
            await hook(scope, receive, send, hook_label(scope))
            return
        gone = scope[GONE_KEY] = trio.Event()
        if scope.get("method") == "POST":
            try:
                body = await read_body(receive, self.max_body)
            except BodyTooLargeError:
                await _rpc_error(send, too_large(self.max_body), CLOSE)  # the rest is unread
                return
            message = parse(body)
            if isinstance(message, BodyProblem):
                await _rpc_error(send, message)
                return
            receive = _replaying(body, receive, gone)
            lean = self.lean(scope["headers"], message) if self.lean is not None else None
        else:
            receive, lean = _watching(receive, gone), None
        try:
            if lean is not None:
                await lean.answer(scope, self._receipting(scope, send))
            else:
                await self.app(scope, receive, self._receipting(scope, send))
        finally:
            gone.set()
            for _request_id, offer in scope.pop(OFFERS_KEY, []):
                self.port.released(offer)

    def _refusal(self, scope: Scope) -> tuple[int, str, Iterable[tuple[bytes, bytes]]] | None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        raw = scope["headers"]
        if len(raw) != len(headers) and (twice := _twice(raw)) is not None:
            return 400, f"The {twice} header was sent more than once: send it once.", ()
        if headers.get("host") not in self.hosts:
            return 421, "This MCP server only answers to its loopback address.", ()
        origin = headers.get("origin")
        if origin is not None and origin.split("://", 1)[-1] not in self.hosts:
            return 403, "Cross-origin requests are refused.", ()
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if any(name in query for name in QUERY_TOKENS):
            return 400, "Send the token in the Authorization header, never in the URL.", ()
        credential = self.keyring.credential(headers.get("authorization"))
        if credential is None:
            self._refused(Refusal(Refused.TOKEN))
            return 401, "Unauthorized.", ((b"www-authenticate", b"Bearer"),)
        label = headers.get(HEADER)
        if credential.agent is not None:
            if label is not None and label != credential.agent:
                self._refused(Refusal(Refused.OTHER_AGENT, credential.agent, label))
                return 403, _other_agent(credential.agent, label), ()
            scope[AGENT_KEY] = credential.agent
        elif label is not None and (why := label_problem(label)) is not None:
            self._refused(Refusal(Refused.LABEL, None, label))
            return 400, f"The X-Asks-Agent header {why}: write the agent's name as it is.", ()
        path = scope["path"].rstrip("/")
        if path != self.path and path not in self.hooks:
            return 404, "Not found.", ()
        return None

    def _refused(self, refusal: Refusal) -> None:
        if self.on_refused is not None:
            self.on_refused(refusal)

    def _receipting(self, scope: Scope, send: Send) -> Send:
        sent = _Sent()

        async def send_then_receipt(message: Message) -> None:
            offers = scope.get(OFFERS_KEY)
            if message["type"] != "http.response.body" or not offers:
                await send(message)
                if message["type"] == "http.response.start":
                    sent.start(message)
                return
            # The SDK cancels its request's task group as soon as the server reports the
            # response complete, which can land inside this very send: shielded (for a few
            # seconds at most), the send either hands the bytes over or fails for real.
            with trio.CancelScope(shield=True, deadline=trio.current_time() + SEND_GRACE) as cs:
                await send(message)
            if cs.cancelled_caught:
                return  # not handed over in time: the offers are released at the end
            ids = sent.body(message)
            scope[OFFERS_KEY] = [(rid, offer) for rid, offer in offers if rid not in ids]
            for rid, offer in offers:
                if rid in ids:
                    self.port.delivered(offer)

        return send_then_receipt


SINGLE: Final = ("host", "origin", "authorization", HEADER)
"""The headers the guard decides on: each may come at most once (the guard and the SDK's
handlers must read the same value; RFC 9110 §7.2 for ``Host``)."""


def _twice(raw: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The name of a :data:`SINGLE` header sent more than once, if any (looked for only when
    some name repeats: the request's headers outnumber their distinct names)."""
    names = [name.decode("latin-1").lower() for name, _ in raw]
    return next((name for name in SINGLE if names.count(name) > 1), None)


CLOSE = ((b"connection", b"close"),)
"""The header that tells a client not to reuse the connection."""


def _other_agent(agent: str, label: str) -> str:
    return (
        f"This token belongs to the agent {agent}; the X-Asks-Agent header says "
        f"{json.dumps(label[:80])}. Drop the header or use that agent's own token "
        "(asks mcp token --agent NAME)."
    )


def _watching(receive: Receive, gone: trio.Event) -> Receive:
    """``receive``, setting ``gone`` when it reports the client's disconnect."""

    async def watched() -> Message:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
        return message

    return watched


def _replaying(body: bytes, receive: Receive, gone: trio.Event) -> Receive:
    """The body already read, as one message; then ``receive`` as :func:`_watching` does."""
    first: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]
    watched = _watching(receive, gone)

    async def replay() -> Message:
        return first.pop() if first else await watched()

    return replay


async def _rpc_error(
    send: Send, refused: BodyProblem, extra: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    body = refused.response()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        *extra,
    ]
    await send({"type": "http.response.start", "status": refused.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _plain(send: Send, status: int, text: str, extra: Iterable[tuple[bytes, bytes]]) -> None:
    """A refusal sent before the request's body was read. It says ``Connection: close``: the
    server cannot reuse a connection whose request body it left unread, and a client that did
    not hear so reuses it and gets "server disconnected" on its next request (seen with httpx
    retrying a stale token on one keep-alive connection)."""
    body = json.dumps({"error": text}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", b"%d" % len(body)),
        *CLOSE,
    ]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *extra]})
    await send({"type": "http.response.body", "body": body})
