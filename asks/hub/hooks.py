"""``POST /hooks/permission``: an agent's ``PermissionRequest`` hook, answered in the panel.

docs/permission-prompts.md is the state model. The hub's guard (:mod:`asks.hub.guard`) has
checked ``Host``/``Origin``, the token and the agent before a request reaches
:class:`PermissionHook`; then:

1. the body (at most :data:`MAX_HOOK_BODY` bytes, else 413) must be a hook's input
   (:func:`asks.core.permission.parse_request`, else 400 with the sentence); an unknown tool
   is fine;
2. the request becomes a tab (:meth:`~asks.host.permissions.PermissionDesk.open`); if it
   cannot be saved, the reply hands back at once (never allow by default);
3. the handler waits for the first of: the person's decision, the connection closing (the
   agent's own dialog answered first, or the client gave up: the tab goes, nothing is
   replied), the limit (``limit`` seconds, under the client's hook timeout: the reply hands
   back), asks quitting (hands back);
4. the reply is the JSON :func:`~asks.core.permission.reply_body` makes (allow, deny with its
   message, or ``{}``); the person's decision is journaled as delivered once the reply's
   bytes were handed to the server (``await send`` returned), as the hub's receipts are.

A handler cancelled while waiting (the server stopping) hands back in the journal; the client,
whose connection then closes, falls back to its own dialog.
"""

from __future__ import annotations

from typing import Final

import attrs
import trio

from asks.core.permission import Behavior, HandBack, HookProblem, Verdict, parse_request, reply_body
from asks.host.permissions import OpenRequest, PermissionDesk
from asks.hub.asgi import Receive, Scope, Send
from asks.hub.bodies import BodyTooLargeError, read_body, send_json
from asks.hub.hookcmd import HOOK_PATH, HOOK_TIMEOUT

MAX_HOOK_BODY: Final = 256 * 1024  # bytes: a command and its description are a few KiB
HOOK_LIMIT: Final = 110.0  # seconds the hub waits before handing back (under the timeout)
SEND_GRACE: Final = 5.0  # seconds a reply may take to be handed over
QUIT_GRACE: Final = 1.0  # seconds asks waits, quitting, for the hand-back replies to go out

__all__ = [
    "HOOK_LIMIT",
    "HOOK_PATH",
    "HOOK_TIMEOUT",
    "MAX_HOOK_BODY",
    "PermissionHook",
    "hand_back_all",
]


async def hand_back_all(desk: PermissionDesk) -> None:
    """asks is quitting: hand every open request back and let the replies (``{}``) go out,
    for at most :data:`QUIT_GRACE` seconds (shielded: also when the session is cancelled);
    a request still open then is handed back in the journal by its cancelled handler."""
    desk.quit()
    with trio.CancelScope(shield=True, deadline=trio.current_time() + QUIT_GRACE):
        await desk.drained()


@attrs.define(eq=False)
class PermissionHook:
    """Serves one hook request for the agent ``label`` (module docstring)."""

    desk: PermissionDesk
    limit: float = HOOK_LIMIT

    async def __call__(self, scope: Scope, receive: Receive, send: Send, label: str) -> None:
        if scope.get("method") != "POST":
            await send_json(send, 405, {"error": "POST the hook's JSON here."})
            return
        try:
            body = await read_body(receive, MAX_HOOK_BODY)
        except BodyTooLargeError:
            message = f"The hook's input is over {MAX_HOOK_BODY // 1024} KiB: refused."
            await send_json(send, 413, {"error": message})
            return
        request = parse_request(body)
        if isinstance(request, HookProblem):
            await send_json(send, request.status, {"error": request.message})
            return
        opened = self.desk.open(label, request)
        if opened is None:  # not saved, or quitting: the agent's own dialog decides
            await send_json(send, 200, reply_body(Verdict(Behavior.HAND_BACK)))
            return
        try:
            verdict, why = await self._outcome(opened, receive)
            await self._finish(opened, verdict, why, send)
        finally:
            self.desk.hand_back(opened, HandBack.QUITTING)  # only if still open (cancelled)

    async def _outcome(
        self, opened: OpenRequest, receive: Receive
    ) -> tuple[Verdict, HandBack | None]:
        """The first of: a decision, the connection closing, the limit (module docstring)."""
        found: list[tuple[Verdict, HandBack | None]] = []
        with trio.move_on_after(self.limit):
            async with trio.open_nursery() as nursery:

                async def decide() -> None:
                    verdict = await self.desk.decided(opened)
                    handed = verdict.behavior is Behavior.HAND_BACK
                    why = (
                        (HandBack.QUITTING if self.desk.quitting else HandBack.GONE)
                        if handed
                        else None
                    )
                    found.append((verdict, why))
                    nursery.cancel_scope.cancel()

                async def watch() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    found.append((Verdict(Behavior.HAND_BACK), HandBack.GONE))
                    nursery.cancel_scope.cancel()

                nursery.start_soon(decide)
                nursery.start_soon(watch)
        return found[0] if found else (Verdict(Behavior.HAND_BACK), HandBack.LIMIT)

    def _why(self, verdict: Verdict) -> HandBack | None:
        """Why a verdict from the desk hands back (asks quitting, or the tab closed)."""
        if verdict.behavior is not Behavior.HAND_BACK:
            return None
        return HandBack.QUITTING if self.desk.quitting else HandBack.GONE

    async def _finish(
        self, opened: OpenRequest, verdict: Verdict, why: HandBack | None, send: Send
    ) -> None:
        if why is HandBack.GONE:
            self.desk.hand_back(opened, why)  # nobody to reply to
            return
        if why is not None:  # the reply first, so that asks quitting waits for it to go
            try:
                await _reply(send, verdict)
            finally:
                self.desk.hand_back(opened, why)
            return
        if await _reply(send, verdict):
            self.desk.replied(opened, verdict)
        else:
            self.desk.hand_back(opened, HandBack.GONE)


async def _reply(send: Send, verdict: Verdict) -> bool:
    """Send the reply, shielded for at most :data:`SEND_GRACE` seconds; was it handed over?"""
    with trio.CancelScope(shield=True, deadline=trio.current_time() + SEND_GRACE):
        try:
            await send_json(send, 200, reply_body(verdict))
        except (OSError, trio.BrokenResourceError, trio.ClosedResourceError):
            return False  # the connection broke: not delivered
        return True
    return False  # not handed over in time
