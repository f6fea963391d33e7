"""The HTTP/1.1 side of the fake model servers (stdlib only): one real server on 127.0.0.1.

:class:`FakeServer` runs ``http.server.ThreadingHTTPServer`` (keep-alive) in a daemon thread on
an ephemeral port. Every ``POST`` is recorded (:class:`Seen`: path, headers, decoded JSON body,
whether the client went away) and answered by a reply taken from ``replies`` (a queue) or, when
the queue is empty, computed by ``respond(body)``. A provider (tests/support/fake_openai.py,
tests/support/fake_anthropic.py) says only what is its own: the route, the JSON and streamed
bodies of a reply, its error body, how many events go before a hang or a cut.

What every provider's :class:`BaseReply` can ask for, for the failure tests:

* ``status`` ≠ 200 — the provider's error body (plus ``headers``, e.g. ``retry-after-ms`` so
  the client's retries are quick);
* ``cut`` — stream half of the events, then close the socket in the middle of a chunk;
* ``truncate`` — end the body cleanly but without the last two events (the end of the reply);
* ``hang`` — ``"before"``: send nothing; ``"after"``: send the first few events (up to the
  first word; then ``Seen.hanging`` is set); then wait until the client closes the
  connection (``Seen.disconnected``), or ``hang_limit`` seconds;
* ``delay`` — sleep before answering (client timeouts);
* ``raw`` — send these bytes as the event stream (e.g. malformed data);
* ``body`` — answer with exactly ``status``, ``headers`` and these bytes, labelled
  ``content_type`` (default ``text/html``; ``""``: no content type): a redirect, a web page,
  a body of the wrong type; ``content_type`` alone relabels a streamed reply.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Generic, Self, TypeVar


@dataclass
class BaseReply:
    """What the fake model answers; a provider's ``Reply`` adds its own fields."""

    text: str = ""
    calls: list[Any] = field(default_factory=list)  # the provider's ``Call``s
    status: int = 200
    error: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False
    truncate: bool = False
    hang: str | None = None  # "before" | "after"
    delay: float = 0.0
    raw: bytes | None = None
    body: bytes | None = None
    content_type: str | None = None


R = TypeVar("R", bound=BaseReply)


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float = 0.0
    handled_s: float = 0.0  # the server's own time: body read → last byte written
    disconnected: threading.Event = field(default_factory=threading.Event)
    hanging: threading.Event = field(default_factory=threading.Event)  # all it sends is sent

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tool_names(self) -> list[str]:
        return [_tool_name(t) for t in self.body.get("tools", [])]

    def tool(self, name: str) -> dict[str, Any]:
        return next(t for t in self.body.get("tools", []) if _tool_name(t) == name)


def _tool_name(tool: dict[str, Any]) -> str:
    """A tool's name: OpenAI nests it under ``function``, Anthropic does not."""
    return str(tool.get("function", tool)["name"])


def sse_words(text: str) -> list[str]:
    """``text`` in word-sized pieces (each ending in its space), as models stream it."""
    words, current = [], ""
    for char in text:
        current += char
        if char == " ":
            words.append(current)
            current = ""
    return [*words, current] if current else words


class FakeServer(Generic[R]):
    """The server (module docstring). Use as a context manager, or start()/stop()."""

    hang_after = 2  # events sent before a hang "after": up to the first word
    cut_at_least = 1  # events sent before a cut, at least
    cut_tail = b'40\r\ndata: {"partial'  # a chunk that never ends

    def __init__(self, respond: Callable[[dict[str, Any]], R]) -> None:
        self.replies: deque[R] = deque()
        self.respond = respond
        self.seen: list[Seen] = []
        self.hang_limit = 30.0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # -- what a provider says -----------------------------------------------------------------
    def route(self, path: str) -> bool:
        """Whether ``path`` is the provider's endpoint (else 404)."""
        raise NotImplementedError

    def message(self, reply: R, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON body of ``reply`` to a request without ``"stream": true``."""
        raise NotImplementedError

    def events(self, reply: R, model: str) -> list[bytes]:
        """The server-sent events of ``reply``, streamed."""
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The provider's error body for ``status``."""
        raise NotImplementedError

    def error_event(self, reply: R) -> bytes | None:
        """An in-stream error event ending the stream early, if the provider has one."""
        return None

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection ---------------------------------------------------------------
    def queue(self, *replies: R) -> None:
        with self._lock:
            self.replies.extend(replies)

    def wait_requests(self, count: int, timeout: float = 10.0) -> list[Seen]:
        """Block until ``count`` requests arrived; return them all."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.seen) >= count, timeout):
                raise AssertionError(f"expected {count} requests, got {len(self.seen)}")
            return list(self.seen)

    def next_reply(self, body: dict[str, Any]) -> R:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        return self.respond(body)

    def record(self, seen: Seen) -> None:
        with self._arrived:
            self.seen.append(seen)
            self._arrived.notify_all()

    def stopping(self) -> bool:
        return self._stopping.is_set()


def _handler_class(server: FakeServer[Any]) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        fake = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    """One connection to :attr:`fake`; answers each ``POST`` with the next reply."""

    fake: FakeServer[Any]
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small SSE writes go out at once

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        started = time.perf_counter()
        body = json.loads(raw or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items()}
        seen = Seen(self.path, headers, body, received_at=started)
        self.fake.record(seen)
        if not self.fake.route(self.path):
            self._send(404, json.dumps(self.fake.error_body(404, f"no route {self.path}")), {})
            return
        reply = self.fake.next_reply(body)
        try:
            self._answer(reply, body, seen)
        except (BrokenPipeError, ConnectionResetError):
            seen.disconnected.set()
            self.close_connection = True
        seen.handled_s = time.perf_counter() - started

    def _answer(self, reply: BaseReply, body: dict[str, Any], seen: Seen) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        if reply.hang == "before":
            self._wait_gone(seen)
        elif reply.body is not None:
            kind = "text/html" if reply.content_type is None else reply.content_type
            self._send(reply.status, reply.body, reply.headers, kind)
        elif reply.status != 200:
            error = self.fake.error_body(reply.status, reply.error)
            self._send(reply.status, json.dumps(error), reply.headers)
        elif not body.get("stream"):
            self._send(200, json.dumps(self.fake.message(reply, body)), {})
        else:
            self._stream(reply, body, seen)

    def _stream(self, reply: BaseReply, body: dict[str, Any], seen: Seen) -> None:
        self.send_response(200)
        self._content_type(reply.content_type, "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        if reply.raw is not None:
            self._chunk(reply.raw)
            self._chunk(b"")
            return
        events = self.fake.events(reply, str(body.get("model", "")))
        failure = self.fake.error_event(reply)
        if reply.hang == "after":
            for event in events[: self.fake.hang_after]:
                self._chunk(event)
            self._wait_gone(seen)
        elif failure is not None or reply.cut:
            for event in events[: max(self.fake.cut_at_least, len(events) // 2)]:
                self._chunk(event)
            if failure is not None:
                self._chunk(failure)
                self._chunk(b"")
            else:
                self.wfile.write(self.fake.cut_tail)
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
        else:
            for event in events[:-2] if reply.truncate else events:
                self._chunk(event)
            self._chunk(b"")

    def _content_type(self, given: str | None, default: str) -> None:
        kind = default if given is None else given
        if kind:
            self.send_header("content-type", kind)

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send(
        self,
        status: int,
        data: bytes | str,
        headers: dict[str, str],
        content_type: str = "application/json",
    ) -> None:
        payload = data.encode() if isinstance(data, str) else data
        self.send_response(status)
        self._content_type(content_type, "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()

    def _wait_gone(self, seen: Seen) -> None:
        """Hold the request open until the client closes the connection."""
        seen.hanging.set()
        deadline = time.monotonic() + self.fake.hang_limit
        sock = self.connection
        while time.monotonic() < deadline and not self.fake.stopping():
            readable, _, _ = select.select([sock], [], [], 0.02)
            if readable:
                try:
                    gone = sock.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    gone = True
                if gone:
                    seen.disconnected.set()
                    break
        self.close_connection = True
