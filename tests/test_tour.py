"""The built-in tour as a new user meets it: its words follow the keys and
the surface in front of the person, under the real command in a pty (tests/support/pty_harness.py).

* With ``focus_toggle_key = "f2"`` the tour and every queued result name F2, never Shift+Tab;
  in line mode (no panel) they say ``/asks``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
import urwid
from support.pty_harness import PtyApp
from support.typist import after_claim_guard, wait_prompt_has_keys
from urwid.testing import render_text

from asks import contract
from asks.agent.events import Message
from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.lines import result_summary
from asks.agent.loop import AgentState, TextDelta
from asks.agent.scripted import (
    ScriptedModel,
    builtin_tour,
    feedback_words,
    load_script,
    parse_script,
    result_words,
)
from asks.agent.transcript import EntryKind
from asks.cli.session import build_session
from asks.core import i18n
from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.entries import Record
from asks.store.journal import Journal
from asks.widgets.app import Session
from asks.widgets.hints import panel_hints
from asks.widgets.keymap import build_keymap
from asks.widgets.layer import AsksLayer

SCRIPTS = Path(__file__).resolve().parent / "scripts"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config" / "asks").mkdir(parents=True)
    return tmp_path


def start(home: Path, *args: str, cols: int = 120, rows: int = 40) -> PtyApp:
    env = {"XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "xdg")}
    return PtyApp(["--data-dir", str(home / "data"), *args], cols=cols, rows=rows, env=env)


@pytest.fixture
def apps() -> Iterator[list[PtyApp]]:
    started: list[PtyApp] = []
    try:
        yield started
    finally:
        for app in started:
            app.close()


def flat(app: PtyApp) -> str:
    """The screen as one line: wrapped text joined back (urwid wraps at spaces)."""
    return re.sub(r"\s+", " ", app.text())


@pytest.mark.e2e
def test_the_tour_names_the_configured_focus_key(home: Path, apps: list[PtyApp]) -> None:
    config = home / "config" / "asks" / "config.toml"
    config.write_text('[keys]\nfocus_toggle_key = "f2"\ncollapse_key = "ctrl x"\n')
    app = start(home)
    apps.append(app)
    app.wait_for(r"queued\): pending: q-")
    app.wait_for(r"answer any time: F2 or /asks\)")
    text = flat(app)
    assert "press F2 (or type /asks) to answer it" in text
    assert "Shift+Tab" not in text


@pytest.mark.e2e
def test_the_tour_in_line_mode_says_asks(home: Path, apps: list[PtyApp]) -> None:
    app = start(home, "--line")
    apps.append(app)
    app.wait_for(r"answer any time: /asks\)")
    text = flat(app)
    assert "Type /asks to see it and /asks ID to answer it" in text
    assert "Shift+Tab" not in text and "F2" not in text


# ---------------------------------------------------------------- the words, in process
def test_the_screen_hints_come_from_its_keymap() -> None:
    assert panel_hints(build_keymap()) == AnswerHints("Shift+Tab", "Alt+D", "Alt+L", "Ctrl+]")
    assert panel_hints(build_keymap("f2", "off")) == AnswerHints("F2", "Alt+D", "Alt+L", None)


def test_a_pending_result_says_how_to_answer_on_its_surface() -> None:
    envelope = contract.ResultEnvelope(Outcome.QUEUED, "(model text)", {"pending": ["q-1"]})
    f2 = AnswerHints("F2", "Alt+D", "Alt+L")
    assert result_summary(envelope, f2) == "pending: q-1 (answer any time: F2 or /asks)"
    assert result_summary(envelope, LINE_HINTS) == "pending: q-1 (answer any time: /asks)"


HINT_SCRIPT = """
[[step]]
on = "start"
[[step.reply]]
delay = 0
say = "{answer_hint} | decline ({decline}) or defer ({defer}) | {collapse_hint}"
"""


async def said(hints: AnswerHints) -> str:
    model = ScriptedModel(parse_script(HINT_SCRIPT, "hints"), hints=hints)
    return "".join([e.text async for e in model.stream([], []) if isinstance(e, TextDelta)])


async def test_script_placeholders_say_the_surfaces_keys() -> None:
    panel = await said(AnswerHints("F2", "Alt+D", "Alt+L", "Ctrl+X"))
    assert panel == (
        "It waits in the panel above the editor: press F2 (or type /asks) to "
        "answer it whenever you like. | decline (Alt+D) or defer (Alt+L) | "
        "Ctrl+X hides the panel and brings it back."
    )
    line = await said(LINE_HINTS)
    assert line == (
        "Type /asks to see it and /asks ID to answer it, whenever you like. | "
        "decline (/decline) or defer (/later) |"
    )


# ---------------------------------------------------------------- the tour, in process
@attrs.define
class Tour:
    """The built-in tour played in process (trio's autojump clock runs its work at once):
    the composition root's session, driven through the host's ports as a person would."""

    journal: Journal
    session: Session

    @classmethod
    def start(
        cls, directory: Path, records: list[Record] | None = None, session_id: str | None = None
    ) -> Tour:
        if session_id is None:
            journal, records = Journal.create(data_dir=directory), []
        else:
            journal, found = Journal.open(session_id, data_dir=directory)
            records = list(found)
        session = build_session(
            journal,
            records,
            builtin_tour(),
            resumed=session_id is not None,
            hints=panel_hints(build_keymap()),
        )
        return cls(journal, session)

    @property
    def host(self) -> QuestionHost:
        return self.session.host

    def seen(self) -> list[tuple[EntryKind, str, str]]:
        """The transcript as the person reads it (kind, title, text), notices left out."""
        return [
            (e.kind, e.title, e.text)
            for e in self.session.transcript.entries
            if e.kind is not EntryKind.NOTICE
        ]

    def said(self) -> str:
        return "\n".join(text for _kind, _title, text in self.seen())

    async def until(self, predicate: Callable[[], object]) -> None:
        with trio.fail_after(600):  # virtual seconds: a hang fails instead of blocking
            while not predicate():
                await trio.sleep(0.01)

    async def play(self, *, answer_blocker: bool) -> None:
        """Decline the async question while the agent works, then answer or defer the
        blocking group, allow the command, and wait for the tour's last words."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(functools.partial(self.session.agent.run, opening_turn=True))
            await self.until(lambda: self.host.surface_port.projection.pending)
            (ref,) = self.host.surface_port.projection.pending
            assert self.host.surface_port.answer_from(ref.id, ref.incarnation, None, "web") is None
            await self.until(lambda: self.host.surface_port.live_waits)
            assert self.host.panel_port.enter_panel() is None
            if answer_blocker:
                self.host.panel_port.command(PanelCommand.CONFIRM)  # Target: Staging
                self.host.panel_port.command(PanelCommand.TOGGLE)  # Checks: Unit tests
                self.host.panel_port.command(PanelCommand.NEXT_TAB)
                self.host.panel_port.command(PanelCommand.NEXT_TAB)  # past Notes: Review
                self.host.panel_port.command(PanelCommand.CONFIRM)  # submit what is answered
            else:
                self.host.panel_port.command(PanelCommand.DEFER)
            await self.until(lambda: self.session.broker.current is not None)
            self.session.broker.answer(True)
            await self.until(
                lambda: (
                    self.seen()[-1][0] is EntryKind.AGENT  # its last words
                    and any(kind is EntryKind.DECISION for kind, *_ in self.seen())
                    and self.session.agent.state is AgentState.IDLE
                )
            )
            nursery.cancel_scope.cancel()


MODEL_WORDS = (
    "call ask_user_question",
    "[asks feedback]",
    "(no answers)",
    "User has answered",
    "The user chose to answer later",
    "If you cannot continue",
)


async def test_the_tour_tells_the_person_what_happened_in_their_words(
    tmp_path: Path, autojump_clock: Any
) -> None:
    tour = Tour.start(tmp_path)
    with tour.journal:
        await tour.play(answer_blocker=False)
    said = tour.said()
    assert not [w for w in MODEL_WORDS if w in said], said
    assert "Which language should the final report be written in? → declined" in said
    assert "You declined to answer; I'll go on without it." in said  # the declined feedback
    assert "Deferred: the agent gets your answer when you give it." in said  # its result card
    assert "Deferred: I'll get your answer when you give it. Now I need to run" in said
    # the model still got its exact texts
    records = [json.loads(line) for line in tour.journal.path.read_text().splitlines()]
    deferred = [r for r in records if r["type"] == "tool_result" and r["outcome"] == "deferred"]
    assert "If you cannot continue without them, call ask_user_question with" in deferred[0]["text"]
    (feedback,) = [r for r in records if r["type"] == "feedback_delivered"]
    assert feedback["text"].startswith("[asks feedback] The user responded")


def test_the_scripted_agent_words_every_question_result_for_the_person() -> None:
    spec = QuestionSpec("Color?", "Color", (Option("Red"), Option("Blue")))
    red = Question(QuestionRef("q-1", 1), "g-1", 0, spec)
    blue = Question(QuestionRef("q-2", 1), "g-1", 1, spec)
    chose = Resolution(red.ref, ResolutionKind.ANSWERED, Answer(AnswerKind.OPTION, (0,)))
    declined = Resolution(blue.ref, ResolutionKind.DECLINED)
    words = [
        (contract.answered_result("c", [(red, chose)]), "Thanks — you answered: Red."),
        (
            contract.answered_result("c", [(red, chose)], [blue]),
            "Thanks — you answered: Red. The rest can come later.",
        ),
        (contract.answered_result("c", [(blue, declined)]), "No answer given."),
        (contract.declined_result("c", [red]), "You declined; I'll go on with my best judgement."),
        (contract.deferred_result("c", [red]), "Deferred: I'll get your answer when you give it."),
        (
            contract.interrupted_result("c", [red], "Ctrl+C"),
            "The wait was interrupted; I'll get your answer when you give it.",
        ),
        (contract.queued_result("c", [red]), "Queued: answer whenever you like."),
        (contract.withdrawn_result("c", [red]), "I withdrew the question."),
        (contract.already_received_result("c", [red]), "You had already answered that."),
    ]
    for envelope, expected in words:
        assert result_words(envelope.text) == expected, envelope.outcome
    assert result_words("Ran 'make deploy' (simulated): exit status 0.") is None
    assert feedback_words(contract.feedback_text([(red, chose)])) == (
        "Got your answer: Red. I'll take it into account."
    )
    assert feedback_words(contract.feedback_text([(blue, declined)])) == (
        "You declined to answer; I'll go on without it."
    )


def test_result_and_feedback_cards_are_the_persons_summary(tmp_path: Path) -> None:
    spec = QuestionSpec("Color?", "Color", (Option("Red"), Option("Blue")))
    deferred = contract.deferred_result("c", [Question(QuestionRef("q-1", 1), "g-1", 0, spec)])
    assert result_summary(deferred) == (
        "Deferred: the agent gets your answer when you give it.\n"
        "pending: q-1 (answer any time: /asks)"
    )
    nothing = {"answers": [{"question": "Pick?", "kind": "multi", "answer": ""}]}
    empty = contract.ResultEnvelope(Outcome.ANSWERED, "(model text)", nothing)
    assert result_summary(empty) == "Pick? → nothing selected"


# ---------------------------------------------------------------- a message sent mid-turn
@pytest.mark.e2e
def test_a_message_sent_while_the_agent_works_is_shown_queued_at_once(
    home: Path, apps: list[PtyApp]
) -> None:
    app = start(home, "--script", str(SCRIPTS / "queued.toml"), cols=100, rows=24)
    apps.append(app)
    app.wait_for(r"work · seconds: 120 · label: long job …")
    app.wait_for(r"working…$")
    app.type("hello there")
    app.press("enter")
    app.wait_for(r"^you \(queued\) › hello there$")  # at once, below the running tool line
    rows = app.text().split("\n")
    queued = next(i for i, row in enumerate(rows) if row.startswith("you (queued)"))
    tool = next(i for i, row in enumerate(rows) if "long job" in row)
    assert tool < queued
    assert not any(row.startswith("› hello") for row in rows)  # the editor is empty again
    app.press("esc")  # interrupt the turn: the queued message starts the next one
    app.wait_for(r"QUEUE-GOT: hello there")
    app.wait_for(r"^you › hello there$")  # an ordinary line now, where the agent read it
    assert "(queued)" not in app.text()
    rows = app.text().split("\n")
    read = next(i for i, row in enumerate(rows) if row == "you › hello there")
    assert read > next(i for i, row in enumerate(rows) if "Interrupted" in row)


async def test_a_queued_message_becomes_an_ordinary_line_where_its_turn_reads_it(
    tmp_path: Path, autojump_clock: Any
) -> None:
    journal = Journal.create(data_dir=tmp_path)
    with journal:
        session = build_session(journal, [], load_script(SCRIPTS / "queued.toml"), resumed=False)
        transcript, agent = session.transcript, session.agent
        async with trio.open_nursery() as nursery:
            nursery.start_soon(functools.partial(agent.run, opening_turn=True))
            while not any(e.kind is EntryKind.TOOL for e in transcript.entries):
                await trio.sleep(0.01)
            agent.send("one")
            agent.send("two")
            assert [(e.text, e.title) for e in transcript.queued] == [
                ("one", "queued"),
                ("two", "queued"),
            ]
            assert not [e for e in transcript.entries if e.kind is EntryKind.USER]
            while "QUEUE-GOT: two" not in [e.text for e in transcript.entries]:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert transcript.queued == []
    kinds = [(e.kind, e.text) for e in transcript.entries if e.kind is not EntryKind.TOOL]
    assert kinds == [
        (EntryKind.AGENT, "QUEUE-START"),
        (EntryKind.AGENT, "QUEUE-WORKED"),
        (EntryKind.USER, "one"),
        (EntryKind.AGENT, "QUEUE-GOT: one"),
        (EntryKind.USER, "two"),
        (EntryKind.AGENT, "QUEUE-GOT: two"),
    ]


# ---------------------------------------------------------------- resume shows what live showed
@pytest.mark.parametrize("answer_blocker", [False, True])
async def test_the_resumed_tour_transcript_is_the_live_one(
    tmp_path: Path, autojump_clock: Any, answer_blocker: bool
) -> None:
    live = Tour.start(tmp_path)
    with live.journal:
        await live.play(answer_blocker=answer_blocker)
    shown = live.seen()
    kinds = [kind for kind, _title, _text in shown]
    assert EntryKind.DECISION in kinds and EntryKind.FEEDBACK in kinds
    queued = kinds.index(EntryKind.RESULT)  # the async question's queued result …
    assert kinds[queued - 1] is EntryKind.QUESTION and kinds[queued + 1] is EntryKind.TOOL

    resumed = Tour.start(tmp_path, session_id=live.journal.session_id)
    with resumed.journal:
        assert resumed.seen() == shown
        notices = [e.text for e in resumed.session.transcript.entries if e.kind is EntryKind.NOTICE]
        assert notices[-1].startswith("Resumed session")


def transcript_rows(app: PtyApp) -> list[str]:
    """The transcript's rows: from the top of the screen to the panel's top border."""
    rows = app.text().split("\n")
    end = next(i for i, row in enumerate(rows) if re.match(r"┌[─╌] Questions \(", row))
    return [row for row in rows[:end] if row.strip()]


@pytest.mark.e2e
def test_resume_draws_the_transcript_the_live_session_drew(home: Path, apps: list[PtyApp]) -> None:
    script = str(SCRIPTS / "resume_parity.toml")
    app = start(home, "--script", script, cols=100, rows=40)
    apps.append(app)
    app.wait_for(r"│ Where to\?")
    after_claim_guard()  # the claim's typing guard: keys reach it then
    app.press("enter")  # Staging
    app.wait_for(r"Allow the agent to run: make deploy")
    wait_prompt_has_keys(app)
    app.press("y")
    app.wait_for(r"PARITY-DONE")
    app.wait_for(r"idle$")
    live = transcript_rows(app)
    assert any(row.startswith("⚑ permission allowed: ") for row in live), live
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0
    (journal,) = (home / "data").glob("*.jsonl")

    again = start(home, "--resume", journal.stem, cols=100, rows=40)
    apps.append(again)
    again.wait_for(r"Resumed session")
    resumed = transcript_rows(again)
    assert resumed[-1].startswith("· Resumed session")
    assert resumed[:-1] == live


# ---------------------------------------------------------------- the tour in the person's language
async def test_the_tour_speaks_the_persons_language_and_its_tabs_stay_distinct(
    tmp_path: Path, autojump_clock: Any
) -> None:
    with i18n.use(i18n.Translator("zh")):
        tour = Tour.start(tmp_path)
        with tour.journal:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(functools.partial(tour.session.agent.run, opening_turn=True))
                await tour.until(lambda: tour.host.surface_port.live_waits)
                said = tour.said()
                assert "你好！我是按脚本运行的演示代理" in said
                assert "它在编辑器上方的面板里等着：按 Shift+Tab（或输入 /asks）随时回答。" in said
                assert "work · seconds: 12 · label: 索引代码仓库" in said
                headers = [
                    tour.host.surface_port.question(ref).spec.header
                    for ref in tour.host.surface_port.projection.pending
                ]
                assert headers == ["语言", "目标", "检查项", "备注"]
                layer = AsksLayer(
                    tour.host.panel_port,
                    urwid.Edit(),
                    keymap=build_keymap(),
                    clock=trio.current_time,
                )
                bar = next(
                    row for row in render_text(layer.panel, (120,), focus=True) if "检查项" in row
                )
                assert "总览" in bar and "检查 " not in bar.replace("检查项", "")
                nursery.cancel_scope.cancel()
    # what the model reads of the answers and results stays English
    records = [json.loads(line) for line in tour.journal.path.read_text().splitlines()]
    (queued,) = [r for r in records if r["type"] == "tool_result" and r["outcome"] == "queued"]
    assert queued["text"].startswith("Questions sent to the user without blocking")


LOCALIZED_TOURS = {
    "de": (
        "Hallo! Ich bin der geskriptete Demo-Agent",
        "[Sprache]",
        "In welcher Sprache soll der Abschlussbericht geschrieben werden?",
    ),
    "ja": (
        "こんにちは! 私はスクリプトで動くデモ用エージェントです",
        "[言語]",
        "最終レポートは何語で書きますか?",
    ),
}


@pytest.mark.e2e
@pytest.mark.parametrize("locale", sorted(LOCALIZED_TOURS))
def test_the_tour_runs_in_the_locale_asked_for(home: Path, apps: list[PtyApp], locale: str) -> None:
    hello, tab, question = LOCALIZED_TOURS[locale]
    app = start(home, "--locale", locale)
    apps.append(app)
    app.wait_for(re.escape(tab))
    app.wait_for(re.escape(question))
    assert hello in flat(app)
    assert "Hi! I'm the scripted demo agent" not in flat(app)


CUT_SHORT = """
[[step]]
on = "start"
[[step.reply]]
say = "Working on it, word by word."
delay = 0
[[step.reply]]
say = "Work finished."
delay = 0
[[step]]
on = "feedback"
[[step.reply]]
say = "Thanks."
delay = 0
"""


async def reply_text(model: ScriptedModel, messages: list[Message], *, cut: bool = False) -> str:
    """What ``model`` says to ``messages``; ``cut``: the turn is interrupted after one word."""
    words = []
    stream = model.stream(messages, [])
    async for event in stream:
        if isinstance(event, TextDelta):
            words.append(event.text)
        if cut:
            await stream.aclose()  # type: ignore[attr-defined]
            break
    return "".join(words)


@pytest.mark.parametrize("where", ["streaming", "tool"])
async def test_a_step_cut_short_never_goes_on_when_feedback_wakes_the_agent(where: str) -> None:
    """Interrupted while its reply streams, or with a tool result saying the call was cut
    short: the feedback that wakes the agent later is answered alone, not followed by the
    step's next line ("Draft finished." after Ctrl+C in the tour)."""
    model = ScriptedModel(parse_script(CUT_SHORT, "cut.toml"))
    first = await reply_text(model, [], cut=where == "streaming")
    context = [Message("assistant", first)]
    if where == "tool":
        cut = contract.interrupted("interrupted by the person (Ctrl+C)").text
        context.append(Message("tool", cut, tool_call_id="s0-0"))
    context.append(Message("user", f"{contract.FEEDBACK_PREFIX} The user answered."))
    assert await reply_text(model, context) == "Thanks."
