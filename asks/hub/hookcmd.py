"""The command form of the permission hook: ``asks hook permission`` (no SDK, no trio).

A client configured with ``"type": "command"`` runs it with the hook's JSON on stdin and reads
the decision from stdout. :func:`forward` POSTs the JSON to the running hub's
``/hooks/permission`` (:mod:`asks.hub.hooks`) with the agent's token and returns the hub's
reply as it came. **Never allow by default**: whenever there is no decision from the hub — it
is not running (connection refused), the token is missing or refused, the reply is not a JSON
object, the request timed out — the text is ``{}`` (no decision: the agent's own dialog
decides) with a sentence for stderr; the command always exits 0, so the client never treats
asks' absence as a failed hook.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Final

import attrs

HOOK_PATH: Final = "/hooks/permission"
HOOK_TIMEOUT: Final = 120  # seconds: the hook timeout ``asks mcp config`` writes
HAND_BACK: Final = "{}"


@attrs.frozen
class Forwarded:
    """What the command prints (``stdout``) and says on stderr (``problem``: '' for none)."""

    stdout: str
    problem: str = ""


def hook_url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{HOOK_PATH}"


def forward(url: str, body: bytes, token: str | None, timeout: float) -> Forwarded:
    """POST ``body`` to the hub at ``url``; the reply to print (module docstring)."""
    if token is None:
        return Forwarded(HAND_BACK, "asks: no token for this agent (asks mcp config --agent …)")
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return Forwarded(HAND_BACK, f"asks: the hub refused the hook ({exc.code}): {_error(exc)}")
    except (OSError, UnicodeDecodeError) as exc:
        return Forwarded(
            HAND_BACK, f"asks: the hub did not answer ({exc}); your own dialog decides"
        )
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return Forwarded(HAND_BACK, "asks: the hub's reply was not a JSON object")
    return Forwarded(json.dumps(parsed))


def _error(exc: urllib.error.HTTPError) -> str:
    try:
        found = json.loads(exc.read().decode("utf-8", "replace"))
    except (ValueError, OSError):
        return exc.reason if isinstance(exc.reason, str) else ""
    return str(found.get("error", "")) if isinstance(found, dict) else ""
