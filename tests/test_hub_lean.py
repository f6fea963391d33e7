"""The lean path answers as the SDK would (asks/hub/lean.py; docs/fleet-scale.md, "The lean
path for the hot calls").

Two hubs on two sessions live the same random history over real HTTP on loopback: one with
the lean path (the guard answers the hot 2026-07-28 calls itself), one without (the SDK
answers everything). Every response — status, content type, body bytes — must be equal, and
so must the two journals at the end (L1). The history mixes the calls the lean path takes
with variants it must leave to the SDK (a header missing, twice or different, another
protocol version, a progress token, an extra parameter, an ``Origin``…), each sent to both:
a variant the lean path took wrongly would answer differently from the SDK (L2). Between
calls the person answers a question from the keys on both hosts, so answers are offered and
receipted through both paths (L3). Apart: a hub whose agents only list and ask async never
builds the SDK's app (L4); an async retry of a waiting call's id is answered at once, never
a wait (L5).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.hub import TOKEN, keyring_with, raw_request
from support.rig import Rig, q

from asks.hub import lean
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientInfo": {"name": "lean-test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
AGENTS = ("alpha", "beta")
CALL_IDS = ("c0", "c1", "c2")
Headers = list[tuple[str, str]]


@attrs.frozen
class Rpc:
    """One request: the agent, the method, its params (without ``_meta``), the call id."""

    agent: str
    method: str
    params: dict[str, Any]
    call_id: str | None = None

    def wire(self, ident: int) -> tuple[Headers, dict[str, Any]]:
        headers = [
            ("Accept", "application/json, text/event-stream"),
            ("Content-Type", "application/json"),
            ("MCP-Protocol-Version", V),
            ("Mcp-Method", self.method),
            ("X-Asks-Agent", self.agent),
        ]
        if "name" in self.params:
            headers.append(("Mcp-Name", str(self.params["name"])))
        meta = dict(META) if self.call_id is None else {**META, "callId": self.call_id}
        params = {**self.params, "_meta": meta}
        return headers, {"jsonrpc": "2.0", "id": ident, "method": self.method, "params": params}


@attrs.frozen
class Variant:
    """A request changed one way (:data:`VARIANTS`), sent to both hubs."""

    rpc: Rpc
    change: str


@attrs.frozen
class Answer:
    """The person answers the first pending question from the keys, on both hosts."""


def _drop(name: str) -> Callable[[Headers, dict[str, Any]], None]:
    def change(headers: Headers, _body: dict[str, Any]) -> None:
        headers[:] = [(k, v) for k, v in headers if k.lower() != name]

    return change


def _set(name: str, value: str) -> Callable[[Headers, dict[str, Any]], None]:
    def change(headers: Headers, _body: dict[str, Any]) -> None:
        _drop(name)(headers, _body)
        headers.append((name, value))

    return change


def _twice(name: str) -> Callable[[Headers, dict[str, Any]], None]:
    def change(headers: Headers, _body: dict[str, Any]) -> None:
        headers.extend([(k, v) for k, v in headers if k.lower() == name])

    return change


def _meta(key: str, value: object) -> Callable[[Headers, dict[str, Any]], None]:
    def change(_headers: Headers, body: dict[str, Any]) -> None:
        meta = body["params"]["_meta"]
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value

    return change


def _body(key: str, value: object) -> Callable[[Headers, dict[str, Any]], None]:
    def change(_headers: Headers, body: dict[str, Any]) -> None:
        body[key] = value

    return change


def _param(key: str, value: object) -> Callable[[Headers, dict[str, Any]], None]:
    def change(_headers: Headers, body: dict[str, Any]) -> None:
        body["params"][key] = value

    return change


VARIANTS: dict[str, Callable[[Headers, dict[str, Any]], None]] = {
    "no version header": _drop("mcp-protocol-version"),
    "an older version header": _set("MCP-Protocol-Version", "2025-06-18"),
    "an unknown version header": _set("MCP-Protocol-Version", "2099-01-01"),
    "no method header": _drop("mcp-method"),
    "another method header": _set("Mcp-Method", "tools/list"),
    "the method header twice": _twice("mcp-method"),
    "no name header": _drop("mcp-name"),
    "another name header": _set("Mcp-Name", "check_answers"),
    "the agent header twice": _twice("x-asks-agent"),
    "no agent header": _drop("x-asks-agent"),
    "a param header": _set("Mcp-Param-Blocking", "false"),
    "an origin": _set("Origin", "http://127.0.0.1"),
    "json only": _set("Accept", "application/json"),
    "a wildcard accept": _set("Accept", "*/*"),
    "a text body": _set("Content-Type", "text/plain"),
    "json with a charset": _set("Content-Type", "application/json; charset=utf-8"),
    "a progress token": _meta("progressToken", "p1"),
    "no capabilities": _meta("io.modelcontextprotocol/clientCapabilities", None),
    "capabilities not an object": _meta("io.modelcontextprotocol/clientCapabilities", []),
    "no client info": _meta("io.modelcontextprotocol/clientInfo", None),
    "another version in the envelope": _meta("io.modelcontextprotocol/protocolVersion", "x"),
    "a client's tool use id": _meta("claudecode/toolUseId", "toolu_01\x1b[31m"),
    "a string id": _body("id", "req-1"),
    "an extra member": _body("extra", 1),
    "a cursor": _param("cursor", "c"),
    "a task": _param("task", {"ttl": 1000}),
    "arguments null": _param("arguments", None),
}


def ask(agent: str, call_id: str, text: str, valid: bool = True) -> Rpc:
    questions = [q(text)] if valid else []
    arguments = {"questions": questions, "blocking": False}
    return Rpc(agent, "tools/call", {"name": "ask_user_question", "arguments": arguments}, call_id)


def check(agent: str, extra: bool = False) -> Rpc:
    arguments = {"x": 1} if extra else {}
    return Rpc(agent, "tools/call", {"name": "check_answers", "arguments": arguments})


def withdraw(agent: str, target: str) -> Rpc:
    arguments = {"questionIds": [target], "reason": "done"}
    return Rpc(agent, "tools/call", {"name": "withdraw_question", "arguments": arguments})


agents = st.sampled_from(AGENTS)
rpcs = st.one_of(
    st.builds(ask, agents, st.sampled_from(CALL_IDS), st.sampled_from(("Which?", "Why?"))),
    st.builds(ask, agents, st.sampled_from(CALL_IDS), st.just("Bad"), st.just(False)),
    st.builds(check, agents, st.booleans()),
    st.builds(withdraw, agents, st.sampled_from(("q-0000000000", "unknown"))),
    st.builds(Rpc, agents, st.just("tools/list"), st.just({})),
)
steps = st.lists(
    st.one_of(
        rpcs,
        rpcs,
        st.builds(Variant, rpcs, st.sampled_from(sorted(VARIANTS))),
        st.builds(Answer),
    ),
    min_size=1,
    max_size=12,
)


# ---------------------------------------------------------------------------- the wire
async def post(port: int, headers: Headers, body: object) -> tuple[int, str, bytes]:
    """One POST on its own connection: status, content type, body."""
    got = await raw_request(port, headers, body)
    head_bytes, _, payload = got.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    fields = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), fields.get("content-type", ""), payload


def port_of(server: HubServer) -> int:
    return int(server.listener.getsockname()[1])


@attrs.define
class Twin:
    """One of the two hubs: its session and its server."""

    rig: Rig
    server: HubServer


async def twin(directory: Path, nursery: trio.Nursery, *, with_lean: bool) -> Twin:
    rig = Rig.create(directory)
    keyring = keyring_with(directory, TOKEN)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), lean=with_lean)
    await nursery.start(server.run)
    return Twin(rig, server)


def answer_first(rig: Rig) -> None:
    tabs = rig.host.panel_port.tabs
    if tabs:
        rig.answer_option(tabs[0], 0)


WALL = frozenset({"ts", "created_at"})  # wall-clock times: the two hubs run apart


def journal_lines(rig: Rig) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in rig.path.read_text().splitlines()]
    return [{k: v for k, v in line.items() if k not in WALL} for line in lines]


async def receipted(rig: Rig) -> None:
    """Until every offer is receipted or released: the receipt is journaled once the
    response was handed over, which the client may see a moment before."""
    while len(rig.lines_of("feedback_offered")) > len(rig.lines_of("offer_delivered")) + len(
        rig.lines_of("offer_released")
    ):
        await trio.sleep(0.001)


async def live(directory: Path, history: list[object]) -> None:
    async with trio.open_nursery() as nursery:
        fast = await twin(directory / "lean", nursery, with_lean=True)
        plain = await twin(directory / "sdk", nursery, with_lean=False)
        for n, step in enumerate(history, start=1):
            if isinstance(step, Answer):
                answer_first(fast.rig)
                answer_first(plain.rig)
                continue
            rpc, change = (
                (step.rpc, VARIANTS[step.change]) if isinstance(step, Variant) else (step, None)
            )
            headers, body = rpc.wire(n)
            if change is not None:
                change(headers, body)
            got_fast = await post(port_of(fast.server), list(headers), body)
            got_plain = await post(port_of(plain.server), list(headers), body)
            assert got_fast == got_plain, (step, got_fast, got_plain)
            await receipted(fast.rig)
            await receipted(plain.rig)
        assert journal_lines(fast.rig) == journal_lines(plain.rig)
        nursery.cancel_scope.cancel()
    fast.rig.journal.close()
    plain.rig.journal.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_the_lean_path_answers_as_the_sdk_does(history: list[object]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        trio.run(live, Path(directory), history)


def test_every_variant_is_tried_on_every_kind_of_call() -> None:
    """The fixed cases, whatever hypothesis draws: each variant of each lean call."""
    history: list[object] = [ask("alpha", "c0", "Which?"), Answer()]
    for change in sorted(VARIANTS):
        for rpc in (ask("beta", "c1", "Why?"), check("alpha"), withdraw("alpha", "x")):
            history.append(Variant(rpc, change))
        history.append(Variant(Rpc("alpha", "tools/list", {}), change))
    with tempfile.TemporaryDirectory() as directory:
        trio.run(live, Path(directory), history)


# ---------------------------------------------------------------------------- what it takes
def test_the_lean_versions_are_the_sdks_modern_ones() -> None:
    from mcp_types import (  # noqa: PLC0415
        CLIENT_CAPABILITIES_META_KEY,
        PROTOCOL_VERSION_META_KEY,
        SERVER_INFO_META_KEY,
    )
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS  # noqa: PLC0415

    assert set(MODERN_PROTOCOL_VERSIONS) >= lean.LEAN_VERSIONS
    assert lean.PROTOCOL_VERSION_META == PROTOCOL_VERSION_META_KEY
    assert lean.CLIENT_CAPABILITIES_META == CLIENT_CAPABILITIES_META_KEY
    assert lean.SERVER_INFO_META == SERVER_INFO_META_KEY


def taken(rpc: Rpc, change: str | None = None) -> lean.LeanRequest | None:
    headers, body = rpc.wire(7)
    if change is not None:
        VARIANTS[change](headers, body)
    raw = [(k.lower().encode(), v.encode()) for k, v in headers]
    return lean.lean_request(raw, body)


def test_it_takes_the_hot_calls_and_nothing_that_waits_or_streams() -> None:
    for rpc in (ask("a", "c", "Q?"), check("a"), withdraw("a", "x"), Rpc("a", "tools/list", {})):
        assert taken(rpc) is not None, rpc
    blocking = ask("a", "c", "Q?")
    blocking.params["arguments"]["blocking"] = True
    assert taken(blocking) is None
    del blocking.params["arguments"]["blocking"]
    assert taken(blocking) is None  # blocking by default
    for change in ("a progress token", "a task", "an older version header", "an origin"):
        assert taken(ask("a", "c", "Q?"), change) is None, change
    assert taken(Rpc("a", "server/discover", {})) is None
    assert taken(Rpc("a", "tools/call", {"name": "other", "arguments": {}})) is None


# ---------------------------------------------------------------------------- L4, L5
async def test_agents_that_only_list_and_ask_async_never_load_the_sdk(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    hub = await twin(tmp_path, nursery, with_lean=True)
    for n, rpc in enumerate((Rpc("a", "tools/list", {}), ask("a", "c0", "Q?"), check("a")), 1):
        status, _, _ = await post(port_of(hub.server), *rpc.wire(n))
        assert status == 200
    assert len(hub.rig.host.panel_port.projection.pending) == 1
    assert hub.server.sdk is not None and not hub.server.sdk.loaded
    status, _, _ = await post(port_of(hub.server), *Rpc("a", "server/discover", {}).wire(9))
    assert status == 200 and hub.server.sdk.loaded  # the control: the SDK's method loads it
    hub.rig.journal.close()


async def test_an_async_retry_of_a_waiting_call_id_is_answered_at_once(
    tmp_path: Path, nursery: trio.Nursery
) -> None:
    """The one way a lean call could meet a live wait: an agent reuses the id of its own
    blocking call, still waiting, with ``"blocking": false``. The intake tells it the id is
    taken (a retry must ask the same way), at once; the blocking call waits on (L5)."""
    hub = await twin(tmp_path, nursery, with_lean=True)
    port = port_of(hub.server)
    blocking = ask("a", "c0", "Q?")
    blocking.params["arguments"]["blocking"] = True
    nursery.start_soon(post, port, *blocking.wire(1))
    while not hub.rig.host.panel_port.projection.pending:
        await trio.sleep(0.005)
    assert taken(ask("a", "c0", "Q?")) is not None
    status, _, body = await post(port, *ask("a", "c0", "Q?").wire(2))
    result = json.loads(body)["result"]
    assert status == 200 and result["isError"] is True
    assert "call_conflict" in result["content"][0]["text"]
    assert len(hub.rig.host.panel_port.projection.pending) == 1  # still waiting
