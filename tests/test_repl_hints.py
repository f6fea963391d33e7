"""The REPL's transient hints: ``Press Ctrl+C again to quit.`` is shown exactly while a second
Ctrl+C would quit, then goes by itself (it stayed on screen until the next key, however long).

The real REPL screen on a real session, its hint timer running as :func:`run_repl` runs it;
time is trio's :class:`~trio.testing.MockClock`, moved by the test — nothing here depends on
the machine's speed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing
import urwid

from asks.agent.scripted import parse_script
from asks.cli.session import build_session
from asks.store.journal import Journal
from asks.widgets.app import QUIT_WINDOW, ReplScreen
from asks.widgets.keymap import build_keymap

SIZE = (100, 30)
QUIT_HINT = "Press Ctrl+C again to quit."
SCRIPT = """
[[step]]
on = "message"
[[step.reply]]
say = "Hello."
"""


@pytest.fixture
def clock() -> trio.testing.MockClock:
    """Time moves only when the test says so."""
    return trio.testing.MockClock()


def status_row(repl: ReplScreen) -> str:
    return repl.render(SIZE, focus=True).text[-1].decode()


async def moved(clock: trio.testing.MockClock, seconds: float) -> None:
    clock.jump(seconds)
    await trio.testing.wait_all_tasks_blocked()


async def test_the_quit_hint_goes_when_a_second_ctrl_c_would_no_longer_quit(
    tmp_path: Path, clock: trio.testing.MockClock
) -> None:
    with Journal.create(data_dir=tmp_path) as journal:
        session = build_session(journal, [], parse_script(SCRIPT, "hints"), resumed=False)
        repl = ReplScreen(session, build_keymap(), trio.current_time)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(repl.expire_hints)
            assert repl.keypress(SIZE, "ctrl c") is None
            await trio.testing.wait_all_tasks_blocked()
            assert QUIT_HINT in status_row(repl)

            await moved(clock, QUIT_WINDOW - 0.1)
            assert QUIT_HINT in status_row(repl)  # a second Ctrl+C now would quit
            await moved(clock, 0.2)
            assert QUIT_HINT not in status_row(repl)  # it would not: the hint went

            assert repl.keypress(SIZE, "ctrl c") is None  # counts as a first one again
            await trio.testing.wait_all_tasks_blocked()
            assert not repl.quitting
            assert QUIT_HINT in status_row(repl)
            with pytest.raises(urwid.ExitMainLoop):
                repl.keypress(SIZE, "ctrl c")  # within the window: quits
            assert repl.quitting
            nursery.cancel_scope.cancel()
