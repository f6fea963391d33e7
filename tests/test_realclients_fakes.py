"""The real-client harness's fake models (tests/support/realclients), without the clients.

Over real HTTP on 127.0.0.1: the prompt's ``IA-CALL`` becomes one tool call as each client
names its tools (Claude Code's deferred ``mcp__asks__…`` behind ToolSearch, Codex's
namespace), a tool result is quoted, anything else is echoed; the log records it all.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from support.realclients import FakeAnthropic, FakeResponses, Kind

DEFERRED = "<system-reminder>deferred tools: mcp__asks__check_answers</system-reminder>"


def post(url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """POST ``body``; the data of each SSE event of the reply."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        text = reply.read().decode()
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}


def test_claude_loads_a_deferred_tool_then_calls_it_then_quotes_the_result(
    tmp_path: Path,
) -> None:
    fake = FakeAnthropic(tmp_path)
    try:
        url = fake.url + "/v1/messages"
        tools = [{"name": "ToolSearch"}, {"name": "Bash"}]
        asked = [user(DEFERRED, "IA-CALL check_answers {}")]
        events = post(url, {"stream": True, "tools": tools, "messages": asked})
        search = events[1]["content_block"]
        assert search["name"] == "ToolSearch"
        loaded = {"type": "tool_result", "tool_use_id": search["id"], "content": "loaded"}
        asked += [{"role": "assistant", "content": [search]}, {"role": "user", "content": [loaded]}]
        offered = [*tools, {"name": "mcp__asks__check_answers"}]
        events = post(url, {"stream": True, "tools": offered, "messages": asked})
        call = events[1]["content_block"]
        assert call["name"] == "mcp__asks__check_answers"
        result = {"type": "tool_result", "tool_use_id": call["id"], "content": "No new answers."}
        asked += [{"role": "assistant", "content": [call]}, {"role": "user", "content": [result]}]
        post(url, {"stream": True, "tools": offered, "messages": asked})
        post(url, {"stream": True, "tools": tools, "messages": [user("hello there")]})
        kinds = [r.kind for r in fake.log.requests()]
        assert kinds == [Kind.TOOL_SEARCH, Kind.TOOL_CALL, Kind.AFTER_TOOL, Kind.SAW]
        seen = fake.log.wait_kind(Kind.AFTER_TOOL)
        assert seen.reply == "IA-RESULT-SEEN: No new answers."
        assert fake.log.requests(Kind.SAW)[0].reply == "IA-SAW: hello there"
    finally:
        fake.close()


def test_codex_calls_a_tool_in_its_namespace_with_a_macros_arguments(tmp_path: Path) -> None:
    fake = FakeResponses(tmp_path)
    fake.define("db", {"questions": [], "blocking": False})
    try:
        url = fake.url + "/v1/responses"
        space = {"type": "namespace", "name": "mcp__asks", "tools": [{"name": "ask_user_question"}]}
        prompt = {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": ""}],
        }
        prompt["content"][0]["text"] = "IA-CALL ask_user_question @db"
        events = post(url, {"tools": [space], "input": [prompt]})
        item = next(e["item"] for e in events if e["type"] == "response.output_item.done")
        assert (item["namespace"], item["name"]) == ("mcp__asks", "ask_user_question")
        assert json.loads(item["arguments"]) == {"questions": [], "blocking": False}
        output = {"type": "function_call_output", "call_id": item["call_id"], "output": "Queued"}
        mark = fake.log.mark()
        post(url, {"tools": [space], "input": [prompt, item, output]})
        seen = fake.log.wait_kind(Kind.AFTER_TOOL, since=mark)
        assert seen.results[0].text == "Queued" and seen.reply == "IA-RESULT-SEEN: Queued"
        logged = [json.loads(line) for line in (tmp_path / "model.jsonl").read_text().splitlines()]
        assert [entry["kind"] for entry in logged] == ["tool_call", "after_tool"]
    finally:
        fake.close()
