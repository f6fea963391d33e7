"""The hub with the real clients: Claude Code 2.1.332 and Codex 0.171.0, in print mode.

``claude -p`` / ``codex exec`` (tests/support/realclients) talk to the test's own ``asks``
under a pty, each configured from exactly what ``asks mcp config json --agent NAME`` prints; a
fake model on 127.0.0.1 makes one asks call and quotes the result. The person answers with
the keys; the answer reaches the agent that asked — once, and only that agent — in its blocking
call, or at its next asks call, also after its blocking call timed out. Installed once by
``.ci/test`` (``.ci/realclients-setup``, cached outside the repo), like the real model.
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from support.hub import start_hub
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.realclients import Client, HubConfig, Options, RealClients

pytestmark = [pytest.mark.e2e, pytest.mark.mcpclients]

DATABASE = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}, {"label": "DuckDB"}],
}
CACHE = {
    "question": "Which cache?",
    "header": "Cache",
    "options": [{"label": "Redis"}, {"label": "Memcached"}],
}
CHECK = "IA-CALL check_answers {}"


def ask(question: dict[str, object], *, blocking: bool) -> str:
    """The prompt that makes the fake model ask ``question``."""
    arguments = {"questions": [question], "blocking": blocking}
    return "IA-CALL ask_user_question " + json.dumps(arguments)


def hub_of(launch: Launcher, url: str, agent: str) -> HubConfig:
    """Agent ``agent``'s configuration: ``asks mcp config json --agent`` for the running hub."""
    port = urllib.parse.urlsplit(url).port
    assert port is not None
    return HubConfig.from_asks(launch.data_dir, port, agent)


def answer_first_tab(app: PtyApp, label: str, down: int = 0) -> None:
    """Enter the panel, choose the option ``down`` rows below the first, on tab ``label``."""
    app.wait_for(label)
    app.press("shift tab")
    app.wait_for(r"┌─ Questions")
    app.press(*(["down"] * down), "enter")
    app.wait_gone(label)


def test_claude_code_and_codex_ask_through_the_hub_and_get_each_answer_once(
    launch: Launcher, real_clients: RealClients
) -> None:
    app, url, _ = start_hub(launch)
    for client, option, answer in ((Client.CLAUDE, 0, "PostgreSQL"), (Client.CODEX, 1, "SQLite")):
        hub = hub_of(launch, url, f"{client}-agent")
        asked = real_clients.run_print(client, ask(DATABASE, blocking=False), hub).result_text()
        assert "Which database?" in asked
        answer_first_tab(app, rf"Database \({client}-agent\)", option)
        got = real_clients.run_print(client, CHECK, hub).result_text()
        assert answer in got
        again = real_clients.run_print(client, CHECK, hub).result_text()
        assert answer not in again  # exactly once
    delivered = [r for r in launch.records() if r["type"] == "offer_delivered"]
    assert len(delivered) == 2


def test_a_blocking_call_the_client_times_out_is_answered_at_its_next_call(
    launch: Launcher, real_clients: RealClients
) -> None:
    app, url, _ = start_hub(launch)
    for client in Client:
        hub = hub_of(launch, url, f"{client}-agent")
        impatient = Options(tool_timeout=3)
        gave_up = real_clients.run_print(client, ask(CACHE, blocking=True), hub, impatient)
        gave_up.result_text(failed=True)
        app.wait_for(rf"{client}-agent stopped waiting")
        answer_first_tab(app, rf"Cache \({client}-agent\)")
        got = real_clients.run_print(client, CHECK, hub).result_text()
        assert "Redis" in got
    outcomes = [r["outcome"] for r in launch.records() if r["type"] == "tool_result"]
    assert outcomes.count("interrupted") == 2 and "declined" not in outcomes


LABELLED = {  # agent → (client, its option's row: a different answer for each)
    "claude-a": (Client.CLAUDE, 0),
    "claude-b": (Client.CLAUDE, 1),
    "codex-c": (Client.CODEX, 2),
}
QUEUE = {
    "question": "Which queue?",
    "header": "Queue",
    "options": [{"label": "Kafka"}, {"label": "RabbitMQ"}, {"label": "NATS"}],
}


def answers_of(question: dict[str, object]) -> dict[str, str]:
    """Agent → the answer the person gives it to ``question`` (the option on its row)."""
    labels = [str(o["label"]) for o in question["options"]]  # type: ignore[attr-defined]
    return {agent: labels[row] for agent, (_, row) in LABELLED.items()}


def answer_selected_tab(app: PtyApp, header: str) -> str:
    """Enter the panel (unless the keys are there), answer the ``header`` tab it shows with the
    option meant for that tab's agent; the agent."""
    if "keys: chat" in app.text():
        app.press("shift tab")
        app.wait_for(r"┌─ Questions")
    agent = app.wait_for(rf"\[(?:● )?{header} \(([\w-]+)\)\]").group(1)
    _, row = LABELLED[agent]
    app.press(*(["down"] * row), "enter")
    app.wait_gone(rf"{header} \({agent}\)")
    return agent


def all_ask(real_clients: RealClients, launch: Launcher, url: str, prompt: str) -> dict[str, str]:
    """Each labelled agent runs ``prompt`` at once, with its own token; what each got."""
    runs = {
        agent: real_clients.start_print(client, prompt, hub_of(launch, url, agent))
        for agent, (client, _) in LABELLED.items()
    }
    return {agent: run.wait().result_text() for agent, run in runs.items()}


def only_own(got: dict[str, str], answers: dict[str, str]) -> None:
    """Each agent's text holds its own answer and no other agent's."""
    for agent, text in got.items():
        for other, answer in answers.items():
            assert (answer in text) == (other == agent), (agent, text)


def test_three_labelled_agents_through_one_hub_each_get_only_their_own_answers(
    launch: Launcher, real_clients: RealClients
) -> None:
    """Two Claude Codes and a Codex, each with its own token (``asks mcp config json --agent``),
    ask the same question at once, blocking: the person answers the three tabs by keys, a
    different option each, before any client gives up. Then the same without blocking: all
    three answered first, each agent's next call gets its own answer only."""
    app = launch.start("hub", "--mcp-port", "0", cols=160)
    url = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)").group(1)
    runs = {
        agent: real_clients.start_print(
            client, ask(DATABASE, blocking=True), hub_of(launch, url, agent), name=agent
        )
        for agent, (client, _) in LABELLED.items()
    }
    for agent in LABELLED:
        app.wait_for(rf"Database \({agent}\)")
    assert {answer_selected_tab(app, "Database") for _ in LABELLED} == set(LABELLED)
    only_own({a: run.wait().result_text() for a, run in runs.items()}, answers_of(DATABASE))

    all_ask(real_clients, launch, url, ask(QUEUE, blocking=False))
    assert {answer_selected_tab(app, "Queue") for _ in LABELLED} == set(LABELLED)
    only_own(all_ask(real_clients, launch, url, CHECK), answers_of(QUEUE))
