"""Late answers woken into an idle Claude Code session by its ``asyncRewake`` hook.

State model: docs/rewake-hook.md. Claude Code runs a ``PostToolUse`` hook marked
``"asyncRewake": true`` in the background; when it exits 2, its stderr starts a turn of the
idle session. ``asks hook rewake`` is that hook: it waits on the hub for the agent's answers
(:meth:`RewakeDesk.wait`), prints them, reports that it printed them
(:meth:`RewakeDesk.printed`), and exits 2. This desk is the hub's side; the delivery ledger is
the one every path shares (:mod:`asks.host.hub`: an offer, then a receipt or a release).

* **One waiting hook per agent.** A newer wait of the same agent supersedes the older one,
  which ends :attr:`RewakeEnd.SUPERSEDED` (its hook exits 0: no wake).
* **When it wakes.** The agent has undelivered units (none claimed by an open offer) and no
  asks call of it is running (a running call's result carries them). They are offered then —
  journaled ``feedback_offered``, claimed, so no other response carries them — except the
  answers of the agent's live MCP tasks: the client polls those, and their completed result
  carries them (one wake, not two).
* **What counts as delivered.** The hook printed the text and reported so: the receipt is
  written only then (:meth:`RewakeDesk.printed`), and the hook exits 2 only once the receipt
  was acknowledged. An offer whose report does not come within :data:`PRINT_GRACE` seconds
  (the hook was killed, the session ended), or whose response could not be handed to the hook,
  is released: its units reach the agent at its next asks call.
* **Nothing left.** An agent with no pending question and no undelivered unit (its answers
  went by another path, its questions were withdrawn) has nothing to wait for: the wait ends
  :attr:`RewakeEnd.NOTHING_LEFT` (exit 0).
* **A marked repeat, never a second answer.** The answers a wake delivered start the result
  of the agent's next asks call once more, marked as a repeat (:meth:`RewakeDesk.repeat_of`):
  Claude Code frames a hook's text as a system notice, not as the user's input, and the
  repeat gives the agent the same answers in a tool result of its own call.

Waits, offers awaiting their report and repeats are kept in memory: after a hub restart an
offer still open is offered again with the note that it may repeat, as for every path.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import attrs
import trio

from asks.core.model import QuestionRef
from asks.host.notes import feedback_of
from asks.host.tasks import clock_text

if TYPE_CHECKING:
    from asks.host.hub import HubPort, Offer
    from asks.host.state import HostState

PRINT_GRACE: Final = 30.0  # seconds from the offer handed to the hook to its report
WAKE_CLOSING: Final = (
    "(asks delivered these answers through its hook. Your next call to any asks tool — "
    "check_answers, for one — repeats them in its result, marked as a repeat, not as new "
    "answers.)"
)


class RewakeEnd(enum.StrEnum):
    """How a waiting hook's wait ended."""

    WAKE = "wake"  # an offer to print
    SUPERSEDED = "superseded"  # a newer hook of the same agent waits now
    NOTHING_LEFT = "nothing_left"  # no pending question, no undelivered unit
    LIMIT = "limit"  # the hub's limit for one wait passed


@attrs.frozen
class Rewake:
    """The end of one wait; with :attr:`RewakeEnd.WAKE`, the offer and the text to print."""

    end: RewakeEnd
    offer: Offer | None = None

    @property
    def text(self) -> str:
        return "" if self.offer is None else f"{self.offer.text}\n\n{WAKE_CLOSING}"


class RewakeDesk:
    """The agents' rewake hooks (module docstring)."""

    __slots__ = (
        "_changed",
        "_newest",
        "_port",
        "_printing",
        "_repeat",
        "_running",
        "_serial",
        "_state",
        "_unsubscribe",
        "_waiting",
    )

    def __init__(self, state: HostState, port: HubPort) -> None:
        self._state = state
        self._port = port
        self._serial = 0
        self._newest: dict[str, int] = {}  # label → the serial of its newest waiting hook
        self._running: dict[str, int] = {}  # label → its asks calls running now
        # offer id → the agent, the offer, the trio time its report is due by
        self._printing: dict[str, tuple[str, Offer, float]] = {}
        self._repeat: dict[str, dict[QuestionRef, float]] = {}  # label → woken refs → when
        self._changed = trio.Event()
        self._waiting = 0  # hooks waiting now: the host's changes are heard only then
        self._unsubscribe: Callable[[], None] | None = None

    def _poke(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    # -- the agent's calls -------------------------------------------------------------
    def call_started(self, label: str) -> None:
        """An asks call of agent ``label`` runs (its result carries what is undelivered)."""
        self._running[label] = self._running.get(label, 0) + 1

    def call_ended(self, label: str) -> None:
        self._running[label] = max(0, self._running.get(label, 0) - 1)
        self._poke()

    # -- waits -------------------------------------------------------------------------
    @property
    def waiting(self) -> int:
        """How many hooks wait now (of every agent)."""
        return self._waiting

    async def wait(self, label: str, grace: float = PRINT_GRACE) -> Rewake:
        """Wait as agent ``label``'s newest hook until it wakes, is superseded, or has
        nothing left to wait for (module docstring). A wake's offer must be reported printed
        within ``grace`` seconds (:meth:`expire` releases it after that)."""
        self._serial += 1
        mine = self._newest[label] = self._serial
        self._poke()  # an older wait of the agent ends superseded
        if not self._waiting:
            self._unsubscribe = self._state.subscribe(self._poke)
        self._waiting += 1
        try:
            while True:
                changed = self._changed
                found = self._settled(label, mine, grace)
                if found is not None:
                    return found
                await changed.wait()
        finally:
            if self._newest.get(label) == mine:
                del self._newest[label]
            self._waiting -= 1
            if not self._waiting and self._unsubscribe is not None:
                self._unsubscribe()
                self._unsubscribe = None

    def _settled(self, label: str, mine: int, grace: float) -> Rewake | None:
        if self._newest.get(label) != mine:
            return Rewake(RewakeEnd.SUPERSEDED)
        if self._running.get(label):
            return None
        recipient = self._port.recipient(label)
        tasks = self._port.tasks.carried(label)
        if any(r not in tasks for r in self._state.outbox.refs(recipient)):
            offer = self._port.offer_feedback(label, tasks)
            if offer is None:  # not saved: the journal's state says why; the next call delivers
                return Rewake(RewakeEnd.NOTHING_LEFT)
            self._printing[offer.offer_id] = (label, offer, trio.current_time() + grace)
            self._poke()  # the sweeper looks at the new deadline
            return Rewake(RewakeEnd.WAKE, offer)
        projection = self._state.projection
        waiting = any(projection.recipient(r) == recipient for r in projection.undelivered)
        if not waiting and not self._port.pending_ids(label):
            return Rewake(RewakeEnd.NOTHING_LEFT)
        return None

    # -- reports -----------------------------------------------------------------------
    def printed(self, label: str, offer_id: str) -> bool:
        """Agent ``label``'s hook printed offer ``offer_id``: journal the receipt. False if
        no such offer of that agent waits for its report (released, or another agent's), or
        the receipt could not be saved — the hook then exits 0, no wake."""
        found = self._printing.get(offer_id)
        if found is None or found[0] != label:
            return False
        del self._printing[offer_id]
        offer = found[1]
        if not self._port.delivered(offer):
            return False
        self._repeat.setdefault(label, {}).update(dict.fromkeys(offer.refs, time.time()))
        return True

    def give_back(self, offer_id: str) -> None:
        """The offer never reached its hook (the connection broke): release it."""
        found = self._printing.pop(offer_id, None)
        if found is not None:
            self._port.released(found[1])

    def expire(self) -> float | None:
        """Release the offers whose report is overdue; when the next one falls due (trio
        time), if any."""
        now = trio.current_time()
        for offer_id, (_label, _offer, due) in list(self._printing.items()):
            if now >= due:
                self.give_back(offer_id)
        return min((due for _l, _o, due in self._printing.values()), default=None)

    async def sweep(self) -> None:
        """Release overdue offers as their grace passes (runs until cancelled)."""
        while True:
            changed = self._changed
            following = self.expire()
            if following is None:
                await changed.wait()
            else:
                with trio.move_on_at(following):
                    await changed.wait()

    # -- the repeat --------------------------------------------------------------------
    def repeat_of(self, label: str) -> str | None:
        """The answers a wake delivered to agent ``label`` since its last asks call, as a
        marked repeat (once); ``None`` if there are none."""
        woken = self._repeat.pop(label, None)
        if not woken:
            return None
        moment = clock_text(max(woken.values()))
        return (
            f"(Already sent to you {moment} through asks' hook; this repeats it, it is not a "
            f"new answer.)\n{feedback_of(self._state.projection, list(woken))}"
        )
