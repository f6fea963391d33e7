"""Every binding of the keymap reaches a real handler (mitmproxy's ``test_commands_exist``).

For each (context, key, command) of the default keymap the REPL screen is put into that
context (chat; panel on an option row; panel's reply editor; a permission prompt), the key is
pressed through the real key path (:class:`ReplScreen` → layer → panel / chat / prompt) and
the test checks that the key was *used*: the screen returns ``None`` and something observable
changed (or, for the two commands that only act in a state the test sets up, that state
changed). A binding whose key falls through unhandled fails with its name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing
from support.rig import call, q

from asks.agent.scripted import parse_script
from asks.agent.transcript import EntryKind
from asks.cli.session import build_session
from asks.core.focus import TYPING_GUARD
from asks.store.journal import Journal
from asks.widgets.app import ReplScreen, Session
from asks.widgets.keymap import Command, Context, build_keymap

KEYMAP = build_keymap()
SIZE = (100, 40)
BINDINGS = [(b.context, key, b.command) for b in KEYMAP.bindings for key in b.keys]
SCRIPT = """
[[step]]
on = "message"
[[step.reply]]
say = "Working."
delay = 0
[[step.reply.call]]
tool = "work"
args = { seconds = 60 }
"""


@pytest.fixture
def clock() -> trio.testing.MockClock:
    """Time moves only when the test says so (a running turn stays running)."""
    return trio.testing.MockClock()


class Screen:
    """A REPL screen on a real session with a hand-driven trio clock."""

    def __init__(self, tmp: Path, clock: trio.testing.MockClock) -> None:
        self.journal = Journal.create(data_dir=tmp)
        script = parse_script(SCRIPT, "bindings")
        self.session: Session = build_session(self.journal, [], script, resumed=False)
        self.clock = clock
        self.repl = ReplScreen(self.session, KEYMAP, trio.current_time)
        self.quit = False

    def snapshot(self) -> object:
        host, chat = self.session.host, self.repl.chat
        selected = host.panel_port.selected
        return (
            chat.text,
            chat.edit.edit_pos,
            host.panel_port.focus.owner,
            host.panel_port.mode,
            selected,
            host.panel_port.draft(selected)
            if selected is not None and not hasattr(selected, "call_id")
            else None,
            host.panel_port.armed,
            host.surface_port.notice,
            self.repl.panel.notes_open,
            self.repl.transcript_view.scrolled
            if hasattr(self.repl.transcript_view, "scrolled")
            else None,
            len(self.session.transcript.entries),
            self.repl.hint,
            self.session.broker.current.answer if self.session.broker.current else None,
            tuple(host.surface_port.projection.pending),
            self.repl.quitting,
            tuple(self.repl.render(SIZE, focus=True).text),  # what the person sees
        )

    def press(self, key: str, *, look: bool = True) -> str | None:
        """Press ``key``; with ``look``, after a pause to look at the screen (a deliberate key,
        past the typing guard), else right after the key before it."""
        if look:
            self.clock.jump(TYPING_GUARD + 0.1)
            self.session.host.panel_port.settle_guard(trio.current_time())
        self.repl.render(SIZE, focus=True)
        try:
            return self.repl.keypress(SIZE, key)
        except Exception as exc:  # ExitMainLoop: the second Ctrl+C quits
            if type(exc).__name__ == "ExitMainLoop":
                self.quit = True
                return None
            raise


def ask(screen: Screen, *, blocking: bool, multi: bool = False, tall: bool = False) -> None:
    question = q("Which one?", options=("Ay", "Bee", "Sea", "Dee"), multi=multi)
    if tall:  # taller than the panel's room: PgUp/PgDn have something to scroll
        question["context"] = "\n".join(f"line {n} of the context" for n in range(60))
    host = screen.session.host
    host.agent_port.start_call(
        f"c{len(host.surface_port.projection.calls)}", call(question, blocking=blocking)
    )


async def prepare(
    screen: Screen, context: Context, command: Command, nursery: trio.Nursery
) -> None:
    """Put the screen where ``command`` can act in ``context``."""
    host = screen.session.host
    if context is Context.PROMPT or (context is Context.GLOBAL and command is Command.COLLAPSE):
        ask(screen, blocking=False)
        if context is Context.PROMPT:
            nursery.start_soon(screen.session.broker.confirm, "run it?")
            await trio.testing.wait_all_tasks_blocked()
        if command is Command.PROMPT_CONFIRM:  # a decision key held: Enter makes it count
            assert screen.press("y") is None
            assert screen.session.broker.current is not None
            assert screen.session.broker.current.answer is None
        return
    if context is Context.CHAT:
        ask(screen, blocking=False)  # so the focus toggle has somewhere to go
        screen.repl.chat.set_text("/he" if command is Command.CHAT_COMPLETE else "one two")
        if command in (Command.CHAT_LINE_END, Command.CHAT_WORD_RIGHT, Command.CHAT_KILL_END):
            screen.repl.chat.edit.set_edit_pos(0)
        if command in (Command.CHAT_HISTORY_BACK, Command.CHAT_HISTORY_FORWARD):
            screen.repl.chat.set_text("/help")  # a message sent earlier: history to walk
            assert screen.repl.chat.keypress((SIZE[0],), "enter") is None
            screen.repl.chat.set_text("one two")
        if command is Command.CHAT_HISTORY_FORWARD:
            assert screen.repl.chat.keypress((SIZE[0],), "up") is None  # back to "/help"
        if command is Command.CHAT_INTERRUPT:  # Esc interrupts a running turn
            screen.session.agent.send("go")
            await trio.testing.wait_all_tasks_blocked()
        if command in (Command.CHAT_SCROLL_UP, Command.CHAT_SCROLL_DOWN):
            for n in range(80):  # a transcript taller than the screen
                screen.session.transcript.add(EntryKind.NOTICE, f"notice {n}")
            screen.repl.render(SIZE, focus=True)
        if command is Command.CHAT_SCROLL_DOWN:
            screen.repl.transcript_view.scroll(-1)
        return
    blocking = command in (Command.PANEL_DEFER, Command.FOCUS_TOGGLE)
    paging = command in (Command.PANEL_PAGE_UP, Command.PANEL_PAGE_DOWN)
    multi = command in (Command.PANEL_TOGGLE, Command.PANEL_ROW_6, Command.REPLY_DOWN)  # adds Next
    ask(screen, blocking=blocking, multi=multi, tall=paging)
    ask(screen, blocking=False)  # a second tab: next / previous tab have somewhere to go
    if not blocking:
        assert host.panel_port.enter_panel() is None
    if context is Context.REPLY or command in (Command.PANEL_CLEAR_DRAFT,):
        host.panel_port.set_cursor(4)  # Type something.
        host.panel_port.set_custom_text("draft")
    if command is Command.PANEL_ROW_1:
        host.panel_port.set_cursor(2)
    if paging:  # scroll the other way first, so the key under test has room to move
        screen.repl.render(SIZE, focus=True)
        other = "page down" if command is Command.PANEL_PAGE_UP else "page up"
        for _ in range(3):
            screen.repl.keypress(SIZE, other)
            screen.repl.render(SIZE, focus=True)
    if command is Command.PANEL_CLEAR_DRAFT or command is Command.PANEL_DECLINE:
        pass  # the first press arms it: observable as ``host.panel_port.armed``


@pytest.mark.parametrize(
    ("context", "key", "command"), BINDINGS, ids=[f"{c}:{k}:{m}" for c, k, m in BINDINGS]
)
async def test_every_binding_reaches_a_real_handler(
    tmp_path: Path, context: Context, key: str, command: Command, clock: trio.testing.MockClock
) -> None:
    screen = Screen(tmp_path, clock)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(screen.session.agent.run)
        await prepare(screen, context, command, nursery)
        before = screen.snapshot()
        # Enter at the prompt right after the held decision key (a pause would decide it)
        unused = screen.press(key, look=command is not Command.PROMPT_CONFIRM)
        await trio.testing.wait_all_tasks_blocked()
        changed = screen.snapshot() != before or screen.quit
        assert unused is None, f"{command} ({key!r} in {context}) fell through unhandled"
        if command is not Command.PANEL_EDITOR:  # needs a running screen: test_e2e's Ctrl+G test
            assert changed, f"{command} ({key!r} in {context}) did nothing"
        nursery.cancel_scope.cancel()
    screen.journal.close()


def test_every_command_is_bound_and_the_screens_one_table_runs_it(
    tmp_path: Path, clock: trio.testing.MockClock
) -> None:
    bound = {command for _, _, command in BINDINGS}
    screen = Screen(tmp_path, clock)
    assert bound == set(Command) == set(screen.repl.layer.commands)
    screen.journal.close()
