"""Late answers to an idle Codex session with ``codex queue`` (docs/late-answers.md).

A real hub on 127.0.0.1, the SDK's own client on an ``initialize`` session as Codex speaks it,
with ``_meta.threadId`` on each ``tools/call``; the hub's ``codex`` is a real executable
standing in for Codex's (it records its arguments and exits with the code the test chose).
The real binary's behaviour (idle, busy, TUI closed) is in docs/late-answers.md.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from mcp.client.client import Client
from support.hub import DB, TOKEN, client, keyring_with, text_of
from support.rig import Rig

from asks.hub.listen import bind_listener
from asks.hub.server import HubServer

THREAD = "01a24637-013c-7f63-bf12-50fb24291c55"
HANG = 60  # seconds: reached only if something hangs (not a time bound)
FAKE = """#!{python}
import json, pathlib, sys
here = pathlib.Path(__file__).parent
with open(here / "calls.jsonl", "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
sys.exit(int((here / "exit-code").read_text()))
"""


@attrs.define
class FakeCodex:
    """The executable the hub runs as ``codex``: its calls, and the exit code it gives."""

    folder: Path

    @property
    def path(self) -> Path:
        return self.folder / "codex"

    def exits(self, code: int) -> None:
        (self.folder / "exit-code").write_text(str(code))

    def calls(self) -> list[list[str]]:
        log = self.folder / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def codex(tmp_path: Path) -> FakeCodex:
    fake = FakeCodex(tmp_path / "bin")
    fake.folder.mkdir()
    fake.path.write_text(FAKE.format(python=sys.executable))
    fake.path.chmod(fake.path.stat().st_mode | stat.S_IXUSR)
    fake.exits(0)
    return fake


@pytest.fixture
async def codex_hub(rig: Rig, nursery: trio.Nursery, codex: FakeCodex) -> AsyncIterator[HubServer]:
    keyring = keyring_with(rig.directory, TOKEN)
    listener = bind_listener(port=0)
    server = HubServer(rig.host.hub_port, keyring, listener, codex=str(codex.path))
    await nursery.start(server.run)
    yield server


def session(hub: HubServer) -> Client:
    return client(hub, "coder", mode="legacy")  # an initialize session, as Codex opens


async def call(
    agent: Client, name: str, arguments: dict[str, Any], thread: str | None = THREAD
) -> Any:
    meta: Any = {"threadId": thread} if thread is not None else None
    return await agent.call_tool(name, arguments, meta=meta)


def receipts(rig: Rig) -> list[list[str]]:
    return [[r["id"] for r in line["refs"]] for line in rig.lines_of("offer_delivered")]


async def until(condition: Any) -> None:
    with trio.fail_after(HANG):
        while not condition():
            await trio.sleep(0.01)


async def test_a_late_answer_is_queued_for_the_thread_and_receipted_when_it_exits_0(
    rig: Rig, codex_hub: HubServer, codex: FakeCodex
) -> None:
    async with session(codex_hub) as agent:
        await call(agent, "ask_user_question", {"questions": [DB], "blocking": False})
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 0)  # type: ignore[arg-type]
        await until(lambda: receipts(rig))
        later = text_of(await call(agent, "check_answers", {}))

    [argv] = codex.calls()
    assert argv[:2] == ["queue", f"--thread={THREAD}"]
    assert argv[2].startswith("--message=[asks feedback]") and '"Postgres"' in argv[2]
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]
    assert later.startswith("No new answers.")  # delivered once: not again at the next call


async def test_a_failed_queue_releases_the_answer_for_the_next_call(
    rig: Rig, codex_hub: HubServer, codex: FakeCodex
) -> None:
    codex.exits(1)
    async with session(codex_hub) as agent:
        await call(agent, "ask_user_question", {"questions": [DB], "blocking": False})
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 1)  # type: ignore[arg-type]
        await until(lambda: rig.lines_of("offer_released"))
        later = text_of(await call(agent, "check_answers", {}))

    assert len(codex.calls()) == 1  # tried once; the path is off until the agent's next call
    assert '"SQLite"' in later
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]


async def test_while_a_call_of_the_agent_runs_its_result_carries_the_answer(
    rig: Rig, codex_hub: HubServer, codex: FakeCodex
) -> None:
    async with session(codex_hub) as agent, trio.open_nursery() as nursery:
        await call(agent, "ask_user_question", {"questions": [DB], "blocking": False})
        first = rig.host.panel_port.tabs[0]
        results: list[Any] = []

        async def blocking() -> None:
            other = {**DB, "question": "Which cache?"}
            results.append(await call(agent, "ask_user_question", {"questions": [other]}))

        nursery.start_soon(blocking)
        await until(lambda: rig.host.surface_port.live_waits)
        rig.answer_option(first, 0)  # type: ignore[arg-type]
        second = next(t for t in rig.host.panel_port.tabs if t != first)
        rig.answer_option(second, 1)  # type: ignore[arg-type]
        await until(lambda: results)

    assert codex.calls() == []  # the running call's result carried both
    assert '"Postgres"' in text_of(results[0]) and '"SQLite"' in text_of(results[0])


async def test_an_agent_without_a_thread_waits_for_its_next_call(
    rig: Rig, codex_hub: HubServer, codex: FakeCodex
) -> None:
    async with session(codex_hub) as agent:
        await call(agent, "ask_user_question", {"questions": [DB], "blocking": False}, None)
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 0)  # type: ignore[arg-type]
        later = text_of(await call(agent, "check_answers", {}, None))
    assert codex.calls() == []
    assert '"Postgres"' in later


async def test_the_queued_message_is_sanitized_and_the_thread_checked(
    rig: Rig, codex_hub: HubServer, codex: FakeCodex
) -> None:
    hostile = {**DB, "question": "Which \x1b]0;pwned\x07database\x1b[31m?"}
    async with session(codex_hub) as agent:
        asked = {"questions": [hostile], "blocking": False}
        await call(agent, "ask_user_question", asked, "-x; rm")
        await call(agent, "check_answers", {})  # a plausible thread from here on
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 0)  # type: ignore[arg-type]
        await until(lambda: receipts(rig))
    [argv] = codex.calls()
    assert argv[1] == f"--thread={THREAD}"
    assert "\x1b" not in argv[2] and "\x07" not in argv[2] and "pwned" not in argv[2]


def test_the_binary_is_found_from_the_config_or_path(codex: FakeCodex, monkeypatch: Any) -> None:
    from asks.hub.codexqueue import find_codex  # noqa: PLC0415

    monkeypatch.setenv("PATH", str(codex.folder))
    assert find_codex() == str(codex.path)
    assert find_codex(str(codex.path)) == str(codex.path)
    monkeypatch.setenv("PATH", os.devnull)
    assert find_codex() is None
