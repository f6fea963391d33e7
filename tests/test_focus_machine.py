"""The focus machine (docs/focus-machine.md): named states, the key table, its rules.

Pure: a :class:`~asks.core.focus.Focus` driven by its own methods, no host, no terminal. The
layer's and the host's machines (tests/test_layer_machine.py, tests/test_host_machine.py)
check the same rules through the real key path; this file pins the machine itself:

* every named state is reachable and says where the keys go;
* the table is total and each named rule acts as docs/focus-machine.md says;
* the places where the machine gives keys back to exactly where they were borrowed;
* a hypothesis machine: whatever the operations, the state is one of the named states, and
  it is what the bookkeeping says, read independently of :meth:`Focus.state`.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from support.focus_states import check_named_state

from asks.core.focus import (
    RULES,
    TYPING_GUARD,
    Action,
    Focus,
    FocusState,
    FocusTarget,
    KeyEvent,
    KeySeen,
    KeysTo,
    Rule,
    decide,
)

S, E, R, A = FocusState, KeyEvent, Rule, Action
PANELS = (S.PANEL, S.CLAIMED, S.CLAIM_HELD_ON_TAB)
DECIDING = (S.DECISION_HELD_IN_PANEL, S.DECISION_HELD_AT_PROMPT)
NO = KeySeen(printable=False)
TAB, OTHER_TAB = "tab-1", "tab-2"


def fresh() -> tuple[Focus, FocusTarget]:
    """A focus with one mounted editor of the app's."""
    focus = Focus(FocusTarget("chat"), FocusTarget("panel"))
    editor = FocusTarget("editor")
    focus.mount(editor)
    return focus, editor


def in_state(state: FocusState) -> Focus:
    """A focus brought into ``state`` by its own methods (time starts at 0)."""
    focus, editor = fresh()
    guard = focus.guard
    build: dict[FocusState, Callable[[], object]] = {
        S.CHAT: lambda: None,
        S.EDITOR: lambda: focus.give(editor),
        S.PANEL: focus.enter_panel,
        S.CLAIMED: lambda: (focus.request_claim(0.0, None), focus.settle(guard)),
        S.CLAIM_HELD_ON_TAB: lambda: (focus.enter_panel(), focus.request_claim(0.0, TAB)),
        S.CLAIM_HELD_AT_ORIGIN: lambda: focus.request_claim(0.0, None),
        S.DECISION_HELD_IN_PANEL: lambda: (focus.enter_panel(), focus.hold_decision("y", 0.0)),
        S.PROMPT_HELD: lambda: focus.begin_foreign(FocusTarget("prompt"), 0.0),
        S.PROMPT: lambda: (
            focus.begin_foreign(FocusTarget("prompt"), 0.0),
            focus.settle_prompt(guard),
        ),
        S.DECISION_HELD_AT_PROMPT: lambda: (
            focus.begin_foreign(FocusTarget("prompt"), 0.0),
            focus.settle_prompt(guard),
            focus.hold_decision("y", guard),
        ),
    }
    build[state]()
    assert focus.state() is state
    return focus


WHERE = {  # where the keys go in each state, and whether something waits for a pause
    S.CHAT: (KeysTo.CHAT, False),
    S.EDITOR: (KeysTo.EDITOR, False),
    S.PANEL: (KeysTo.PANEL, False),
    S.CLAIMED: (KeysTo.PANEL, False),
    S.CLAIM_HELD_ON_TAB: (KeysTo.PANEL, True),
    S.CLAIM_HELD_AT_ORIGIN: (KeysTo.CHAT, True),
    S.DECISION_HELD_IN_PANEL: (KeysTo.PANEL, False),
    S.PROMPT_HELD: (KeysTo.CHAT, True),
    S.PROMPT: (KeysTo.PROMPT, False),
    S.DECISION_HELD_AT_PROMPT: (KeysTo.PROMPT, False),
}


@pytest.mark.parametrize("state", list(FocusState))
def test_every_named_state_is_reachable_and_says_where_the_keys_go(state: FocusState) -> None:
    focus = in_state(state)
    to, _target, held = focus.where()
    assert (to, held) == WHERE[state]
    assert (focus.guard_deadline() is not None) == (
        held or state in (S.DECISION_HELD_IN_PANEL, S.DECISION_HELD_AT_PROMPT)
    )


def test_the_table_is_total_and_names_a_rule_for_every_key() -> None:
    assert set(RULES) == {(s, e) for s in FocusState for e in KeyEvent}
    assert {rule for rule, _action in RULES.values()} == set(Rule)


@pytest.mark.parametrize(
    ("states", "event", "rule", "action"),
    [
        ((S.CHAT, S.EDITOR), None, R.WHERE_TYPING, A.TYPING),
        ((S.CLAIM_HELD_AT_ORIGIN, S.PROMPT_HELD), None, R.TYPING_GUARD, A.TYPING),
        (PANELS, E.PRINTABLE, R.PANEL_KEYS, A.PANEL),
        (PANELS, E.CONFIRM, R.PANEL_KEYS, A.PANEL),
        ((*PANELS, S.PROMPT, *DECIDING), E.UNUSED_PRINTABLE, R.STRAY, A.STRAY),
        ((S.PROMPT,), E.PRINTABLE, R.PROMPT_KEYS, A.PROMPT),
        ((S.PROMPT,), E.OTHER, R.PROMPT_KEYS, A.PROMPT),
        (DECIDING, E.PRINTABLE, R.TYPED_OVER_DECISION, A.STRAY),
        (DECIDING, E.CONFIRM, R.CONFIRM_DECIDES, A.DELIVER_HELD),
        ((S.DECISION_HELD_IN_PANEL,), E.OTHER, R.OTHER_KEY_DROPS, A.DROP_HELD),
        ((S.DECISION_HELD_AT_PROMPT,), E.OTHER, R.HELD_AT_PROMPT, A.PROMPT),
    ],
)
def test_each_rule(
    states: tuple[FocusState, ...], event: KeyEvent | None, rule: Rule, action: Action
) -> None:
    for state in states:
        for seen in list(KeyEvent) if event is None else [event]:
            assert RULES[state, seen] == (rule, action), (state, seen)
            assert decide(state, seen) is action


@pytest.mark.parametrize(
    ("seen", "state", "event"),
    [
        (KeySeen(printable=True), S.PANEL, E.PRINTABLE),
        (KeySeen(printable=False, confirms_in_panel=True), S.PANEL, E.CONFIRM),
        (KeySeen(printable=False, confirms_in_panel=True), S.PROMPT, E.OTHER),
        (KeySeen(printable=False, confirms_at_prompt=True), S.DECISION_HELD_AT_PROMPT, E.CONFIRM),
        (KeySeen(printable=False, confirms_at_prompt=True), S.DECISION_HELD_IN_PANEL, E.OTHER),
        (NO, S.CHAT, E.OTHER),
    ],
)
def test_a_key_is_the_confirm_key_only_where_it_confirms(
    seen: KeySeen, state: FocusState, event: KeyEvent
) -> None:
    assert seen.event(state) is event


def test_a_route_names_the_state_it_was_decided_in() -> None:
    focus = in_state(S.CLAIM_HELD_AT_ORIGIN)
    assert focus.key(0.1).state is S.CLAIM_HELD_AT_ORIGIN
    assert focus.key(0.1 + 2 * TYPING_GUARD).state is S.CLAIMED  # the pause engaged it first


def test_typed_over_a_held_decision_both_are_typing() -> None:
    for state in (S.DECISION_HELD_IN_PANEL, S.DECISION_HELD_AT_PROMPT):
        focus = in_state(state)
        route = focus.stray(TYPING_GUARD + 0.1)
        assert (route.target, route.first) == (focus.chat, "y")
        assert focus.doubt is None


def test_a_blocker_claiming_drops_a_decision_held_in_the_panel() -> None:
    """The claim's pause counts from its arrival: a held ``y`` does not bring it forward."""
    focus = in_state(S.DECISION_HELD_IN_PANEL)  # "y" held at 0.0
    focus.request_claim(0.5, TAB)
    assert focus.state() is S.CLAIM_HELD_ON_TAB and focus.doubt is None
    assert focus.guard_deadline() == 0.5 + TYPING_GUARD
    assert not focus.settle(TYPING_GUARD)


def test_a_held_decision_coming_due_leaves_an_engaged_claim_alone() -> None:
    focus = in_state(S.CLAIMED)  # engaged at TYPING_GUARD
    assert focus.hold_decision("y", 1.0) and focus.state() is S.DECISION_HELD_IN_PANEL
    focus.handed = False
    assert not focus.settle(1.0 + TYPING_GUARD)
    assert not focus.handed
    assert focus.due_decision(1.0 + TYPING_GUARD) == "y"


def test_a_mid_stack_prompt_that_ends_hands_its_origin_to_the_prompt_above() -> None:
    focus, editor = fresh()
    focus.give(editor)
    lower, upper = FocusTarget("lower"), FocusTarget("upper")
    focus.begin_foreign(lower, 0.0)
    focus.begin_foreign(upper, 0.1)
    focus.end_foreign(lower, 0.2)
    assert focus.where()[:2] == (KeysTo.EDITOR, editor)  # held: typing goes to the editor
    focus.end_foreign(upper, 0.3)
    assert focus.owner is editor and focus.state() is S.EDITOR


def test_an_unmounted_prompt_gives_the_keys_back_where_it_borrowed_them() -> None:
    focus, editor = fresh()
    focus.give(editor)
    prompt = FocusTarget("prompt")
    focus.begin_foreign(prompt, 0.0)
    focus.unmount(prompt, 0.1)
    assert focus.owner is editor and not focus.foreign


def test_leaving_the_panel_under_a_prompt_returns_the_prompt_to_the_origin() -> None:
    """Collapse at a prompt that covers the panel: the prompt's end must not put the keys
    into a collapsed panel."""
    focus, editor = fresh()
    focus.give(editor)
    focus.enter_panel()
    prompt = FocusTarget("prompt")
    focus.begin_foreign(prompt, 0.0)
    focus.leave_panel()
    focus.end_foreign(prompt, 0.1)
    assert focus.owner is editor and not focus.panel_focused


def test_the_tab_at_the_keys() -> None:
    assert in_state(S.PANEL).shown(TAB) == TAB
    assert in_state(S.CLAIM_HELD_ON_TAB).shown(TAB) == TAB
    assert in_state(S.CLAIM_HELD_AT_ORIGIN).shown(TAB) is None
    assert in_state(S.CHAT).shown(TAB) is None
    covered = in_state(S.PANEL)
    covered.begin_foreign(FocusTarget("prompt"), 0.0)
    assert covered.shown(TAB) == TAB  # the prompt returns to it
    assert in_state(S.PROMPT).shown(TAB) is None


class FocusMachine(RuleBasedStateMachine):
    """Any sequence of the focus' own operations keeps it in a named, legal state."""

    def __init__(self) -> None:
        super().__init__()
        self.focus, self.editor = fresh()
        self.now = 0.0
        self.prompts: list[FocusTarget] = []

    @rule(dt=st.sampled_from([0.05, TYPING_GUARD, 2.0]))
    def time_passes(self, dt: float) -> None:
        self.now += dt

    @rule()
    def key(self) -> None:
        route = self.focus.key(self.now, TAB)
        assert route.state is self.focus.state()

    @rule()
    def stray(self) -> None:
        self.focus.stray(self.now)

    @rule()
    def settle(self) -> None:
        self.focus.settle(self.now)
        self.focus.settle_prompt(self.now)

    @rule(key=st.sampled_from("yn"))
    def hold_decision(self, key: str) -> None:
        self.focus.hold_decision(key, self.now)

    @rule()
    def decision_ends(self) -> None:
        self.focus.due_decision(self.now) or self.focus.confirm_decision()

    @rule(tab=st.sampled_from([None, TAB, OTHER_TAB]))
    def claim(self, tab: str | None) -> None:
        self.focus.request_claim(self.now, tab)

    @rule()
    def claim_ends(self) -> None:
        if self.focus.end_claim() is not None and self.focus.panel_focused:
            self.focus.leave_panel()

    @rule()
    def enter_panel(self) -> None:
        self.focus.enter_panel()

    @rule()
    def leave_panel(self) -> None:
        self.focus.leave_panel()

    @rule()
    def give_editor(self) -> None:
        if not self.focus.foreign and self.editor in self.focus.mounted:
            self.focus.give(self.editor)

    @rule()
    def went_away(self) -> None:
        self.focus.went_away(self.now)

    @rule()
    def hold_at_origin(self) -> None:
        self.focus.hold_at_origin()

    @rule()
    def prompt_opens(self) -> None:
        prompt = FocusTarget(f"prompt-{len(self.prompts)}")
        self.prompts.append(prompt)
        self.focus.begin_foreign(prompt, self.now)

    @rule(data=st.data(), unmount=st.booleans())
    def prompt_ends(self, data: st.DataObject, unmount: bool) -> None:
        if not self.prompts:
            return
        prompt = data.draw(st.sampled_from(self.prompts))
        self.prompts.remove(prompt)
        if unmount:
            self.focus.unmount(prompt, self.now)
        else:
            self.focus.end_foreign(prompt, self.now)

    @rule()
    def editor_toggles(self) -> None:
        if self.editor in self.focus.mounted:
            self.focus.unmount(self.editor, self.now)
        else:
            self.focus.mount(self.editor)

    @invariant()
    def a_named_state_the_bookkeeping_agrees_with(self) -> None:
        state = check_named_state(self.focus)
        to, _target, held = self.focus.where()
        assert (to, held) == WHERE[state] or to is KeysTo.EDITOR  # held keys may go to an editor

    @invariant()
    def a_prompts_origin_is_never_a_prompt_that_ended(self) -> None:
        ended = {id(p) for p in self.prompts}
        for _prompt, origin in self.focus.foreign:
            if origin.name.startswith("prompt-"):
                assert id(origin) in ended, f"{origin} ended, a prompt still returns to it"


TestFocusMachine = FocusMachine.TestCase
TestFocusMachine.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)
