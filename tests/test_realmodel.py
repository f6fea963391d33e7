"""End-to-end with a real model: Qwen2.5-Coder-1.5B-Instruct on llama.cpp's ``llama-server``.

The server is built and the weights fetched by ``.ci/realmodel-setup`` (cached outside the repo);
one server for the whole module runs on a free 127.0.0.1 port
(tests/support/realmodel_server.py) and is stopped at the end. The app is the real ``asks``
command: under a pty for the REPL (tests/support/pty_harness.py), as a subprocess for ``-p``.

The model decides what to say, so the tests give direct prompts, sample at temperature 0 (the
server's default; checked from ``/slots``) and assert on the *shape* of what happened — a tool
call of the right kind, the person's answer in the journal and in the next request the server
rendered — never on wording. Waits depend on progress: they give up only when neither the
screen (or process) nor the server has moved for :data:`STALL` seconds, or after the hang
guard :data:`CAP`; no test asserts how long anything took. Tests run in file order and share
the server's prompt cache: the two REPL tests send the same system prompt and tools.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.pty_harness import ROOT, PtyApp, ScreenTimeoutError
from support.realmodel_server import ALIAS, LlamaServer, prepared_files

from asks.core.model import Outcome

pytestmark = pytest.mark.realmodel

STALL = 180.0  # seconds with no progress anywhere before a wait gives up
CAP = 900.0  # hang guard for one wait
POLL = 0.25
READING_PAUSE = 2.0  # a person reads a new question; longer than the typing guard

PANEL_FOCUSED = r"┌─ Questions \(\d+\)"
PANEL_UNFOCUSED = r"┌╌ Questions \(\d+\)"
IDLE = r"idle$"
WORKING = r"working…$"

Record = dict[str, Any]


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    model, binary = prepared_files()
    server = LlamaServer(binary, model, tmp_path_factory.mktemp("llama") / "server.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Session:
    """One app run with a private data dir and config home, against the real server."""

    def __init__(self, tmp: Path, server: LlamaServer) -> None:
        self.server = server
        self.data_dir = tmp / "data"
        (tmp / "config" / "asks").mkdir(parents=True)
        # A cold prompt (~1.6k tokens of system prompt and tools) takes 30-140 s to process on
        # 2 busy cores before the first byte: more than the default 60 s read timeout, and a
        # retry would start the prompt over.
        (tmp / "config" / "asks" / "config.toml").write_text(f"[model]\ntimeout = {CAP:g}\n")
        self.env = {
            "XDG_CONFIG_HOME": str(tmp / "config"),
            "XDG_DATA_HOME": str(tmp / "xdg-data"),
            "OPENAI_API_KEY": "",  # a loopback server needs none: never send a real one
            "LC_ALL": "C.UTF-8",  # the screen patterns below are the English texts
        }
        self.apps: list[PtyApp] = []

    def argv(self, *args: str) -> list[str]:
        return [
            "--data-dir",
            str(self.data_dir),
            "--base-url",
            self.server.base_url,
            "--model",
            ALIAS,
            *args,
        ]

    def repl(self) -> PtyApp:
        app = PtyApp(self.argv(), cols=110, rows=40, env=self.env)
        self.apps.append(app)
        return app

    def records(self) -> list[Record]:
        return [
            json.loads(line)
            for path in sorted(self.data_dir.glob("*.jsonl"))
            for line in path.read_text().splitlines()
            if line
        ]

    def close(self) -> None:
        for app in self.apps:
            app.close()

    def dump(self) -> None:
        """Print the journal (pytest shows it when the test failed): what the model did."""
        for r in self.records() if self.data_dir.exists() else []:
            fields = {k: v for k, v in r.items() if k not in ("v", "ts", "type")}
            print(r["type"], json.dumps(fields)[:800])


@pytest.fixture
def session(tmp_path: Path, llama: LlamaServer) -> Iterator[Session]:
    s = Session(tmp_path, llama)
    try:
        yield s
    finally:
        s.close()
        s.dump()


# ---------------------------------------------------------------------------- waiting
def wait_progress(
    done: Callable[[], bool],
    observe: Callable[[], object],
    server: LlamaServer,
    what: str,
    alive: Callable[[], bool] = lambda: True,
) -> None:
    """Wait until ``done()``. Progress — ``observe()`` changing (the screen, the journal) or
    the server processing a request — restarts the stall clock; a stall of :data:`STALL`
    seconds, the hang guard :data:`CAP`, or ``alive()`` turning false ends the wait."""
    start = last_move = time.monotonic()
    seen = observe()
    while not done():
        now = time.monotonic()
        busy = server.processing()
        current = observe()
        if busy or current != seen:
            seen, last_move = current, now
        if not alive() or now - last_move > STALL or now - start > CAP:
            state = "exited" if not alive() else "stalled"
            raise ScreenTimeoutError(
                f"{what} ({state}); now:\n{current}\nserver log:\n{server.log_tail(15)}"
            )
        time.sleep(POLL)


def wait_screen(app: PtyApp, session: Session, pattern: str, what: str) -> re.Match[str]:
    regex = re.compile(pattern, re.MULTILINE)
    wait_progress(
        lambda: regex.search(app.text()) is not None,
        app.text,
        session.server,
        f"{what}: {pattern!r} not on screen",
        app.proc.isalive,
    )
    found = regex.search(app.text())
    assert found is not None
    return found


def wait_journal(
    app: PtyApp, session: Session, check: Callable[[list[Record]], bool], what: str
) -> list[Record]:
    wait_progress(
        lambda: check(session.records()), app.text, session.server, what, app.proc.isalive
    )
    return session.records()


# ---------------------------------------------------------------------------- journal
def of_type(records: list[Record], kind: str) -> list[Record]:
    return [r for r in records if r["type"] == kind]


def assistant_after(records: list[Record], seq: int) -> list[Record]:
    """Assistant messages (model calls that finished) journaled after line ``seq``."""
    return [
        r for r in of_type(records, "chat_message") if r["role"] == "assistant" and r["seq"] > seq
    ]


def asked_group(records: list[Record], *, blocking: bool) -> Record:
    groups = [g for g in of_type(records, "group_asked") if g["blocking"] is blocking]
    assert groups, f"no {'blocking' if blocking else 'non-blocking'} group in {records}"
    return groups[0]


def option_labels(group: Record) -> list[str]:
    return [o["label"] for o in group["questions"][0]["spec"].get("options") or []]


def calls_in(records: list[Record]) -> list[dict[str, Any]]:
    return [c for r in of_type(records, "chat_message") for c in r["tool_calls"] if "name" in c]


# ---------------------------------------------------------------------------- the person
def choose(app: PtyApp, session: Session, labels: list[str], index: int) -> str:
    """Arrow to option ``index`` on the focused panel's tab and confirm it; its label."""
    assert len(labels) > index, f"the model offered {labels}"
    for _ in range(index):
        app.press("down")
    wait_screen(
        app,
        session,
        rf"│ › {index + 1}\. {re.escape(labels[index][:20])}",
        "the cursor on the chosen option",
    )
    app.press("enter")
    return labels[index]


def assert_temperature_zero(server: LlamaServer) -> None:
    assert server.slot()["params"]["temperature"] == 0.0


# ---------------------------------------------------------------------------- 1. blocking
BLOCKING_PROMPT = (
    "Ask me which database I want to use for my app (PostgreSQL, MySQL or SQLite). "
    "Use the ask_user_question tool with blocking true. After my answer, reply with one "
    "sentence and call no other tool."
)


def test_blocking_question_through_the_panel_answer_reaches_the_next_request(
    session: Session,
) -> None:
    """The model asks through the panel (blocking: it claims the keyboard); the person picks
    the second option; the tool result carrying it is journaled, the model is called again
    with it in the prompt, and replies."""
    app = session.repl()
    wait_screen(app, session, IDLE, "the REPL is up")
    app.type(BLOCKING_PROMPT)
    app.press("enter")

    wait_screen(app, session, PANEL_FOCUSED + r" ⚠ required", "the blocker claims the panel")
    group = asked_group(session.records(), blocking=True)
    time.sleep(READING_PAUSE)
    answer = choose(app, session, option_labels(group), 1)

    records = wait_journal(
        app,
        session,
        lambda rs: (
            any(r["call_id"] == group["call_id"] for r in of_type(rs, "tool_result"))
            and bool(assistant_after(rs, group["seq"] + 1))
        ),
        "the result is journaled and the model replies",
    )
    (result,) = [r for r in of_type(records, "tool_result") if r["call_id"] == group["call_id"]]
    assert result["outcome"] == Outcome.ANSWERED and answer in result["text"], result
    assert [ref["id"] for ref in result["delivered"]] == [group["questions"][0]["ref"]["id"]]
    assert assistant_after(records, result["seq"]), "no model call after the answer"
    wait_screen(app, session, IDLE, "the turn ends")
    # The request after the answer carried it: the server's last prompt holds the result.
    assert result["text"] in session.server.slot()["prompt"]
    assert_temperature_zero(session.server)
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0


# ---------------------------------------------------------------------------- 2. async
# The model leaves out the optional top-level "blocking" however the prose puts it ("with
# blocking false", "a non-blocking question"); the arguments spelled out in JSON it follows.
ASYNC_PROMPT = (
    'Call the ask_user_question tool with these arguments: {"questions": [{"question": '
    '"Which test framework do you prefer?", "header": "Tests", "options": [{"label": '
    '"pytest"}, {"label": "unittest"}]}], "blocking": false}. Do not wait for my answer: '
    "then write a numbered list of three steps to set up a Python project."
)


def test_async_question_answered_while_the_model_works_reaches_it(session: Session) -> None:
    """The model asks without blocking and goes on writing; the person answers while the
    agent still works; the answer goes to the model as feedback (steered into the turn or
    waking it), the model is called with it, and replies."""
    app = session.repl()
    wait_screen(app, session, IDLE, "the REPL is up")
    app.type(ASYNC_PROMPT)
    app.press("enter")

    wait_screen(app, session, PANEL_UNFOCUSED, "the async question in the unfocused panel")
    group = asked_group(session.records(), blocking=False)
    assert not re.search(PANEL_FOCUSED, app.text()), "an async question must not take the keys"
    app.press("shift tab")
    wait_screen(app, session, PANEL_FOCUSED, "the person enters the panel")
    assert re.search(WORKING, app.text()), f"the model stopped before the answer:\n{app.text()}"
    answer = choose(app, session, option_labels(group), 1)
    question = group["questions"][0]["ref"]["id"]

    def delivered(rs: list[Record]) -> list[Record]:
        return [
            f
            for f in of_type(rs, "feedback_delivered")
            if question in [ref["id"] for ref in f["delivered"]]
        ]

    records = wait_journal(
        app,
        session,
        lambda rs: bool(delivered(rs)) and bool(assistant_after(rs, delivered(rs)[0]["seq"])),
        "the answer is delivered as feedback and the model replies",
    )
    (saved,) = of_type(records, "resolved")
    (feedback,) = delivered(records)
    results = [r for r in of_type(records, "tool_result") if r["call_id"] == group["call_id"]]
    assert results and results[0]["outcome"] == Outcome.QUEUED, results
    # Answered while the model worked: after the call returned, before its next reply ended.
    assert results[0]["seq"] < saved["seq"] < assistant_after(records, results[0]["seq"])[0]["seq"]
    assert feedback["mode"] in ("steer", "wake") and answer in feedback["text"], feedback
    assert assistant_after(records, feedback["seq"]), "no model call after the feedback"
    wait_screen(app, session, IDLE, "the turn ends")
    assert feedback["text"] in session.server.slot()["prompt"]
    assert_temperature_zero(session.server)
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0


# ---------------------------------------------------------------------------- 3. -p
# Asked to "tell me what happened" the model tends to answer without calling the tool ("The
# command was executed successfully"); told not to answer before the result, it calls it.
MARKER = "made-by-the-model"
HEADLESS_PROMPT = (
    f"Use the run_command tool to run: touch {MARKER}. Do not answer before you have its "
    "result; then say in one sentence what the result was."
)


def test_headless_prompt_with_a_tool_call(session: Session) -> None:
    """``asks -p --allow-commands``: the model calls ``run_command``, the command runs for real
    in the directory asks was started in, its result goes back to the model, and the model's
    final reply is printed on stdout."""
    work = session.data_dir.parent / "work"
    work.mkdir()
    argv = [sys.executable, "-m", "asks", *session.argv("-p", HEADLESS_PROMPT, "--allow-commands")]
    env = {**os.environ, **session.env, "PYTHONPATH": str(ROOT)}
    out, err = work.parent / "stdout", work.parent / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env, cwd=work
        )
        try:
            wait_progress(
                lambda: proc.poll() is not None,
                lambda: session.records() if session.data_dir.exists() else [],
                session.server,
                "asks -p finishes",
            )
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.read_text()

    records = session.records()
    commands = [c for c in calls_in(records) if c["name"] == "run_command"]
    assert commands, "the model called no run_command"
    call = commands[0]
    assert isinstance(json.loads(call["arguments"]).get("command"), str), call
    answers = [
        r
        for r in of_type(records, "chat_message")
        if r["role"] == "tool" and {"tool_call_id": call["id"]} in r["tool_calls"]
    ]
    assert answers, f"no result for {call}"
    assert (work / MARKER).is_file(), "the command did not run in the start directory"
    final = assistant_after(records, answers[0]["seq"])
    assert final and final[-1]["content"].strip(), "no final reply after the result"
    assert out.read_text() == final[-1]["content"].rstrip("\n") + "\n"
    assert answers[0]["content"] in session.server.slot()["prompt"]
    assert_temperature_zero(session.server)
