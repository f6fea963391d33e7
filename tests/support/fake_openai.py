"""A real OpenAI-compatible chat-completions server on 127.0.0.1, for tests and benchmarks.

:class:`FakeOpenAI` is a :class:`~support.fake_http.FakeServer` (its module docstring: the
server, what is recorded, the faults a :class:`Reply` can ask for) answering ``POST
…/chat/completions``. A reply is streamed as server-sent events with chunked transfer encoding
when the request says ``"stream": true`` (text in word-sized deltas, each tool call as a first
delta with id and name then its arguments in pieces, a final chunk with ``finish_reason``, then
``data: [DONE]``), or sent as one JSON body otherwise; an error is an OpenAI-style
``{"error": {...}}`` body. ``hang="after"`` sends the role delta and the first word.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from support.fake_http import BaseReply, FakeServer, Seen, sse_words

__all__ = ["Call", "FakeOpenAI", "Reply", "Seen"]


@dataclass
class Call:
    """A tool call the fake model makes; ``arguments`` is sent as is (it may be bad JSON)."""

    name: str
    arguments: str
    id: str = ""


@dataclass
class Reply(BaseReply):
    finish: str | None = None  # the finish_reason (default: tool_calls with calls, else stop)


class FakeOpenAI(FakeServer[Reply]):
    """The chat-completions server (module docstring)."""

    def __init__(self, respond: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        super().__init__(respond or (lambda body: Reply("ok")))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def route(self, path: str) -> bool:
        return path.endswith("/chat/completions")

    def message(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
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
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
        }

    def events(self, reply: Reply, model: str) -> list[bytes]:
        return list(_events(reply, model))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"message": message, "type": "fake_error", "code": status}}


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
    for word in sse_words(reply.text):
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
