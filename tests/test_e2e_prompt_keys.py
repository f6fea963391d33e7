"""End to end: keys at a permission prompt never decide it unless the person meant them to.

The real ``asks`` under a pty, the script ``tests/scripts/prompt_typing.toml``: "go" starts a
turn that works for a second, then asks permission to run ``make deploy``. What is pinned
(docs/architecture.md, "The permission prompt's keys"): typing that goes on through the prompt's
arrival lands in the chat; words typed at the prompt (``stty -a``, ``yes please``) are chat lines,
sent by their Enter, even though they contain its ``y``; a deliberate ``y`` (with Enter, or a pause)
allows. Evidence: the journal's ``permission_decided`` lines (the only record of a decision) and the
chat editor on screen.

Timing: waits are on progress (screen, journal); the typist's key gap and the guard's pause are
the behaviour under test (tests/support/typist.py).
"""

from __future__ import annotations

import pytest
from support.launcher import Launcher, user_messages
from support.pty_harness import PtyApp
from support.screen import chat_text, eventually, wait_chat
from support.typist import BURST_GUARD, Typist, wait_prompt_has_keys

pytestmark = pytest.mark.e2e

PROMPT = "Permission: Allow the agent to run: make deploy"


def start_turn(launch: Launcher) -> PtyApp:
    app = launch.start(script="prompt_typing.toml", cols=120, typing_guard=BURST_GUARD)
    app.wait_for("PROMPT-READY")
    app.wait_for(r"idle$")
    app.type("go")
    app.press("enter")
    app.wait_for("GOING")  # one second of work, then the prompt
    return app


def decisions(launch: Launcher) -> list[bool]:
    return [bool(r["allowed"]) for r in launch.records() if r["type"] == "permission_decided"]


def allow_on_purpose(app: PtyApp, launch: Launcher) -> None:
    """The person looks at the prompt and allows: ``y`` then Enter (no pause needed)."""
    wait_prompt_has_keys(app)
    app.press("y")
    app.press("enter")
    app.wait_for(r"DEPLOY: Ran 'make deploy'")
    assert decisions(launch) == [True]


def test_typing_through_the_prompts_arrival_goes_to_the_chat(launch: Launcher) -> None:
    app = start_turn(launch)
    typist = Typist(app)
    stream = "yes,why,not,ny," * 10  # no spaces: the screen trims the end of a row
    typed, before = typist.until(PROMPT, then=12, stream=stream)
    assert before >= 3, "typing began after the prompt opened"
    typist.check_burst()

    wait_chat(app, typed)  # every key, in order: none swallowed by the prompt
    assert PROMPT in app.text()
    app.wait_for(r"keys: prompt")  # after the pause the prompt has the keys, still undecided
    assert decisions(launch) == []
    assert chat_text(app) == typed

    allow_on_purpose(app, launch)
    assert chat_text(app) == typed


@pytest.mark.parametrize("line", ["stty -a", "yes please"])
def test_words_typed_at_the_prompt_are_chat_lines(launch: Launcher, line: str) -> None:
    app = start_turn(launch)
    app.wait_for(PROMPT)
    wait_prompt_has_keys(app)
    typist = Typist(app)
    typist.text(line)
    typist.key("\r")  # Enter: the chat's, within the pause the first letter asked for
    typist.check_burst()

    wait_chat(app, "")  # the line was sent to the chat
    assert PROMPT in app.text()
    assert decisions(launch) == []  # its y allowed nothing

    allow_on_purpose(app, launch)
    eventually(
        app,
        lambda: line in user_messages(launch.records()),
        f"{line!r} should reach the agent as a chat message",
    )
