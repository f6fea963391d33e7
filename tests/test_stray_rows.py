"""Stray keys, for printable panel keys: a digit or a Space that turns out to be typing is undone.

In process, through the real :class:`AsksLayer` at a hand clock (asks/host/keys.py, "Printable
panel keys that turn out to be typing"): a digit jumps rows and a Space toggles at once; if the
next key, within the typing guard, is a printable the row cannot use, the run was a chat line
typed without looking: the draft is put back and every key of it lands in the chat, in order.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.layer_screen import LayerScreen
from support.rig import Rig, call, q

from asks.core.focus import KeysTo
from asks.core.model import QuestionRef


class Screen(LayerScreen):
    def ask(self, *, blocking: bool, multi: bool = False) -> QuestionRef:
        args = call(q("Which one?", options=("Ay", "Bee", "Sea"), multi=multi), blocking=blocking)
        self.rig.host.agent_port.start_call("c1", args)
        return self.rig.ref("c1")


@pytest.fixture
def screen(tmp_path: Path) -> Screen:
    return Screen(Rig.create(tmp_path))


def test_a_line_starting_with_a_digit_at_an_option_row_is_a_chat_line(screen: Screen) -> None:
    ref = screen.ask(blocking=False)
    screen.look()
    screen.keys("shift tab")  # the person opens the panel …
    screen.look()
    screen.keys(*"2 more tests", "enter")  # … then types a chat line without looking
    assert screen.sent == ["2 more tests"]
    assert screen.rig.host.panel_port.draft(ref).cursor == 0  # the jump was undone
    assert screen.rig.lines_of("resolved") == []


def test_a_space_that_was_typing_unchecks_what_it_checked(screen: Screen) -> None:
    ref = screen.ask(blocking=True, multi=True)
    screen.look()  # the blocker's claim takes the keys
    assert screen.rig.host.panel_port.focus.keyboard().to is KeysTo.PANEL
    before = screen.rig.host.panel_port.draft(ref)
    screen.keys(" ", "x", "y")
    assert screen.chat.text == " xy"
    assert screen.rig.host.panel_port.draft(ref) == before
    assert screen.rig.host.panel_port.focus.keyboard().to is KeysTo.CHAT  # guard re-armed


def test_a_digit_followed_by_a_pause_stays_a_row_jump(screen: Screen) -> None:
    ref = screen.ask(blocking=True)
    screen.look()
    screen.keys("3")
    screen.look()  # the person looked: the jump was theirs
    screen.keys("x")  # a later stray goes to the chat alone
    assert screen.rig.host.panel_port.draft(ref).cursor == 2
    assert screen.chat.text == "x"


def test_a_digit_then_an_arrow_is_not_undone_by_a_later_stray(screen: Screen) -> None:
    ref = screen.ask(blocking=True)
    screen.look()
    screen.keys("2", "down", "x")  # a deliberate arrow came between
    assert screen.rig.host.panel_port.draft(ref).cursor == 2
    assert screen.chat.text == "x"
