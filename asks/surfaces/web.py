"""The web bridge: answer pending questions from a browser, served from the caller's nursery.

A :class:`WebBridge` is a small plain-ASGI app served by hypercorn's trio worker inside the
caller's trio nursery, on the same thread as the :class:`~asks.host.host.QuestionHost` it serves —
so every host call is an ordinary synchronous call, as from the terminal panel. Start it with
``url = await nursery.start(bridge.run)``; :meth:`WebBridge.close` (or cancelling the nursery)
stops it. Routes (all need ``?token=…``):

* ``GET /`` — the pending questions, grouped by tool call, blocking ones marked; each question
  is its own plain POST form (works without JavaScript). ``GET /fragment`` — the live list
  alone. ``GET /app.js``, ``GET /app.css`` — the page's only script and style.
* ``POST /answer`` — saves through :meth:`~asks.host.host.QuestionHost.answer_from_nowait`, the
  panel's save → settle waits → outbox path, with the group's note (``group_note``, the
  note field of a section of several questions) if one was typed: 303 back to the list on
  success; 409 when the question was already answered elsewhere (terminal, another tab) or
  withdrawn — never a second delivery; 400 for bad input, 413 for a body over
  :data:`MAX_BODY`; nothing saved.
* ``GET /events`` — Server-Sent Events: ``event: change`` with the list version, sent on
  connect and whenever the pending questions (or which of them block) change; a comment line
  every :data:`KEEPALIVE` seconds. Terminal keystrokes (draft edits) send nothing.

Security: the token (``secrets.token_urlsafe``, per bridge) is compared in constant time on
every request; a wrong or missing one gets 403 with no data. The ``Host`` header must name the
bound address (DNS-rebinding guard). A POST also needs the CSRF field (an HMAC of the token),
an ``Origin`` (if sent) of this server and no cross-site ``Sec-Fetch-Site``. Every response
carries a strict Content-Security-Policy (no inline script or style), ``nosniff``,
``no-referrer`` and ``no-store`` (:mod:`asks.surfaces.web_http`: headers, body, response).
Loopback is the default bind; :func:`binding_warning` says what binding beyond it means.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Mapping
from functools import partial
from typing import Final
from urllib.parse import parse_qs, quote, urlsplit

import attrs
import hypercorn.config
import hypercorn.trio
import trio
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPScope, Scope

from asks.core import diagnostics
from asks.core import events as ev
from asks.core.answers import answer_problem
from asks.core.i18n import _
from asks.core.model import (
    QuestionRef,
    QuestionStatus,
)
from asks.core.refusal import Refusal
from asks.host.ports import SurfacePort
from asks.surfaces import web_page
from asks.surfaces.web_forms import (
    MAX_BODY,
    HttpError,
    Response,
    answer_from_form,
    conflict,
    forbidden,
    group_note,
    parse_form,
    question_ref,
    single,
    unknown_question,
)
from asks.surfaces.web_http import (
    CSP,
    SECURITY_HEADERS,
    headers_of,
    read_body,
    send_response,
)
from asks.surfaces.web_page import QuestionView, Withdrawal

__all__ = [
    "CSP",
    "KEEPALIVE",
    "MAX_BODY",
    "MAX_EVENT_CLIENTS",
    "WebBridge",
    "WebStatistics",
    "binding_warning",
    "is_loopback",
]

MAX_EVENT_CLIENTS: Final = 32  # concurrent /events streams
KEEPALIVE: Final = 15.0  # seconds between SSE comment lines
RECENT_WITHDRAWN: Final = 10  # "withdrawn by the agent" notices kept


def is_loopback(bind_host: str) -> bool:
    if bind_host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind_host.strip("[]")).is_loopback
    except ValueError:
        return False


def binding_warning(bind_host: str) -> str | None:
    """A warning to print when ``bind_host`` reaches beyond this machine, else ``None``."""
    if is_loopback(bind_host):
        return None
    return (
        f"warning: the web bridge listens on {bind_host}, beyond this machine. Anyone who can "
        "reach it and learns the URL (its token) can read and answer your questions, and "
        "plain HTTP is not encrypted."
    )


@attrs.frozen
class WebStatistics:
    """Snapshot of a bridge (for a status line or ``/web``)."""

    url: str | None  # None until the server listens, and after it stopped
    event_clients: int
    answers_saved: int
    refused: int  # requests answered with a 4xx/5xx status
    errors: int  # unexpected exceptions (answered 500; each in the debug log)


def _bind_spec(bind_host: str, port: int) -> str:
    host = bind_host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@attrs.define(eq=False)
class WebBridge:
    """Serves the pending questions of ``host`` over HTTP (see module docstring).

    ``port=0`` picks a free port. After ``await nursery.start(bridge.run)`` (which returns
    the URL), :attr:`url` is ``http://HOST:PORT/?token=…``.
    """

    host: SurfacePort
    bind_host: str = "127.0.0.1"
    port: int = 0
    token: str = attrs.field(factory=lambda: secrets.token_urlsafe(32), repr=False)
    url: str | None = attrs.field(default=None, init=False)
    _origin_hosts: frozenset[str] = attrs.field(default=frozenset(), init=False)
    _bound_port: int = attrs.field(default=0, init=False)
    _wildcard: bool = attrs.field(default=False, init=False)  # bound to every interface
    _closing: trio.Event = attrs.field(factory=trio.Event, init=False)
    _running: bool = attrs.field(default=False, init=False)
    _clients: set[trio.MemorySendChannel[int]] = attrs.field(factory=set, init=False)
    _version: int = attrs.field(default=0, init=False)
    _shown: tuple[tuple[QuestionRef, ...], frozenset[QuestionRef]] = attrs.field(
        default=((), frozenset()), init=False
    )
    _withdrawn: collections.deque[Withdrawal] = attrs.field(
        factory=lambda: collections.deque(maxlen=RECENT_WITHDRAWN), init=False
    )
    _answers: int = attrs.field(default=0, init=False)
    _refused: int = attrs.field(default=0, init=False)
    _errors: int = attrs.field(default=0, init=False)

    @property
    def warning(self) -> str | None:
        return binding_warning(self.bind_host)

    @property
    def csrf_token(self) -> str:
        return hmac.new(self.token.encode(), b"asks-web csrf", hashlib.sha256).hexdigest()

    def statistics(self) -> WebStatistics:
        return WebStatistics(
            self.url,
            len(self._clients),
            self._answers,
            self._refused,
            self._errors,
        )

    # ====================================================================== lifecycle
    async def run(self, *, task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve until :meth:`close` or cancellation; ``task_status.started(url)`` once bound.

        Raises ``OSError`` (before ``started``) if the address cannot be bound, e.g. a port in
        use. A bridge runs once; to restart, make a new one (a new token too).
        """
        if self._closing.is_set() or self._running:
            raise RuntimeError("a WebBridge runs once; make a new one")
        self._running = True
        config = hypercorn.config.Config()
        config.bind = [_bind_spec(self.bind_host, self.port)]
        config.errorlog = diagnostics.debug_logger("hypercorn.error")  # never the terminal
        config.accesslog = None
        config.include_server_header = False
        config.graceful_timeout = 2.0
        unsubscribe = self.host.subscribe_events(self._host_event)
        self._refresh()
        serve = partial(
            hypercorn.trio.serve,
            self._app,
            config,
            shutdown_trigger=self._closing.wait,
            mode="asgi",
        )
        try:
            async with trio.open_nursery() as nursery:
                binds: list[str] = await nursery.start(serve)
                self._bound(binds[0])
                assert self.url is not None
                task_status.started(self.url)
        except BaseExceptionGroup as group:  # the nurseries wrap a bind error: unwrap it
            oserror = None if self.url is not None else _plain_oserror(group)
            if oserror is None:
                raise
            raise oserror from None
        finally:
            unsubscribe()
            self._end_streams()
            self.url = None

    def close(self) -> None:
        """Stop: end the event streams and let hypercorn shut down gracefully."""
        self._closing.set()
        self._end_streams()

    def _bound(self, bind: str) -> None:
        parts = urlsplit(bind)
        assert parts.hostname is not None and parts.port is not None
        self._bound_port = port = parts.port
        wildcard = _is_ip(parts.hostname) and ipaddress.ip_address(parts.hostname).is_unspecified
        shown = parts.hostname
        if wildcard:  # show an address this machine's own browser can open
            shown = "::1" if ":" in parts.hostname else "127.0.0.1"
        names = {shown, parts.hostname}
        if is_loopback(parts.hostname) or wildcard:
            names |= {"127.0.0.1", "localhost", "::1"}
        self._origin_hosts = frozenset(_bind_spec(n, port).lower() for n in names)
        self._wildcard = wildcard
        self.url = f"http://{_bind_spec(shown, port)}/?token={quote(self.token, safe='')}"

    def _end_streams(self) -> None:
        for sender in list(self._clients):
            sender.close()
        self._clients.clear()

    # ====================================================================== host → page
    def _host_event(self, event: ev.HostEvent) -> None:
        """Typed host events (not keystrokes): a withdrawal is kept as a notice; anything that
        can change the list of pending questions or their blocking flags re-reads it."""
        if isinstance(event, ev.QuestionsWithdrawn):
            for ref in event.refs:
                spec = self.host.question(ref).spec
                self._withdrawn.appendleft(Withdrawal(ref.id, spec.header, spec.question))
        if not isinstance(event, ev.Delivered | ev.StorageFailed):
            self._refresh()

    def _refresh(self) -> None:
        """Bump the version (and tell every event stream) only if the list changed."""
        pending = tuple(self.host.projection.pending)
        blocking = frozenset(r for r in pending if self.host.wait_for(r) is not None)
        if (pending, blocking) == self._shown:
            return
        self._shown = (pending, blocking)
        self._version += 1
        for sender in list(self._clients):
            try:
                sender.send_nowait(self._version)
            except trio.WouldBlock:
                pass  # an undelivered event is already queued: the client will read the latest
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._clients.discard(sender)

    def _views(self) -> list[QuestionView]:
        blocking = self._shown[1]
        return [QuestionView(self.host.question(r), r in blocking) for r in self._shown[0]]

    # ====================================================================== ASGI
    async def _app(
        self, scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return  # websockets: refused by the server (the app never accepts)
        try:
            response = await self._handle(scope, receive, send)
        except HttpError as refused:
            token = self.token if refused.back else None
            body = web_page.message(refused.title, refused.text, token=token)
            response = Response(refused.status, body.encode())
        except Exception as exc:  # a bug: answered 500; the server (and the REPL) go on
            self._errors += 1
            diagnostics.unexpected(exc, __name__, f"{scope.get('method')} {scope.get('path')}")
            response = Response(
                500, web_page.message(_("Error"), _("Internal error."), token=None).encode()
            )
        if response is not None:
            if response.status >= 400:
                self._refused += 1
            await send_response(send, response)

    async def _handle(
        self, scope: HTTPScope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Response | None:
        headers = headers_of(scope)
        if not self._host_allowed(headers.get("host")):
            raise HttpError(400, _("Bad request"), _("Wrong Host header."), back=False)
        query = parse_qs(scope["query_string"].decode("latin-1"), keep_blank_values=True)
        given = query.get("token", [])
        if len(given) != 1 or not hmac.compare_digest(given[0].encode(), self.token.encode()):
            raise forbidden()
        method, path = scope["method"], scope["path"]
        if method == "POST" and path == "/answer":
            return await self._answer(headers, receive)
        if method != "GET":
            raise HttpError(
                405,
                _("Method not allowed"),
                _("{method} is not allowed here.").format(method=method),
            )
        match path:
            case "/":
                flash = query.get("flash", [""])[0]
                return self._html(
                    web_page.page(
                        self._views(),
                        tuple(self._withdrawn),
                        version=self._version,
                        token=self.token,
                        csrf=self.csrf_token,
                        flash=flash,
                    )
                )
            case "/fragment":
                return self._html(
                    web_page.live(
                        self._views(),
                        tuple(self._withdrawn),
                        version=self._version,
                        token=self.token,
                        csrf=self.csrf_token,
                    )
                )
            case "/events":
                await self._events(receive, send)
                return None
            case "/app.js":
                return Response(200, web_page.APP_JS.encode(), "text/javascript; charset=utf-8")
            case "/app.css":
                return Response(200, web_page.APP_CSS.encode(), "text/css; charset=utf-8")
        raise HttpError(404, _("Not found"), _("There is no such page."))

    @staticmethod
    def _html(text: str) -> Response:
        return Response(200, text.encode())

    def _host_allowed(self, value: str | None) -> bool:
        if value is None:
            return False
        value = value.lower()
        if value in self._origin_hosts:
            return True
        if not self._wildcard:
            return False
        try:  # bound to every interface: any IP literal (never a DNS name) with our port
            parts = urlsplit(f"//{value}")
            return parts.port == self._bound_port and _is_ip(parts.hostname or "")
        except ValueError:
            return False

    # ====================================================================== POST /answer
    async def _answer(self, headers: Mapping[str, str], receive: ASGIReceiveCallable) -> Response:
        fetch_site = headers.get("sec-fetch-site")
        if fetch_site is not None and fetch_site not in ("same-origin", "none"):
            raise forbidden(_("Cross-site request refused."))
        origin = headers.get("origin")
        # Referrer-Policy: no-referrer makes browsers send "Origin: null" on our own form
        # posts; that is accepted only with the browser's own "Sec-Fetch-Site: same-origin".
        if origin is not None and not (origin == "null" and fetch_site == "same-origin"):
            parts = urlsplit(origin)
            if parts.scheme != "http" or not self._host_allowed(parts.netloc):
                raise forbidden(_("Cross-site request refused."))
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/x-www-form-urlencoded":
            raise HttpError(400, _("Bad request"), _("Send the form as a plain HTML form."))
        fields = parse_form(await read_body(headers, receive))
        csrf = single(fields, "csrf")
        if csrf is None or not hmac.compare_digest(csrf.encode(), self.csrf_token.encode()):
            raise HttpError(
                403,
                _("Forbidden"),
                _("The form's CSRF token is missing or wrong; reload the page and try again."),
            )
        ref = question_ref(fields)
        state = self.host.projection.by_ref.get(ref)
        if state is None:
            raise unknown_question(ref.id)
        if state.status is not QuestionStatus.PENDING:
            raise conflict(state.status)
        action = single(fields, "action") or "answer"
        if action not in ("answer", "decline"):
            raise HttpError(400, _("Bad request"), _("Unknown action."))
        answer = None if action == "decline" else answer_from_form(state.question.spec, fields)
        note = group_note(fields)
        refusal = self.host.answer_from_nowait(ref.id, ref.incarnation, answer, "web", note)
        match refusal:
            case None:
                self._answers += 1
                flash = "declined" if answer is None else "saved"
                back = f"/?token={quote(self.token, safe='')}&flash={flash}"
                return Response(303, location=back)
            case Refusal.ALREADY_ANSWERED:
                raise conflict(QuestionStatus.ANSWERED)
            case Refusal.WITHDRAWN:
                raise conflict(QuestionStatus.WITHDRAWN)
            case Refusal.INVALID_ANSWER:
                assert answer is not None
                problem = answer_problem(state.question.spec, answer) or _("Invalid answer.")
                raise HttpError(400, _("Bad request"), problem)
            case Refusal.NOT_SAVED:
                # the host's notice is for the terminal ("…your draft is kept"): say it plainly
                why = _("storage error")
                raise HttpError(503, _("Not saved"), _("Not saved: {why}").format(why=why))
            case _:
                raise unknown_question(ref.id)

    # ====================================================================== GET /events
    async def _events(self, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        if len(self._clients) >= MAX_EVENT_CLIENTS or self._closing.is_set():
            raise HttpError(503, _("Busy"), _("Too many open pages."))
        sender, receiver = trio.open_memory_channel[int](1)
        self._clients.add(sender)
        disconnected = False
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), *SECURITY_HEADERS],
                }
            )
            first = f"retry: 2000\nevent: change\ndata: {self._version}\n\n".encode()
            await send({"type": "http.response.body", "body": first, "more_body": True})
            async with trio.open_nursery() as nursery:

                async def watch_disconnect() -> None:
                    nonlocal disconnected
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    disconnected = True
                    nursery.cancel_scope.cancel()

                nursery.start_soon(watch_disconnect)
                async with receiver:
                    while True:
                        with trio.move_on_after(KEEPALIVE) as idle:
                            try:
                                version = await receiver.receive()
                            except trio.EndOfChannel:
                                break
                        chunk = (
                            b": keepalive\n\n"
                            if idle.cancelled_caught
                            else (f"event: change\ndata: {version}\n\n".encode())
                        )
                        await send({"type": "http.response.body", "body": chunk, "more_body": True})
                nursery.cancel_scope.cancel()
            if not disconnected:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._clients.discard(sender)
            sender.close()


# ========================================================================== helpers
def _plain_oserror(group: BaseExceptionGroup[BaseException]) -> OSError | None:
    """The OSError (a bind failure) if that is all ``group`` holds, for a plain ``raise``."""
    matched, rest = group.split(OSError)
    while rest is None and matched is not None:
        inner = matched.exceptions[0]
        if isinstance(inner, OSError):
            return inner
        matched = inner if isinstance(inner, BaseExceptionGroup) else None
    return None
