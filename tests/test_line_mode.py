"""Line mode (asks/surfaces/line.py): the real command with piped stdin, and under a pty.

Piped sessions run ``python -m asks --script tests/scripts/line_*.toml`` with stdin and stdout
as pipes (so line mode is chosen automatically) and check the output lines, that no escape
sequence reached stdout, and — in the raw journal — that every saved answer was saved and
delivered exactly once. Terminal sessions run ``--line`` (or ``TERM=dumb``) under a pty
(tests/support/pty_harness.py) and type like a person. Nothing waits for a fixed time: tests
wait for output (generous timeouts only turn a hang into a failure).
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.piped import read_until
from support.pty_harness import ROOT, PtyApp

from asks.agent.transcript import EntryKind, Transcript
from asks.core.model import Answer, AnswerKind, Option, QuestionSpec
from asks.surfaces.line_io import Output, TranscriptPrinter
from asks.surfaces.line_prompts import parse_answer, parse_yes_no, split_notes

SCRIPTS = Path(__file__).resolve().parent / "scripts"
QUESTION_ID = r"q-[0-9a-f]{10}"
WAIT = 30.0  # seconds before a missing line fails a test (never an assertion about speed)

THREE = QuestionSpec("Pick?", "H", (Option("Red"), Option("Green"), Option("Blue")))
MULTI = QuestionSpec("Pick some?", "H", THREE.options, multi_select=True)
FREE = QuestionSpec("Name it?", "H")


# ---------------------------------------------------------------------------- reading answers
@pytest.mark.parametrize(
    ("spec", "line", "expected"),
    [
        (THREE, "2", Answer(AnswerKind.OPTION, (1,))),
        (THREE, " 3 // the sea ", Answer(AnswerKind.OPTION, (2,), None, "the sea")),
        (THREE, "teal", Answer(AnswerKind.CUSTOM, (), "teal")),
        (THREE, "2 cats", Answer(AnswerKind.CUSTOM, (), "2 cats")),
        (THREE, "²", Answer(AnswerKind.CUSTOM, (), "²")),  # not an ASCII digit: text
        (THREE, "see https://x.org", Answer(AnswerKind.CUSTOM, (), "see https://x.org")),
        (MULTI, "1,3", Answer(AnswerKind.MULTI, (0, 2))),
        (MULTI, "3 1, 3", Answer(AnswerKind.MULTI, (0, 2))),
        (MULTI, "mauve //why", Answer(AnswerKind.MULTI, (), "mauve", "why")),
        (FREE, "42", Answer(AnswerKind.CUSTOM, (), "42")),
    ],
)
def test_a_line_is_option_numbers_or_the_persons_own_text(
    spec: QuestionSpec, line: str, expected: Answer
) -> None:
    assert parse_answer(spec, line) == expected


@pytest.mark.parametrize(
    ("spec", "line", "problem"),
    [
        (THREE, "7", "There is no option 7: choose 1-3."),
        (THREE, "0", "There is no option 0: choose 1-3."),
        (MULTI, "1,,9", "“1,,9” is not a list of option numbers: write them like 1,3."),
        (MULTI, "1,3,", "“1,3,” is not a list of option numbers: write them like 1,3."),
        (THREE, "1,3", "This question takes one answer: type one number."),
        (THREE, "// only notes", "Type an answer before the notes."),
    ],
)
def test_a_bad_line_gives_one_sentence_and_no_answer(
    spec: QuestionSpec, line: str, problem: str
) -> None:
    assert parse_answer(spec, line) == problem


def test_notes_mark_and_yes_no() -> None:
    assert split_notes("a // b // c") == ("a", "b // c")
    assert split_notes("//x") == ("", "x")
    assert [parse_yes_no(w) for w in ("y", "YES", "", "n", "no", "maybe")] == [
        True,
        True,
        False,
        False,
        False,
        None,
    ]


# ---------------------------------------------------------------------------- the printer
def test_streamed_text_is_printed_line_by_line_and_an_escape_split_across_deltas_is_inert() -> None:
    transcript, stream = Transcript(), io.StringIO()
    TranscriptPrinter(transcript, Output(stream, interactive=False)).start()
    entry = transcript.add(EntryKind.AGENT, "", "model", done=False)
    transcript.stream(entry, "one\ntw")
    assert stream.getvalue() == "agent> one\n"  # only complete lines while streaming
    transcript.stream(entry, "o \x1b]0;pw")
    transcript.stream(entry, "ned\x07 \x1b[3")
    transcript.stream(entry, "1mred\n")
    transcript.finish(entry)
    tool = transcript.add(EntryKind.TOOL, "work · seconds: 1", done=False)
    transcript.add(EntryKind.USER, "typed by the person")  # the prompt echo shows it
    transcript.finish(tool, " → done")
    assert stream.getvalue() == (
        "agent> one\n  two  red\ntool: work · seconds: 1 …\ntool: work · seconds: 1 → done\n"
    )


# ---------------------------------------------------------------------------- the command
class Session:
    """Runs ``asks`` on one private data dir and config home; reads its journal."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.data_dir = tmp / "data"
        self.config_home = tmp / "config"
        self.config_home.mkdir(parents=True)
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "XDG_CONFIG_HOME": str(self.config_home),
            "PYTHONUNBUFFERED": "1",
            "TERM": "xterm-256color",
        }

    def argv(self, *args: str, script: str | None = None) -> list[str]:
        words = [sys.executable, "-m", "asks", "--data-dir", str(self.data_dir), *args]
        return words + (["--script", str(SCRIPTS / script)] if script else [])

    def run(
        self, stdin: str, *args: str, script: str | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            self.argv(*args, script=script),
            input=stdin.encode(),
            capture_output=True,
            env=self.env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )

    def popen(self, *args: str, script: str | None = None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.argv(*args, script=script),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=ROOT,
            bufsize=0,
        )

    def pty(self, *args: str, script: str | None = None, **env: str) -> PtyApp:
        argv = ["--data-dir", str(self.data_dir), *args]
        argv += ["--script", str(SCRIPTS / script)] if script else []
        return PtyApp(
            argv, cols=120, rows=40, env={"XDG_CONFIG_HOME": str(self.config_home), **env}
        )

    def records(self) -> list[dict[str, Any]]:
        (path,) = self.data_dir.glob("*.jsonl")
        return [json.loads(line) for line in path.read_text().splitlines() if line]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records() if r["type"] == kind]

    def session_id(self) -> str:
        (path,) = self.data_dir.glob("*.jsonl")
        return path.stem


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(tmp_path)


def ref_key(ref: dict[str, Any]) -> tuple[str, int]:
    return ref["id"], ref["incarnation"]


def assert_delivered_exactly_once(session: Session) -> Counter[tuple[str, int]]:
    """Every saved unit is named by exactly one receipt; returns the receipts' counts."""
    saved = {ref_key(r["ref"]) for line in session.of_type("resolved") for r in line["resolutions"]}
    receipts: Counter[tuple[str, int]] = Counter(
        ref_key(d)
        for line in session.records()
        if line["type"] in ("tool_result", "feedback_delivered")
        for d in line["delivered"]
    )
    assert set(receipts) == saved and all(n == 1 for n in receipts.values()), (saved, receipts)
    return receipts


def out_lines(done: subprocess.CompletedProcess[bytes]) -> list[str]:
    return done.stdout.decode().splitlines()


def assert_plain(data: bytes) -> None:
    """No escape sequence, BEL or other control character but newlines."""
    assert not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", data), data


def assert_clean_end(done: subprocess.CompletedProcess[bytes], session: Session) -> None:
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr
    last = out_lines(done)[-1]
    assert last.startswith(f"Session {session.session_id()} saved. Resume it with: ")
    assert " -m asks --resume " in last  # as it was started (python -m asks)


def test_piped_session_answers_after_bad_lines_and_writes_no_escape_sequences(
    session: Session,
) -> None:
    done = session.run("7\n1,,9\n2 // leafy\nhello\n", script="line_block.toml")
    assert_clean_end(done, session)
    assert_plain(done.stdout)
    lines = out_lines(done)
    assert lines[0] == "agent> LINE-START  red"  # the OSC title and colours were stripped
    at = lines.index("answer> 7")
    assert lines[at - 1].endswith("/decline · /later defers it")
    assert lines[at : at + 6] == [
        "answer> 7",
        "-- There is no option 7: choose 1-3.",
        "answer> 1,,9",
        "-- “1,,9” is not a list of option numbers: write them like 1,3.",
        "answer> 2 // leafy",
        "result (answered): Pick a colour? → Green (notes: leafy)",
    ]
    assert "     | grass" in lines and "     warm" in lines  # preview and description
    assert lines[at + 6 : at + 9] == [
        "agent> BLOCK-DONE: Green",
        "you> hello",
        "agent> ECHO: hello",
    ]
    (resolved,) = session.of_type("resolved")  # bad lines saved nothing
    assert resolved["source"] == "line"
    assert resolved["resolutions"][0]["answer"]["option_indices"] == [1]
    assert resolved["resolutions"][0]["answer"]["notes"] == "leafy"
    assert_delivered_exactly_once(session)


def test_end_of_input_at_a_blocking_question_interrupts_its_wait_and_never_declines(
    session: Session,
) -> None:
    done = session.run("", script="line_block.toml")
    assert_clean_end(done, session)
    assert "agent> BLOCK-DONE: (no answers)" in out_lines(done)  # the running turn finished
    (result,) = session.of_type("tool_result")
    assert result["outcome"] == "interrupted"
    assert session.of_type("resolved") == []  # pending, never declined
    again = session.run("/asks\n", "--resume", session.session_id())
    assert_clean_end(again, session)
    assert re.search(
        rf"^  {QUESTION_ID} \[Colour\] Pick a colour\?$", again.stdout.decode(), re.MULTILINE
    )


def test_a_group_one_question_at_a_time_with_multi_select_then_free_text_digits(
    session: Session,
) -> None:
    done = session.run("2\n1,3\n\nagain\n42\n", script="line_group.toml")  # no group note
    assert_clean_end(done, session)
    text = done.stdout.decode()
    assert "Note for all questions (optional, Enter skips): " in out_lines(done)
    assert "(" in text and re.search(rf"\({QUESTION_ID} · required · 2 of 2\)", text)
    assert "agent> GROUP-DONE: Dog, Chips, Fruit" in text
    assert "agent> BRANCH: 42" in text  # a free-text question takes digits as text
    results = session.of_type("tool_result")
    assert [r["outcome"] for r in results] == ["answered", "answered"]
    assert_delivered_exactly_once(session)


def test_after_the_last_question_of_a_group_an_optional_note_goes_with_the_answers(
    session: Session,
) -> None:
    """The note for all questions of a group, in line mode."""
    done = session.run("2\n1,3\n/quit\nfor the demo box\nhello\n", script="line_group.toml")
    assert_clean_end(done, session)
    lines = out_lines(done)
    prompt = "Note for all questions (optional, Enter skips): "
    assert lines[lines.index(prompt + "/quit") + 1 :][:2] == [
        "-- A note cannot start with /: type the note, or press Enter to skip it.",
        prompt + "for the demo box",
    ]  # a command never becomes the note
    assert "agent> GROUP-DONE: Dog, Chips, Fruit" in lines
    assert "  note for all questions: for the demo box" in lines  # the result card
    assert "agent> ECHO: hello" in lines  # the line after the note is chat again
    (result,) = session.of_type("tool_result")
    assert result["outcome"] == "answered"
    assert result["details"]["groupNote"] == "for the demo box"
    assert "User note for all questions: for the demo box." in result["text"]
    resolved = session.of_type("resolved")
    assert [line.get("group_note") for line in resolved] == [None, "for the demo box"]
    assert_delivered_exactly_once(session)


def test_empty_line_in_a_group_submits_partially_only_when_confirmed(session: Session) -> None:
    done = session.run("1\n\nn\n\ny\n", script="line_group.toml")
    assert_clean_end(done, session)
    lines = out_lines(done)
    confirm = "Submit the answers given so far? The rest stay pending. [y/N] "
    assert [line for line in lines if line.startswith(confirm)] == [confirm + "n", confirm + "y"]
    assert "-- Not submitted." in lines
    (result,) = session.of_type("tool_result")
    assert result["outcome"] == "partial"
    assert len(result["delivered"]) == 1
    assert_delivered_exactly_once(session)


def test_decline_one_question_then_later_defers_the_wait(session: Session) -> None:
    done = session.run("/decline\n/later\n", script="line_group.toml")
    assert_clean_end(done, session)
    assert "-- Deferred: the questions stay pending (/asks lists them)." in out_lines(done)
    (result,) = session.of_type("tool_result")
    assert result["outcome"] == "deferred"
    (resolved,) = session.of_type("resolved")
    assert [r["kind"] for r in resolved["resolutions"]] == ["declined"]
    receipts = assert_delivered_exactly_once(session)  # the decline went as feedback
    assert len(receipts) == 1 and len(session.of_type("feedback_delivered")) == 1


def test_permission_prompt_asks_again_after_a_bad_reply(session: Session) -> None:
    done = session.run("maybe\ny\n", script="line_permission.toml")
    assert_clean_end(done, session)
    lines = out_lines(done)
    prompt = "Allow the agent to run: make deploy? [y/N] "
    assert lines[lines.index(prompt + "maybe") + 1 :][:2] == ["-- Answer y or n.", prompt + "y"]
    assert "permission (allowed): Allow the agent to run: make deploy" in lines
    denied = Session(session.tmp / "second")
    done = denied.run("", script="line_permission.toml")  # end of input: nobody allows it
    assert "permission (denied): Allow the agent to run: make deploy" in out_lines(done)


# ---------------------------------------------------------------------------- async, piped
def test_async_question_printed_once_listed_and_answered_by_id(session: Session) -> None:
    proc = session.popen(script="line_async.toml")
    seen = bytearray()
    try:
        qid = read_until(proc, rf"^\? new question ({QUESTION_ID}) \[Pet\] Pick a pet\?", seen)[1]
        lines = f"/asks\n/asks q-0000000000\n/asks {qid}\n3\n2 // good boy\n"
        out, err = proc.communicate(lines.encode(), timeout=WAIT)  # then end of input
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = (seen + out).decode()
    assert proc.returncode == 0, err.decode()
    assert text.count("? new question") == 1
    assert f"-- 1 pending (answer one: /asks ID):\n  {qid} [Pet] Pick a pet?\n" in text
    assert "-- No pending question with id q-0000000000. (/asks lists them.)" in text
    assert f"? [Pet] Pick a pet?  ({qid} · async)" in text
    assert "answer> 3\n-- There is no option 3: choose 1-2.\nanswer> 2 // good boy\n" in text
    assert "agent> FEEDBACK-ACK: Dog" in text  # the answer woke the agent
    (receipt,) = session.of_type("feedback_delivered")
    assert receipt["mode"] == "wake"
    assert_delivered_exactly_once(session)


def test_ctrl_c_interrupts_the_turn_and_a_second_one_quits_with_130(session: Session) -> None:
    proc = session.popen(script="line_work.toml")
    seen = bytearray()
    try:
        read_until(proc, r"^tool: work .*…$", seen)
        proc.send_signal(signal.SIGINT)
        read_until(proc, r"^-- Interrupted\. Pending questions stay open\.$", seen)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=WAIT)  # stdin stays open: only the signal can end it
        assert proc.stdout is not None and proc.stderr is not None
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err.decode()
    assert "-m asks --resume" in (seen + out).decode()
    assert session.of_type("resolved") == []


# ---------------------------------------------------------------------------- a terminal
@pytest.fixture
def apps() -> Iterator[list[PtyApp]]:
    started: list[PtyApp] = []
    yield started
    for app in started:
        app.close()


def test_line_flag_under_a_terminal_shows_prompts_and_ends_on_ctrl_d(
    session: Session, apps: list[PtyApp]
) -> None:
    app = session.pty("--line", script="line_block.toml")
    apps.append(app)
    app.wait_for(r"^answer>$")
    app.type("9\r")
    app.wait_for(r"^-- There is no option 9: choose 1-3\.\nanswer>$")
    app.type("3\r")
    app.wait_for(r"^agent> BLOCK-DONE: Blue\nyou>$")
    app.type("/help\r")
    app.wait_for(r"^-- Line mode: type a message")
    app.type("\x04")  # Ctrl+D: end of input
    assert app.wait_exit() == 0
    app.wait_for(r"^Session \S+ saved\. Resume it with: ")
    assert b" -m asks --resume " in app.raw_bytes()
    assert b"\x07answer> " in app.raw_bytes()  # a blocker rings the bell on a terminal
    assert b"\x1b" not in app.raw_bytes()


def test_web_in_line_mode_serves_the_questions_and_says_a_browser_answer(
    session: Session, apps: list[PtyApp]
) -> None:
    """``asks --line --web``: the bridge runs beside line mode (it was ignored); a browser
    answer to the blocking question ends its prompt, is said in a line, and reaches the agent."""
    app = session.pty("--line", "--web", script="line_block.toml")
    apps.append(app)
    app.wait_for(r"^answer>$")
    url = app.wait_for(r"^-- Answer in a browser: (http://127\.0\.0\.1:\d+/\?token=[\w-]+)")[1]
    page = httpx.get(url, timeout=WAIT)
    assert page.status_code == 200 and "Pick a colour?" in page.text
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page.text))
    action = re.search(r'<form method="post" action="([^"]+)"', page.text)
    assert action is not None
    origin = url.split("/?", 1)[0]
    answer = httpx.post(
        origin + action[1].replace("&amp;", "&"),
        data={**fields, "choice": "2", "action": "answer"},
        headers={"Origin": origin},
        timeout=WAIT,
    )
    assert answer.status_code in (200, 303), answer.text
    app.wait_for(r"^-- Colour answered in the browser: Blue$")
    app.wait_for(r"^agent> BLOCK-DONE: Blue\nyou>$")
    app.type("\x04")  # Ctrl+D: end of input; the bridge stops with line mode
    assert app.wait_exit() == 0
    assert "not available in line mode" not in app.text()
    with pytest.raises(httpx.TransportError):
        httpx.get(url, timeout=WAIT)


def test_term_dumb_chooses_line_mode_and_ctrl_c_twice_quits(
    session: Session, apps: list[PtyApp]
) -> None:
    app = session.pty(script="line_work.toml", TERM="dumb")
    apps.append(app)
    app.wait_for(r"^tool: work .*…$")
    app.press("ctrl c")
    app.wait_for(r"^-- Interrupted\. Pending questions stay open\.$")
    app.wait_for(r"^you>$")
    app.press("ctrl c")
    assert app.wait_exit() == 130
    assert b"\x1b" not in app.raw_bytes()  # never the full screen


def test_resume_after_a_kill_in_line_mode_delivers_the_saved_answer_once(
    session: Session, apps: list[PtyApp]
) -> None:
    app = session.pty("--line", script="line_work.toml")
    apps.append(app)
    qid = app.wait_for(rf"^\? new question ({QUESTION_ID}) \[Pet\]")[1]
    app.wait_for(r"^tool: work .*…$")
    app.type(f"/asks {qid}\r")  # a terminal may answer while the agent works
    app.wait_for(r"^answer>$")
    app.type("2\r")
    app.wait_for(r"^-- Saved: the agent gets it at its next step\.$")
    app.kill(signal.SIGKILL)
    assert len(session.of_type("resolved")) == 1 and session.of_type("feedback_delivered") == []
    done = session.run("", "--resume", session.session_id())
    assert_clean_end(done, session)
    assert "agent> FEEDBACK-ACK: Dog" in out_lines(done)
    assert_delivered_exactly_once(session)
    again = session.run("", "--resume", session.session_id())  # nothing is sent twice
    after = again.stdout.decode().split("-- Resumed session ")[1]  # the history is replayed
    assert after.startswith(f"{session.session_id()}: 0 pending, 0 saved answers to deliver.")
    assert "FEEDBACK-ACK" not in after
    assert_delivered_exactly_once(session)


def test_kill_at_a_blocking_question_then_answer_it_after_resume(
    session: Session, apps: list[PtyApp]
) -> None:
    app = session.pty("--line", script="line_block.toml")
    apps.append(app)
    qid = app.wait_for(rf"\(({QUESTION_ID}) · required\)")[1]
    app.wait_for(r"^answer>$")
    app.kill(signal.SIGKILL)
    done = session.run(f"/asks {qid}\n1\n", "--resume", session.session_id())
    assert_clean_end(done, session)
    text = done.stdout.decode()
    assert "Resumed session" in text and f"({qid} · async)" in text
    assert "agent> BLOCK-DONE: Red" not in text  # the old call was closed as interrupted
    assert [r["outcome"] for r in session.of_type("tool_result")] == ["interrupted"]
    assert len(session.of_type("feedback_delivered")) == 1
    assert_delivered_exactly_once(session)


def test_unknown_commands_say_so_and_quit_ends_at_once(session: Session) -> None:
    done = session.run("2\n/nope\n/asks\n/quit\nnever sent\n", script="line_block.toml")
    assert_clean_end(done, session)
    lines = out_lines(done)
    assert "-- Unknown command /nope. Try /help." in lines
    assert "-- No pending questions." in lines
    assert not any("never sent" in line for line in lines)
    assert not any(
        r["type"] == "chat_message" and "never sent" in r["content"] for r in session.records()
    )


def test_line_mode_speaks_the_persons_language_and_the_model_reads_english(
    session: Session,
) -> None:
    session.env.update({"LANG": "de_DE.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""})
    done = session.run("7\n/nope\n2\n/help\n/quit\n", script="line_block.toml")
    assert done.returncode == 0, done.stderr.decode()
    lines = out_lines(done)
    at = lines.index("antwort> 7")
    assert lines[at : at + 4] == [
        "antwort> 7",
        "-- Es gibt keine Option 7: wähle 1-3.",
        "antwort> /nope",
        "-- Unbekannter Befehl /nope. Versuche /help.",
    ]
    assert "Agent> BLOCK-DONE: Green" in lines  # the model's text stays as it said it
    assert (
        "-- Zeilenmodus: gib eine Nachricht ein und drücke Enter, um sie an den Agenten zu "
        "senden." in lines
    )
    assert "   /asks listet offene Fragen · /asks ID beantwortet eine · /help · /quit" in lines
    (result,) = session.of_type("tool_result")
    assert "Green" in result["text"] and "Antwort" not in result["text"]  # what the model reads
