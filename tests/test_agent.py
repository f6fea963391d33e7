"""The agent loop with the scripted model, headless: turns, steer, wake, interrupt, crash,
resume — and the script format's errors."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from support.agent_rig import AgentRig

from asks import contract
from asks.agent.loop import AgentState, Message, ModelEvent, TextDelta, context_from_journal
from asks.agent.scripted import ScriptError, builtin_tour, load_script, parse_script
from asks.agent.transcript import EntryKind
from asks.cli.session import build_session
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.entries import ChatMessage
from asks.store.journal import Journal, read_records

SCRIPT = """
[[step]]
on = "message"
match = "async"
[[step.reply]]
say = "Asking."
delay = 0
[[step.reply.call]]
tool = "ask_user_question"
args = { blocking = false, questions = [
  { question = "Color?", header = "Color", options = [ { label = "Red" }, { label = "Blue" } ] },
] }
[[step.reply.call]]
tool = "work"
args = { seconds = 1 }
[[step.reply]]
say = "Worked."
delay = 0

[[step]]
on = "message"
match = "block"
[[step.reply]]
say = "Blocking."
delay = 0
[[step.reply.call]]
tool = "ask_user_question"
args = { questions = [ { question = "Name?", header = "Name" } ] }
[[step.reply]]
say = "Result: {answers}"
delay = 0

[[step]]
on = "message"
match = "permission"
[[step.reply]]
say = "May I?"
delay = 0
[[step.reply.call]]
tool = "run_command"
args = { command = "rm -rf build" }
[[step.reply]]
say = "{result}"
delay = 0

[[step]]
on = "feedback"
[[step.reply]]
say = "Feedback: {answers}"
delay = 0
"""


def tool_results_pair_calls(messages: Sequence[Message]) -> None:
    """Every tool call has exactly one tool result, after it."""
    calls = [c.id for m in messages for c in m.tool_calls]
    results = [m.tool_call_id for m in messages if m.role == "tool"]
    assert sorted(calls) == sorted(results)


async def test_feedback_is_steered_into_the_running_turn(
    tmp_path: Path, autojump_clock: Any
) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("ask me async")
        await rig.until(lambda: rig.host.panel_port.tabs)
        assert rig.agent.state is AgentState.WORKING
        rig.answer_first_tab(row=1)  # "Blue", while the work tool is still running
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        nursery.cancel_scope.cancel()
    agent_texts = rig.texts(EntryKind.AGENT)
    assert "Feedback: Blue" in agent_texts[-1] and "Worked." in agent_texts[-1]
    feedback = [m for m in rig.agent.messages if m.content.startswith(contract.FEEDBACK_PREFIX)]
    assert len(feedback) == 1
    # steered after the work result and before the next model reply
    index = rig.agent.messages.index(feedback[0])
    assert rig.agent.messages[index - 1].role == "tool"
    assert rig.agent.messages[index + 1].role == "assistant"
    assert rig.texts(EntryKind.FEEDBACK) and rig.transcript.entries[-2].title == "steer"
    tool_results_pair_calls(rig.agent.messages)


async def test_an_answer_wakes_the_idle_agent(tmp_path: Path, autojump_clock: Any) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("ask me async")
        await rig.until(lambda: rig.texts(EntryKind.AGENT)[-1:] == ["Worked."])
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        turns = len(rig.texts(EntryKind.AGENT))
        rig.answer_first_tab(row=0)
        await rig.until(lambda: len(rig.texts(EntryKind.AGENT)) > turns)
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        nursery.cancel_scope.cancel()
    assert rig.texts(EntryKind.AGENT)[-1] == "Feedback: Red"
    assert [e.title for e in rig.transcript.entries if e.kind is EntryKind.FEEDBACK] == ["wake"]
    assert rig.host.statistics().saved_undelivered == 0


async def test_a_blocking_question_returns_the_real_answer(tmp_path: Path) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("block please")
        await rig.until(lambda: rig.host.surface_port.live_waits)
        assert rig.host.panel_port.focus.panel_focused
        rig.host.panel_port.set_custom_text("Grace")
        rig.host.panel_port.command(PanelCommand.CONFIRM)
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        nursery.cancel_scope.cancel()
    assert rig.texts(EntryKind.AGENT)[-1] == "Result: Grace"
    assert rig.host.statistics().saved_undelivered == 0  # delivered as the tool result only
    tool_results_pair_calls(rig.agent.messages)


async def test_interrupting_a_blocking_wait_keeps_the_question(tmp_path: Path) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("block please")
        await rig.until(lambda: rig.host.surface_port.live_waits)
        assert rig.agent.interrupt()
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        nursery.cancel_scope.cancel()
    assert not rig.host.surface_port.live_waits and len(rig.host.panel_port.tabs) == 1
    assert not rig.host.panel_port.focus.panel_focused  # back to the chat editor, the origin
    last_tool = [m for m in rig.agent.messages if m.role == "tool"][-1]
    assert "interrupted" in last_tool.content.lower()
    assert "declined" not in last_tool.content.lower()
    assert rig.texts(EntryKind.NOTICE)[-1].startswith("Interrupted")
    tool_results_pair_calls(rig.agent.messages)


async def test_a_permission_prompt_is_a_foreign_focus_owner(tmp_path: Path) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("permission?")
        await rig.until(lambda: rig.broker.current is not None)
        assert rig.broker.current is not None
        assert rig.host.panel_port.focus.owner is rig.broker.current.target
        rig.broker.answer(False)
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        nursery.cancel_scope.cancel()
    assert rig.host.panel_port.focus.owner is rig.host.panel_port.focus.chat
    assert "denied" in rig.texts(EntryKind.AGENT)[-1]


class ExplodingModel:
    name = "boom"
    opens_sessions = False

    def __init__(self) -> None:
        self.calls = 0

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        yield TextDelta("partial ")
        if self.calls == 1:
            raise RuntimeError("the model fell over")


async def test_a_model_crash_is_shown_and_the_loop_goes_on(tmp_path: Path) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    rig.agent.model = ExplodingModel()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("first")
        await rig.until(lambda: rig.texts(EntryKind.ERROR))
        rig.agent.send("second")
        await rig.until(
            lambda: len(rig.texts(EntryKind.USER)) == 2 and rig.agent.state is AgentState.IDLE
        )
        nursery.cancel_scope.cancel()
    assert "the model fell over" in rig.texts(EntryKind.ERROR)[0]
    assert rig.texts(EntryKind.AGENT)[-1] == "partial "


async def test_the_journal_rebuilds_the_context_the_model_saw(tmp_path: Path) -> None:
    rig = AgentRig(tmp_path, SCRIPT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("block please")
        await rig.until(lambda: rig.host.surface_port.live_waits)
        rig.host.panel_port.set_custom_text("Ada")
        rig.host.panel_port.command(PanelCommand.CONFIRM)
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        rig.agent.send("ask async")
        await rig.until(lambda: rig.host.panel_port.tabs)
        rig.answer_first_tab(row=1)
        await rig.until(lambda: rig.agent.state is AgentState.IDLE and not rig.host.panel_port.tabs)
        await rig.until(
            lambda: (
                rig.host.statistics().saved_undelivered == 0 and rig.agent.state is AgentState.IDLE
            )
        )
        nursery.cancel_scope.cancel()
    records = read_records(rig.journal.session_id, data_dir=tmp_path)
    rebuilt = context_from_journal(records)
    assert rebuilt == rig.agent.messages


def test_the_builtin_tour_and_the_demo_script_load() -> None:
    tour = builtin_tour()
    assert {s.on for s in tour.steps} == {"start", "message", "feedback"}
    demo = load_script(Path(__file__).resolve().parents[1] / "demos" / "script-example.toml")
    assert demo.name == "example"


def test_each_built_in_tour_has_its_own_arguments() -> None:
    """The tour is Python data (asks/agent/tour.py), built afresh per call: a call's arguments
    changed in one session never reach another's tour."""
    first, second = builtin_tour(), builtin_tour()
    assert first == second and first.localized
    calls = [c for s in first.steps for r in s.replies for c in r.calls]
    again = [c for s in second.steps for r in s.replies for c in r.calls]
    assert calls and all(a.args is not b.args for a, b in zip(calls, again, strict=True))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not toml [", "not valid TOML"),
        ("name = 'x'", "at least one [[step]]"),
        ("[[step]]\non = 'later'\n[[step.reply]]\nsay = 'x'", "'on' must be one of"),
        ("[[step]]\non = 'message'\nmatch = '('\n[[step.reply]]\nsay='x'", "not a valid regex"),
        ("[[step]]\non = 'start'", "at least one [[step.reply]]"),
        ("[[step]]\non = 'start'\n[[step.reply]]\nsay = '{0}'", "bad placeholder"),
        ("[[step]]\non = 'start'\n[[step.reply]]\n[[step.reply.call]]\nargs = {}", "needs tool"),
    ],
)
def test_bad_scripts_are_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(ScriptError, match=re.escape(reason)) as info:
        parse_script(text, "my.toml")
    assert str(info.value).startswith("my.toml")


def test_an_unreadable_script_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="cannot read"):
        load_script(tmp_path / "missing.toml")


def test_resume_gives_every_dangling_tool_call_a_result(tmp_path: Path) -> None:
    """A crash in the middle of a tool (here `work`) leaves a call without a result; resume
    answers it, so the rebuilt context is valid for chat APIs."""
    journal = Journal.create(data_dir=tmp_path)
    host = QuestionHost(journal)
    call = {"id": "s1-0", "name": "work", "arguments": "{}"}
    host.agent_port.record_message(ChatMessage("user", "go"))
    host.agent_port.record_message(ChatMessage("assistant", "working", (call,)))
    journal.close()  # the crash: no tool message for s1-0
    journal, records = Journal.open(journal.session_id, data_dir=tmp_path)
    session = build_session(journal, records, parse_script(SCRIPT, "t"), resumed=True)
    tool_results_pair_calls(session.agent.messages)
    journal.close()
    rebuilt = context_from_journal(read_records(journal.session_id, data_dir=tmp_path))
    tool_results_pair_calls(rebuilt)
    assert "restarted" in rebuilt[-1].content
