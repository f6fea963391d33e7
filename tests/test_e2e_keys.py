"""Keys meant for somewhere else never answer: the real
``asks`` under a pty, typed into like a person who is not looking at the panel.

* stray keys: a blocker holds the keyboard after an idle pause; ``/help`` and Enter typed
  at it reach the chat whole (the help is printed), nothing is answered, and the first Enter
  after that stray typing is refused with a hint — the second one chooses;
* chat commands: after a deferral the keyboard is back in an async tab's ``Type
  something.`` editor; ``/quit`` and Enter typed there are not sent as the answer (the footer
  asks to confirm, the app does not quit); a second Enter sends it;
* where the keys go: the status line names where the keys are through those states, and a
  refusal notice goes on the next key or, untouched, after a few seconds;
* Esc on a required tab says what works, with the keys of the keymap.

Only the typist's key gap and pauses longer than the typing guard are timed (they are the
behaviour under test); everything else waits for the screen or the journal.
"""

from __future__ import annotations

import re
import time

import pytest
from support.launcher import Launcher, question_id, resolutions, user_messages
from support.pty_harness import PtyApp
from support.screen import PANEL_FOCUSED, eventually, lines, wait_panel
from support.typist import BURST_GUARD, Typist, pause, pause_until_panel_has_keys

pytestmark = pytest.mark.e2e


HELP = "Commands: /asks [ID]"  # the first line /help prints


def status(app: PtyApp) -> str:
    return lines(app)[-1]


def wait_status(app: PtyApp, pattern: str) -> None:
    """Wait until the status line's left part matches ``pattern``; a ``$`` in it is the end of
    the left part (what follows is the agent state on the right)."""
    left = re.compile(pattern.replace("$", r"(?:\s{2,}|$)"))
    eventually(
        app,
        lambda: left.search(status(app)) is not None,
        f"the status line should match {pattern!r}, it is {status(app)!r}",
    )


def footer(app: PtyApp) -> str:
    """The panel's last rows above its bottom border (notices and key hints)."""
    rows = lines(app)
    bottom = max(i for i, row in enumerate(rows) if row.startswith("└"))
    return "\n".join(rows[bottom - 3 : bottom])


# ---------------------------------------------------------------------------- stray keys
def test_chat_line_typed_at_a_claimed_blocker_reaches_the_chat_and_answers_nothing(
    launch: Launcher,
) -> None:
    app = launch.start(script="keys_group.toml", cols=160, rows=40, typing_guard=BURST_GUARD)
    app.wait_for("KEYS-READY")
    wait_panel(app, r"Where should this service be deployed\?")
    pause_until_panel_has_keys(app)  # idle: the claim took the keyboard

    typist = Typist(app)
    typist.text("/help")
    typist.key("\r")
    typist.check_burst()
    eventually(app, lambda: HELP in app.text() or "✓ Target" in app.text(), "/help or an answer")
    assert "✓ Target" not in app.text(), "the Enter meant for the chat chose “Staging”"
    assert HELP in app.text(), "/help typed at the panel never reached the chat"
    records = launch.records()
    target = question_id(records, "Where should this service be deployed?")
    assert resolutions(records, target) == []
    assert user_messages(records) == []  # a slash command, not a message to the agent
    assert "✓ Target" not in app.text()  # nothing staged either

    app.wait_for(PANEL_FOCUSED)  # after the pause the panel has the keys again
    wait_status(app, r"keys: question “Target”$")
    app.press("enter")  # the first Enter after stray typing only asks
    eventually(
        app,
        lambda: "You were typing in the chat: press Enter again to choose “Staging”" in footer(app),
        "the hint after stray typing",
    )
    assert "✓ Target" not in app.text()
    app.press("enter")
    wait_panel(app, r"✓ Target")  # staged (a group: it is saved at Review)
    assert resolutions(launch.records(), target) == []


def test_status_line_says_the_keys_go_to_the_chat_while_the_guard_holds_them(
    launch: Launcher,
) -> None:
    app = launch.start(script="keys_group.toml", cols=160, rows=40, typing_guard=BURST_GUARD)
    app.wait_for("KEYS-READY")
    pause_until_panel_has_keys(app)
    typist = Typist(app)
    typist.text("draft")
    wait_status(app, r"keys: chat — “Target” waits for a pause$")
    assert "Your keys go to the chat until you pause typing" in footer(app)
    typist.check_burst()
    # [ui] typing_guard holds: twice the default's 0.6 s after the last key, still the chat's
    time.sleep(max(0.0, typist.last_key_at + 1.2 - time.monotonic()))
    assert "keys: chat — “Target” waits for a pause" in status(app), status(app)
    app.wait_for(PANEL_FOCUSED)
    wait_status(app, r"keys: question “Target”$")
    assert launch.records()[-1]["type"] != "resolved"


# ---------------------------------------------------------------------------- chat commands
def test_chat_command_typed_into_an_answer_is_not_sent_without_a_second_enter(
    launch: Launcher,
) -> None:
    app = launch.start(script="focus_after_blocker.toml", cols=160, rows=40)
    app.wait_for("FOCUS-READY")
    app.type("block")
    app.press("enter")
    app.wait_for("BLOCK-SOON")
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)
    app.press("4")  # the async tab's "Type something." editor
    wait_panel(app, r"› 4\. Type something\.")
    app.type("mixed")
    app.press("meta enter")
    app.wait_for(r"Required colour\?")
    pause_until_panel_has_keys(app)
    app.press("meta l")  # answer later: the keyboard goes back to the async tab's editor
    app.wait_for(r"BLOCKER-DONE")
    wait_panel(app, r"› 4\. mixed")

    typist = Typist(app)
    typist.text("/quit")
    typist.key("\r")
    language = question_id(launch.records(), "Which language for the report?")
    confirm = "“/quit” looks like a chat command: press Enter again to send it as your answer"
    eventually(
        app,
        lambda: confirm in footer(app) or resolutions(launch.records(), language),
        "the confirmation of a chat command, or a saved answer",
    )
    assert resolutions(launch.records(), language) == [], "“mixed\n/quit” was sent as the answer"
    assert app.proc.isalive()  # /quit was not run either: it is in the answer's editor
    wait_status(app, r"keys: question “Language”$")

    app.press("enter")  # the person means it
    eventually(app, lambda: len(resolutions(launch.records(), language)) == 1, "saved")
    [saved] = resolutions(launch.records(), language)
    assert saved["answer"]["custom_text"] == "mixed\n/quit"


# ---------------------------------------------------------------------------- where the keys go
def test_esc_on_a_required_tab_says_what_works_with_the_keymaps_keys(launch: Launcher) -> None:
    app = launch.start(script="keys_group.toml", cols=160, rows=40)
    app.wait_for("KEYS-READY")
    pause_until_panel_has_keys(app)
    app.press("esc")
    wait_status(
        app,
        re.escape(
            "This question is required: answer it, press Alt+L to answer "
            "later, or Alt+D twice to decline."
        ),
    )
    assert app.proc.isalive()
    assert launch.records()[-1]["type"] != "resolved"


def test_refusal_notices_go_on_the_next_key_or_after_a_few_seconds(launch: Launcher) -> None:
    app = launch.start(script="keys_group.toml", cols=160, rows=40)
    app.wait_for("KEYS-READY")
    pause_until_panel_has_keys(app)
    app.press("esc")  # refused on a required tab
    wait_status(app, r"required")
    left = re.split(r"\s{2,}", status(app))[0]  # the agent state is on the right
    refusal = left.split(" · ")[-1]  # the notice: the left part's last
    app.press("down")  # the next key: the notice goes, and the key still acts
    eventually(app, lambda: refusal not in app.text(), "the notice should go on the next key")
    wait_panel(app, r"› 2\. Production")

    app.press("esc")
    wait_status(app, re.escape(refusal))
    eventually(app, lambda: refusal not in app.text(), "the notice should go by itself")


def test_status_line_names_the_keys_from_chat_to_panel_and_back(launch: Launcher) -> None:
    app = launch.start(script="focus_after_blocker.toml", cols=160, rows=40)
    app.wait_for("FOCUS-READY")
    wait_status(app, r"keys: chat$")  # an async question waits, passive
    app.press("shift tab")
    wait_status(app, r"keys: question “Language”$")
    app.type("/asks q-nope")  # a stray "/" on a row: the line goes to the chat
    wait_status(app, r"keys: chat$")
    app.press("enter")
    app.wait_for(r"No pending question with id q-nope\.")
    wait_status(app, r"No pending question with id q-nope\.$")
    app.type("x")
    eventually(app, lambda: "q-nope" not in status(app), "the notice should go on the next key")
    wait_status(app, r"keys: chat$")
    pause()
    assert re.search(r"keys: chat\s{2,}", status(app)), status(app)
