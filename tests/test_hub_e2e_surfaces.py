"""The rest of asks treats the hub's agents as its own, as a person runs it.

``asks --mcp`` under a pty, read through pyte; the agents are the official MCP SDK's client
over HTTP on 127.0.0.1. Hostile text from an agent (terminal sequences, bidi overrides, C1
controls — in its questions and in the name its client reports) is inert on the panel, the
cards, the web page and the hook payloads; hooks fire when an outside agent waits, naming it;
the web bridge lists and answers its questions; ``/asks ID`` selects one; ``--resume`` (with
``--mcp`` again) brings them back and still owes each agent its answers; and an outside
blocker claims focus exactly like the built-in agent's (the typing guard, back to the origin).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from support.hooks import hook, hook_lines, write_config
from support.hub import DB, agent, first_id, in_thread, text_of, token_of
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.screen import PANEL_FOCUSED, chat_text, wait_chat, wait_panel
from support.typist import BURST_GUARD, Typist, pause_until_panel_has_keys

from asks.hub.identity import client_label

pytestmark = pytest.mark.e2e

EVIL_NAME = "evil\x1b]0;pwned-name\x07\u202eagent\x9b"
EVIL_LABEL = client_label(EVIL_NAME)  # its sanitized text and a digest of the raw name
EVIL = {
    "question": "Q-\x1b]0;pwned\x07title \x1b[31mred\x1b[0m \u202eclear\x1b[2J-end?",
    "header": "H\x1b[31mdr\u2066",
    "context": "ctx\x1b]8;;http://pwned.example\x07link\x1b]8;;\x07-\x9bok",
    "options": [
        {"label": "Opt\x1b[31mRed\x1b[0m", "description": "d\x1b]0;pwned-d\x07esc"},
        {"label": "Plain\u202e"},
    ],
}


def start_hub(
    launch: Launcher, *extra: str, typing_guard: float | None = None
) -> tuple[PtyApp, str, str]:
    """``asks --mcp`` on a free port: the app, the hub's URL (from the screen), the token."""
    app = launch.start(
        "--mcp",
        "--mcp-port",
        "0",
        *extra,
        script="hub_quiet.toml",
        cols=140,
        rows=40,
        typing_guard=typing_guard,
    )
    url = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)").group(1)
    app.wait_for("QUIET-READY")
    return app, url, token_of(launch)


def web_form(page: str, question_id: str) -> tuple[str, dict[str, str]]:
    """The action and hidden fields of the page's form for ``question_id``."""
    for form in re.findall(r'<form method="post".*?</form>', page, re.S):
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
        if fields.get("question") == question_id:
            action = re.search(r'action="([^"]+)"', form)
            assert action is not None
            return action.group(1).replace("&amp;", "&"), fields
    raise AssertionError(f"no form for {question_id} on the page")


async def test_hostile_agent_text_is_inert_on_every_surface_and_hooks_name_the_agent(
    launch: Launcher, tmp_path: Path
) -> None:
    """An agent whose client name and question carry OSC titles and hyperlinks, CSI colours
    and clears, C1 controls and bidi overrides: the panel, the card, the transcript, the web
    page and the hook payloads show the text without them; the terminal never receives them.
    The hooks fire for an outside agent's wait (``wait_opened``) and name it; the browser's
    answer reaches the agent that waited, once."""
    out = tmp_path / "hook.jsonl"
    write_config(launch.config_home, {"wait_opened": hook(out), "question_asked": hook(out)})
    app, url, token = start_hub(launch, "--web")
    web = app.wait_for(r"web: (http://127\.0\.0\.1:\d+)/\?token=([\w-]+)")
    origin, web_token = web.group(1), web.group(2)
    async with (
        agent(url, token, None, EVIL_NAME) as evil,
        agent(url, token, "reviewer") as reviewer,
        trio.open_nursery() as nursery,
    ):
        queued = await evil.call_tool("ask_user_question", {"questions": [EVIL], "blocking": False})
        evil_id = first_id(queued)
        await in_thread(app.wait_for, rf"Hdr \({EVIL_LABEL}\)")
        results: list[Any] = []

        async def wait_for_answer() -> None:
            results.append(await reviewer.call_tool("ask_user_question", {"questions": [DB]}))

        nursery.start_soon(wait_for_answer)
        await in_thread(app.wait_for, r"Database \(reviewer\)")
        await in_thread(app.wait_for, r"│ Which database\?")  # the blocker claimed the panel
        async with httpx.AsyncClient(base_url=origin, timeout=30) as browser:
            page = (await browser.get(f"/?token={web_token}")).text
            assert f"asked by {EVIL_LABEL}" in page and "asked by reviewer" in page
            assert "Q-title red clear-end?" in page and "ctxlink-ok" in page
            reviewer_id = re.findall(r"q-[0-9a-f]{10}", page)
            action, fields = web_form(page, next(i for i in reviewer_id if i != evil_id))
            answered = await browser.post(
                action,
                data={**fields, "choice": "1", "action": "answer"},
                headers={"Origin": origin},
            )
            assert answered.status_code == 303, answered.text
        await in_thread(
            app.wait_for, r"You answered reviewer in the browser: Which database\? → SQLite"
        )
        await in_thread(app.press, "shift tab")
        await in_thread(app.wait_for, PANEL_FOCUSED)
        await in_thread(app.wait_for, r"│ Q-title red clear-end\?")
        await in_thread(app.wait_for, r"╎ ctxlink-ok|│ ctxlink-ok")
        await in_thread(app.press, "enter")  # OptRed
        await in_thread(app.wait_gone, rf"Hdr \({EVIL_LABEL}\)")
        later = text_of(await evil.call_tool("check_answers", {}))
        await in_thread(
            app.wait_for,
            rf"{EVIL_LABEL} was given your answer to “Q-title red "
            r"clear-end\?”",
        )
    assert 'User has answered your questions: "Which database?"="SQLite"' in text_of(results[0])
    assert f'Question {evil_id} "Q-title red clear-end?": answer "OptRed"' in later

    raw = app.raw_bytes()
    assert b"pwned" not in raw and b"\x1b]0;" not in raw and b"\x1b]8;" not in raw
    assert "\u202e".encode() not in raw and "\u2066".encode() not in raw
    assert "\x9b".encode() not in raw
    assert app.title() == ""
    assert "\x1b" not in page and "\u202e" not in page and "pwned" not in page

    records = await hook_lines(out, 3)
    events = [(r["env"], r["payload"]["questions"][0]["source"]) for r in records]
    assert events == [
        ("question_asked", EVIL_LABEL),
        ("question_asked", "reviewer"),
        ("wait_opened", "reviewer"),
    ]
    assert records[2]["payload"]["source"] == "reviewer"  # the notice can name who waits
    asked = records[0]["payload"]["questions"][0]
    assert asked["question"] == "Q-title red clear-end?" and asked["header"] == "Hdr"
    assert asked["options"] == ["OptRed", "Plain"]
    assert "pwned" not in out.read_text() and "\\u001b" not in out.read_text()


async def test_slash_asks_id_selects_an_outside_agents_question(launch: Launcher) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "planner") as planner, agent(url, token, "reviewer") as reviewer:
        await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        second = first_id(
            await reviewer.call_tool(
                "ask_user_question",
                {
                    "questions": [
                        {
                            **DB,
                            "question": "Which cache?",
                            "header": "Cache",
                            "options": [{"label": "Redis"}, {"label": "None"}],
                        }
                    ],
                    "blocking": False,
                },
            )
        )
        await in_thread(app.wait_for, r"Cache \(reviewer\)")
        await in_thread(app.type, f"/asks {second}")
        await in_thread(app.press, "enter")
        await in_thread(app.wait_for, PANEL_FOCUSED)
        await in_thread(app.wait_for, r"│ Which cache\?")
        await in_thread(app.press, "enter")  # Redis, on the tab /asks selected
        await in_thread(app.wait_gone, r"Cache \(reviewer\)")
        got_reviewer = text_of(await reviewer.call_tool("check_answers", {}))
        got_planner = text_of(await planner.call_tool("check_answers", {}))
    assert f'Question {second} "Which cache?": answer "Redis".' in got_reviewer
    assert got_planner.startswith("No new answers.")
    assert "Database (planner)" in app.text()  # still pending, untouched


async def test_resume_with_the_hub_brings_its_questions_back_and_owes_each_agent(
    launch: Launcher,
) -> None:
    """Answered but not yet collected, and still pending: after ``/quit`` and ``--resume``
    with ``--mcp``, the pending one is a tab labelled with its agent again, and each agent
    gets its own answers — once — at its first call to the new hub."""
    app, url, token = start_hub(launch)
    async with agent(url, token, "planner") as planner, agent(url, token, "reviewer") as reviewer:
        owed = first_id(
            await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        )
        pending = first_id(
            await reviewer.call_tool(
                "ask_user_question",
                {
                    "questions": [
                        {
                            **DB,
                            "question": "Which cache?",
                            "header": "Cache",
                            "options": [{"label": "Redis"}, {"label": "None"}],
                        }
                    ],
                    "blocking": False,
                },
            )
        )
        await in_thread(app.wait_for, r"Cache \(reviewer\)")
        await in_thread(app.type, f"/asks {owed}")
        await in_thread(app.press, "enter")
        await in_thread(app.wait_for, r"│ Which database\?")
        await in_thread(app.press, "down", "enter")  # SQLite; planner has not asked again
        await in_thread(app.wait_gone, r"Database \(planner\)")
    session_id = launch.journal().stem
    await in_thread(app.press, "esc")
    await in_thread(app.type, "/quit")
    await in_thread(app.press, "enter")
    assert await in_thread(app.wait_exit) == 0

    again = launch.start(
        "--resume",
        session_id,
        "--mcp",
        "--mcp-port",
        "0",
        script="hub_quiet.toml",
        cols=140,
        rows=40,
    )
    url = (await in_thread(again.wait_for, r"Hub on (http://127\.0\.0\.1:\d+/mcp)")).group(1)
    await in_thread(again.wait_for, r"Cache \(reviewer\)")
    assert "Database (planner)" not in again.text()
    async with agent(url, token, "planner") as planner, agent(url, token, "reviewer") as reviewer:
        first = text_of(await planner.call_tool("check_answers", {}))
        nothing = text_of(await reviewer.call_tool("check_answers", {}))
        await in_thread(again.press, "shift tab")
        await in_thread(again.wait_for, r"│ Which cache\?")
        await in_thread(again.press, "enter")  # Redis
        await in_thread(again.wait_gone, r"Cache \(reviewer\)")
        cache = text_of(await reviewer.call_tool("check_answers", {}))
        twice = text_of(await planner.call_tool("check_answers", {}))
    assert f'Question {owed} "Which database?": answer "SQLite".' in first
    assert nothing == f"No new answers.\nPending: {pending}."
    assert f'Question {pending} "Which cache?": answer "Redis".' in cache
    assert twice == "No new answers.\nPending: none."
    assert "SQLite" not in cache and "Redis" not in first  # never across agents


async def test_an_outside_blocker_claims_focus_like_the_built_in_agents(
    launch: Launcher,
) -> None:
    """Typing guard: a blocker from an outside agent arriving while the person types takes no key
    of the burst; after a pause the panel has the keyboard; answered, focus goes
    back to the chat draft, intact, and the agent's call returns the answer."""
    app, url, token = start_hub(launch, typing_guard=BURST_GUARD)
    typist = Typist(app)
    async with agent(url, token, "planner") as planner, trio.open_nursery() as nursery:
        results: list[Any] = []

        async def ask() -> None:
            results.append(await planner.call_tool("ask_user_question", {"questions": [DB]}))

        async def type_through_the_arrival() -> tuple[str, int]:
            return await in_thread(typist.until, "Which database?", 30)

        async def then_ask_after(keys: int) -> None:
            while len(chat_text(app) or "") < keys:  # the person is typing already
                await trio.sleep(0.01)
            nursery.start_soon(ask)

        nursery.start_soon(then_ask_after, 6)
        typed, before = await type_through_the_arrival()
        assert before >= 3, "typing began after the blocker arrived"
        typist.check_burst()
        await in_thread(wait_chat, app, typed)  # none lost, none reordered, none stolen
        assert not results  # nothing answered by typing
        await in_thread(pause_until_panel_has_keys, app)
        await in_thread(wait_panel, app, r"│ › 1\. Postgres")  # no typed key moved the cursor
        await in_thread(app.press, "down", "enter")
    assert 'User has answered your questions: "Which database?"="SQLite"' in text_of(results[0])
    await in_thread(app.wait_gone, r"Database \(planner\)")
    await in_thread(wait_chat, app, typed)  # focus is back in chat with the draft intact
    app.type("!")
    await in_thread(wait_chat, app, typed + "!")
