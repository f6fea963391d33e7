"""Fake model servers on 127.0.0.1, scripted by the prompt, with a request log tests wait on.

``FakeAnthropic`` (:mod:`~support.realclients.anthropic`) speaks the Anthropic Messages API
(SSE) for Claude Code, ``FakeResponses`` (:mod:`~support.realclients.responses`) the OpenAI
Responses API (SSE) for Codex. Each runs in this process, on a free port, in a thread of its
own. The script is the person's prompt:

* a user message with ``IA-CALL <tool> <JSON arguments>`` (or ``IA-CALL <tool> @name``, the
  arguments registered with :meth:`FakeModel.define`, which keeps typed prompts short) is
  answered by ONE call of that tool. ``<tool>`` is the name at the MCP server
  (``check_answers``; the client's own ``mcp__asks__check_answers`` works too) or a built-in
  tool (``Bash``, ``exec_command``). A deferred Claude tool is loaded with ``ToolSearch`` first;
* a request whose last message carries a tool result is answered with the text
  ``IA-RESULT-SEEN: <result>``;
* any other main request with ``IA-SAW: <tail of the last user text>`` — so a request the
  client starts on its own (a wake-up) shows in the log and on screen;
* side requests (titles, topic checks: no tools) get a short text.

Every request is a :class:`ModelRequest` in :attr:`FakeModel.log` (also written to
``model.jsonl``, with each body as ``model_dump/req_N.json``, in the folder given).
"""

from __future__ import annotations

import enum
import gzip
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs

Json = dict[str, Any]
DIRECTIVE = re.compile(r"IA-CALL\s+(\S+)\s+(@[\w.-]+|\{.*\})", re.S)
RESULT_SHOWN = 800  # characters of a tool result repeated in the reply (the log keeps all)
WAIT = 120.0  # seconds: the longest any wait of the log goes on before it fails


class Kind(enum.StrEnum):
    """What the fake model answered a request with."""

    TOOL_CALL = "tool_call"  # one call of the directive's tool
    TOOL_SEARCH = "tool_search"  # Claude's ToolSearch to load a deferred tool first
    AFTER_TOOL = "after_tool"  # IA-RESULT-SEEN: the tool result quoted
    SAW = "saw"  # IA-SAW: the tail of the last user text
    NO_TOOL = "no_tool"  # the directive's tool is not offered: IA-NO-TOOL
    SIDE = "side"  # a side request (title, topic): a short text
    OTHER = "other"  # not a model call: count_tokens, models, 404


@attrs.frozen
class ToolResult:
    """A tool result as the model got it."""

    text: str
    is_error: bool = False


@attrs.frozen
class ModelRequest:
    """One request to the fake model and what it answered."""

    n: int
    kind: Kind
    t_ns: int  # CLOCK_MONOTONIC when it arrived
    path: str
    last_user: str = ""  # the text of the last user message (all its text blocks)
    tools: tuple[str, ...] = ()  # the tool names offered (Codex: namespace/name)
    tool: str | None = None  # the tool called (TOOL_CALL, TOOL_SEARCH)
    arguments: Json | None = None  # its arguments
    results: tuple[ToolResult, ...] = ()  # the tool results quoted (AFTER_TOOL)
    reply: str = ""  # the text answered

    def to_json(self) -> Json:
        return {
            **attrs.asdict(self, recurse=True),
            "results": [attrs.asdict(r) for r in self.results],
        }


def mono_ns() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class ModelLog:
    """The requests a fake model got, in order; waits that end on progress, not on time."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "model.jsonl"
        self._entries: list[ModelRequest] = []
        self._changed = threading.Condition()

    def add(self, request: ModelRequest) -> None:
        with self._changed:
            self._entries.append(request)
            with self.path.open("a") as out:
                out.write(json.dumps(request.to_json()) + "\n")
            self._changed.notify_all()

    def next_n(self) -> int:
        with self._changed:
            return len(self._entries) + 1

    def requests(self, kind: Kind | None = None, since: int = 0) -> list[ModelRequest]:
        """The model calls (not OTHER) logged after position ``since``, of ``kind`` if given."""
        with self._changed:
            entries = self._entries[since:]
        return [r for r in entries if r.kind is not Kind.OTHER and (kind is None or r.kind is kind)]

    def mark(self) -> int:
        """A position in the log: pass it as ``since`` to see only what comes after now."""
        with self._changed:
            return len(self._entries)

    def wait_for(
        self,
        matches: Callable[[ModelRequest], bool],
        since: int = 0,
        timeout: float = WAIT,
        why: str = "a model request",
    ) -> ModelRequest:
        """The first model call after ``since`` that ``matches``; waits for it to arrive."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for request in self._entries[since:]:
                    if request.kind is not Kind.OTHER and matches(request):
                        return request
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {why} in {timeout:.0f}s; log: {self.summary()}")
                self._changed.wait(left)

    def wait_kind(self, kind: Kind, since: int = 0, timeout: float = WAIT) -> ModelRequest:
        """The first request answered with ``kind`` after ``since``."""
        return self.wait_for(lambda r: r.kind is kind, since, timeout, f"{kind} request")

    def summary(self) -> str:
        return "; ".join(
            f"#{r.n} {r.kind} {r.tool or ''} {r.reply[:80]!r}" for r in self.requests()
        )


# ---------------------------------------------------------------------------- the servers
class FakeModel:
    """A fake model API on 127.0.0.1 (a free port) in a thread of its own; :meth:`close` it."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.log = ModelLog(folder)
        self.macros: dict[str, Json] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def define(self, name: str, arguments: Json) -> None:
        """``IA-CALL <tool> @name`` calls the tool with ``arguments``."""
        self.macros[name] = arguments

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def directive(self, text: str) -> tuple[str, Json] | None:
        """The tool and arguments an ``IA-CALL`` in ``text`` asks for."""
        found = DIRECTIVE.search(text)
        if found is None:
            return None
        tool, raw = found.group(1), found.group(2)
        if raw.startswith("@"):
            return tool, self.macros[raw[1:]]
        return tool, json.loads(raw)

    def answer(self, handler: Handler, body: Json, n: int) -> ModelRequest:
        """Answer one model call on ``handler``; what was answered."""
        raise NotImplementedError

    def model_path(self, path: str) -> bool:
        raise NotImplementedError

    def _handler(self) -> type[Handler]:
        model = self

        class Bound(Handler):
            fake = model

        return Bound


class Handler(BaseHTTPRequestHandler):
    """The HTTP side shared by both fakes: JSON, SSE, the dump of each body."""

    protocol_version = "HTTP/1.1"
    fake: FakeModel

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send_json(self, code: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def event(self, name: str, payload: Json) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode())

    def read_body(self) -> Json:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if (self.headers.get("Content-Encoding") or "").lower() == "gzip":
            raw = gzip.decompress(raw)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return {"_unparsed": raw[:4000].decode("utf-8", "replace")}
        return body if isinstance(body, dict) else {"_body": body}

    def dump(self, n: int, body: Json | None) -> None:
        folder = self.fake.folder / "model_dump"
        folder.mkdir(exist_ok=True)
        secret = ("x-api-key", "authorization")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in secret}
        record = {"method": self.command, "path": self.path, "headers": headers, "body": body}
        (folder / f"req_{n}.json").write_text(json.dumps(record, indent=1))

    def other(self, n: int, code: int, payload: Any) -> None:
        self.send_json(code, payload)
        self.fake.log.add(ModelRequest(n, Kind.OTHER, mono_ns(), self.path))

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        n = self.fake.log.next_n()
        if self.path.split("?")[0].rstrip("/").endswith("/models"):
            models = [
                {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                for m in ("claude-sonnet-4-5", "fake-model")
            ]
            self.other(n, 200, {"object": "list", "data": models, "has_more": False, "models": []})
        else:
            self.other(n, 404, {"error": {"type": "not_found_error", "message": self.path}})

    def do_POST(self) -> None:
        n = self.fake.log.next_n()
        body = self.read_body()
        self.dump(n, body)
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/count_tokens"):
            self.other(n, 200, {"input_tokens": 100})
        elif not self.fake.model_path(path):
            self.other(n, 404, {"error": {"type": "not_found_error", "message": self.path}})
        else:
            self.fake.log.add(self.fake.answer(self, body, n))


def iter_texts(blocks: Any) -> Iterator[str]:
    """The text of each text block in a content list (a plain string is one block)."""
    if isinstance(blocks, str):
        yield blocks
        return
    for block in blocks or []:
        if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
            yield str(block.get("text", ""))
