"""The absent agent of ``asks hub`` (asks/agent/absent.py), in process on a real journal.

Chat lines are notes to the hub's agents or one line saying where to write; nothing is queued
for a turn, nothing is journaled but a note, and what the person typed is shown as theirs.
"""

from __future__ import annotations

import pytest
from support.hub import hub_ask
from support.rig import Rig

from asks.agent.absent import AbsentAgent
from asks.agent.loop import AgentState, Sent
from asks.agent.transcript import EntryKind, Transcript
from asks.host.notes import MAX_NOTE


@pytest.fixture
def nobody(rig: Rig) -> AbsentAgent:
    hub_ask(rig, "planner", "1", "Which database?")
    return AbsentAgent(rig.host.hub_port, Transcript())


def said(agent: AbsentAgent) -> list[tuple[EntryKind, str]]:
    return [(entry.kind, entry.text) for entry in agent.transcript.entries]


def test_it_never_works_opens_nothing_and_has_no_turn_to_interrupt(nobody: AbsentAgent) -> None:
    assert nobody.state is AgentState.ABSENT and not nobody.opens_sessions
    assert nobody.interrupt() is False
    assert nobody.send("hello") is Sent.REFUSED  # nothing reads it: nothing was sent
    assert nobody.addressees() == ("planner",)


def test_a_note_may_span_lines_and_is_saved_trimmed(rig: Rig, nobody: AbsentAgent) -> None:
    assert nobody.send("@planner  first line\nsecond line  ") is Sent.HANDLED
    [line] = rig.lines_of("note_sent")
    assert line["text"] == "first line\nsecond line"
    assert said(nobody) == [
        (EntryKind.USER, "@planner  first line\nsecond line  "),
        (EntryKind.NOTICE, "Note for planner saved: it reaches planner at its next asks call."),
    ]


def test_a_note_too_long_is_refused_and_nothing_is_saved(rig: Rig, nobody: AbsentAgent) -> None:
    assert nobody.send("@planner " + "x" * (MAX_NOTE + 1)) is Sent.REFUSED
    assert rig.lines_of("note_sent") == []
    assert said(nobody)[-1] == (
        EntryKind.NOTICE,
        (
            f"A note can have at most {MAX_NOTE} characters; this one has {MAX_NOTE + 1}. "
            "Nothing was sent."
        ),
    )


def test_a_note_that_cannot_be_saved_is_an_error_line(rig: Rig, nobody: AbsentAgent) -> None:
    rig.ops.fail_next_append("note_sent")
    assert nobody.send("@planner hello") is Sent.REFUSED
    assert said(nobody)[-1] == (EntryKind.ERROR, "The note to planner was not saved.")
    assert rig.host.surface_port.notice is not None and "Not saved" in rig.host.surface_port.notice
    assert rig.host.hub_port.offer_feedback("planner") is None


def test_lines_for_nobody_name_the_agents_and_write_nothing(rig: Rig, nobody: AbsentAgent) -> None:
    before = len(rig.lines())
    for line in ("hello", "@bob hi", "@planner", "@"):
        assert nobody.send(line) is Sent.REFUSED  # the chat editor keeps the line
    notices = [text for kind, text in said(nobody) if kind is EntryKind.NOTICE]
    assert notices == [
        "Nothing was sent: no agent runs in this session to read it. Write @name text to send "
        "a note to one of: planner.",
        "No agent named bob has been seen here. Agents seen: planner.",
        "Write the note after the name: @planner your note",
        "Nothing was sent: no agent runs in this session to read it. Write @name text to send "
        "a note to one of: planner.",
    ]
    assert len(rig.lines()) == before
