"""The status line: pending count, saved feedback, storage warning, notice, agent state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
import urwid
from support.rig import Rig, call, q

from asks.agent.loop import AgentState
from asks.core.focus import KeysTo
from asks.host.commands import PanelMode
from asks.host.stats import HostStatistics, KeysStatus
from asks.store.journal import StorageState
from asks.widgets.status import PALETTE, STORAGE_WARNING, StatusLine, keys_text

COLS = 60


def stats(**changes: Any) -> HostStatistics:
    base = HostStatistics(
        pending=0,
        saved_undelivered=0,
        live_waits=0,
        storage=StorageState.OK,
        agent_running=False,
        focus_owner="chat",
        mode=PanelMode.EXPANDED,
        notice=None,
    )
    return attrs.evolve(base, **changes)


def row(
    status: StatusLine, agent: AgentState = AgentState.IDLE, cols: int = COLS, **changes: Any
) -> str:
    status.update(stats(**changes), agent)
    canvas = status.render((cols,), focus=False)
    assert canvas.rows() == 1
    return canvas.text[0].decode()


def innermost(attr: object) -> object:
    """The attribute a widget set, under the layers its decorations add (urwid 5 layering)."""
    return attr.layers[0] if isinstance(attr, urwid.LayeredAttr) else attr


def line(left: str, right: str, cols: int = COLS) -> str:
    return left + right.rjust(cols - len(left))


@pytest.fixture
def status() -> StatusLine:
    return StatusLine()


def test_nothing_pending(status: StatusLine) -> None:
    assert row(status) == line("Asks: none pending", "idle")


def test_pending_and_saved(status: StatusLine) -> None:
    assert row(status, pending=2, saved_undelivered=1) == line(
        "Asks: 2 pending · 1 saved feedback · /asks", "idle"
    )


def test_saved_part_is_omitted_when_zero(status: StatusLine) -> None:
    assert row(status, pending=3) == line("Asks: 3 pending · /asks", "idle")


def test_pending_questions_from_hub_agents_name_how_many_agents(status: StatusLine) -> None:
    assert row(status, pending=3, pending_agents=2) == line(
        "Asks: 3 pending from 2 agents · /asks", "idle"
    )
    assert row(status, pending=1, pending_agents=1) == line(
        "Asks: 1 pending from 1 agent · /asks", "idle"
    )
    assert row(status, pending_agents=1) == line("Asks: none pending", "idle")


def test_the_keys_name_the_agent_whose_question_has_them() -> None:
    """With several agents, whose question has the keys is on screen; the
    session's own agent (no source) is not named; a label is one sanitised line."""
    on = KeysStatus(KeysTo.PANEL, "Canary", agent="builder")
    assert keys_text(on) == "keys: question “Canary” · builder"
    assert keys_text(KeysStatus(KeysTo.PANEL, "Lint")) == "keys: question “Lint”"
    assert keys_text(KeysStatus(KeysTo.PANEL, None, agent="builder")) == "keys: Review · builder"
    held = KeysStatus(KeysTo.CHAT, agent="x", waiting="Canary", waiting_agent="builder")
    assert keys_text(held) == "keys: chat — “Canary” from builder waits for a pause"
    hostile = KeysStatus(KeysTo.PANEL, "Port", agent="evil\x1b[2J\nname")
    assert "\x1b" not in keys_text(hostile) and "\n" not in keys_text(hostile)


def test_no_agent_state_when_no_agent_runs(status: StatusLine) -> None:
    """``asks hub``: the right side is empty, nothing says idle or working."""
    assert row(status, AgentState.ABSENT, pending=1) == line("Asks: 1 pending · /asks", "")


def test_saved_feedback_without_pending_questions(status: StatusLine) -> None:
    assert row(status, saved_undelivered=2) == line("Asks: none pending · 2 saved feedback", "idle")


def test_agent_state_on_the_right(status: StatusLine) -> None:
    assert row(status, AgentState.WORKING) == line("Asks: none pending", "working…")


def test_storage_warning_comes_first_with_its_attribute(status: StatusLine) -> None:
    status.update(stats(pending=1, storage=StorageState.UNCONFIRMED), AgentState.IDLE)
    canvas = status.render((100,))
    text = canvas.text[0].decode()
    assert text.startswith(f"{STORAGE_WARNING} · Asks: 1 pending · /asks")
    assert text.rstrip().endswith("idle")
    runs = [(innermost(attr), run.decode()) for attr, _cs, run in next(iter(canvas.content()))]
    assert runs[0] == ("status.warning", STORAGE_WARNING)


def test_storage_warning_survives_a_narrow_screen(status: StatusLine) -> None:
    text = row(status, cols=60, pending=4, storage=StorageState.UNCONFIRMED)
    assert text.startswith("⚠ storage unconfirmed")
    assert text.rstrip().endswith("idle")


def test_notice_is_shown_sanitised_on_one_line(status: StatusLine) -> None:
    text = row(status, cols=80, notice="Could not save:\x1b[31m disk\nfull\x07")
    assert text == line("Asks: none pending · Could not save: disk full", "idle", 80)


def test_extra_text_is_appended(status: StatusLine) -> None:
    status.update(stats(), AgentState.IDLE, extra="press ctrl c again to quit")
    assert status.render((COLS,)).text[0].decode() == line(
        "Asks: none pending · press ctrl c again to quit", "idle"
    )
    assert status.left_text == "Asks: none pending · press ctrl c again to quit"
    assert status.right_text == "idle"


def test_too_long_left_part_is_cut_not_wrapped(status: StatusLine) -> None:
    text = row(status, cols=30, pending=12, saved_undelivered=5)
    assert len(text) == 30
    assert text.startswith("Asks: 12 pending")
    assert text.rstrip().endswith("idle")


def test_status_is_not_selectable(status: StatusLine) -> None:
    assert not status.selectable()


def test_from_a_real_host(tmp_path: Path, status: StatusLine) -> None:
    rig = Rig.create(tmp_path)
    rig.host.agent_port.start_call("c1", call(q("Which?"), q("Where?"), blocking=False))
    status.update(rig.host.statistics(), AgentState.IDLE)
    assert status.left_text == "Asks: 2 pending · /asks · keys: chat"


def test_palette_names_are_prefixed() -> None:
    names = [entry[0] for entry in PALETTE]
    assert all(name == "status" or name.startswith("status.") for name in names)
    assert "status.warning" in names
    assert len(names) == len(set(names))
