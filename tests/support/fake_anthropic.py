"""A real Anthropic Messages API server on 127.0.0.1, for tests (stdlib only).

:class:`FakeAnthropic` is a :class:`~support.fake_http.FakeServer` (its module docstring: the
server, what is recorded, the faults a :class:`Reply` can ask for) answering ``POST
/v1/messages``. With ``"stream": true`` a reply is sent as the Messages API's server-sent
events, each with its ``event:`` line: ``message_start``, then per content block
``content_block_start`` / ``content_block_delta`` (``text_delta`` in word-sized pieces, or
``input_json_delta`` in three pieces of the call's input text) / ``content_block_stop``, then
``message_delta`` with the ``stop_reason`` and ``message_stop``; a ``ping`` goes first, as the
real service sends one. Otherwise one JSON ``message`` body. An error is an Anthropic
``{"type": "error", "error": {"type", "message"}}`` body; ``error_event`` streams part of the
reply, then an ``event: error`` (e.g. overloaded). ``hang="after"`` sends the ping, the
message start, the block start and the first word.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from support.fake_http import BaseReply, FakeServer, Seen, sse_words

__all__ = ["Call", "FakeAnthropic", "Reply", "Seen"]

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
class Reply(BaseReply):
    stop_reason: str | None = None  # default: tool_use with calls, else end_turn
    error_event: str | None = None  # the error type of an in-stream error event


class FakeAnthropic(FakeServer[Reply]):
    """The Messages API server (module docstring)."""

    hang_after = 4  # ping, message_start, block start, first word
    cut_at_least = 3
    cut_tail = b'40\r\nevent: content_block_delta\ndata: {"ty'

    def __init__(self, respond: Callable[[dict[str, Any]], Reply] | None = None) -> None:
        super().__init__(respond or (lambda body: Reply("ok")))

    @property
    def url(self) -> str:
        """The base URL (the client appends ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    def route(self, path: str) -> bool:
        return path.split("?", maxsplit=1)[0].rstrip("/") == "/v1/messages"

    def message(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        return _message(reply, body)

    def events(self, reply: Reply, model: str) -> list[bytes]:
        return list(_events(reply, model))

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def error_event(self, reply: Reply) -> bytes | None:
        if reply.error_event is None:
            return None
        error = {"type": reply.error_event, "message": reply.error}
        return _sse("error", {"type": "error", "error": error})


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
        for word in sse_words(reply.text):
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
