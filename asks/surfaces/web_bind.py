"""Where a web bridge listens, the URL it shows, and which ``Host`` may name it.

* :func:`is_loopback` / :func:`binding_warning`: loopback is the default bind; a bind beyond
  this machine gets a warning saying what it means (anyone who reaches it with the token can
  answer, plain HTTP).
* :class:`Address`: the address hypercorn bound. Its URL names an address this machine's own
  browser can open (``127.0.0.1`` or ``::1`` for a wildcard bind). A request's ``Host`` (and a
  POST's ``Origin``) must name it (the DNS-rebinding guard, :meth:`Address.allows`): one of
  the bound names with the port — every loopback name when bound to loopback or to every
  interface — and, bound to every interface, any IP literal with the port, never a DNS name.

No hypercorn here: the command line imports this for the warning without the server.
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import quote, urlsplit

import attrs

LOOPBACK_NAMES: Final = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(bind_host: str) -> bool:
    if bind_host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind_host.strip("[]")).is_loopback
    except ValueError:
        return False


def binding_warning(bind_host: str) -> str | None:
    """A warning to print when ``bind_host`` reaches beyond this machine, else ``None``."""
    if is_loopback(bind_host):
        return None
    return (
        f"warning: the web bridge listens on {bind_host}, beyond this machine. Anyone who can "
        "reach it and learns the URL (its token) can read and answer your questions, and "
        "plain HTTP is not encrypted."
    )


def bind_spec(bind_host: str, port: int) -> str:
    """``host:port`` as hypercorn binds it and a ``Host`` header names it (IPv6 bracketed)."""
    host = bind_host.strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@attrs.frozen
class Address:
    """A bound address (module docstring); :data:`UNBOUND` allows nothing."""

    shown: str  # ``host:port`` of the URL
    port: int
    names: frozenset[str]  # the ``host:port`` forms a Host header may take (lower case)
    wildcard: bool  # bound to every interface

    @classmethod
    def of(cls, bind: str) -> Address:
        """The address of hypercorn's bind string (``http://HOST:PORT``)."""
        parts = urlsplit(bind)
        assert parts.hostname is not None and parts.port is not None
        host, port = parts.hostname, parts.port
        wildcard = _is_ip(host) and ipaddress.ip_address(host).is_unspecified
        shown = ("::1" if ":" in host else "127.0.0.1") if wildcard else host
        names = {shown, host} | (LOOPBACK_NAMES if is_loopback(host) or wildcard else set())
        return cls(
            bind_spec(shown, port),
            port,
            frozenset(bind_spec(n, port).lower() for n in names),
            wildcard,
        )

    def url(self, token: str) -> str:
        return f"http://{self.shown}/?token={quote(token, safe='')}"

    def allows(self, value: str | None) -> bool:
        """Whether a ``Host`` (or an ``Origin``'s netloc) of ``value`` names this address."""
        if value is None:
            return False
        value = value.lower()
        if value in self.names:
            return True
        if not self.wildcard:
            return False
        try:  # bound to every interface: any IP literal (never a DNS name) with our port
            parts = urlsplit(f"//{value}")
            return parts.port == self.port and _is_ip(parts.hostname or "")
        except ValueError:
            return False


UNBOUND: Final = Address("", 0, frozenset(), wildcard=False)
