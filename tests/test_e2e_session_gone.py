"""A real Codex whose MCP session the hub no longer knows (docs/fleet-scale.md, "A client
whose session is gone").

Codex 0.171.0 speaks the ``initialize`` generation of MCP: it holds an ``Mcp-Session-Id`` and an
event stream (GET) for its life. The hub forgets sessions when it reaps idle ones
(:data:`~asks.hub.server.SESSION_IDLE`) and, all at once, when the person restarts it. The
real Codex TUI (tests/support/realclients) against its fake model shows what happens:

* idle past the reaper with its event stream open, Codex keeps its session (the next ask is
  served by it: no 404, no second ``initialize``) — an in-process hub with an idle limit of
  a fraction of a second, and a probe session without a stream as the control that the
  reaper did run meanwhile;
* its event stream cut while the hub runs on (:class:`support.hub.Relay`, a loopback relay
  in front of the hub), Codex reopens it with its session and asks on past the reaper;
* after ``asks hub --continue`` on the same port, Codex's next call gets 404, Codex
  initializes a new session by itself and sends the call again: it succeeds, once;
* a blocking call in flight when the hub stops fails at once (``Transport closed``); the
  question is a tab again in the resumed hub and the answer starts the result of Codex's
  next asks call.

Claude Code 2.1.332 keeps no session (MCP 2026-07-28): a blocking ask it moved to an MCP task
is polled across the restart, and the answer given in the resumed hub starts its next turn.

Which session the hub created, rejected (404) or reaped is read from the SDK's own log
records (``mcp.server.streamable_http_manager``, mcp 2.3.0): in process from the logger, under
the pty from the hub's ``--debug-log``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from support.hub import HELLO, PING, TOKEN, Relay, keyring_with, raw_post, session_of, status
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.realclients import Client, HubConfig, Kind, Options, RealClients, TuiClient
from support.rig import Rig

from asks.hub.listen import bind_listener
from asks.hub.server import HubServer

pytestmark = [pytest.mark.e2e, pytest.mark.mcpclients]

IDLE = 0.5  # seconds: the in-process hub's idle limit (the hub's is SESSION_IDLE)
SDK_LOGGER = "mcp.server.streamable_http_manager"
QUESTION = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}],
}
ASYNC = {"questions": [QUESTION], "blocking": False}
BLOCKING = {"questions": [QUESTION], "blocking": True}
SENT = "Questions sent to the user without blocking"


@attrs.define
class Sessions:
    """What the SDK's session manager logged: sessions created, ids answered 404, sessions
    reaped as idle, each in order."""

    created: list[str] = attrs.field(factory=list)
    rejected: list[str] = attrs.field(factory=list)
    reaped: list[str] = attrs.field(factory=list)

    PATTERNS = (
        ("created", re.compile(r"Created new transport with session ID: (\w+)")),
        ("rejected", re.compile(r"Rejected request with unknown or expired session ID: (\w+)")),
        ("reaped", re.compile(r"Session (\w+) idle timeout")),
    )

    def read(self, lines: Iterable[str]) -> Sessions:
        for line in lines:
            for field, pattern in self.PATTERNS:
                found = pattern.search(line)
                if found:
                    getattr(self, field).append(found.group(1))
        return self


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def sdk_lines() -> Iterator[list[str]]:
    """The messages the SDK's session manager logs meanwhile (INFO and above)."""
    logger, handler = logging.getLogger(SDK_LOGGER), _Lines()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def codex(real_clients: RealClients, hub: HubConfig, name: str, macro: dict[str, Any]) -> TuiClient:
    return real_clients.tui(
        Client.CODEX, hub, Options(tool_timeout=120), macros={"q": macro}, name=name
    )


def ask(tui: TuiClient) -> str:
    """Codex calls ask_user_question with the macro; the result text its model got."""
    return tui.prompt("IA-CALL ask_user_question @q").results[0].text


async def test_codex_keeps_its_session_past_the_reaper_while_its_event_stream_is_open(
    rig: Rig, real_clients: RealClients
) -> None:
    keyring = keyring_with(rig.directory, TOKEN)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), session_idle=IDLE)
    with sdk_lines() as lines:
        async with trio.open_nursery() as nursery:
            url = await nursery.start(server.run)
            port = int(url.rsplit(":", 1)[1].split("/")[0])
            hub = await trio.to_thread.run_sync(
                HubConfig.from_asks, rig.directory, port, "codex-idle"
            )
            tui = await trio.to_thread.run_sync(codex, real_clients, hub, "codex-idle", ASYNC)
            assert SENT in await trio.to_thread.run_sync(ask, tui)
            # the control: a session opened after Codex's last call, without an event stream
            probe = session_of(await raw_post(port, HELLO))
            await trio.sleep(IDLE)
            while status(await raw_post(port, PING, probe)) == 200:  # a ping restarts its idle time
                await trio.sleep(IDLE * 2)
            # the probe was reaped: Codex's session, idle for longer, was not (its stream)
            assert SENT in await trio.to_thread.run_sync(ask, tui)
            await trio.to_thread.run_sync(real_clients.close)
            nursery.cancel_scope.cancel()
    seen = Sessions().read(lines)
    codex_sessions = [s for s in seen.created if s != probe]
    assert len(codex_sessions) == 1, seen  # the same session served both calls
    assert probe in seen.reaped and codex_sessions[0] not in seen.reaped, seen
    assert codex_sessions[0] not in seen.rejected, seen  # no 404
    assert len(rig.lines_of("group_asked")) == 2


def restart(launch: Launcher, app: PtyApp, port: int, log: Path) -> PtyApp:
    """The person quits the hub and starts it again on the same port (``--continue``)."""
    app.press("ctrl c", "ctrl c")
    assert app.wait_exit() == 0
    again = launch.start(
        "hub", "--mcp-port", str(port), "--continue", "--debug-log", str(log), cols=140
    )
    again.wait_for(rf"Hub on http://127\.0\.0\.1:{port}/mcp")
    return again


def start_hub(launch: Launcher, log: Path) -> tuple[PtyApp, int]:
    app = launch.start("hub", "--mcp-port", "0", "--debug-log", str(log), cols=140)
    port = int(app.wait_for(r"Hub on http://127\.0\.0\.1:(\d+)/mcp").group(1))
    return app, port


def asked(launch: Launcher) -> int:
    return sum(1 for r in launch.records() if r["type"] == "group_asked")


def test_codex_initializes_again_when_the_restarted_hub_does_not_know_its_session(
    launch: Launcher, real_clients: RealClients, tmp_path: Path
) -> None:
    app, port = start_hub(launch, tmp_path / "first.log")
    tui = codex(real_clients, HubConfig.from_asks(launch.data_dir, port, "steady"), "steady", ASYNC)
    assert SENT in ask(tui)
    before = Sessions().read((tmp_path / "first.log").read_text().splitlines())

    again = restart(launch, app, port, tmp_path / "again.log")
    again.wait_for(r"Database \(steady\)")  # the question asked before is a tab again
    assert SENT in ask(tui)  # not an error: Codex got 404, initialized again, sent it again
    again.wait_for(r"Questions \(2\)")
    assert SENT in ask(tui)  # and keeps its new session
    again.wait_for(r"Questions \(3\)")
    assert asked(launch) == 3  # the call sent again was asked once

    after = Sessions().read((tmp_path / "again.log").read_text().splitlines())
    [old] = before.created
    assert old in after.rejected, after  # the 404 that Codex recovered from
    assert len(after.created) == 1 and after.created[0] != old, after


def answer_sqlite(app: PtyApp) -> None:
    app.press("shift tab")
    app.wait_for(r"┌─ Questions")
    app.press("down", "enter")
    app.wait_gone(r"Database \(cut\)")


def test_a_blocking_call_cut_by_a_hub_restart_fails_once_and_its_answer_comes_next_call(
    launch: Launcher, real_clients: RealClients, tmp_path: Path
) -> None:
    app, port = start_hub(launch, tmp_path / "first.log")
    tui = codex(real_clients, HubConfig.from_asks(launch.data_dir, port, "cut"), "cut", BLOCKING)
    since = tui.submit("IA-CALL ask_user_question @q")
    app.wait_for(r"Database \(cut\)")  # Codex waits for the person

    again = restart(launch, app, port, tmp_path / "again.log")
    cut = tui.log.wait_kind(Kind.AFTER_TOOL, since).results[0].text
    assert "Transport closed" in cut  # the call failed at once, not at Codex's tool timeout
    again.wait_for(r"Resumed session \S+: 1 pending")
    again.wait_for(
        r"cut stopped waiting for “Which database\?”: your answer reaches it at its next"
    )
    again.wait_for(r"Database \(cut\)")  # the question is still the person's to answer
    answer_sqlite(again)

    told = tui.prompt("IA-CALL check_answers {}").results[0].text
    assert "[asks feedback]" in told and "SQLite" in told, told
    receipts = [r for r in launch.records() if r["type"] == "offer_delivered"]
    assert len(receipts) == 1, json.dumps(receipts)


def test_claude_code_keeps_asking_and_its_waiting_task_gets_the_answer_after_a_restart(
    launch: Launcher, real_clients: RealClients, tmp_path: Path
) -> None:
    app, port = start_hub(launch, tmp_path / "first.log")
    hub = HubConfig.from_asks(launch.data_dir, port, "cut")
    tui = real_clients.tui(Client.CLAUDE, hub, macros={"q": BLOCKING}, name="cut")
    moved = tui.prompt("IA-CALL ask_user_question @q").results[0].text
    assert "started server-side task" in moved  # Claude Code polls the task: idle meanwhile

    again = restart(launch, app, port, tmp_path / "again.log")
    again.wait_for(r"Database \(cut\)")
    since = tui.log.mark()
    answer_sqlite(again)
    woken = tui.log.wait_for(
        lambda r: r.kind is Kind.SAW and "SQLite" in r.last_user, since, why="the answer"
    )
    assert "task-notification" in woken.last_user  # the task it polls across the restart
    told = tui.prompt("IA-CALL check_answers {}").results[0].text
    assert "No new answers." in told and "SQLite" not in told, told
    receipts = [r for r in launch.records() if r["type"] == "offer_delivered"]
    assert len(receipts) == 1, json.dumps(receipts)


async def reopened(relay: Relay, after: int, session: str) -> None:
    """Wait until a GET with ``session`` passed the relay after entry ``after``."""
    while ("GET", session) not in relay.seen[after:]:
        await trio.sleep(0.05)


async def test_codex_reopens_its_cut_event_stream_and_asks_on_past_the_reaper(
    rig: Rig, real_clients: RealClients
) -> None:
    keyring = keyring_with(rig.directory, TOKEN)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), session_idle=IDLE)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.run)
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        relay = Relay(port)
        through = await nursery.start(relay.run)
        hub = await trio.to_thread.run_sync(HubConfig.from_asks, rig.directory, through, "cut")
        tui = await trio.to_thread.run_sync(codex, real_clients, hub, "cut", ASYNC)
        assert SENT in await trio.to_thread.run_sync(ask, tui)
        [session] = {s for _, s in relay.seen if s is not None}
        assert ("GET", session) in relay.seen  # its event stream
        cut_at = len(relay.seen)
        relay.cut()  # the stream and every pooled connection drop; the hub runs on
        with trio.fail_after(120):  # a fail-safe, not a bound: the wait ends on the GET
            await reopened(relay, cut_at, session)
        probe = session_of(await raw_post(port, HELLO))  # the control, as above
        await trio.sleep(IDLE)
        while status(await raw_post(port, PING, probe)) == 200:
            await trio.sleep(IDLE * 2)
        assert SENT in await trio.to_thread.run_sync(ask, tui)
        await trio.to_thread.run_sync(real_clients.close)
        nursery.cancel_scope.cancel()
    assert len(rig.lines_of("group_asked")) == 2
