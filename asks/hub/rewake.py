"""``POST /hooks/rewake`` and ``/hooks/rewake/printed``: Claude Code's asyncRewake hook.

docs/rewake-hook.md is the state model; :mod:`asks.host.rewake` the policy. The guard
(:mod:`asks.hub.guard`) has checked ``Host``/``Origin``, the token and the agent first; then:

* ``/hooks/rewake`` — the body (at most :data:`MAX_HOOK_BODY` bytes, else 413) must be a
  ``PostToolUse`` hook's input (a JSON object whose ``hook_event_name`` is ``PostToolUse``,
  else 400). The request waits, as the agent's newest hook, for the first of: a wake (the
  reply ``{"wake": true, "offer": ID, "text": …}``, the text sanitized), being superseded or
  having nothing left (``{"wake": false, "why": …}``), the connection closing (the hook was
  ended: nothing is replied), the limit (``{"wake": false, "why": "limit"}``). A wake's offer
  that could not be handed to the connection is released at once.
* ``/hooks/rewake/printed`` — ``{"offer": ID}``: the hook printed that offer. 200
  ``{"delivered": true}`` once its receipt is journaled; 409 ``{"delivered": false}`` when no
  such offer of this agent waits for its report (it was released: the hook must not wake).
"""

from __future__ import annotations

import json
from typing import Any, Final

import attrs
import trio

from asks.host.rewake import PRINT_GRACE, Rewake, RewakeDesk, RewakeEnd
from asks.hub.asgi import Receive, Scope, Send
from asks.hub.bodies import BodyTooLargeError, read_body, send_json
from asks.hub.hookcmd import REWAKE_TIMEOUT
from asks.sanitize import sanitize_text

MAX_HOOK_BODY: Final = 256 * 1024  # bytes: a tool's input and result are a few KiB
REWAKE_LIMIT: Final = REWAKE_TIMEOUT - 60.0  # seconds a hook waits, under its own timeout
SEND_GRACE: Final = 5.0  # seconds a wake's reply may take to be handed over
EVENT: Final = "PostToolUse"


@attrs.define(eq=False)
class RewakeHook:
    """Serves the two paths for the agent ``label`` (module docstring)."""

    desk: RewakeDesk
    limit: float = REWAKE_LIMIT
    grace: float = PRINT_GRACE  # seconds from a wake handed over to its printed report

    async def wait(self, scope: Scope, receive: Receive, send: Send, label: str) -> None:
        body = await _post_body(scope, receive, send)
        if body is None:
            return
        if not _is_post_tool_use(body):
            message = f"Not a {EVENT} hook's input (a JSON object with hook_event_name)."
            await send_json(send, 400, {"error": message})
            return
        found = await self._first(label, receive)
        if found is None:
            return  # the hook is gone: nobody to reply to (a wake was not offered)
        if found.offer is None:
            await send_json(send, 200, {"wake": False, "why": found.end.value})
            return
        reply = {"wake": True, "offer": found.offer.offer_id, "text": sanitize_text(found.text)}
        if not await _handed(send, reply):
            self.desk.give_back(found.offer.offer_id)

    async def printed(self, scope: Scope, receive: Receive, send: Send, label: str) -> None:
        body = await _post_body(scope, receive, send)
        if body is None:
            return
        try:
            offer = json.loads(body).get("offer")
        except (ValueError, AttributeError):
            offer = None
        if not isinstance(offer, str):
            await send_json(send, 400, {"error": 'Send {"offer": ID} as the wake gave it.'})
            return
        if self.desk.printed(label, offer):
            await send_json(send, 200, {"delivered": True})
        else:
            message = "No such offer waits for its report (released): do not wake."
            await send_json(send, 409, {"delivered": False, "error": message})

    async def _first(self, label: str, receive: Receive) -> Rewake | None:
        """The wait's end, or ``None`` when the connection closed first."""
        found: list[Rewake | None] = []
        with trio.move_on_after(self.limit):
            async with trio.open_nursery() as nursery:

                async def wait() -> None:
                    found.append(await self.desk.wait(label, self.grace))
                    nursery.cancel_scope.cancel()

                async def watch() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    found.append(None)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(wait)
                nursery.start_soon(watch)
        if not found:
            return Rewake(RewakeEnd.LIMIT)
        late = found[1] if found[0] is None and len(found) > 1 else None
        if late is not None and late.offer is not None:  # woken as the hook went
            self.desk.give_back(late.offer.offer_id)
        return found[0]


async def _post_body(scope: Scope, receive: Receive, send: Send) -> bytes | None:
    """The request's body, or ``None`` once a refusal was sent (not a POST, too large)."""
    if scope.get("method") != "POST":
        await send_json(send, 405, {"error": "POST the hook's JSON here."})
        return None
    try:
        return await read_body(receive, MAX_HOOK_BODY)
    except BodyTooLargeError:
        message = f"The hook's input is over {MAX_HOOK_BODY // 1024} KiB: refused."
        await send_json(send, 413, {"error": message})
        return None


def _is_post_tool_use(body: bytes) -> bool:
    try:
        found = json.loads(body)
    except ValueError:
        return False
    return isinstance(found, dict) and found.get("hook_event_name") == EVENT


async def _handed(send: Send, reply: dict[str, Any]) -> bool:
    """Send ``reply``, shielded for at most :data:`SEND_GRACE` seconds; was it handed over?"""
    with trio.CancelScope(shield=True, deadline=trio.current_time() + SEND_GRACE):
        try:
            await send_json(send, 200, reply)
        except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
            return False
        return True
    return False
