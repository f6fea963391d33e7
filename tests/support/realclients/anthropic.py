"""The fake Anthropic Messages API for Claude Code (see :mod:`support.realclients.model`).

Claude Code names MCP tools ``mcp__<server>__<tool>``. With tool search on (its default) they
are deferred: named in a ``<system-reminder>`` and loaded by the model with ``ToolSearch
{"query": "select:<name>"}``; the fake does that step first, as a real model must.
"""

from __future__ import annotations

import json
import re
from typing import Any

from support.realclients.model import (
    RESULT_SHOWN,
    FakeModel,
    Handler,
    Json,
    Kind,
    ModelRequest,
    ToolResult,
    iter_texts,
    mono_ns,
)

USAGE = {
    "input_tokens": 10,
    "output_tokens": 1,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


def _blocks(message: Json) -> list[Json]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _result_text(block: Json) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(
            str(x.get("text", "")) if x.get("type") == "text" else json.dumps(x)
            for x in content
            if isinstance(x, dict)
        )
    return str(content or "")


def _user_text(message: Json) -> str:
    return "\n".join(iter_texts(_blocks(message)))


def _saw_tail(message: Json) -> str:
    """The tail of a user message: of its own text when it has any besides system reminders
    (a typed prompt), else of the reminders (a wake-up the client started)."""
    texts = list(iter_texts(_blocks(message)))
    plain = [t for t in texts if "<system-reminder>" not in t] or texts
    return re.sub(r"\s+", " ", "\n".join(plain))[-400:]


def resolve(name: str, tools: dict[str, Json], body_text: str) -> str | None:
    """The client's name for tool ``name``: itself, ``mcp__<server>__<name>`` offered, or one
    only named (deferred) in the request's text."""
    if name in tools:
        return name
    offered = [t for t in tools if t.startswith("mcp__") and t.endswith("__" + name)]
    if offered:
        return offered[0]
    pattern = re.escape(name) if name.startswith("mcp__") else rf"mcp__\w+?__{re.escape(name)}"
    named = re.search(rf"(?<![\w-])({pattern})(?![\w-])", body_text)
    return named.group(1) if named else None


class FakeAnthropic(FakeModel):
    """Anthropic Messages (``POST /v1/messages``, SSE or JSON) scripted by the prompt."""

    def model_path(self, path: str) -> bool:
        return path.endswith("/v1/messages")

    def _directive_before(self, messages: list[Json]) -> tuple[str, Json] | None:
        """The directive of the latest user text (the turn in progress)."""
        for message in reversed(messages):
            if message.get("role") != "user":
                continue
            found = self.directive(_user_text(message))
            if found is not None:
                return found
            plain = [t for t in iter_texts(_blocks(message)) if "<system-reminder>" not in t]
            if plain:
                return None  # a newer plain user text: the directive is done
        return None

    def plan(self, body: Json) -> tuple[Kind, Json, tuple[ToolResult, ...]]:
        """What to answer: (kind, the content block, the tool results quoted)."""
        tools = {str(t.get("name")): t for t in body.get("tools") or [] if isinstance(t, dict)}
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        if not tools or not messages:
            return Kind.SIDE, _side(body), ()
        uses = {
            b.get("id"): b.get("name")
            for m in messages
            for b in _blocks(m)
            if b.get("type") == "tool_use"
        }
        last = messages[-1]
        results = [b for b in _blocks(last) if b.get("type") == "tool_result"]
        body_text = json.dumps(body)
        if results:
            directive = self._directive_before(messages)
            searched = uses.get(results[-1].get("tool_use_id")) == "ToolSearch"
            if searched and directive is not None:
                name = resolve(directive[0], tools, body_text) or directive[0]
                return Kind.TOOL_CALL, _use(name, directive[1]), ()
            seen = tuple(ToolResult(_result_text(b), bool(b.get("is_error"))) for b in results)
            return Kind.AFTER_TOOL, _text(_quote(seen)), seen
        directive = self.directive(_user_text(last))
        if directive is None:
            return Kind.SAW, _text("IA-SAW: " + _saw_tail(last)), ()
        found = resolve(directive[0], tools, body_text)
        if found is None:
            return (
                Kind.NO_TOOL,
                _text(f"IA-NO-TOOL {directive[0]} (offered: {', '.join(tools)})"),
                (),
            )
        if found in tools and not tools[found].get("defer_loading"):
            return Kind.TOOL_CALL, _use(found, directive[1]), ()
        if "ToolSearch" in tools:
            search = {"query": "select:" + found, "max_results": 5}
            return Kind.TOOL_SEARCH, _use("ToolSearch", search), ()
        return Kind.NO_TOOL, _text(f"IA-NO-TOOL {directive[0]} (offered: {', '.join(tools)})"), ()

    def answer(self, handler: Handler, body: Json, n: int) -> ModelRequest:
        t_ns = mono_ns()
        kind, block, results = self.plan(body)
        model = str(body.get("model") or "claude-sonnet-4-5")
        stop = "tool_use" if block["type"] == "tool_use" else "end_turn"
        message: Json = {
            "id": f"msg_fake_{n}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": USAGE,
        }
        if body.get("stream"):
            _stream(handler, message, block, stop)
        else:
            handler.send_json(200, {**message, "content": [block], "stop_reason": stop})
        messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
        return ModelRequest(
            n=n,
            kind=kind,
            t_ns=t_ns,
            path=handler.path,
            last_user=_user_text(messages[-1]) if messages else "",
            tools=tuple(str(t.get("name")) for t in body.get("tools") or []),
            tool=block.get("name"),
            arguments=block.get("input"),
            results=results,
            reply=str(block.get("text", "")),
        )


def _side(body: Json) -> Json:
    squashed = json.dumps(body)[:20000].lower().replace("_", "")
    if "isnewtopic" in squashed:
        return _text('{"isNewTopic": true, "title": "IA probe"}')
    return _text("IA probe")


def _text(text: str) -> Json:
    return {"type": "text", "text": text}


def _use(name: str, arguments: Json) -> Json:
    return {"type": "tool_use", "id": f"toolu_fake_{mono_ns()}", "name": name, "input": arguments}


def _quote(results: tuple[ToolResult, ...]) -> str:
    parts = [("[error] " if r.is_error else "") + r.text[:RESULT_SHOWN] for r in results]
    return "IA-RESULT-SEEN: " + " | ".join(parts)


def _stream(handler: Handler, message: Json, block: Json, stop: str) -> None:
    """The reply as Messages SSE events."""
    handler.start_sse()
    handler.event("message_start", {"type": "message_start", "message": message})
    if block["type"] == "tool_use":
        start: Any = {**block, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    else:
        start = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    handler.event(
        "content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}
    )
    handler.event(
        "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    )
    handler.event("content_block_stop", {"type": "content_block_stop", "index": 0})
    handler.event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    handler.event("message_stop", {"type": "message_stop"})
    handler.wfile.flush()
