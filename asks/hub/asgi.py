"""The ASGI shapes the hub's parts speak (its server, the guard, the hooks, the bodies): plain
aliases, so that no part imports another for its types."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

__all__ = ["App", "Message", "Receive", "Scope", "Send"]
