"""The real clients' terminal UIs through the hub: Claude Code and Codex under tmux.

Each client's TUI (tests/support/realclients: a private HOME / CODEX_HOME, its own tmux
server) is configured from ``asks mcp config json --agent NAME`` for the test's ``asks hub``
under a pty. A prompt typed into the TUI makes the fake model ask; the person answers by keys
in asks; a second prompt makes it call ``check_answers``: the model gets the answer, and the
client's screen shows it. What CI's real-client lane runs to prove the driver.
"""

from __future__ import annotations

import pytest
from support.launcher import Launcher
from support.realclients import Client, HubConfig, Kind, RealClients

pytestmark = [pytest.mark.e2e, pytest.mark.mcpclients]

DATABASE = {
    "questions": [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}],
        }
    ],
    "blocking": False,
}


@pytest.mark.parametrize("client", list(Client))
def test_a_clients_tui_asks_through_the_hub_and_shows_the_answer(
    launch: Launcher, real_clients: RealClients, client: Client
) -> None:
    app = launch.start("hub", "--mcp-port", "0", cols=140)
    port = int(app.wait_for(r"Hub on http://127\.0\.0\.1:(\d+)/mcp").group(1))
    agent = f"{client}-tui"
    hub = HubConfig.from_asks(launch.data_dir, port, agent)
    tui = real_clients.tui(client, hub, macros={"db": DATABASE})

    asked = tui.prompt("IA-CALL ask_user_question @db")
    assert "Which database?" in asked.results[0].text and not asked.results[0].is_error
    app.wait_for(rf"Database \({agent}\)")
    app.press("shift tab")
    app.wait_for(r"┌─ Questions")
    app.press("down", "enter")  # SQLite
    app.wait_gone(rf"Database \({agent}\)")

    since = tui.submit("IA-CALL check_answers {}")
    seen = tui.log.wait_kind(Kind.AFTER_TOOL, since)
    assert "SQLite" in seen.results[0].text
    tui.wait_screen(r"IA-RESULT-SEEN:(.|\n)*SQLite")
    calls = tui.log.requests(Kind.TOOL_CALL)
    assert [c.arguments for c in calls] == [DATABASE, {}]
