"""``GET /events``: the web page's Server-Sent Events streams.

Each open stream gets ``event: change`` with the list version on connect and whenever
:meth:`EventStreams.publish` bumps it (the bridge does when the pending questions, or which of
them block, change), and a comment line every :data:`KEEPALIVE` seconds. Each stream reads a
capacity-1 channel: a version not yet sent is replaced by nothing newer (``WouldBlock``: the
client will read the latest), so a slow page never holds the host up. At most
:data:`MAX_EVENT_CLIENTS` are open (503 beyond); :meth:`EventStreams.close` ends them all and
refuses new ones. A stream ends when the client goes away (``http.disconnect``) or on close.
"""

from __future__ import annotations

from typing import Final

import attrs
import trio
from hypercorn.typing import ASGIReceiveCallable, ASGISendCallable

from asks.core.i18n import _
from asks.surfaces.web_forms import HttpError
from asks.surfaces.web_http import SECURITY_HEADERS

MAX_EVENT_CLIENTS: Final = 32  # concurrent /events streams
KEEPALIVE: Final = 15.0  # seconds between SSE comment lines


@attrs.define(eq=False)
class EventStreams:
    """The open streams and the version they are told (module docstring)."""

    version: int = 0
    _clients: set[trio.MemorySendChannel[int]] = attrs.field(factory=set, init=False)
    _closed: bool = attrs.field(default=False, init=False)

    @property
    def open(self) -> int:
        """How many streams are open."""
        return len(self._clients)

    def publish(self) -> None:
        """A new version, told to every open stream."""
        self.version += 1
        for sender in list(self._clients):
            try:
                sender.send_nowait(self.version)
            except trio.WouldBlock:
                pass  # an undelivered event is already queued: the client will read the latest
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                self._clients.discard(sender)

    def close(self) -> None:
        """End every stream; refuse new ones."""
        self._closed = True
        for sender in list(self._clients):
            sender.close()
        self._clients.clear()

    async def serve(self, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
        """One stream, until the client goes away or :meth:`close`."""
        if len(self._clients) >= MAX_EVENT_CLIENTS or self._closed:
            raise HttpError(503, _("Busy"), _("Too many open pages."))
        sender, receiver = trio.open_memory_channel[int](1)
        self._clients.add(sender)
        disconnected = False
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), *SECURITY_HEADERS],
                }
            )
            first = f"retry: 2000\nevent: change\ndata: {self.version}\n\n".encode()
            await send({"type": "http.response.body", "body": first, "more_body": True})
            async with trio.open_nursery() as nursery:

                async def watch_disconnect() -> None:
                    nonlocal disconnected
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    disconnected = True
                    nursery.cancel_scope.cancel()

                nursery.start_soon(watch_disconnect)
                async with receiver:
                    await _stream(receiver, send)
                nursery.cancel_scope.cancel()
            if not disconnected:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._clients.discard(sender)
            sender.close()


async def _stream(receiver: trio.MemoryReceiveChannel[int], send: ASGISendCallable) -> None:
    """Each version as an event, a keepalive comment after :data:`KEEPALIVE` idle seconds,
    until the channel is closed."""
    while True:
        with trio.move_on_after(KEEPALIVE) as idle:
            try:
                version = await receiver.receive()
            except trio.EndOfChannel:
                return
        chunk = (
            b": keepalive\n\n"
            if idle.cancelled_caught
            else f"event: change\ndata: {version}\n\n".encode()
        )
        await send({"type": "http.response.body", "body": chunk, "more_body": True})
