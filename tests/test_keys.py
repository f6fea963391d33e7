"""Keys meant for somewhere else never answer (DESIGN §5 rule 9, issue 19 items 2–4).

Unit and host-scenario tests, no terminal: the chat-command predicate (rule 9b), the stray
mark and the typing guard re-armed by stray keys (9a), where the keyboard is (9c), and the
host's notice that expires on the next key or after a few seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import Rig

from asks.core.chatline import chat_command_line, is_chat_command


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig.create(tmp_path)
    yield made
    made.journal.close()


# =========================================================================== 9b: the predicate
@pytest.mark.parametrize(
    "line",
    ["/quit", "/help", "  /asks q-1  ", "/language de", "/web", "/x", "/my-command arg",
     "/a_b", "/quit\t"],
)
def test_chat_commands(line: str) -> None:
    assert is_chat_command(line)


@pytest.mark.parametrize(
    "line",
    ["", "/", "//quit", "/tmp/x", "/2", "/-x", "see /help", "quit", "mixed/quit", "/quit.",
     "/quit/", "/é", "a /quit"],
)
def test_not_chat_commands(line: str) -> None:
    assert not is_chat_command(line)


def test_chat_command_line_finds_the_first_command_line_in_any_text() -> None:
    assert chat_command_line("mixed\n  /quit  ") == "/quit"
    assert chat_command_line("", None, "note\n/help me") == "/help me"
    assert chat_command_line("/tmp/x\nmixed/quit", "fine") is None
    assert chat_command_line() is None
