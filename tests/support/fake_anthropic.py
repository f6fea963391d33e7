"""A real Anthropic Messages API server on 127.0.0.1, for tests (stdlib only).

``FakeAnthropic`` runs ``http.server.ThreadingHTTPServer`` (HTTP/1.1) in a daemon thread on an
ephemeral port. Every ``POST /v1/messages`` is recorded (:class:`Seen`: path, headers, decoded
JSON body, whether the client went away) and answered by a :class:`Reply` taken from
``replies`` (a queue) or, when the queue is empty, computed by ``respond(body)``.

With ``"stream": true`` a reply is sent as the Messages API's server-sent events, each with its
``event:`` line: ``message_start``, then per content block ``content_block_start`` /
``content_block_delta`` (``text_delta`` in word-sized pieces, or ``input_json_delta`` in three
pieces of the call's input text) / ``content_block_stop``, then ``message_delta`` with the
``stop_reason`` and ``message_stop``; a ``ping`` goes first, as the real service sends one.
Otherwise one JSON ``message`` body. Faults, for the failure tests:

* ``status`` ≠ 200 — an Anthropic ``{"type": "error", "error": {"type", "message"}}`` body
  (plus ``headers``, e.g. ``retry-after-ms`` so the client's retries are quick);
* ``error_event`` — stream part of the reply, then an ``event: error`` (e.g. overloaded);
* ``cut`` — stream half of the events, then close the socket in the middle of an event;
* ``truncate`` — end the body cleanly but without ``message_delta`` and ``message_stop``;
* ``hang`` — ``"before"``: send nothing; ``"after"``: send the first text delta; then wait
  until the client closes the connection (``Seen.disconnected``) or ``hang_limit`` seconds;
* ``delay`` — sleep before answering (client timeouts); ``raw`` — these bytes as the stream.
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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class Call:
    """A ``tool_use`` block; ``input`` is the JSON text streamed as is (it may be bad JSON)."""

    name: str
    input: str
    id: str = ""


@dataclass
class Reply:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    stop_reason: str | None = None  # default: tool_use with calls, else end_turn
    status: int = 200
    error: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    error_event: str | None = None  # the error type of an in-stream error event
    cut: bool = False
    truncate: bool = False
    hang: str | None = None  # "before" | "after"
    delay: float = 0.0
    raw: bytes | None = None
    body: bytes | None = None
    content_type: str | None = None


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    disconnected: threading.Event = field(default_factory=threading.Event)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.body.get("tools", [])]

    def tool(self, name: str) -> dict[str, Any]:
        return next(t for t in self.body.get("tools", []) if t["name"] == name)


class FakeAnthropic:
    """The server (see module docstring). Use as a context manager, or start()/stop()."""

    def __init__(self, respond: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        self.replies: deque[Reply] = deque()
        self.respond = respond or (lambda body: Reply("ok"))
        self.seen: list[Seen] = []
        self.hang_limit = 30.0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL (the client appends ``/v1/messages``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def wait_requests(self, count: int, timeout: float = 10.0) -> list[Seen]:
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.seen) >= count, timeout):
                raise AssertionError(f"expected {count} requests, got {len(self.seen)}")
            return list(self.seen)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self.replies:
                return self.replies.popleft()
        return self.respond(body)

    def _record(self, seen: Seen) -> None:
        with self._arrived:
            self.seen.append(seen)
            self._arrived.notify_all()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.loads(raw or b"{}")
                seen = Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                server._record(seen)
                if self.path.split("?")[0].rstrip("/") != "/v1/messages":
                    self._error(404, f"no route {self.path}", {})
                    return
                reply = server._next_reply(body)
                try:
                    self._answer(reply, body, seen)
                except (BrokenPipeError, ConnectionResetError):
                    seen.disconnected.set()
                    self.close_connection = True

            def _answer(self, reply: Reply, body: dict[str, Any], seen: Seen) -> None:
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.hang == "before":
                    self._wait_gone(seen)
                    return
                if reply.body is not None:
                    self._send(
                        reply.status,
                        reply.body,
                        reply.headers,
                        "text/html" if reply.content_type is None else reply.content_type,
                    )
                    return
                if reply.status != 200:
                    self._error(reply.status, reply.error, reply.headers)
                    return
                if not body.get("stream"):
                    self._send(200, json.dumps(_message(reply, body)).encode(), {})
                    return
                self.send_response(200)
                self._content_type(reply.content_type, "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                if reply.raw is not None:
                    self._chunk(reply.raw)
                    self._chunk(b"")
                    return
                events = list(_events(reply, str(body.get("model", ""))))
                if reply.hang == "after":
                    for event in events[:4]:  # ping, message_start, block start, first word
                        self._chunk(event)
                    self._wait_gone(seen)
                    return
                if reply.error_event or reply.cut:
                    for event in events[: max(3, len(events) // 2)]:
                        self._chunk(event)
                    if reply.error_event:
                        self._chunk(
                            _sse(
                                "error",
                                {
                                    "type": "error",
                                    "error": {"type": reply.error_event, "message": reply.error},
                                },
                            )
                        )
                        self._chunk(b"")
                        return
                    self.wfile.write(b'40\r\nevent: content_block_delta\ndata: {"ty')
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if reply.truncate:
                    events = events[:-2]  # no message_delta, no message_stop
                for event in events:
                    self._chunk(event)
                self._chunk(b"")

            def _content_type(self, given: str | None, default: str) -> None:
                kind = default if given is None else given
                if kind:
                    self.send_header("content-type", kind)

            def _chunk(self, data: bytes) -> None:
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _error(self, status: int, message: str, headers: dict[str, str]) -> None:
                kind = _ERROR_TYPES.get(status, "api_error")
                payload = {"type": "error", "error": {"type": kind, "message": message}}
                self._send(status, json.dumps(payload).encode(), headers)

            def _send(
                self,
                status: int,
                data: bytes,
                headers: dict[str, str],
                content_type: str = "application/json",
            ) -> None:
                self.send_response(status)
                self._content_type(content_type, "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def _wait_gone(self, seen: Seen) -> None:
                deadline = time.monotonic() + server.hang_limit
                sock = self.connection
                while time.monotonic() < deadline and not server._stopping.is_set():
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

        return Handler


def _stop_reason(reply: Reply) -> str:
    return reply.stop_reason or ("tool_use" if reply.calls else "end_turn")


def _usage() -> dict[str, int]:
    return {"input_tokens": 10, "output_tokens": 5}


def _message(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    for n, call in enumerate(reply.calls):
        content.append(
            {
                "type": "tool_use",
                "id": call.id or f"toolu_{n}",
                "name": call.name,
                "input": json.loads(call.input or "{}"),
            }
        )
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": content,
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": _usage(),
    }


def _sse(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _events(reply: Reply, model: str) -> Iterator[bytes]:
    """The SSE events of a streamed reply (module docstring)."""
    yield _sse("ping", {"type": "ping"})
    yield _sse(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _usage(),
            },
        },
    )
    index = 0
    if reply.text:
        yield _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        )
        for word in _words(reply.text):
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": word},
                },
            )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    for call in reply.calls:
        yield _sse(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {
                    "type": "tool_use",
                    "id": call.id or f"toolu_{index}",
                    "name": call.name,
                    "input": {},
                },
            },
        )
        step = max(1, len(call.input) // 3)
        for start in range(0, len(call.input), step):
            piece = call.input[start : start + step]
            yield _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def _words(text: str) -> list[str]:
    words, current = [], ""
    for char in text:
        current += char
        if char == " ":
            words.append(current)
            current = ""
    return [*words, current] if current else words
