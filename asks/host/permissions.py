"""The host's side of outside agents' permission requests (docs/permission-prompts.md).

A request is one question (:func:`asks.core.permission.permission_spec`) of the agent's label
with recipient ``perm:<label>`` and call id ``perm:<label>:<n>``: a tab like any other, not
blocking (it opens no wait: it never claims the keys). :class:`PermissionDesk`:

* :meth:`PermissionDesk.open` journals it (``group_asked``); its unit is claimed from the
  outbox for its whole life (a permission decision is the hook's reply, never feedback);
* :meth:`PermissionDesk.decided` waits until the person resolved it (allow, or deny with a
  reason), or the desk was told to hand everything back (:meth:`PermissionDesk.quit`);
* :meth:`PermissionDesk.replied` — the reply was handed to the connection: ``tool_result``
  (``answered``, delivering the question: the receipt) and ``permission_decided``, one write;
* :meth:`PermissionDesk.hand_back` — never answered (limit, quitting, the connection closed):
  ``withdrawn`` (reason ``permission handed back: WHY``, the tab goes with a notice) and an
  ``interrupted`` ``tool_result``, one write. If the person had answered but the reply could
  not be sent, the ``tool_result`` closes the answer too (no later delivery is possible).

:func:`close_dangling` is the resume rule: a request found open in the journal lost its
connection with its process — it is handed back (``asks was restarted``), never re-asked.
"""

from __future__ import annotations

import itertools
import secrets
from typing import TYPE_CHECKING

import attrs
import trio

from asks.core import events as ev
from asks.core.i18n import _
from asks.core.model import Outcome, Question, QuestionRef, QuestionStatus
from asks.core.permission import (
    Behavior,
    HandBack,
    PermissionRequest,
    Verdict,
    permission_spec,
    recipient_of,
    verdict_of,
)
from asks.host.calls import group_id
from asks.sanitize import sanitize_line
from asks.store.entries import GroupAsked, PermissionDecided, ToolResult, Withdrawn

if TYPE_CHECKING:
    from asks.host.state import HostState

CALL_PREFIX = "perm:"
HANDED_BACK = "permission handed back: "


def is_permission_call(call_id: str) -> bool:
    """Is ``call_id`` an agent's permission request (not a tool call)?"""
    return call_id.startswith(CALL_PREFIX)


@attrs.frozen
class OpenRequest:
    """A request the desk journaled and whose hook connection waits for the reply."""

    label: str
    call_id: str
    ref: QuestionRef
    request: PermissionRequest

    def line(self) -> str:
        """``builder · Bash: npm test`` (sanitized: for notices and the transcript)."""
        return sanitize_line(f"{self.label} · {self.request.chip()}")


class PermissionDesk:
    """Opens, awaits and closes permission requests on the host (module docstring)."""

    __slots__ = ("_changed", "_open", "_quitting", "_serial", "_state")

    def __init__(self, state: HostState) -> None:
        self._state = state
        self._serial = itertools.count(1)
        self._open: dict[QuestionRef, OpenRequest] = {}
        self._quitting = False
        self._changed = trio.Event()  # set (and replaced) at every host change while any wait
        state.subscribe(self._on_change)

    @property
    def quitting(self) -> bool:
        """Was :meth:`quit` called (every request is handed back)?"""
        return self._quitting

    @property
    def open_requests(self) -> tuple[OpenRequest, ...]:
        """The requests waiting for a decision, in arrival order."""
        return tuple(self._open.values())

    def open(self, label: str, request: PermissionRequest) -> OpenRequest | None:
        """Journal agent ``label``'s request as a tab; ``None`` if it could not be saved (or
        asks is quitting): the caller hands back."""
        state = self._state
        if self._quitting or not state.ui_attached:
            return None
        call_id = f"{CALL_PREFIX}{label}:{next(self._serial)}-{secrets.token_hex(4)}"
        session = state.projection.session_id
        ref = QuestionRef(f"q-{secrets.token_hex(5)}", state.journal.next_seq)
        question = Question(
            ref, group_id(session, call_id), 0, permission_spec(request), label, recipient_of(label)
        )
        with state.operation():
            if state.append(GroupAsked(call_id, question.group_id, (question,), False)) is None:
                return None
            state.outbox.claim(ref)
            state.asked(call_id, (question,), False)
            opened = self._open[ref] = OpenRequest(label, call_id, ref, request)
            state.changed()
        return opened

    def verdict(self, opened: OpenRequest) -> Verdict | None:
        """The decision if there is one now: the person's, or a hand-back once quitting or
        once the question closed otherwise; ``None`` while it waits."""
        state = self._state.projection.by_ref.get(opened.ref)
        if state is not None and state.resolution is not None:
            return verdict_of(state.resolution)
        if self._quitting or state is None or state.status is not QuestionStatus.PENDING:
            return Verdict(Behavior.HAND_BACK)
        return None

    async def decided(self, opened: OpenRequest) -> Verdict:
        """Wait for :meth:`verdict` (the person's answer, or a hand-back)."""
        while (found := self.verdict(opened)) is None:
            await self._changed.wait()
        return found

    def replied(self, opened: OpenRequest, verdict: Verdict) -> None:
        """The reply carrying ``verdict`` was handed to the connection: the receipt."""
        if self._open.pop(opened.ref, None) is None:
            return
        allowed = verdict.behavior is Behavior.ALLOW
        text = "allow" if allowed else f"deny: {verdict.reason}"
        details = {"agent": opened.label, "tool": opened.request.tool, "behavior": text}
        state = self._state
        with state.operation():
            state.outbox.release(opened.ref)
            state.append(
                ToolResult(opened.call_id, Outcome.ANSWERED, text, details, (opened.ref,)),
                PermissionDecided(opened.call_id, opened.line(), allowed),
            )
            state.emit(ev.Delivered((opened.ref,), ev.DeliveryChannel.HUB))
            state.changed()
        self._wake()

    def hand_back(self, opened: OpenRequest, why: HandBack) -> None:
        """Never answered (or the answer could not be sent): close it (module docstring)."""
        if self._open.pop(opened.ref, None) is None:
            return
        state = self._state
        reason = HANDED_BACK + why.value
        with state.operation():
            state.outbox.release(opened.ref)
            pending = state.is_pending(opened.ref)
            entries = [Withdrawn((opened.ref,), reason)] if pending else []
            delivered = () if pending else (opened.ref,)
            details = {"agent": opened.label, "tool": opened.request.tool, "handed_back": why.name}
            result = ToolResult(opened.call_id, Outcome.INTERRUPTED, reason, details, delivered)
            if state.append(*entries, result) is not None and pending:
                state.drop_draft(opened.ref)
                state.emit(ev.QuestionsWithdrawn((opened.ref,), reason))
                state.say(handed_back_notice(opened.line(), why))
            state.changed()
        self._wake()

    async def drained(self) -> None:
        """Wait until no request is open."""
        while self._open:
            await self._changed.wait()

    def quit(self) -> None:
        """asks is quitting: every open request is handed back, and no new one opens."""
        self._quitting = True
        self._wake()

    def _on_change(self) -> None:
        if self._open or self._quitting:
            self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


def close_dangling(state: HostState) -> None:
    """Resume: every permission request found open is handed back, never re-asked (one
    ``withdrawn`` and ``tool_result`` per request)."""
    for call in list(state.projection.open_calls.values()):
        if not is_permission_call(call.call_id):
            continue
        pending = tuple(r for r in call.refs if r in state.projection.pending)
        reason = HANDED_BACK + HandBack.RESTARTED.value
        delivered = tuple(r for r in call.refs if r not in pending)
        entries = [Withdrawn(pending, reason)] if pending else []
        result = ToolResult(call.call_id, Outcome.INTERRUPTED, reason, {}, delivered)
        state.append(*entries, result)


def handed_back_notice(request: str, why: HandBack) -> str:
    """The notice when a request's tab goes without the person's answer."""
    reasons = {
        HandBack.LIMIT: _("its time limit was reached"),
        HandBack.GONE: _("answered in the agent's own dialog, or the agent gave up"),
        HandBack.QUITTING: _("asks is quitting"),
        HandBack.RESTARTED: _("asks was restarted"),
    }
    return _("{request}: handed back to the agent's own dialog ({why})").format(
        request=request, why=reasons[why]
    )
