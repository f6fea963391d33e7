"""The question under the person's keys goes away: the keys go back, and never cross agents.

Host-level scenarios of :mod:`asks.host.gone` (the pty test is ``test_e2e_keys_gone.py``, the
property test the layer machine's withdrawing agents): a question withdrawn, answered in the
browser or closed while the person's keys are on it gives the keys back to where the person
came from, with a notice naming the agent, the question and the unsent draft; the question the
keys reach on their own never takes a single Enter.
"""

from __future__ import annotations

from support.rig import Rig, call, q

from asks.core.events import Gone, HostEvent, KeysReturned
from asks.core.focus import FocusTarget, KeysTo
from asks.core.model import Answer, AnswerKind, QuestionRef
from asks.host.commands import Armed, Confirm, PanelCommand
from asks.host.waits import Wait


def _ask(rig: Rig, call_id: str, header: str, source: str, *, blocking: bool) -> QuestionRef:
    args = call(q(f"{header}?", header=header, options=("Yes", "No")), blocking=blocking)
    started = rig.host.agent_port.start_call(call_id, args, source=source)
    assert blocking == isinstance(started, Wait)
    return rig.ref(call_id)


def _events(rig: Rig) -> list[HostEvent]:
    seen: list[HostEvent] = []
    rig.host.subscribe_events(seen.append)
    return seen


def _on_planner_with_draft(rig: Rig) -> tuple[QuestionRef, QuestionRef]:
    """The issue's set-up: builder's Canary is pending (its blocking wait ended), planner's
    Port came after; the person enters the panel, goes to Port, types 8080 and pauses."""
    canary = _ask(rig, "b1", "Canary", "builder", blocking=False)
    port = _ask(rig, "p1", "Port", "planner", blocking=False)
    host = rig.host
    assert host.panel_port.enter_panel() is None
    rig.press(PanelCommand.NEXT_TAB)
    assert host.panel_port.selected == port
    host.panel_port.set_cursor(2)  # Type something.
    host.panel_port.set_custom_text("8080")
    rig.clock.past_guard()
    return canary, port


def test_a_withdrawn_question_gives_the_keys_back_and_enter_answers_nothing(rig: Rig) -> None:
    host = rig.host
    canary, port = _on_planner_with_draft(rig)
    seen = _events(rig)
    assert host.agent_port.withdraw([port.id]).all_withdrawn
    focus = host.panel_port.focus
    assert focus.owner is focus.chat and focus.keyboard().to is KeysTo.CHAT
    notice = host.statistics().notice or ""
    assert "planner" in notice and "Port" in notice and "8080" in notice, notice
    assert "Canary" not in notice
    returned = [e for e in seen if isinstance(e, KeysReturned)]
    assert [(e.refs, e.source, e.why, e.draft) for e in returned] == [
        ((port,), "planner", Gone.WITHDRAWN, "8080")
    ]
    assert host.statistics().keys.question is None  # the status line says: keys: chat
    # Enter goes to the chat now, never to builder's question
    assert host.panel_port.key_route(rig.clock()).target is focus.chat
    assert rig.lines_of("resolved") == [] and canary in host.surface_port.projection.pending


def test_a_question_answered_in_the_browser_gives_the_keys_back(rig: Rig) -> None:
    host = rig.host
    canary, port = _on_planner_with_draft(rig)
    seen = _events(rig)
    answer = Answer(AnswerKind.OPTION, (1,))
    assert host.surface_port.answer_from(port.id, port.incarnation, answer, "web") is None
    focus = host.panel_port.focus
    assert focus.owner is focus.chat
    assert [e.why for e in seen if isinstance(e, KeysReturned)] == [Gone.ANSWERED]
    assert "answered elsewhere" in (host.statistics().notice or "")
    assert canary in host.surface_port.projection.pending


def test_with_a_blocker_waiting_the_next_question_never_takes_a_single_enter(rig: Rig) -> None:
    """A blocker keeps the panel (it waits), but the tab the keys come to is not the person's
    choice: the guard is re-armed, and its first Enter only asks."""
    host = rig.host
    port = _ask(rig, "p1", "Port", "planner", blocking=False)
    canary = _ask(rig, "b1", "Canary", "builder", blocking=True)
    rig.clock.past_guard()
    assert host.panel_port.settle_guard(rig.clock())
    assert host.panel_port.selected == canary
    rig.press(PanelCommand.NEXT_TAB)  # the person goes to planner's question on purpose
    assert host.panel_port.selected == port
    host.agent_port.withdraw([port.id])
    focus = host.panel_port.focus
    assert focus.panel_focused and focus.keyboard().to is KeysTo.CHAT  # held at the origin
    assert host.panel_port.key_route(rig.clock()).target is focus.chat
    rig.clock.past_guard()
    assert host.panel_port.settle_guard(rig.clock())
    assert host.panel_port.selected == canary and focus.keys_to_panel
    rig.press(PanelCommand.CONFIRM)
    assert rig.lines_of("resolved") == []
    assert host.panel_port.confirming == Armed(PanelCommand.CONFIRM, canary, Confirm.UNCHOSEN)
    rig.press(PanelCommand.CONFIRM)  # the person reads the footer and means it
    assert canary not in host.surface_port.projection.pending


def test_a_deliberate_move_makes_the_next_enter_count(rig: Rig) -> None:
    host = rig.host
    port = _ask(rig, "p1", "Port", "planner", blocking=False)
    canary = _ask(rig, "b1", "Canary", "builder", blocking=True)
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    rig.press(PanelCommand.NEXT_TAB)
    host.agent_port.withdraw([port.id])
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    host.panel_port.set_cursor(1)  # a digit: the person looked and chose the row
    rig.press(PanelCommand.CONFIRM)
    assert canary not in host.surface_port.projection.pending


def test_answering_one_agent_never_lets_the_same_enter_answer_another(rig: Rig) -> None:
    host = rig.host
    port = _ask(rig, "p1", "Port", "planner", blocking=False)
    canary = _ask(rig, "b1", "Canary", "builder", blocking=False)
    assert host.panel_port.enter_panel(port.id) is None
    rig.press(PanelCommand.CONFIRM)  # planner's Port: Yes
    assert port not in host.surface_port.projection.pending
    assert host.panel_port.selected == canary and host.panel_port.focus.keys_to_panel
    rig.press(PanelCommand.CONFIRM)  # a double press: it only asks
    assert canary in host.surface_port.projection.pending
    assert host.panel_port.confirming == Armed(PanelCommand.CONFIRM, canary, Confirm.UNCHOSEN)


def test_the_same_agents_next_question_takes_enter_as_before(rig: Rig) -> None:
    host = rig.host
    first = _ask(rig, "p1", "Port", "planner", blocking=False)
    second = _ask(rig, "p2", "Host", "planner", blocking=False)
    assert host.panel_port.enter_panel(first.id) is None
    rig.press(PanelCommand.CONFIRM)
    assert host.panel_port.selected == second
    rig.press(PanelCommand.CONFIRM)
    assert not host.surface_port.projection.pending


def test_a_withdrawal_under_a_prompt_returns_the_prompt_to_the_chat(rig: Rig) -> None:
    host = rig.host
    _on_planner_with_draft(rig)
    port = host.panel_port.selected
    assert isinstance(port, QuestionRef)
    prompt = FocusTarget("prompt")
    host.panel_port.begin_foreign(prompt)
    host.agent_port.withdraw([port.id])
    host.panel_port.end_foreign(prompt)
    focus = host.panel_port.focus
    assert focus.owner is focus.chat


def test_a_question_the_person_never_had_the_keys_on_goes_quietly(rig: Rig) -> None:
    host = rig.host
    canary, port = _on_planner_with_draft(rig)
    seen = _events(rig)
    host.agent_port.withdraw([canary.id])  # not the one under the keys
    assert host.panel_port.focus.keys_to_panel and host.panel_port.selected == port
    assert not [e for e in seen if isinstance(e, KeysReturned)]
    assert host.panel_port.draft(port).custom_text == "8080"
