"""Claude Code's asyncRewake hook on a real hub (127.0.0.1, a free port): ``POST
/hooks/rewake`` and ``/hooks/rewake/printed`` with the body Claude Code sends a ``PostToolUse``
hook, the agent an SDK client (docs/rewake-hook.md).

A wake offers the agent's answers; the receipt is journaled only when the hook reports it
printed them; an unreported wake is released for the next call; a newer hook supersedes an
older; no token 401, a forged agent 403; the text sanitized; the answers delivered once, their
repeat at the agent's next call marked; and the command itself (``asks hook rewake``) exits 2
with the answers on stderr only after their receipt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from mcp.client.client import Client
from support.hub import DB, TOKEN, client, keyring_with, text_of
from support.rig import Rig

from asks.core.model import QuestionRef
from asks.host.commands import PanelCommand
from asks.hub.credentials import agent_token
from asks.hub.hookcmd import PRINTED_PATH, REWAKE_PATH
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer

HANG = 60  # seconds: reached only if something hangs (not a time bound)
AGENT = "planner"


def hook_body(blocking: bool = False) -> dict[str, Any]:
    """What Claude Code 2.1.332 sent the hook after a non-blocking ask (captured)."""
    return {
        "session_id": "7f2ee427-bba6-47d7-869c-1ab9b65b08cd",
        "cwd": "/tmp/work",
        "hook_event_name": "PostToolUse",
        "tool_name": "mcp__asks__ask_user_question",
        "tool_input": {"questions": [DB], "blocking": blocking},
        "tool_response": [{"type": "text", "text": "Questions sent … (id q-7bb0ba932c)."}],
        "tool_use_id": "toolu_fake_293491442331",
        "mcp_server": {"name": "asks", "source": "dynamic"},
    }


def base(hub: HubServer) -> str:
    assert hub.url is not None
    return hub.url.removesuffix("/mcp")


async def post(
    hub: HubServer, path: str, payload: Any, token: str | None = TOKEN, **headers: str
) -> httpx.Response:
    sent = {"X-Asks-Agent": AGENT, **headers}
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    async with httpx.AsyncClient(timeout=HANG) as http:
        return await http.post(base(hub) + path, json=payload, headers=sent)


def receipts(rig: Rig) -> list[list[str]]:
    return [[r["id"] for r in line["refs"]] for line in rig.lines_of("offer_delivered")]


async def until(condition: Any) -> None:
    with trio.fail_after(HANG):
        while not condition():
            await trio.sleep(0.005)


async def ask_async(agent: Client, rig: Rig) -> QuestionRef:
    await agent.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
    [ref] = rig.host.panel_port.tabs
    assert isinstance(ref, QuestionRef)
    return ref


def waiting(nursery: trio.Nursery, hub: HubServer) -> list[httpx.Response]:
    """A rewake hook's wait, posted in the background; where its reply will be."""
    replies: list[httpx.Response] = []

    async def wait() -> None:
        replies.append(await post(hub, REWAKE_PATH, hook_body()))

    nursery.start_soon(wait)
    return replies


async def registered(rig: Rig, count: int) -> None:
    """Until ``count`` hooks wait (progress, not a clock)."""
    await until(lambda: rig.host.hub_port.rewake.waiting == count)


# ---------------------------------------------------------------------------- the hub
async def test_a_wake_is_receipted_only_once_the_hook_reports_it_printed(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    async with client(hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        replies = waiting(nursery, hub)
        await registered(rig, 1)
        rig.answer_option(ref, 1)
        await until(lambda: replies)
        woken = replies[0].json()
        assert woken["wake"] is True and '"SQLite"' in woken["text"]
        assert rig.lines_of("feedback_offered") and receipts(rig) == []  # offered, not sent
        assert "SQLite" not in text_of(await agent.call_tool("check_answers", {}))  # claimed

        reported = await post(hub, PRINTED_PATH, {"offer": woken["offer"]})
        assert (reported.status_code, reported.json()) == (200, {"delivered": True})
        assert receipts(rig) == [[ref.id]]

        later = text_of(await agent.call_tool("check_answers", {}))
        again = text_of(await agent.call_tool("check_answers", {}))
    assert later.startswith("(Already sent to you at ") and "not a new answer" in later
    assert '"SQLite"' in later and "No new answers." in later
    assert again.startswith("No new answers.")  # the repeat comes once
    assert receipts(rig) == [[ref.id]]  # delivered once


async def test_an_unreported_wake_is_released_for_the_next_call(
    rig: Rig, nursery: trio.Nursery
) -> None:
    keyring = keyring_with(rig.directory, TOKEN)
    hub = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), rewake_grace=0.2)
    await nursery.start(hub.run)
    async with client(hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        replies = waiting(nursery, hub)
        await registered(rig, 1)
        rig.answer_option(ref, 0)
        await until(lambda: replies)
        await until(lambda: rig.lines_of("offer_released"))  # the hook never reported
        late = await post(hub, PRINTED_PATH, {"offer": replies[0].json()["offer"]})
        later = text_of(await agent.call_tool("check_answers", {}))
    assert (late.status_code, late.json()["delivered"]) == (409, False)  # no wake then
    assert later.startswith("[asks feedback]") and '"Postgres"' in later  # a new answer
    assert receipts(rig) == [[ref.id]]


async def test_a_newer_hook_supersedes_the_older(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    async with client(hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        older = waiting(nursery, hub)
        await registered(rig, 1)
        newer = waiting(nursery, hub)
        await until(lambda: older)
        assert older[0].json() == {"wake": False, "why": "superseded"}
        rig.answer_option(ref, 0)
        await until(lambda: newer)
    assert newer[0].json()["wake"] is True


async def test_nothing_left_to_wait_for_ends_the_wait(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    async with client(hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        replies = waiting(nursery, hub)
        await registered(rig, 1)
        await agent.call_tool("withdraw_question", {"questionIds": [ref.id]})
        await until(lambda: replies)
    assert replies[0].json() == {"wake": False, "why": "nothing_left"}


async def test_while_a_call_of_the_agent_runs_its_result_carries_the_answer(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    async with client(hub, AGENT) as agent:
        first = await ask_async(agent, rig)
        replies = waiting(nursery, hub)
        await registered(rig, 1)
        results: list[str] = []

        async def blocking() -> None:
            other = {**DB, "question": "Which cache?", "header": "Cache"}
            found = await agent.call_tool("ask_user_question", {"questions": [other]})
            results.append(text_of(found))

        nursery.start_soon(blocking)
        await until(lambda: len(rig.host.panel_port.tabs) == 2)
        rig.answer_option(first, 0)  # the blocking call still runs: no wake
        second = next(t for t in rig.host.panel_port.tabs if t != first)
        assert isinstance(second, QuestionRef) and not replies
        rig.answer_option(second, 1)
        await until(lambda: results and replies)
    assert '"Postgres"' in results[0]  # the running call's result carried the first answer
    assert replies[0].json() == {"wake": False, "why": "nothing_left"}


CACHE = {
    "question": "Which cache?",
    "header": "Cache",
    "options": [{"label": "Redis"}, {"label": "Memcached"}],
}
MODERN = "2026-07-28"


async def rpc(hub: HubServer, method: str, params: dict[str, Any], rid: int) -> dict[str, Any]:
    """One request of a client that declares MCP Tasks (as Claude Code 2.1.332), as ``AGENT``."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
    }
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
        "X-Asks-Agent": AGENT,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    assert hub.url is not None
    async with httpx.AsyncClient(timeout=HANG) as http:
        text = (await http.post(hub.url, json=body, headers=headers)).text
    for line in [text, *(x[5:] for x in text.splitlines() if x.startswith("data:"))]:
        if line.lstrip().startswith("{") and json.loads(line).get("id") == rid:
            found: dict[str, Any] = json.loads(line)["result"]
            return found
    raise AssertionError(text)


async def test_a_live_tasks_answer_is_left_to_the_task_one_wake_not_two(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    arguments = {"questions": [DB]}
    task = await rpc(hub, "tools/call", {"name": "ask_user_question", "arguments": arguments}, 1)
    assert task["resultType"] == "task"
    [blocked] = rig.host.panel_port.tabs
    async with client(hub, AGENT) as agent:
        await agent.call_tool("ask_user_question", {"questions": [CACHE], "blocking": False})
        [later] = [t for t in rig.host.panel_port.tabs if t != blocked]
        replies = waiting(nursery, hub)
        await registered(rig, 1)
        assert isinstance(blocked, QuestionRef) and isinstance(later, QuestionRef)
        rig.answer_option(blocked, 1)
        done = await rpc(hub, "tasks/get", {"taskId": task["taskId"]}, 2)
        assert done["status"] == "completed"
        assert '"SQLite"' in done["result"]["content"][0]["text"]
        await until(lambda: receipts(rig) == [[blocked.id]])
        assert not replies  # the task carried its answer: the hook did not wake for it
        rig.answer_option(later, 0)
        await until(lambda: replies)
    woken = replies[0].json()
    assert '"Redis"' in woken["text"] and "SQLite" not in woken["text"]


async def test_no_token_is_401_and_a_forged_agent_403(rig: Rig, hub: HubServer) -> None:
    refused = await post(hub, REWAKE_PATH, hook_body(), token=None)
    assert refused.status_code == 401
    token = agent_token(rig.directory, "builder")
    forged = await post(hub, REWAKE_PATH, hook_body(), token=token, **{"X-Asks-Agent": "other"})
    assert forged.status_code == 403
    printed = await post(hub, PRINTED_PATH, {"offer": "o-1-1"}, token=None)
    assert printed.status_code == 401


async def test_another_agents_offer_cannot_be_reported(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    async with client(hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        replies = waiting(nursery, hub)
        await registered(rig, 1)
        rig.answer_option(ref, 0)
        await until(lambda: replies)
        offer = replies[0].json()["offer"]
        other = await post(hub, PRINTED_PATH, {"offer": offer}, **{"X-Asks-Agent": "intruder"})
        assert other.status_code == 409 and receipts(rig) == []
        mine = await post(hub, PRINTED_PATH, {"offer": offer})
    assert mine.status_code == 200 and receipts(rig) == [[ref.id]]


async def test_a_body_that_is_not_a_post_tool_use_is_400(rig: Rig, hub: HubServer) -> None:
    refused = await post(hub, REWAKE_PATH, {"hook_event_name": "Stop"})
    assert refused.status_code == 400
    assert (await post(hub, PRINTED_PATH, {"nope": 1})).status_code == 400
    assert rig.lines_of("feedback_offered") == []


def type_answer(rig: Rig, ref: QuestionRef, text: str) -> None:
    rig.move_to(ref, 2)  # the "Type something." row
    port = rig.host.panel_port
    port.set_custom_text(text, tab=ref)
    port.command(PanelCommand.CONFIRM, ref)


# ---------------------------------------------------------------------------- the command
def hook_command(data_dir: Path, port: int) -> list[str]:
    words = ["hook", "rewake", "--data-dir", str(data_dir), "--mcp-port", str(port)]
    return [sys.executable, "-m", "asks", *words, "--agent", AGENT]


def port_of(hub: HubServer) -> int:
    assert hub.url is not None
    return int(hub.url.rsplit(":", 1)[1].removesuffix("/mcp"))


@pytest.fixture
async def agent_hub(rig: Rig, nursery: trio.Nursery) -> AsyncIterator[HubServer]:
    """A hub where agent ``planner`` has its own token (the command speaks with it)."""
    keyring = keyring_with(rig.directory, TOKEN)
    agent_token(rig.directory, AGENT)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0))
    await nursery.start(server.run)
    yield server


async def test_the_command_prints_the_answer_sanitized_and_exits_2_after_the_receipt(
    rig: Rig, agent_hub: HubServer, nursery: trio.Nursery
) -> None:
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def run() -> None:
        command = hook_command(rig.directory, port_of(agent_hub))
        stdin = json.dumps(hook_body()).encode()
        done.append(
            await trio.run_process(
                command, stdin=stdin, capture_stdout=True, capture_stderr=True, check=False
            )
        )

    async with client(agent_hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        nursery.start_soon(run)
        await registered(rig, 1)
        type_answer(rig, ref, "MySQL\x1b[31m red\x07 \u202eevil")
        await until(lambda: done)
    assert done[0].returncode == 2  # wakes the session
    printed = done[0].stderr.decode()
    assert "MySQL" in printed and "red" in printed and "evil" in printed
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in printed
    assert receipts(rig) == [[ref.id]]
    assert done[0].stdout == b""


async def test_a_command_whose_client_is_gone_cannot_print_and_receipts_nothing(
    rig: Rig, nursery: trio.Nursery
) -> None:
    """The hook outlived its Claude Code (killed): its stderr is a pipe nobody reads, the
    write fails, no report is made; the wake is released for the agent's next call."""
    keyring = keyring_with(rig.directory, TOKEN)
    agent_token(rig.directory, AGENT)
    hub = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), rewake_grace=0.2)
    await nursery.start(hub.run)
    reader, writer = os.pipe()
    os.close(reader)  # the client that read the hook's stderr is gone
    done: list[subprocess.CompletedProcess[bytes]] = []

    async def run() -> None:
        stdin = json.dumps(hook_body()).encode()
        command = hook_command(rig.directory, port_of(hub))
        done.append(await trio.run_process(command, stdin=stdin, stderr=writer, check=False))

    async with client(hub, AGENT) as agent:
        ref = await ask_async(agent, rig)
        nursery.start_soon(run)
        await registered(rig, 1)
        os.close(writer)
        rig.answer_option(ref, 1)
        await until(lambda: done and rig.lines_of("offer_released"))
        later = text_of(await agent.call_tool("check_answers", {}))
    assert done[0].returncode != 2  # no wake
    assert later.startswith("[asks feedback]") and '"SQLite"' in later  # a new answer
    assert receipts(rig) == [[ref.id]]  # the one delivery is the call's


def test_the_command_exits_0_without_a_wait_for_a_blocking_call_or_no_hub(
    tmp_path: Path,
) -> None:
    listener = bind_listener(port=0)
    port = listener.getsockname()[1]
    listener.close()  # nothing listens there now: connection refused
    keyring_with(tmp_path, TOKEN)
    agent_token(tmp_path, AGENT)
    for body in (hook_body(blocking=True), hook_body()):
        run = subprocess.run(
            hook_command(tmp_path, port),
            input=json.dumps(body).encode(),
            capture_output=True,
            check=False,
        )
        assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")  # no wake, silent


# ---------------------------------------------------------------------------- the set-up
def mcp_config(tmp_path: Path, *words: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "asks", "mcp", "config", "claude", "--agent", "builder"]
    return subprocess.run(
        [*argv, *words, "--mcp-port", "9", "--data-dir", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )


def test_claude_config_prints_the_rewake_hook_on_the_ask_tool(tmp_path: Path) -> None:
    done = mcp_config(tmp_path)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout[done.stdout.index("{\n") :])
    (entry,) = printed["hooks"]["PostToolUse"]
    assert entry["matcher"] == "mcp__asks__ask_user_question"
    (hook,) = entry["hooks"]
    assert hook["type"] == "command" and hook["asyncRewake"] is True
    assert hook["timeout"] == 7 * 24 * 3600
    assert "-m asks hook rewake --agent builder --data-dir" in hook["command"]
    assert hook["command"].endswith("--mcp-port 9")
    assert "PermissionRequest" in printed["hooks"]  # beside the permission hook
    shared = subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "config", "claude", "--data-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout
    assert "PostToolUse" not in shared  # the shared token cannot say which agent waits


def test_install_writes_the_rewake_hook_once_and_keeps_other_hooks(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    other = {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}
    settings.write_text(json.dumps({"hooks": {"PostToolUse": [other]}}))
    for _ in range(2):
        done = mcp_config(tmp_path, "--install", "--yes")
        assert done.returncode == 0, done.stderr
    hooks = json.loads(settings.read_text())["hooks"]
    assert hooks["PostToolUse"][0] == other and len(hooks["PostToolUse"]) == 2
    assert "hook rewake" in hooks["PostToolUse"][1]["hooks"][0]["command"]
    assert len(hooks["PermissionRequest"]) == 1
