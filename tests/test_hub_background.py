"""A blocking call that Claude Code moves to the background at 120 s must not end early.

Claude Code ≥ 2.1.212 moves an MCP call still running at 120 s to the background and starts a
turn when its result comes (``../shared/mcp-clients/interactive/README.md``, result 3): the
call stays one open HTTP request. Nothing in asks may end it first — not the hub's progress,
hypercorn, nor the SDK. The hub runs on 127.0.0.1 with its default progress interval, the SDK's
own client calls over real HTTP, and trio's autojump clock carries the wait past 120 s in
virtual time (no test waits minutes; nothing here bounds time).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import trio
from support.hub import DB, TOKEN, client, keyring_with, receipts, text_of
from support.rig import Rig

from asks.hub import sdk  # noqa: F401 (below)
from asks.hub.calls import PROGRESS_EVERY
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer

# The SDK is imported with the test module, not at the first request: that import runs in a
# worker thread (asks/hub/lazy.py), and while a thread works the autojump clock jumps to the next
# deadline, the client's read timeout among them (run alone, the test failed 3 runs of 6).
MOVED_AT = 120.0  # seconds: Claude Code moves a call still running to the background
ANSWERED_AT = 150.0  # seconds: the person answers after that (as in the README's run)


@pytest.fixture
async def slow_hub(rig: Rig, nursery: trio.Nursery) -> AsyncIterator[HubServer]:
    """The hub with its default progress interval (the ``hub`` fixture's is 0.05 s)."""
    keyring = keyring_with(rig.directory, TOKEN)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0))
    assert server.progress_every == PROGRESS_EVERY
    await nursery.start(server.run)
    yield server


async def test_a_blocking_call_outlives_120_s_with_progress_all_the_way(
    rig: Rig, slow_hub: HubServer, autojump_clock: Any
) -> None:
    beats: list[float] = []

    async def progress(done: float, _total: float | None, _message: str | None) -> None:
        beats.append(trio.current_time())

    results: list[Any] = []
    start = trio.current_time()
    async with client(slow_hub) as session, trio.open_nursery() as nursery:

        async def ask() -> None:
            results.append(
                await session.call_tool(
                    "ask_user_question", {"questions": [DB]}, progress_callback=progress
                )
            )

        nursery.start_soon(ask)
        await trio.sleep(ANSWERED_AT)
        assert not results  # still waiting at 150 s: nothing ended it
        [ref] = rig.host.panel_port.tabs
        rig.answer_option(ref, 1)  # type: ignore[arg-type]

    [result] = results
    assert not result.is_error and '"SQLite"' in text_of(result)
    past = [t - start for t in beats if t - start > MOVED_AT]
    assert past, f"no progress after {MOVED_AT} s: {[t - start for t in beats]}"
    assert len(beats) >= int(ANSWERED_AT / PROGRESS_EVERY) - 1
    assert receipts(rig) == [[ref.id]]  # type: ignore[union-attr]
