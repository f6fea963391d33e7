"""Keys never cross agents, as a person meets it: ``asks --mcp`` under a pty, two outside agents.

Builder's blocking "Canary" question times out in its client and stays pending; planner asks
"Port" after it. The person enters the panel, goes to planner's tab, types ``8080`` and
pauses; planner withdraws its question. The keys go back to the chat with a line naming
planner, the question and the unsent ``8080``, and the Enter the person presses next answers
nothing — builder's question is still pending, never answered "Yes".
"""

from __future__ import annotations

import pytest
import trio
from support.hub import agent, first_id, in_thread, start_hub
from support.launcher import Launcher

from asks.core.focus import TYPING_GUARD

pytestmark = pytest.mark.e2e

CANARY = {
    "question": "Deploy to canary now?",
    "header": "Canary",
    "options": [{"label": "Yes"}, {"label": "No"}],
}
PORT = {
    "question": "Which port?",
    "header": "Port",
    "options": [{"label": "3000"}, {"label": "5000"}, {"label": "8000"}],
}


async def test_a_withdrawn_question_never_hands_the_enter_to_another_agent(
    launch: Launcher,
) -> None:
    app, url, token = start_hub(launch)
    async with agent(url, token, "builder") as builder, agent(url, token, "planner") as planner:
        with trio.move_on_after(2):  # builder's client stops waiting: Canary stays pending
            await builder.call_tool("ask_user_question", {"questions": [CANARY]})
        await in_thread(app.wait_for, "builder stopped waiting")
        asked = await planner.call_tool(
            "ask_user_question", {"questions": [PORT], "blocking": False}
        )
        port_id = first_id(asked)
        await in_thread(app.wait_for, r"Port \(planner\)")

        await in_thread(app.press, "shift tab")
        await in_thread(app.wait_for, r"┌─ Questions")
        await in_thread(app.press, "tab")
        await in_thread(app.wait_for, "Which port")
        await in_thread(app.press, "4")  # Type something.
        await in_thread(app.type, "8080")
        await in_thread(app.wait_for, "8080")
        await trio.sleep(TYPING_GUARD * 2)  # the person pauses (a gap at least this long)

        await planner.call_tool("withdraw_question", {"questionIds": [port_id]})
        await in_thread(app.wait_for, r"planner withdrew “Port”")
        screen = await in_thread(app.wait_for, r"not sent: “8080”")
        assert screen is not None
        assert "keys: question" not in app.text(), app.text()
        assert "keys: chat" in app.text(), app.text()

        await in_thread(app.press, "enter")  # meant for planner's question
        await in_thread(app.press, "shift tab")  # in order after it: the panel, on Canary
        await in_thread(app.wait_for, r"┌─ Questions")
        await in_thread(app.wait_for, "Deploy to canary now")

    resolved = [r for r in launch.records() if r["type"] == "resolved"]
    assert resolved == [], resolved  # builder's Canary was never answered
    assert "Canary (builder)" in app.text()
