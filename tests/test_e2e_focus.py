"""End-to-end focus and typing safety: the real ``asks`` command under a pty.

One test (or a few) per numbered problem once seen by hand (the sections below), each driving the
app as a person does — real key bytes into a pseudo-terminal, the screen read through pyte — and
asserting on what the person sees and on the session journal (``resolved`` lines are the only
evidence that an answer was saved). The scripts are ``tests/scripts/focus_*.toml``.

Timing: the tests wait for progress (screen text, journal lines), never assert durations. Two
things are timed because they are the behaviour under test (``tests/support/typist.py``):
the :class:`Typist`, one key every 0.066 s (~15 keys/s), and
:func:`pause_until_panel_has_keys`, which stays off the keyboard for longer than the typing
guard (0.6 s: keys keep going where they went until that long has passed with
no key since the later of the blocker's arrival and the last key), then polls until the panel
shows it has the keyboard (solid border).
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any

import pytest
from support.launcher import Launcher, question_id, resolutions, user_messages
from support.pty_harness import DEFAULT_TIMEOUT, PtyApp
from support.screen import (
    PANEL_FOCUSED,
    PANEL_UNFOCUSED,
    chat_text,
    highlighted,
    in_panel,
    lines,
    wait_chat,
    wait_panel,
    wait_panel_gone,
)
from support.typist import BURST_GUARD, Typist, pause_until_panel_has_keys, wait_prompt_has_keys

pytestmark = pytest.mark.e2e


# ---------------------------------------------------------------------------- 1. focus after
# How the blocker ends: the keys pressed once the panel has the keyboard (for "answer" the
# cursor is already on Green), and what the agent then says. Decline is pressed twice (one
# Alt+D only asks for confirmation).
BLOCKER_ENDINGS = {
    "answer": (("enter",), "BLOCKER-DONE: Green"),
    "decline": (("meta d", "meta d"), "BLOCKER-DONE: (no answers)"),
    "defer": (("meta l",), "BLOCKER-DONE: (no answers)"),
}


def start_blocker_turn(launch: Launcher) -> PtyApp:
    """The async question waits; the message "block" starts a turn that asks a blocker
    after two seconds of work."""
    app = launch.start(script="focus_after_blocker.toml")
    app.wait_for("FOCUS-READY")
    app.wait_for(r"╎ Which language for the report\?")
    app.type("block")
    app.press("enter")
    app.wait_for("BLOCK-SOON")  # said just before two seconds of work, then the blocker
    return app


def end_blocker(app: PtyApp, ending: str) -> None:
    keys, said = BLOCKER_ENDINGS[ending]
    app.press(*keys)
    app.wait_for(re.escape(said))
    app.wait_gone(r"⚠ required")


def check_blocker_journal(launch: Launcher, ending: str) -> None:
    records = launch.records()
    assert resolutions(records, question_id(records, "Which language for the report?")) == []
    blocker = resolutions(records, question_id(records, "Required colour?"))
    if ending == "answer":
        assert [(r["kind"], r["answer"]["option_indices"]) for r in blocker] == [("answered", [1])]
    elif ending == "decline":
        assert [r["kind"] for r in blocker] == ["declined"]
    else:
        assert blocker == []  # deferred: the question stays pending, nothing saved


@pytest.mark.parametrize("ending", list(BLOCKER_ENDINGS))
def test_focus_returns_to_the_chat_draft_after_a_blocker(launch: Launcher, ending: str) -> None:
    """Claimed from chat → back to chat, draft and caret intact; the async question
    stays passive and the person's next line is a chat message, not an answer."""
    app = start_blocker_turn(launch)
    app.type("keep this draft")
    wait_chat(app, "keep this draft")
    app.press(*["left"] * 5)  # the caret sits before "draft"

    app.wait_for(r"│ Required colour\?")
    pause_until_panel_has_keys(app)
    assert chat_text(app) == "keep this draft"
    if ending == "answer":
        app.press("down")
        wait_panel(app, r"› 2\. Green")
    end_blocker(app, ending)

    app.type("new ")  # lands in the chat editor, at the caret the person left
    wait_chat(app, "keep this new draft")
    assert re.search(PANEL_UNFOCUSED, app.text()), app.text()  # the async tab: passive
    assert "Which language for the report?" in app.text()
    app.press("enter")
    app.wait_for(r"ECHO: keep this new draft")
    assert user_messages(launch.records())[-1] == "keep this new draft"
    app.wait_for(PANEL_UNFOCUSED)
    check_blocker_journal(launch, ending)


@pytest.mark.parametrize("ending", list(BLOCKER_ENDINGS))
def test_focus_returns_to_the_async_tab_the_person_was_on(launch: Launcher, ending: str) -> None:
    """Claimed while the person was in the panel on an async tab → back to that tab,
    its draft intact, keys moving its cursor."""
    app = start_blocker_turn(launch)
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)
    app.press("down")
    wait_panel(app, r"│ › 2\. Deutsch")  # on the async tab, before the blocker came

    app.wait_for(r"│ Required colour\?")
    pause_until_panel_has_keys(app)
    if ending == "answer":
        app.press("down")
        wait_panel(app, r"› 2\. Green")
    end_blocker(app, ending)

    app.wait_for(PANEL_FOCUSED)
    wait_panel(app, r"│ Which language for the report\?")
    wait_panel(app, r"│ › 2\. Deutsch")  # its draft (the cursor row) survived the blocker
    app.press("down")
    wait_panel(app, r"│ › 3\. Français")
    assert chat_text(app) == ""
    check_blocker_journal(launch, ending)


# ---------------------------------------------------------------------------- 2. typing guard
def start_typing_turn(launch: Launcher) -> PtyApp:
    """Idle agent; "go" starts a turn that asks a blocker after one second of work."""
    app = launch.start(script="focus_typing.toml", cols=160, typing_guard=BURST_GUARD)
    app.wait_for("GUARD-READY")
    app.wait_for(r"idle$")
    app.type("go")
    app.press("enter")
    app.wait_for("GOING")  # said just before one second of work, then the blocker
    return app


def door_answers(launch: Launcher) -> list[tuple[str, Any, Any]]:
    records = launch.records()
    return [
        (
            r["kind"],
            r["answer"] and r["answer"]["option_indices"],
            r["answer"] and r["answer"]["custom_text"],
        )
        for r in resolutions(records, question_id(records, "Pick a door?"))
    ]


def test_typing_is_not_split_when_a_blocker_arrives(launch: Launcher) -> None:
    """Typing guard: every key of a burst that spans the blocker's arrival lands in the chat draft,
    in order; after a pause the panel takes keys, and Enter answers the row chosen then."""
    app = start_typing_turn(launch)
    typist = Typist(app)
    typed, before = typist.until("Pick a door?", then=30)  # ~2 s of typing after arrival
    assert before >= 3, "typing began after the blocker arrived"
    typist.check_burst()

    wait_chat(app, typed)  # none lost, none reordered, none stolen by the panel
    assert in_panel(app, r"^[│╎]   4\. Type something\.\s*[│╎]$"), app.text()  # editor empty
    assert door_answers(launch) == []

    pause_until_panel_has_keys(app)
    wait_panel(app, r"│ › 1\. Left")  # no typed digit moved the blocker's cursor
    app.press("down")
    wait_panel(app, r"│ › 2\. Middle")
    app.press("enter")
    app.wait_for(r"DOOR: Middle")
    assert door_answers(launch) == [("answered", [1], None)]
    assert chat_text(app) == typed


def test_enter_within_a_burst_sends_the_chat_line_never_answers(launch: Launcher) -> None:
    """The typing guard: an Enter typed in the burst after the blocker arrived is a chat Enter."""
    app = start_typing_turn(launch)
    typist = Typist(app)
    head, _ = typist.until("Pick a door?", then=8)
    typist.key("\r")  # Enter
    typist.text("tail,keys,")
    typist.check_burst()

    wait_chat(app, "tail,keys,")  # the Enter sent the head as a chat message
    assert door_answers(launch) == []
    assert "⚠ required" in app.text()

    pause_until_panel_has_keys(app)
    wait_panel(app, r"│ › 1\. Left")
    app.press("down")
    wait_panel(app, r"│ › 2\. Middle")
    app.press("enter")
    app.wait_for(r"DOOR: Middle")
    app.wait_for(re.escape(f"ECHO: {head}"))  # the queued chat message, once the turn ended
    assert door_answers(launch) == [("answered", [1], None)]
    assert user_messages(launch.records()) == ["go", head]
    assert chat_text(app) == "tail,keys,"


# ---------------------------------------------------------------------------- 3. review chip
def test_auto_advance_to_review_highlights_the_review_chip(launch: Launcher) -> None:
    app = launch.start(script="focus_review.toml")
    app.wait_for(r"│ Pick a colour\?")
    pause_until_panel_has_keys(app)
    app.press("enter")
    wait_panel(app, r"│ Pick a size\?")
    app.press("enter")  # the last question: the panel moves on to Review by itself
    wait_panel(app, r"│ Review your answers")

    strip = next(i for i, row in enumerate(lines(app)) if "Colour" in row and "Review" in row)
    row = lines(app)[strip]
    assert re.search(r"\[[^\]]*Review\]", row), row  # the bracketed (selected) chip
    assert not re.search(r"\[[^\]]*(Colour|Size)\]", row), row
    chip = highlighted(app, strip)
    assert "Review" in chip, (row, chip)
    assert "Colour" not in chip and "Size" not in chip, (row, chip)

    app.press("enter")
    app.wait_for(r"REVIEW-RESULT: Red, Small")


# ---------------------------------------------------------------------------- 4. Esc, Esc
def test_esc_that_paused_the_panel_does_not_interrupt_the_agent(launch: Launcher) -> None:
    app = launch.start(script="focus_esc.toml")
    app.wait_for(r"╎ Side question\?")
    app.wait_for("ESC-START")  # the four seconds of work start with the question
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)
    app.press("esc", "esc")  # pause, and at once again (the harness spaces lone Escs)

    found = app.wait_for(r"ESC-WORK-DONE|Interrupted")
    assert found.group(0) == "ESC-WORK-DONE", app.text()
    assert "Interrupted" not in app.text()
    records = launch.records()
    tool_texts = [
        str(r["content"]) for r in records if r["type"] == "chat_message" and r["role"] == "tool"
    ]
    assert tool_texts and not any("interrupted" in t for t in tool_texts), tool_texts
    assert all(r["outcome"] != "interrupted" for r in records if r["type"] == "tool_result")


# ---------------------------------------------------------------------------- 5. prompt keys
def test_collapse_key_works_at_a_permission_prompt(launch: Launcher) -> None:
    app = launch.start(script="focus_prompt.toml")
    app.wait_for(r"Permission: Allow the agent to run: make deploy")
    app.wait_for(r"╎ Side question\?")

    app.press("ctrl ]")
    app.wait_for(r"^▸ 1 question pending")
    app.wait_gone(r"Questions \(")
    assert "Permission: Allow the agent to run: make deploy" in app.text()
    app.press("ctrl ]")
    app.wait_for(PANEL_UNFOCUSED)
    app.wait_for(r"╎ Side question\?")
    app.wait_gone(r"^▸ 1 question pending")

    wait_prompt_has_keys(app)
    app.press("y")  # the prompt kept the keyboard throughout
    app.wait_for(r"PROMPT-RESULT: Ran 'make deploy'")
    records = launch.records()
    assert resolutions(records, question_id(records, "Side question?")) == []


def help_prompt_line(app: PtyApp) -> str:
    """The /help line for the permission prompt (its first row names the prompt before a
    colon), with its wrapped rows joined."""
    rows = lines(app)
    start = next((i for i, row in enumerate(rows) if re.match(r"[^:]*\bprompt\b[^:]*:", row)), None)
    assert start is not None, f"no prompt line in /help:\n{app.text()}"
    end = next((i for i in range(start + 1, len(rows)) if not rows[i].strip()), len(rows))
    return " ".join(rows[start:end])


def test_help_lists_exactly_the_keys_that_work_at_the_prompt(launch: Launcher) -> None:
    app = launch.start(script="focus_typeahead.toml", cols=160)
    app.wait_for("TYPEAHEAD-READY")
    app.type("/help")
    app.press("enter")
    app.wait_for(r"Commands: /asks")

    line = help_prompt_line(app)
    keys = line.split(":", 1)[1]
    assert "Shift+Tab" not in keys, line  # it only says "Answer the open prompt first."
    for expected in (r"(^|[\s·/])y\b", r"(^|[\s·/])n\b", r"\bEsc\b", r"Ctrl\+C\b", r"Ctrl\+\]"):
        assert re.search(expected, keys), (expected, line)


# ---------------------------------------------------------------------------- 6. confirm
def test_decline_needs_a_second_alt_d(launch: Launcher) -> None:
    app = launch.start(script="focus_confirm.toml")
    app.wait_for(r"│ Deploy now\?")
    pause_until_panel_has_keys(app)

    app.press("meta d")
    wait_panel(app, r"again")  # e.g. "Alt+D again to decline"
    assert "⚠ required" in app.text()
    qid = question_id(launch.records(), "Deploy now?")
    assert resolutions(launch.records(), qid) == []

    app.press("down")  # another key disarms
    wait_panel(app, r"│ › 2\. No")
    wait_panel_gone(app, r"again")
    app.press("meta d")  # so this one asks again
    wait_panel(app, r"again")
    assert resolutions(launch.records(), qid) == []
    assert "⚠ required" in app.text()

    app.press("meta d")
    app.wait_for(r"DEPLOY-RESULT: User declined")
    assert [r["kind"] for r in resolutions(launch.records(), qid)] == ["declined"]


def test_clearing_a_multi_line_draft_needs_a_second_ctrl_u(launch: Launcher) -> None:
    app = launch.start(script="focus_clear.toml")
    app.wait_for(r"│ Describe the release\?")
    pause_until_panel_has_keys(app)
    app.type("line one")
    app.press("meta enter")
    app.type("line two")
    wait_panel(app, r"line two")

    app.press("ctrl u")
    wait_panel(app, r"again")  # e.g. "Ctrl+U again to clear"
    assert in_panel(app, r"line one") and in_panel(app, r"line two"), app.text()

    app.press("left")  # another key disarms
    wait_panel_gone(app, r"again")
    app.press("ctrl u")  # so this one asks again
    wait_panel(app, r"again")
    assert in_panel(app, r"line one") and in_panel(app, r"line two"), app.text()

    app.press("ctrl u")
    wait_panel_gone(app, r"line two")
    assert not in_panel(app, r"line one"), app.text()
    app.type("fresh")
    wait_panel(app, r"fresh")
    app.press("enter")
    app.wait_for(r"CLEAR-RESULT: fresh")
    records = launch.records()
    saved = resolutions(records, question_id(records, "Describe the release?"))
    assert [(r["kind"], r["answer"]["custom_text"]) for r in saved] == [("answered", "fresh")]


# ---------------------------------------------------------------------------- 7. typeahead
def test_keys_typed_before_the_first_frame_reach_the_chat_editor(launch: Launcher) -> None:
    app = launch.start(script="focus_typeahead.toml")
    assert app.raw_bytes() == b"", "the app drew before the test could type"
    app.type("early bird")

    app.wait_for("TYPEAHEAD-READY")
    wait_chat(app, "early bird")
    app.press("enter")
    app.wait_for(r"ECHO: early bird")


def test_keys_typed_while_the_app_starts_reach_the_chat_editor(launch: Launcher) -> None:
    """Typing on through start-up: before, while and after the first frame is drawn."""
    app = launch.start(script="focus_typeahead.toml")
    stream = (char for i in itertools.count() for char in f"k{i:03d},")
    typed = ""
    after_first_frame = 0
    deadline = time.monotonic() + DEFAULT_TIMEOUT  # a start-up that never ends, not a speed
    while after_first_frame <= 10 and time.monotonic() < deadline:
        char = next(stream)
        app.type(char)
        typed += char
        time.sleep(0.03)
        if "TYPEAHEAD-READY" in (app.text_now() or ""):
            after_first_frame += 1
    assert after_first_frame > 10, f"the app never drew its first frame:\n{app.text()}"
    wait_chat(app, typed)


# ---------------------------------------------------------------------------- 8. digits
def test_digits_select_any_numbered_row_and_never_answer(launch: Launcher) -> None:
    """Rows are numbered past 4 (4 options + ``Type something.`` = 5; multi-select adds
    ``Next`` = 6); each number moves the cursor there and nothing else. (On the
    ``Type something.`` row a digit is text for its editor, so the test leaves it by Tab/↑.)"""
    app = launch.start(script="focus_digits.toml")
    app.wait_for(r"╎ Pick a season\?")
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)

    app.press("5")
    wait_panel(app, r"│ › 5\. Type something\.")  # row 5, its editor empty: no "5" typed
    app.press("tab")
    wait_panel(app, r"│ Pick tools\?")
    app.press("6")
    wait_panel(app, r"│ › 6\. Next")
    app.press("2")
    wait_panel(app, r"│ › 2\. \[ \] Saw")
    assert not in_panel(app, r"\[x\]"), app.text()  # a digit never toggles either
    assert all(r["type"] != "resolved" for r in launch.records())

    app.press("shift tab")
    wait_panel(app, r"│ Pick a season\?")
    wait_panel(app, r"│ › 5\. Type something\.")  # its cursor stayed on row 5
    app.press("up")
    wait_panel(app, r"│ › 4\. Winter")
    app.press("enter")  # the one deliberate answer
    app.wait_for(r"DIGITS-ACK: Winter")
    records = launch.records()
    assert len([r for r in records if r["type"] == "resolved"]) == 1
    saved = resolutions(records, question_id(records, "Pick a season?"))
    assert [r["answer"]["option_indices"] for r in saved] == [[3]]


def test_a_line_starting_with_a_digit_typed_at_the_rows_is_a_chat_line(launch: Launcher) -> None:
    """Stray keys: ``2 more tests`` typed at an option row without looking jumps to row 2 at
    once, but the letter after it shows it was typing: the jump is undone and the whole
    line is in the chat, in order; nothing is answered."""
    app = launch.start(script="focus_digits.toml", typing_guard=BURST_GUARD)
    app.wait_for(r"╎ Pick a season\?")
    app.press("shift tab")
    app.wait_for(PANEL_FOCUSED)
    typist = Typist(app)
    typist.text("2 more tests")
    typist.check_burst()
    wait_chat(app, "2 more tests")
    app.press("shift tab")  # back in the panel: the cursor is where it was
    app.wait_for(PANEL_FOCUSED)
    wait_panel(app, r"│ › 1\. Spring")
    assert all(r["type"] != "resolved" for r in launch.records())
