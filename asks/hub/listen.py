"""The hub's listening socket, bound before the screen starts (no SDK needed).

A busy port is :class:`HubPortBusyError`: one sentence naming the setting that changes it,
said before any session or screen exists.
"""

from __future__ import annotations

import errno
import socket
from typing import Final

from asks.core.i18n import _

DEFAULT_PORT: Final = 8765
LOOPBACK: Final = "127.0.0.1"
LOOPBACK_NAMES: Final = frozenset({LOOPBACK, "localhost", "::1"})


class HubPortBusyError(OSError):
    """The hub's port is taken (the sentence names the setting that changes it)."""


def bind_listener(host: str = LOOPBACK, port: int = DEFAULT_PORT) -> socket.socket:
    """A listening TCP socket on ``host:port`` (module docstring)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise HubPortBusyError(
                _("Port {port} is in use: set another with --mcp-port or [mcp] port.").format(
                    port=port
                )
            ) from exc
        raise
    listener.listen(128)
    return listener
