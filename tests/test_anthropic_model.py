"""The Anthropic Messages provider against a real HTTP server on 127.0.0.1
(tests/support/fake_anthropic.py): in process (the provider's httpx client under trio), ``asks
-p`` as a command, and the REPL under a real pty.

The server records every request, so the tests assert on what the API would receive: the
``system`` prompt, ``tool_use``/``tool_result`` blocks, where feedback goes, the key header
(never journaled), the connection closing on Ctrl+C, and what each failure looks like.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from support.fake_anthropic import Call, FakeAnthropic, Reply, Seen
from support.pty_harness import ROOT, PtyApp
from support.static_server import static_server
from support.typist import after_claim_guard

from asks import contract
from asks.agent.anthropic_model import AnthropicModel, anthropic_messages
from asks.agent.loop import (
    Agent,
    AgentState,
    Message,
    ToolCall,
    ToolContext,
    TurnOutcome,
    context_from_journal,
)
from asks.agent.prompts import PromptBroker
from asks.agent.provider import Provider, Settings, system_prompt
from asks.agent.tools import WorkTool
from asks.agent.transcript import EntryKind, Transcript
from asks.contract import Guidance
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.journal import Journal, read_records

KEY = "sk-ant-test-SECRET-77c1"
GUIDANCE = Guidance("DESC-MARKER: ask the user.", "SNIPPET-MARKER", "GUIDELINES-MARKER")
COLOUR = [
    {"question": "Colour?", "header": "Colour", "options": [{"label": "Red"}, {"label": "Blue"}]}
]


def ask(questions: list[dict[str, Any]], blocking: bool = True) -> str:
    return json.dumps({"questions": questions, "blocking": blocking})


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
        self.model = AnthropicModel(
            Settings(
                "claude-test",
                url,
                KEY,
                "ANTHROPIC_API_KEY",
                provider=Provider.ANTHROPIC,
                **settings,
            ),
            GUIDANCE,
        )
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

    def journal_matches_context(self, tmp: Path) -> bool:
        records = read_records(self.journal.session_id, data_dir=tmp)
        return context_from_journal(records) == self.agent.messages


@pytest.fixture
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


@asynccontextmanager
async def serving(rig: Rig) -> AsyncIterator[Rig]:
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


def sent_key(seen: Seen) -> str:
    """The key as the SDK sent it (``x-api-key``, or a bearer token in newer SDKs)."""
    return seen.headers.get("x-api-key") or seen.headers["authorization"].removeprefix("Bearer ")


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# ---------------------------------------------------------------------------- requests
async def test_the_request_carries_system_tools_and_the_key(
    tmp_path: Path, server: FakeAnthropic
) -> None:
    server.queue(Reply("Hello there, person."))
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig, "hi") is TurnOutcome.FINISHED
    (seen,) = server.seen
    assert seen.path == "/v1/messages"
    assert sent_key(seen) == KEY and "anthropic-version" in seen.headers
    body = seen.body
    assert (body["model"], body["stream"], body["max_tokens"]) == ("claude-test", True, 4096)
    assert body["system"] == system_prompt(GUIDANCE)
    assert "SNIPPET-MARKER" in body["system"] and "GUIDELINES-MARKER" in body["system"]
    assert body["messages"] == [{"role": "user", "content": [text_block("hi")]}]
    assert seen.tool_names == ["work", "gate", "ask_user_question"]
    assert seen.tool("ask_user_question") == contract.anthropic_tool(GUIDANCE)
    assert seen.tool("gate")["input_schema"] == {"type": "object"}
    assert rig.texts(EntryKind.AGENT) == ["Hello there, person."]
    assert [e.title for e in rig.transcript.entries if e.kind is EntryKind.AGENT] == ["claude-test"]


async def test_tool_use_is_assembled_and_results_go_back_as_tool_result_blocks(
    tmp_path: Path, server: FakeAnthropic
) -> None:
    work = json.dumps({"seconds": 0, "label": "compile"})
    server.queue(
        Reply(
            "Let me ask and work.",
            [
                Call("ask_user_question", ask(COLOUR, blocking=False), "toolu_a"),
                Call("work", work, "toolu_b"),
                Call("nope", "{}", "toolu_c"),
            ],
        ),
        Reply("All done."),
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    second = server.seen[1]
    assert roles(second) == ["user", "assistant", "user"]
    assistant = second.messages[1]["content"]
    assert assistant[0] == text_block("Let me ask and work.")
    assert assistant[1:] == [
        {
            "type": "tool_use",
            "id": "toolu_a",
            "name": "ask_user_question",
            "input": json.loads(ask(COLOUR, blocking=False)),
        },
        {"type": "tool_use", "id": "toolu_b", "name": "work", "input": json.loads(work)},
        {"type": "tool_use", "id": "toolu_c", "name": "nope", "input": {}},
    ]
    results = {b["tool_use_id"]: b for b in second.messages[2]["content"]}
    assert all(b["type"] == "tool_result" for b in results.values())
    assert results["toolu_a"]["content"].startswith("Questions sent to the user without blocking")
    assert results["toolu_b"] == {
        "type": "tool_result",
        "tool_use_id": "toolu_b",
        "content": "compile: finished after 0 seconds.",
    }
    assert results["toolu_c"]["is_error"] is True
    assert results["toolu_c"]["content"].startswith("Error [unknown_tool]")
    assert len(rig.host.panel_port.tabs) == 1
    assert rig.journal_matches_context(tmp_path)
    assert anthropic_messages(rig.agent.messages)[:3] == second.messages


async def test_a_blocking_answer_reaches_the_model_as_the_tool_result(
    tmp_path: Path, server: FakeAnthropic
) -> None:
    server.queue(Reply("", [Call("ask_user_question", ask(COLOUR), "toolu_q")]), Reply("Blue!"))
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("pick for me")
        await rig.until(lambda: rig.host.surface_port.live_waits)
        rig.answer(row=1)
        await rig.until(
            lambda: rig.texts(EntryKind.AGENT) == ["Blue!"] and rig.agent.state is AgentState.IDLE
        )
    (result,) = server.seen[1].messages[-1]["content"]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_q",
        "content": 'User has answered your questions: "Colour?"="Blue". '
        "You can now continue with the user's answers in mind.",
    }


async def test_feedback_follows_the_tool_results_in_the_same_user_message(
    tmp_path: Path, server: FakeAnthropic
) -> None:
    server.queue(
        Reply(
            "",
            [
                Call("ask_user_question", ask(COLOUR, blocking=False), "toolu_q"),
                Call("gate", "{}", "toolu_g"),
            ],
        ),
        Reply("Thanks for the answer."),
        Reply("Woken."),
    )
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("go")
        await rig.until(lambda: rig.host.panel_port.tabs and rig.gate.running)
        rig.answer(row=0)  # "Red", while the gate tool still runs: mid-turn (steer)
        rig.gate.opened.set()
        await rig.until(lambda: len(server.seen) == 2 and rig.agent.state is AgentState.IDLE)
    blocks = server.seen[1].messages[-1]["content"]
    assert [b["type"] for b in blocks] == ["tool_result", "tool_result", "text"]
    assert blocks[2]["text"].startswith(contract.FEEDBACK_PREFIX)
    assert 'answer "Red"' in blocks[2]["text"]
    assert roles(server.seen[1]) == ["user", "assistant", "user"]  # roles alternate


async def test_feedback_wakes_the_idle_agent(tmp_path: Path, server: FakeAnthropic) -> None:
    server.queue(
        Reply("Asked.", [Call("ask_user_question", ask(COLOUR, blocking=False), "toolu_q")]),
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
        await rig.until(lambda: rig.texts(EntryKind.AGENT)[-1:] == ["Woken: Blue."])
    wake = server.seen[2]
    assert roles(wake) == ["user", "assistant", "user", "assistant", "user"]
    (block,) = wake.messages[-1]["content"]
    assert block["text"].startswith(contract.FEEDBACK_PREFIX) and 'answer "Blue"' in block["text"]


async def test_the_key_never_reaches_the_journal(tmp_path: Path, server: FakeAnthropic) -> None:
    server.queue(
        Reply("", [Call("ask_user_question", ask(COLOUR, blocking=False), "t")]), Reply("done")
    )
    rig = Rig(tmp_path, server.url)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert all(sent_key(s) == KEY for s in server.seen)
    data = b"".join(p.read_bytes() for p in tmp_path.glob("*.jsonl"))
    assert data and KEY.encode() not in data and b"SECRET" not in data
    assert KEY not in repr(rig.model.settings)


async def test_non_streaming_mode(tmp_path: Path, server: FakeAnthropic) -> None:
    server.queue(
        Reply("Calling work.", [Call("work", '{"seconds": 0}', "w1")]), Reply("Whole reply.")
    )
    rig = Rig(tmp_path, server.url, stream=False)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert ["stream" in s.body for s in server.seen] == [False, False]
    assert rig.texts(EntryKind.AGENT) == ["Calling work.", "Whole reply."]
    assert server.seen[1].messages[-1]["content"][0]["tool_use_id"] == "w1"


async def test_stop_reasons_are_notices_not_context(tmp_path: Path, server: FakeAnthropic) -> None:
    server.queue(Reply("cut here", stop_reason="max_tokens"), Reply("no", stop_reason="refusal"))
    rig = Rig(tmp_path, server.url, max_tokens=64)
    assert await one_turn(rig) is TurnOutcome.FINISHED
    assert await one_turn(rig, "again") is TurnOutcome.FINISHED
    assert rig.texts(EntryKind.NOTICE) == [
        "The reply was cut off at max_tokens (64).",
        "The model declined to go on (stop_reason: refusal).",
    ]
    assert server.seen[0].body["max_tokens"] == 64
    assert [m.content for m in rig.agent.messages if m.role == "assistant"] == ["cut here", "no"]


async def test_notices_are_in_the_persons_language(tmp_path: Path, server: FakeAnthropic) -> None:
    """The person reads stop notices and the empty-reply notice in German; the model's context
    gets none of them."""
    from asks.core import i18n  # noqa: PLC0415

    server.queue(Reply("cut here", stop_reason="max_tokens"), Reply(""))
    rig = Rig(tmp_path, server.url, max_tokens=64)
    with i18n.use(i18n.Translator("de")):
        assert await one_turn(rig) is TurnOutcome.FINISHED
        assert await one_turn(rig, "again") is TurnOutcome.FINISHED
    assert rig.texts(EntryKind.NOTICE) == [
        "Die Antwort wurde bei max_tokens (64) abgeschnitten.",
        "Das Modell hat nichts gesagt (eine leere Antwort).",
    ]
    assert [m.content for m in rig.agent.messages if m.role == "assistant"] == ["cut here", ""]


# ---------------------------------------------------------------------------- interruption
@pytest.mark.parametrize("hang", ["before", "after"])
async def test_ctrl_c_cancels_the_request_in_flight(
    tmp_path: Path, server: FakeAnthropic, hang: str
) -> None:
    server.queue(Reply("streaming forever", hang=hang), Reply("Still here."))
    rig = Rig(tmp_path, server.url)
    async with serving(rig):
        rig.agent.send("go")
        await rig.until(lambda: server.seen)
        if hang == "after":
            await rig.until(lambda: rig.texts(EntryKind.AGENT))
        assert rig.agent.interrupt()
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        await rig.until(server.seen[0].disconnected.is_set)
        assert rig.texts(EntryKind.NOTICE)[-1].startswith("Interrupted")
        rig.agent.send("again")
        await rig.until(lambda: rig.texts(EntryKind.AGENT)[-1:] == ["Still here."])
    assert roles(server.seen[1]) == (
        ["user", "assistant", "user"] if hang == "after" else ["user"]
    )  # "again" joins "go" as one user turn


# ---------------------------------------------------------------------------- failures
FAST_RETRY = {"retry-after-ms": "1"}
URL = "http://127.0.0.1"

FAILURES = {
    "401": (
        Reply(status=401, error="invalid x-api-key"),
        1,
        "refused the request (HTTP 401: invalid x-api-key); check the API key in "
        "$ANTHROPIC_API_KEY",
    ),
    "403": (Reply(status=403, error="not allowed"), 1, "(HTTP 403: not allowed)"),
    "404 model": (
        Reply(status=404, error="model: claude-test"),
        1,
        "check the model name 'claude-test'",
    ),
    "429": (
        Reply(status=429, error="slow down", headers=FAST_RETRY),
        3,
        "is rate limiting (HTTP 429: slow down), after 2 retries",
    ),
    "529": (
        Reply(status=529, error="Overloaded", headers=FAST_RETRY),
        3,
        "is overloaded (HTTP 529: Overloaded), after 2 retries",
    ),
    "500": (
        Reply(status=500, error="boom", headers=FAST_RETRY),
        3,
        "failed (HTTP 500: boom), after 2 retries",
    ),
    "error event": (
        Reply("half a reply and", error_event="overloaded_error", error="Overloaded"),
        1,
        "broke off (Overloaded)",
    ),
    "cut mid-stream": (Reply("some words and then", cut=True), 1, "the reply stream from"),
    "no message_stop": (
        Reply("words but no end", truncate=True),
        1,
        "ended before the model finished",
    ),
    "garbage": (
        Reply(raw=b"event: message_start\ndata: {not json\n\n"),
        1,
        "the reply stream from",
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
async def test_failures_are_one_line_and_the_loop_goes_on(
    tmp_path: Path, server: FakeAnthropic, case: str
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
    last = server.seen[-1].messages
    assert [b["text"] for m in last for b in m["content"]] == ["first", "second"]  # no fragment
    assert rig.journal_matches_context(tmp_path)


async def test_a_web_server_s_html_error_page_is_one_short_line(tmp_path: Path) -> None:
    with static_server(tmp_path) as url:
        rig = Rig(tmp_path, url, max_retries=0)
        assert await one_turn(rig) is TurnOutcome.FAILED
    (error,) = rig.texts(EntryKind.ERROR)
    assert error == f"{url} failed (HTTP 501: Error response), after 0 retries"


async def test_connection_refused_and_timeout(tmp_path: Path) -> None:
    with FakeAnthropic() as closed:
        url = closed.url
    rig = Rig(tmp_path / "a", url, max_retries=1)
    assert await one_turn(rig) is TurnOutcome.FAILED
    (error,) = rig.texts(EntryKind.ERROR)
    assert error.startswith(f"cannot reach {url} (") and error.endswith("after 1 retry")
    with FakeAnthropic() as slow:
        slow.queue(Reply("late", delay=1.0), Reply("late", delay=1.0))
        rig = Rig(tmp_path / "b", slow.url, timeout=0.2, max_retries=1)
        assert await one_turn(rig) is TurnOutcome.FAILED
        assert "did not answer within 0.2 s ([model] timeout)" in rig.texts(EntryKind.ERROR)[0]
        assert len(slow.seen) == 2


def test_message_mapping_merges_roles_and_puts_results_first() -> None:
    call = ToolCall("t1", "work", '{"seconds": 1}')
    bad = ToolCall("t2", "work", "{not json")
    messages = [
        Message("user", "hi"),
        Message("assistant", "", (call, bad)),
        Message("user", f"{contract.FEEDBACK_PREFIX} early"),  # feedback before a result
        Message("tool", "done", tool_call_id="t1"),
        Message("tool", "Error [interrupted]: x.", tool_call_id="t2"),
        Message("assistant", ""),  # an empty reply: left out
        Message("user", "next"),
    ]
    assert anthropic_messages(messages) == [
        {"role": "user", "content": [text_block("hi")]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t1", "name": "work", "input": {"seconds": 1}},
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "work",
                    "input": {"_unparsed_arguments": "{not json"},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "done"},
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": "Error [interrupted]: x.",
                    "is_error": True,
                },
                text_block(f"{contract.FEEDBACK_PREFIX} early"),
                text_block("next"),
            ],
        },
    ]


# ---------------------------------------------------------------------------- the command
class Cli:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.data_dir = tmp / "data"
        (tmp / "config").mkdir()
        self.env = {
            k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
        }
        self.env.update(XDG_CONFIG_HOME=str(tmp / "config"), PYTHONPATH=str(ROOT))

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "asks", "--data-dir", str(self.data_dir), *args]

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            capture_output=True,
            text=True,
            stdin=None,
            env={**self.env, **env},
            cwd=self.tmp,
            timeout=60,
            check=False,
        )

    def journal_bytes(self) -> bytes:
        return b"".join(p.read_bytes() for p in self.data_dir.glob("*.jsonl"))

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.journal_bytes().splitlines() if line]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


def test_print_mode_with_the_anthropic_provider(cli: Cli, server: FakeAnthropic) -> None:
    server.queue(
        Reply("Let me ask.", [Call("ask_user_question", ask(COLOUR), "t1")]),
        Reply("I will assume Red."),
    )
    done = cli.run(
        "-p",
        "pick a colour",
        "--provider",
        "anthropic",
        "--model",
        "claude-test",
        "--base-url",
        server.url,
        ANTHROPIC_API_KEY=KEY,
    )
    assert (done.returncode, done.stdout) == (0, "I will assume Red.\n"), done.stderr
    first, second = server.seen
    assert first.tool_names == ["run_command", "read_file"]  # no ask tool without a UI
    assert sent_key(first) == KEY
    assert second.messages[-1]["content"][0]["content"].startswith("Error [no_ui]")
    (chosen,) = [r for r in cli.records() if r["type"] == "model_chosen"]
    assert (chosen["provider"], chosen["model"], chosen["base_url"]) == (
        "anthropic",
        "claude-test",
        server.url,
    )
    for output in (cli.journal_bytes(), done.stdout.encode(), done.stderr.encode()):
        assert KEY.encode() not in output


@pytest.mark.parametrize("allow", [False, True])
def test_print_mode_commands_need_allow_commands(
    cli: Cli, server: FakeAnthropic, allow: bool
) -> None:
    command = json.dumps({"command": "echo made > made.txt; echo ran"})
    server.queue(Reply("", [Call("run_command", command, "t1")]), Reply("Done."))
    flags = ["--allow-commands"] if allow else []
    done = cli.run(
        "-p",
        "make a file",
        "--provider",
        "anthropic",
        "--model",
        "m",
        "--base-url",
        server.url,
        *flags,
    )
    assert (done.returncode, done.stdout) == (0, "Done.\n"), done.stderr
    (result,) = server.seen[1].messages[-1]["content"]
    if allow:
        assert result["content"] == "Exit status 0. Output:\nran\n"
        assert (cli.tmp / "made.txt").read_text() == "made\n"  # ran in the start directory
    else:
        assert result["content"].startswith("Error [permission_denied]")
        assert result["is_error"] is True and not (cli.tmp / "made.txt").exists()


def test_provider_usage_errors_are_one_line_and_write_nothing(cli: Cli) -> None:
    done = cli.run("-p", "hi", "--provider", "nope", "--model", "m")
    assert done.returncode == 2 and done.stdout == ""
    assert "invalid choice: 'nope' (choose from openai, anthropic)" in done.stderr.replace(
        "'openai', 'anthropic'", "openai, anthropic"
    )
    config = cli.tmp / "config" / "asks" / "config.toml"
    config.parent.mkdir()
    config.write_text('[model]\nprovider = "antropic"\nname = "m"\n')
    done = cli.run("-p", "hi")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "asks: unknown provider 'antropic' ([model] provider); choose one of: openai, anthropic\n"
    )
    config.write_text("")
    done = cli.run("-p", "hi", "--provider", "anthropic", "--model", "claude-x")
    assert done.returncode == 2
    assert done.stderr == (
        "asks: no API key for https://api.anthropic.com: set the environment "
        "variable ANTHROPIC_API_KEY (or name another one with [model] "
        "api_key_env)\n"
    )
    done = cli.run("--allow-commands", "--script", "x.toml")
    assert done.returncode == 2 and "--allow-commands is only for -p" in done.stderr
    assert not cli.data_dir.exists()


def test_resume_keeps_the_model_unless_flags_override(cli: Cli, server: FakeAnthropic) -> None:
    """The session records its model; `--resume ID` (the printed hint) talks to it again."""
    server.queue(Reply("first"), Reply("second"), Reply("third"))
    done = cli.run(
        "-p", "one", "--provider", "anthropic", "--model", "claude-a", "--base-url", server.url
    )
    assert done.returncode == 0, done.stderr
    hint = done.stderr.split("(", 1)[1].rstrip(")\n")
    session = hint.split()[4]  # PYTHON -m asks --resume ID …
    assert hint.endswith(f"-m asks --resume {session} --data-dir {cli.data_dir}")
    done = cli.run(*hint.split()[3:], "-p", "two")  # no model flags: the recorded model
    assert (done.returncode, done.stdout) == (0, "second\n"), done.stderr
    assert server.seen[1].body["model"] == "claude-a"
    assert [b["text"] for m in server.seen[1].messages for b in m["content"]] == [
        "one",
        "first",
        "two",
    ]
    done = cli.run("--resume", session, "-p", "three", "--model", "claude-b")
    assert (done.returncode, done.stdout) == (0, "third\n"), done.stderr
    assert server.seen[2].body["model"] == "claude-b"  # same provider and URL, new name
    chosen = [(r["provider"], r["model"]) for r in cli.records() if r["type"] == "model_chosen"]
    assert chosen == [("anthropic", "claude-a"), ("anthropic", "claude-b")]


# ---------------------------------------------------------------------------- the REPL
def repl_replies(body: dict[str, Any]) -> Reply:
    """Asks a blocking question, then quotes the tool result it received."""
    last = body["messages"][-1]["content"][-1]
    if last["type"] == "tool_result":
        return Reply(f"CLAUDE-GOT: {last['content']}")
    return Reply(
        "CLAUDE-ASKING",
        [
            Call(
                "ask_user_question",
                json.dumps(
                    {
                        "questions": [
                            {
                                "question": "Pick a size?",
                                "header": "Size",
                                "options": [{"label": "Small"}, {"label": "Large"}],
                            }
                        ]
                    }
                ),
                "toolu_r",
            )
        ],
    )


def test_the_repl_talks_to_claude_and_the_answer_reaches_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "ANTHROPIC_API_KEY": KEY}
    with FakeAnthropic(repl_replies) as fake:
        app = PtyApp(
            [
                "--data-dir",
                str(data),
                "--provider",
                "anthropic",
                "--model",
                "claude-test",
                "--base-url",
                fake.url,
            ],
            env=env,
        )
        try:
            app.wait_for(r"idle$")
            app.type("go")
            app.press("enter")
            app.wait_for("CLAUDE-ASKING")
            app.wait_for(r"│ Pick a size\?")
            app.wait_for(r"Questions \(1\) ⚠ required")
            after_claim_guard()  # keys go where they were aimed until then
            app.press("down")
            app.wait_for(r"│ › 2\. Large")
            app.press("enter")
            app.wait_for(r'CLAUDE-GOT: User has answered your questions: "Pick a size\?"=')
            app.wait_for(r"idle$")
            app.type("/quit")
            app.press("enter")
            assert app.wait_exit() == 0
        finally:
            app.close()
        (journal,) = data.glob("*.jsonl")
        hint = f" -m asks --resume {journal.stem} --data-dir {data}"
        assert hint.encode() in app.raw_bytes().replace(b"\r\n", b"").replace(b"\n", b"")
        (result,) = fake.seen[-1].messages[-1]["content"]
        assert result["tool_use_id"] == "toolu_r" and '"Large"' in result["content"]
        assert sent_key(fake.seen[0]) == KEY
    assert KEY.encode() not in journal.read_bytes()
