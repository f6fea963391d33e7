"""The hub as a person runs it: ``asks --mcp`` under a pty, an outside agent on the SDK's client.

The agent (the official MCP client over HTTP on 127.0.0.1) asks; the person sees the question
as a tab labelled with the agent's name and answers with the keys; the agent gets the answer
exactly once at its next call — also after its blocking call gave up waiting.
"""

from __future__ import annotations

import re

import pytest
import trio
from support.hub import DB, agent, in_thread, start_hub, text_of
from support.launcher import Launcher

pytestmark = pytest.mark.e2e


async def test_an_async_ask_is_a_labelled_tab_answered_by_keys_and_delivered_once(
    launch: Launcher,
) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "reviewer") as session:
        queued = await session.call_tool(
            "ask_user_question", {"questions": [DB], "blocking": False}
        )
        [qid] = re.findall(r"q-[0-9a-f]{10}", text_of(queued))[:1]
        await in_thread(app.wait_for, r"Database \(reviewer\)")
        await in_thread(app.press, "shift tab")
        await in_thread(app.wait_for, r"┌─ Questions")
        await in_thread(app.press, "enter")  # the first option: Postgres
        await in_thread(app.wait_gone, r"Database \(reviewer\)")

        first = text_of(await session.call_tool("check_answers", {}))
        second = text_of(await session.call_tool("check_answers", {}))

    assert f'Question {qid} "Which database?": answer "Postgres".' in first
    assert second == "No new answers.\nPending: none."
    records = launch.records()
    delivered = [r for r in records if r["type"] == "offer_delivered"]
    assert [[ref["id"] for ref in r["refs"]] for r in delivered] == [[qid]]  # type: ignore[index, union-attr]


async def test_a_blocking_ask_the_client_abandons_is_answered_later(launch: Launcher) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "planner") as session:
        with trio.move_on_after(2):  # the client's patience runs out
            await session.call_tool("ask_user_question", {"questions": [DB]})
        await in_thread(app.wait_for, r"Database \(planner\)")
        await in_thread(app.wait_for, "planner stopped waiting")
        await in_thread(app.press, "shift tab")
        await in_thread(app.press, "down", "enter")  # SQLite
        await in_thread(app.wait_gone, r"Database \(planner\)")
        later = text_of(await session.call_tool("check_answers", {}))
    assert '"SQLite"' in later
    outcomes = [r["outcome"] for r in launch.records() if r["type"] == "tool_result"]
    assert outcomes == ["interrupted"]  # never declined
