"""The rest of asks sees the hub's questions as its own, in process.

The hub (:class:`asks.hub.server.HubServer`, the SDK's own client over real HTTP on
127.0.0.1) and a surface run on one real host and journal in the test's nursery: the hooks
(a real hook command, tests/support/hook_append.py) fire for an outside agent's questions and their
payload names the agent; the web bridge (real HTTP) lists them with their agent and a
browser's answer reaches that agent — only that one — once, at its next call. The same under
a pty with ``asks --mcp``: tests/test_hub_e2e_surfaces.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import trio
from support.hooks import hook, hook_lines
from support.hub import DB, client, receipts, text_of
from support.rig import SESSION, Rig

from asks.core.events import EventKind
from asks.hub.server import HubServer
from asks.surfaces import hooks
from asks.surfaces.web import WebBridge

HANG = 60  # seconds: only ever reached if something hangs


async def until(condition: Any) -> None:
    with trio.fail_after(HANG):
        while not condition():
            await trio.sleep(0.01)


async def test_hooks_fire_for_an_outside_agent_and_name_it(
    rig: Rig, hub: HubServer, tmp_path: Path
) -> None:
    """``wait_opened`` when an agent outside asks blocks on the person (the desktop notice),
    with its label in the payload — also on the events that carry no source of their own
    (the answer saved, the delivery)."""
    out = tmp_path / "hook.jsonl"
    kinds = [
        EventKind.QUESTION_ASKED,
        EventKind.WAIT_OPENED,
        EventKind.ANSWER_SAVED,
        EventKind.WAIT_ENDED,
        EventKind.DELIVERED,
    ]
    reports: list[str] = []
    commands = {kind: hook(out) for kind in kinds}
    async with (
        hooks.running(rig.host.surface_port, SESSION, commands, HANG, reports.append),
        client(hub, "reviewer") as session,
        trio.open_nursery() as nursery,
    ):
        results: list[Any] = []

        async def ask() -> None:
            results.append(await session.call_tool("ask_user_question", {"questions": [DB]}))

        nursery.start_soon(ask)
        opened = (await hook_lines(out, 2))[1]
        assert opened["env"] == "wait_opened"
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 0)  # type: ignore[arg-type]
    records = await hook_lines(out, 5)
    assert [r["env"] for r in records] == [k.value for k in kinds]
    payloads = [r["payload"] for r in records]
    assert payloads[1]["source"] == "reviewer"  # the wait names the agent blocked on you
    assert payloads[1]["call_id"].startswith("mcp:reviewer:")
    assert all(p["questions"][0]["source"] == "reviewer" for p in payloads)
    assert payloads[4]["channel"] == "hub"  # its receipt: the response was handed over
    assert "Postgres" in text_of(results[0]) and reports == []


async def test_the_web_bridge_lists_an_agents_questions_and_answers_reach_only_it(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    bridge = WebBridge(rig.host.surface_port)
    await nursery.start(bridge.run)
    assert bridge.url is not None
    origin = f"http://{urlsplit(bridge.url).netloc}"
    async with (
        client(hub, "planner") as planner,
        client(hub, "reviewer") as reviewer,
        httpx.AsyncClient(base_url=origin, timeout=30) as browser,
    ):
        await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await reviewer.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        page = (await browser.get(f"/?token={bridge.token}")).text
        assert page.count("Which database?") == 2
        assert "asked by planner" in page and "asked by reviewer" in page
        [planners] = [
            t
            for t in rig.host.panel_port.tabs
            if rig.host.surface_port.question(t).source == "planner"
        ]  # type: ignore[arg-type]
        answered = await browser.post(
            f"/answer?token={bridge.token}",
            data={
                "csrf": bridge.csrf_token,
                "question": planners.id,  # type: ignore[union-attr]
                "incarnation": str(planners.incarnation),
                "choice": "1",  # type: ignore[union-attr]
                "action": "answer",
            },
            headers={"Origin": origin},
        )
        assert answered.status_code == 303, answered.text
        got_reviewer = text_of(await reviewer.call_tool("check_answers", {}))
        got_planner = text_of(await planner.call_tool("check_answers", {}))
        again = text_of(await planner.call_tool("check_answers", {}))
    assert got_reviewer.startswith("No new answers.")  # not the reviewer's question
    assert re.search(r'Question q-\w+ "Which database\?": answer "SQLite"', got_planner)
    assert again.startswith("No new answers.")
    await until(lambda: receipts(rig))
    assert receipts(rig) == [[planners.id]]  # type: ignore[union-attr]
    bridge.close()
