"""The hub's MCP server over real HTTP on 127.0.0.1, driven by the official SDK's own client.

The server (:class:`asks.hub.server.HubServer`) runs in the test's trio nursery on hypercorn,
in front of a real host and journal; the person's answers go through the host as the panel's
keys do (``Rig.answer_option``). Raw ``httpx`` requests check what the guard refuses.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest
import trio
import trio.testing
from support.hub import DB, TOKEN, client, receipts, text_of
from support.rig import Rig

from asks.hub.listen import HubPortBusyError, bind_listener
from asks.hub.server import HubServer


async def test_the_three_tools_say_how_answers_arrive(hub: HubServer) -> None:
    async with client(hub) as session:
        listed = await session.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == {"ask_user_question", "withdraw_question", "check_answers"}
    assert "check_answers" in (tools["ask_user_question"].description or "")
    assert "questionId" in json.dumps(tools["ask_user_question"].input_schema)


async def test_async_ask_becomes_a_tab_and_its_answer_arrives_once(
    rig: Rig, hub: HubServer
) -> None:
    async with client(hub) as session:
        queued = await session.call_tool(
            "ask_user_question", {"questions": [DB], "blocking": False}
        )
        assert not queued.is_error
        [ref] = rig.host.panel_port.tabs
        question = rig.host.surface_port.question(ref)  # type: ignore[arg-type]
        assert (question.source, question.recipient) == ("planner", "mcp:planner")
        assert ref.id in text_of(queued)  # type: ignore[union-attr]
        assert "start the result of your next call to any asks tool" in text_of(queued)
        rig.answer_option(ref, 0)  # type: ignore[arg-type]

        first = text_of(await session.call_tool("check_answers", {}))
        second = text_of(await session.call_tool("check_answers", {}))

    assert first.startswith("[asks feedback]") and '"Postgres"' in first
    assert "Pending: none." in first
    assert second == "No new answers.\nPending: none."
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]


async def test_a_blocking_ask_sends_progress_and_its_answer_is_receipted(
    rig: Rig, hub: HubServer
) -> None:
    beats: list[float] = []

    async def progress(done: float, _total: float | None, _message: str | None) -> None:
        beats.append(done)

    results: list[Any] = []
    async with client(hub) as session, trio.open_nursery() as nursery:

        async def ask() -> None:
            results.append(
                await session.call_tool(
                    "ask_user_question", {"questions": [DB]}, progress_callback=progress
                )
            )

        nursery.start_soon(ask)
        while not beats or len(beats) < 2:  # progress while the person has not answered
            await trio.sleep(0.01)
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 1)  # type: ignore[arg-type]
    [result] = results
    assert not result.is_error
    assert 'User has answered your questions: "Which database?"="SQLite"' in text_of(result)
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]


async def test_a_cancelled_blocking_ask_stays_pending_and_is_answered_later(
    rig: Rig, hub: HubServer
) -> None:
    async with client(hub) as session:
        with trio.move_on_after(0.3):  # the client gives up waiting
            await session.call_tool("ask_user_question", {"questions": [DB]})
        while not rig.lines_of("tool_result"):  # the server saw the cancellation
            await trio.sleep(0.01)
        [result] = rig.lines_of("tool_result")
        assert result["outcome"] == "interrupted"
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 0)  # type: ignore[arg-type]
        later = text_of(await session.call_tool("check_answers", {}))
    assert '"Postgres"' in later
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]


async def test_two_agents_asking_the_same_question_never_get_each_others_answers(
    rig: Rig, hub: HubServer
) -> None:
    async with client(hub, "planner") as planner, client(hub, "reviewer") as reviewer:
        await planner.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        await reviewer.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        by_source = {rig.host.surface_port.question(t).source: t for t in rig.host.panel_port.tabs}  # type: ignore[arg-type]
        rig.answer_option(by_source["planner"], 0)  # type: ignore[arg-type]
        rig.answer_option(by_source["reviewer"], 1)  # type: ignore[arg-type]
        got_planner = text_of(await planner.call_tool("check_answers", {}))
        got_reviewer = text_of(await reviewer.call_tool("check_answers", {}))
    assert '"Postgres"' in got_planner and "SQLite" not in got_planner
    assert '"SQLite"' in got_reviewer and "Postgres" not in got_reviewer


async def test_the_handshake_name_labels_an_agent_without_a_header(
    rig: Rig, hub: HubServer
) -> None:
    for mode in ("legacy", "auto"):  # initialize (Codex) and 2026-07-28 (Claude Code)
        async with client(hub, None, mode=mode) as session:
            await session.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
    sources = {rig.host.surface_port.question(t).source for t in rig.host.panel_port.tabs}  # type: ignore[arg-type]
    assert sources == {"mcp"}  # the SDK client's clientInfo name


async def test_bad_calls_get_coded_errors_and_lose_nothing(rig: Rig, hub: HubServer) -> None:
    async with client(hub) as session:
        await session.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 0)  # type: ignore[arg-type]
        invalid = await session.call_tool("ask_user_question", {"questions": []})
        unknown = await session.call_tool("withdraw_question", {"questionIds": ["q-nope"]})
        after = text_of(await session.call_tool("check_answers", {}))
    assert invalid.is_error and "Error [no_questions]" in text_of(invalid)
    assert unknown.is_error and 'Nothing was withdrawn. Not withdrawn: "q-nope"' in text_of(unknown)
    # the answer rode the first refused call's result: every result begins with feedback
    assert '"Postgres"' in text_of(invalid) and after.startswith("No new answers.")


async def test_withdraw_through_the_hub_reports_each_id(rig: Rig, hub: HubServer) -> None:
    """An answered id with a pending one: the pending one is withdrawn and leaves the panel,
    the result says per id what happened."""
    async with client(hub) as session:
        await session.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        [answered] = rig.host.panel_port.tabs
        port = {**DB, "question": "Which port?", "header": "Port"}
        await session.call_tool("ask_user_question", {"questions": [port], "blocking": False})
        [pending] = [t for t in rig.host.panel_port.tabs if t != answered]
        rig.answer_option(answered, 0)  # type: ignore[arg-type]
        ids = [answered.id, pending.id]  # type: ignore[union-attr]
        result = await session.call_tool("withdraw_question", {"questionIds": ids})
    text = text_of(result)
    assert not result.is_error
    assert f'Withdrawn: "Which port?" (id {pending.id})' in text  # type: ignore[union-attr]
    assert f'Not withdrawn: "{answered.id}" — the user already answered' in text  # type: ignore[union-attr]
    assert rig.host.panel_port.tabs == ()
    assert '"Postgres"' in text  # the answered one arrives, at the head of this result


@pytest.mark.parametrize(
    ("headers", "url_tail", "status"),
    [
        ({}, "", 401),
        ({"Authorization": "Bearer wrong"}, "", 401),
        ({"Authorization": f"Bearer {TOKEN}"}, f"?token={TOKEN}", 400),
        ({"Authorization": f"Bearer {TOKEN}", "Host": "evil.example:80"}, "", 421),
        ({"Authorization": f"Bearer {TOKEN}", "Origin": "http://evil.example"}, "", 403),
    ],
)
async def test_the_guard_refuses_without_revealing_anything(
    hub: HubServer, headers: dict[str, str], url_tail: str, status: int
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    assert hub.url is not None
    async with httpx.AsyncClient() as http:
        response = await http.post(
            hub.url + url_tail,
            json=body,
            headers={"Accept": "application/json, text/event-stream", **headers},
        )
    assert response.status_code == status
    assert "ask_user_question" not in response.text and "q-" not in response.text


async def test_a_busy_port_is_one_sentence_naming_the_setting(hub: HubServer) -> None:
    assert hub.url is not None
    taken = int(hub.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(HubPortBusyError) as raised:
        bind_listener(port=taken)
    assert str(raised.value) == (
        f"Port {taken} is in use: set another with --mcp-port or [mcp] port."
    )


async def test_a_call_id_reused_by_a_second_run_names_the_agent_and_the_earlier_call(
    rig: Rig, hub: HubServer
) -> None:
    """A client numbering its tool calls per process sends callId "1" again after a restart:
    the refusal said "in this conversation" and nothing about which call held the id."""
    cache = {**DB, "question": "Which cache?", "header": "Cache"}
    async with client(hub) as first_run:
        queued = await first_run.call_tool(
            "ask_user_question", {"questions": [DB], "blocking": False}, meta={"callId": "1"}
        )
    assert not queued.is_error
    [ref] = rig.host.panel_port.tabs
    async with client(hub) as second_run:
        refused = await second_run.call_tool(
            "ask_user_question", {"questions": [cache], "blocking": False}, meta={"callId": "1"}
        )
    said = text_of(refused)
    assert refused.is_error and said.startswith("Error [call_conflict]: ")
    assert 'The tool-call id "1" was already used by agent "planner"' in said
    assert f'"Which database?" ({ref.id}, still pending)' in said  # type: ignore[union-attr]
    [asked] = rig.lines_of("group_asked")
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(asked["ts"]))
    assert f"made at {when}" in said
    assert "conversation" not in said and "mcp:planner" not in said
    assert rig.host.panel_port.tabs == (ref,)  # nothing asked


async def test_a_tool_call_does_not_list_the_tools_to_check_its_headers(
    rig: Rig, nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK checks a call's ``Mcp-Param-*`` headers against the tool's input schema; the
    hub gives the schemas by name, so no call runs the ``tools/list`` handler for it."""
    from support.hub import keyring_with  # noqa: PLC0415

    from asks.hub.tools import HubTools  # noqa: PLC0415

    listed: list[object] = []
    plain = HubTools.list_tools

    async def counting(self: HubTools, ctx: Any, params: Any) -> Any:
        listed.append(params)
        return await plain(self, ctx, params)

    monkeypatch.setattr(HubTools, "list_tools", counting)
    keyring = keyring_with(rig.directory, TOKEN)
    # the SDK's path (the lean path, which answers these calls otherwise, checks no schema)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), lean=False)
    await nursery.start(server.run)
    async with client(server) as session:
        await session.list_tools()  # the client's own listing (it checks results against it)
        assert len(listed) == 1
        reply = await session.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        assert not reply.is_error
        await session.call_tool("check_answers", {})
    assert len(listed) == 1  # the SDK alone lists the tools again for every call
