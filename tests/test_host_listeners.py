"""What the host tells, and when (asks/host/announce.py; docs/architecture.md,
"The host's face"): events after the state is consistent, isolated listeners reported once, a
listener calling back told in order, and status changes told without polling."""

from __future__ import annotations

import logging

import pytest
from support.rig import Rig, call, q

from asks.core import events as ev
from asks.core.model import Answer, AnswerKind, Outcome
from asks.host.stats import HostStatistics
from asks.host.waits import Wait

FAILED = "A listener failed; your questions are unaffected"


def boom(*_: object) -> None:
    raise KeyError("boom")


def test_a_withdrawal_is_told_after_the_waits_it_closed_ended(rig: Rig) -> None:
    wait = rig.blocker("c1", q("Ship it?"))
    seen: list[tuple[object, bool]] = []

    def told(event: ev.HostEvent) -> None:
        if isinstance(event, ev.QuestionsWithdrawn):
            seen.append((rig.host.surface_port.wait_for(event.refs[0]), wait.done))

    rig.host.subscribe_events(told)
    assert rig.host.agent_port.withdraw([rig.ref("c1").id]).all_withdrawn
    assert seen == [(None, True)]


def test_a_raising_listener_changes_nothing_and_stops_no_other(rig: Rig) -> None:
    rig.host.subscribe_events(boom)
    rig.host.subscribe(boom)
    rig.host.subscribe_status(boom)
    seen: list[ev.HostEvent] = []
    rig.host.subscribe_events(seen.append)
    wait = rig.blocker("c1", q("Ship it?"))
    assert rig.host.agent_port.withdraw([rig.ref("c1").id]).all_withdrawn
    assert [type(e) for e in seen] == [
        ev.QuestionAsked,
        ev.WaitOpened,
        ev.QuestionsWithdrawn,
        ev.WaitEnded,
    ]
    assert wait.done and rig.host.surface_port.live_waits == ()
    assert rig.tool_results("c1")[0]["outcome"] == Outcome.WITHDRAWN.value
    assert not rig.host.panel_port.tabs and not rig.host.panel_port.focus.panel_focused


def test_a_failing_listener_is_reported_once_with_its_traceback_in_the_log(
    rig: Rig, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="asks")
    rig.host.subscribe_events(boom)
    rig.async_question("c1", "First?")
    notice = rig.host.surface_port.notice
    assert notice is not None and notice.startswith(FAILED) and "KeyError: 'boom'" in notice
    rig.host.panel_port.key_route(rig.clock())  # a key clears a notice
    rig.async_question("c2", "Second?")
    assert rig.host.surface_port.notice is None  # not reported again
    logged = [r for r in caplog.records if r.name == "asks.core.listeners"]
    assert [r.exc_info is not None for r in logged] == [True, False]
    assert len(rig.host.surface_port.projection.pending) == 2


def test_a_listener_calling_back_is_told_in_order_never_reentrantly(rig: Rig) -> None:
    seen: list[str] = []

    def answer_at_once(event: ev.HostEvent) -> None:
        seen.append(type(event).__name__)
        if isinstance(event, ev.QuestionAsked):
            ref = event.refs[0]
            answer = Answer(AnswerKind.OPTION, (0,))
            assert rig.host.surface_port.answer_from(ref.id, ref.incarnation, answer) is None
            seen.append("answered")

    rig.host.subscribe_events(answer_at_once)
    started = rig.host.agent_port.start_call("c1", call(q("Ship it?")))
    assert isinstance(started, Wait) and started.done
    assert seen == [
        "QuestionAsked",
        "answered",
        "WaitOpened",
        "AnswerSaved",
        "WaitEnded",
        "Delivered",
    ]


def test_status_listeners_are_told_when_the_status_changes_only(rig: Rig) -> None:
    told: list[HostStatistics] = []
    rig.host.subscribe_status(told.append)
    ref = rig.async_question("c1", "Which database?")
    assert [s.pending for s in told] == [1]
    rig.host.panel_port.set_custom_text("typing", tab=ref)  # a draft is not status
    assert len(told) == 1
    rig.answer_option(ref, 0)
    assert told[-1] == rig.host.statistics() and told[-1].saved_undelivered == 1
    assert told[-1].pending == 0
    count = len(told)
    rig.host.agent_port.take_feedback()
    assert len(told) == count + 1 and told[-1].saved_undelivered == 0
