"""End-to-end: the real ``asks`` command under a pty, driven by small test scripts.

Each test runs ``python -m asks --script tests/scripts/NAME.toml`` in a pseudo-terminal of a
chosen size (``tests/support/pty_harness.py``), reads the screen through pyte, types keys and
asserts on what a person would see. Every app gets its own temporary ``--data-dir`` and an empty
``XDG_CONFIG_HOME``. Tests wait for text (15 s timeouts), never for a fixed time — except the
arrival guard below, which is itself a time rule of the app.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.fake_openai import Call, FakeOpenAI, Reply
from support.launcher import Launcher, count_receipts, question_id
from support.paths import SUPPORT
from support.pty_harness import ROOT
from support.screen import (
    PANEL_FOCUSED,
    PANEL_PAUSED,
    PANEL_UNFOCUSED,
    QUESTION_ID,
    chat_row,
    chat_text,
    enter_panel,
    eventually,
    flat,
    lines,
    status_line,
    wait_chat,
)
from support.typist import after_claim_guard, wait_prompt_has_keys

pytestmark = pytest.mark.e2e


# ---------------------------------------------------------------------------- 1. typing
def test_typing_in_chat_while_an_async_question_arrives(launch: Launcher) -> None:
    app = launch.start(script="typing.toml")
    app.wait_for("READY-TYPING")
    typed = ""
    tokens = (f"w{i:03d}" for i in range(1000))
    arrived_after: int | None = None
    # Type in small chunks until the question shows up in the panel, then keep typing.
    for count, token in enumerate(tokens):
        app.type(token)
        typed += token
        time.sleep(0.04)
        if arrived_after is None and "╎ Arrived while you typed?" in app.text():
            arrived_after = count
        if arrived_after is not None and count >= arrived_after + 12:
            break
        assert count < 300, f"the async question never arrived:\n{app.text()}"
    assert arrived_after is not None and arrived_after >= 1, "typing began after the arrival"

    wait_chat(app, typed)  # every character, in order: none lost, none stolen by the panel
    text = app.text()
    assert re.search(PANEL_UNFOCUSED, text), text  # the panel did not take the keyboard
    assert "╎ Arrived while you typed?" in text
    assert "Asks: 1 pending" in status_line(app)

    app.type("Z")  # the next key still lands in the chat editor
    wait_chat(app, typed + "Z")
    assert re.search(PANEL_UNFOCUSED, app.text())


# ---------------------------------------------------------------------------- 2. feedback
def test_answer_while_work_runs_is_steered_into_the_turn(launch: Launcher) -> None:
    app = launch.start(script="midturn.toml")
    app.wait_for(r"╎ Tea or coffee\?")
    enter_panel(app)
    app.press("down")
    app.wait_for(r"│ › 2\. Coffee")
    app.press("enter")
    app.wait_gone(r"Questions \(")  # answered: no question left in the panel

    found = app.wait_for(r"MID-ACK: (\S+)")
    assert found.group(1) == "Coffee"
    rows = lines(app)
    steer = next(i for i, row in enumerate(rows) if "feedback (steer)" in row)
    ack = next(i for i, row in enumerate(rows) if "MID-ACK" in row)
    work = [i for i, row in enumerate(rows) if re.search(r"stage \d: finished", row)]
    assert work and work[0] < steer < ack, app.text()  # after a work step, mid-turn
    assert "Tea or coffee? → Coffee" in app.text()  # the person's summary of the feedback
    assert "feedback (wake)" not in app.text()


def test_answer_after_the_turn_wakes_the_agent(launch: Launcher) -> None:
    app = launch.start(script="wake.toml")
    app.wait_for(r"╎ Pick a number\?")
    app.wait_for(r"idle$")  # the turn that asked has ended
    enter_panel(app)
    app.press("down")
    app.wait_for(r"│ › 2\. Two")
    app.press("enter")

    app.wait_for(r"feedback \(wake\)")
    found = app.wait_for(r"WAKE-ACK: (\S+)")
    assert found.group(1) == "Two"
    assert "Pick a number? → Two" in app.text()
    assert "Asks: none pending" in status_line(app)


# ---------------------------------------------------------------------------- 3. blocker
def test_blocker_claims_focus_and_returns_it_with_the_chat_draft_intact(
    launch: Launcher,
) -> None:
    app = launch.start(script="blocker_draft.toml")
    app.wait_for(r"╎ Warm-up question\?")
    app.type("keep this draft")
    wait_chat(app, "keep this draft")

    # Answering the warm-up wakes the agent, whose feedback step asks a blocking question.
    enter_panel(app)
    app.press("down")
    app.wait_for(r"│ › 2\. Bee")
    app.press("enter")

    app.wait_for(r"Questions \(1\) ⚠ required")
    app.wait_for(r"│ Required colour\?")  # solid border: the blocker has the keyboard
    assert re.search(PANEL_FOCUSED, app.text())
    assert chat_text(app) == "keep this draft"
    eventually(app, lambda: b"\x07" in app.raw_bytes(), "no BEL when the blocking wait began")
    assert app.raw_bytes().count(b"\x07") == 1, "one BEL when the blocking wait began"

    after_claim_guard()
    app.press("down")
    app.wait_for(r"│ › 2\. Green")  # keys go to the panel now
    assert chat_text(app) == "keep this draft"
    app.press("enter")

    app.wait_for("BLOCKER-ANSWER: Green")
    app.wait_gone(r"Questions \(")
    assert chat_text(app) == "keep this draft"
    app.type(" and more")  # focus is back in the chat editor, at the end of the draft
    wait_chat(app, "keep this draft and more")


# ---------------------------------------------------------------------------- 4. prompt
def test_permission_prompt_keeps_the_keyboard_then_the_blocker_claims(
    launch: Launcher,
) -> None:
    app = launch.start(script="prompt_blocker.toml")
    app.wait_for(r"Permission: Allow the agent to run: rm -rf build")
    app.wait_for(r"╎ Side question\?")  # the async question sits in the panel meanwhile

    # The prompt is modal: Shift+Tab does not enter the panel; a printable it does not use is
    # typing meant for the chat: it goes there, and the prompt waits for a pause again.
    wait_prompt_has_keys(app)
    app.press("shift tab")
    app.type("x")
    wait_chat(app, "x")
    wait_prompt_has_keys(app)
    app.press("n")
    app.wait_for(r"FIRST-RESULT: The user denied permission to run 'rm -rf build'")
    app.wait_for(r"Permission: Allow the agent to run: make deploy")
    assert re.search(PANEL_UNFOCUSED, app.text()), app.text()
    assert chat_text(app) == "x"

    wait_prompt_has_keys(app)
    app.press("y")
    app.wait_for(r"SECOND-RESULT: Ran 'make deploy'")
    app.wait_gone(r"Permission:")
    app.wait_for(r"Questions \(2\) ⚠ required")
    app.wait_for(r"│ Ship it now\?")  # the blocker claimed the keyboard after the prompt
    assert "[● Ship]" in app.text()

    after_claim_guard()
    app.press("enter")
    found = app.wait_for(r"SHIP-ANSWER: (\S+)")
    assert found.group(1) == "Ship"
    # Back to the origin: the claim took the keyboard from chat, so it goes back there; the async
    # tab stays visible and passive, and the next key is chat's, never an answer.
    app.wait_for(r"╎ Side question\?")
    assert "⚠ required" not in app.text()
    app.type("z")
    wait_chat(app, "xz")


def test_blocker_arriving_during_a_prompt_waits_then_claims(launch: Launcher) -> None:
    """End to end: the prompt keeps the keyboard while a blocker is pending (the blocker waits)."""
    app = launch.start(script="blocker_during_prompt.toml")
    app.wait_for(r"Permission: Allow the agent to run: make deploy")
    app.wait_for(r"Ship during prompt\?")
    assert "⚠ required" in app.text()
    wait_prompt_has_keys(app)
    app.press("shift tab")
    assert "Permission:" in app.text(), "the prompt lost the keyboard"
    assert "[● Ship]" not in app.text() or not re.search(r"┌─ Questions", app.text())
    app.press("y")
    app.wait_gone(r"Permission:")
    app.wait_for(r"┌─ Questions \(1\) ⚠ required")  # solid border: the blocker claimed
    after_claim_guard()
    app.press("enter")
    app.wait_for(r"BOTH-DONE: Yes")
    assert chat_text(app) == ""


# ---------------------------------------------------------------------------- 5. group
def test_blocking_group_with_review_and_partial_submit(launch: Launcher) -> None:
    app = launch.start(script="group.toml", cols=120, rows=40)
    app.wait_for(r"Questions \(4\) ⚠ required")
    app.wait_for(r"│ Pick a colour")
    after_claim_guard()

    # single-select
    app.press("down")
    app.wait_for(r"│ › 2\. Blue")
    app.press("enter")
    app.wait_for(r"✓ Colour")
    app.wait_for(r"│ Pick fruits")

    # multi-select: check two, then Next
    app.press("enter")
    app.wait_for(r"› 1\. \[x\] Apple")
    app.press("down", "enter")
    app.wait_for(r"› 2\. \[x\] Pear")
    app.press("down", "down", "down")
    app.wait_for(r"› 5\. Next")
    app.press("enter")
    app.wait_for(r"✓ Fruit")
    app.wait_for(r"│ Say a word")

    # free text, with notes (Alt+N)
    app.type("banana")
    app.wait_for(r"› 1\. banana")
    app.press("meta n")
    app.wait_for(r"│ Notes:")
    app.type("ripe please")
    app.wait_for(r"│ Notes: ripe please")
    app.press("meta n")
    app.wait_for(r"Alt\+N notes")
    app.press("enter")
    app.wait_for(r"✓ Word")
    app.wait_for(r"│ Pick a size")

    # leave "size" unanswered: Review, then Enter
    app.press("tab")
    app.wait_for(r"Review your answers")
    text = app.text()
    for expected in (
        "→ Blue",
        "→ Apple, Pear",
        "→ banana  (notes: ripe please)",
        "(unanswered)",
        "Enter submits 3 answers now; 1 stays pending.",
    ):
        assert expected in text, text
    app.press("enter")

    app.wait_for(r"result \(partial\)")
    app.wait_for("GOT-RESULT")
    eventually(app, lambda: "Still pending" in flat(app), "the result names what is pending")
    result = flat(app)
    for expected in (
        '"Pick a colour"="Blue"',
        '"Pick fruits"="Apple, Pear"',
        '"Say a word"="banana" user notes: ripe please',
        'Still pending: "Pick a size"',
    ):
        assert expected in result, app.text()
    # The unanswered question stays pending, as an async tab.
    app.wait_for(r"Questions \(1\)")
    assert "⚠ required" not in app.text()
    assert "[Size]" in app.text()
    assert "Asks: 1 pending" in status_line(app)

    # Back to the origin: the keyboard went back to chat; the tab waits, passive. Later: come back
    # and answer it: it arrives as feedback.
    app.wait_for(PANEL_UNFOCUSED)
    enter_panel(app)
    app.press("down")
    app.wait_for(r"│ › 2\. Large")
    app.press("enter")
    app.wait_for(r"feedback \(wake\)")
    found = app.wait_for(r"FEEDBACK-ACK: (\S+)")
    assert found.group(1) == "Large"
    assert "Asks: none pending" in status_line(app)


# ---------------------------------------------------------------------------- 6. collapse, /asks
def test_collapse_expand_and_asks_id(launch: Launcher) -> None:
    app = launch.start(script="two_async.toml")
    app.wait_for(r"╎ First question\?")
    found = app.wait_for(rf"pending: ({QUESTION_ID}), ({QUESTION_ID})")
    second = found.group(2)

    app.press("ctrl ]")
    hint = app.wait_for(r"^▸ 2 questions pending · Ctrl\+\] expand$")
    app.wait_gone(r"Questions \(")
    rows = lines(app)
    editor = chat_row(rows)
    assert editor is not None, app.text()
    assert rows[editor - 1] == hint.group(0)  # one row, right above the chat editor
    assert sum("pending" in row for row in rows[:-1]) == 2  # the hint + the result card

    app.press("ctrl ]")
    app.wait_for(PANEL_UNFOCUSED)
    app.wait_for(r"╎ First question\?")
    app.wait_gone(r"^▸ 2 questions pending")

    app.type(f"/asks {second}")
    app.press("enter")
    app.wait_for(PANEL_FOCUSED)
    app.wait_for(r"│ Second question\?")
    assert "[Two]" in app.text()
    app.press("down")  # the keyboard is in the panel, on that question
    app.wait_for(r"│ › 2\. Delta")

    app.press("esc")
    app.wait_for(PANEL_PAUSED)
    app.type("/asks q-nonexistent")
    wait_chat(app, "/asks q-nonexistent")
    app.press("enter")
    app.wait_for(r"No pending question with id q-nonexistent\.")
    assert chat_text(app) == ""


# ---------------------------------------------------------------------------- 7. sizes
@pytest.mark.parametrize(("cols", "rows"), [(40, 12), (160, 50)])
def test_tour_at_narrow_and_wide_sizes(launch: Launcher, cols: int, rows: int) -> None:
    app = launch.start(cols=cols, rows=rows)  # no --script: the built-in tour
    app.wait_for(r"Questions \(1\)")
    app.wait_for(r"^Asks: 1 pending")
    screen = lines(app)
    assert screen[-1].startswith("Asks:")  # the status line is the bottom row
    assert screen[-2].startswith("›")  # the chat editor right above it
    if cols >= 100:
        assert "Which language should the final report be written in?" in app.text()

    enter_panel(app)
    app.press("down")
    app.wait_for(r"› 2\. Deutsch")
    app.press("enter")
    app.wait_gone(r"Questions \(")
    app.wait_for(r"^Asks: none pending")
    assert app.proc.isalive()
    app.type("hi")
    wait_chat(app, "hi")


# ---------------------------------------------------------------------------- 8. escapes
def test_escape_sequences_in_model_text_are_inert(launch: Launcher) -> None:
    app = launch.start(script="escapes.toml")
    app.wait_for(r"╎ Q-title red clear-end\?")
    for expected in (  # the transcript and the panel may be drawn in different frames
        "MARKER-BEFORE say--redsay-end",
        "[Hdr]",
        "╎ ctx-ok",
        "› 1. OptRed",
        "╎      desc",
        "? asked: Q-title red clear-end?",
    ):
        app.wait_for(re.escape(expected))

    enter_panel(app)
    app.press("enter")
    found = app.wait_for(r"ESC-ACK: (\S+)")
    assert found.group(1) == "OptRed"
    app.wait_for(r"clear-end\? → OptRed")  # the feedback card, in the person's words
    assert "MARKER-BEFORE say--redsay-end" in app.text()  # nothing was cleared

    raw = app.raw_bytes()
    assert b"pwned" not in raw  # no OSC title (nor its text) reached the terminal
    assert b"\x1b]0;" not in raw and b"\x1b]2;" not in raw
    assert app.title() == ""


# ---------------------------------------------------------------------------- 9. crash, resume
def asks_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "asks", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def test_sigkill_after_a_saved_answer_then_resume_delivers_it_once(launch: Launcher) -> None:
    app = launch.start(script="crash.toml", rows=50)
    app.wait_for(r"╎ Pick a pet\?")
    app.wait_for(r"working…$")
    enter_panel(app)
    app.press("down")
    app.wait_for(r"│ › 2\. Dog")
    app.press("enter")
    # Saved (the status says so only after the fsync) but not delivered: the agent is busy.
    app.wait_for(r"1 saved feedback")
    app.wait_for(r"│ Pick a tree\?")
    app.kill(signal.SIGKILL)

    listing = asks_cli("sessions", "--data-dir", str(launch.data_dir), env=launch.env)
    assert listing.returncode == 0, listing.stderr
    header, row = listing.stdout.splitlines()
    assert header.split() == [
        "SESSION",
        "STARTED",
        "LAST",
        "USED",
        "MODE",
        "QUESTIONS",
        "FIRST",
        "MESSAGE",
    ]
    found = re.fullmatch(r"(\S+) .*  repl  1 pending, 1 unsent", row)
    assert found, listing.stdout
    session = found.group(1)
    assert launch.journal().name == f"{session}.jsonl"
    pet = question_id(launch.records(), "Pick a pet?")
    assert count_receipts(launch.records(), pet) == 0

    resumed = launch.start("--resume", session, script="crash.toml", rows=50)
    resumed.wait_for(rf"Resumed session {session}: 1 pending, 1 saved answer to deliver\.")
    resumed.wait_for(r"feedback \(wake\)")
    found = resumed.wait_for(r"FEEDBACK-ACK: (\S+)")
    assert found.group(1) == "Dog"
    resumed.wait_for(r"╎ Pick a tree\?")  # the other question is back as a tab
    assert "[Tree]" in resumed.text()
    resumed.wait_for(r"^Asks: 1 pending")
    resumed.wait_for(r"idle$")
    resumed.type("/quit")
    resumed.press("enter")
    assert resumed.wait_exit() == 0
    assert count_receipts(launch.records(), pet) == 1

    again = launch.start("--resume", session, script="crash.toml", rows=50)
    again.wait_for(rf"Resumed session {session}: 1 pending, 0 saved answers to deliver\.")
    again.wait_for(r"╎ Pick a tree\?")
    enter_panel(again)
    again.press("enter")
    found = again.wait_for(r"FEEDBACK-ACK: Oak")
    assert again.text().count("FEEDBACK-ACK: Dog") == 1  # the replayed transcript, once
    assert again.text().count("Pick a pet? → Dog") == 1
    again.type("/quit")
    again.press("enter")
    assert again.wait_exit() == 0
    records = launch.records()
    assert count_receipts(records, pet) == 1
    assert count_receipts(records, question_id(records, "Pick a tree?")) == 1


# ---------------------------------------------------------------------------- 10. CLI
def test_cli_errors_are_one_line_and_write_nothing(tmp_path: Path, launch: Launcher) -> None:
    bad_toml = tmp_path / "bad.toml"
    bad_toml.write_text("name = [unclosed\n")
    bad_step = tmp_path / "bad_step.toml"
    bad_step.write_text('[[step]]\non = "sometimes"\n[[step.reply]]\nsay = "x"\n')
    cases = {
        "bad flag": ["--no-such-flag"],
        "unknown session": ["--resume", "nosuch"],
        "missing script": ["--script", str(tmp_path / "missing.toml")],
        "unreadable script": ["--script", str(tmp_path)],  # a directory cannot be read
        "malformed TOML": ["--script", str(bad_toml)],
        "malformed script": ["--script", str(bad_step)],
    }
    for name, args in cases.items():
        data_dir = tmp_path / f"data-{name.replace(' ', '-')}"
        result = asks_cli(*args, "--data-dir", str(data_dir), env=launch.env)
        assert result.returncode != 0, name
        assert result.stdout == "", name
        errors = result.stderr.splitlines()
        if name == "bad flag":  # argparse: usage, then one "asks: error: …" line
            assert errors[-1].startswith("asks: error:"), result.stderr
        else:
            assert len(errors) == 1 and errors[0].startswith("asks: "), (name, result.stderr)
        assert not data_dir.exists() or not any(data_dir.iterdir()), name

    version = asks_cli("--version", env=launch.env)
    assert version.returncode == 0
    assert re.fullmatch(r"asks \d+\.\d+\.\d+\S*\n", version.stdout), version.stdout


def test_quit_exits_zero_and_says_how_to_resume(launch: Launcher) -> None:
    app = launch.start(script="wake.toml")
    app.wait_for(r"╎ Pick a number\?")
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0
    session = launch.journal().stem
    hint = re.search(rb"Resume it with: (.+?) --resume (\S+)", app.raw_bytes())
    assert hint is not None and hint[2].decode() == session
    assert hint[1].decode().endswith(" -m asks")  # as started: python -m asks (not on PATH)
    app.wait_for(r"Resume it with: ")


def test_two_ctrl_c_when_idle_quit(launch: Launcher) -> None:
    app = launch.start(script="wake.toml")
    app.wait_for(r"╎ Pick a number\?")
    app.wait_for(r"idle$")
    app.press("ctrl c")
    app.wait_for(r"Press Ctrl\+C again to quit\.")
    assert app.proc.isalive()
    app.press("ctrl c")
    assert app.wait_exit() == 0
    assert b" -m asks --resume" in app.raw_bytes()


def test_ctrl_c_interrupts_a_blocking_wait_and_a_second_one_quits(launch: Launcher) -> None:
    app = launch.start(script="interrupt.toml")
    app.wait_for(r"Questions \(1\) ⚠ required")
    app.press("ctrl c")
    app.wait_for(r"Interrupted\. Pending questions stay open\.")
    app.wait_for(r"idle$")
    assert "⚠ required" not in app.text() and "Interrupt me?" in app.text()  # still pending
    app.press("ctrl c")
    assert app.wait_exit() == 0
    assert b" -m asks --resume" in app.raw_bytes()


# ---------------------------------------------------------------------------- 11. provider
E2E_KEY = "sk-e2e-SECRET-7d1f"


def provider_replies(body: dict[str, Any]) -> Reply:
    """The fake model: asks async, then blocking, then quotes what it received."""
    last = body["messages"][-1]
    if last["role"] == "user" and last["content"].startswith("[asks feedback]"):
        return Reply(f"FEEDBACK-QUOTE: {last['content']}")
    if last["role"] == "user":
        args = {
            "blocking": False,
            "questions": [
                {
                    "question": "Tea or coffee?",
                    "header": "Drink",
                    "options": [{"label": "Tea"}, {"label": "Coffee"}],
                }
            ],
        }
        return Reply("PROVIDER-ASKING", [Call("ask_user_question", json.dumps(args), "e2e_a")])
    if last.get("tool_call_id") == "e2e_a":
        args = {
            "questions": [
                {
                    "question": "Pick a size?",
                    "header": "Size",
                    "options": [{"label": "Small"}, {"label": "Large"}],
                }
            ]
        }
        return Reply("", [Call("ask_user_question", json.dumps(args), "e2e_b")])
    return Reply(f"BLOCK-QUOTE: {last['content']}")


def test_openai_compatible_server_async_and_blocking_answers(launch: Launcher) -> None:
    """`asks --base-url http://127.0.0.1:PORT/v1 --model test` against a real local server."""
    with FakeOpenAI(provider_replies) as server:
        launch.env["OPENAI_API_KEY"] = E2E_KEY
        app = launch.start("--base-url", server.url, "--model", "test")
        app.wait_for(r"idle$")
        app.type("go")
        app.press("enter")
        app.wait_for("PROVIDER-ASKING")
        app.wait_for(r"Questions \(2\) ⚠ required")  # the async one, then the blocker
        app.wait_for(r"│ Pick a size\?")
        after_claim_guard()
        app.press("down")
        app.wait_for(r"│ › 2\. Large")
        app.press("enter")
        app.wait_for("BLOCK-QUOTE")
        eventually(app, lambda: "You can now continue" in flat(app), "the quote is complete")
        assert 'BLOCK-QUOTE: User has answered your questions: "Pick a size?"="Large".' in flat(app)
        app.wait_for(r"idle$")

        app.wait_for(r"╎ Tea or coffee\?")  # back to chat, the async tab passive
        enter_panel(app)
        app.press("down")
        app.wait_for(r"│ › 2\. Coffee")
        app.press("enter")
        app.wait_for(r"feedback \(wake\)")
        app.wait_for("FEEDBACK-QUOTE")
        eventually(app, lambda: 'answer "Coffee". ' in flat(app) + " ", "the feedback quote")
        quote = re.search(
            r"FEEDBACK-QUOTE: \[asks feedback\] The user responded to "
            rf"question\(s\) you asked earlier: Question ({QUESTION_ID}) "
            r'"Tea or coffee\?": answer "Coffee"\.',
            flat(app),
        )
        assert quote, app.text()
        app.wait_for(r"^Asks: none pending")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0

        first, *_, last = server.seen
        assert len(server.seen) == 4
        assert "ask_user_question" in first.tool_names  # after the no-UI tools
        assert first.headers["authorization"] == f"Bearer {E2E_KEY}"
        assert last.messages[-1]["content"].startswith("[asks feedback]")
        assert quote.group(1) in last.messages[-1]["content"]
    assert E2E_KEY.encode() not in launch.journal().read_bytes()


# ---------------------------------------------------------------------------- web bridge
def test_web_flag_serves_questions_and_a_browser_answer_reaches_the_agent(
    launch: Launcher,
) -> None:
    """`asks --web`: the URL is on screen; the page lists the question; a form post answers it;
    the panel's tab goes away and the agent quotes the answer, once."""
    app = launch.start("--web", script="web.toml", cols=140)
    app.wait_for("WEB-READY")
    url = app.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)").group(1)
    page = httpx.get(url, timeout=10)
    assert page.status_code == 200 and "Answer me from the web?" in page.text
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page.text))
    action = re.search(r'<form method="post" action="([^"]+)"', page.text)
    assert action is not None and {"csrf", "question", "incarnation"} <= fields.keys()
    origin = url.split("/?", 1)[0]
    answer = httpx.post(
        origin + action.group(1).replace("&amp;", "&"),
        data={**fields, "choice": "0", "action": "answer"},
        headers={"Origin": origin},
        timeout=10,
    )
    assert answer.status_code in (200, 303), answer.text
    app.wait_for(r"WEB-ANSWER: Gladly")
    app.wait_gone(r"Questions \(")
    app.wait_for(r"\w+ answered in the browser: Gladly")  # the terminal says where it went
    again = httpx.post(
        origin + action.group(1).replace("&amp;", "&"),
        data={**fields, "choice": "1", "action": "answer"},
        headers={"Origin": origin},
        timeout=10,
    )
    assert again.status_code == 409  # already answered: never a second delivery
    assert app.text().count("WEB-ANSWER") == 1
    assert httpx.get(origin + "/", timeout=10).status_code == 403  # no token, no data


def test_an_idle_ctrl_c_hint_is_transient(launch: Launcher) -> None:
    """Ctrl+C with nothing to interrupt says how to quit in the status line, not as a
    permanent transcript line; the next key clears it."""
    app = launch.start(script="wake.toml")
    app.wait_for(r"idle$")
    app.press("ctrl c")
    app.wait_for(r"Press Ctrl\+C again to quit\.")
    assert "Press Ctrl+C again" in status_line(app)
    app.type("x")  # any other key: the hint goes
    app.wait_gone(r"Press Ctrl\+C again")
    assert app.proc.isalive()


def test_small_terminals_keep_the_question_and_the_editor(launch: Launcher) -> None:
    """At 30×10 the focused panel shows the question (hints shrink to one row) above the
    editor and status line; below 24×8 one line says the terminal is too small."""
    app = launch.start(script="wake.toml", cols=30, rows=10)
    app.wait_for(r"Questions \(1\)")
    enter_panel(app)
    app.wait_for(r"Pick a number\?")
    screen = lines(app)
    assert screen[-1].startswith("Asks:") and screen[-2].startswith("›")
    tiny = launch.start(script="wake.toml", cols=12, rows=6)
    tiny.wait_for(r"^Too small")
    assert tiny.proc.isalive()


def test_ctrl_g_edits_the_reply_in_the_external_editor(launch: Launcher, tmp_path: Path) -> None:
    """Ctrl+G: the draft goes to $VISUAL in a private 0600 file ending in a newline (so the
    editor's line is not glued to the draft), and what the editor wrote comes back."""
    log = tmp_path / "editor.log"
    launch.env["VISUAL"] = f"{sys.executable} {SUPPORT / 'fake_editor.py'}"
    launch.env["FAKE_EDITOR_LOG"] = str(log)
    app = launch.start(script="wake.toml")
    app.wait_for(r"╎ Pick a number\?")
    enter_panel(app)
    app.press("3")  # the Type something. row
    app.type("my draft")
    app.wait_for(r"my draft")
    app.press("ctrl g")
    app.wait_for(r"added by the editor")
    assert log.read_text().split(" ", 2)[:2] == ["600", "True"]
    assert "my draft" in app.text()
