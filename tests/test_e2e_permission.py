"""An agent's permission request answered by keys, as a person meets it: ``asks --mcp`` under
a pty, the hook's exact body posted to its ``/hooks/permission`` (docs/permission-prompts.md).

The request is a tab that does not take the keys; in the panel, ``yes please`` typed at it is
a chat line and decides nothing; a deliberate ``y`` after it counts at the pause and the hook
gets the allow. A second request is left open when the person quits: its hook gets the
hand-back (``{}``) and the journal says it was never answered.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import trio
from support.hub import in_thread, start_hub
from support.launcher import Launcher
from support.permission_bodies import CLAUDE, CODEX

from asks.core.focus import TYPING_GUARD

pytestmark = pytest.mark.e2e

ALLOW = {"behavior": "allow"}


async def hook(url: str, token: str, body: dict[str, Any], out: list[httpx.Response]) -> None:
    async with httpx.AsyncClient(timeout=120) as http:
        out.append(
            await http.post(
                url.removesuffix("/mcp") + "/hooks/permission",
                json=body,
                headers={"Authorization": f"Bearer {token}", "X-Asks-Agent": "builder"},
            )
        )


async def reply_of(out: list[httpx.Response]) -> httpx.Response:
    while not out:
        await trio.sleep(0.01)
    return out[0]


async def test_a_permission_request_answered_by_keys_and_one_handed_back_at_quit(
    launch: Launcher,
) -> None:
    app, url, token = start_hub(launch)
    first: list[httpx.Response] = []
    second: list[httpx.Response] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hook, url, token, CLAUDE, first)
        await in_thread(app.wait_for, r"builder · Bash: npm test")
        assert "keys: chat" in app.text(), app.text()  # the request took no keys

        await in_thread(app.press, "shift tab")
        await in_thread(app.wait_for, r"y allow · n deny")
        await in_thread(app.type, "yes please")  # meant for the chat
        await in_thread(app.wait_for, r"yes please")
        await trio.sleep(TYPING_GUARD * 2)  # a pause: nothing was decided
        assert not first
        await in_thread(app.press, "enter")  # the chat line is sent (to nobody: no agent)

        await in_thread(app.press, "shift tab")
        await in_thread(app.wait_for, r"y allow · n deny")
        await in_thread(app.press, "y")
        reply = await reply_of(first)  # at the pause after it
        assert reply.json()["hookSpecificOutput"]["decision"] == ALLOW
        await in_thread(app.wait_gone, r"builder · Bash: npm test")

        nursery.start_soon(hook, url, token, CODEX, second)
        await in_thread(app.wait_for, r"builder · Bash: touch /tmp/outside-x")
        await in_thread(app.type, "/quit")
        await in_thread(app.press, "enter")
        assert (await reply_of(second)).json() == {}  # the agent's own dialog decides
    assert await in_thread(app.wait_exit) == 0

    records = launch.records()
    decided = [r for r in records if r["type"] == "permission_decided"]
    assert [(r["prompt"], r["allowed"]) for r in decided] == [("builder · Bash: npm test", True)]
    withdrawn = [r for r in records if r["type"] == "withdrawn"]
    assert [r["reason"] for r in withdrawn] == ["permission handed back: asks is quitting"]
    asked = {
        r["questions"][0]["ref"]["id"]: r["questions"][0]["spec"]["question"]
        for r in records
        if r["type"] == "group_asked"
    }
    assert [asked[ref["id"]] for ref in withdrawn[0]["refs"]] == ["touch /tmp/outside-x"]
