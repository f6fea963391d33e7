"""The hub's HTTP/1.1 server: ASGI ``http`` scopes on trio and h11, one task per connection.

``await nursery.start(serve, app, listener)`` serves ``app`` on an already bound and
listening socket (the hub binds it before its screen: :mod:`asks.hub.listen`) until cancelled;
the caller keeps and closes the socket. The state model, the limits (:class:`Limits`) and the
invariants are in docs/hub-wire.md; in short:

* each connection is one task that reads a request's head, then calls the app **in that
  task**: no task, timer, channel or lock per request; every deadline is a cancel scope on
  the connection's own read;
* the app's ``receive`` reads the socket from whichever task calls it: the body first, then
  (the body whole) until the peer closes, which it reports as ``http.disconnect``; once the
  response ended, ``http.disconnect`` at once (a read in progress is cancelled);
* ``send`` keeps the head of a response with a ``Content-Length`` and writes it with the
  first body chunk in one ``send_all``; a stream's head (no length: SSE) is written at
  once; h11 frames the body (``Content-Length``, else chunked or until close);
* an app that raises or returns before its response started gets a 500 with no body (the
  exception goes to asks' debug log); one that stops half-way leaves a truncated response
  and a closed connection.

No lifespan, WebSocket, HTTP/2, TLS or ``Upgrade``: the hub needs none of them.
"""

from __future__ import annotations

import enum
import socket
import time
from email.utils import formatdate
from typing import Any, Final
from urllib.parse import unquote

import attrs
import h11
import trio

from asks.core import diagnostics
from asks.hub.asgi import App, Message, Scope

MAX_RECV: Final = 65536
ASGI: Final = {"version": "3.0", "spec_version": "2.3"}
LOGGER: Final = "asks.hub.wire"


@attrs.frozen
class Limits:
    """What a connection may take (each at least as strict as hypercorn's default)."""

    keep_alive: float = 5.0  # s from a connection's start or last response to a whole head
    body_timeout: float = 10.0  # s from a head to its whole body
    max_head: int = 16 * 1024  # bytes of a head (h11's max_incomplete_event_size)
    max_requests: int = 1000  # responses per connection; the last says Connection: close
    linger: float = 1.0  # s a closing connection reads and drops what the peer still sends


async def serve(
    app: App,
    listener: socket.socket,
    limits: Limits = Limits(),
    *,
    task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``app`` on ``listener`` (bound, listening) until cancelled (module docstring)."""
    local = listener.getsockname()
    dates = _Dates()

    async def handler(stream: trio.SocketStream) -> None:
        await _Connection(stream, app, limits, dates, (local[0], local[1])).run()

    listen = trio.SocketListener(trio.socket.from_stdlib_socket(listener))
    await trio.serve_listeners(handler, [listen], task_status=task_status)


@attrs.define(eq=False)
class _Dates:
    """The ``Date`` header's value, made once per second."""

    second: int = -1
    value: bytes = b""

    def now(self) -> bytes:
        second = int(time.time())
        if second != self.second:
            self.second, self.value = second, formatdate(second, usegmt=True).encode()
        return self.value


class _State(enum.Enum):
    """Where a request's response is (docs/hub-wire.md)."""

    NONE = 0  # nothing sent
    STARTED = 1  # head made, kept until the first body chunk
    SENDING = 2  # head written, more body to come
    DONE = 3  # the whole response written (or handed to a gone client)


DISCONNECT: Final = {"type": "http.disconnect"}


@attrs.define(eq=False)
class _Connection:
    """One client connection: its task serves its requests in turn (module docstring)."""

    stream: trio.SocketStream
    app: App
    limits: Limits
    dates: _Dates
    server: tuple[str, int]
    proto: h11.Connection = attrs.field(init=False)
    served: int = 0

    def __attrs_post_init__(self) -> None:
        self.proto = h11.Connection(h11.SERVER, max_incomplete_event_size=self.limits.max_head)

    async def run(self) -> None:
        """Serve requests until the connection ends; never raises but ``Cancelled``."""
        try:
            peer = self.stream.socket.getpeername()
            client = (str(peer[0]), int(peer[1]))
            while (request := await self._next_request()) is not None:
                self.served += 1
                exchange = _Exchange(self, request, client)
                if not await exchange.serve() or not self._next_cycle():
                    break
            await self._linger()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass  # the peer is gone
        except Exception:  # a bug here must not end the server's other connections
            _log("the hub's HTTP connection failed")
        finally:
            await self.stream.aclose()

    async def _next_request(self) -> h11.Request | None:
        """The next request's head, within the keep-alive deadline; ``None``: the connection
        ends (the peer closed, the deadline passed, or a malformed head was refused)."""
        deadline = trio.current_time() + self.limits.keep_alive
        while True:
            try:
                event = self.proto.next_event()
            except h11.RemoteProtocolError as exc:
                await self.refuse(exc.error_status_hint)
                return None
            if isinstance(event, h11.Request):
                return event
            if event is not h11.NEED_DATA:
                return None  # ConnectionClosed
            data = await self.read(deadline)
            if data is None:
                return None
            self.proto.receive_data(data)

    async def read(self, deadline: float) -> bytes | None:
        """Bytes from the peer (``b""``: it closed or reset); ``None`` past ``deadline``."""
        with trio.move_on_at(deadline):
            try:
                return await self.stream.receive_some(MAX_RECV)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return b""
        return None

    async def refuse(self, status: int) -> None:
        """An error response with no body that closes the connection, if one can be sent."""
        if self.proto.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        headers = [(b"content-length", b"0"), (b"connection", b"close"), self.date()]
        head = self.proto.send(h11.Response(status_code=status, headers=headers))
        await self.write(head + (self.proto.send(h11.EndOfMessage()) or b""))

    async def write(self, data: bytes) -> bool:
        """Write ``data`` whole; ``False`` if the peer is gone."""
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True

    def date(self) -> tuple[bytes, bytes]:
        return (b"date", self.dates.now())

    def _next_cycle(self) -> bool:
        """Ready for the next request: the rest of a body the app left unread is dropped
        when h11 has it already; ``False``: the connection cannot be reused."""
        conn = self.proto
        while conn.our_state is h11.DONE and conn.their_state is h11.SEND_BODY:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError:
                return False
            if event is h11.NEED_DATA:
                return False
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
            return True
        return False

    async def _linger(self) -> None:
        """Shut the socket for writing, then drop what the peer still sends until it closes
        or :attr:`Limits.linger` passed: closing with unread bytes would reset the
        connection, and the client could lose the response it has not read yet."""
        if self.proto.their_state is h11.CLOSED:
            return
        try:
            await self.stream.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return
        deadline = trio.current_time() + self.limits.linger
        while await self.read(deadline):
            pass


@attrs.define(eq=False)
class _Exchange:
    """One request on a connection: the app's scope, ``receive`` and ``send``."""

    conn: _Connection
    request: h11.Request
    client: tuple[str, int]
    state: _State = _State.NONE
    head: bytes = b""  # the response's head, made and not yet written
    body_done: bool = False  # the request's body has been handed to the app whole
    gone: bool = False  # the client is gone: nothing more is written or read
    over: bool = False  # the app returned: receive() reports a disconnect
    reading: trio.CancelScope | None = None  # a receive() waiting for the peer to close
    lock: trio.Lock | None = None  # one such receive() reads at a time
    deadline: float = attrs.field(init=False)
    suppress: bool = attrs.field(init=False)
    sized: bool = False  # the response has a Content-Length: its head waits for its body

    def __attrs_post_init__(self) -> None:
        self.deadline = trio.current_time() + self.conn.limits.body_timeout
        self.suppress = self.request.method == b"HEAD"

    async def serve(self) -> bool:
        """Run the app for this request; whether the connection may serve another."""
        scope = self.scope()
        if scope is None:
            await self.conn.refuse(400)
            return False
        try:
            await self.conn.app(scope, self.receive, self.send)
        except Exception:
            _log("the hub's app failed on a request")
        self.over = True
        if self.reading is not None:
            self.reading.cancel()
        if self.state is _State.NONE and not self.gone:
            await self.conn.refuse(500)
            return False
        if self.state is _State.STARTED and not self.gone:  # a head and no body: as hypercorn
            await self.conn.write(self.head)
        return self.state is _State.DONE and not self.gone

    def scope(self) -> Scope | None:
        """The request's ASGI scope; ``None`` when its path is not ASCII."""
        request = self.request
        path, _, query = request.target.partition(b"?")
        try:
            text = path.decode("ascii")
        except UnicodeDecodeError:
            return None
        return {
            "type": "http",
            "asgi": ASGI,
            "http_version": request.http_version.decode(),
            "method": request.method.decode("ascii").upper(),
            "scheme": "http",
            "path": unquote(text),
            "raw_path": path,
            "query_string": query,
            "root_path": "",
            "headers": list(request.headers),
            "client": self.client,
            "server": self.conn.server,
            "state": {},
            "extensions": {},
        }

    async def receive(self) -> Message:
        """The body, then ``http.disconnect`` once the peer closes (module docstring)."""
        if self.gone or self.over or self.state is _State.DONE:
            return DISCONNECT
        if not self.body_done:
            return await self._body()
        return await self._until_gone()

    async def _body(self) -> Message:
        conn = self.conn.proto
        chunks: list[bytes] = []
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:  # cut short, or bad chunked framing
                return await self._lost(exc.error_status_hint)
            if isinstance(event, h11.Data):
                chunks.append(bytes(event.data))
            elif isinstance(event, h11.EndOfMessage):
                self.body_done = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            elif chunks:
                return {"type": "http.request", "body": b"".join(chunks), "more_body": True}
            else:
                if conn.they_are_waiting_for_100_continue:
                    continue_ = h11.InformationalResponse(status_code=100, headers=[])
                    await self.conn.write(conn.send(continue_) or b"")
                data = await self.conn.read(self.deadline)
                if data is None:  # too slow: the connection ends
                    return await self._lost(None)
                conn.receive_data(data)

    async def _lost(self, status: int | None) -> Message:
        """The request cannot be read whole: refused with ``status`` if nothing was sent
        yet (as hypercorn does), and the client is gone."""
        if status is not None and self.state is _State.NONE:
            await self.conn.refuse(status)
        self.gone = True
        return DISCONNECT

    async def _until_gone(self) -> Message:
        if self.lock is None:
            self.lock = trio.Lock()
        async with self.lock:
            try:
                with trio.CancelScope() as self.reading:
                    await self._watch()
            finally:
                self.reading = None
        return DISCONNECT

    async def _watch(self) -> None:
        """Read until the peer closes (then the client is gone) or this read is cancelled
        (the response ended); bytes of a next request are kept, up to a head's limit."""
        conn = self.conn
        while not (self.gone or self.over or self.state is _State.DONE):
            if len(conn.proto.trailing_data[0]) > conn.limits.max_head:
                await trio.sleep_forever()
            data = await conn.read(float("inf"))
            if not data:
                self.gone = True
                return
            conn.proto.receive_data(data)

    async def send(self, message: Message) -> None:
        """The response, as ASGI's messages (module docstring)."""
        kind = message["type"]
        if kind == "http.response.start" and self.state is _State.NONE:
            self._start(message)
            if not self.sized and not self.gone:  # a stream: its client sees it start now
                await self._body_out(b"", more=True)
        elif kind == "http.response.body" and self.state in (_State.STARTED, _State.SENDING):
            await self._body_out(bytes(message.get("body", b"")), message.get("more_body", False))
        else:
            raise RuntimeError(f"unexpected ASGI message {kind!r} in state {self.state.name}")

    def _start(self, message: Message) -> None:
        status = int(message["status"])
        headers = [*message.get("headers", ()), self.conn.date()]
        self.sized = any(name.lower() == b"content-length" for name, _ in headers)
        if self.conn.served >= self.conn.limits.max_requests:
            headers.append((b"connection", b"close"))
        self.suppress = self.suppress or status in (204, 304)
        if not self.gone:
            self.head = self.conn.proto.send(h11.Response(status_code=status, headers=headers))
        self.state = _State.STARTED

    async def _body_out(self, body: bytes, more: bool) -> None:
        self.state = _State.SENDING if more else _State.DONE
        if self.gone:
            return
        conn = self.conn.proto
        parts = [self.head]
        self.head = b""
        if body and not self.suppress:
            parts.append(conn.send(h11.Data(data=body)) or b"")
        if not more:
            parts.append(conn.send(h11.EndOfMessage()) or b"")
        if not await self.conn.write(b"".join(parts)):
            self.gone = True
        if (self.gone or not more) and self.reading is not None:
            self.reading.cancel()


def _log(what: str) -> None:
    """``what``, with the exception being handled, to asks' debug log (if it is on)."""
    logger = diagnostics.debug_logger(LOGGER)
    if logger is not None:
        logger.exception(what)
