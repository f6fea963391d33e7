"""The foreign-prompt view: a modal y/n block over a real broker and host."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import trio
import trio.testing
from support.rig import Rig

from asks.agent.prompts import PromptBroker
from asks.widgets.prompt import PALETTE, PromptView

COLS = 50
SIZE = (COLS,)


def rows(view: PromptView) -> list[str]:
    return [row.decode() for row in view.render(SIZE, focus=True).text]


@pytest.fixture
def broker(tmp_path: Path) -> PromptBroker:
    return PromptBroker(Rig.create(tmp_path).host.panel_port)


@asynccontextmanager
async def prompting(
    broker: PromptBroker, text: str
) -> AsyncIterator[tuple[PromptView, Callable[[], Awaitable[list[bool]]]]]:
    """Raise a prompt in the background; yield the view and a function awaiting the answer."""
    answers: list[bool] = []
    view = PromptView(broker)
    async with trio.open_nursery() as nursery:

        async def ask() -> None:
            answers.append(await broker.confirm(text))

        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        view.refresh()

        async def answered() -> list[bool]:
            await trio.testing.wait_all_tasks_blocked()
            view.refresh()
            return answers

        yield view, answered
        nursery.cancel_scope.cancel()


async def test_prompt_is_a_boxed_block(broker: PromptBroker) -> None:
    async with prompting(broker, "run `ls`?") as (view, _):
        assert rows(view) == [
            "┌" + "─" * (COLS - 2) + "┐",
            "│" + "⚠ Permission: run `ls`?  y allow · n deny".ljust(COLS - 2) + "│",
            "└" + "─" * (COLS - 2) + "┘",
        ]
        assert view.prompt is broker.current


@pytest.mark.parametrize(
    ("key", "answer"), [("y", True), ("Y", True), ("n", False), ("esc", False)]
)
async def test_keys_answer_the_prompt(broker: PromptBroker, key: str, answer: bool) -> None:
    async with prompting(broker, "allow?") as (view, answered):
        assert view.keypress(SIZE, key) is None
        assert await answered() == [answer]
        assert broker.current is None
        assert view.prompt is None
        assert rows(view) == [" " * COLS]


async def test_other_keys_are_swallowed_except_global_and_printable_keys(
    broker: PromptBroker,
) -> None:
    async with prompting(broker, "allow?") as (view, answered):
        for key in ("enter", "tab", "shift tab", "up", "page up", "meta n"):
            assert view.keypress(SIZE, key) is None
        for key in ("x", " ", "é", "/"):  # typing meant for somewhere else: the layer's strays
            assert view.keypress(SIZE, key) == key
        assert view.keypress(SIZE, "ctrl c") == "ctrl c"  # the app interrupts
        assert view.keypress(SIZE, "ctrl ]") == "ctrl ]"  # the layer collapses
        assert await answered() == []
        assert broker.current is not None


async def test_answered_state_shows_until_the_broker_ends_it(broker: PromptBroker) -> None:
    async with prompting(broker, "allow?") as (view, _):
        assert broker.current is not None
        broker.current.answer = True  # answered, the awaiting task has not resumed yet
        view.refresh()
        assert "→ allowed" in rows(view)[1]


async def test_cancelling_the_asker_ends_the_prompt(broker: PromptBroker) -> None:
    view = PromptView(broker)
    answers: list[bool] = []
    async with trio.open_nursery() as nursery:

        async def ask() -> None:
            answers.append(await broker.confirm("allow?"))

        nursery.start_soon(ask)
        await trio.testing.wait_all_tasks_blocked()
        view.refresh()
        assert view.prompt is not None
        nursery.cancel_scope.cancel()
    view.refresh()
    assert view.prompt is None
    assert view.keypress(SIZE, "y") == "y"  # nothing is up: keys pass through


async def test_prompt_text_is_sanitised(broker: PromptBroker) -> None:
    async with prompting(broker, "rm -rf \x1b[2J/\x1b]0;t\x07tmp\u202e?") as (view, _):
        text = "\n".join(rows(view))
        assert "\x1b" not in text
        assert "\u202e" not in text
        assert "rm -rf /tmp?" in text


def test_without_a_prompt_it_is_one_empty_row_and_returns_keys(broker: PromptBroker) -> None:
    view = PromptView(broker)
    assert rows(view) == [" " * COLS]
    assert view.keypress(SIZE, "y") == "y"
    assert view.keypress(SIZE, "n") == "n"


def test_palette_names_are_prefixed() -> None:
    names = [entry[0] for entry in PALETTE]
    assert all(name == "prompt" or name.startswith("prompt.") for name in names)
