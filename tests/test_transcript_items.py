"""What the agent loop and the resume write into the transcript.

A real host, journal and agent loop, driven by a model that plays fixed replies (tool call ids
chosen by the test): tool lines in call order that end with their results, no ``? asked:``
card for a refused call, permission decisions, a promoted question's card, notes in the
result card; and the transcript rebuilt at resume (cards, tool lines, interrupted tools).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import trio

from asks.agent.lines import call_summary, numbered, questions_summary, result_summary
from asks.agent.loop import Agent, AgentState, Message, ModelEvent, TextDelta, ToolCall
from asks.agent.prompts import PromptBroker
from asks.agent.replay import plural, resumed_notice
from asks.agent.scripted import parse_script
from asks.agent.tools import CommandTool, WorkTool
from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.cli.session import build_session
from asks.contract import ResultEnvelope
from asks.core.model import Outcome
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.entries import ChatMessage
from asks.store.journal import Journal

COLOR = {"question": "Color?", "header": "Color", "options": [{"label": "Red"}, {"label": "Blue"}]}


def call(call_id: str, name: str, **arguments: Any) -> ToolCall:
    return ToolCall(call_id, name, json.dumps(arguments))


class Replies:
    """A model that plays one reply per model call, then answers "done"."""

    name = "fixed"
    opens_sessions = False

    def __init__(self, *replies: Sequence[ToolCall]) -> None:
        self.replies = list(replies)

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        if not self.replies:
            yield TextDelta("done")
            return
        for tool_call in self.replies.pop(0):
            yield tool_call


class Rig:
    def __init__(self, tmp: Path, *replies: Sequence[ToolCall]) -> None:
        self.journal = Journal.create(data_dir=tmp)
        self.host = QuestionHost(self.journal, clock=trio.current_time)
        self.transcript = Transcript()
        self.broker = PromptBroker(self.host.panel_port)
        self.agent = Agent(
            self.host.agent_port,
            Replies(*replies),
            [WorkTool(), CommandTool()],
            self.transcript,
            self.broker.confirm,
        )

    def shown(self, *kinds: EntryKind) -> list[tuple[EntryKind, str]]:
        return [(e.kind, e.text) for e in self.transcript.entries if e.kind in kinds]

    async def until(self, predicate: Any) -> None:
        with trio.fail_after(10):
            while not predicate():
                await trio.sleep(0.01)

    async def turn(self, text: str = "go") -> None:
        await self.agent.run_turn(text)


# ------------------------------------------------------------------------- tool lines


async def test_tool_lines_are_in_call_order_and_end_with_their_results(
    tmp_path: Path, autojump_clock: Any
) -> None:
    """Six calls of one reply (the slowest first): lines in call order, each ending with its
    result; trio starts tasks of a batch forwards or backwards, so call order is not luck."""
    seconds = [6, 5, 4, 3, 2, 1]
    reply = [call(f"c{i}", "work", seconds=s, label=f"job {i}") for i, s in enumerate(seconds)]
    rig = Rig(tmp_path, reply)
    await rig.turn()
    lines = [e for e in rig.transcript.entries if e.kind is EntryKind.TOOL and "·" in e.text]
    assert [e.text for e in lines] == [
        f"work · seconds: {s} · label: job {i} → job {i}: finished after {s} seconds."
        for i, s in enumerate(seconds)
    ]
    assert all(e.done for e in lines)


async def test_a_running_tool_line_is_open_and_an_interrupted_one_says_so(
    tmp_path: Path, autojump_clock: Any
) -> None:
    rig = Rig(tmp_path, [call("c1", "work", seconds=100, label="long")])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.turn)
        await rig.until(lambda: rig.shown(EntryKind.TOOL))
        line = rig.transcript.entries[-1]
        assert (line.text, line.done) == ("work · seconds: 100 · label: long", False)
        assert rig.agent.interrupt()
    assert (line.text, line.done) == ("work · seconds: 100 · label: long → interrupted", True)


def test_tool_arguments_read_as_words_not_json() -> None:
    assert call_summary("work", '{"seconds": 12, "label": "indexing  the\\nrepo"}') == (
        "work · seconds: 12 · label: indexing the repo"
    )
    assert call_summary("run_command", '{"command": "make deploy", "env": {"A": 1}}') == (
        'run_command · command: make deploy · env: {"A": 1}'
    )
    assert call_summary("work", "") == "work"
    assert call_summary("work", "{not json") == "work: {not json"
    assert call_summary("work", "[" * 100_000).startswith("work: [[[")  # too deep: shown raw
    long = call_summary("work", json.dumps({"label": "x" * 500}))
    assert long == "work · label: " + "x" * 59 + "…"  # one value: at most 60 characters
    many = call_summary("work", json.dumps({f"k{i}": "v" * 50 for i in range(5)}))
    assert len(many) == 120 and many.endswith("…")  # the line: at most 120


# ------------------------------------------------------------------------- question cards


async def test_a_refused_call_draws_no_card_only_its_error(tmp_path: Path) -> None:
    too_many = {"questions": [COLOR] * 5}  # refused by validation
    unknown = {"questions": [{"questionId": "q-0000000000"}]}  # refused by the host
    rig = Rig(
        tmp_path,
        [
            call("c1", "ask_user_question", **too_many),
            call("c2", "ask_user_question", **unknown),
            call("c3", "ask_user_question", blocking=False, questions=[COLOR]),
        ],
    )
    await rig.turn()
    shown = rig.shown(EntryKind.QUESTION, EntryKind.ERROR)
    assert [kind for kind, _ in shown] == [EntryKind.ERROR, EntryKind.ERROR, EntryKind.QUESTION]
    assert shown[0][1].startswith("Error [") and "q-0000000000" in shown[1][1]
    assert shown[2] == (EntryKind.QUESTION, "Color?")


async def test_a_blocking_card_is_drawn_while_it_waits(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [call("c1", "ask_user_question", questions=[COLOR])])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.turn)
        await rig.until(lambda: rig.host.surface_port.live_waits and rig.shown(EntryKind.QUESTION))
        assert rig.shown(EntryKind.QUESTION) == [(EntryKind.QUESTION, "Color?")]  # while waiting
        rig.host.panel_port.enter_panel()
        rig.host.panel_port.command(PanelCommand.CONFIRM)
    assert rig.shown(EntryKind.QUESTION) == [(EntryKind.QUESTION, "Color?")]  # drawn once
    assert rig.shown(EntryKind.RESULT) == [(EntryKind.RESULT, "Color? → Red")]


async def test_a_promoted_question_card_shows_the_question(tmp_path: Path) -> None:
    rig = Rig(tmp_path, [call("c1", "ask_user_question", blocking=False, questions=[COLOR])])
    await rig.turn()
    qid = next(iter(rig.host.surface_port.projection.current))
    rig.agent.model = Replies([call("c2", "ask_user_question", questions=[{"questionId": qid}])])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.turn)
        await rig.until(lambda: rig.host.surface_port.live_waits)
        rig.host.panel_port.enter_panel()
        rig.host.panel_port.command(PanelCommand.CONFIRM)
    cards = [text for _, text in rig.shown(EntryKind.QUESTION)]
    assert cards == ["Color?", f"Color? ({qid})"]


SIZE = {"question": "Size?", "header": "Size", "options": [{"label": "S"}, {"label": "L"}]}
WORD = {"question": "Say a word\non two lines", "header": "Word"}


def test_every_question_of_a_group_card_has_its_number() -> None:
    """Polish: the ``? asked:`` card of a group prefixed only its first question."""
    arguments = {"questions": [COLOR, SIZE, WORD]}
    assert questions_summary(arguments, lambda _qid: None) == (
        "1. Color?\n2. Size?\n3. Say a word\n   on two lines"
    )
    assert questions_summary({"questions": [COLOR]}, lambda _qid: None) == "Color?"  # one: bare
    assert numbered(["a", "b"]) == "1. a\n2. b"


async def test_a_resumed_group_card_numbers_its_questions_like_the_live_one(
    tmp_path: Path,
) -> None:
    rig = Rig(tmp_path, [call("c1", "ask_user_question", blocking=False, questions=[COLOR, SIZE])])
    await rig.turn()
    live = [text for _, text in rig.shown(EntryKind.QUESTION)]
    assert live == ["1. Color?\n2. Size?"]
    resumed = [
        e.text for e in resumed_entries(tmp_path, rig.journal) if e.kind is EntryKind.QUESTION
    ]
    assert resumed == live


def test_the_result_card_carries_the_notes() -> None:
    details = {
        "answers": [
            {"question": "Color?", "answer": "Red", "kind": "option", "notes": "  the darker one "},
            {"question": "Size?", "answer": "", "kind": "declined", "notes": ""},
        ]
    }
    envelope = ResultEnvelope(Outcome.ANSWERED, "text for the model", details)
    assert result_summary(envelope) == "Color? → Red (notes: the darker one)\nSize? → declined"


# ------------------------------------------------------------------------- permission


async def test_permission_decisions_are_recorded(tmp_path: Path) -> None:
    rig = Rig(
        tmp_path,
        [call("c1", "run_command", command="make deploy")],
        [call("c2", "run_command", command="rm -rf /")],
    )

    def decisions() -> list[tuple[str, str]]:
        return [(e.title, e.text) for e in rig.transcript.entries if e.kind is EntryKind.DECISION]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.turn)
        for count, answer in enumerate((True, False), start=1):
            await rig.until(lambda: rig.broker.current is not None)
            rig.broker.answer(answer)
            await rig.until(lambda: len(decisions()) == count)  # noqa: B023 — awaited here
    assert decisions() == [
        ("allowed", "Allow the agent to run: make deploy"),
        ("denied", "Allow the agent to run: rm -rf /"),
    ]
    assert rig.agent.state is AgentState.IDLE


# ------------------------------------------------------------------------- resume


def resumed_entries(tmp_path: Path, journal: Journal) -> list[Entry]:
    journal.close()
    reopened, records = Journal.open(journal.session_id, data_dir=tmp_path)
    with reopened:
        session = build_session(
            reopened,
            records,
            parse_script('[[step]]\non = "message"\n[[step.reply]]\nsay = "x"\n', "t"),
            resumed=True,
        )
    return session.transcript.entries


def test_resume_shows_cards_tool_lines_and_the_interrupted_tool(tmp_path: Path) -> None:
    """A crash while ``work`` ran: the journal has the reply's calls, the async question and
    its queued result, but no result for ``work``."""
    journal = Journal.create(data_dir=tmp_path)
    host = QuestionHost(journal)
    calls = (
        {
            "id": "c1",
            "name": "ask_user_question",
            "arguments": json.dumps({"blocking": False, "questions": [COLOR]}),
        },
        {"id": "c2", "name": "work", "arguments": json.dumps({"seconds": 9, "label": "index"})},
        {"id": "c3", "name": "run_command", "arguments": json.dumps({"command": "ls"})},
    )
    host.agent_port.record_message(ChatMessage("user", "go"))
    host.agent_port.record_message(ChatMessage("assistant", "On it.", calls))
    assert not isinstance(
        host.agent_port.start_call("c1", json.loads(calls[0]["arguments"])), Exception
    )
    host.agent_port.record_message(ChatMessage("tool", "Ran 'ls'.", ({"tool_call_id": "c3"},)))

    shown = [(e.kind, e.text) for e in resumed_entries(tmp_path, journal)]
    ref = host.surface_port.projection.calls["c1"].refs[0]
    assert shown == [
        (EntryKind.USER, "go"),
        (EntryKind.AGENT, "On it."),
        (EntryKind.QUESTION, "Color?"),
        # the queued result right after its card, as the live agent drew it
        (EntryKind.RESULT, f"pending: {ref.id} (answer any time: /asks)"),
        (
            EntryKind.TOOL,
            "work · seconds: 9 · label: index → Error [interrupted]: the session "
            "was restarted before this tool finished.",
        ),
        (EntryKind.TOOL, "run_command · command: ls → Ran 'ls'."),
        (EntryKind.NOTICE, resumed_notice(journal.session_id, 1, 0)),
    ]


def test_resume_shows_a_refused_call_as_its_error(tmp_path: Path) -> None:
    journal = Journal.create(data_dir=tmp_path)
    host = QuestionHost(journal)
    bad = {"id": "c1", "name": "ask_user_question", "arguments": "{}"}
    host.agent_port.record_message(ChatMessage("assistant", "", (bad,)))
    refusal = "Error [invalid_arguments]: questions is required."
    host.agent_port.record_message(ChatMessage("tool", refusal, ({"tool_call_id": "c1"},)))
    shown = [(e.kind, e.text) for e in resumed_entries(tmp_path, journal)]
    assert shown[:-1] == [(EntryKind.ERROR, refusal)]


def test_counts_read_as_english() -> None:
    assert [plural(n, "saved answer") for n in (0, 1, 2)] == [
        "0 saved answers",
        "1 saved answer",
        "2 saved answers",
    ]
    assert resumed_notice("s", 1, 1) == "Resumed session s: 1 pending, 1 saved answer to deliver."
