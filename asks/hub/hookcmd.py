"""The hooks as commands: ``asks hook permission`` and ``asks hook rewake`` (no SDK, no trio).

A client configured with ``"type": "command"`` runs it with the hook's JSON on stdin and reads
the decision from stdout. :func:`forward` POSTs the JSON to the running hub's
``/hooks/permission`` (:mod:`asks.hub.hooks`) with the agent's token and returns the hub's
reply as it came. **Never allow by default**: whenever there is no decision from the hub — it
is not running (connection refused), the token is missing or refused, the reply is not a JSON
object, the request timed out — the text is ``{}`` (no decision: the agent's own dialog
decides) with a sentence for stderr; the command always exits 0, so the client never treats
asks' absence as a failed hook.

:func:`rewake` is Claude Code's ``asyncRewake`` hook (docs/rewake-hook.md), run after each
non-blocking ``ask_user_question``: it long-polls the hub's ``/hooks/rewake`` until the
agent's answers are offered to it, prints them (sanitized) with ``show`` (stderr), reports
``/hooks/rewake/printed`` and returns :data:`WAKE` (exit 2: the session wakes with the text)
only when the hub acknowledged the receipt. Everything else — another tool or a blocking call,
no token, the hub gone, superseded by a newer hook, nothing left to wait for, the report
refused — returns 0: no wake, the answers wait for the agent's next asks call.

urllib's client (http.client, email: ~5–10 ms to import) loads when a command posts, not with
this module, which the hub's server and ``asks hub`` import for the paths and the hook's URL.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import attrs

from asks.sanitize import sanitize_text

if TYPE_CHECKING:  # imported when a hook runs: the hub's own modules read the paths only
    import urllib.error
    import urllib.request

HOOK_PATH: Final = "/hooks/permission"
HOOK_TIMEOUT: Final = 120  # seconds: the hook timeout ``asks mcp config`` writes
HAND_BACK: Final = "{}"
REWAKE_PATH: Final = "/hooks/rewake"
PRINTED_PATH: Final = "/hooks/rewake/printed"
REWAKE_TIMEOUT: Final = 7 * 24 * 3600  # seconds: the rewake hook's timeout (a task's ttl)
REPORT_TIMEOUT: Final = 20.0  # seconds for the printed report (under the hub's grace)
WAKE: Final = 2  # the exit code that wakes the session with the hook's stderr
ASK_TOOL: Final = "ask_user_question"


@attrs.frozen
class Forwarded:
    """What the command prints (``stdout``) and says on stderr (``problem``: '' for none)."""

    stdout: str
    problem: str = ""


def hub_base(host: str, port: int) -> str:
    """``http://HOST:PORT`` of the hub (an IPv6 host in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def hook_url(host: str, port: int) -> str:
    return hub_base(host, port) + HOOK_PATH


def _json_post(url: str, body: bytes, token: str) -> urllib.request.Request:
    """A POST of the JSON ``body`` to ``url`` with the agent's bearer ``token``."""
    import urllib.request  # noqa: PLC0415 (module docstring)

    return urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )


def forward(url: str, body: bytes, token: str | None, timeout: float) -> Forwarded:
    """POST ``body`` to the hub at ``url``; the reply to print (module docstring)."""
    if token is None:
        return Forwarded(HAND_BACK, "asks: no token for this agent (asks mcp config --agent …)")
    request = _json_post(url, body, token)
    import urllib.error  # noqa: PLC0415 (module docstring; loaded by _json_post)
    import urllib.request  # noqa: PLC0415

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


def is_async_ask(body: bytes) -> bool:
    """Is ``body`` a hook's input for a non-blocking ``ask_user_question`` of asks?"""
    try:
        found = json.loads(body)
    except ValueError:
        return False
    if not isinstance(found, dict):
        return False
    name, arguments = found.get("tool_name"), found.get("tool_input")
    return (
        isinstance(name, str)
        and name.endswith(ASK_TOOL)
        and isinstance(arguments, dict)
        and arguments.get("blocking") is False
    )


def rewake(
    base: str, body: bytes, token: str | None, timeout: float, show: Callable[[str], None]
) -> int:
    """Run the rewake hook against the hub at ``base``; the exit code (module docstring)."""
    if token is None or not is_async_ask(body):
        return 0
    waited = _post_json(base + REWAKE_PATH, body, token, timeout)
    if waited is None or waited.get("wake") is not True:
        return 0
    text, offer = waited.get("text"), waited.get("offer")
    if not isinstance(text, str) or not isinstance(offer, str):
        return 0
    try:
        show(sanitize_text(text))
    except (OSError, ValueError):
        return 0  # not printed: the hub releases the offer when its grace passes
    report = json.dumps({"offer": offer}).encode()
    reported = _post_json(base + PRINTED_PATH, report, token, REPORT_TIMEOUT)
    return WAKE if reported is not None and reported.get("delivered") is True else 0


def _post_json(url: str, body: bytes, token: str, timeout: float) -> dict[str, Any] | None:
    """POST ``body``; the reply's JSON object, or ``None`` (refused, unreachable, not JSON)."""
    request = _json_post(url, body, token)
    import urllib.request  # noqa: PLC0415 (module docstring; loaded by _json_post)

    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            found = json.loads(response.read().decode("utf-8"))
    except (OSError, ValueError):  # HTTPError is an OSError; a bad reply a ValueError
        return None
    return found if isinstance(found, dict) else None
