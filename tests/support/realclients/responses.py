"""The fake OpenAI Responses API for Codex (see :mod:`support.realclients.model`).

Codex offers an MCP server's tools inside a namespace entry ``{"type": "namespace", "name":
"mcp__<server>", "tools": [...]}`` and expects ``function_call {namespace, name}``.
"""

from __future__ import annotations

import json
import re
import time
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
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 5,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
}
Tool = tuple[str | None, str]  # (namespace, name)


def offered(body: Json) -> dict[str, Tool]:
    """Every tool offered, as ``namespace/name`` (or ``name``) → (namespace, name)."""
    found: dict[str, Tool] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("tools"), list):
            space = str(tool.get("name"))
            for inner in tool["tools"]:
                if isinstance(inner, dict):
                    found[f"{space}/{inner.get('name')}"] = (space, str(inner.get("name")))
        else:
            name = str(tool.get("name") or tool.get("type"))
            found[name] = (None, name)
    return found


def resolve(name: str, tools: dict[str, Tool]) -> Tool | None:
    """Tool ``name`` (bare, ``mcp__<server>__<name>`` or ``namespace/name``) as offered."""
    if name in tools:
        return tools[name]
    full = re.fullmatch(r"(mcp__\w+?)__(\w+)", name)
    if full and f"{full.group(1)}/{full.group(2)}" in tools:
        return tools[f"{full.group(1)}/{full.group(2)}"]
    return next((tool for key, tool in tools.items() if key.endswith("/" + name)), None)


def _output_text(output: Any) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return "\n".join(str(x.get("text", "")) if isinstance(x, dict) else str(x) for x in output)
    return json.dumps(output)


def _last_user_text(items: list[Json]) -> str:
    for item in reversed(items):
        if item.get("type") == "message" and item.get("role") == "user":
            return "\n".join(iter_texts(item.get("content")))
    return ""


class FakeResponses(FakeModel):
    """OpenAI Responses (``POST …/responses``, SSE) scripted by the prompt."""

    def model_path(self, path: str) -> bool:
        return path.endswith("/responses")

    def plan(self, body: Json) -> tuple[Kind, Json, tuple[ToolResult, ...]]:
        """What to answer: (kind, the output item, the tool results quoted)."""
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        text_format = (body.get("text") or {}).get("format") or {}
        if text_format.get("type") == "json_schema":
            return Kind.SIDE, _message('{"title": "IA probe"}'), ()
        if not items:
            return Kind.SIDE, _message("IA probe"), ()
        last = items[-1]
        if last.get("type") in ("function_call_output", "custom_tool_call_output"):
            seen = (ToolResult(_output_text(last.get("output"))),)
            return Kind.AFTER_TOOL, _message("IA-RESULT-SEEN: " + seen[0].text[:RESULT_SHOWN]), seen
        user_text = _last_user_text(items)
        directive = self.directive(user_text)
        if directive is None:
            return Kind.SAW, _message("IA-SAW: " + re.sub(r"\s+", " ", user_text)[-400:]), ()
        tool = resolve(directive[0], offered(body))
        if tool is None:
            names = ", ".join(offered(body))
            return Kind.NO_TOOL, _message(f"IA-NO-TOOL {directive[0]} (offered: {names})"), ()
        call = {"type": "function_call", "name": tool[1], "arguments": json.dumps(directive[1])}
        if tool[0]:
            call["namespace"] = tool[0]
        return Kind.TOOL_CALL, call, ()

    def answer(self, handler: Handler, body: Json, n: int) -> ModelRequest:
        t_ns = mono_ns()
        kind, item, results = self.plan(body)
        item = {**item, "id": f"item_fake_{n}", "status": "completed"}
        if item["type"] == "function_call":
            item["call_id"] = f"call_fake_{n}"
        _stream(handler, str(body.get("model") or "fake-model"), n, item)
        items = [i for i in body.get("input") or [] if isinstance(i, dict)]
        arguments = json.loads(item["arguments"]) if "arguments" in item else None
        return ModelRequest(
            n=n,
            kind=kind,
            t_ns=t_ns,
            path=handler.path,
            last_user=_last_user_text(items),
            tools=tuple(offered(body)),
            tool=item.get("name"),
            arguments=arguments,
            results=results,
            reply="".join(str(c.get("text", "")) for c in item.get("content") or []),
        )


def _message(text: str) -> Json:
    content = [{"type": "output_text", "annotations": [], "text": text}]
    return {"type": "message", "role": "assistant", "content": content}


def _stream(handler: Handler, model: str, n: int, item: Json) -> None:
    """The reply as Responses SSE events."""
    sequence = iter(range(1_000))
    response = {
        "id": f"resp_fake_{n}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "model": model,
        "output": [],
        "usage": None,
    }

    def event(name: str, payload: Json) -> None:
        handler.event(name, {"type": name, "sequence_number": next(sequence), **payload})

    handler.start_sse()
    event("response.created", {"response": response})
    at = {"item_id": item["id"], "output_index": 0}
    if item["type"] == "function_call":
        event("response.output_item.added", {"output_index": 0, "item": {**item, "arguments": ""}})
        event("response.function_call_arguments.done", {**at, "arguments": item["arguments"]})
    else:
        text = item["content"][0]["text"]
        event("response.output_item.added", {"output_index": 0, "item": {**item, "content": []}})
        event("response.output_text.delta", {**at, "content_index": 0, "delta": text})
        event("response.output_text.done", {**at, "content_index": 0, "text": text})
    event("response.output_item.done", {"output_index": 0, "item": item})
    done = {**response, "status": "completed", "output": [item], "usage": USAGE}
    event("response.completed", {"response": done})
    handler.wfile.flush()
