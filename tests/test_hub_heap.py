"""The heap is trimmed once a burst of requests is over (asks/hub/heap.py)."""

from __future__ import annotations

import platform

import trio
import trio.testing
from support.hub import raw_post

from asks.hub.heap import QUIET, HeapTrim, malloc_trim
from asks.hub.server import HubServer


def counting() -> tuple[list[int], HeapTrim]:
    calls: list[int] = []

    def trim(pad: int) -> int:
        calls.append(pad)
        return 0

    return calls, HeapTrim(trim)


async def test_one_trim_per_burst_once_it_is_quiet(
    nursery: trio.Nursery, autojump_clock: trio.testing.MockClock
) -> None:
    calls, heap = counting()
    nursery.start_soon(heap.run)
    await trio.sleep(10 * QUIET)
    assert calls == []  # no request: nothing to trim
    for _ in range(5):  # a burst: requests closer together than QUIET
        heap.request()
        await trio.sleep(QUIET / 2)
    assert calls == []
    await trio.sleep(QUIET)
    await trimmed(heap, 1)
    assert calls == [0]
    await trio.sleep(10 * QUIET)
    assert calls == [0]  # once per burst
    heap.request()
    await trio.sleep(2 * QUIET)
    await trimmed(heap, 2)
    assert calls == [0, 0]


async def trimmed(heap: HeapTrim, count: int) -> None:
    """Until the trim (in a worker thread) has run ``count`` times."""
    while heap.trims < count:
        await trio.sleep(0.001)


async def test_without_malloc_trim_it_does_nothing() -> None:
    heap = HeapTrim(None)
    heap.request()
    await heap.run()  # returns at once
    assert heap.trims == 0


def test_glibc_has_malloc_trim() -> None:
    if platform.libc_ver()[0] == "glibc":
        trim = malloc_trim()
        assert trim is not None
        assert trim(0) in (0, 1)


async def test_the_hub_trims_after_its_requests(hub: HubServer) -> None:
    assert hub.url is not None
    port = int(hub.listener.getsockname()[1])
    assert hub.heap.trims == 0
    for _ in range(3):
        await raw_post(port, {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    while hub.heap.trims == 0:  # the real malloc_trim, once the requests stopped
        await trio.sleep(0.05)
