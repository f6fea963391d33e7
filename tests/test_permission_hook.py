"""``POST /hooks/permission`` on a real hub (127.0.0.1, a free port) with the exact bodies the
clients send (docs/permission-prompts.md; the captures of interactive/README.md results 2
and 6): allow, deny with a reason, the limit hands back, the client closing first takes the
tab with a notice, a forged agent 403, no token 401, oversized 413, not a hook 400, hostile
text drawn sanitized, asks quitting hands back and journals it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from support.hub import TOKEN, keyring_with
from support.panel import make_panel, screen
from support.permission_bodies import CLAUDE, CODEX
from support.rig import Rig

from asks.core.model import QuestionRef
from asks.host.commands import PanelCommand
from asks.hub.credentials import agent_token
from asks.hub.hooks import HOOK_PATH, hand_back_all
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer

ALLOW = {
    "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
}


def hook_url(hub: HubServer) -> str:
    assert hub.url is not None
    return hub.url.removesuffix("/mcp") + HOOK_PATH


async def post(
    hub: HubServer, payload: Any, token: str | None = TOKEN, **headers: str
) -> httpx.Response:
    sent = dict(headers)
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=60) as http:
        if isinstance(payload, bytes):
            return await http.post(hook_url(hub), content=payload, headers=sent)
        return await http.post(hook_url(hub), json=payload, headers=sent)


async def tab_appears(rig: Rig) -> QuestionRef:
    """The first tab, once the request made it (waits on progress, not on a clock)."""
    while not rig.host.panel_port.tabs:
        await trio.sleep(0.005)
    tab = rig.host.panel_port.tabs[0]
    assert isinstance(tab, QuestionRef)
    return tab


async def asked(
    rig: Rig,
    nursery: trio.Nursery,
    hub: HubServer,
    payload: Any,
    token: str = TOKEN,
    **headers: str,
) -> tuple[QuestionRef, list[httpx.Response]]:
    """Post ``payload`` in the background; the tab it made and where its reply will be."""
    replies: list[httpx.Response] = []

    async def send() -> None:
        replies.append(await post(hub, payload, token, **headers))

    nursery.start_soon(send)
    return await tab_appears(rig), replies


async def journaled(rig: Rig, entry_type: str) -> None:
    """Wait until the journal holds an ``entry_type`` line (progress, not a clock)."""
    while not rig.lines_of(entry_type):
        await trio.sleep(0.005)


async def replied(replies: list[httpx.Response]) -> httpx.Response:
    while not replies:
        await trio.sleep(0.005)
    return replies[0]


# ---------------------------------------------------------------------------- decisions
async def test_claude_bash_allowed_in_the_panel(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    tab, replies = await asked(rig, nursery, hub, CLAUDE, **{"X-Asks-Agent": "builder"})
    question = rig.host.surface_port.question(tab)
    assert (question.source, question.spec.question) == ("builder", "npm test")
    rig.answer_option(tab, 0)
    reply = await replied(replies)
    assert (reply.status_code, reply.json()) == (200, ALLOW)
    (result,) = rig.lines_of("tool_result")
    assert result["outcome"] == "answered" and result["delivered"]
    assert rig.lines_of("permission_decided")[0]["allowed"] is True


async def test_codex_exec_denied_with_a_reason(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    token = agent_token(rig.directory, "builder")
    tab, replies = await asked(rig, nursery, hub, CODEX, token)
    assert rig.host.surface_port.question(tab).source == "builder"  # the token's agent
    port = rig.host.panel_port
    rig.move_to(tab, 2)  # the "Type something." row: a reason is a deny
    port.set_custom_text("not outside the project", tab=tab)
    port.command(PanelCommand.CONFIRM, tab)
    reply = await replied(replies)
    decision = reply.json()["hookSpecificOutput"]["decision"]
    assert decision == {"behavior": "deny", "message": "not outside the project"}
    assert rig.lines_of("permission_decided")[0]["allowed"] is False


# ---------------------------------------------------------------------------- hand-backs
@pytest.fixture
async def quick_hub(rig: Rig, nursery: trio.Nursery) -> AsyncIterator[HubServer]:
    """A hub whose requests hand back after 0.2 s (the limit's path, not a test bound)."""
    keyring = keyring_with(rig.directory, TOKEN)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), hook_limit=0.2)
    await nursery.start(server.run)
    yield server


async def test_the_limit_hands_back_and_the_tab_goes_with_a_notice(
    rig: Rig, quick_hub: HubServer
) -> None:
    reply = await post(quick_hub, CLAUDE)
    assert (reply.status_code, reply.json()) == (200, {})  # no decision: the agent's dialog
    await journaled(rig, "withdrawn")  # after the reply went out
    assert rig.host.panel_port.tabs == ()
    (withdrawn,) = rig.lines_of("withdrawn")
    assert withdrawn["reason"] == "permission handed back: the hook's time limit was reached"
    assert "handed back" in (rig.host.statistics().notice or "")


async def test_the_agents_own_dialog_first_takes_the_tab_with_a_notice(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    async with trio.open_nursery() as client:  # the client closes its connection (Claude
        client.start_soon(post, hub, CLAUDE)  # does so when its own dialog was answered)
        await tab_appears(rig)
        client.cancel_scope.cancel()
    while rig.host.panel_port.tabs:  # the hub saw the connection close
        await trio.sleep(0.005)
    assert rig.host.panel_port.tabs == ()
    reasons = {line["reason"] for line in rig.lines_of("withdrawn")}
    assert reasons == {
        "permission handed back: answered in the agent's own dialog, or the agent gave up"
    }
    assert "own dialog" in (rig.host.statistics().notice or "")


async def test_quitting_hands_back_every_open_request_and_journals_it(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    _, replies = await asked(rig, nursery, hub, CLAUDE)
    await hand_back_all(rig.host.hub_port.permissions)
    reply = await replied(replies)
    assert reply.json() == {}
    await journaled(rig, "withdrawn")
    (withdrawn,) = rig.lines_of("withdrawn")
    assert withdrawn["reason"] == "permission handed back: asks is quitting"
    after = await post(hub, CODEX)  # asks is going: a new request is handed back at once
    assert after.json() == {} and rig.host.panel_port.tabs == ()


# ---------------------------------------------------------------------------- refusals
async def test_no_token_is_401_and_no_tab(rig: Rig, hub: HubServer) -> None:
    reply = await post(hub, CLAUDE, token=None)
    assert reply.status_code == 401
    wrong = await post(hub, CLAUDE, token="not-the-token")
    assert wrong.status_code == 401 and rig.host.panel_port.tabs == ()


async def test_a_forged_agent_is_403(rig: Rig, hub: HubServer) -> None:
    token = agent_token(rig.directory, "builder")
    reply = await post(hub, CLAUDE, token=token, **{"X-Asks-Agent": "reviewer"})
    assert reply.status_code == 403 and "builder" in reply.json()["error"]
    assert rig.host.panel_port.tabs == ()


async def test_oversized_input_is_413_with_a_sentence(rig: Rig, hub: HubServer) -> None:
    big = {**CLAUDE, "tool_input": {"command": "echo " + "x" * 300_000}}
    reply = await post(hub, big)
    assert reply.status_code == 413 and "KiB" in reply.json()["error"]
    assert rig.host.panel_port.tabs == ()


async def test_a_body_that_is_not_a_hook_is_400(rig: Rig, hub: HubServer) -> None:
    reply = await post(hub, {**CLAUDE, "hook_event_name": "PostToolUse"})
    assert reply.status_code == 400 and "PermissionRequest" in reply.json()["error"]
    assert (await post(hub, b"{")).status_code == 400
    assert rig.host.panel_port.tabs == ()


async def test_a_foreign_origin_is_refused(rig: Rig, hub: HubServer) -> None:
    reply = await post(hub, CLAUDE, Origin="http://evil.example")
    assert reply.status_code == 403 and rig.host.panel_port.tabs == ()


async def test_hostile_text_in_the_command_is_drawn_sanitized(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    hostile = "npm test\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202erm -rf ~"
    payload = {**CLAUDE, "tool_input": {"command": hostile, "description": "\x1b[31mred"}}
    panel = make_panel(rig)
    tab, _ = await asked(rig, nursery, hub, payload, **{"X-Asks-Agent": "builder"})
    assert rig.host.surface_port.question(tab).spec.question == hostile  # journaled as sent
    drawn = "\n".join(screen(panel, 120))
    assert "builder · Bash: npm test" in drawn
    assert "rm -rf ~" in drawn
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in drawn
    rig.host.hub_port.permissions.quit()


# ---------------------------------------------------------------------------- the command hook
def hook_command(data_dir: Path, port: int, *extra: str) -> list[str]:
    words = ["hook", "permission", "--data-dir", str(data_dir), "--mcp-port", str(port)]
    return [sys.executable, "-m", "asks", *words, *extra]


async def test_the_command_hook_prints_the_panels_decision(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    token = agent_token(rig.directory, "builder")
    assert token
    assert hub.url is not None
    port = int(hub.url.rsplit(":", 1)[1].removesuffix("/mcp"))
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def run() -> None:
        command = hook_command(rig.directory, port, "--agent", "builder")
        done.append(
            await trio.run_process(command, stdin=json.dumps(CLAUDE).encode(), capture_stdout=True)
        )

    nursery.start_soon(run)
    tab = await tab_appears(rig)
    assert rig.host.surface_port.question(tab).source == "builder"
    rig.answer_option(tab, 0)
    while not done:
        await trio.sleep(0.005)
    assert done[0].returncode == 0
    assert json.loads(done[0].stdout) == ALLOW


def test_the_command_hook_hands_back_when_asks_is_not_running(tmp_path: Path) -> None:
    listener = bind_listener(port=0)
    port = listener.getsockname()[1]
    listener.close()  # nothing listens there now: connection refused
    keyring_with(tmp_path, TOKEN)
    run = subprocess.run(
        hook_command(tmp_path, port),
        input=json.dumps(CODEX).encode(),
        capture_output=True,
        check=False,
    )
    assert run.returncode == 0
    assert json.loads(run.stdout) == {}  # no decision: the agent's own dialog decides
    assert b"did not answer" in run.stderr
