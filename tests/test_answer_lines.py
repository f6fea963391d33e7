"""The transcript line for every answer the person gives another agent.

``You answered builder: Deploy to canary now? → No``: one sanitised line whatever the
question and answer hold, long ones cut with ``…``; the surface named when it is not the one
the person looks at; the session's own agent's answers as before (a line only from another
surface). Pure: :func:`asks.surfaces.elsewhere.answer_lines` over a real host's events.
"""

from __future__ import annotations

from support.rig import Rig, call, q

from asks.core.events import AnswerSaved, HostEvent
from asks.core.model import Answer, AnswerKind, QuestionRef
from asks.surfaces.elsewhere import QUESTION_CHARS, answer_lines


def _ask(rig: Rig, call_id: str, text: str, source: str | None) -> QuestionRef:
    args = call(q(text, header="Canary", options=("Yes", "No")), blocking=False)
    rig.host.agent_port.start_call(call_id, args, source=source)
    return rig.ref(call_id)


def _lines(rig: Rig, act: object, here: str = "panel") -> list[str]:
    seen: list[HostEvent] = []
    unsubscribe = rig.host.subscribe_events(seen.append)
    assert callable(act)
    act()
    unsubscribe()
    projection = rig.host.surface_port.projection
    return [
        line
        for event in seen
        if isinstance(event, AnswerSaved)
        for line in answer_lines(projection, event, here)
    ]


def test_an_answer_in_the_panel_names_the_agent_the_question_and_the_answer(rig: Rig) -> None:
    ref = _ask(rig, "b1", "Deploy to canary now?", "builder")
    lines = _lines(rig, lambda: rig.answer_option(ref, 1))
    assert lines == ["You answered builder: Deploy to canary now? → No"]


def test_a_decline_names_the_agent(rig: Rig) -> None:
    ref = _ask(rig, "b1", "Deploy to canary now?", "builder")
    port = rig.host.surface_port
    lines = _lines(rig, lambda: port.answer_from(ref.id, ref.incarnation, None, "panel"))
    assert lines == ["You declined builder: Deploy to canary now?"]


def test_an_answer_in_the_browser_says_where(rig: Rig) -> None:
    ref = _ask(rig, "b1", "Deploy to canary now?", "builder")
    port = rig.host.surface_port
    answer = Answer(AnswerKind.OPTION, (0,))
    lines = _lines(rig, lambda: port.answer_from(ref.id, ref.incarnation, answer, "web"))
    assert lines == ["You answered builder in the browser: Deploy to canary now? → Yes"]


def test_the_line_is_one_sanitised_line_and_long_questions_are_cut(rig: Rig) -> None:
    text = "Deploy\n\x1b[2Jto canary\u202e now " + "and then some more words " * 10 + "?"
    ref = _ask(rig, "b1", text, "builder")
    port = rig.host.surface_port
    custom = Answer(AnswerKind.CUSTOM, custom_text="no\nwait \x1b]0;title\x07" + "x" * 200)
    [line] = _lines(rig, lambda: port.answer_from(ref.id, ref.incarnation, custom, "panel"))
    assert "\n" not in line and "\x1b" not in line and "\u202e" not in line and "\x07" not in line
    asked = line.removeprefix("You answered builder: ").split(" → ")[0]
    assert len(asked) == QUESTION_CHARS and asked.endswith("…"), asked
    assert asked.startswith("Deploy to canary now and then")
    assert line.endswith("…") and len(line) < 200


def test_the_sessions_own_agent_gets_no_line_for_a_panel_answer(rig: Rig) -> None:
    ref = _ask(rig, "o1", "Deploy to canary now?", None)
    assert _lines(rig, lambda: rig.answer_option(ref, 1)) == []
    ref = _ask(rig, "o2", "Deploy to canary now?", None)
    port = rig.host.surface_port
    answer = Answer(AnswerKind.OPTION, (0,))
    lines = _lines(rig, lambda: port.answer_from(ref.id, ref.incarnation, answer, "web"))
    assert lines == ["Canary answered in the browser: Yes"]
