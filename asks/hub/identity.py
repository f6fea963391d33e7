"""Who an agent is: its **label**, from the request that carries a tool call.

The label is, in order: the ``X-Asks-Agent`` header (what ``asks mcp config --agent NAME``
puts into a client's config), the client's name from the MCP handshake (``clientInfo`` of
``initialize``, or ``_meta["io.modelcontextprotocol/clientInfo"]`` of a 2026-07-28 request),
or ``agent``. MCP sessions are not identity: Claude Code 2.1.332 sends none. Two unlabelled
clients of one name are one agent (the README says to label them).

A label is shown on tabs and cards and names a recipient, so it is sanitised first (terminal
sequences go whole, their text included: :func:`asks.sanitize.sanitize_line`), then reduced to
letters, digits and ``.-_`` (anything else becomes ``-``) and at most :data:`MAX_LABEL`
characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from asks.core.model import MAX_SOURCE
from asks.sanitize import sanitize_line

HEADER: Final = "x-asks-agent"
CLIENT_INFO_META: Final = "io.modelcontextprotocol/clientInfo"
DEFAULT_LABEL: Final = "agent"
MAX_LABEL: Final = MAX_SOURCE
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")


def clean_label(raw: object) -> str | None:
    """``raw`` as a label, or ``None`` if nothing usable is left."""
    if not isinstance(raw, str):
        return None
    label = _UNSAFE.sub("-", sanitize_line(raw).strip()).strip("-.")[:MAX_LABEL].strip("-.")
    return label or None


def agent_label(
    headers: Mapping[str, str] | None, meta: Mapping[str, Any] | None, handshake_name: str | None
) -> str:
    """The label of the agent behind one request (module docstring)."""
    if headers is not None and (label := clean_label(headers.get(HEADER))) is not None:
        return label
    info = meta.get(CLIENT_INFO_META) if meta is not None else None
    if isinstance(info, Mapping) and (label := clean_label(info.get("name"))) is not None:
        return label
    return clean_label(handshake_name) or DEFAULT_LABEL
