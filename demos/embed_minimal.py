"""A minimal urwid + trio chat program that embeds the asks panel through the public API.

Run it: ``python demos/embed_minimal.py`` (after ``pip install -e .``). Type a message and
press Enter. The fake agent (offline, no model) understands four words:

* ``ask``      — the *planner* asks a question in the background (async: you keep typing);
* ``block``    — the *reviewer* asks a blocking question: its turn waits for your answer;
* ``withdraw`` — the planner takes back its last unanswered question;
* ``/asks``    — open the panel (Shift+Tab does too); ``/quit`` or Ctrl+C quits.

Answers to async questions come back to the agent as feedback, which it prints.
Everything used here is importable from ``asks`` (see ``asks.__all__``).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import trio
import urwid

from asks import (
    LAYER_PALETTE,
    AgentPort,
    AsksLayer,
    AsksScreen,
    Journal,
    QuestionHost,
    QuestionOutcome,
    ToolError,
)


class Lines:
    """The chat transcript: lines, and who to tell when one is added."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.listeners: list[Callable[[], None]] = []

    def append(self, text: str) -> None:
        self.items.append(text)
        for listener in self.listeners:
            listener()


class FakeAgent:
    """Asks questions when told to; prints what comes back. Holds only the agent port."""

    def __init__(self, port: AgentPort, say: Lines) -> None:
        self.port, self.say, self.calls = port, say, 0
        self.asked: list[str] = []
        self.inbox_send, self.inbox = trio.open_memory_channel[str](16)

    def question(self, text: str, header: str, *labels: str) -> dict[str, object]:
        return {"question": text, "header": header, "options": [{"label": x} for x in labels]}

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._feedback)
            async for message in self.inbox:
                await self._turn(message, nursery)

    async def _feedback(self) -> None:
        """An idle agent is woken by saved answers (here: it just prints them)."""
        while True:
            await self.port.wait_for_feedback()
            feedback = self.port.take_feedback()
            if feedback is not None:
                self.say.append(f"agent got feedback: {feedback.text}")

    async def _turn(self, message: str, nursery: trio.Nursery) -> None:
        self.calls += 1
        call = f"call-{self.calls}"
        if message == "ask":
            spec = self.question("Which database?", "DB", "Postgres", "SQLite")
            reply = await self.port.ask(
                call, {"blocking": False, "questions": [spec]}, source="planner"
            )
            if not isinstance(reply, ToolError):
                self.asked += reply.result.question_ids
            self.say.append(f"planner: {reply.text}")
        elif message == "block":
            spec = self.question("Ship it now?", "Ship", "Yes", "Not yet")
            nursery.start_soon(self._blocking, call, spec)
        elif message == "withdraw":
            self._withdraw_last()
        else:
            self.say.append(f"agent: you said {message!r} (try ask, block, withdraw)")

    def _withdraw_last(self) -> None:
        """Take back the planner's last question still pending (``pending_ids`` says which);
        the report says per id what happened."""
        pending = [qid for qid in self.asked if qid in self.port.pending_ids()]
        if not pending:
            self.say.append("planner: nothing of mine is pending")
            return
        report = self.port.withdraw([pending[-1]], "no longer needed")
        self.say.append("planner withdrew its question" if report.all_withdrawn else report.text)

    async def _blocking(self, call: str, spec: dict[str, object]) -> None:
        reply = await self.port.ask(call, {"questions": [spec]}, source="reviewer")
        self.say.append(f"reviewer: {reply.text}")  # what a model would read
        if isinstance(reply, ToolError):
            return
        [ship] = reply.result.questions  # what a program reads: typed, every outcome
        if ship.outcome is QuestionOutcome.ANSWERED:
            self.say.append(f"reviewer decided: {ship.answer or 'nothing chosen'}")
        else:
            self.say.append(f"reviewer decided nothing: the question was {ship.outcome}")


class ChatScreen(urwid.WidgetWrap[urwid.Widget]):
    """Transcript above, the asks layer (panel + editor) below, a status line at the end."""

    def __init__(self, host: QuestionHost, agent: FakeAgent, lines: Lines) -> None:
        self.agent, self.lines = agent, lines
        self.walker: urwid.SimpleFocusListWalker[urwid.Text] = urwid.SimpleFocusListWalker([])
        self.editor = urwid.Edit("> ")
        self.layer = AsksLayer(host.panel_port, self.editor)
        self.status = urwid.Text(self.layer.status_text(), wrap="ellipsis")  # one row
        host.subscribe_status(lambda _stats: self.status.set_text(self.layer.status_text()))
        lines.listeners.append(self.refresh)
        body = urwid.ListBox(self.walker)
        footer = urwid.Pile([self.layer, self.status])
        super().__init__(urwid.Frame(body, footer=footer, focus_part="footer"))
        self.refresh()

    def refresh(self) -> None:
        while len(self.walker) < len(self.lines.items):
            self.walker.append(urwid.Text(self.lines.items[len(self.walker)]))
            self.walker.set_focus(len(self.walker) - 1)

    def keypress(self, size: tuple[()] | tuple[int] | tuple[int, int], key: str) -> str | None:
        unused = super().keypress(size, key)  # the frame hands it to the layer, which sees it first
        if unused == "enter":  # Enter in the chat editor: nobody else used it
            self.submit(self.editor.edit_text.strip())
            return None
        if unused == "ctrl c":  # a key, not SIGINT: AsksScreen(signal_keys=False)
            raise urwid.ExitMainLoop()
        return unused

    def submit(self, text: str) -> None:
        self.editor.set_edit_text("")
        if text == "/quit":
            raise urwid.ExitMainLoop()
        if text and not self.layer.run_command(text):  # /asks [ID]: the layer's own command
            self.lines.append(f"you: {text}")
            self.agent.inbox_send.send_nowait(text)
        self.refresh()


async def main(data_dir: Path) -> None:
    journal = Journal.create(data_dir=data_dir)
    host = QuestionHost(journal)  # the clock is trio's: the typing guard just works
    lines = Lines()
    lines.append("Type ask, block or withdraw, then Enter. /asks opens the panel.")
    agent = FakeAgent(host.agent_port, lines)
    screen = ChatScreen(host, agent, lines)
    # urwid's raw screen, redrawing only the rows that change; signal_keys=False: Ctrl+C
    # arrives as a key, not SIGINT, and the terminal is left as it was found at exit
    terminal = AsksScreen(signal_keys=False)
    loop = urwid.MainLoop(screen, LAYER_PALETTE, screen=terminal, event_loop=urwid.TrioEventLoop())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent.run)
        async with screen.layer.running(loop):
            await loop.event_loop.run_async()  # type: ignore[attr-defined]
        host.detach_ui()
        nursery.cancel_scope.cancel()
    journal.close()
    print(f"session saved: {journal.path}")


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="asks-"))
    trio.run(main, where)
