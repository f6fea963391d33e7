"""embed_notes: a notes REPL whose "agent" (a plain program) asks through the asks panel —
written by someone who did not write asks, from the docs alone (docs/embedding.md).

Type a line and Enter to add a note. Commands:
  /publish  the publisher asks "Publish to which channel?" BLOCKING and waits for the outcome
  /later    the tagger asks an ASYNC question and keeps working; its answer arrives later
  /cancel   withdraw every question still pending
  /asks     open the panel (the layer's own command);  /quit or Ctrl+C quits
Ctrl+C while /publish waits interrupts that wait (the question stays pending).
"""

from __future__ import annotations

import signal
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
    PanelSpace,
    QuestionHost,
    QuestionOutcome,
    QuestionResult,
    ToolError,
    WithdrawOutcome,
)

PALETTE = LAYER_PALETTE.with_entries(
    ("notes.header", "black", "light cyan"),
    ("notes.status", "light gray", "dark gray"),
)
CHANNELS = {
    "question": "Publish to which channel?",
    "header": "Publish",
    "options": [{"label": "blog"}, {"label": "newsletter"}, {"label": "team wiki"}],
    "custom": False,  # only the options answer
}


def tag_question(note: str) -> dict[str, object]:
    return {
        "question": f"Which tag for the note {note[:30]!r}?",
        "header": "Tag",
        "options": [{"label": "idea"}, {"label": "todo"}],  # "Type something." stays: free tag
    }


class NotesAgent:
    """A plain program holding only the agent port; `say` writes into the notes log."""

    def __init__(self, port: AgentPort, say: Callable[[str], None]) -> None:
        self.port, self.say = port, say
        self.calls = 0
        self.blocking = False  # a /publish call is waiting for the person
        self.later_publish: dict[str, str] = {}  # deferred/interrupted publish: id -> note
        self.changed: Callable[[], None] = lambda: None
        self.inbox_send, self.inbox = trio.open_memory_channel[tuple[str, str]](32)

    def call_id(self, what: str) -> str:
        self.calls += 1
        return f"{what}-{self.calls}"

    async def run(self) -> None:
        async for command, note in self.inbox:
            if command == "/publish":
                await self.publish(note)
            elif command == "/later":
                await self.later(note)

    async def publish(self, note: str) -> None:
        self.blocking = True
        self.changed()
        try:
            reply = await self.port.ask(self.call_id("publish"), {"questions": [CHANNELS]})
        finally:
            self.blocking = False
            self.changed()
        if isinstance(reply, ToolError):
            self.say(f"publisher: cannot ask ({reply.code}); nothing published")
            return
        [channel] = reply.result.questions
        match channel.outcome:
            case QuestionOutcome.ANSWERED:
                self.say(f"publisher: published {note!r} to {channel.labels[0]}")
            case QuestionOutcome.DECLINED:
                self.say("publisher: you declined; nothing published")
            case QuestionOutcome.DEFERRED | QuestionOutcome.INTERRUPTED:
                self.later_publish[channel.question_id] = note
                self.say(f"publisher: {channel.outcome.value}; {channel.question_id} stays pending")
            case QuestionOutcome.WITHDRAWN:
                self.say("publisher: the question was withdrawn; nothing published")
            case _:
                self.say(f"publisher: unexpected outcome {channel.outcome}")

    async def later(self, note: str) -> None:
        reply = await self.port.ask(
            self.call_id("tag"), {"blocking": False, "questions": [tag_question(note)]}
        )
        if isinstance(reply, ToolError):
            self.say(f"tagger: cannot ask ({reply.code})")
            return
        self.say(f"tagger: asked {', '.join(reply.result.question_ids)}; indexing meanwhile")
        for step in range(1, 4):  # keeps going while the question waits
            await trio.sleep(0.3)
            self.say(f"tagger: indexing {step}/3")

    def cancel(self) -> None:
        pending = self.port.pending_ids()
        if not pending:
            self.say("agent: nothing pending to withdraw")
            return
        report = self.port.withdraw(pending, "the notes changed")
        for item in report.items:
            if item.outcome is WithdrawOutcome.WITHDRAWN:
                self.later_publish.pop(item.question_id, None)
                self.say(f"agent: withdrew {item.question_id} ({item.question})")
            else:
                self.say(f"agent: {item.question_id} not withdrawn: {item.outcome.value}")

    async def feedback(self) -> None:
        """Answers to async (and deferred) questions, delivered later."""
        while True:
            await self.port.wait_for_feedback()
            item = self.port.take_feedback()
            if item is None:
                continue
            for result in self.port.results_of(item):
                self.say(self.describe(result))
                note = self.later_publish.pop(result.question_id, None)
                if note is not None and result.outcome is QuestionOutcome.ANSWERED:
                    self.say(f"publisher: published {note!r} to {result.labels[0]} (late)")

    @staticmethod
    def describe(result: QuestionResult) -> str:
        if result.outcome is QuestionOutcome.ANSWERED:
            return f"feedback: {result.question_id} answered {result.answer!r}"
        if result.outcome is QuestionOutcome.DECLINED:
            return f"feedback: {result.question_id} declined"
        return f"feedback: {result.question_id} {result.outcome.value}"


class NotesScreen(urwid.WidgetWrap[urwid.Widget]):
    """Header, the notes list, then the asks layer (panel + editor) and a status line."""

    def __init__(self, host: QuestionHost, agent: NotesAgent) -> None:
        self.agent = agent
        self.notes: list[str] = []
        self.walker: urwid.SimpleFocusListWalker[urwid.Text] = urwid.SimpleFocusListWalker([])
        self.header = urwid.Text("", wrap="ellipsis")  # one row: PanelSpace(reserve=3) counts 1
        self.editor = urwid.Edit("note> ")
        self.layer = AsksLayer(host.panel_port, self.editor, space=PanelSpace(reserve=3))
        self.status = urwid.Text(self.layer.status_text(), wrap="ellipsis")  # one row too
        host.subscribe_status(lambda _stats: self.status.set_text(self.layer.status_text()))
        agent.changed = self.show_header
        frame = urwid.Frame(
            urwid.ListBox(self.walker),
            header=urwid.AttrMap(self.header, "notes.header"),
            footer=urwid.Pile([self.layer, urwid.AttrMap(self.status, "notes.status")]),
            focus_part="footer",
        )
        super().__init__(frame)
        self.show_header()

    def show_header(self) -> None:
        state = "waiting for you" if self.agent.blocking else "idle"
        self.header.set_text(f" notes · {len(self.notes)} notes · agent: {state}")

    def say(self, text: str) -> None:
        self.walker.append(urwid.Text(text))
        self.walker.set_focus(len(self.walker) - 1)

    def keypress(self, size: tuple[()] | tuple[int] | tuple[int, int], key: str) -> str | None:
        unused = super().keypress(size, key)  # the layer sees every key first
        if unused == "enter":
            line = self.editor.edit_text.strip()
            self.editor.set_edit_text("")
            self.command(line)
            return None
        if unused == "ctrl c":
            if self.agent.blocking:  # first Ctrl+C ends the blocking wait, "interrupted"
                self.agent.port.interrupt("Ctrl+C in notes")
                return None
            raise urwid.ExitMainLoop()
        return unused

    def command(self, line: str) -> None:
        if not line or self.layer.run_command(line):  # /asks [ID] is the layer's
            return
        last = self.notes[-1] if self.notes else "(no note)"
        if line == "/quit":
            raise urwid.ExitMainLoop()
        if line in ("/publish", "/later"):
            self.agent.inbox_send.send_nowait((line, last))
        elif line == "/cancel":
            self.agent.cancel()
        elif line.startswith("/"):
            self.say(f"unknown command {line!r} (/publish /later /cancel /asks /quit)")
        else:
            self.notes.append(line)
            self.say(f"• {line}")
            self.show_header()


async def main(data_dir: Path) -> None:
    with Journal.create(data_dir=data_dir) as journal:
        host = QuestionHost(journal)
        agent = NotesAgent(host.agent_port, lambda _text: None)
        screen = NotesScreen(host, agent)
        agent.say = screen.say
        screen.say("Type a note and Enter. /publish /later /cancel /asks /quit")
        event_loop = urwid.TrioEventLoop()
        terminal = AsksScreen(signal_keys=False)  # Ctrl+C arrives as a key
        loop = urwid.MainLoop(screen, PALETTE, screen=terminal, event_loop=event_loop)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(agent.run)
            nursery.start_soon(agent.feedback)
            with trio.CancelScope() as running:
                nursery.start_soon(stop_on_signals, running)
                async with screen.layer.running(loop):
                    await event_loop.run_async()
            host.detach_ui()  # a /publish still waiting ends "interrupted"
            nursery.cancel_scope.cancel()
    print(f"notes session saved: {journal.path}")


async def stop_on_signals(running: trio.CancelScope) -> None:
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
        async for _ in signals:
            running.cancel()


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="notes-"))
    trio.run(main, where)
