"""The hub's ``initialize`` sessions are bounded: a client that opens sessions and
never closes them cannot make the hub keep them all.

A real :class:`~asks.hub.server.HubServer` on hypercorn, on a free loopback port, in this
trio run, spoken to with raw HTTP; its idle limit is a fraction of a second here (the hub's
is :data:`~asks.hub.server.SESSION_IDLE`). The reaping is seen by its effect (the session's
id is unknown, 404, and its place is free), not timed.
"""

from __future__ import annotations

import re
from pathlib import Path

import trio
from support.hub import HELLO, PING, TOKEN, raw_post, session_of, status

from asks.host.host import QuestionHost
from asks.hub.credentials import Keyring
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer
from asks.hub.token import token_path, write_private
from asks.store.journal import Journal

IDLE = 0.2  # seconds: the hub's is SESSION_IDLE


def run_server(tmp_path: Path, test: object, **limits: float) -> None:
    async def main() -> None:
        journal = Journal.create(data_dir=tmp_path, session_id="sessions")
        host = QuestionHost(journal, clock=trio.current_time)
        write_private(token_path(tmp_path), TOKEN + "\n")
        server = HubServer(host.hub_port, Keyring(tmp_path), bind_listener(port=0), **limits)  # type: ignore[arg-type]
        async with trio.open_nursery() as nursery:
            url = await nursery.start(server.run)
            port = int(re.search(r":(\d+)/", url).group(1))  # type: ignore[union-attr]
            await test(port)  # type: ignore[operator]
            nursery.cancel_scope.cancel()
        journal.close()

    trio.run(main)


def test_sessions_beyond_the_bound_are_refused(tmp_path: Path) -> None:
    async def test(port: int) -> None:
        opened = [await raw_post(port, HELLO) for _ in range(3)]
        assert [status(r) for r in opened] == [200, 200, 200]
        refused = await raw_post(port, HELLO)
        assert status(refused) == 503  # the fourth: the hub keeps at most three
        assert status(await raw_post(port, PING, session_of(opened[0]))) == 200  # kept ones work

    run_server(tmp_path, test, max_sessions=3)


def test_an_idle_session_is_closed_and_its_place_freed(tmp_path: Path) -> None:
    async def test(port: int) -> None:
        idle = session_of(await raw_post(port, HELLO))
        assert status(await raw_post(port, PING, idle)) == 200
        assert status(await raw_post(port, HELLO)) == 503  # the one place is taken
        await trio.sleep(IDLE)
        while status(await raw_post(port, PING, idle)) == 200:  # each ping restarts its idle time
            await trio.sleep(IDLE * 2)
        assert status(await raw_post(port, PING, idle)) == 404  # closed: its id is unknown now
        assert status(await raw_post(port, HELLO)) == 200  # its place is free again

    run_server(tmp_path, test, max_sessions=1, session_idle=IDLE)
