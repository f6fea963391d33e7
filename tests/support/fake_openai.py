"""A real OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

``FakeOpenAI`` runs ``http.server.ThreadingHTTPServer`` (HTTP/1.1, keep-alive) in a daemon
thread on an ephemeral port. Every ``POST …/chat/completions`` is recorded (:class:`Seen`: path,
headers, decoded JSON body, whether the client went away) and answered by a :class:`Reply`
taken from ``replies`` (a queue) or, when the queue is empty, computed by ``respond(body)``.

A reply is streamed as server-sent events with chunked transfer encoding when the request says
``"stream": true`` (text in word-sized deltas, each tool call as a first delta with id and name
then its arguments in pieces, a final chunk with ``finish_reason``, then ``data: [DONE]``), or
sent as one JSON body otherwise. Faults, for the failure tests:

* ``status`` ≠ 200 — an OpenAI-style ``{"error": {...}}`` body (plus ``headers``, e.g.
  ``retry-after-ms`` so the client's retries are quick);
* ``cut`` — stream half of the events, then close the socket in the middle of a chunk;
* ``truncate`` — end the body cleanly but without ``finish_reason`` and ``[DONE]``;
* ``hang`` — ``"before"``: send nothing; ``"after"``: send headers and the first word; then wait
  until the client closes the connection (recorded in ``Seen.disconnected``), or
  ``hang_limit`` seconds;
* ``delay`` — sleep before answering (for client timeouts);
* ``raw`` — send these bytes as the event stream (e.g. malformed data).
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


@dataclass
class Call:
    """A tool call the fake model makes; ``arguments`` is sent as is (it may be bad JSON)."""

    name: str
    arguments: str
    id: str = ""


@dataclass
class Reply:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
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
    finish: str | None = None  # the finish_reason (default: tool_calls with calls, else stop)


@dataclass
class Seen:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received_at: float = 0.0
    handled_s: float = 0.0  # the server's own time: body read → last byte written
    disconnected: threading.Event = field(default_factory=threading.Event)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tool_names(self) -> list[str]:
        return [t["function"]["name"] for t in self.body.get("tools", [])]

    def tool(self, name: str) -> dict[str, Any]:
        return next(t for t in self.body.get("tools", []) if t["function"]["name"] == name)


class FakeOpenAI:
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

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection ------------------------------------------------------------
    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def wait_requests(self, count: int, timeout: float = 10.0) -> list[Seen]:
        """Block until ``count`` requests arrived; return them all."""
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

    # -- the handler ---------------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # small SSE writes go out at once

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                started = time.perf_counter()
                body = json.loads(raw or b"{}")
                seen = Seen(
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    received_at=started,
                )
                server._record(seen)
                if not self.path.endswith("/chat/completions"):
                    self._error(404, f"no route {self.path}", {})
                    return
                reply = server._next_reply(body)
                try:
                    self._answer(reply, body, seen)
                except (BrokenPipeError, ConnectionResetError):
                    seen.disconnected.set()
                    self.close_connection = True
                seen.handled_s = time.perf_counter() - started

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
                    self._json(reply, body)
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
                    for event in events[:2]:  # the role delta and the first word
                        self._chunk(event)
                    self._wait_gone(seen)
                    return
                if reply.cut:
                    for event in events[: max(1, len(events) // 2)]:
                        self._chunk(event)
                    self.wfile.write(b'40\r\ndata: {"partial')  # a chunk that never ends
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                if reply.truncate:
                    events = events[:-2]  # no finish_reason chunk, no [DONE]
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

            def _json(self, reply: Reply, body: dict[str, Any]) -> None:
                message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
                if reply.calls:
                    message["tool_calls"] = [
                        {
                            "id": c.id or f"call_{i}",
                            "type": "function",
                            "function": {"name": c.name, "arguments": c.arguments},
                        }
                        for i, c in enumerate(reply.calls)
                    ]
                payload = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", ""),
                    "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
                }
                self._send(200, json.dumps(payload).encode(), {})

            def _error(self, status: int, message: str, headers: dict[str, str]) -> None:
                payload = {"error": {"message": message, "type": "fake_error", "code": status}}
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
                """Hold the request open until the client closes the connection."""
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


def _events(reply: Reply, model: str) -> Iterator[bytes]:
    """The SSE events of a streamed reply (see module docstring)."""

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        chunk = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    yield event({"role": "assistant", "content": ""})
    for word in _words(reply.text):
        yield event({"content": word})
    for index, call in enumerate(reply.calls):
        head = {
            "index": index,
            "id": call.id or f"call_{index}",
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield event({"tool_calls": [head]})
        step = max(1, len(call.arguments) // 3)
        for start in range(0, len(call.arguments), step):
            piece = call.arguments[start : start + step]
            yield event({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield event({}, _finish(reply))
    yield b"data: [DONE]\n\n"


def _finish(reply: Reply) -> str:
    return reply.finish or ("tool_calls" if reply.calls else "stop")


def _words(text: str) -> list[str]:
    words, current = [], ""
    for char in text:
        current += char
        if char == " ":
            words.append(current)
            current = ""
    return [*words, current] if current else words
