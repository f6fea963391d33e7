"""Freed heap handed back to the system after a burst of requests (docs/fleet-scale.md,
"The heap after a burst").

A burst of agents' requests leaves glibc's heap holding the freed chunks of the HTTP stack's
transients (request and response buffers, parsed headers, tasks): ~0.7 KiB of resident memory
per call after 5,000 async asks, more than a pending question's own data keeps (~1.9 KB).
glibc returns the top of the heap on its own, but not the free chunks below live data.
:class:`HeapTrim` calls ``malloc_trim(0)`` once the hub has been quiet for :data:`QUIET`
seconds after requests came, in a worker thread (it walks the heap; the GIL is released),
at most once per burst. Where the C library has no ``malloc_trim`` (not glibc) it does
nothing. Nothing of the session's state is touched: only memory already freed is returned.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Final

import attrs
import trio

QUIET: Final = 0.2  # seconds without a request before the heap is trimmed
Trim = Callable[[int], int]


def malloc_trim() -> Trim | None:
    """glibc's ``malloc_trim``, or ``None`` where the C library has none. Looked up among the
    process's own symbols (``ctypes.util.find_library`` would run ``ldconfig``: ~2 ms at the
    server's start, 0.08 ms this way)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


@attrs.define(eq=False)
class HeapTrim:
    """Trims the heap once the requests of a burst are over (module docstring)."""

    trim: Trim | None
    quiet: float = QUIET
    trims: int = 0  # how many times the heap was trimmed
    _came: trio.Event = attrs.Factory(trio.Event)

    def request(self) -> None:
        """A request came (called by the guard for each)."""
        self._came.set()

    async def run(self) -> None:
        """Trim after each burst, until cancelled."""
        if self.trim is None:
            return
        while True:
            await self._came.wait()
            await self._until_quiet()
            await trio.to_thread.run_sync(self.trim, 0)
            self.trims += 1

    async def _until_quiet(self) -> None:
        """Return once no request came for :attr:`quiet` seconds."""
        while True:
            self._came = trio.Event()
            with trio.move_on_after(self.quiet):
                await self._came.wait()
                continue
            return
