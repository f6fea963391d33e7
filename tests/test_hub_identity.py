"""Who an agent is, and who may speak as it: labels and credentials (docs/architecture.md,
"Identity and credentials"), over real HTTP on 127.0.0.1 with the official MCP client.

* Two distinct labels are two agents: no label is cut or folded into another one; a header
  label that is not a clean label is refused, never folded; a client's own name from the
  handshake is kept, or mapped so that two distinct names stay two.
* An agent's token speaks only as that agent (403 for another ``X-Asks-Agent``); the shared
  token speaks as any agent.
* Rotating or revoking a token reaches the running hub at its next request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from mcp.shared.exceptions import MCPError
from support.hub import DB, HELLO, TOKEN, agent, client, receipts, text_of
from support.rig import Rig

from asks.hub.server import HubServer

REVIEWER = "project-alpha-backend-reviewer"
REPORTER = "project-alpha-backend-reporter"


def sources(rig: Rig) -> dict[str | None, Any]:
    """The tabs by the source label of their question."""
    port = rig.host.surface_port
    return {port.question(tab).source: tab for tab in rig.host.panel_port.tabs}  # type: ignore[arg-type]


async def post(
    hub: HubServer, headers: dict[str, str | bytes], body: object = HELLO
) -> httpx.Response:
    assert hub.url is not None
    async with httpx.AsyncClient() as http:
        return await http.post(
            hub.url,
            json=body,
            headers={"Accept": "application/json, text/event-stream", **headers},
        )


# ---------------------------------------------------------------------------- labels
async def test_two_long_labels_that_share_24_characters_are_two_agents(
    rig: Rig, hub: HubServer
) -> None:
    async with client(hub, REVIEWER) as reviewer, client(hub, REPORTER) as reporter:
        await reviewer.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await reporter.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        tabs = sources(rig)
        assert set(tabs) == {REVIEWER, REPORTER}  # the full labels, not cut
        rig.answer_option(tabs[REVIEWER], 0)
        rig.answer_option(tabs[REPORTER], 1)
        got_reviewer = text_of(await reviewer.call_tool("check_answers", {}))
        got_reporter = text_of(await reporter.call_tool("check_answers", {}))
    assert '"Postgres"' in got_reviewer and "SQLite" not in got_reviewer
    assert '"SQLite"' in got_reporter and "Postgres" not in got_reporter
    assert rig.host.hub_port.agents() == (REVIEWER, REPORTER)


@pytest.mark.parametrize("label", ["team/a", "team a", "x" * 65, "-lead", "ünïcode"])
async def test_a_header_label_that_is_not_clean_is_refused_not_folded(
    rig: Rig, hub: HubServer, label: str
) -> None:
    before = rig.path.read_bytes()
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "check_answers", "arguments": {}},
    }
    response = await post(
        hub,
        {"Authorization": f"Bearer {TOKEN}", "X-Asks-Agent": label.encode()},
        call,
    )
    assert response.status_code == 400
    assert "X-Asks-Agent" in response.json()["error"]
    assert rig.path.read_bytes() == before and rig.host.hub_port.agents() == ()


@pytest.mark.parametrize(
    "twice",
    [
        [("X-Asks-Agent", "team/a"), ("X-Asks-Agent", "reviewer")],
        [("X-Asks-Agent", "reviewer"), ("x-asks-agent", "planner")],
        [("Authorization", "Bearer nope")],
        [("Host", "evil.example:80")],
        [("Origin", "http://127.0.0.1"), ("Origin", "http://evil.example")],
    ],
)
async def test_a_header_the_guard_decides_on_sent_twice_is_refused(
    rig: Rig, hub: HubServer, twice: list[tuple[str, str]]
) -> None:
    """The guard would read one copy, the SDK's handlers the other: neither is trusted (the
    token and the Host come first from the test's raw request)."""
    from support.hub import raw_request  # noqa: PLC0415

    port = hub.listener.getsockname()[1]
    before = rig.path.read_bytes()
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "check_answers"}}
    got = await raw_request(port, twice, call)
    assert got.startswith(b"HTTP/1.1 400"), got[:200]
    if twice[0][0] != "Host":  # two Hosts: h11 refuses the request before the guard sees it
        assert b"more than once" in got
    assert rig.path.read_bytes() == before and rig.host.hub_port.agents() == ()


async def test_two_client_names_that_fold_alike_stay_two_agents(rig: Rig, hub: HubServer) -> None:
    assert hub.url is not None
    async with (
        agent(hub.url, TOKEN, None, client_name="team/a") as first,
        agent(hub.url, TOKEN, None, client_name="team a") as second,
    ):
        await first.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await second.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        tabs = sources(rig)
        assert len(tabs) == 2, tabs
        assert all(str(name).startswith("team-a-") for name in tabs)
        first_label = rig.host.hub_port.agents()[0]
        rig.answer_option(tabs[first_label], 0)
        got_second = text_of(await second.call_tool("check_answers", {}))
        got_first = text_of(await first.call_tool("check_answers", {}))
    assert "Postgres" not in got_second
    assert '"Postgres"' in got_first


# ---------------------------------------------------------------------------- credentials
async def test_an_agents_token_speaks_as_that_agent_and_no_other(rig: Rig, hub: HubServer) -> None:
    from asks.hub.credentials import agent_token  # noqa: PLC0415

    token = agent_token(rig.directory, "reviewer")
    assert hub.url is not None
    async with agent(hub.url, token, None) as reviewer:  # no header: the token names it
        await reviewer.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
    assert set(sources(rig)) == {"reviewer"}

    refused = await post(hub, {"Authorization": f"Bearer {token}", "X-Asks-Agent": "planner"})
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert "reviewer" in error and "planner" in error
    same = await post(hub, {"Authorization": f"Bearer {token}", "X-Asks-Agent": "reviewer"})
    assert same.status_code == 200

    # the shared token is the "any agent" mode: it may still say it is planner
    async with client(hub, "planner") as planner:
        await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
    assert set(sources(rig)) == {"reviewer", "planner"}


def test_agent_tokens_are_minted_once_distinct_and_private(tmp_path: Path) -> None:
    from asks.hub.credentials import AGENTS_FILE, agent_token, revoke_agent  # noqa: PLC0415
    from asks.hub.token import load_token  # noqa: PLC0415

    reviewer = agent_token(tmp_path, REVIEWER)
    assert agent_token(tmp_path, REVIEWER) == reviewer  # reused, so a config keeps working
    reporter = agent_token(tmp_path, REPORTER)
    shared = load_token(tmp_path)
    assert len({reviewer, reporter, shared}) == 3
    path = tmp_path / AGENTS_FILE
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text())["agents"] == {REVIEWER: reviewer, REPORTER: reporter}
    assert agent_token(tmp_path, REVIEWER, rotate=True) != reviewer
    assert revoke_agent(tmp_path, REPORTER) and not revoke_agent(tmp_path, REPORTER)
    assert set(json.loads(path.read_text())["agents"]) == {REVIEWER}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    with pytest.raises(ValueError, match="letters, digits"):
        agent_token(tmp_path, "team/a")


# ---------------------------------------------------------------------------- freshness
async def statuses(hub: HubServer, *tokens: str) -> list[int]:
    return [(await post(hub, {"Authorization": f"Bearer {t}"})).status_code for t in tokens]


async def test_rotating_the_shared_token_reaches_the_running_hub_at_once(
    rig: Rig, hub: HubServer
) -> None:
    from asks.hub.token import rotate_token  # noqa: PLC0415

    assert await statuses(hub, TOKEN) == [200]
    async with client(hub, "planner") as session, trio.open_nursery() as nursery:

        async def ask() -> None:
            # the client's own next request (tools/list, after the result) has the old token
            with pytest.raises(MCPError):
                await session.call_tool("ask_user_question", {"questions": [DB]})

        nursery.start_soon(ask)
        while not rig.host.panel_port.tabs:
            await trio.sleep(0.01)
        new = rotate_token(rig.directory)
        assert await statuses(hub, TOKEN, new) == [401, 200]
        newer = rotate_token(rig.directory)  # again: the same size, maybe the same mtime
        assert await statuses(hub, new, newer) == [401, 200]
        ref = sources(rig)["planner"]
        rig.answer_option(ref, 0)
    # a call admitted before the rotation still had its answer handed over
    assert receipts(rig) == [[ref.id]]


async def test_rotating_or_revoking_an_agent_reaches_the_running_hub_at_once(
    rig: Rig, hub: HubServer
) -> None:
    from asks.hub.credentials import agent_token, revoke_agent  # noqa: PLC0415

    old = agent_token(rig.directory, "builder")
    other = agent_token(rig.directory, "planner")
    assert await statuses(hub, old, other) == [200, 200]
    new = agent_token(rig.directory, "builder", rotate=True)
    assert await statuses(hub, old, new, other) == [401, 200, 200]
    revoke_agent(rig.directory, "builder")
    assert await statuses(hub, new, other, TOKEN) == [401, 200, 200]
