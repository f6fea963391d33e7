"""``asks hub`` as a person runs it: no agent of its own, under a pty; outside agents on the
MCP SDK's own client over HTTP on 127.0.0.1.

The agents ask; their questions are tabs labelled with their names, answered by keys, and
each answer reaches its agent once, at its next call. The person writes ``@name text``: a
note, saved, and delivered once at that agent's next call (also after a restart). A chat line
without ``@`` says where it goes; the status line counts the pending questions per agents.
Line mode serves the same session as plain lines; ``--resume`` brings back the questions
(as tabs), the transcript of what the agents asked and were told, and what is still owed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter

import pytest
import trio
from support.hub import DB, agent, in_thread, text_of, token_of
from support.launcher import Launcher
from support.piped import read_until
from support.pty_harness import ROOT, PtyApp
from support.screen import status_line, wait_chat

pytestmark = pytest.mark.e2e

CACHE = {
    "question": "Which cache?",
    "header": "Cache",
    "options": [{"label": "Redis"}, {"label": "Memcached"}],
}
NOTE = "The user sent you a note:"


def start_hub(launch: Launcher, *args: str) -> tuple[PtyApp, str, str]:
    """``asks hub`` on a free port: the app, the hub's URL (from the screen), the token."""
    app = launch.start("hub", "--mcp-port", "0", *args, cols=140)
    found = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)")
    return app, found.group(1), token_of(launch)


def send(app: PtyApp, line: str) -> None:
    """Type a chat line and send it."""
    app.type(line)
    app.wait_for(re.escape(line.splitlines()[-1][-20:]))
    app.press("enter")


def offer_receipts(launch: Launcher) -> Counter[str]:
    counts: Counter[str] = Counter()
    for record in launch.records():
        if record["type"] == "offer_delivered":
            counts.update(ref["id"] for ref in record["refs"])  # type: ignore[attr-defined, index]
    return counts


def ids_in(text: str) -> list[str]:
    return re.findall(r"q-[0-9a-f]{10}", text)


async def test_an_agents_question_is_answered_by_keys_and_delivered_once(
    launch: Launcher,
) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "reviewer") as session:
        queued = await session.call_tool(
            "ask_user_question", {"questions": [DB], "blocking": False}
        )
        [qid] = ids_in(text_of(queued))[:1]
        await in_thread(app.wait_for, r"Database \(reviewer\)")
        await in_thread(app.wait_for, "reviewer asks: “Which database\\?”")
        assert "Asks: 1 pending from 1 agent ·" in status_line(app)
        assert not status_line(app).rstrip().endswith("idle")  # no agent state: none runs
        await in_thread(app.press, "shift tab")
        await in_thread(app.wait_for, r"┌─ Questions")
        await in_thread(app.press, "enter")  # the first option: Postgres
        await in_thread(app.wait_gone, r"Database \(reviewer\)")

        first = text_of(await session.call_tool("check_answers", {}))
        second = text_of(await session.call_tool("check_answers", {}))
        await in_thread(app.wait_for, "reviewer was given your answer to “Which database\\?”")

    assert f'Question {qid} "Which database?": answer "Postgres".' in first
    assert second == "No new answers.\nPending: none."
    assert offer_receipts(launch) == {qid: 1}
    assert launch.records()[0]["mode"] == "hub"


async def test_the_status_line_counts_pending_questions_per_agents(launch: Launcher) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "planner") as planner, agent(url, token, "reviewer") as other:
        await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await planner.call_tool("ask_user_question", {"questions": [CACHE], "blocking": False})
        await other.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await in_thread(app.wait_for, r"Asks: 3 pending from 2 agents")
        await in_thread(app.wait_for, r"Database \(reviewer\)")


async def test_a_note_reaches_its_agent_once_at_its_next_call(launch: Launcher) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "planner") as planner, agent(url, token, "reviewer") as other:
        await planner.call_tool("check_answers", {})  # seen: it can be written to
        await other.call_tool("check_answers", {})
        await in_thread(app.type, "@pl")
        await in_thread(app.press, "tab")  # completes the agent's name
        await in_thread(app.wait_for, r"› @planner$")  # "@planner " (trailing blanks are cut)
        await in_thread(send, app, "Use the staging database, not prod.")
        await in_thread(
            app.wait_for, "Note for planner saved: it reaches planner at its next asks call."
        )

        told = text_of(await planner.call_tool("check_answers", {}))
        again = text_of(await planner.call_tool("check_answers", {}))
        elsewhere = text_of(await other.call_tool("check_answers", {}))
        await in_thread(
            app.wait_for, "planner was given your note “Use the staging database, not prod.”"
        )

    assert told.startswith(f"[asks feedback] {NOTE} Use the staging database, not prod.")
    assert again == elsewhere == "No new answers.\nPending: none."
    [note] = [r for r in launch.records() if r["type"] == "note_sent"]
    assert note["recipient"] == "mcp:planner"
    assert offer_receipts(launch) == {note["ref"]["id"]: 1}  # type: ignore[index]


def kept(app: PtyApp, line: str) -> None:
    """Nothing was sent: ``line`` is still in the chat editor to be corrected; clear it."""
    wait_chat(app, line)
    app.press("ctrl u")
    wait_chat(app, "")


async def test_chat_lines_that_reach_no_agent_say_where_to_write(launch: Launcher) -> None:
    """Each line that reaches no agent says why in one line and stays in the chat editor (it
    was cleared although nothing was sent)."""
    app, url, token = start_hub(launch)
    send(app, "hello there")
    app.wait_for(
        "Nothing was sent: no agent runs in this session to read it. Agents ask here through"
    )
    kept(app, "hello there")
    async with agent(url, token, "planner") as planner:
        await planner.call_tool("check_answers", {})
        await in_thread(send, app, "is anyone there")
        await in_thread(app.wait_for, r"Write @name text to send a note to one of: planner\.")
        await in_thread(kept, app, "is anyone there")
        await in_thread(send, app, "@bob hi")
        await in_thread(
            app.wait_for,
            r"No agent named bob has been seen here\. Agents seen: "
            r"planner\.",
        )
        await in_thread(kept, app, "@bob hi")
        await in_thread(send, app, "@planner")
        await in_thread(app.wait_for, "Write the note after the name: @planner your note")
        await in_thread(kept, app, "@planner")
    assert not [r for r in launch.records() if r["type"] in ("note_sent", "chat_message")]
    app.press("ctrl c")
    app.wait_for("Press Ctrl\\+C again to quit.")
    app.press("ctrl c")
    assert app.wait_exit() == 0
    app.wait_for(r"Resume it with: .* hub --mcp-port 0 --resume \S+")


async def test_resume_brings_back_questions_notes_and_the_transcript(launch: Launcher) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "reviewer") as session:
        queued = await session.call_tool(
            "ask_user_question", {"questions": [DB], "blocking": False}
        )
        [qid] = ids_in(text_of(queued))[:1]
        await in_thread(app.wait_for, r"Database \(reviewer\)")
        await in_thread(send, app, "@reviewer Take your time.")
        await in_thread(app.wait_for, "Note for reviewer saved")
    app.press("ctrl c", "ctrl c")
    assert app.wait_exit() == 0
    session_id = launch.records()[0]["session_id"]
    assert isinstance(session_id, str)
    listing = subprocess.run(
        [sys.executable, "-m", "asks", "--data-dir", str(launch.data_dir), "sessions"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert re.search(rf"{session_id} .* hub +1 pending, 1 unsent", listing), listing
    wrong = launch.start("--resume", session_id)
    assert wrong.wait_exit() == 2
    wrong.wait_for(rf"session {session_id} is a hub session: resume it with ")  # test_cli_hints
    other = launch.start("--continue")  # the newest session that is not a hub session: none
    assert other.wait_exit() == 2
    other.wait_for("no session to continue in")

    again, url, token = start_hub(launch, "--continue")  # the newest hub session
    again.wait_for("reviewer asks: “Which database\\?”")  # retold from the journal
    again.wait_for("@reviewer Take your time.")
    again.wait_for(rf"Resumed session {session_id}: 1 pending, 1 saved answer to deliver\.")
    again.wait_for(r"Database \(reviewer\)")  # the question is a tab again
    async with agent(url, token, "reviewer") as session:
        told = text_of(await session.call_tool("check_answers", {}))
        await in_thread(again.press, "shift tab")
        await in_thread(again.wait_for, r"┌─ Questions")
        await in_thread(again.press, "down", "enter")  # SQLite
        await in_thread(again.wait_gone, r"Database \(reviewer\)")
        answered = text_of(await session.call_tool("check_answers", {}))
        await trio.sleep(0)
    assert told.startswith(f"[asks feedback] {NOTE} Take your time.")
    assert f"Pending: {qid}." in told
    assert f'Question {qid} "Which database?": answer "SQLite".' in answered
    assert NOTE not in answered
    assert set(offer_receipts(launch).values()) == {1}


def test_line_mode_says_where_the_hub_listens_before_its_first_prompt(launch: Launcher) -> None:
    """The first line is where agents connect; the first ``you>`` comes after it (a prompt
    printed before the hub had started was left alone on the first line)."""
    app, _url, _token = start_hub(launch, "--line")
    app.wait_for(r"Hub on .*\n(.*\n)*you>")
    rows = [row for row in app.text().split("\n") if row.strip()]
    assert rows[0].startswith("-- Hub on "), rows
    assert rows[-1] == "you>" and rows.count("you>") == 1, rows  # after the hub's lines
    app.press("ctrl c")
    app.press("ctrl c")
    assert app.wait_exit() in (0, 130)


async def test_line_mode_serves_the_hub_with_questions_and_notes(launch: Launcher) -> None:
    app, url, token = start_hub(launch, "--line")
    async with agent(url, token, "planner") as session:
        queued = await session.call_tool(
            "ask_user_question", {"questions": [DB], "blocking": False}
        )
        [qid] = ids_in(text_of(queued))[:1]
        arrived = rf"new question {qid} \[Database \(planner\)\] Which database\?"
        await in_thread(app.wait_for, arrived)
        await in_thread(send, app, f"/asks {qid}")
        await in_thread(app.wait_for, "^answer>")
        await in_thread(send, app, "2")
        await in_thread(send, app, "@planner Thanks, that was all.")
        await in_thread(app.wait_for, "-- Note for planner saved")
        told = text_of(await session.call_tool("check_answers", {}))
        again = text_of(await session.call_tool("check_answers", {}))
        await in_thread(app.wait_for, "planner was given your answer to")
    assert f'Question {qid} "Which database?": answer "SQLite".' in told
    assert told.rstrip().endswith("Pending: none.")
    assert f"{NOTE} Thanks, that was all." in told
    assert again == "No new answers.\nPending: none."
    send(app, "/quit")
    assert app.wait_exit() == 0


async def test_piped_line_mode_takes_notes_while_an_agent_is_owed_an_answer(
    launch: Launcher,
) -> None:
    """From a pipe, line mode takes no line while its own agent works or is about to; an
    answer saved for a hub agent (owed until that agent calls) is not a reason to wait."""
    argv = [
        sys.executable,
        "-m",
        "asks",
        "--data-dir",
        str(launch.data_dir),
        "hub",
        "--mcp-port",
        "0",
    ]
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        bufsize=0,
        env={**os.environ, **launch.env, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdin is not None
    seen = bytearray()
    try:
        url = read_until(proc, r"Hub on (http://127\.0\.0\.1:\d+/mcp)", seen)[1]
        async with agent(url, token_of(launch), "planner") as session:
            queued = await session.call_tool(
                "ask_user_question", {"questions": [DB], "blocking": False}
            )
            [qid] = ids_in(text_of(queued))[:1]
            await in_thread(read_until, proc, rf"new question {qid}", seen)
            proc.stdin.write(f"/asks {qid}\n2\n@planner Thanks.\n".encode())
            await in_thread(read_until, proc, r"-- Note for planner saved", seen)
            told = text_of(await session.call_tool("check_answers", {}))
        out, _err = proc.communicate(b"", timeout=30)  # end of input ends the session
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert f'Question {qid} "Which database?": answer "SQLite".' in told
    assert f"{NOTE} Thanks." in told
    assert proc.returncode == 0
    assert re.search(r"Resume it with: .* hub --mcp-port 0 --resume ", (seen + out).decode())
