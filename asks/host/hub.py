"""The hub's port: what asks' MCP server may do for the agents outside asks.

Each agent asking through the hub is a **recipient** ``mcp:<label>`` (``label`` is its source
label, shown on its tabs). Its questions, waits and answers are its own: ``{questionId}``
entries and withdrawals may only name its questions, and only its answers are offered to it
(:mod:`asks.store.outbox` partitions delivery by recipient).

Delivery to an outside agent is an **offer** (docs/architecture.md, "The hub"):

1. :meth:`HubPort.offer_feedback` picks the agent's undelivered answers, journals
   ``feedback_offered`` and keeps them claimed (no other response can carry them);
   a blocking call's own answers are offered by the tool result itself
   (:meth:`HubPort.result_offer`).
2. The server puts the offer's text into its response and hands the response to the
   connection; then :meth:`HubPort.delivered` journals the receipt (``offer_delivered``).
3. If the connection failed first, :meth:`HubPort.released` journals ``offer_released`` and
   the answers are undelivered again, for the agent's next call.

An offer found open at replay (a crash between 1 and 2/3) may or may not have reached the
agent: its answers are offered again with :attr:`Offer.repeated` set, and the text says so.

The person's **notes** (:meth:`HubPort.note`, :mod:`asks.host.notes`) are units of the same
outbox: an offer carries an agent's undelivered answers and notes together, in save order.
The agents one can write to (:meth:`HubPort.agents`) are those seen: every label that asked in
this session's journal or was written to, and every label that called a tool since start.
"""

from __future__ import annotations

import time

import attrs

from asks import contract
from asks.core import events as ev
from asks.core.model import QuestionRef
from asks.host import calls
from asks.host.commit import GroupCommit
from asks.host.notes import feedback_of, send_note, split
from asks.host.permissions import PermissionDesk
from asks.host.rewake import RewakeDesk
from asks.host.state import HostState
from asks.host.tasks import TaskDesk
from asks.host.waits import ToolReply, Wait
from asks.store.entries import FeedbackOffered, OfferDelivered, OfferReleased

RECIPIENT_PREFIX = "mcp:"
REPEATED_NOTE = (
    "(asks could not confirm that an earlier response reached you: some of these answers may "
    "repeat ones you already have.)"
)


def recipient_of(label: str) -> str:
    """The recipient of the hub agent labelled ``label``."""
    return RECIPIENT_PREFIX + label


@attrs.frozen
class Offer:
    """Answers journaled as offered to one agent, waiting for their receipt or release."""

    offer_id: str
    refs: tuple[QuestionRef, ...]
    text: str  # the feedback message ("" for a blocking call's own result)
    repeated: bool = False  # some of them may have reached the agent before


class HubPort:
    """The MCP server's view of the host (see module docstring)."""

    __slots__ = (
        "_askers",
        "_commit",
        "_permissions",
        "_rewake",
        "_seen",
        "_sent_at",
        "_serial",
        "_state",
        "_tasks",
    )

    def __init__(self, state: HostState) -> None:
        self._state = state
        self._commit = GroupCommit(state)  # the agents' calls that arrive together
        self._serial = 0
        self._seen: dict[str, None] = {}  # labels that called a tool since start, in order
        self._askers: dict[str, calls.Asker] = {}  # one per label: its strings shared by calls
        self._sent_at: dict[QuestionRef, float] = {}  # unit → when its receipt was written
        self._tasks: TaskDesk | None = None
        self._permissions: PermissionDesk | None = None
        self._rewake: RewakeDesk | None = None

    @property
    def permissions(self) -> PermissionDesk:
        """The agents' permission requests (:mod:`asks.host.permissions`)."""
        if self._permissions is None:
            self._permissions = PermissionDesk(self._state)
        return self._permissions

    @property
    def tasks(self) -> TaskDesk:
        """The blocking calls answered as MCP tasks (:mod:`asks.host.tasks`)."""
        if self._tasks is None:
            self._tasks = TaskDesk(self._state, self)
        return self._tasks

    @property
    def rewake(self) -> RewakeDesk:
        """The agents' asyncRewake hooks (:mod:`asks.host.rewake`)."""
        if self._rewake is None:
            self._rewake = RewakeDesk(self._state, self)
        return self._rewake

    def sent_at(self, ref: QuestionRef) -> float | None:
        """When (``time.time()``) a receipt of this hub's life named ``ref``; ``None`` if
        none did (or it was before a restart)."""
        return self._sent_at.get(ref)

    # -- agents --------------------------------------------------------------------------
    def seen(self, label: str) -> None:
        """Agent ``label`` called a tool (it can be written to from now on)."""
        self._seen[label] = None

    def agents(self) -> tuple[str, ...]:
        """The labels of the agents seen (module docstring), in the order first seen."""
        found: dict[str, None] = {}
        for call_id in self._state.projection.calls:  # a hub call's id is mcp:<label>:<id>
            if call_id.startswith(RECIPIENT_PREFIX):
                found[call_id[len(RECIPIENT_PREFIX) :].partition(":")[0]] = None
        for state in self._state.projection.notes.values():
            found[state.note.recipient.removeprefix(RECIPIENT_PREFIX)] = None
        found.update(self._seen)
        return tuple(found)

    def note(self, label: str, text: str) -> QuestionRef | None:
        """Save the person's note to agent ``label``: it starts the result of that agent's next
        asks call (:mod:`asks.host.notes`). ``None`` if it could not be saved."""
        return send_note(self._state, recipient_of(label), text)

    # -- calls ---------------------------------------------------------------------------
    @staticmethod
    def recipient(label: str) -> str:
        """The recipient of agent ``label``'s questions and notes (:func:`recipient_of`)."""
        return recipient_of(label)

    @staticmethod
    def hub_call_id(label: str, call_id: str) -> str:
        """The journal's id of agent ``label``'s call ``call_id`` (its namespace: no two
        agents' calls ever meet)."""
        return f"{recipient_of(label)}:{call_id}"

    async def ask(self, label: str, call_id: str, arguments: object) -> ToolReply:
        """Run ``ask_user_question`` for agent ``label``; ``call_id`` is namespaced by it, so
        a retry of the same call maps to the same questions and two agents never collide.
        Calls that arrive together are saved with one write and fsync (:mod:`.commit`)."""
        asker = self._asker(label)
        return await self._commit.ask(self.hub_call_id(label, call_id), arguments, asker)

    async def begin(self, label: str, call_id: str, arguments: object) -> ToolReply | Wait:
        """:meth:`ask` up to its wait: saved with the calls that arrive together (as
        :meth:`ask`); the immediate reply, or the live wait for :meth:`finish`."""
        asker = self._asker(label)
        return await self._commit.start(self.hub_call_id(label, call_id), arguments, asker)

    async def finish(self, started: ToolReply | Wait) -> ToolReply:
        """The reply of a call :meth:`begin` started: at once, or once its wait ended
        (cancelled: ``interrupted``, journaled)."""
        return await calls.finish(self._state, started)

    def start_call(self, label: str, call_id: str, arguments: object) -> ToolReply | Wait:
        """:meth:`begin` on its own, synchronously (no group: its own write and fsync)."""
        asker = self._asker(label)
        return calls.start(self._state, self.hub_call_id(label, call_id), arguments, asker)

    def _asker(self, label: str) -> calls.Asker:
        """Agent ``label`` as the asker of its calls: one per label, so that its questions
        and calls share one label string and one recipient string (not two new ones a call)."""
        asker = self._askers.get(label)
        if asker is None:
            asker = self._askers[label] = calls.Asker(label, recipient_of(label))
        return asker

    def withdraw(
        self, label: str, question_ids: list[str], reason: str = ""
    ) -> contract.WithdrawReport:
        """Agent ``label`` takes its pending questions back, per id (another agent's are
        unknown to it); the report gives each id its outcome."""
        return calls.withdraw(self._state, question_ids, reason, recipient_of(label))

    def pending_ids(self, label: str) -> tuple[str, ...]:
        """The agent's questions still pending, in arrival order."""
        recipient = recipient_of(label)
        projection = self._state.projection
        return tuple(ref.id for ref in projection.pending if projection.answer_to(ref) == recipient)

    # -- offers --------------------------------------------------------------------------
    async def wait_undelivered(self, label: str) -> None:
        """Return once agent ``label`` has units to deliver (none claimed by an offer)."""
        await self._state.outbox.wait_ready(recipient_of(label))

    def offer_feedback(
        self, label: str, leave: frozenset[QuestionRef] = frozenset()
    ) -> Offer | None:
        """Offer the agent's undelivered answers as one feedback message (journaled first);
        ``leave``: units another path of the agent will carry (not offered here)."""
        host = self._state
        recipient = recipient_of(label)
        refs = tuple(r for r in host.outbox.refs(recipient) if r not in leave)
        if not refs:
            return None
        with host.operation():
            return self._offer(recipient, refs)

    def _offer(self, recipient: str, refs: tuple[QuestionRef, ...]) -> Offer | None:
        host = self._state
        repeated = any(ref in host.projection.offered for ref in refs)
        text = feedback_of(host.projection, refs)
        if repeated:
            text = f"{REPEATED_NOTE}\n{text}"
        self._serial += 1
        offer_id = f"o-{host.journal.next_seq}-{self._serial}"
        if host.append(FeedbackOffered(offer_id, refs, recipient)) is None:
            return None
        for ref in refs:
            host.outbox.claim(ref)
        return Offer(offer_id, refs, text, repeated)

    def result_offer(self, label: str, call_id: str) -> Offer | None:
        """The offer a finished blocking call's tool result wrote for its answers, if any."""
        offer_id = self.hub_call_id(label, call_id)
        refs = tuple(r for r, o in self._state.projection.offered.items() if o == offer_id)
        return Offer(offer_id, refs, "") if refs else None

    def delivered(self, offer: Offer) -> bool:
        """The response carrying ``offer`` was handed to the connection: journal the receipt.
        False if it could not be saved (the answers are then offered again later)."""
        host = self._state
        with host.operation():
            record = host.append(OfferDelivered(offer.offer_id, offer.refs))
            self._unclaim(offer)
            if record is not None:
                self._sent_at.update(dict.fromkeys(offer.refs, time.time()))
                questions, notes = split(host.projection, offer.refs)
                host.emit(ev.Delivered(questions, ev.DeliveryChannel.HUB, notes))
            host.changed()
            return record is not None

    def released(self, offer: Offer) -> None:
        """The response never reached the connection: the answers are undelivered again."""
        with self._state.operation():
            self._state.append(OfferReleased(offer.offer_id, offer.refs))
            self._unclaim(offer)
            self._state.changed()

    def _unclaim(self, offer: Offer) -> None:
        outbox = self._state.outbox
        for ref in offer.refs:
            outbox.release(ref)
        outbox.signal()


__all__ = ["RECIPIENT_PREFIX", "HubPort", "Offer", "recipient_of"]
