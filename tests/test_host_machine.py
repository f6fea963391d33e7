"""Property test: random interleavings against the host, asserting the focus rules and
exactly-once delivery (docs/architecture.md, "State model").

Steps: async and blocking arrivals, promotions of async questions, panel commands routed
through the arrival guard as a widget would, typing, focus toggle, `/asks`, collapse, foreign
prompt start/end, time passing, withdrawal, answers from another surface (the web bridge)
racing the panel, turn start/end/abort, feedback draining, injected write failures (rolled
back, or unconfirmed), and crash-and-reopen of the journal.

Invariants after every step:
  owner    exactly one mounted owner; the panel owns focus only while it has tabs;
  held     a live wait and no foreign prompt ⇒ the panel owns focus;
  drafts   a typed draft survives everything except its own resolution, withdrawal or Ctrl+U;
  disk     the host's projection equals a fresh replay of the file on disk (nothing reported
           saved that is not on disk), and no unit has two receipts;
  listeners every step runs on two hosts in lockstep (tests/support/twin_host.py): the first gets
           listeners that raise (events, changes, status; added by a rule), the second none;
           their states are equal (the notice aside: it reports the failure) and both were
           told the same events — a raising listener changes nothing and stops no other;
  told     every event is told after its journal line is on disk (save before notify) and
           once the state is consistent (no wait whose questions all closed is live);
and per step: async arrival moves nothing, a blocker claims or waits behind a foreign
prompt, where focus lands when the last wait ends (back to the origin), the arrival guard.
At teardown: after a crash and resume, draining delivers every saved unit exactly once.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from support.focus_states import check_named_state
from support.rig import Clock
from support.twin_host import TwinHost

from asks.contract import ResultEnvelope
from asks.core import events as ev
from asks.core.drafts import row_count
from asks.core.focus import TYPING_GUARD, FocusTarget
from asks.core.model import Answer, AnswerKind, Outcome, QuestionRef
from asks.core.refusal import Refusal
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.host.waits import Wait
from asks.store.entries import (
    Entry,
    FeedbackDelivered,
    GroupAsked,
    Resolved,
    ToolResult,
    WaitOpened,
    Withdrawn,
)
from asks.store.journal import Journal, StorageState, read_records
from asks.store.projection import Projection


def question(i: int, kind: int) -> dict[str, object]:
    """Kind 0: free text; 1: single select; 2: multi-select; 3 and 4: 1 and 2 without the
    ``Type something.`` row (``"custom": false``)."""
    q: dict[str, object] = {"question": f"Question number {i}?", "header": f"H{i}"}
    if kind in {1, 3}:
        q["options"] = [{"label": "Yes"}, {"label": "No"}, {"label": "Maybe"}]
    elif kind in {2, 4}:
        q["options"] = [{"label": "A"}, {"label": "B"}]
        q["multiSelect"] = True
    if kind in {3, 4}:
        q["custom"] = False
    return q


def disk_projection(path: Path) -> Projection:
    records = read_records(path.stem, data_dir=path.parent)
    projection = Projection()
    for record in records:
        projection.apply(record)
    return projection


def receipts_on_disk(path: Path) -> Counter[QuestionRef]:
    records = read_records(path.stem, data_dir=path.parent)
    counts: Counter[QuestionRef] = Counter()
    for record in records:
        if isinstance(record.entry, ToolResult | FeedbackDelivered):
            counts.update(record.entry.delivered)
    return counts


@settings(stateful_step_count=40)
class HostMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="asks-machine-"))
        self.clock = Clock()
        self.host = self.twin = TwinHost(self.dir, self.clock)
        self.told: tuple[list[ev.HostEvent], list[ev.HostEvent]] = ([], [])
        self.raising: list[str] = []  # the kinds of the first host's raising listeners
        self.wrong: list[str] = []  # what the checking listener found
        self._listen()
        self.unapplied = 1  # the session_started line written by Journal.create
        self.calls = 0
        self.waits: list[Wait] = []
        self.prompts: list[FocusTarget] = []
        self.typed: dict[QuestionRef, str] = {}
        self.feedback_seqs: list[int] = []

    @property
    def journal(self) -> Journal:
        return self.twin.first.journal

    # ------------------------------------------------------------------ listeners
    def _listen(self) -> None:
        """The checker and a recorder on the first host, the raising listeners after them,
        and a recorder after those (it must still be told); a recorder on the second host."""
        first, second = self.twin.first.host, self.twin.second.host
        first.subscribe_events(self._check_told)
        first.subscribe_events(self.told[0].append)
        for kind in self.raising:
            self._raise_on(kind)
        second.subscribe_events(self.told[1].append)

    def _raise_on(self, kind: str) -> None:
        first = self.twin.first.host

        def fail(*_: object) -> None:
            raise RuntimeError(f"a {kind} listener failed")

        subscribe = {
            "events": first.subscribe_events,
            "changes": first.subscribe,
            "status": first.subscribe_status,
        }[kind]
        subscribe(fail)

    def _check_told(self, event: ev.HostEvent) -> None:
        """Save before notify, and told consistent (module docstring). It notes what is
        wrong rather than raising: the host isolates its listeners (told_right asserts)."""
        entries = [r.entry for r in read_records(self.journal.path.stem, data_dir=self.dir)]
        if not saved_before_told(event, entries, self.told[0]):
            self.wrong.append(f"told before saved: {event}")
        state = self.twin.first.host._state
        pending = state.projection.pending
        if any(all(r not in pending for r in wait.refs) for wait in state.waits):
            self.wrong.append(f"a wait on closed questions is still live when told {event}")

    @rule(kind=st.sampled_from(["events", "changes", "status"]))
    def a_listener_raises(self, kind: str) -> None:
        self.raising.append(kind)
        self._raise_on(kind)

    # ------------------------------------------------------------------ helpers
    def _call_id(self) -> str:
        self.calls += 1
        return f"call-{self.calls}"

    def _track(self, result: object) -> None:
        if isinstance(result, Wait) and not result.done:
            self.waits.append(result)

    def _forget_resolved_drafts(self) -> None:
        pending = self.host.surface_port.projection.pending
        self.typed = {ref: text for ref, text in self.typed.items() if ref in pending}

    def _ended_last_wait(self, before: int) -> bool:
        return before > 0 and not self.host.surface_port.live_waits

    # ------------------------------------------------------------------ arrivals
    @rule(n=st.integers(1, 3), kinds=st.lists(st.integers(0, 4), min_size=3, max_size=3))
    def async_arrival(self, n: int, kinds: list[int]) -> None:
        host = self.host
        route = host.panel_port.key_route(
            self.clock()
        )  # a key read before it (it may engage a claim)
        owner, selected = host.panel_port.focus.owner, host.panel_port.selected
        drafts = {
            ref: host.panel_port.draft(ref)
            for ref in host.panel_port.tabs
            if isinstance(ref, QuestionRef)
        }
        base = self.calls * 10
        args = {"blocking": False, "questions": [question(base + i, kinds[i]) for i in range(n)]}
        host.agent_port.start_call(self._call_id(), args)
        assert host.panel_port.focus.owner is owner, "async arrival moved focus"
        if selected is not None:
            assert host.panel_port.selected == selected, "async arrival changed the selected tab"
        assert host.panel_port.key_route(self.clock()) == route, "async arrival took a keystroke"
        for ref, draft in drafts.items():
            assert host.panel_port.draft(ref) == draft, "arrival changed a draft"

    @rule(n=st.integers(1, 3), kinds=st.lists(st.integers(0, 4), min_size=3, max_size=3))
    def blocking_arrival(self, n: int, kinds: list[int]) -> None:
        host = self.host
        owner, had_waits = host.panel_port.focus.owner, bool(host.surface_port.live_waits)
        foreign = host.panel_port.focus.foreign_active
        base = self.calls * 10
        args = {"questions": [question(base + i, kinds[i]) for i in range(n)]}
        result = host.agent_port.start_call(self._call_id(), args)
        self._track(result)
        if not isinstance(result, Wait):
            return  # storage failure: a coded error, nothing claimed
        if foreign:
            assert host.panel_port.focus.owner is owner, "a blocker took focus from a prompt"
            assert host.panel_port.focus.claim_waiting or had_waits
        else:
            assert host.panel_port.focus.panel_focused, "a blocker did not claim focus"
            if not had_waits and owner is not host.panel_port.focus.panel:
                # typing guard: a key read at the moment of arrival still goes where it was aimed
                assert host.panel_port.key_route(self.clock()).target is owner

    @precondition(
        lambda self: (
            self.host.surface_port.projection.pending
            or self.host.surface_port.projection.undelivered
        )
    )
    @rule(data=st.data(), n=st.integers(1, 2))
    def promote(self, data: st.DataObject, n: int) -> None:
        """Wait on existing questions: pending ones, or saved ones not yet delivered."""
        projection = self.host.surface_port.projection
        saved = list(projection.undelivered)
        refs = data.draw(st.lists(st.sampled_from(saved), max_size=1)) if saved else []
        pending = list(projection.pending)
        if pending:
            refs += data.draw(st.lists(st.sampled_from(pending), min_size=1, max_size=n))
        args = {"questions": [{"questionId": ref.id} for ref in dict.fromkeys(refs)]}
        self._track(self.host.agent_port.start_call(self._call_id(), args))

    # ------------------------------------------------------------------ keys
    @precondition(lambda self: self.host.panel_port.focus.panel_focused)
    @rule(command=st.sampled_from([*PanelCommand, *[PanelCommand.CONFIRM] * 3]), late=st.booleans())
    def panel_key(self, command: PanelCommand, late: bool) -> None:
        """A key pressed in the panel, maybe long enough after a claim to pass the guard."""
        host = self.host
        if late:
            self.clock.now += TYPING_GUARD
        live = host.surface_port.live_waits
        before = len(live)
        origin = host.panel_port.focus.loan_origin
        claim = host.panel_port.focus.claim
        route = host.panel_port.key_route(self.clock())
        if route.target is not host.panel_port.focus.panel:
            return  # the guard sent this key elsewhere (to the chat editor)
        host.panel_port.command(command, route.tab)
        if command is PanelCommand.CLEAR_DRAFT and route.tab is not None:
            self.typed.pop(route.tab, None)  # type: ignore[call-overload]
        if command is PanelCommand.PAUSE and before:
            assert host.panel_port.focus.panel_focused, "Esc left the panel with a blocker pending"
        if command is PanelCommand.COLLAPSE and before:
            assert host.panel_port.focus.panel_focused, "collapse left a pending blocker"
        if self._ended_last_wait(before) and claim is not None:
            ended = [w.reply.outcome for w in live if isinstance(w.reply, ResultEnvelope)]
            self._check_after_last_wait(origin, claim.prior_tab, set(ended))
        self._forget_resolved_drafts()

    def _check_after_last_wait(
        self, origin: FocusTarget | None, prior: object, outcomes: set[Outcome]
    ) -> None:
        host = self.host
        remaining = [t for t in host.panel_port.tabs if isinstance(t, QuestionRef)]
        if host.panel_port.focus.foreign_active:
            return
        # whatever the outcome: back to the async tab the panel showed at the claim
        # (if still pending), else to the loan origin — never to a leftover async tab
        if prior in remaining:
            assert host.panel_port.focus.panel_focused and host.panel_port.selected == prior, (
                "focus is not back at the origin"
            )
        else:
            expected = (
                origin if origin in host.panel_port.focus.mounted else host.panel_port.focus.chat
            )
            assert host.panel_port.focus.owner is expected, "focus did not return to the origin"

    @precondition(lambda self: self.host.panel_port.focus.panel_focused)
    @rule()
    def answer_selected(self) -> None:
        """The person answers the selected tab the way its kind needs (after the guard)."""
        host = self.host
        self.clock.now += TYPING_GUARD
        tab = host.panel_port.selected
        if isinstance(tab, QuestionRef):
            spec = host.surface_port.question(tab).spec
            if spec.multi_select:
                host.panel_port.set_cursor(0)
                host.panel_port.command(PanelCommand.TOGGLE)
                host.panel_port.set_cursor(row_count(spec) - 1)  # Next
            elif spec.options:
                host.panel_port.set_cursor(len(spec.options) - 1)
            else:
                host.panel_port.set_custom_text("typed answer")
                self.typed.pop(tab, None)
        self.panel_key(PanelCommand.CONFIRM, late=False)

    @precondition(lambda self: self.host.panel_port.focus.panel_focused)
    @rule(text=st.text(alphabet="abc xyz", min_size=1, max_size=8))
    def type_reply(self, text: str) -> None:
        tab = self.host.panel_port.selected
        if isinstance(tab, QuestionRef):
            self.host.panel_port.set_custom_text(text)
            self.typed[tab] = text

    @rule()
    def focus_toggle(self) -> None:
        host = self.host
        waits = bool(host.surface_port.live_waits)
        was_panel = host.panel_port.focus.panel_focused
        host.panel_port.toggle_focus()
        if waits and was_panel:
            assert host.panel_port.focus.panel_focused, "the focus toggle escaped a blocker"

    @rule(pick=st.integers(0, 5))
    def slash_asks(self, pick: int) -> None:
        tabs = [t for t in self.host.panel_port.tabs if isinstance(t, QuestionRef)]
        qid = tabs[pick % len(tabs)].id if tabs and pick else None
        self.host.panel_port.enter_panel(qid)

    @precondition(lambda self: not self.host.panel_port.focus.panel_focused)
    @rule()
    def collapse_from_chat(self) -> None:
        self.host.panel_port.toggle_collapse()

    @rule()
    def foreign_prompt_starts(self) -> None:
        prompt = FocusTarget(f"prompt-{len(self.prompts)}")
        self.prompts.append(prompt)
        self.host.panel_port.begin_foreign(prompt)
        assert self.host.panel_port.focus.owner is prompt

    @precondition(lambda self: self.prompts)
    @rule()
    def foreign_prompt_ends(self) -> None:
        self.host.panel_port.end_foreign(self.prompts.pop())
        if self.host.surface_port.live_waits and not self.host.panel_port.focus.foreign_active:
            assert self.host.panel_port.focus.panel_focused, "the waiting blocker did not claim"

    @rule(dt=st.sampled_from([0.05, TYPING_GUARD, 5.0]))
    def time_passes(self, dt: float) -> None:
        self.clock.now += dt

    # ------------------------------------------------------------------ agent side
    @precondition(lambda self: self.host.surface_port.projection.pending)
    @rule(data=st.data())
    def withdraw(self, data: st.DataObject) -> None:
        ref = data.draw(st.sampled_from(list(self.host.surface_port.projection.pending)))
        self.host.agent_port.withdraw([ref.id])
        self._forget_resolved_drafts()

    @precondition(lambda self: self.host.surface_port.projection.pending)
    @rule(data=st.data(), decline=st.booleans())
    def answer_from_the_web(self, data: st.DataObject, decline: bool) -> None:
        """Another surface (the web bridge) answers any pending question, racing the panel:
        the same save → deliver path; the terminal drafts of other questions stay untouched."""
        host = self.host
        ref = data.draw(st.sampled_from(list(host.surface_port.projection.pending)))
        spec = host.surface_port.question(ref).spec
        others = {
            r: host.panel_port.draft(r) for r in host.surface_port.projection.pending if r != ref
        }
        if decline:
            answer = None
        elif spec.options:
            kind = AnswerKind.MULTI if spec.multi_select else AnswerKind.OPTION
            answer = Answer(kind, (0,))
        else:
            answer = Answer(AnswerKind.CUSTOM, (), "from the web")
        refusal = host.surface_port.answer_from(ref.id, ref.incarnation, answer)
        if refusal is None:
            assert ref not in host.surface_port.projection.pending
            again = host.surface_port.answer_from(ref.id, ref.incarnation, answer)
            assert again is Refusal.ALREADY_ANSWERED, "a second answer was accepted"
        for other, draft in others.items():
            if other in host.surface_port.projection.pending:
                assert host.panel_port.draft(other) == draft, "a web answer touched another draft"
        self._forget_resolved_drafts()

    @rule()
    def turn_aborted(self) -> None:
        host = self.host
        before, origin, claim = (
            len(host.surface_port.live_waits),
            host.panel_port.focus.loan_origin,
            host.panel_port.focus.claim,
        )
        host.agent_port.interrupt()
        assert not host.surface_port.live_waits
        if before and claim is not None and not host.panel_port.focus.foreign_active:
            remaining = [t for t in host.panel_port.tabs if isinstance(t, QuestionRef)]
            if claim.prior_tab in remaining:
                assert host.panel_port.selected == claim.prior_tab, "prior tab not restored"
            else:
                expected = (
                    origin
                    if origin in host.panel_port.focus.mounted
                    else host.panel_port.focus.chat
                )
                assert host.panel_port.focus.owner is expected, "focus did not go back"

    @rule(running=st.booleans())
    def turn_state(self, running: bool) -> None:
        if running:
            self.host.agent_port.turn_started()
        else:
            self.host.agent_port.turn_ended()

    @rule()
    def drain_feedback(self) -> None:
        feedback = self.host.agent_port.take_feedback()
        if feedback is not None:
            self.feedback_seqs.append(feedback.seq)

    # ------------------------------------------------------------------ storage
    @rule(unconfirmed=st.booleans())
    def next_write_fails(self, unconfirmed: bool) -> None:
        self.twin.fail_next_writes(1, unconfirmed=unconfirmed)

    @rule()
    def crash_and_resume(self) -> None:
        self.twin.reopen()
        self._listen()
        self.unapplied = 0
        self.waits, self.prompts, self.typed = [], [], {}
        assert not self.host.surface_port.live_waits
        assert not self.host.surface_port.projection.open_calls, "resume left a dangling call"

    # ------------------------------------------------------------------ invariants
    @invariant()
    def a_named_state(self) -> None:
        """The keys are in one of the focus machine's named states (docs/focus-machine.md)."""
        check_named_state(self.host.panel_port.focus)

    @invariant()
    def one_owner(self) -> None:
        focus = self.host.panel_port.focus
        assert focus.owner in focus.mounted, "the owner is not mounted"
        if focus.panel_focused:
            assert self.host.panel_port.tabs, "the panel owns focus with nothing to show"
        if self.host.surface_port.live_waits and not focus.foreign_active:
            assert focus.panel_focused, "a blocker is pending but the panel lost focus"

    @invariant()
    def drafts_survive(self) -> None:
        for ref, text in self.typed.items():
            if ref in self.host.surface_port.projection.pending:
                assert self.host.panel_port.draft(ref).custom_text == text, "a draft was lost"

    @invariant()
    def matches_disk(self) -> None:
        if self.journal.state is StorageState.UNCONFIRMED:
            return  # nothing more is written; the host must not claim otherwise (below)
        disk = disk_projection(self.journal.path)
        mine = self.host.surface_port.projection
        assert list(disk.pending) == list(mine.pending), "pending differs from disk"
        assert list(disk.undelivered) == list(mine.undelivered), "undelivered differs"
        assert disk.records == mine.records + self.unapplied, "records differ from disk"
        counts = receipts_on_disk(self.journal.path)
        assert all(n == 1 for n in counts.values()), "a unit was delivered twice"

    @invariant()
    def saved_units_on_their_way(self) -> None:
        """Every saved, undelivered unit is in the outbox or claimed by a live wait."""
        host = self.host
        live_refs = {ref for wait in host.surface_port.live_waits for ref in wait.refs}
        outlived = [
            r
            for r in host.surface_port.projection.undelivered
            if r not in live_refs and host._state.outbox.is_claimed(r)
        ]
        assert not outlived, "a claim outlived its wait"
        outbox = set(host._state.outbox.refs())
        for ref in host.surface_port.projection.undelivered:
            assert ref in outbox or ref in live_refs, f"{ref} is saved but stranded"
        assert len(host._state.outbox) == len(outbox)

    @invariant()
    def told_right(self) -> None:
        assert self.wrong == []

    @invariant()
    def listeners_change_nothing(self) -> None:
        assert self.twin.differences() == [], "a raising listener changed the host's state"
        one, two = (list(map(comparable, told)) for told in self.told)
        assert one == two, "a raising listener kept an event from another"

    @invariant()
    def unconfirmed_is_visible(self) -> None:
        state = self.host.statistics().storage
        assert state is self.journal.state

    def teardown(self) -> None:
        try:
            self.journal.close()
            journal, records = Journal.open(self.journal.session_id, data_dir=self.dir)
            host = QuestionHost(journal, records)
            host.agent_port.turn_started()
            while host.agent_port.take_feedback() is not None:
                pass
            saved = host.surface_port.projection.by_ref
            counts = receipts_on_disk(journal.path)
            for ref, state in saved.items():
                if state.resolution is not None:
                    assert counts[ref] == 1, f"{ref} delivered {counts[ref]} times"
            journal.close()
        finally:
            self.twin.second.journal.close()
            shutil.rmtree(self.dir, ignore_errors=True)


def comparable(event: ev.HostEvent) -> object:
    """``event``, but a storage failure's message without its path (each host has its own)."""
    return event.kind if isinstance(event, ev.StorageFailed) else event


def saved_before_told(event: ev.HostEvent, entries: list[Entry], told: list[ev.HostEvent]) -> bool:
    """Is the journal line behind ``event`` among ``entries`` (what is on disk now)? A wait
    whose result could not be saved still ends: then a storage failure was told before."""
    match event:
        case ev.QuestionAsked(call_id=call_id):
            return any(isinstance(e, GroupAsked) and e.call_id == call_id for e in entries)
        case ev.WaitOpened(call_id=call_id):
            return any(
                isinstance(e, GroupAsked | WaitOpened) and e.call_id == call_id for e in entries
            )
        case ev.WaitEnded(call_id=call_id):
            saved = any(isinstance(e, ToolResult) and e.call_id == call_id for e in entries)
            return saved or any(isinstance(t, ev.StorageFailed) for t in told)
        case ev.AnswerSaved(refs=refs):
            saved_refs = {r.ref for e in entries if isinstance(e, Resolved) for r in e.resolutions}
            return set(refs) <= saved_refs
        case ev.Delivered(refs=refs):
            receipts = {
                r
                for e in entries
                if isinstance(e, ToolResult | FeedbackDelivered)
                for r in e.delivered
            }
            return set(refs) <= receipts
        case ev.QuestionsWithdrawn(refs=refs):
            gone = {r for e in entries if isinstance(e, Withdrawn) for r in e.refs}
            return set(refs) <= gone
        case _:
            return True


TestHostMachine = HostMachine.TestCase
