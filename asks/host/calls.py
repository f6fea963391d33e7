"""Tool-call intake: how one ``ask_user_question`` call becomes questions, a wait or a reply.

* A new call with new questions journals a ``group_asked`` line (the question ids derive from
  session + call id, so a retry can never duplicate them); blocking → a live wait, async → a
  ``queued`` result at once.
* ``{questionId}`` entries open a wait on existing questions (``wait_opened``); a question that
  is already answered but undelivered satisfies it at once, one already delivered gives
  ``already_received``.
* A call id seen before: the same request is a retry (same wait, same result); different
  questions while the old ones are open is a ``call_conflict``; after they closed, a new
  incarnation.
* Resume: a call without a result gets one (``interrupted`` if it was blocking).
* The asker (:class:`Asker`): its source label is shown; its recipient gets the answers, and
  ``{questionId}`` entries may only name its own questions (another recipient's are unknown).
* :func:`ask` and :func:`withdraw` are the operations the agent's and the hub's ports share:
  a call is one operation of the host's state until its wait (if any) is live; awaiting the
  wait is outside any operation; a cancelled call ends its wait ``interrupted`` (journaled).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import attrs

from asks import contract
from asks.contract import NewQuestions, ResultEnvelope
from asks.core import events as ev
from asks.core.model import (
    Outcome,
    Question,
    QuestionRef,
    QuestionStatus,
    check_source,
    question_id,
)
from asks.host.waits import ToolReply, Wait, WaitBook
from asks.store.entries import Entry, GroupAsked, Record, ToolResult, WaitOpened, Withdrawn
from asks.store.journal import Journal
from asks.store.outbox import Outbox
from asks.store.projection import CallState, Projection
from asks.store.records import RecordUnreadable

if TYPE_CHECKING:
    from asks.host.state import HostState


class IntakeCore(Protocol):
    """What call intake needs from the orchestrator."""

    journal: Journal
    projection: Projection
    waits: WaitBook
    outbox: Outbox

    def append(self, entry: Entry, *more: Entry) -> Record | None: ...
    def open_wait(self, call_id: str, refs: tuple[QuestionRef, ...]) -> Wait: ...
    def asked(self, call_id: str, questions: Sequence[Question], blocking: bool) -> None: ...


@attrs.frozen
class Asker:
    """Who makes a call: the label shown (``source``) and who gets the answers."""

    source: str | None = None
    recipient: str | None = None


async def ask(state: HostState, call_id: str, arguments: object, asker: Asker) -> ToolReply:
    """Run one ``ask_user_question`` call; returns once a blocking call's wait ended."""
    return await finish(state, start(state, call_id, arguments, asker))


async def finish(state: HostState, started: ToolReply | Wait) -> ToolReply:
    """A started call's reply: at once, or once its wait ended (cancelled: ``interrupted``,
    journaled)."""
    if not isinstance(started, Wait):
        return started
    try:
        return await started.result()
    finally:
        if not started.done:
            with state.operation():
                state.finish_wait(started, Outcome.INTERRUPTED, "the tool call was cancelled")
                state.changed()


def start(state: HostState, call_id: str, arguments: object, asker: Asker) -> ToolReply | Wait:
    """Validate and save a call (one operation); its immediate reply or the live wait."""
    with state.operation():
        label = check_source(asker.source)
        if not state.ui_attached:
            return contract.no_ui()
        call = contract.validate_call(arguments)
        if isinstance(call, contract.ToolError):
            return call
        try:
            reply = start_call(state, call_id, call, Asker(label, asker.recipient))
        except RecordUnreadable as exc:  # read before anything was saved (fleet-scale.md)
            return contract.record_unreadable(str(exc))
        state.changed()
        return reply


def withdraw(
    state: HostState, question_ids: Sequence[str], reason: str, recipient: str | None
) -> contract.WithdrawReport:
    """Take back, per id, the pending questions of ``recipient`` (journaled in one line,
    drafts dropped), then end the waits they closed; the event is told once those waits ended
    too (:mod:`asks.host.announce`). Each id gets its own outcome (:class:`WithdrawReport`)."""
    with state.operation():
        try:
            items = classify_withdraw(state.projection, question_ids, recipient)
        except RecordUnreadable:  # a text to report could not be read: nothing withdrawn
            items = classify_withdraw(state.projection, question_ids, recipient, texts=False)
            return contract.WithdrawReport(_not_saved(items), reason)
        known = tuple(
            ref
            for item in items
            if item.outcome is contract.WithdrawOutcome.WITHDRAWN
            and (ref := state.projection.current.get(item.question_id)) is not None
        )
        if known and state.append(Withdrawn(known, reason)) is None:
            return contract.WithdrawReport(_not_saved(items), reason)
        for ref in known:
            state.drop_draft(ref)
        if known:
            state.emit(ev.QuestionsWithdrawn(known, reason))
            state.settle_waits(known)
            state.changed()
        return contract.WithdrawReport(items, reason)


def _not_saved(items: tuple[contract.WithdrawItem, ...]) -> tuple[contract.WithdrawItem, ...]:
    return tuple(
        attrs.evolve(item, outcome=contract.WithdrawOutcome.NOT_SAVED)
        if item.outcome is contract.WithdrawOutcome.WITHDRAWN
        else item
        for item in items
    )


def group_id(session_id: str, call_id: str) -> str:
    digest = hashlib.blake2s(f"{session_id}\x00{call_id}".encode(), digest_size=5).hexdigest()
    return f"g-{digest}"


def same_request(call: CallState, request: contract.Call) -> bool:
    """Is ``request`` a retry of ``call`` (same kind, same questions)?"""
    asked = call.group_asked
    if isinstance(request, NewQuestions):
        return (
            asked is not None
            and request.blocking == asked.blocking
            and request.specs == tuple(q.spec for q in asked.questions)
        )
    return asked is None and request.question_ids == tuple(r.id for r in call.refs)


def start_call(
    core: IntakeCore, call_id: str, call: contract.Call, asker: Asker
) -> ToolReply | Wait:
    """Save a validated call; return its immediate reply or the live wait."""
    existing = core.projection.calls.get(call_id)
    if existing is not None:
        return _repeat_call(core, existing, call_id, call, asker)
    if isinstance(call, NewQuestions):
        return _new_group(core, call_id, call, asker)
    return _wait_on(core, call_id, call.question_ids, asker.recipient)


def _new_group(
    core: IntakeCore, call_id: str, call: NewQuestions, asker: Asker
) -> ToolReply | Wait:
    asked = group_asked(core.projection.session_id, call_id, call, asker, core.journal.next_seq)
    questions = asked.questions
    if call.blocking:
        if core.append(asked) is None:
            return contract.storage_failed(core.journal.state.value)
        core.asked(call_id, questions, call.blocking)
        return core.open_wait(call_id, tuple(q.ref for q in questions))
    # async: the questions and their queued result in one write and fsync (all or none)
    envelope, result = queued(asked)
    if core.append(asked, result) is None:
        return contract.storage_failed(core.journal.state.value)
    core.asked(call_id, questions, call.blocking)
    return envelope


def group_asked(
    session: str, call_id: str, call: NewQuestions, asker: Asker, incarnation: int
) -> GroupAsked:
    """The ``group_asked`` line of a new call whose line gets sequence number
    ``incarnation`` (its questions' incarnation)."""
    group = group_id(session, call_id)
    questions = tuple(
        Question(
            QuestionRef(question_id(session, call_id, i), incarnation),
            group,
            i,
            spec,
            asker.source,
            asker.recipient,
        )
        for i, spec in enumerate(call.specs)
    )
    return GroupAsked(call_id, group, questions, call.blocking)


def queued(asked: GroupAsked) -> tuple[ResultEnvelope, ToolResult]:
    """An async call's reply and its ``tool_result`` line (saved with ``asked``)."""
    envelope = contract.queued_result(asked.call_id, asked.questions)
    return envelope, ToolResult(asked.call_id, envelope.outcome, envelope.text, envelope.details)


def _wait_on(
    core: IntakeCore, call_id: str, question_ids: Sequence[str], recipient: str | None
) -> ToolReply | Wait:
    states = [core.projection.state_of(qid) for qid in question_ids]
    unknown = [
        qid
        for qid, st in zip(question_ids, states, strict=True)
        if st is None or st.status is QuestionStatus.WITHDRAWN or st.briefed[2] != recipient
    ]
    if unknown:
        return contract.unknown_question(unknown)
    live = [st for st in states if st is not None]
    # busy: a pending question a live wait holds, or a saved one a live wait claimed (it will
    # deliver it): a second wait on either would deliver the same answer twice
    busy = [
        st.question.id
        for st in live
        if core.waits.holds(st.question.ref)
        or (not st.delivered and core.outbox.is_claimed(st.question.ref))
    ]
    if busy:
        return contract.already_waiting(busy)
    refs = tuple(st.question.ref for st in live if not st.delivered)
    if not refs:
        envelope = contract.already_received_result(call_id, [s.question for s in live])
        return reply_only(core, call_id, envelope)
    if core.append(WaitOpened(call_id, refs)) is None:
        return contract.storage_failed(core.journal.state.value)
    return core.open_wait(call_id, refs)


def _repeat_call(
    core: IntakeCore, call: CallState, call_id: str, request: contract.Call, asker: Asker
) -> ToolReply | Wait:
    """A call id seen before: a retry gets the same answer; a reuse needs closed questions.
    Its group and result are read back from the journal (fleet-scale.md, "lean"): a failed
    read answers ``storage_failed``, nothing saved."""
    try:
        same = same_request(call, request)
        live = core.waits.of_call(call_id) if same else None
        if live is not None:
            return live
        result = call.result if same else None
    except RecordUnreadable as exc:
        return contract.result_unreadable(str(exc))
    if result is not None:
        return _repeat_result(core, result, call)
    if all(r not in core.projection.pending for r in call.refs) and isinstance(
        request, NewQuestions
    ):
        return _new_group(core, call_id, request, asker)
    return _conflict(core, call, call_id, asker)


def _conflict(core: IntakeCore, call: CallState, call_id: str, asker: Asker) -> ToolReply:
    """``call_conflict`` naming the agent and the earlier call (its questions, when); a hub
    agent's id as it sent it (without the recipient the host namespaces it by)."""
    shown = call_id.removeprefix(f"{asker.recipient}:") if asker.recipient else call_id
    earlier = [
        contract.EarlierQuestion(
            ref.id, core.projection.question(ref).spec.question, ref in core.projection.pending
        )
        for ref in call.refs
    ]
    return contract.call_conflict(shown, asker.source, earlier, call.asked_at)


def _repeat_result(core: IntakeCore, result: ToolResult, call: CallState) -> ToolReply:
    if result.delivered:
        questions = [core.projection.question(r) for r in call.refs]
        return contract.already_received_result(call.call_id, questions)
    return ResultEnvelope(result.outcome, result.text, result.details)


def reply_only(core: IntakeCore, call_id: str, envelope: ResultEnvelope) -> ToolReply:
    """Journal a result that opens nothing (keeps the conversation complete)."""
    core.append(ToolResult(call_id, envelope.outcome, envelope.text, envelope.details))
    return envelope


def classify_withdraw(
    projection: Projection, question_ids: Sequence[str], recipient: str | None, texts: bool = True
) -> tuple[contract.WithdrawItem, ...]:
    """What withdrawing each id would do for ``recipient``: pending → withdrawn; answered or
    declined → already answered; never asked, withdrawn, or another recipient's → unknown (a
    question of another recipient is unknown to it, text included). Each question's text is
    read back (``texts``; else left out): :class:`RecordUnreadable` if it cannot be."""
    items = []
    for qid in question_ids:
        st = projection.state_of(qid)
        if st is None or st.briefed[2] != recipient:
            items.append(contract.WithdrawItem(qid, contract.WithdrawOutcome.UNKNOWN))
            continue
        outcome = _WITHDRAW_OUTCOME[st.status]
        text = st.question.spec.question if texts else ""
        items.append(contract.WithdrawItem(qid, outcome, text))
    return tuple(items)


_WITHDRAW_OUTCOME = {
    QuestionStatus.PENDING: contract.WithdrawOutcome.WITHDRAWN,
    QuestionStatus.ANSWERED: contract.WithdrawOutcome.ALREADY_ANSWERED,
    QuestionStatus.DECLINED: contract.WithdrawOutcome.ALREADY_ANSWERED,
    QuestionStatus.WITHDRAWN: contract.WithdrawOutcome.UNKNOWN,
}


def close_dangling_calls(core: IntakeCore) -> None:
    """Resume: a call with no result gets one (interrupted if blocking); never replayed."""
    for call in list(core.projection.open_calls.values()):
        if call.call_id.startswith("perm:"):  # asks/host/permissions.py closes those
            continue
        questions = [core.projection.question(r) for r in call.refs]
        if call.blocking:
            pending = [q for q in questions if q.ref in core.projection.pending]
            envelope = contract.interrupted_result(
                call.call_id, pending, "the session was restarted"
            )
        else:
            envelope = contract.queued_result(call.call_id, questions)
        reply_only(core, call.call_id, envelope)
