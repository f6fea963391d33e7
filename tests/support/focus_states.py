"""The focus machine's named state, read from the bookkeeping apart from ``Focus.state``.

The property machines (tests/test_focus_machine.py, tests/test_host_machine.py,
tests/test_layer_machine.py) check after every step that the focus is in one of the named
states of docs/focus-machine.md and that it is the one its bookkeeping says.
"""

from __future__ import annotations

from asks.core.focus import Focus, FocusState

S = FocusState


def expected_state(focus: Focus) -> FocusState:
    """The named state from the owner, the claim, the prompt stack and the held key."""
    owner, claim = focus.owner, focus.claim
    if owner is focus.chat:
        return S.CHAT
    if owner is focus.panel:
        if claim is not None and not claim.engaged:
            on_tab = claim.prior_tab is not None and not claim.to_origin
            return S.CLAIM_HELD_ON_TAB if on_tab else S.CLAIM_HELD_AT_ORIGIN
        if focus.doubt is not None:
            return S.DECISION_HELD_IN_PANEL
        return S.CLAIMED if claim is not None else S.PANEL
    if any(owner is p for p, _ in focus.foreign):
        if not focus.prompt_engaged:
            return S.PROMPT_HELD
        return S.DECISION_HELD_AT_PROMPT if focus.doubt is not None else S.PROMPT
    return S.EDITOR


def check_named_state(focus: Focus) -> FocusState:
    """Assert the focus is in a legal named state; return it."""
    state = focus.state()
    assert state is expected_state(focus), f"{state} is not what the bookkeeping says"
    if focus.doubt is not None:
        assert state in (S.DECISION_HELD_IN_PANEL, S.DECISION_HELD_AT_PROMPT), (
            f"a decision key is held in {state}"
        )
    if focus.foreign:
        assert focus.owner is focus.foreign[-1][0], "the top prompt does not own the keys"
    assert focus.where()[1] in focus.mounted, "the keys go to something not on screen"
    return state
