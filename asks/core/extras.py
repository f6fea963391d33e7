"""The optional parts of asks and the one line that says how to install a missing one.

``pip install asks-panel`` brings the core and the urwid layer (the panel, the REPL, the
journal: urwid, trio, attrs, cattrs, orjson, platformdirs). The rest are extras
(docs/install-and-extras.md), each named by an :class:`Extra`:

* ``providers``: a real model (``--model``, ``[model]``): httpx (asks/agent/chat_client.py).
* ``web``: the web bridge (``--web``, ``/web``): hypercorn (asks/surfaces/web.py).
* ``hub``: the MCP hub (``--mcp``, ``asks hub``, ``[mcp] enabled``): the MCP SDK and h11 (the
  hub's HTTP server is asks' own on h11: asks/hub/wire.py).
* ``all``: every one of them (what the README's run command installs).

An entry point that needs an extra calls :func:`require` before importing any of it: without
the extra it raises :class:`MissingExtraError`, whose text is the one line to show (the CLI prints
it with exit status 2, the REPL shows it as a notice), never an ``ImportError``'s traceback.
Whether a module is there is asked of the import system (:func:`importlib.util.find_spec`),
which imports nothing: the check costs no launch time.
"""

from __future__ import annotations

import enum
import importlib.util
from collections.abc import Callable
from typing import Final

from asks.core.i18n import _

DISTRIBUTION: Final = "asks-panel"


class Extra(enum.Enum):
    """An optional part of asks, by the name of its extra in pyproject.toml."""

    PROVIDERS = "providers"
    WEB = "web"
    HUB = "hub"


MODULES: Final[dict[Extra, tuple[str, ...]]] = {  # the top-level modules each extra brings
    Extra.PROVIDERS: ("httpx",),
    Extra.WEB: ("hypercorn",),
    Extra.HUB: ("mcp", "h11"),
}


class MissingExtraError(Exception):
    """A feature was asked for whose extra is not installed; the text is the one line that
    says what to install."""


def install_command(extra: Extra) -> str:
    """The pip command that installs ``extra`` (quoted for a POSIX shell: ``[`` is a glob)."""
    return f"pip install '{DISTRIBUTION}[{extra.value}]'"


def missing_modules(
    extra: Extra, find: Callable[[str], object | None] = importlib.util.find_spec
) -> tuple[str, ...]:
    """The modules of ``extra`` that ``find`` (the import system) cannot find, in order."""
    return tuple(name for name in MODULES[extra] if find(name) is None)


def require(
    extra: Extra,
    feature: str,
    find: Callable[[str], object | None] = importlib.util.find_spec,
) -> None:
    """Return if ``extra`` is installed; else raise :class:`MissingExtraError` saying that
    ``feature`` (as the person asked for it: ``asks --mcp``, ``/web``) needs it and the
    command that installs it."""
    if missing_modules(extra, find):
        raise MissingExtraError(
            _("{feature} needs the {extra} extra: {command}").format(
                feature=feature, extra=extra.value, command=install_command(extra)
            )
        )
