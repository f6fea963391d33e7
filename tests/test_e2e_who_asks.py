"""Who asks, visible everywhere, as a person meets it: ``asks hub`` under a pty.

Two outside agents ask through the hub, builder first: builder's "Canary", planner's "Port",
then builder's "Tests". The person sees the tabs grouped by agent (builder's two together,
first: builder asked first), the collapsed panel naming both agents, ``/asks @planner``
putting the keys on planner's question with the status line naming planner, a transcript
line naming planner when they answer, ``/asks @bob`` refused in one line with the typed line
kept, and ``/help`` listing ``@name`` notes and no key that does nothing in a hub.
"""

from __future__ import annotations

import pytest
from support.hub import agent, in_thread, token_of
from support.launcher import Launcher

pytestmark = pytest.mark.e2e


def _question(header: str, text: str, *labels: str) -> dict[str, object]:
    return {"question": text, "header": header, "options": [{"label": x} for x in labels]}


CANARY = _question("Canary", "Deploy to canary now?", "Yes", "No")
PORT = _question("Port", "Which port?", "3000", "5000")
TESTS = _question("Tests", "Run the slow tests?", "Yes", "No")


async def test_whose_question_has_the_keys_is_always_on_screen(launch: Launcher) -> None:
    app = launch.start("hub", "--mcp-port", "0", cols=140, rows=40)
    url = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)").group(1)
    token = token_of(launch)
    async with agent(url, token, "builder") as builder, agent(url, token, "planner") as planner:
        for who, question in ((builder, CANARY), (planner, PORT), (builder, TESTS)):
            await who.call_tool("ask_user_question", {"questions": [question], "blocking": False})
        await in_thread(app.wait_for, r"Tests \(builder\)")
        grouped = r"Canary \(builder\).*Tests \(builder\).*Port \(planner\)"
        assert await in_thread(app.wait_for, grouped)  # by agent: builder asked first

        await in_thread(app.press, "ctrl ]")
        await in_thread(app.wait_for, r"▸ 3 questions pending from builder, planner")

        await in_thread(app.type, "/asks @planner")
        await in_thread(app.press, "enter")
        await in_thread(app.wait_for, r"keys: question “Port” · planner")
        await in_thread(app.press, "down")
        await in_thread(app.press, "enter")
        await in_thread(app.wait_for, r"You answered planner: Which port\? → 5000")

        await in_thread(app.press, "esc")  # back to the chat (the panel had been entered)
        await in_thread(app.wait_for, "keys: chat")
        await in_thread(app.type, "/asks @bob")
        await in_thread(app.press, "enter")
        refused = await in_thread(
            app.wait_for, r"No pending questions from @bob\. Agents asking now: @builder\."
        )
        assert refused is not None
        assert "› /asks @bob" in app.text(), app.text()  # kept in the chat editor
        await in_thread(app.press, "ctrl u")  # the line was kept: clear it

        await in_thread(app.type, "/help")
        await in_thread(app.press, "enter")
        await in_thread(app.wait_for, r"@name text: a note to that agent")
        shown = app.text()
        assert "/asks @name" in shown
        assert "permission prompt:" not in shown, shown
        assert "interrupt" not in shown, shown  # no turn to interrupt: Esc, Ctrl+C quit (twice)
        assert "quit (twice)" in shown, shown

    resolved = [r for r in launch.records() if r["type"] == "resolved"]
    assert len(resolved) == 1, resolved  # only planner's Port was answered
