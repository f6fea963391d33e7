"""The hub under bad input, over real HTTP on 127.0.0.1.

The server (:class:`asks.hub.server.HubServer`) runs in the test's nursery in front of a real
host and journal, as in tests/test_hub_server.py. Raw requests (``httpx``, or a bare TCP
stream where a client must vanish mid-call) check both protocol generations the SDK serves:
2026-07-28 without sessions (Claude Code) and ``initialize`` with ``Mcp-Session-Id`` (Codex).
Each bad input gets a clear error and loses nothing: the journal is unchanged by a refusal,
and what was asked or answered before is still delivered, once.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

import attrs
import httpx
import pytest
import trio
from support.hub import DB, TOKEN, client, receipts, text_of
from support.rig import Rig

from asks.hub.calls import call_id_of
from asks.hub.identity import client_label
from asks.hub.server import MAX_BODY, HubServer

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
HANG = 60  # seconds: only ever reached if something hangs
BASE = {
    "Authorization": f"Bearer {TOKEN}",
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}


@attrs.define
class Wire:
    """Raw JSON-RPC over HTTP in one protocol generation, as one agent."""

    url: str
    era: str
    http: httpx.AsyncClient
    agent: str = "raw"
    session: str | None = None

    def headers(self, body: bytes) -> dict[str, str]:
        headers = {**BASE, "X-Asks-Agent": self.agent, "MCP-Protocol-Version": self.era}
        if self.session is not None:
            headers["Mcp-Session-Id"] = self.session
        if self.era == MODERN:  # the 2026-07-28 routing headers, when the body names them
            try:
                message = json.loads(body)
            except ValueError:
                return headers
            if isinstance(message, dict) and isinstance(message.get("method"), str):
                headers["Mcp-Method"] = message["method"]
                name = (message.get("params") or {}).get("name")
                if isinstance(name, str):
                    headers["Mcp-Name"] = name
        return headers

    def request(self, method: str, params: dict[str, Any] | None = None, rid: int = 1) -> bytes:
        full = dict(params or {})
        if self.era == MODERN:
            full["_meta"] = META
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": full}).encode()

    async def post(self, body: bytes) -> httpx.Response:
        return await self.http.post(self.url, content=body, headers=self.headers(body))

    async def start(self) -> Wire:
        if self.era == LEGACY:  # the handshake Codex makes
            init = {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": LEGACY,
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
            headers = {**BASE, "X-Asks-Agent": self.agent}
            answer = await self.http.post(self.url, json=init, headers=headers)
            self.session = answer.headers["mcp-session-id"]
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await self.http.post(
                self.url, content=json.dumps(done).encode(), headers=self.headers(b"")
            )
        return self


@pytest.fixture(params=[MODERN, LEGACY], ids=["2026-07-28", "initialize"])
async def wire(request: pytest.FixtureRequest, hub: HubServer) -> AsyncIterator[Wire]:
    assert hub.url is not None
    async with httpx.AsyncClient(timeout=30) as http:
        yield await Wire(hub.url, request.param, http).start()


def error_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC error of a JSON or server-sent-events response."""
    text = response.text
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    error: dict[str, Any] = json.loads(text)["error"]
    return error


def readable_id(body: bytes) -> int | str | None:
    """The request's id if it can be read from ``body`` (JSON-RPC: else ``null``)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, int | str) and not isinstance(found, bool) else None


async def until(condition: Callable[[], object]) -> None:
    """Until ``condition()`` holds (:data:`HANG` guards against hanging; not a time bound)."""
    with trio.fail_after(HANG):
        while not condition():
            await trio.sleep(0.01)


async def receipted(rig: Rig, count: int) -> None:
    """Until ``count`` receipts are on disk: a receipt follows the send of its response, so
    the client may read the response first."""
    await until(lambda: len(receipts(rig)) >= count)


def ids_in(text: str) -> list[str]:
    return re.findall(r"q-[0-9a-f]{10}", text)


# ---------------------------------------------------------------------------- bodies
MALFORMED = [
    (b"not json", 400, -32700, "Parse error: the body is not valid JSON."),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/li', 400, -32700, "Parse error"),
    (b"\xff\xfe{}", 400, -32700, "Parse error"),
    (b"[]", 400, -32600, "not a batch"),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]', 400, -32600, "not a batch"),
    (b"42", 400, -32600, "one JSON-RPC 2.0 object"),
    (b"null", 400, -32600, "one JSON-RPC 2.0 object"),
    (b'{"jsonrpc": "1.0", "id": 1, "method": "tools/list"}', 400, -32600, '"jsonrpc" must be'),
    (b'{"jsonrpc": "2.0"}', 400, -32600, 'needs "method"'),
    (b'{"jsonrpc": "2.0", "id": 1, "method": 7}', 400, -32600, '"method" must be a string'),
    (b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"}', 400, -32600, '"id" must be'),
    (b'{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', 400, -32600, '"id" must be'),
    (
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": []}',
        400,
        -32602,
        'tools/call needs "params"',
    ),
    (
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": 5}}',
        400,
        -32602,
        '"name" must be',
    ),
    (
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call",'
        b' "params": {"name": "ask_user_question", "arguments": "questions"}}',
        400,
        -32602,
        '"arguments" must be an object, not a string',
    ),
]


@pytest.mark.parametrize("case", MALFORMED, ids=[repr(c[0][:40]) for c in MALFORMED])
async def test_a_malformed_body_gets_a_json_rpc_error_and_changes_nothing(
    rig: Rig, wire: Wire, case: tuple[bytes, int, int, str]
) -> None:
    body, status, code, says = case
    before = rig.path.read_bytes()
    response = await wire.post(body)
    assert response.status_code == status
    error = error_of(response)
    assert error["code"] == code and says in error["message"]
    assert "pydantic" not in response.text and "validation error" not in response.text.lower()
    assert json.loads(response.text)["id"] == readable_id(body)
    assert rig.path.read_bytes() == before
    # the agent's session still works after the refusal
    ok = await wire.post(wire.request("tools/call", {"name": "check_answers", "arguments": {}}))
    assert ok.status_code == 200 and "Pending: none." in ok.text


async def test_an_unknown_method_is_method_not_found(wire: Wire) -> None:
    response = await wire.post(wire.request("asks/exfiltrate"))
    assert error_of(response)["code"] == -32601


async def test_an_oversized_body_is_refused_before_parsing(rig: Rig, wire: Wire) -> None:
    padding = "x" * MAX_BODY
    call = {
        "name": "ask_user_question",
        "arguments": {"questions": [{**DB, "context": padding}], "blocking": False},
    }
    body = wire.request("tools/call", call)
    assert len(body) > MAX_BODY
    before = rig.path.read_bytes()
    sized = await wire.post(body)

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the bound still holds
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    streamed = await wire.http.post(wire.url, content=chunks(), headers=wire.headers(body))
    for response in (sized, streamed):
        assert response.status_code == 413
        assert error_of(response) == {
            "code": -32600,
            "message": "Request body too large: at most 1 MiB per request.",
        }
    assert rig.path.read_bytes() == before and not rig.host.panel_port.tabs
    # just under the bound is read and answered (here: the contract's own coded error)
    call["arguments"]["questions"][0]["context"] = "x" * (MAX_BODY - 2048)
    under = await wire.post(wire.request("tools/call", call))
    assert under.status_code == 200 and "Error [" in under.text


# ---------------------------------------------------------------------------- tools, arguments
async def test_unknown_tools_and_invalid_arguments_get_coded_errors(
    rig: Rig, hub: HubServer
) -> None:
    async with client(hub) as session:
        await session.call_tool("ask_user_question", {"questions": [DB], "blocking": False})
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 1)  # type: ignore[arg-type]
        unknown = await session.call_tool("delete_everything\x1b]0;pwned\x07" + "z" * 500, {})
        calls = {
            "extra_key": ("ask_user_question", {"questions": [DB], "bogus": 1}),
            "not_bool": ("ask_user_question", {"questions": [DB], "blocking": "no"}),
            "bad_questions": ("ask_user_question", {"questions": "Which database?"}),
            "empty_options": ("ask_user_question", {"questions": [{**DB, "options": []}]}),
            "not_own": ("ask_user_question", {"questions": [{"questionId": "q-0000000000"}]}),
            "withdraw_none": ("withdraw_question", {"questionIds": []}),
            "check_args": ("check_answers", {"since": "yesterday"}),
        }
        results = {key: await session.call_tool(name, args) for key, (name, args) in calls.items()}
        after = text_of(await session.call_tool("check_answers", {}))
    first = text_of(unknown)
    assert (
        unknown.is_error
        and "Error [unknown_tool]: there is no tool named 'delete_everything" in first
    )
    assert "\x1b" not in first and len(first) < 1000  # sanitised and bounded: it is their text
    assert '"SQLite"' in first  # the feedback rides the first result, refused or not
    codes = {
        key: re.search(r"Error \[(\w+)\]", text_of(r)).group(1)  # type: ignore[union-attr]
        for key, r in results.items()
    }
    assert all(r.is_error for r in results.values())
    assert codes == {
        "extra_key": "invalid_arguments",
        "not_bool": "invalid_arguments",
        "bad_questions": "invalid_arguments",
        "empty_options": "empty_options",
        "not_own": "unknown_question",
        "withdraw_none": "invalid_arguments",
        "check_args": "invalid_arguments",
    }
    assert '"since"' in text_of(results["check_args"])
    assert after == "No new answers.\nPending: none."
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]
    assert len(rig.lines_of("group_asked")) == 1  # no refused call asked anything


# ---------------------------------------------------------------------------- many at once
CONNECTIONS = 100
AGENTS = 5


async def test_a_hundred_connections_at_once_are_all_answered_and_nothing_is_lost(
    rig: Rig, hub: HubServer
) -> None:
    """100 blocking calls from 5 agents, each on its own connection, all open at once; the
    person answers each; every response carries its own answer, each receipted once."""
    assert hub.url is not None
    responses: dict[int, httpx.Response] = {}
    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        wires = [Wire(hub.url, MODERN, http, agent=f"agent{n}") for n in range(AGENTS)]

        async def ask(n: int) -> None:
            wire = wires[n % AGENTS]
            question = {**DB, "question": f"Question {n}?"}
            body = wire.request(
                "tools/call",
                {"name": "ask_user_question", "arguments": {"questions": [question]}},
                n,
            )
            responses[n] = await wire.post(body)

        async with trio.open_nursery() as nursery:
            for n in range(CONNECTIONS):
                nursery.start_soon(ask, n)
            await until(
                lambda: len(rig.host.panel_port.tabs) == CONNECTIONS
            )  # all reached the panel
            assert len(rig.host.surface_port.live_waits) == CONNECTIONS  # all waiting at once
            for ref in list(rig.host.panel_port.tabs):
                rig.answer_option(
                    ref, int(rig.host.surface_port.question(ref).spec.question.split()[1][:-1]) % 2
                )
    assert sorted(responses) == list(range(CONNECTIONS))
    for n, response in responses.items():
        assert response.status_code == 200, response.text
        text = json.loads(response.text)["result"]["content"][0]["text"]
        assert f'"Question {n}?"="{("Postgres", "SQLite")[n % 2]}"' in text
    await receipted(rig, CONNECTIONS)
    assert sorted(len(refs) for refs in receipts(rig)) == [1] * CONNECTIONS
    assert len({refs[0] for refs in receipts(rig)}) == CONNECTIONS
    sources = [
        rig.host.surface_port.question(ref).source
        for ref in rig.host.surface_port.projection.by_ref
    ]
    assert sorted(set(sources)) == [f"agent{n}" for n in range(AGENTS)]


# ---------------------------------------------------------------------------- going away
def raw_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[str, int, bytes]:
    """Host, port and the bytes of one HTTP/1.1 POST of ``body`` to ``url``."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    lines = [
        f"POST {parts.path} HTTP/1.1",
        f"Host: {parts.netloc}",
        f"Content-Length: {len(body)}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return parts.hostname, parts.port, ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def test_a_client_gone_mid_call_ends_the_wait_interrupted_and_loses_nothing(
    rig: Rig, hub: HubServer, wire: Wire
) -> None:
    """The TCP connection of a blocking call closes under it (the client was killed): the
    wait ends ``interrupted`` — never declined —, the question stays pending and stops
    claiming the panel, and its answer reaches the agent at its next call, once."""
    body = wire.request(
        "tools/call", {"name": "ask_user_question", "arguments": {"questions": [DB]}}, 7
    )
    host, port, request = raw_post(wire.url, body, wire.headers(body))
    stream = await trio.open_tcp_stream(host, port)
    await stream.send_all(request)
    await until(lambda: rig.host.surface_port.live_waits)
    [ref] = rig.host.panel_port.tabs
    await stream.aclose()  # gone, without a word
    await until(lambda: not rig.host.surface_port.live_waits)
    [result] = rig.lines_of("tool_result")
    assert result["outcome"] == "interrupted"
    assert rig.host.panel_port.tabs == (ref,) and not rig.host.panel_port.is_required(ref)
    assert not rig.lines_of("feedback_offered")  # nothing offered to a client that left
    rig.answer_option(ref, 0)  # type: ignore[arg-type]
    later = await wire.post(
        wire.request("tools/call", {"name": "check_answers", "arguments": {}}, 8)
    )
    again = await wire.post(
        wire.request("tools/call", {"name": "check_answers", "arguments": {}}, 9)
    )
    assert f'Question {ref.id} \\"Which database?\\": answer \\"Postgres\\"' in later.text  # type: ignore[union-attr]
    assert "No new answers." in again.text
    await receipted(rig, 1)
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_blocking_call_the_client_cancels_is_answered_at_its_next_call(
    rig: Rig, hub: HubServer, mode: str
) -> None:
    async with client(hub, mode=mode) as session:
        with trio.move_on_after(0.3):  # the client's own timeout: it cancels the request
            await session.call_tool("ask_user_question", {"questions": [DB]})
        await until(lambda: not rig.host.surface_port.live_waits)
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 1)  # type: ignore[arg-type]
        later = text_of(await session.call_tool("check_answers", {}))
    assert [r["outcome"] for r in rig.lines_of("tool_result")] == ["interrupted"]
    assert '"SQLite"' in later and ids_in(later) == [ref.id]  # type: ignore[union-attr]
    await receipted(rig, 1)
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]


# ---------------------------------------------------------------------------- hostile names
def test_an_agents_name_and_call_id_are_its_text_made_inert() -> None:
    """What a client calls itself (a header, its handshake) and the id it gives a call reach
    tabs, the journal and hook payloads: terminal sequences go whole, text and all (the
    screens: tests/test_hub_e2e_surfaces.py)."""
    assert re.fullmatch(
        r"evilagent-[0-9a-f]{8}", client_label("evil\x1b]0;pwned\x07\u202eagent\x9b") or ""
    )
    assert re.fullmatch(r"client-[0-9a-f]{8}", client_label("\x1b[2J\x1b[31m") or "")
    assert re.fullmatch(r"code-review-2-[0-9a-f]{8}", client_label("code review (2)") or "")
    assert client_label("code review (2)") != client_label("code-review (2)")
    assert client_label("codex-mcp-client") == "codex-mcp-client"
    assert call_id_of({"claudecode/toolUseId": "toolu_01\x1b]0;x\x07\u202e"}) == "toolu_01-0-x-"
    assert len(call_id_of({"callId": "a" * 1000})) == 120
    assert call_id_of({"callId": "\x00"}) == "-"
    assert call_id_of(None).startswith("r-")


async def test_a_client_retrying_a_refused_request_on_one_connection_is_refused_each_time(
    hub: HubServer,
) -> None:
    """A refusal sent before the body was read closes the connection and says so: a client
    that keeps its connection alive (httpx, Node's fetch) opens a new one for its retry
    instead of writing into one the server has dropped ("server disconnected")."""
    assert hub.url is not None
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "x" * 300_000})
    stale = {**BASE, "Authorization": "Bearer stale"}
    async with httpx.AsyncClient(timeout=HANG) as http:
        for _ in range(20):
            response = await http.post(hub.url, content=body.encode(), headers=stale)
            assert response.status_code == 401
            assert response.headers["connection"] == "close"
