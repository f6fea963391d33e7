"""Who an agent is: its **label**, from the request that carries a tool call.

The label is, in order: the agent its credential names (a token ``asks mcp config --agent
NAME`` minted: :mod:`asks.hub.credentials`), the ``X-Asks-Agent`` header (with the shared,
any-agent token), the client's name from the MCP handshake (``clientInfo`` of ``initialize``,
or ``_meta["io.modelcontextprotocol/clientInfo"]`` of a 2026-07-28 request), or ``agent``.
MCP sessions are not identity: Claude Code 2.1.332 sends none.

A label is 1 to :data:`MAX_LABEL` characters of letters, digits and ``._-``, its first and
last a letter, digit or ``_`` (:func:`label_problem`). Two distinct texts are never made one
label: a name the person chose (``--agent``, the header) that is not a label is refused, and a
client's own name that is not one is mapped losslessly (:func:`client_label`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Final

from asks.core.model import MAX_SOURCE
from asks.sanitize import sanitize_line

HEADER: Final = "x-asks-agent"
CLIENT_INFO_META: Final = "io.modelcontextprotocol/clientInfo"
DEFAULT_LABEL: Final = "agent"
MAX_LABEL: Final = MAX_SOURCE
DIGEST_CHARS: Final = 8  # hex digits of a folded client name's SHA-256 kept in its label
_LABEL: Final = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?")
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]+")


def label_problem(text: str) -> str | None:
    """Why ``text`` is not a label (an English sentence), or ``None`` if it is one."""
    if len(text) > MAX_LABEL:
        return f"is longer than {MAX_LABEL} characters"
    if _LABEL.fullmatch(text) is None:
        return (
            "may hold only letters, digits and . _ - (a letter, digit or _ first and last), "
            f"at most {MAX_LABEL} characters"
        )
    return None


def is_label(text: object) -> bool:
    """Is ``text`` a label as it stands (module docstring)?"""
    return isinstance(text, str) and label_problem(text) is None


def client_label(raw: object) -> str | None:
    """A client's own name as a label: itself if it is one; else its sanitized text folded to
    label characters, then ``-`` and the first :data:`DIGEST_CHARS` hex digits of the raw
    name's SHA-256, so that two distinct names stay two labels. ``None`` for no usable name."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    if is_label(raw):
        return raw
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]
    folded = _UNSAFE.sub("-", sanitize_line(raw)).strip("-.")
    folded = folded[: MAX_LABEL - DIGEST_CHARS - 1].strip("-.")
    return f"{folded}-{digest}" if folded else f"client-{digest}"


def agent_label(
    bound: str | None,
    headers: Mapping[str, str] | None,
    meta: Mapping[str, Any] | None,
    handshake_name: str | None,
) -> str:
    """The label of the agent behind one request (module docstring). ``bound`` is the agent
    its credential names; a header that is not a label never counts (the guard refuses it)."""
    if bound is not None:
        return bound
    header = headers.get(HEADER) if headers is not None else None
    if header is not None and is_label(header):
        return header
    info = meta.get(CLIENT_INFO_META) if meta is not None else None
    if isinstance(info, Mapping) and (label := client_label(info.get("name"))) is not None:
        return label
    return client_label(handshake_name) or DEFAULT_LABEL
