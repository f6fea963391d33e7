"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1
(tests/support/fake_openai.py).

The agent loop, the host and the provider's httpx client run under trio in the test; the server
runs in a thread and records every request, so the tests assert on exactly what a server would
receive: the tools offered, the system prompt, the tool results, where feedback is placed,
the API key (and that it never reaches the journal), the connection closing on Ctrl+C, and what
each failure looks like in the transcript with the loop still serving the next message.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from support.fake_openai import Call, FakeOpenAI, Reply, Seen
from support.static_server import static_server

from asks import contract
from asks.agent.loop import (
    Agent,
    AgentState,
    Message,
    ToolCall,
    ToolContext,
    TurnOutcome,
    context_from_journal,
)
from asks.agent.openai_model import (
    PLACEHOLDER_KEY,
    OpenAIModel,
    Settings,
    SettingsError,
    chat_messages,
    resolve_settings,
)
from asks.agent.prompts import PromptBroker
from asks.agent.tools import WorkTool
from asks.agent.transcript import EntryKind, Transcript
from asks.contract import Guidance
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.journal import Journal, read_records

KEY = "sk-test-SECRET-4f9a2b7c1d"
ROOT = Path(__file__).resolve().parents[1]
GUIDANCE = Guidance("DESC-MARKER: ask the user.", "SNIPPET-MARKER", "GUIDELINES-MARKER")


def ask(questions: list[dict[str, Any]], blocking: bool = True) -> str:
    return json.dumps({"questions": questions, "blocking": blocking})


COLOUR = [
    {"question": "Colour?", "header": "Colour", "options": [{"label": "Red"}, {"label": "Blue"}]}
]


@attrs.define(eq=False)
class GateTool:
    """A tool that runs until the test opens its gate (so answers can land mid-turn)."""

    name: str = "gate"
    opened: trio.Event = attrs.Factory(trio.Event)
    running: bool = False

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": "wait",
                "parameters": {"type": "object"},
            },
        }

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        self.running = True
        await self.opened.wait()
        return "gate done"


class Rig:
    def __init__(self, tmp: Path, url: str, *, ui: bool = True, **settings: Any) -> None:
        self.journal = Journal.create(data_dir=tmp)
        self.host = QuestionHost(self.journal, clock=trio.current_time, ui_attached=ui)
        self.transcript = Transcript()
        self.broker = PromptBroker(self.host.panel_port)
        self.gate = GateTool()
        self.model = OpenAIModel(Settings("test", url, KEY, **settings), GUIDANCE)
        self.agent = Agent(
            self.host.agent_port,
            self.model,
            [WorkTool(), self.gate],
            self.transcript,
            self.broker.confirm,
            guidance=GUIDANCE,
        )

    def texts(self, kind: EntryKind) -> list[str]:
        return [e.text for e in self.transcript.entries if e.kind is kind]

    async def until(self, predicate: Callable[[], object], timeout: float = 10) -> None:
        with trio.fail_after(timeout):
            while not predicate():
                await trio.sleep(0.005)

    def answer(self, row: int = 0) -> None:
        if not self.host.panel_port.focus.panel_focused:
            assert self.host.panel_port.enter_panel() is None
        self.host.panel_port.set_cursor(row)
        self.host.panel_port.command(PanelCommand.CONFIRM)


@asynccontextmanager
async def serving(rig: Rig) -> AsyncIterator[Rig]:
    """The agent's run loop in the background; the client closed afterwards."""
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(rig.agent.run)
            yield rig
            nursery.cancel_scope.cancel()
    finally:
        await rig.model.aclose()


async def one_turn(rig: Rig, text: str = "hi") -> TurnOutcome:
    try:
        return await rig.agent.run_turn(text)
    finally:
        await rig.model.aclose()


def roles(seen: Seen) -> list[str]:
    return [m["role"] for m in seen.messages]


# ---------------------------------------------------------------------------- requests
async def test_first_request_offers_the_ask_tool_with_guidance(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(Reply("Hello there, person."))
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig, "hi") is TurnOutcome.FINISHED
    (seen,) = server.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.body["model"] == "test" and seen.body["stream"] is True
    assert seen.tool_names == ["work", "gate", "ask_user_question"]
    assert seen.tool("ask_user_question") == contract.openai_tool(GUIDANCE)
    assert seen.tool("ask_user_question")["function"]["description"] == GUIDANCE.description
    system = seen.messages[0]
    assert system["role"] == "system"
    assert "SNIPPET-MARKER" in system["content"] and "GUIDELINES-MARKER" in system["content"]
    assert seen.messages[1:] == [{"role": "user", "content": "hi"}]
    assert rig.texts(EntryKind.AGENT) == ["Hello there, person."]
    assert [e.title for e in rig.transcript.entries if e.kind is EntryKind.AGENT] == ["test"]


async def test_without_ui_the_ask_tool_is_not_offered_and_a_call_gets_no_ui(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(
        Reply("asking anyway", [Call("ask_user_question", ask(COLOUR), "c1")]),
        Reply("fine, I assume Red"),
    )
    rig = Rig(tmp_path, server.url, ui=False)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    first, second = server.seen
    assert first.tool_names == ["work", "gate"]
    assert "non-interactive" in first.messages[0]["content"]
    tool = second.messages[-1]
    assert tool["role"] == "tool" and tool["tool_call_id"] == "c1"
    assert tool["content"].startswith("Error [no_ui]")
    assert not rig.host.panel_port.tabs


async def test_streamed_tool_calls_are_assembled_and_answered_in_order(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    work = json.dumps({"seconds": 0, "label": "compile"})
    server.queue(
        Reply(
            "Let me ask and work.",
            [
                Call("ask_user_question", ask(COLOUR, blocking=False), "call_a"),
                Call("work", work, "call_b"),
            ],
        ),
        Reply("All done."),
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    second = server.seen[1]
    assert roles(second) == ["system", "user", "assistant", "tool", "tool"]
    assistant = second.messages[2]
    assert assistant["content"] == "Let me ask and work."
    assert assistant["tool_calls"] == [
        {
            "id": "call_a",
            "type": "function",
            "function": {"name": "ask_user_question", "arguments": ask(COLOUR, blocking=False)},
        },
        {"id": "call_b", "type": "function", "function": {"name": "work", "arguments": work}},
    ]
    results = {m["tool_call_id"]: m["content"] for m in second.messages[3:]}
    assert results["call_a"].startswith("Questions sent to the user without blocking")
    assert results["call_b"] == "compile: finished after 0 seconds."
    assert len(rig.host.panel_port.tabs) == 1
    # the journal rebuilds exactly the context the server was sent
    records = read_records(rig.journal.session_id, data_dir=tmp_path)
    assert context_from_journal(records) == rig.agent.messages
    assert chat_messages(rig.agent.messages, second.messages[0]["content"])[:5] == second.messages


async def test_a_blocking_answer_reaches_the_model_as_the_tool_result(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(Reply("", [Call("ask_user_question", ask(COLOUR), "call_q")]), Reply("Blue!"))
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("pick for me")
        await rig.until(lambda: rig.host.surface_port.live_waits)
        rig.answer(row=1)
        await rig.until(
            lambda: rig.texts(EntryKind.AGENT) == ["Blue!"] and rig.agent.state is AgentState.IDLE
        )
    tool = server.seen[1].messages[-1]
    assert tool == {
        "role": "tool",
        "tool_call_id": "call_q",
        "content": 'User has answered your questions: "Colour?"="Blue". '
        "You can now continue with the user's answers in mind.",
    }


async def test_feedback_is_placed_after_the_tool_results_before_the_next_call(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(
        Reply(
            "",
            [
                Call("ask_user_question", ask(COLOUR, blocking=False), "call_q"),
                Call("gate", "{}", "call_g"),
            ],
        ),
        Reply("Thanks for the answer."),
    )
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("go")
        await rig.until(lambda: rig.host.panel_port.tabs and rig.gate.running)
        rig.answer(row=0)  # "Red", while the gate tool still runs: mid-turn
        rig.gate.opened.set()
        await rig.until(lambda: len(server.seen) == 2 and rig.agent.state is AgentState.IDLE)
    second = server.seen[1]
    assert roles(second) == ["system", "user", "assistant", "tool", "tool", "user"]
    feedback = second.messages[-1]["content"]
    (question_id,) = rig.host.surface_port.projection.current
    assert feedback.startswith(contract.FEEDBACK_PREFIX)
    assert f'Question {question_id} "Colour?": answer "Red".' in feedback
    assert [e.title for e in rig.transcript.entries if e.kind is EntryKind.FEEDBACK] == ["steer"]


async def test_feedback_wakes_the_idle_agent_as_a_new_model_call(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(
        Reply("Asked.", [Call("ask_user_question", ask(COLOUR, blocking=False), "call_q")]),
        Reply("Turn over."),
        Reply("Woken: Blue."),
    )
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("go")
        await rig.until(
            lambda: (
                rig.texts(EntryKind.AGENT)[-1:] == ["Turn over."]
                and rig.agent.state is AgentState.IDLE
            )
        )
        rig.answer(row=1)
        await rig.until(
            lambda: (
                rig.texts(EntryKind.AGENT)[-1:] == ["Woken: Blue."]
                and rig.agent.state is AgentState.IDLE
            )
        )
    wake = server.seen[2]
    assert roles(wake) == ["system", "user", "assistant", "tool", "assistant", "user"]
    text = wake.messages[-1]["content"]
    assert text.startswith(contract.FEEDBACK_PREFIX) and 'answer "Blue"' in text
    (question_id,) = rig.host.surface_port.projection.current
    assert f"Question {question_id}" in text  # the feedback names the question id
    assert [e.title for e in rig.transcript.entries if e.kind is EntryKind.FEEDBACK] == ["wake"]


async def test_the_api_key_never_reaches_the_journal(tmp_path: Path, server: FakeOpenAI) -> None:
    server.queue(
        Reply("", [Call("ask_user_question", ask(COLOUR, blocking=False), "c")]), Reply("done")
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert all(s.headers["authorization"] == f"Bearer {KEY}" for s in server.seen)
    data = b"".join(p.read_bytes() for p in tmp_path.glob("*.jsonl"))
    assert data and KEY.encode() not in data and b"SECRET" not in data
    assert KEY not in repr(rig.model.settings)


async def test_non_streaming_mode(tmp_path: Path, server: FakeOpenAI) -> None:
    server.queue(
        Reply("Calling work.", [Call("work", '{"seconds": 0}', "w1")]), Reply("Whole reply.")
    )
    rig = Rig(tmp_path, server.url, stream=False)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert [s.body.get("stream") for s in server.seen] == [None, None]
    assert rig.texts(EntryKind.AGENT) == ["Calling work.", "Whole reply."]
    assert server.seen[1].messages[-1]["tool_call_id"] == "w1"


async def test_repeated_call_ids_from_the_server_are_made_unique(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    """Some local servers number calls call_0, call_1… in every reply; the host would take a
    repeated id for a retry of the earlier call, so the provider renames it."""
    second_q = [
        {"question": "Size?", "header": "Size", "options": [{"label": "S"}, {"label": "L"}]}
    ]
    server.queue(
        Reply("", [Call("ask_user_question", ask(COLOUR, blocking=False), "call_0")]),
        Reply(
            "",
            [
                Call("ask_user_question", ask(second_q, blocking=False), "call_0"),
                Call("work", '{"seconds": 0}', "call_0"),
            ],
        ),
        Reply("Two questions."),
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert len(rig.host.panel_port.tabs) == 2  # two questions: no "retry", no call_conflict
    calls = [c.id for m in rig.agent.messages for c in m.tool_calls]
    assert calls[0] == "call_0" and len(set(calls)) == 3
    results = [m["tool_call_id"] for m in server.seen[2].messages if m["role"] == "tool"]
    assert sorted(results) == sorted(calls)


async def test_the_system_prompt_and_the_tool_prefix_do_not_depend_on_the_ui(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    """-p and the REPL share a prompt prefix, so a local server's prompt cache serves both."""
    server.queue(Reply("a"), Reply("b"))
    repl = Rig(tmp_path / "repl", server.url)
    headless = Rig(tmp_path / "headless", server.url, ui=False)
    assert await one_turn(repl) is TurnOutcome.FINISHED
    assert await one_turn(headless) is TurnOutcome.FINISHED
    with_ui, without_ui = server.seen
    assert with_ui.messages[0] == without_ui.messages[0]  # the same system message
    assert with_ui.tool_names[: len(without_ui.tool_names)] == without_ui.tool_names
    assert with_ui.body["tools"][:2] == without_ui.body["tools"]


async def test_a_true_retry_maps_to_the_same_question(tmp_path: Path, server: FakeOpenAI) -> None:
    """Same call id, same arguments, question still pending: the host's retry path (no new
    question), and the loop journals the repeated result so the journal still rebuilds the
    context. A reused id whose questions are closed is renamed (a new question)."""
    asked = ask(COLOUR, blocking=False)
    server.queue(
        Reply("", [Call("ask_user_question", asked, "r1")]),
        Reply("", [Call("ask_user_question", asked, "r1")]),  # the retry
        Reply("Asked once."),
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert len(rig.host.surface_port.projection.pending) == 1 and len(rig.host.panel_port.tabs) == 1
    ids = [c.id for m in rig.agent.messages for c in m.tool_calls]
    assert ids == ["r1", "r1"]
    results = [m["content"] for m in server.seen[2].messages if m["role"] == "tool"]
    assert len(results) == 2 and results[0] == results[1]
    assert results[0].startswith("Questions sent to the user without blocking")
    records = read_records(rig.journal.session_id, data_dir=tmp_path)
    assert context_from_journal(records) == rig.agent.messages

    rig.answer(row=0)  # the question is closed now: the same id again is not a retry
    server.queue(Reply("", [Call("ask_user_question", asked, "r1")]), Reply("Asked again."))
    assert await one_turn(rig, "ask again") is TurnOutcome.FINISHED
    last = [c.id for m in rig.agent.messages for c in m.tool_calls][-1]
    assert last != "r1" and len(rig.host.surface_port.projection.pending) == 1


async def test_lone_surrogates_are_made_encodable_at_the_provider_edge(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    """Raw lone surrogates in text, tool names and arguments, and escaped ones inside the
    arguments' JSON, become U+FFFD once: the next requests go out, the journal rebuilds the
    same context, and every later message works."""
    escaped = (
        '{"questions": [{"question": "Pick\\ud800?", "header": "H\\udfff"}], "blocking": false}'
    )
    server.queue(
        Reply(
            "bad \ud800 text",
            [Call("nope\udc00", '{"x": "\ud800"}', "s1"), Call("ask_user_question", escaped, "s2")],
        ),
        Reply("still fine"),
        Reply("and again"),
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert await one_turn(rig, "next") is TurnOutcome.FINISHED
    assert rig.texts(EntryKind.AGENT) == ["bad \ufffd text", "still fine", "and again"]
    assistant = server.seen[1].messages[2]
    assert assistant["content"] == "bad \ufffd text"
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == [
        "nope\ufffd",
        "ask_user_question",
    ]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"x": "\ufffd"}'
    (state,) = rig.host.surface_port.projection.by_ref.values()
    assert (state.question.spec.question, state.question.spec.header) == ("Pick\ufffd?", "H\ufffd")
    records = read_records(rig.journal.session_id, data_dir=tmp_path)
    assert context_from_journal(records) == rig.agent.messages
    assert not rig.texts(EntryKind.ERROR)[:1] or "Unicode" not in rig.texts(EntryKind.ERROR)[0]


async def test_json_punctuation_beside_tool_calls_is_dropped(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    """llama.cpp leaves "{}" as content next to tool calls; a reply of only "{}" stays."""
    server.queue(Reply("{}\n{", [Call("work", '{"seconds": 0}', "w1")]), Reply("{}"))
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assistant = server.seen[1].messages[2]
    assert assistant["content"] is None and assistant["tool_calls"]
    assert rig.texts(EntryKind.AGENT) == ["{}"]  # the junk never showed; the plain reply did
    assert [m.content for m in rig.agent.messages if m.role == "assistant"] == ["", "{}"]


async def test_a_broken_stream_is_shown_but_not_fed_back(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(Reply("a fragment that breaks off", cut=True), Reply("Fresh start."))
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig, "first") is TurnOutcome.FAILED
    (error,) = rig.texts(EntryKind.ERROR)
    assert "[model] stream = false" in error
    assert rig.texts(EntryKind.AGENT)[0].startswith("a fragment")  # what the person saw stays
    assert await one_turn(rig, "second") is TurnOutcome.FINISHED
    assert roles(server.seen[1]) == ["system", "user", "user"]  # no fragment as its words
    records = read_records(rig.journal.session_id, data_dir=tmp_path)
    assert context_from_journal(records) == rig.agent.messages


async def test_an_empty_reply_says_the_model_said_nothing(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(Reply(""), Reply("cut", finish="length"))
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert rig.texts(EntryKind.NOTICE) == ["The model said nothing (an empty reply)."]
    assert await one_turn(rig, "more") is TurnOutcome.FINISHED
    assert rig.texts(EntryKind.NOTICE)[-1] == "The reply was cut off at the model's length limit."
    assert all("length limit" not in m.content for m in rig.agent.messages)


# ---------------------------------------------------------------------------- interruption
@pytest.mark.parametrize("hang", ["before", "after"])
async def test_ctrl_c_cancels_the_request_in_flight(
    tmp_path: Path, server: FakeOpenAI, hang: str
) -> None:
    server.queue(Reply("streaming forever", hang=hang), Reply("Still here."))
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("go")
        await rig.until(lambda: server.seen)
        if hang == "after":
            await rig.until(lambda: rig.texts(EntryKind.AGENT))
        with trio.fail_after(2):  # "at once": well under the client's 60 s timeout
            assert rig.agent.interrupt()
            await rig.until(lambda: rig.agent.state is AgentState.IDLE)
            await rig.until(server.seen[0].disconnected.is_set)
        assert rig.texts(EntryKind.NOTICE)[-1].startswith("Interrupted")
        rig.agent.send("again")  # the loop is alive
        await rig.until(lambda: rig.texts(EntryKind.AGENT)[-1:] == ["Still here."])
    assert roles(server.seen[1])[-1] == "user"


async def test_an_interrupted_wait_and_tool_map_to_coded_results(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(
        Reply("", [Call("ask_user_question", ask(COLOUR), "call_q"), Call("gate", "{}", "call_g")]),
        Reply("After the interruption."),
    )
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("go")
        await rig.until(lambda: rig.host.surface_port.live_waits and rig.gate.running)
        assert rig.agent.interrupt()
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        rig.agent.send("continue")
        await rig.until(lambda: len(server.seen) == 2 and rig.agent.state is AgentState.IDLE)
    results = {
        m["tool_call_id"]: m["content"] for m in server.seen[1].messages if m["role"] == "tool"
    }
    assert results["call_q"].startswith("Waiting for the user's answer was interrupted")
    assert "not a decline" in results["call_q"]
    assert results["call_g"].startswith("Error [interrupted]")
    assert roles(server.seen[1])[-1] == "user"


# ---------------------------------------------------------------------------- failures
FAST_RETRY = {"retry-after-ms": "1"}
# Seen with llama-server: the model's "{" streamed as content, then the server gives up.
LLAMA_CPP_ABORT = (
    b'data: {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "{"}, '
    b'"finish_reason": null}]}\n\n'
    b'data: {"error": {"code": 500, "message": "Invalid diff: now finding less tool calls!", '
    b'"type": "server_error"}}\n\n'
)

FAILURES = {
    "401": (
        Reply(status=401, error="Incorrect API key"),
        1,
        "refused the request (HTTP 401: Incorrect API key); check the API key in $OPENAI_API_KEY",
    ),
    "403": (Reply(status=403, error="not allowed"), 1, "(HTTP 403: not allowed)"),
    "404 model": (
        Reply(status=404, error="model 'test' not found"),
        1,
        "HTTP 404 from http://127.0.0.1",
    ),
    "429": (
        Reply(status=429, error="slow down", headers=FAST_RETRY),
        3,
        "is rate limiting (HTTP 429: slow down), after 2 retries",
    ),
    "500": (
        Reply(status=500, error="boom", headers=FAST_RETRY),
        3,
        "failed (HTTP 500: boom), after 2 retries",
    ),
    "503": (
        Reply(status=503, error="overloaded", headers=FAST_RETRY),
        3,
        "failed (HTTP 503: overloaded), after 2 retries",
    ),
    "cut mid-stream": (Reply("some words and then", cut=True), 1, "the reply stream from"),
    "no finish": (Reply("words but no end", truncate=True), 1, "ended before the model finished"),
    "garbage": (Reply(raw=b"data: {not json\n\n"), 1, "the reply stream from"),
    "llama.cpp error event": (
        Reply(raw=LLAMA_CPP_ABORT),
        1,
        "broke off (Invalid diff: now finding less tool calls!); the "
        "partial reply is kept on screen but not sent back to the model; "
        "if this server keeps breaking streams, set [model] stream = false",
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
async def test_failures_are_shown_and_the_loop_goes_on(
    tmp_path: Path, server: FakeOpenAI, case: str
) -> None:
    reply, requests, expected = FAILURES[case]
    server.queue(*[reply] * requests, Reply("Recovered."))
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("first")
        await rig.until(lambda: rig.texts(EntryKind.ERROR))
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        assert len(server.seen) == requests  # the client's bounded retries, no more
        rig.agent.send("second")
        await rig.until(lambda: rig.texts(EntryKind.AGENT)[-1:] == ["Recovered."])
    (error,) = [e for e in rig.transcript.entries if e.kind is EntryKind.ERROR]
    assert error.title == "model error"
    assert expected in error.text, error.text
    assert "\n" not in error.text and "Traceback" not in error.text
    assert roles(server.seen[-1]) == ["system", "user", "user"]  # no broken reply fed back


async def test_a_web_server_s_html_error_page_is_one_short_line(tmp_path: Path) -> None:
    """``--base-url`` pointing at a web server: its HTML 501 page becomes its title, the
    status said once (was ``HTTP 501: HTTP 501: <!DOCTYPE HTML> …``)."""
    with static_server(tmp_path) as url:
        rig = Rig(tmp_path, url, max_retries=1)
        assert await one_turn(rig) is TurnOutcome.FAILED
    (error,) = rig.texts(EntryKind.ERROR)
    assert error == f"{url} failed (HTTP 501: Error response), after 1 retry"


async def test_connection_refused(tmp_path: Path) -> None:
    with FakeOpenAI() as closed:
        url = closed.url  # the port is free again once the server stopped
    rig = Rig(tmp_path, url, max_retries=1)
    assert await one_turn(rig) is TurnOutcome.FAILED
    (error,) = rig.texts(EntryKind.ERROR)
    assert error.startswith(f"cannot reach {url} (") and error.endswith("after 1 retry")


async def test_a_timeout_is_reported_with_the_setting(tmp_path: Path, server: FakeOpenAI) -> None:
    server.queue(Reply("late", delay=1.0), Reply("late", delay=1.0))
    rig = Rig(tmp_path, server.url, timeout=0.2, max_retries=1)
    assert await one_turn(rig) is TurnOutcome.FAILED
    (error,) = rig.texts(EntryKind.ERROR)
    assert "did not answer within 0.2 s ([model] timeout)" in error
    assert len(server.seen) == 2


async def test_bad_tool_calls_get_coded_errors_and_the_model_corrects_itself(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    server.queue(
        Reply(
            "",
            [
                Call("ask_user_question", '{"questions": [', "bad_json"),
                Call("delete_everything", "{}", "unknown"),
            ],
        ),
        Reply("", [Call("ask_user_question", ask(COLOUR, blocking=False), "good")]),
        Reply("Corrected."),
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    results = {
        m["tool_call_id"]: m["content"] for m in server.seen[1].messages if m["role"] == "tool"
    }
    assert results["bad_json"].startswith(
        "Error [invalid_arguments]: The arguments are not valid JSON"
    )
    assert results["unknown"] == "Error [unknown_tool]: there is no tool named 'delete_everything'."
    assert server.seen[2].messages[-1]["content"].startswith("Questions sent to the user")
    assert rig.texts(EntryKind.AGENT)[-1] == "Corrected."


# ---------------------------------------------------------------------------- settings
def test_settings_need_a_key_only_for_remote_servers() -> None:
    local = resolve_settings("m", "http://127.0.0.1:8000/v1/", "OPENAI_API_KEY", 5, {})
    assert (local.base_url, local.api_key) == ("http://127.0.0.1:8000/v1", PLACEHOLDER_KEY)
    assert resolve_settings("m", "http://localhost:1/v1", "K", 5, {}).api_key == PLACEHOLDER_KEY
    assert resolve_settings("m", "http://[::1]:1/v1", "K", 5, {}).api_key == PLACEHOLDER_KEY
    with pytest.raises(
        SettingsError,
        match=r"no API key for https://api\.openai\.com/v1: "
        r"set the environment variable OPENAI_API_KEY",
    ):
        resolve_settings("m", None, "OPENAI_API_KEY", 5, {})
    with pytest.raises(SettingsError, match="MY_KEY"):
        resolve_settings("m", "https://example.com/v1", "MY_KEY", 5, {"OPENAI_API_KEY": "x"})
    remote = resolve_settings("m", "https://example.com/v1", "MY_KEY", 5, {"MY_KEY": "k1"})
    assert remote.api_key == "k1" and "k1" not in repr(remote)
    with pytest.raises(SettingsError, match="not an http"):
        resolve_settings("m", "ftp://127.0.0.1/v1", "K", 5, {})


def test_chat_message_mapping() -> None:
    call = ToolCall("c1", "work", '{"seconds": 1}')
    messages = [
        Message("user", "hi"),
        Message("assistant", "", (call,)),
        Message("tool", "done", tool_call_id="c1"),
        Message("assistant", ""),  # an interrupted reply with nothing in it: left out
        Message("user", f"{contract.FEEDBACK_PREFIX} answer"),
    ]
    assert chat_messages(messages, "SYS") == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "work", "arguments": '{"seconds": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "user", "content": f"{contract.FEEDBACK_PREFIX} answer"},
    ]


def test_the_sdks_are_imported_lazily() -> None:
    code = (
        "import sys, asks.cli, asks.agent.openai_model as m, asks.agent.anthropic_model as a;"
        " m.OpenAIModel(m.Settings('x')); a.AnthropicModel(m.Settings('y'));"
        " print('openai' in sys.modules, 'anthropic' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "False False"
