"""Scenario tests of the question host (docs/architecture.md, "State model", is the specification).

One or more tests per focus rule (named ``test_ruleN_...``), then answering (single-select,
free text, multi-select, multi-question groups with a Review tab), Decline / Defer, ``/asks ID``,
retried tool calls, ``{questionId}`` promotion, ``no_ui`` and storage failures. Each scenario
builds a real journal in a temporary directory; the host's clock is a fake one.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing
from support.rig import Rig, call, q, wait_on

from asks.contract import ErrorCode, ResultEnvelope, ToolError
from asks.core.drafts import Draft
from asks.core.focus import TYPING_GUARD, FocusTarget, Route
from asks.core.model import Answer, AnswerKind, Outcome, QuestionRef, QuestionStatus
from asks.core.refusal import Refusal
from asks.core.tabs import ReviewKey
from asks.host.commands import PanelCommand, PanelMode
from asks.host.waits import Wait
from asks.store.journal import StorageState

NOT_SAVED = "Not saved"


def envelope(wait: Wait) -> ResultEnvelope:
    assert isinstance(wait.reply, ResultEnvelope), wait.reply
    return wait.reply


def end_wait(rig: Rig, how: str, ref: QuestionRef) -> None:
    """End the live wait on ``ref`` without answering it."""
    host = rig.host
    if how == "defer":
        host.panel_port.command(PanelCommand.DEFER, ref)
    elif how == "decline":
        host.panel_port.command(PanelCommand.DECLINE, ref)  # arms (Decline is confirmed)
        host.panel_port.command(PanelCommand.DECLINE, ref)
    elif how == "withdraw":
        assert host.agent_port.withdraw([ref.id]).all_withdrawn
    elif how == "interrupt":
        host.agent_port.interrupt()
    elif how == "detach":
        host.detach_ui()
    else:  # pragma: no cover
        raise AssertionError(how)


ENDINGS = {
    "defer": Outcome.DEFERRED,
    "decline": Outcome.DECLINED,
    "withdraw": Outcome.WITHDRAWN,
    "interrupt": Outcome.INTERRUPTED,
    "detach": Outcome.INTERRUPTED,
}


# =========================================================================== one owner


def test_rule1_chat_owns_focus_and_panel_is_refused_without_tabs(rig: Rig) -> None:
    host = rig.host
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert host.panel_port.enter_panel() is Refusal.NO_QUESTIONS
    assert host.panel_port.toggle_focus() is Refusal.NO_QUESTIONS
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert host.statistics().focus_owner == "chat"


def test_rule1_panel_gives_focus_back_when_its_last_tab_goes(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    assert host.panel_port.enter_panel() is None
    assert host.statistics().focus_owner == "panel"
    rig.answer_option(ref, 0)
    assert host.panel_port.tabs == ()
    assert host.panel_port.focus.owner is host.panel_port.focus.chat

    other = rig.async_question("c2", "Which cache?")
    host.panel_port.enter_panel()
    assert host.agent_port.withdraw([other.id]).all_withdrawn
    assert host.panel_port.tabs == ()
    assert host.panel_port.focus.owner is host.panel_port.focus.chat


def test_rule1_owner_is_always_mounted(rig: Rig) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    rig.async_question("c1", "Which database?")
    host.panel_port.enter_panel()
    assert host.panel_port.focus.loan_origin is editor
    host.panel_port.unmount(editor)
    host.panel_port.toggle_focus()  # leave the panel: its origin is gone
    assert host.panel_port.focus.owner is host.panel_port.focus.chat

    other = rig.give_focus(FocusTarget("other-editor"))
    host.panel_port.unmount(other)  # the focused editor goes away
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert host.panel_port.focus.owner in host.panel_port.focus.mounted


# =========================================================================== async arrival


def test_rule2_async_arrival_in_chat_moves_nothing(rig: Rig) -> None:
    host = rig.host
    first = rig.async_question("c1", "Which database?")
    host.panel_port.toggle_collapse()
    route = host.panel_port.key_route(rig.clock())
    second = rig.async_question("c2", "Which cache?")
    assert host.panel_port.tabs == (first, second)
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert host.panel_port.selected == first
    assert host.panel_port.mode is PanelMode.COLLAPSED
    assert (
        host.panel_port.key_route(rig.clock()) == route == Route(host.panel_port.focus.chat, None)
    )


def test_rule2_async_arrival_while_typing_in_the_panel(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which database?")
    b = rig.async_question("c2", "Why that one?", options=None)
    host.panel_port.enter_panel(b.id)
    host.panel_port.set_custom_text("because it is")
    host.panel_port.set_notes("half-written note")
    rig.move_to(a, 2)
    drafts = {a: host.panel_port.draft(a), b: host.panel_port.draft(b)}
    route = host.panel_port.key_route(rig.clock())
    assert route == Route(host.panel_port.focus.panel, b)

    c = rig.async_question("c3", "Which queue?")

    assert c in host.panel_port.tabs
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.selected == b
    assert host.panel_port.key_route(rig.clock()) == route
    assert {a: host.panel_port.draft(a), b: host.panel_port.draft(b)} == drafts
    assert host.panel_port.draft(c) == Draft()
    # the next keystroke still lands in the reply being typed
    host.panel_port.set_custom_text("because it is fast")
    assert host.panel_port.draft(b).custom_text == "because it is fast"
    assert host.panel_port.draft(c) == Draft()


# =========================================================================== a blocker claims


def test_rule3_blocker_from_chat_claims_its_first_tab_expanded(rig: Rig) -> None:
    host = rig.host
    earlier = rig.async_question("c1", "Which queue?")
    host.panel_port.toggle_collapse()
    assert host.panel_port.mode is PanelMode.COLLAPSED
    wait = rig.blocker("c2", q("Which database?"), q("Which cache?"))
    first = rig.ref("c2", 0)
    assert host.panel_port.tabs[0] == earlier
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.focus.loan_origin is host.panel_port.focus.chat
    assert host.panel_port.focus.claim is not None
    assert host.panel_port.selected == first
    assert host.panel_port.mode is PanelMode.EXPANDED
    assert not wait.done


def test_rule3_blocker_during_foreign_prompt_waits_then_claims(rig: Rig) -> None:
    host = rig.host
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    wait = rig.blocker("c1", q("Proceed with the migration?"))
    ref = rig.ref("c1")
    assert host.panel_port.focus.owner is prompt
    assert host.panel_port.focus.claim_waiting is True
    assert host.panel_port.focus.claim is None

    host.panel_port.end_foreign(prompt)

    assert host.panel_port.focus.panel_focused
    assert host.panel_port.focus.claim_waiting is False
    assert host.panel_port.focus.claim is not None
    assert host.panel_port.focus.loan_origin is host.panel_port.focus.chat
    assert host.panel_port.selected == ref
    assert host.panel_port.mode is PanelMode.EXPANDED
    assert not wait.done


def test_rule3_panel_is_never_given_focus_while_a_prompt_is_up(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    rig.blocker("c2", q("Proceed?"))

    assert host.panel_port.enter_panel() is Refusal.PROMPT_OPEN
    assert host.statistics().notice == "Finish the open prompt first."
    assert host.panel_port.enter_panel(ref.id) is Refusal.PROMPT_OPEN
    assert host.panel_port.toggle_focus() is Refusal.PROMPT_OPEN
    assert host.panel_port.focus.owner is prompt
    assert not host.panel_port.focus.panel_focused


# ======================================================================== a blocker holds the panel


def _async_then_blocker(rig: Rig) -> tuple[QuestionRef, QuestionRef, Wait]:
    a = rig.async_question("c1", "Which queue?")
    wait = rig.blocker("c2", q("Which database?"))
    return a, rig.ref("c2"), wait


def test_rule4_esc_on_async_tab_selects_a_required_tab(rig: Rig) -> None:
    host = rig.host
    a, b, wait = _async_then_blocker(rig)
    host.panel_port.command(PanelCommand.PREV_TAB)
    assert host.panel_port.selected == a
    host.panel_port.command(PanelCommand.PAUSE)
    assert host.panel_port.selected == b
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.mode is PanelMode.EXPANDED
    assert not wait.done


def test_rule4_esc_on_required_tab_stays_with_notice_and_declines_nothing(rig: Rig) -> None:
    host = rig.host
    _, b, wait = _async_then_blocker(rig)
    host.panel_port.command(PanelCommand.PAUSE)
    notice = host.statistics().notice
    assert notice is not None
    assert "This question is required" in notice
    assert host.panel_port.selected == b
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.mode is PanelMode.EXPANDED
    assert b in host.surface_port.projection.pending
    assert rig.lines_of("resolved") == []
    assert not wait.done


def test_rule4_collapse_is_refused_while_a_blocker_is_pending(rig: Rig) -> None:
    host = rig.host
    _, b, wait = _async_then_blocker(rig)
    host.panel_port.command(PanelCommand.COLLAPSE)
    notice = host.statistics().notice
    assert notice is not None
    assert "cannot be collapsed" in notice
    assert host.panel_port.toggle_collapse() is Refusal.BLOCKER_WAITING
    assert host.surface_port.notice == notice
    assert host.panel_port.mode is PanelMode.EXPANDED
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.selected == b
    assert not wait.done


def test_rule4_focus_toggle_cycles_required_tabs_never_to_chat(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which queue?")
    rig.blocker("c2", q("Which database?"))
    rig.blocker("c3", q("Which cache?"), q("Which region?"))
    b1, b2, b3 = rig.ref("c2"), rig.ref("c3", 0), rig.ref("c3", 1)
    review = ReviewKey("c3")
    assert host.panel_port.tabs == (a, b1, b2, b3, review)
    assert host.panel_port.selected == b1

    seen = []
    for _ in range(5):
        assert host.panel_port.toggle_focus() is None
        assert host.panel_port.focus.panel_focused
        seen.append(host.panel_port.selected)
    assert seen == [b2, b3, review, b1, b2]

    host.panel_port.enter_panel(a.id)  # /asks on the async tab, then the toggle
    host.panel_port.toggle_focus()
    assert host.panel_port.selected == b1
    assert host.panel_port.focus.panel_focused


# =========================================================================== back to the origin


def test_rule5_answering_last_blocker_returns_to_the_async_tab_it_came_from(rig: Rig) -> None:
    host = rig.host
    rig.async_question("c1", "Which queue?")
    came_from = rig.async_question("c2", "Which cache?")
    host.panel_port.enter_panel(came_from.id)
    wait = rig.blocker("c3", q("Which database?"))
    b = rig.ref("c3")
    assert (
        host.panel_port.selected == came_from
    )  # shown while keys may still be typed into it (the typing guard)
    assert host.panel_port.focus.claim is not None
    assert host.panel_port.focus.claim.prior_tab == came_from

    rig.clock.past_guard()
    assert host.panel_port.settle_guard(rig.clock())
    assert host.panel_port.selected == b  # the claim took the keys: the required tab is shown
    rig.answer_option(b, 1)

    assert envelope(wait).outcome is Outcome.ANSWERED
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.selected == came_from  # not the first tab ("Which queue?")
    assert host.panel_port.focus.claim is None
    host.panel_port.toggle_focus()  # the loan was from chat
    assert host.panel_port.focus.owner is host.panel_port.focus.chat


def test_rule5_claimed_from_chat_returns_to_chat_leaving_async_tabs_passive(rig: Rig) -> None:
    host = rig.host
    first = rig.async_question("c1", "Which queue?")
    second = rig.async_question("c2", "Which cache?")
    wait = rig.blocker("c3", q("Which database?"))
    rig.clock.past_guard()
    rig.answer_option(rig.ref("c3"), 0)

    assert envelope(wait).outcome is Outcome.ANSWERED
    assert (
        host.panel_port.focus.owner is host.panel_port.focus.chat
    )  # never left on a leftover async tab
    assert host.panel_port.focus.claim is None
    assert host.panel_port.tabs == (first, second)
    assert host.panel_port.draft(first) == host.panel_port.draft(second) == Draft()


def test_rule5_prior_tab_answered_meanwhile_returns_to_the_origin(rig: Rig) -> None:
    host = rig.host
    other = rig.async_question("c1", "Which queue?")
    came_from = rig.async_question("c2", "Which cache?")
    host.panel_port.enter_panel(came_from.id)
    wait = rig.blocker("c3", q("Which database?"))
    rig.clock.past_guard()
    rig.answer_option(came_from, 0)  # the person answers the async tab first
    assert not wait.done
    assert host.panel_port.focus.panel_focused
    rig.answer_option(rig.ref("c3"), 0)

    assert envelope(wait).outcome is Outcome.ANSWERED
    assert (
        host.panel_port.focus.owner is host.panel_port.focus.chat
    )  # the async tab it came from is gone
    assert other in host.panel_port.tabs


def test_rule5_answering_last_blocker_without_async_tabs_returns_to_origin(rig: Rig) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    wait = rig.blocker("c1", q("Which database?"))
    assert host.panel_port.focus.loan_origin is editor
    rig.clock.past_guard()
    rig.answer_option(rig.ref("c1"), 0)

    assert envelope(wait).outcome is Outcome.ANSWERED
    assert host.panel_port.tabs == ()
    assert host.panel_port.focus.owner is editor
    assert host.panel_port.focus.claim is None


def test_rule5_applies_only_when_the_last_blocker_is_answered(rig: Rig) -> None:
    host = rig.host
    first = rig.blocker("c1", q("Which database?"))
    second = rig.blocker("c2", q("Which cache?"))
    rig.clock.past_guard()
    rig.answer_option(rig.ref("c1"), 0)
    assert envelope(first).outcome is Outcome.ANSWERED
    assert not second.done
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.selected == rig.ref("c2")
    rig.answer_option(rig.ref("c2"), 0)
    assert host.panel_port.focus.owner is host.panel_port.focus.chat


# ==================================================== back to the origin after cancel, defer, abort


@pytest.mark.parametrize("how", sorted(ENDINGS))
def test_rule6_unanswered_end_returns_focus_to_the_exact_origin(rig: Rig, how: str) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    rig.async_question("c1", "Which queue?")  # an async tab remains: still back to the origin
    wait = rig.blocker("c2", q("Which database?"))
    assert host.panel_port.focus.loan_origin is editor

    end_wait(rig, how, rig.ref("c2"))

    assert envelope(wait).outcome is ENDINGS[how]
    assert host.panel_port.focus.owner is editor
    assert host.panel_port.focus.claim is None


@pytest.mark.parametrize("how", sorted(ENDINGS))
def test_rule6_origin_unmounted_meanwhile_falls_back_to_chat(rig: Rig, how: str) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    wait = rig.blocker("c1", q("Which database?"))
    host.panel_port.unmount(editor)
    assert host.panel_port.focus.panel_focused

    end_wait(rig, how, rig.ref("c1"))

    assert envelope(wait).outcome is ENDINGS[how]
    assert host.panel_port.focus.owner is host.panel_port.focus.chat


@pytest.mark.parametrize("how", sorted(ENDINGS))
def test_rule6_prior_tab_restored_when_the_panel_had_focus(rig: Rig, how: str) -> None:
    host = rig.host
    rig.async_question("c1", "Which queue?")
    came_from = rig.async_question("c2", "Which cache?")
    host.panel_port.enter_panel(came_from.id)
    wait = rig.blocker("c3", q("Which database?"))
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    assert host.panel_port.selected == rig.ref("c3")

    end_wait(rig, how, rig.ref("c3"))

    assert envelope(wait).outcome is ENDINGS[how]
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.selected == came_from


async def test_rule6_cancelled_ask_returns_focus_to_the_exact_origin(rig: Rig) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    scope = trio.CancelScope()
    replies: list[object] = []

    async def agent() -> None:
        with scope:
            replies.append(await host.agent_port.ask("c1", call(q("Which database?"))))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        assert host.panel_port.focus.panel_focused
        scope.cancel()

    assert replies == []
    assert host.panel_port.focus.owner is editor
    assert host.surface_port.live_waits == ()
    assert rig.ref("c1") in host.surface_port.projection.pending
    [result] = rig.tool_results("c1")
    assert result["outcome"] == "interrupted"
    assert result["delivered"] == []


def test_rule6_interrupt_under_a_foreign_prompt_returns_to_origin_after_it(rig: Rig) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    wait = rig.blocker("c1", q("Which database?"))
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)  # covers the claimed panel
    host.agent_port.interrupt()
    assert envelope(wait).outcome is Outcome.INTERRUPTED
    assert host.panel_port.focus.owner is prompt
    host.panel_port.end_foreign(prompt)
    assert host.panel_port.focus.owner is editor


def test_collapse_at_a_prompt_over_the_panel_returns_the_keys_to_the_origin(rig: Rig) -> None:
    """Keys go back where they were borrowed: not into the panel collapsed under the prompt."""
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    rig.async_question("c1", "Which database?")
    assert host.panel_port.enter_panel() is None
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    assert host.panel_port.toggle_collapse() is None
    assert host.panel_port.mode is PanelMode.COLLAPSED
    host.panel_port.end_foreign(prompt)
    assert host.panel_port.focus.owner is editor
    assert not host.panel_port.focus.keys_to_panel


def test_an_unmounted_prompt_returns_the_keys_to_its_origin(rig: Rig) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    host.panel_port.unmount(prompt)
    assert host.panel_port.focus.owner is editor
    assert not host.panel_port.focus.foreign_active


# =========================================================================== the typing guard


def test_rule7_key_within_the_guard_goes_to_the_origin_then_to_the_panel(rig: Rig) -> None:
    host = rig.host
    editor = rig.give_focus(FocusTarget("notes-editor"))
    claimed_at = rig.clock()
    rig.blocker("c1", q("Which database?"))
    b = rig.ref("c1")
    assert host.panel_port.key_route(claimed_at) == Route(editor)
    assert host.panel_port.key_route(claimed_at + TYPING_GUARD * 0.9) == Route(editor)
    # measured from the last key, not from the arrival: still typing
    assert host.panel_port.key_route(claimed_at + TYPING_GUARD + 0.01) == Route(editor)
    assert not host.panel_port.focus.keys_to_panel
    paused = claimed_at + 2 * TYPING_GUARD + 0.02
    assert host.panel_port.key_route(paused) == Route(host.panel_port.focus.panel, b)
    assert host.panel_port.focus.keys_to_panel


def test_rule7_quiet_interval_engages_the_claim_without_a_key(rig: Rig) -> None:
    host = rig.host
    claimed_at = rig.clock()
    rig.blocker("c1", q("Which database?"))
    assert host.panel_port.guard_deadline() == claimed_at + TYPING_GUARD
    assert not host.panel_port.settle_guard(claimed_at + TYPING_GUARD / 2)
    assert (
        host.panel_port.key_route(claimed_at + TYPING_GUARD / 2).target
        is host.panel_port.focus.chat
    )
    assert host.panel_port.guard_deadline() == claimed_at + 1.5 * TYPING_GUARD  # pushed by the key
    assert host.panel_port.settle_guard(claimed_at + 1.5 * TYPING_GUARD)
    assert host.panel_port.guard_deadline() is None
    assert (
        host.panel_port.key_route(claimed_at + 1.5 * TYPING_GUARD + 0.01).target
        is host.panel_port.focus.panel
    )


def test_rule7_stray_enter_aimed_at_prior_tab_does_not_answer_the_blocker(rig: Rig) -> None:
    host = rig.host
    aimed = rig.async_question("c1", "Which cache?")
    host.panel_port.enter_panel(aimed.id)
    rig.move_to(aimed, 1)
    wait = rig.blocker("c2", q("Which database?"))
    b = rig.ref("c2")
    rig.clock.advance(TYPING_GUARD / 3)

    rig.press(PanelCommand.CONFIRM)  # the Enter the person meant for "Which cache?"

    assert not wait.done
    assert b in host.surface_port.projection.pending
    assert host.surface_port.projection.by_ref[aimed].status is QuestionStatus.ANSWERED
    assert host.surface_port.projection.by_ref[aimed].resolution.answer == Answer(
        AnswerKind.OPTION, (1,)
    )
    rig.clock.past_guard()
    assert host.panel_port.key_route(rig.clock()) == Route(host.panel_port.focus.panel, b)


def test_rule7_stray_enter_from_chat_is_routed_to_chat(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"))
    rig.clock.advance(0.1)
    assert host.panel_port.key_route(rig.clock()).target is host.panel_port.focus.chat
    rig.clock.past_guard()
    rig.press(PanelCommand.CONFIRM)
    assert envelope(wait).outcome is Outcome.ANSWERED


def test_rule7_guard_starts_when_a_waiting_claim_is_made(rig: Rig) -> None:
    host = rig.host
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    rig.blocker("c1", q("Which database?"))
    rig.clock.advance(10.0)
    claimed_at = rig.clock()
    host.panel_port.end_foreign(prompt)
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.key_route(claimed_at + 0.1).target is host.panel_port.focus.chat
    assert host.panel_port.key_route(claimed_at + 0.1 + TYPING_GUARD + 0.01) == Route(
        host.panel_port.focus.panel, rig.ref("c1")
    )


# ============================================================= drafts survive, Decline is confirmed


def test_rule8_drafts_survive_pause_collapse_arrival_switch_toggle_and_prompts(
    rig: Rig,
) -> None:
    host = rig.host
    a = rig.async_question("c1", "Why that database?", options=None)
    b = rig.async_question("c2", "Which cache?")
    host.panel_port.enter_panel(a.id)
    host.panel_port.set_custom_text("because it is faster", caret=7)
    host.panel_port.set_notes("benchmarks attached")
    rig.move_to(b, 2)
    kept = {a: host.panel_port.draft(a), b: host.panel_port.draft(b)}
    assert kept[a] == Draft(
        custom_text="because it is faster", caret=7, notes="benchmarks attached"
    )

    def unchanged(step: str) -> None:
        assert {a: host.panel_port.draft(a), b: host.panel_port.draft(b)} == kept, (
            f"draft lost by {step}"
        )

    host.panel_port.command(PanelCommand.PAUSE)
    assert host.panel_port.mode is PanelMode.PAUSED
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert a in host.surface_port.projection.pending  # Esc never declines
    unchanged("pause")
    host.panel_port.enter_panel()
    host.panel_port.command(PanelCommand.COLLAPSE)
    assert host.panel_port.mode is PanelMode.COLLAPSED
    unchanged("collapse")
    host.panel_port.toggle_collapse()
    rig.async_question("c3", "Which queue?")
    unchanged("arrival")
    host.panel_port.enter_panel()
    for command in (PanelCommand.NEXT_TAB, PanelCommand.NEXT_TAB, PanelCommand.PREV_TAB):
        host.panel_port.command(command)
    unchanged("tab switches")
    host.panel_port.toggle_focus()
    host.panel_port.toggle_focus()
    unchanged("focus toggles")
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    host.panel_port.end_foreign(prompt)
    unchanged("a foreign prompt")
    rig.blocker("c4", q("Which region?"))
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())  # the claim takes the keys: "Which region?" shows
    host.panel_port.set_custom_text("eu-west")
    blocker_draft = host.panel_port.draft(rig.ref("c4"))
    host.panel_port.command(PanelCommand.DEFER)
    unchanged("a blocker and its deferral")
    assert host.panel_port.draft(rig.ref("c4")) == blocker_draft


def test_rule8_clear_draft_clears_only_the_selected_tab(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Why?", options=None)
    b = rig.async_question("c2", "Why not?", options=None)
    host.panel_port.enter_panel(b.id)
    host.panel_port.set_custom_text("keep this")
    host.panel_port.enter_panel(a.id)
    host.panel_port.set_custom_text("drop this")
    host.panel_port.set_notes("and this")
    host.panel_port.command(PanelCommand.CLEAR_DRAFT)  # arms
    host.panel_port.command(PanelCommand.CLEAR_DRAFT)
    assert host.panel_port.draft(a) == Draft()
    assert host.panel_port.draft(b).custom_text == "keep this"
    assert a in host.surface_port.projection.pending


def test_rule8_new_incarnation_does_not_inherit_the_old_draft(rig: Rig) -> None:
    host = rig.host
    old = rig.async_question("c1", "Which database?")
    host.panel_port.enter_panel(old.id)
    host.panel_port.set_custom_text("old words")
    host.panel_port.set_notes("old notes")
    rig.move_to(old, 2)
    assert host.agent_port.withdraw([old.id]).all_withdrawn
    assert host.panel_port.draft(old) == Draft()  # withdrawn: its draft is dropped

    reply = rig.start_call("c1", call(q("Which cache?"), blocking=False))

    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.QUEUED
    new = rig.ref("c1")
    assert new.id == old.id
    assert new.incarnation > old.incarnation
    assert host.panel_port.tabs == (new,)
    assert host.panel_port.draft(new) == Draft()
    assert host.surface_port.question(new).spec.question == "Which cache?"


# =========================================================================== answering


def test_single_select_enter_saves_the_option_under_the_cursor(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"))
    ref = rig.ref("c1")
    rig.clock.past_guard()
    rig.press(PanelCommand.UP)  # wraps to the "Type something." row
    assert host.panel_port.draft(ref).cursor == 3
    for command in (PanelCommand.DOWN, PanelCommand.DOWN, PanelCommand.DOWN, PanelCommand.UP):
        rig.press(command)
    assert host.panel_port.draft(ref).cursor == 1
    rig.press(PanelCommand.CONFIRM)

    reply = envelope(wait)
    assert reply.outcome is Outcome.ANSWERED
    assert reply.details["answers"] == [
        {
            "questionIndex": 0,
            "questionId": ref.id,
            "question": "Which database?",
            "kind": "option",
            "customText": None,
            "answer": "SQLite",
            "selected": ["SQLite"],
            "optionIndices": [1],
            "notes": "",
            "preview": None,
        }
    ]
    assert '"Which database?"="SQLite"' in reply.text
    [saved] = rig.lines_of("resolved")
    assert saved["resolutions"][0]["answer"]["option_indices"] == [1]


def test_free_text_needs_text_then_saves_it_with_notes(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("What should the service be called?", options=None))
    ref = rig.ref("c1")
    rig.clock.past_guard()
    rig.press(PanelCommand.CONFIRM)
    assert host.statistics().notice == "Type an answer first."
    assert not wait.done
    assert ref in host.surface_port.projection.pending

    host.panel_port.set_custom_text("  ledger-api  ")
    host.panel_port.set_notes("short and clear")
    rig.press(PanelCommand.CONFIRM)  # handed keys: the claim put the keys in this editor, so …
    assert not wait.done and host.panel_port.armed is PanelCommand.CONFIRM  # … Enter asks once
    rig.press(PanelCommand.CONFIRM)

    reply = envelope(wait)
    [detail] = reply.details["answers"]
    assert (detail["kind"], detail["answer"], detail["notes"]) == (
        "custom",
        "ledger-api",
        "short and clear",
    )
    assert detail["optionIndices"] == []
    assert host.panel_port.draft(ref) == Draft()  # saved: the draft is dropped
    assert '"What should the service be called?"="ledger-api" user notes: short and clear' in (
        reply.text
    )


def test_multi_select_enter_toggles_and_next_submits(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which features?", options=("Auth", "Search", "Export"), multi=True))
    ref = rig.ref("c1")
    next_row = 4  # 3 options, "Type something.", "Next"
    rig.clock.past_guard()

    rig.move_to(ref, next_row)
    rig.press(PanelCommand.CONFIRM)
    assert host.statistics().notice == (
        "Check at least one option or type an answer, then choose Next."
    )
    assert not wait.done

    rig.move_to(ref, 0)
    rig.press(PanelCommand.CONFIRM)  # Enter toggles
    rig.move_to(ref, 2)
    rig.press(PanelCommand.TOGGLE)  # so does Space
    rig.move_to(ref, 1)
    rig.press(PanelCommand.CONFIRM)
    rig.press(PanelCommand.CONFIRM)  # on and off again
    assert host.panel_port.draft(ref).checked == frozenset({0, 2})
    assert not wait.done
    assert rig.lines_of("resolved") == []

    rig.move_to(ref, next_row)
    rig.press(PanelCommand.CONFIRM)

    [detail] = envelope(wait).details["answers"]
    assert detail["kind"] == "multi"
    assert detail["optionIndices"] == [0, 2]
    assert detail["selected"] == ["Auth", "Export"]
    assert detail["answer"] == "Auth, Export"


def test_multi_question_group_stages_answers_until_review(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"), q("Which cache?", options=("Redis", "None")))
    d, c = rig.ref("c1", 0), rig.ref("c1", 1)
    review = ReviewKey("c1")
    assert host.panel_port.tabs == (d, c, review)
    assert host.panel_port.is_required(review)
    rig.clock.past_guard()

    host.panel_port.command(PanelCommand.CONFIRM, review)
    assert host.statistics().notice == "Answer at least one question first, or Decline or Defer."
    assert not wait.done

    rig.answer_option(d, 2)
    assert host.panel_port.draft(d).staged == Answer(AnswerKind.OPTION, (2,))
    assert d in host.surface_port.projection.pending
    assert rig.lines_of("resolved") == []
    assert host.panel_port.selected == c
    rig.answer_option(c, 0)
    assert host.panel_port.selected == review
    assert not wait.done

    rig.press(PanelCommand.CONFIRM)

    reply = envelope(wait)
    assert reply.outcome is Outcome.ANSWERED
    assert [a["answer"] for a in reply.details["answers"]] == ["MySQL", "Redis"]
    [saved] = rig.lines_of("resolved")  # one submit, one line
    assert len(saved["resolutions"]) == 2
    [result] = rig.tool_results("c1")
    assert {r["id"] for r in result["delivered"]} == {d.id, c.id}
    assert host.panel_port.tabs == ()
    assert host.panel_port.focus.owner is host.panel_port.focus.chat


def test_partial_submit_leaves_the_rest_pending_then_answered_as_feedback(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"), q("Which cache?"), q("Which queue?"))
    first, second, third = (rig.ref("c1", i) for i in range(3))
    rig.clock.past_guard()
    rig.answer_option(first, 0)
    host.panel_port.command(PanelCommand.CONFIRM, ReviewKey("c1"))

    reply = envelope(wait)
    assert reply.outcome is Outcome.PARTIAL
    assert [a["questionId"] for a in reply.details["answers"]] == [first.id]
    assert reply.details["pending"] == [second.id, third.id]
    assert list(host.surface_port.projection.pending) == [second, third]
    assert host.surface_port.wait_for(second) is None
    assert not host.panel_port.is_required(second)
    assert host.panel_port.tabs == (second, third)
    assert (
        host.panel_port.focus.owner is host.panel_port.focus.chat
    )  # back to the origin; tabs stay passive
    [result] = rig.tool_results("c1")
    assert [r["id"] for r in result["delivered"]] == [first.id]

    rig.answer_option(second, 1)
    assert host._state.outbox.refs() == (second,)
    feedback = host.agent_port.take_feedback()
    assert feedback is not None
    assert feedback.refs == (second,)
    assert second.id in feedback.text
    assert len(rig.tool_results("c1")) == 1
    rig.assert_receipts_at_most_once()


def test_decline_on_a_required_tab_declines_the_whole_wait(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"), q("Which cache?"))
    d, c = rig.ref("c1", 0), rig.ref("c1", 1)
    rig.clock.past_guard()
    rig.answer_option(d, 0)  # staged, not saved
    host.panel_port.command(PanelCommand.DECLINE, c)  # arms
    host.panel_port.command(PanelCommand.DECLINE, c)

    reply = envelope(wait)
    assert reply.outcome is Outcome.DECLINED
    assert [a["kind"] for a in reply.details["answers"]] == ["declined", "declined"]
    assert host.surface_port.projection.by_ref[d].status is QuestionStatus.DECLINED
    assert host.surface_port.projection.by_ref[c].status is QuestionStatus.DECLINED
    [saved] = rig.lines_of("resolved")
    assert [r["kind"] for r in saved["resolutions"]] == ["declined", "declined"]
    [result] = rig.tool_results("c1")
    assert {r["id"] for r in result["delivered"]} == {d.id, c.id}
    assert host._state.outbox.refs() == ()


def test_esc_never_declines_an_async_question(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    host.panel_port.enter_panel()
    host.panel_port.command(PanelCommand.PAUSE)
    assert host.panel_port.mode is PanelMode.PAUSED
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert ref in host.surface_port.projection.pending
    assert rig.lines_of("resolved") == []


def test_decline_on_an_async_tab_declines_only_that_question(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which database?")
    b = rig.async_question("c2", "Which cache?")
    host.panel_port.enter_panel(a.id)
    host.panel_port.command(PanelCommand.DECLINE)  # arms
    host.panel_port.command(PanelCommand.DECLINE)

    assert host.surface_port.projection.by_ref[a].status is QuestionStatus.DECLINED
    assert list(host.surface_port.projection.pending) == [b]
    assert host._state.outbox.refs() == (a,)
    feedback = host.agent_port.take_feedback()
    assert feedback is not None
    assert f'Question {a.id} "Which database?": the user declined to answer.' in feedback.text


def test_defer_ends_the_wait_and_a_later_answer_comes_as_feedback(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"))
    ref = rig.ref("c1")
    rig.clock.past_guard()
    rig.press(PanelCommand.DEFER)

    reply = envelope(wait)
    assert reply.outcome is Outcome.DEFERRED
    assert reply.details["pending"] == [ref.id]
    assert ref.id in reply.text
    assert ref in host.surface_port.projection.pending
    assert host.surface_port.wait_for(ref) is None
    assert not host.panel_port.is_required(ref)
    [result] = rig.tool_results("c1")
    assert result["delivered"] == []

    rig.answer_option(ref, 2)
    assert host._state.outbox.refs() == (ref,)
    feedback = host.agent_port.take_feedback()
    assert feedback is not None
    assert feedback.refs == (ref,)
    assert 'answer "MySQL"' in feedback.text
    assert len(rig.tool_results("c1")) == 1
    assert rig.receipts() == {ref: 1}


def test_defer_on_an_async_tab_is_refused_with_a_notice(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    host.panel_port.enter_panel()
    host.panel_port.command(PanelCommand.DEFER)
    assert host.statistics().notice == "This question is not blocking; it simply stays pending."
    assert ref in host.surface_port.projection.pending


# =========================================================================== /asks ID


def test_slash_asks_id_selects_that_tab_and_expands(rig: Rig) -> None:
    host = rig.host
    rig.async_question("c1", "Which database?")
    b = rig.async_question("c2", "Which cache?")
    host.panel_port.toggle_collapse()
    assert host.panel_port.enter_panel(b.id) is None
    assert host.panel_port.selected == b
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.mode is PanelMode.EXPANDED


def test_slash_asks_unknown_id_gives_a_notice(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which database?")
    answered = rig.async_question("c2", "Which cache?")
    rig.answer_option(answered, 0)
    assert host.panel_port.enter_panel("q-0000000000") is Refusal.UNKNOWN_QUESTION
    assert host.surface_port.notice == "No pending question with id q-0000000000."
    assert host.panel_port.enter_panel(answered.id) is Refusal.UNKNOWN_QUESTION
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert host.panel_port.selected == a


# =========================================================================== retries


def test_retry_while_pending_returns_the_same_wait(rig: Rig) -> None:
    args = call(q("Which database?"))
    wait = rig.blocker("c1", q("Which database?"))
    assert rig.start_call("c1", args) is wait
    assert len(rig.lines_of("group_asked")) == 1
    assert len(rig.host.panel_port.tabs) == 1


def test_retry_after_the_result_returns_an_equivalent_envelope(rig: Rig) -> None:
    queued_args = call(q("Which queue?"), blocking=False)
    queued = rig.start_call("c1", queued_args)
    assert isinstance(queued, ResultEnvelope)
    assert rig.start_call("c1", queued_args) == queued

    deferred = rig.blocker("c2", q("Which database?"))
    rig.host.panel_port.command(PanelCommand.DEFER, rig.ref("c2"))
    assert rig.start_call("c2", call(q("Which database?"))) == deferred.reply

    assert len(rig.lines_of("group_asked")) == 2
    assert len(rig.tool_results("c1")) == len(rig.tool_results("c2")) == 1


def test_retry_after_the_answer_was_delivered_is_already_received(rig: Rig) -> None:
    wait = rig.blocker("c1", q("Which database?"))
    rig.clock.past_guard()
    rig.answer_option(rig.ref("c1"), 0)
    assert envelope(wait).outcome is Outcome.ANSWERED

    again = rig.start_call("c1", call(q("Which database?")))

    assert isinstance(again, ResultEnvelope)
    assert again.outcome is Outcome.ALREADY_RECEIVED
    assert rig.host.panel_port.tabs == ()
    assert len(rig.lines_of("group_asked")) == 1
    assert rig.receipts() == {rig.ref("c1"): 1}


def test_retry_with_different_args_while_async_pending_is_call_conflict(rig: Rig) -> None:
    ref = rig.async_question("c1", "Which database?")
    reply = rig.start_call("c1", call(q("Which cache?"), blocking=False))
    assert isinstance(reply, ToolError)
    assert reply.code is ErrorCode.CALL_CONFLICT
    # which earlier call holds the id (its question, when), not "this conversation"
    assert f'"Which database?" ({ref.id}, still pending)' in reply.message
    assert " made at 20" in reply.message and "conversation" not in reply.message
    assert rig.host.panel_port.tabs == (ref,)
    assert len(rig.lines_of("group_asked")) == 1


def test_retry_with_different_args_while_wait_live_is_call_conflict(rig: Rig) -> None:
    wait = rig.blocker("c1", q("Which database?"))
    reply = rig.start_call("c1", call(q("Which cache?")))
    assert isinstance(reply, ToolError), f"expected call_conflict, got {reply!r}"
    assert reply.code is ErrorCode.CALL_CONFLICT
    assert not wait.done
    assert len(rig.lines_of("group_asked")) == 1


# =========================================================================== promotion


def test_promote_unknown_or_withdrawn_id_is_unknown_question(rig: Rig) -> None:
    gone = rig.async_question("c1", "Which database?")
    rig.host.agent_port.withdraw([gone.id])
    for call_id, qid in (("c2", "q-0000000000"), ("c3", gone.id)):
        reply = rig.start_call(call_id, wait_on(qid))
        assert isinstance(reply, ToolError)
        assert reply.code is ErrorCode.UNKNOWN_QUESTION
    assert rig.lines_of("wait_opened") == []
    assert rig.host.surface_port.live_waits == ()


def test_promote_turns_an_async_question_into_a_blocker(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    wait = rig.start_call("c2", wait_on(ref.id))
    assert isinstance(wait, Wait)
    assert host.panel_port.is_required(ref)
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.selected == ref
    rig.clock.past_guard()
    rig.answer_option(ref, 1)
    assert envelope(wait).outcome is Outcome.ANSWERED
    assert envelope(wait).details["answers"][0]["optionIndices"] == [1]
    assert host._state.outbox.refs() == ()
    assert rig.receipts() == {ref: 1}


def test_promote_already_waiting(rig: Rig) -> None:
    a = rig.async_question("c1", "Which database?")
    assert isinstance(rig.start_call("c2", wait_on(a.id)), Wait)
    rig.blocker("c3", q("Which cache?"))
    for call_id, qid in (("c4", a.id), ("c5", rig.ref("c3").id)):
        reply = rig.start_call(call_id, wait_on(qid))
        assert isinstance(reply, ToolError)
        assert reply.code is ErrorCode.ALREADY_WAITING
    assert len(rig.host.surface_port.live_waits) == 2


async def test_promote_answered_undelivered_returns_answered_at_once_and_claims_it(
    rig: Rig,
) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    rig.answer_option(ref, 2)
    assert host._state.outbox.refs() == (ref,)

    with trio.fail_after(1):
        reply = await host.agent_port.ask("c2", wait_on(ref.id))

    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.ANSWERED
    assert reply.details["answers"][0]["optionIndices"] == [2]
    assert host._state.outbox.refs() == ()
    assert host.agent_port.take_feedback() is None  # never also sent as feedback
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    [result] = rig.tool_results("c2")
    assert [r["id"] for r in result["delivered"]] == [ref.id]
    assert rig.receipts() == {ref: 1}


def test_promote_mixing_pending_and_undelivered_delivers_both_in_the_result(rig: Rig) -> None:
    host = rig.host
    done = rig.async_question("c1", "Which database?")
    open_ = rig.async_question("c2", "Which cache?")
    rig.answer_option(done, 0)
    wait = rig.start_call("c3", wait_on(done.id, open_.id))
    assert isinstance(wait, Wait)
    assert host._state.outbox.refs() == ()  # claimed by the wait
    assert host.agent_port.take_feedback() is None
    rig.clock.past_guard()
    rig.answer_option(open_, 1)  # a two-question wait stages until Review
    assert host.panel_port.selected == ReviewKey("c3")
    rig.press(PanelCommand.CONFIRM)
    reply = envelope(wait)
    assert reply.outcome is Outcome.ANSWERED
    assert [a["questionId"] for a in reply.details["answers"]] == [done.id, open_.id]
    assert host.agent_port.take_feedback() is None
    assert rig.receipts() == {done: 1, open_: 1}


def test_promote_already_delivered_is_already_received(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    rig.answer_option(ref, 0)
    assert host.agent_port.take_feedback() is not None
    reply = rig.start_call("c2", wait_on(ref.id))
    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.ALREADY_RECEIVED
    assert host.surface_port.live_waits == ()
    [result] = rig.tool_results("c2")
    assert result["outcome"] == "already_received"
    assert result["delivered"] == []
    assert rig.receipts() == {ref: 1}


# =========================================================================== no UI


async def test_no_ui_after_detach(rig: Rig) -> None:
    host = rig.host
    host.detach_ui()
    reply = await host.agent_port.ask("c1", call(q("Which database?")))
    assert isinstance(reply, ToolError)
    assert reply.code is ErrorCode.NO_UI
    assert rig.lines_of("group_asked") == []
    assert host.panel_port.tabs == ()


# =========================================================================== storage


def test_failed_answer_save_keeps_the_draft_and_says_not_saved(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "What should it be called?", options=None)
    host.panel_port.enter_panel(ref.id)
    host.panel_port.set_custom_text("ledger-api")
    rig.ops.fail_next_append("resolved")

    host.panel_port.command(PanelCommand.CONFIRM)

    notice = host.statistics().notice
    assert notice is not None
    assert notice.startswith(NOT_SAVED)
    assert "draft is kept" in notice
    assert ref in host.surface_port.projection.pending
    assert host.panel_port.draft(ref).custom_text == "ledger-api"
    assert rig.lines_of("resolved") == []
    assert host._state.outbox.refs() == ()
    assert host.statistics().storage == "ok"

    host.panel_port.command(PanelCommand.CONFIRM)  # the disk is back: the same Enter saves
    assert host.surface_port.projection.by_ref[ref].status is QuestionStatus.ANSWERED
    assert len(rig.lines_of("resolved")) == 1


def test_failed_answer_save_keeps_a_blocking_wait_live(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"))
    ref = rig.ref("c1")
    rig.clock.past_guard()
    rig.move_to(ref, 1)
    rig.ops.fail_next_append("resolved")
    rig.press(PanelCommand.CONFIRM)
    assert not wait.done
    assert host.panel_port.focus.panel_focused
    assert host.panel_port.draft(ref).cursor == 1
    assert rig.lines_of("resolved") == []
    assert rig.tool_results("c1") == []


def test_storage_unconfirmed_refuses_later_answers_and_keeps_the_draft(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "What should it be called?", options=None)
    host.panel_port.enter_panel(ref.id)
    host.panel_port.set_custom_text("ledger-api")
    rig.ops.fail_next_append("resolved", unconfirmed=True)
    host.panel_port.command(PanelCommand.CONFIRM)
    assert host.statistics().storage == "unconfirmed"
    assert host.statistics().storage is StorageState.UNCONFIRMED

    rig.ops.fail_truncate = False  # the disk recovers; the session must still refuse
    host.panel_port.command(PanelCommand.CONFIRM)

    notice = host.statistics().notice
    assert notice is not None
    assert notice.startswith(NOT_SAVED)
    assert ref in host.surface_port.projection.pending
    assert host.panel_port.draft(ref).custom_text == "ledger-api"
    assert rig.lines_of("resolved") == []
    reply = rig.start_call("c2", call(q("Which cache?")))
    assert isinstance(reply, ToolError)
    assert reply.code is ErrorCode.STORAGE_FAILED


def test_failing_group_asked_append_is_storage_failed_and_shows_no_tab(rig: Rig) -> None:
    host = rig.host
    rig.ops.fail_next_append("group_asked")
    reply = rig.start_call("c1", call(q("Which database?")))
    assert isinstance(reply, ToolError)
    assert reply.code is ErrorCode.STORAGE_FAILED
    assert host.panel_port.tabs == ()
    assert host.surface_port.live_waits == ()
    assert host.panel_port.focus.owner is host.panel_port.focus.chat
    assert rig.lines_of("group_asked") == []
    assert host.statistics().storage == "ok"
    assert isinstance(rig.start_call("c1", call(q("Which database?"))), Wait)
