"""The life of a wait: opening it, settling it when its questions close, finishing it once.

:class:`WaitLife` is the host's collaborator for the waits seam. Finishing a wait writes its
``tool_result`` line — the receipt of what it delivers — before the lease ends and anyone is
told (save before notify); then the wait's caller gets its reply, the outbox may release
claimed answers, and, when the last wait ended, focus goes back where the claim took it from
(back to the origin): the async tab the panel showed, if still pending, else the loan origin.

:func:`interrupt` ends every live wait ``interrupted`` (Ctrl+C, shutdown); :func:`detach_ui`
does so because the UI went away, after which every call gets ``no_ui``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from asks import contract
from asks.contract import ResultEnvelope
from asks.core import events as ev
from asks.core.focus import Focus
from asks.core.model import Outcome, Question, QuestionRef, QuestionStatus, Resolution
from asks.core.refusal import Refusal
from asks.core.tabs import TabStrip
from asks.host.waits import ToolReply, Wait, WaitBook
from asks.store.entries import Entry, FeedbackOffered, Record, ToolResult
from asks.store.journal import Journal
from asks.store.outbox import Outbox
from asks.store.projection import Projection, ProjectionView

if TYPE_CHECKING:
    from asks.host.state import HostState


class WaitCore(Protocol):
    """What the wait lifecycle needs from the orchestrator."""

    journal: Journal
    projection: Projection
    outbox: Outbox
    focus: Focus

    def append(self, entry: Entry, *more: Entry) -> Record | None: ...
    def emit(self, event: ev.HostEvent) -> None: ...
    def item(self, ref: QuestionRef) -> tuple[Question, Resolution]: ...
    def recompute_tabs(self) -> None: ...


def group_notes(
    projection: ProjectionView, refs: Iterable[QuestionRef]
) -> list[contract.GroupNote]:
    """The person's notes saved with the resolutions of ``refs``, with their questions' ids."""
    return [
        contract.GroupNote(note, tuple(r.id for r in given))
        for note, given in projection.group_notes(refs)
    ]


class WaitLife:
    """Opens, settles and finishes waits (see module docstring)."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("book", "core", "strip")

    def __init__(self, core: WaitCore, book: WaitBook, strip: TabStrip) -> None:
        self.core = core
        self.book = book
        self.strip = strip

    def open_wait(self, call_id: str, refs: tuple[QuestionRef, ...]) -> Wait:
        wait = Wait(call_id, refs)
        self.strip.invalidate()
        pending = tuple(r for r in refs if r in self.core.projection.pending)
        self.book.add(wait, pending)
        for ref in refs:
            if ref not in self.core.projection.pending:
                self.core.outbox.claim(ref)
        source = self.core.projection.asker(refs[0])
        self.core.emit(ev.WaitOpened(call_id, refs, source))
        if not pending:
            self.finish_wait(wait, Outcome.ANSWERED)
        return wait

    def settle_waits(self, refs: Iterable[QuestionRef]) -> None:
        """Finish every wait whose questions are all closed now."""
        live = {w for r in refs if (w := self.book.of_ref(r)) is not None}
        for wait in live:
            if all(r not in self.core.projection.pending for r in wait.refs):
                self.finish_wait(wait, self._closed_outcome(wait))

    def _closed_outcome(self, wait: Wait) -> Outcome:
        kinds = [self.core.projection.by_ref[r].status for r in wait.refs]
        if all(k is QuestionStatus.WITHDRAWN for k in kinds):
            return Outcome.WITHDRAWN
        if all(k is QuestionStatus.DECLINED for k in kinds):
            return Outcome.DECLINED
        return Outcome.ANSWERED

    def finish_wait(self, wait: Wait, outcome: Outcome, reason: str = "") -> None:
        """Write the tool result (the receipt), end the lease, then move focus.

        A hub agent's wait (its questions have a recipient) writes the result with an *offer*
        instead of a receipt: the answers stay claimed until the hub has handed the response
        to the connection (:mod:`asks.host.hub`). A detached wait (an MCP task holds it, no
        request waits for it) delivers nothing: its answers go to the agent's outbox."""
        envelope, delivered = self._wait_envelope(wait, outcome, reason)
        if wait.detached:
            delivered = ()
        recipient = self.core.projection.brief(wait.refs[0]).recipient
        offer = (
            ()
            if recipient is None or not delivered
            else (FeedbackOffered(wait.call_id, delivered, recipient),)
        )
        record = self.core.append(
            ToolResult(
                wait.call_id,
                envelope.outcome,
                envelope.text,
                envelope.details,
                () if offer else delivered,
            ),
            *offer,
        )
        self.book.remove(wait)
        self.strip.invalidate()
        kept = delivered if offer and record is not None else ()
        for ref in wait.refs:
            if ref in kept:
                self.core.outbox.claim(ref)  # until the hub's receipt or release
            else:
                self.core.outbox.release(ref)
        reply: ToolReply = (
            envelope
            if record is not None
            else contract.result_not_saved(self.core.journal.state.value)
        )
        wait.finish(reply)
        self.core.emit(ev.WaitEnded(wait.call_id, wait.refs, outcome))
        if record is not None and delivered and not offer:
            self.core.emit(ev.Delivered(delivered, ev.DeliveryChannel.TOOL_RESULT))
        self.core.outbox.signal()
        if not self.book:
            self._after_last_wait()

    def _wait_envelope(
        self, wait: Wait, outcome: Outcome, reason: str
    ) -> tuple[ResultEnvelope, tuple[QuestionRef, ...]]:
        states = [self.core.projection.by_ref[r] for r in wait.refs]
        questions = [s.question for s in states]
        pending = [s.question for s in states if s.status is QuestionStatus.PENDING]
        resolved = tuple(s.question.ref for s in states if s.resolution is not None)
        call_id = wait.call_id
        match outcome:
            case Outcome.ANSWERED | Outcome.PARTIAL:
                items = [self.core.item(r) for r in resolved]
                notes = group_notes(self.core.projection, resolved)
                return contract.answered_result(call_id, items, pending, notes), resolved
            case Outcome.DECLINED:
                notes = group_notes(self.core.projection, resolved)
                return contract.declined_result(call_id, questions, notes), resolved
            case Outcome.DEFERRED:
                return contract.deferred_result(call_id, pending), ()
            case Outcome.WITHDRAWN:
                return contract.withdrawn_result(call_id, questions), ()
            case _:
                return contract.interrupted_result(call_id, pending, reason), ()

    def _after_last_wait(self) -> None:
        """Back to the origin: whatever ended the last blocker, focus goes back where the claim
        took it from: the async tab the panel showed (if still pending), else the loan origin."""
        claim = self.core.focus.end_claim()
        if claim is None:
            return
        self.core.recompute_tabs()
        prior = claim.prior_tab
        if isinstance(prior, QuestionRef) and prior in self.strip:
            self.strip.select(prior)
            self.core.focus.hand_back()  # an editor there is not chosen again yet (handed keys)
        else:  # under a foreign prompt, the prompt returns the keys to the origin instead
            self.core.focus.leave_panel()

    # -- ending a wait on request (other surfaces) ------------------------------------------
    def _of_id(self, question_id: str) -> Wait | None:
        ref = self.core.projection.current.get(question_id)
        return None if ref is None else self.book.of_ref(ref)

    def defer(self, question_id: str) -> Refusal | None:
        wait = self._of_id(question_id)
        if wait is None:
            return Refusal.NOT_BLOCKING
        self.finish_wait(wait, Outcome.DEFERRED)
        return None

    def submit_partial(self, question_id: str) -> Refusal | None:
        wait = self._of_id(question_id)
        if wait is None:
            return Refusal.NOT_BLOCKING
        if all(r in self.core.projection.pending for r in wait.refs):
            return Refusal.NOTHING_ANSWERED
        self.finish_wait(wait, Outcome.PARTIAL)
        return None


def interrupt(state: HostState, reason: str) -> None:
    """End every live wait ``interrupted`` (one operation); questions stay pending."""
    with state.operation():
        for wait in state.waits:
            state.finish_wait(wait, Outcome.INTERRUPTED, reason)
        state.changed()


def detach_ui(state: HostState) -> None:
    """No UI any more: live waits end ``interrupted``; later calls get ``no_ui``."""
    with state.operation():
        state.ui_attached = False
        interrupt(state, "the question panel was detached")
