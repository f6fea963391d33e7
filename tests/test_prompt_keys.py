"""The permission prompt's keys through the layer (docs/architecture.md).

In process: the real :class:`AsksLayer`, :class:`PromptView` and :class:`PromptBroker` on a
real host, keys pressed at a hand clock. A prompt is opened as ``PromptBroker.confirm`` opens
it (its awaiting task is not needed to see what the keys decide). The random streams are in
tests/test_layer_machine.py and the real app in tests/test_e2e_prompt_keys.py; these pin the
single steps and what the person is told.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.layer_screen import LayerScreen
from support.rig import Rig

from asks.agent.prompts import Prompt, PromptBroker
from asks.core.focus import FocusTarget, KeysTo
from asks.widgets.prompt import PromptView


class Screen(LayerScreen):
    def __init__(self, rig: Rig) -> None:
        self.broker = PromptBroker(rig.host.panel_port)
        super().__init__(rig, prompt=PromptView(self.broker))

    def open_prompt(self) -> Prompt:
        prompt = Prompt("run make deploy?", FocusTarget("prompt"))
        self.broker.current = prompt
        self.rig.host.panel_port.begin_foreign(prompt.target)
        return prompt

    def pause(self) -> None:
        self.look()

    def where(self) -> KeysTo:
        return self.rig.host.panel_port.focus.keyboard().to


def shown(screen: Screen) -> str:
    """The layer's rows as the person sees them (the prompt's block among them)."""
    return "\n".join(row.decode() for row in screen.layer.render((120,), focus=True).text)


@pytest.fixture
def screen(tmp_path: Path) -> Screen:
    return Screen(Rig.create(tmp_path))


def test_a_new_prompt_takes_the_keys_only_after_a_pause(screen: Screen) -> None:
    screen.keys("g", "o")
    prompt = screen.open_prompt()
    assert screen.where() is KeysTo.CHAT
    assert "keys: chat — the prompt waits for a pause" in screen.layer.status_text()
    screen.keys("y", "n")  # typing on: the chat's
    assert screen.chat.text == "goyn" and prompt.answer is None
    screen.pause()
    assert screen.where() is KeysTo.PROMPT
    assert "keys: prompt" in screen.layer.status_text()


def test_a_decision_key_counts_at_the_pause_after_it_and_says_so(screen: Screen) -> None:
    prompt = screen.open_prompt()
    screen.pause()
    screen.keys("y")
    assert prompt.answer is None
    held = "“y” counts at your pause (Enter: now)"
    assert held in shown(screen)
    screen.pause()  # the layer's timer delivers it
    assert prompt.answer is True
    assert "counts at your pause" not in shown(screen)
    assert "→ allowed" in shown(screen)
    assert screen.chat.text == ""


@pytest.mark.parametrize(("keys", "answer"), [(("y", "enter"), True), (("n", "enter"), False)])
def test_enter_makes_a_held_decision_count_at_once(
    screen: Screen, keys: tuple[str, ...], answer: bool
) -> None:
    prompt = screen.open_prompt()
    screen.pause()
    screen.keys(*keys)
    assert prompt.answer is answer


def test_esc_denies_at_once_even_with_an_allow_held(screen: Screen) -> None:
    prompt = screen.open_prompt()
    screen.pause()
    screen.keys("y", "esc")
    assert prompt.answer is False
    screen.pause()  # the held y is gone: nothing more happens
    assert prompt.answer is False and screen.chat.text == ""


def test_a_word_typed_at_the_prompt_is_a_chat_line(screen: Screen) -> None:
    prompt = screen.open_prompt()
    screen.pause()
    screen.keys(*"yes", "enter", "n")  # the held y was typing: y, then e, in order
    assert screen.sent == ["yes"] and screen.chat.text == "n"
    assert prompt.answer is None
    assert screen.where() is KeysTo.CHAT  # held again until a pause
    screen.pause()
    screen.keys("enter")  # Enter with nothing held decides nothing
    assert prompt.answer is None and screen.sent == ["yes"]


def test_a_held_key_is_dropped_when_its_prompt_ends_otherwise(screen: Screen) -> None:
    prompt = screen.open_prompt()
    screen.pause()
    screen.keys("y")
    screen.broker.current = None  # the turn was interrupted: the prompt went away
    screen.rig.host.panel_port.end_foreign(prompt.target)
    screen.pause()
    screen.keys("x")
    assert prompt.answer is None and screen.chat.text == "x"
