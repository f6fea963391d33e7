"""A task runner with the asks panel: its "agent" is a program, not a chat model.

Run it: ``python demos/embed_taskrunner.py [DATA_DIR]`` (the core install is enough). Type a
task name and Enter; the runner works on it and asks you through the panel when it must:

* ``deploy`` — asks where to deploy (**blocking**: the task waits; only the two options
  answer, there is no "Type something." row); Alt+L answers later and the task stops.
* ``clean``  — asks whether to delete old build folders **without blocking** and goes on
  scanning; your answer reaches the task when you give it (the panel's Shift+Tab or
  ``/asks``), and only then does it delete or keep them.
* ``tasks``  — what runs; ``/asks [ID]`` opens the panel; ``/quit`` or Ctrl+C quits.

The header line is the runner's own (tasks running and done); the panel sits between the log
and the editor and keeps the header, the status line and a log row on screen. Written from
docs/embedding.md alone (the second embedding; demos/embed_minimal.py is the first).
"""

from __future__ import annotations

import signal
import sys
import tempfile
from collections.abc import Awaitable, Callable
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
)

PALETTE = LAYER_PALETTE.with_entries(("runner.header", "white,bold", "dark blue"))
WHERE = {
    "question": "Deploy build 42 to which environment?",
    "header": "Deploy",
    "options": [{"label": "staging"}, {"label": "production"}],
    "custom": False,  # only the options answer: no "Type something." row
}
CLEAN = {
    "question": "Delete the 3 build folders older than a week?",
    "header": "Clean",
    "options": [{"label": "Delete them"}, {"label": "Keep them"}],
    "custom": False,
}


class Runner:
    """Runs tasks; each holds only the agent port. Answers to its async questions come as
    feedback, which the runner hands to the task that asked, by question id."""

    def __init__(self, port: AgentPort, log: Callable[[str], None]) -> None:
        self.port, self.log = port, log
        self.running: set[str] = set()
        self.done = 0
        self.calls = 0
        self.waiting: dict[str, trio.MemorySendChannel[QuestionResult]] = {}
        self.changed: Callable[[], None] = lambda: None

    def call_id(self, task: str) -> str:
        """Unique in the session: a repeated id would be taken for a retry of that call."""
        self.calls += 1
        return f"{task}-{self.calls}"

    def start(self, nursery: trio.Nursery, task: str) -> bool:
        work = {"deploy": self.deploy, "clean": self.clean}.get(task)
        if work is None:
            return False
        nursery.start_soon(self._run, task, work)
        return True

    async def _run(self, task: str, work: Callable[[], Awaitable[None]]) -> None:
        self.running.add(task)
        self.changed()
        try:
            await work()
        finally:
            self.running.discard(task)
            self.done += 1
            self.changed()

    async def deploy(self) -> None:
        self.log("deploy: build 42 is ready")
        reply = await self.port.ask(self.call_id("deploy"), {"questions": [WHERE]}, source="deploy")
        if isinstance(reply, ToolError):
            self.log(f"deploy: cannot ask ({reply.code}), not deploying")
            return
        [where] = reply.result.questions
        if where.outcome is QuestionOutcome.ANSWERED:
            self.log(f"deploy: deployed build 42 to {where.labels[0]}")
        else:
            self.log(f"deploy: not deployed ({where.outcome})")

    async def clean(self) -> None:
        arguments = {"blocking": False, "questions": [CLEAN]}
        reply = await self.port.ask(self.call_id("clean"), arguments, source="clean")
        if isinstance(reply, ToolError):
            self.log(f"clean: cannot ask ({reply.code}), keeping everything")
            return
        [question_id] = reply.result.question_ids
        send, receive = trio.open_memory_channel[QuestionResult](1)
        self.waiting[question_id] = send
        self.log("clean: scanning build folders while you decide")
        for folder in ("build-38", "build-39", "build-40"):
            await trio.lowlevel.checkpoint()
            self.log(f"clean: {folder} is old")
        answer = await receive.receive()
        if answer.outcome is QuestionOutcome.ANSWERED and answer.labels == ("Delete them",):
            self.log("clean: deleted 3 folders")
        else:
            self.log(f"clean: kept them ({answer.answer or answer.outcome})")

    async def hand_out_feedback(self) -> None:
        """Answers to async questions, typed, to the tasks that asked them."""
        while True:
            await self.port.wait_for_feedback()
            feedback = self.port.take_feedback()
            if feedback is None:
                continue
            for answer in self.port.results_of(feedback):
                send = self.waiting.pop(answer.question_id, None)
                if send is not None:
                    send.send_nowait(answer)


class RunnerScreen(urwid.WidgetWrap[urwid.Widget]):
    """The runner's header, its log, then the asks layer (panel + editor) and a status line."""

    def __init__(self, host: QuestionHost, runner: Runner, nursery: trio.Nursery) -> None:
        self.runner, self.nursery = runner, nursery
        self.log_lines: urwid.SimpleFocusListWalker[urwid.Text] = urwid.SimpleFocusListWalker([])
        self.header = urwid.Text("", wrap="ellipsis")  # one row: what reserve=3 counts
        self.editor = urwid.Edit("task> ")
        # one header row besides the status line and a log row: the panel leaves all three
        self.layer = AsksLayer(host.panel_port, self.editor, space=PanelSpace(reserve=3))
        self.status = urwid.Text(self.layer.status_text(), wrap="ellipsis")  # one row
        host.subscribe_status(lambda _stats: self.status.set_text(self.layer.status_text()))
        runner.changed = self.show_header
        frame = urwid.Frame(
            urwid.ListBox(self.log_lines),
            header=urwid.AttrMap(self.header, "runner.header"),
            footer=urwid.Pile([self.layer, self.status]),
            focus_part="footer",
        )
        super().__init__(frame)
        self.show_header()

    def show_header(self) -> None:
        running = ", ".join(sorted(self.runner.running)) or "nothing"
        self.header.set_text(f" taskrunner · running: {running} · done: {self.runner.done}")

    def log(self, text: str) -> None:
        self.log_lines.append(urwid.Text(text))
        self.log_lines.set_focus(len(self.log_lines) - 1)

    def keypress(self, size: tuple[()] | tuple[int] | tuple[int, int], key: str) -> str | None:
        unused = super().keypress(size, key)  # the layer sees every key first
        if unused == "enter":
            line = self.editor.edit_text.strip()
            self.editor.set_edit_text("")
            self.command(line)
            return None
        if unused == "ctrl c":
            raise urwid.ExitMainLoop()
        return unused

    def command(self, line: str) -> None:
        if not line or self.layer.run_command(line):  # /asks [ID]: the layer's own
            return
        if line == "/quit":
            raise urwid.ExitMainLoop()
        if line == "tasks":
            running = ", ".join(sorted(self.runner.running)) or "nothing"
            self.log(f"running: {running}; done: {self.runner.done}")
        elif not self.runner.start(self.nursery, line):
            self.log(f"unknown task {line!r} (try deploy, clean, tasks, /asks, /quit)")


async def main(data_dir: Path) -> None:
    with Journal.create(data_dir=data_dir) as journal:
        host = QuestionHost(journal)
        async with trio.open_nursery() as nursery:
            runner = Runner(host.agent_port, lambda text: None)
            screen = RunnerScreen(host, runner, nursery)
            runner.log = screen.log
            screen.log("Tasks: deploy, clean. Type one and Enter.")
            nursery.start_soon(runner.hand_out_feedback)
            event_loop = urwid.TrioEventLoop()
            terminal = AsksScreen(signal_keys=False)  # Ctrl+C arrives as a key
            loop = urwid.MainLoop(screen, PALETTE, screen=terminal, event_loop=event_loop)
            with trio.CancelScope() as running:
                nursery.start_soon(stop_on_signals, running)
                async with screen.layer.running(loop):
                    await event_loop.run_async()
            host.detach_ui()  # a task still waiting ends "interrupted"
            nursery.cancel_scope.cancel()
    print(f"session saved: {journal.path}")


async def stop_on_signals(running: trio.CancelScope) -> None:
    """SIGTERM, SIGHUP and SIGINT from outside end the loop; the terminal is restored."""
    with trio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
        async for _ in signals:
            running.cancel()


if __name__ == "__main__":
    where = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="tasks-"))
    trio.run(main, where)
