"""MCP Tasks at the protocol level: a real hub on 127.0.0.1, raw JSON-RPC as Claude Code speaks it.

Claude Code 2.1.332 (protocol 2026-07-28) declares ``io.modelcontextprotocol/tasks`` in each
request's ``_meta`` client capabilities; the hub then declares it in ``server/discover`` and
answers a blocking ``ask_user_question`` as a task, polled with ``tasks/get`` until the person
answered (docs/late-answers.md). The person answers through the host as the panel's keys do.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import attrs
import httpx
import pytest
import trio
from support.hub import DB, TOKEN, keyring_with
from support.rig import Rig

from asks.core.model import QuestionRef
from asks.host.tasks import TaskId
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer
from asks.hub.tasks import TASKS, UNKNOWN_TASK

MODERN = "2026-07-28"
HANG = 60  # seconds: reached only if something hangs (not a time bound)


def meta(tasks: bool = True) -> dict[str, Any]:
    extensions: dict[str, Any] = {TASKS: {}} if tasks else {}
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "extensions": extensions},
    }


@attrs.define
class Claude:
    """One agent speaking the 2026-07-28 wire, declaring tasks (or not)."""

    url: str
    http: httpx.AsyncClient
    agent: str = "builder"
    tasks: bool = True
    serial: int = 0

    async def rpc(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """The JSON-RPC response (``result`` or ``error``) to one request."""
        self.serial += 1
        body = {
            "jsonrpc": "2.0",
            "id": self.serial,
            "method": method,
            "params": {**(params or {}), "_meta": meta(self.tasks)},
        }
        headers = {
            "Authorization": f"Bearer {TOKEN}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method,
            "X-Asks-Agent": self.agent,
        }
        if isinstance((params or {}).get("name"), str):
            headers["Mcp-Name"] = str((params or {})["name"])
        response = await self.http.post(self.url, json=body, headers=headers)
        return response_message(response.text, self.serial)

    async def ask(self, *, blocking: bool = True) -> dict[str, Any]:
        arguments = {"questions": [DB], "blocking": blocking}
        return await self.rpc("tools/call", {"name": "ask_user_question", "arguments": arguments})

    async def get(self, task_id: str) -> dict[str, Any]:
        return await self.rpc("tasks/get", {"taskId": task_id})


def response_message(text: str, rid: int) -> dict[str, Any]:
    """The JSON-RPC response with id ``rid`` in a JSON or server-sent-events body."""
    chunks = [text] if text.lstrip().startswith("{") else []
    chunks += [line[5:] for line in text.splitlines() if line.startswith("data:")]
    for chunk in chunks:
        message = json.loads(chunk)
        if message.get("id") == rid and ("result" in message or "error" in message):
            return dict(message)
    raise AssertionError(f"no response {rid} in {text!r}")


def text_of(result: dict[str, Any]) -> str:
    return "".join(part["text"] for part in result["content"])


def offers(rig: Rig, kind: str) -> list[list[str]]:
    return [[r["id"] for r in line["refs"]] for line in rig.lines_of(kind)]


async def receipted(rig: Rig, count: int = 1) -> list[list[str]]:
    """The receipts, once there are ``count`` (the server writes one after its send returned,
    which can be just after the client read the response)."""
    with trio.fail_after(HANG):
        while len(offers(rig, "offer_delivered")) < count:
            await trio.sleep(0.01)
    return offers(rig, "offer_delivered")


@attrs.define
class Hubs:
    """In-process hubs on the rig's host, each on a free loopback port, stoppable."""

    rig: Rig
    nursery: trio.Nursery
    ttl_ms: int = 7 * 24 * 3600 * 1000
    silence_ms: int = 30_000
    scopes: list[trio.CancelScope] = attrs.Factory(list)

    async def start(self) -> HubServer:
        server = HubServer(
            self.rig.host.hub_port,
            keyring_with(self.rig.directory, TOKEN),
            bind_listener(port=0),
            progress_every=0.05,
            task_ttl_ms=self.ttl_ms,
            task_silence_ms=self.silence_ms,
        )
        scope = trio.CancelScope()
        self.scopes.append(scope)

        async def run(task_status: trio.TaskStatus[None]) -> None:
            with scope:
                await server.run(task_status=task_status)  # type: ignore[arg-type]

        await self.nursery.start(run)
        return server

    def stop(self) -> None:
        self.scopes[-1].cancel()


@pytest.fixture
async def hubs(rig: Rig, nursery: trio.Nursery) -> AsyncIterator[Hubs]:
    made = Hubs(rig, nursery)
    yield made
    for scope in made.scopes:
        scope.cancel()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=30) as client:
        yield client


async def claude(hubs: Hubs, http: httpx.AsyncClient, **kwargs: Any) -> Claude:
    server = await hubs.start()
    assert server.url is not None
    return Claude(server.url, http, **kwargs)


async def started_task(agent: Claude) -> str:
    answer = (await agent.ask())["result"]
    assert answer["resultType"] == "task", answer
    assert answer["status"] == "working"
    assert answer["ttlMs"] > 0 and answer["pollIntervalMs"] > 0
    return str(answer["taskId"])


def only_tab(rig: Rig) -> QuestionRef:
    [ref] = rig.host.panel_port.tabs
    assert isinstance(ref, QuestionRef)
    return ref


# ---------------------------------------------------------------------------- declared
async def test_discover_declares_tasks_only_to_a_client_that_declares_them(
    hubs: Hubs, http: httpx.AsyncClient
) -> None:
    agent = await claude(hubs, http)
    declared = (await agent.rpc("server/discover"))["result"]["capabilities"]
    agent.tasks = False
    plain = (await agent.rpc("server/discover"))["result"]["capabilities"]
    assert TASKS in declared["extensions"]
    assert TASKS not in (plain.get("extensions") or {})


async def test_without_the_extension_a_blocking_ask_is_an_ordinary_blocking_call(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient, nursery: trio.Nursery
) -> None:
    agent = await claude(hubs, http, tasks=False)
    results: list[dict[str, Any]] = []

    async def ask() -> None:
        results.append(await agent.ask())

    nursery.start_soon(ask)
    with trio.fail_after(HANG):
        while not rig.host.panel_port.tabs:
            await trio.sleep(0.01)
    rig.answer_option(only_tab(rig), 0)
    with trio.fail_after(HANG):
        while not results:
            await trio.sleep(0.01)
    assert '"Postgres"' in text_of(results[0]["result"])
    assert "resultType" not in results[0]["result"] or results[0]["result"]["resultType"] != "task"


# ---------------------------------------------------------------------------- the task's life
async def test_a_task_is_working_until_the_person_answers_then_completed_and_receipted(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    ref = only_tab(rig)
    assert rig.host.surface_port.question(ref).source == "builder"
    assert rig.host.panel_port.focus.claim is not None  # a blocker: the tab is required

    working = (await agent.get(task_id))["result"]
    assert working["status"] == "working" and working["taskId"] == task_id
    assert offers(rig, "feedback_offered") == []

    rig.answer_option(ref, 0)
    done = (await agent.get(task_id))["result"]

    assert done["status"] == "completed" and done["resultType"] == "complete"
    assert '"Postgres"' in text_of(done["result"]) and ref.id in text_of(done["result"])
    assert await receipted(rig) == [[ref.id]]  # the receipt: that response was sent


async def test_a_poll_after_completion_is_a_marked_repeat_never_a_second_answer(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    rig.answer_option(only_tab(rig), 1)
    first = text_of((await agent.get(task_id))["result"]["result"])
    await receipted(rig)
    again = (await agent.get(task_id))["result"]

    assert again["status"] == "completed"
    assert "Already sent to you at " in text_of(again["result"])
    assert "not a new answer" in text_of(again["result"])
    assert "Already sent" not in first
    assert len(offers(rig, "offer_delivered")) == 1  # one receipt, one delivery


async def test_an_answer_the_next_asks_call_took_first_is_a_repeat_in_the_task(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    ref = only_tab(rig)
    rig.answer_option(ref, 0)
    checked = await agent.rpc("tools/call", {"name": "check_answers", "arguments": {}})
    done = (await agent.get(task_id))["result"]

    assert '"Postgres"' in text_of(checked["result"])
    assert done["status"] == "completed"
    assert "Already sent to you" in text_of(done["result"])
    assert await receipted(rig) == [[ref.id]]


async def test_unknown_and_another_agents_task_ids_are_refused_alike(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    builder = await claude(hubs, http)
    task_id = await started_task(builder)
    other = Claude(builder.url, http, agent="reviewer")
    rig.answer_option(only_tab(rig), 0)

    for asked in (task_id, "t1.1.1.nothing", "task-1", ""):
        error = (await other.get(asked))["error"]
        assert error["code"] == -32602 and error["message"] == UNKNOWN_TASK
    assert offers(rig, "feedback_offered") == []  # the other agent got nothing
    done = (await builder.get(task_id))["result"]
    assert done["status"] == "completed" and '"Postgres"' in text_of(done["result"])


async def test_a_task_survives_a_hub_restart(rig: Rig, hubs: Hubs, http: httpx.AsyncClient) -> None:
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    hubs.stop()
    rig.crash_and_reopen()  # the hub's process ends and resumes: the call was interrupted
    restarted = await hubs.start()
    assert restarted.url is not None
    agent.url = restarted.url

    assert (await agent.get(task_id))["result"]["status"] == "working"
    rig.answer_option(only_tab(rig), 0)
    done = (await agent.get(task_id))["result"]
    assert done["status"] == "completed" and '"Postgres"' in text_of(done["result"])
    assert len(await receipted(rig)) == 1


async def test_an_expired_task_is_unknown_and_its_wait_ended_interrupted(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    hubs.ttl_ms = 1
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    expires = TaskId.parse(task_id)
    assert expires is not None
    with trio.fail_after(HANG):  # the sweeper ends the live wait once the ttl passed
        while rig.host.panel_port.focus.claim is not None:
            await trio.sleep(0.01)
    error = (await agent.get(task_id))["error"]
    assert error["message"] == UNKNOWN_TASK
    [result] = rig.tool_results(f"mcp:builder:{expires.call_id}")
    assert result["outcome"] == "interrupted"
    assert only_tab(rig)  # the question stays pending: its answer comes at the next call


async def test_cancelling_a_task_ends_its_wait_and_the_answer_waits_for_the_next_call(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    cancelled = (await agent.rpc("tasks/cancel", {"taskId": task_id}))["result"]
    assert cancelled["status"] == "cancelled"
    assert rig.host.panel_port.focus.claim is None
    rig.answer_option(only_tab(rig), 0)
    assert (await agent.get(task_id))["result"]["status"] == "cancelled"
    checked = await agent.rpc("tools/call", {"name": "check_answers", "arguments": {}})
    assert '"Postgres"' in text_of(checked["result"])
    assert len(await receipted(rig)) == 1


async def test_a_task_nobody_polls_is_a_gone_client_its_answer_waits_for_the_next_call(
    rig: Rig, hubs: Hubs, http: httpx.AsyncClient
) -> None:
    hubs.silence_ms = 1  # the client quit at once: it never polls
    agent = await claude(hubs, http)
    task_id = await started_task(agent)
    with trio.fail_after(HANG):  # the sweeper ends the wait: the blocker no longer claims
        while rig.host.panel_port.focus.claim is not None:
            await trio.sleep(0.01)
    task = TaskId.parse(task_id)
    assert task is not None
    [result] = rig.tool_results(f"mcp:builder:{task.call_id}")
    assert result["outcome"] == "interrupted"
    rig.answer_option(only_tab(rig), 0)  # the question stayed pending
    checked = await agent.rpc("tools/call", {"name": "check_answers", "arguments": {}})
    assert '"Postgres"' in text_of(checked["result"])
    assert len(await receipted(rig)) == 1
