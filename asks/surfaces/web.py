"""The web bridge: answer pending questions from a browser, served from the caller's nursery.

A :class:`WebBridge` is a small plain-ASGI app served by hypercorn's trio worker inside the
caller's trio nursery, on the same thread as the :class:`~asks.host.host.QuestionHost` it serves —
so every host call is an ordinary synchronous call, as from the terminal panel. Start it with
``url = await nursery.start(bridge.run)``; :meth:`WebBridge.close` (or cancelling the nursery)
stops it. Routes (all need ``?token=…``):

* ``GET /`` — the pending questions, grouped by tool call, blocking ones marked; each question
  is its own plain POST form (works without JavaScript). ``GET /fragment`` — the live list
  alone. ``GET /app.js``, ``GET /app.css`` — the page's only script and style.
* ``POST /answer`` — saves through
  :meth:`~asks.host.surfaceport.SurfacePort.answer_from`, the panel's save → settle
  waits → outbox path, with the group's note (``group_note``, the note field of a section of
  several questions) if one was typed: 303 back to the list on
  success; 409 when the question was already answered elsewhere (terminal, another tab) or
  withdrawn — never a second delivery; 400 for bad input, 413 for a body over
  :data:`MAX_BODY`; nothing saved.
* ``GET /events`` — Server-Sent Events: ``event: change`` with the list version, sent on
  connect and whenever the pending questions (or which of them block) change
  (:mod:`asks.surfaces.web_events`). Terminal keystrokes (draft edits) send nothing.

Security: the token (``secrets.token_urlsafe``, per bridge) is compared in constant time on
every request; a wrong or missing one gets 403 with no data. The ``Host`` header must name the
bound address (DNS-rebinding guard). A POST also needs the CSRF field (an HMAC of the token),
an ``Origin`` (if sent) of this server and no cross-site ``Sec-Fetch-Site``. Every response
carries a strict Content-Security-Policy (no inline script or style), ``nosniff``,
``no-referrer`` and ``no-store``. Loopback is the default bind; what binding beyond it means, the
URL and the ``Host`` guard: :mod:`asks.surfaces.web_bind`.

Here: the bridge's lifecycle, what the host's events change on the page, the routes and
``POST /answer``. The ASGI app, hypercorn's configuration and the HTTP plumbing are
:mod:`asks.surfaces.web_http`; the forms, :mod:`asks.surfaces.web_forms`; the HTML,
:mod:`asks.surfaces.web_page`.
"""

from __future__ import annotations

import collections
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from functools import partial
from typing import Final
from urllib.parse import parse_qs, quote, urlsplit

import attrs
import hypercorn.trio
import trio
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable, HTTPScope

from asks.core import events as ev
from asks.core.answers import answer_problem
from asks.core.i18n import _
from asks.core.model import (
    QuestionRef,
    QuestionStatus,
)
from asks.core.refusal import Refusal
from asks.host.surfaceport import SurfacePort
from asks.surfaces import web_page
from asks.surfaces.web_bind import UNBOUND, Address, bind_spec, binding_warning
from asks.surfaces.web_events import EventStreams
from asks.surfaces.web_forms import (
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
from asks.surfaces.web_http import AsgiApp, headers_of, plain_oserror, read_body, server_config
from asks.surfaces.web_page import QuestionView, Withdrawal

__all__ = ["WebBridge", "WebStatistics"]

RECENT_WITHDRAWN: Final = 10  # "withdrawn by the agent" notices kept


@attrs.frozen
class WebStatistics:
    """Snapshot of a bridge (for a status line or ``/web``)."""

    url: str | None  # None until the server listens, and after it stopped
    event_clients: int
    answers_saved: int
    refused: int  # requests answered with a 4xx/5xx status
    errors: int  # unexpected exceptions (answered 500; each in the debug log)


@attrs.define(eq=False)
class WebBridge:
    """Serves the pending questions of ``host`` over HTTP: a page listing them, each with
    a form to answer or decline (the README's "Answer from a browser" section); every
    request needs the bridge's token, answers are saved the panel's way.

    ``port=0`` picks a free port. After ``await nursery.start(bridge.run)`` (which returns
    the URL), :attr:`url` is ``http://HOST:PORT/?token=…``.
    """

    host: SurfacePort
    bind_host: str = "127.0.0.1"
    port: int = 0
    token: str = attrs.field(factory=lambda: secrets.token_urlsafe(32), repr=False)
    url: str | None = attrs.field(default=None, init=False)
    _address: Address = attrs.field(default=UNBOUND, init=False)
    _closing: trio.Event = attrs.field(factory=trio.Event, init=False)
    _running: bool = attrs.field(default=False, init=False)
    _streams: EventStreams = attrs.field(factory=EventStreams, init=False)
    _app: AsgiApp = attrs.field(init=False)
    _shown: tuple[tuple[QuestionRef, ...], frozenset[QuestionRef]] = attrs.field(
        default=((), frozenset()), init=False
    )
    _withdrawn: collections.deque[Withdrawal] = attrs.field(
        factory=lambda: collections.deque(maxlen=RECENT_WITHDRAWN), init=False
    )
    _answers: int = attrs.field(default=0, init=False)

    @_app.default
    def _make_app(self) -> AsgiApp:
        return AsgiApp(self._handle, self._page, __name__)

    @property
    def warning(self) -> str | None:
        """What binding beyond loopback means, to show the person (``None`` on loopback)."""
        return binding_warning(self.bind_host)

    @property
    def csrf_token(self) -> str:
        """The forms' CSRF field: an HMAC of the URL's token."""
        return hmac.new(self.token.encode(), b"asks-web csrf", hashlib.sha256).hexdigest()

    def statistics(self) -> WebStatistics:
        """The URL, open event streams, answers saved, requests refused and errors so far."""
        return WebStatistics(
            self.url, self._streams.open, self._answers, self._app.refused, self._app.errors
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
        config = server_config(bind_spec(self.bind_host, self.port))
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
                self._address = Address.of(binds[0])
                self.url = self._address.url(self.token)
                task_status.started(self.url)
        except BaseExceptionGroup as group:  # the nurseries wrap a bind error: unwrap it
            oserror = None if self.url is not None else plain_oserror(group)
            if oserror is None:
                raise
            raise oserror from None
        finally:
            unsubscribe()
            self._streams.close()
            self.url = None

    def close(self) -> None:
        """Stop: end the event streams and let hypercorn shut down gracefully."""
        self._closing.set()
        self._streams.close()

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
        pending = tuple(ref for _, refs in self.host.pending_by_agent() for ref in refs)
        blocking = frozenset(r for r in pending if self.host.wait_for(r) is not None)
        if (pending, blocking) == self._shown:
            return
        self._shown = (pending, blocking)
        self._streams.publish()

    def _views(self) -> list[QuestionView]:
        blocking = self._shown[1]
        return [QuestionView(self.host.question(r), r in blocking) for r in self._shown[0]]

    # ====================================================================== routes
    def _page(self, refused: HttpError) -> Response:
        """A refusal's short page (a link back to the list only with ``back``)."""
        token = self.token if refused.back else None
        body = web_page.message(refused.title, refused.text, token=token)
        return Response(refused.status, body.encode())

    async def _handle(
        self, scope: HTTPScope, receive: ASGIReceiveCallable, send: ASGISendCallable
    ) -> Response | None:
        headers = headers_of(scope)
        if not self._address.allows(headers.get("host")):
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
                        version=self._streams.version,
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
                        version=self._streams.version,
                        token=self.token,
                        csrf=self.csrf_token,
                    )
                )
            case "/events":
                await self._streams.serve(receive, send)
                return None
            case "/app.js":
                return Response(200, web_page.APP_JS.encode(), "text/javascript; charset=utf-8")
            case "/app.css":
                return Response(200, web_page.APP_CSS.encode(), "text/css; charset=utf-8")
        raise HttpError(404, _("Not found"), _("There is no such page."))

    @staticmethod
    def _html(text: str) -> Response:
        return Response(200, text.encode())

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
            if parts.scheme != "http" or not self._address.allows(parts.netloc):
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
        refusal = self.host.answer_from(ref.id, ref.incarnation, answer, "web", note)
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
