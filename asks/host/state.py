"""The host's shared state: what the ports and the collaborators of one session work on.

Like trio's ``MemoryChannelState`` behind a channel's send and receive ends, one
:class:`HostState` sits behind the ports (:mod:`.agentport`, :mod:`.surfaceport`,
:mod:`.panelport`, :mod:`.hub`) and is the "core" every collaborator is given
(:mod:`.calls`, :mod:`.lifecycle`, :mod:`.answering`, :mod:`.commands`, :mod:`.keys`,
:mod:`.keeper`, :mod:`.notes`). It is private: an embedder holds the
:class:`~asks.host.host.QuestionHost` facade and its ports, which cannot journal an arbitrary
entry or emit an event.

It holds the journal (what must last), the projection (what is on disk, in memory), the outbox,
the live waits, the drafts, the tab strip, the focus, the panel seam's mode and armed command,
the key desk's notice, and the :class:`~asks.host.announce.Announcer` (events and change
listeners). **Save before notify** lives here, in four primitives: :meth:`HostState.append`
journals then projects (on failure: a sticky notice, ``StorageFailed``, ``None``);
:meth:`HostState.save` saves resolutions; :meth:`HostState.emit` queues an event;
:meth:`HostState.changed` re-derives tabs and focus consistency (a lost panel focus goes back,
live waits claim) and marks the views stale. Events and notices are told when the outermost
``state.operation()`` ends (:mod:`.announce`), so a listener sees the state consistent
and a raising one changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from asks.core import events as ev
from asks.core.agents import Agent, AgentOrder
from asks.core.drafts import DraftBook
from asks.core.focus import Focus
from asks.core.i18n import _
from asks.core.model import Outcome, Question, QuestionRef, Resolution
from asks.core.refusal import Refusal
from asks.core.tabs import TabKey, TabStrip
from asks.host import calls, permissions
from asks.host.announce import Announcer
from asks.host.commands import PanelCommands
from asks.host.gone import KeysWatch
from asks.host.keeper import DraftKeeper
from asks.host.keys import KeyDesk
from asks.host.lifecycle import WaitLife
from asks.host.stats import snapshot
from asks.host.waits import Wait, WaitBook
from asks.store.entries import Entry, Record, Resolved
from asks.store.journal import Journal, StorageError
from asks.store.outbox import Outbox
from asks.store.projection import Projection


class HostState:
    """One session's questions, waits, drafts, tabs and focus (see module docstring)."""

    def __init__(
        self,
        journal: Journal,
        records: Iterable[Record],
        *,
        focus: Focus | None,
        clock: Callable[[], float],
        ui_attached: bool,
    ) -> None:
        self.journal = journal
        self.projection = Projection(session_id=journal.session_id)
        self.projection.apply_all(records)
        # the tool results saved from now on are read back by number (docs/fleet-scale.md)
        if (read := journal.reader(self.projection.records)) is not None:
            self.projection.read_back(read)
        journal.keep_checkpoint(self.projection)  # its resume cache (asks/store/checkpoint.py)
        self.agents = AgentOrder()
        self._seed_agents()
        self.focus = focus or Focus.of_screen()
        self.outbox = Outbox(self.projection)
        self.waits = WaitBook()
        self.ui_attached = ui_attached
        self.agent_running = False
        self.clock = clock
        self.drafts = DraftBook()
        self.strip = TabStrip()
        self.announcer = Announcer(
            self._listener_failed, lambda: snapshot(self), self._operation_opens
        )
        # ``with state.operation():`` around every port call (asks/host/announce.py)
        self.operation: Callable[[], Announcer] = self.announcer.operation
        self.panel = PanelCommands(self, self.waits, self.drafts, self.strip)
        self.life = WaitLife(self, self.waits, self.strip)
        self.keys = KeyDesk(self, self.panel, clock, self.notify, self.changed)
        self.watch = KeysWatch(self, clock, self._review_refs)
        self.keeper = DraftKeeper.beside(self, self.drafts, journal)  # saves and restores them
        with self.operation():
            calls.close_dangling_calls(self)
            permissions.close_dangling(self)
            self.changed()

    # -- reading ----------------------------------------------------------------------------
    @property
    def tabs(self) -> tuple[TabKey, ...]:
        return self.strip.tabs

    @property
    def selected(self) -> TabKey | None:
        return self.strip.selected

    def question(self, ref: QuestionRef) -> Question:
        return self.projection.question(ref)

    def is_pending(self, ref: QuestionRef) -> bool:
        return ref in self.projection.pending

    def is_required(self, tab: TabKey) -> bool:
        return self.panel.is_required(tab)

    def item(self, ref: QuestionRef) -> tuple[Question, Resolution]:
        state = self.projection.by_ref[ref]
        assert state.resolution is not None
        return state.question, state.resolution

    def target_tab(self, tab: TabKey | None) -> TabKey | None:
        """``tab`` if it is shown, else the selected tab (what a command without one acts on)."""
        return tab if tab is not None and tab in self.strip else self.selected

    # -- saving: save before notify -----------------------------------------------------------
    def append(self, entry: Entry, *more: Entry) -> Record | None:
        """Journal then project (``more`` in the same write and fsync: all or none); on failure
        set a notice, publish it, return ``None``. Returns the first record."""
        try:
            records = self.journal.append_all((entry, *more))
        except StorageError as exc:
            message = self.say(_("Not saved: {why}").format(why=exc), sticky=True)
            self.emit(ev.StorageFailed(message))
            return None
        for record in records:
            self.projection.apply(record)
        self.strip.invalidate()
        return records[0]

    def save(
        self, resolutions: Sequence[Resolution], source: str = "panel", group_note: str = ""
    ) -> bool:
        """Save resolutions (one line, with the person's note for all of them if any); on
        success drop their drafts and signal the outbox."""
        if self.append(Resolved(tuple(resolutions), source, group_note.strip())) is None:
            notice = self.keys.notice
            self.say(_("{notice} Your draft is kept.").format(notice=notice), sticky=True)
            return False
        refs = tuple(r.ref for r in resolutions)
        for ref in refs:
            self.drop_draft(ref)
        self.emit(ev.AnswerSaved(refs, tuple(r.kind for r in resolutions), source))
        self.outbox.signal()
        return True

    def drop_draft(self, ref: QuestionRef) -> None:
        """Forget the draft of a question that closed (the keys' watch keeps it if the keys
        were on it, to say what was not sent)."""
        self.watch.dropping(ref, self.drafts.get(ref))
        self.drafts.drop(ref)

    def _operation_opens(self) -> None:
        """An outermost operation begins: the keys' watch notes the tab at the keys as it was
        (keys and timers move focus between changes)."""
        self.watch.record()

    def _review_refs(self, call_id: str) -> tuple[QuestionRef, ...]:
        wait = self.waits.of_call(call_id)
        return () if wait is None else tuple(wait.refs)

    # -- waits (the lifecycle collaborator's, for the other collaborators) -------------------
    def asked(self, call_id: str, questions: Sequence[Question], blocking: bool) -> None:
        refs = tuple(q.ref for q in questions)
        self.emit(ev.QuestionAsked(call_id, refs, blocking, questions[0].source))

    def open_wait(self, call_id: str, refs: tuple[QuestionRef, ...]) -> Wait:
        return self.life.open_wait(call_id, refs)

    def settle_waits(self, refs: Iterable[QuestionRef]) -> None:
        """Finish every wait whose questions are all closed now."""
        self.life.settle_waits(refs)

    def finish_wait(self, wait: Wait, outcome: Outcome, reason: str = "") -> None:
        self.life.finish_wait(wait, outcome, reason)

    # -- telling -------------------------------------------------------------------------------
    def emit(self, event: ev.HostEvent) -> None:
        self.announcer.emit(event)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        return self.announcer.changes.add(lambda _: listener())

    def say(self, notice: str, *, sticky: bool = False) -> str:
        self.keys.say(notice, sticky=sticky)
        self.notify()
        return notice

    def refuse(self, refusal: Refusal) -> Refusal:
        self.say(refusal.text)
        return refusal

    def notify(self) -> None:
        """What views show changed (nothing to re-derive)."""
        self.announcer.changed()

    def recompute_tabs(self) -> None:
        """Rebuild the tabs if the pending questions or the waits changed: grouped by agent,
        in the agents' stable order (:mod:`asks.core.agents`)."""
        if self.strip.dirty:
            pending = self.agents.arrange(self.projection.pending, self.agent_of)
            self.strip.rebuild(pending, self.waits.staged())

    def agent_of(self, ref: QuestionRef) -> Agent:
        """Who asked ``ref`` (its source label; ``None``: the session's own agent)."""
        return self.projection.asker(ref)

    def tab_agent(self, tab: TabKey) -> Agent:
        """Who asked the question of ``tab`` (a Review tab: its wait's questions)."""
        if isinstance(tab, QuestionRef):
            return self.agent_of(tab)
        refs = self._review_refs(tab.call_id)
        return self.agent_of(refs[0]) if refs else None

    def _seed_agents(self) -> None:
        """A resumed session ranks its agents as they first asked (read from the journal
        only when the pending questions come from more than one), then groups its pending
        questions with who asked each, read once for both (the first :meth:`recompute_tabs`
        finds them grouped: :meth:`AgentOrder.arrange` reads only the questions that came
        since)."""
        pending = self.projection.pending
        asked = list(map(self.agent_of, pending))
        wanted = set(asked)
        if len(wanted) >= 2:
            found: dict[Agent, None] = {}
            for agent in self.projection.askers():
                if agent in wanted:
                    found[agent] = None
                    if len(found) == len(wanted):
                        break
            self.agents.seed(found)
        self.agents.arrange(pending, dict(zip(pending, asked, strict=True)).__getitem__)

    def changed(self, *, by_panel: bool = False) -> None:
        """Re-derive tabs and focus consistency after any change (``by_panel``: a panel
        command of the person's made it), then notify listeners. If the tab at the keys went
        away, the keys go back (:mod:`asks.host.gone`)."""
        self.recompute_tabs()
        self.watch.check(by_panel)
        if self.focus.panel_focused and not self.tabs:
            self.focus.leave_panel()
        if self.waits and self.focus.claim is None:
            self._claim()
        self.keys.keep_claim_consistent()
        self.watch.record()
        self.notify()

    def changed_if(self, refusal: Refusal | None) -> Refusal | None:
        """:meth:`changed` unless ``refusal`` (a refusal changes nothing but the notice)."""
        if refusal is None:
            self.changed()
        return refusal

    def _claim(self) -> None:
        """A blocker arrived: claim focus for live waits now, or wait behind a foreign prompt."""
        self.focus.request_claim(self.clock(), self.selected)
        if self.focus.claim is not None:
            self.panel.claimed()

    def _listener_failed(self, line: str) -> None:
        """A listener raised (reported once per listener; :mod:`asks.core.listeners`)."""
        self.say(_("A listener failed; your questions are unaffected: {error}").format(error=line))
