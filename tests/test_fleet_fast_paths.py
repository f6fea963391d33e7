"""The fleet's fast paths give the state the plain ones give.

With thousands of questions pending, the per-change work is kept proportional to what changed:
:meth:`~asks.core.agents.AgentOrder.arrange` keeps its groups between calls, and the tab bar
reads only the chips it shows. Each is checked here against the plain computation of the same
state, on random histories (hypothesis): agents asking, questions answered or withdrawn in any
order; the layer rebuilds its view once for the changes made between two frames.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
import urwid
from hypothesis import given, settings
from hypothesis import strategies as st
from support.rig import Rig, call, q

from asks.core.agents import Agent, AgentOrder
from asks.core.model import QuestionRef
from asks.widgets.keymap import build_keymap
from asks.widgets.layer import AsksLayer

WIDE = 100

AGENTS: tuple[Agent, ...] = (None, "builder", "planner", "reviewer")

# one step: (questions asked: their agents' indexes, questions closed: indexes into pending)
steps = st.lists(
    st.tuples(
        st.lists(st.integers(0, len(AGENTS) - 1), max_size=4),
        st.lists(st.integers(0, 40), max_size=4),
    ),
    max_size=25,
)


def plain(
    pending: dict[QuestionRef, None], agents: dict[QuestionRef, Agent], first: list[Agent]
) -> list[QuestionRef]:
    """Grouped by agent in the order they first asked, each agent's in arrival order."""
    return sorted(pending, key=lambda ref: first.index(agents[ref]))


@given(steps)
@settings(max_examples=300, deadline=None)
def test_incremental_arrange_is_the_plain_grouping(
    history: list[tuple[list[int], list[int]]],
) -> None:
    order = AgentOrder()
    serial = itertools.count()
    pending: dict[QuestionRef, None] = {}
    agents: dict[QuestionRef, Agent] = {}
    first: list[Agent] = []
    reads: list[QuestionRef] = []

    def agent_of(ref: QuestionRef) -> Agent:
        reads.append(ref)
        return agents[ref]

    for asked, closed in history:
        for index in closed:
            if pending:
                del pending[list(pending)[index % len(pending)]]
        for who in asked:
            ref = QuestionRef(f"q-{next(serial)}", 1)
            pending[ref] = None
            agents[ref] = AGENTS[who]
        for ref in pending:
            if agents[ref] not in first:
                first.append(agents[ref])
        assert list(order.arrange(pending, agent_of)) == plain(pending, agents, first)
        assert len(reads) == len(set(reads))  # each ref's agent read once while pending


def test_a_ref_out_of_arrival_order_is_arranged_afresh() -> None:
    order = AgentOrder()
    a, b, c = (QuestionRef(name, 1) for name in "abc")
    who = {a: "x", b: "y", c: "x"}
    assert order.arrange([a, b], who.__getitem__) == (a, b)
    # c is new but comes before b, a known ref: not a pending dict's order
    assert order.arrange([a, c, b], who.__getitem__) == (a, c, b)


class ReadCount(dict[QuestionRef, None]):
    """A pending dict that counts the refs read from it (forwards and backwards)."""

    reads = 0

    def __iter__(self) -> Iterator[QuestionRef]:
        for ref in super().__iter__():
            self.reads += 1
            yield ref

    def __reversed__(self) -> Iterator[QuestionRef]:
        for ref in super().__reversed__():
            self.reads += 1
            yield ref


def test_a_batch_of_asks_reads_the_new_refs_only() -> None:
    """I5 (docs/fleet-scale.md): asking at 5,000 pending reads the new refs and the newest
    known one, not every pending ref (it was a set difference of all of them per batch)."""
    order = AgentOrder()
    pending = ReadCount()
    agents = itertools.cycle(AGENTS)
    who: dict[QuestionRef, Agent] = {}
    for n in range(5_000):
        ref = QuestionRef(f"q-{n}", 1)
        pending[ref] = None
        who[ref] = next(agents)
    order.arrange(pending, who.__getitem__)
    for batch in range(5):
        pending.reads = 0
        for n in range(6):
            ref = QuestionRef(f"b-{batch}-{n}", 1)
            pending[ref] = None
            who[ref] = next(agents)
        tabs = order.arrange(pending, who.__getitem__)
        assert pending.reads == 6 + 1
        assert list(tabs) == plain(pending, who, list(AGENTS))


# ---------------------------------------------------------------------------- the view
def _layer_over(tmp_path: Path) -> tuple[Rig, AsksLayer]:
    rig = Rig.create(tmp_path)
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), keymap=build_keymap(), clock=rig.clock)
    return rig, layer


def _text(canvas: urwid.Canvas) -> str:
    return "\n".join(line.decode() for line in canvas.text)


def test_changes_between_frames_rebuild_the_view_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, layer = _layer_over(tmp_path)
    refreshes = []
    plain = layer.panel.refresh
    monkeypatch.setattr(layer.panel, "refresh", lambda: (refreshes.append(1), plain())[1])
    for n in range(5):  # agents ask between two frames: no key is being routed
        rig.start_call(f"c{n}", call(q(f"Question {n}?", f"Head{n}"), blocking=False))
    assert refreshes == []  # nothing rebuilt yet
    drawn = _text(layer.render((WIDE,), focus=True))
    assert len(refreshes) == 1  # one rebuild for the five changes, before the frame
    assert "Questions (5)" in drawn and "Head4" in drawn  # the frame shows all of them
    layer.render((WIDE,), focus=True)
    assert len(refreshes) == 1  # nothing changed since: nothing rebuilt


def test_a_stale_view_is_measured_as_it_is_drawn(tmp_path: Path) -> None:
    """urwid's ``Pile`` sizes a packed item by ``pack`` (which ``WidgetWrap`` hands to the
    wrapped widget), then renders it: a change from outside keys since the last frame is
    in both, so the layer is drawn whole at the bottom of the frame, not cut off."""
    rig, layer = _layer_over(tmp_path)
    frame = urwid.Pile([("weight", 1, urwid.SolidFill(".")), ("pack", layer)])
    frame.render((WIDE, 30), focus=True)  # the editor alone
    rig.start_call("c1", call(q("First?", "One"), q("Second?", "Two"), blocking=False))
    drawn = _text(frame.render((WIDE, 30), focus=True)).splitlines()
    alone = _text(layer.render((WIDE,), focus=True)).splitlines()
    assert "Questions (2)" in alone[0]
    assert drawn[-len(alone) :] == alone


def test_a_change_made_by_a_key_is_in_the_view_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, layer = _layer_over(tmp_path)
    rig.start_call("c1", call(q("First?", "One"), q("Second?", "Two"), blocking=False))
    layer.render((WIDE,), focus=True)
    layer.keypress((WIDE,), "shift tab")  # into the panel
    refreshes = []
    plain = layer.panel.refresh
    monkeypatch.setattr(layer.panel, "refresh", lambda: (refreshes.append(1), plain())[1])
    layer.keypress((WIDE,), "tab")  # the next tab: the host's selection moves
    assert refreshes  # rebuilt during the key, not at the next frame
    assert rig.host.panel_port.selected == layer.panel._shown


def test_the_tab_bar_reads_only_the_chips_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig, layer = _layer_over(tmp_path)
    for n in range(60):
        rig.start_call(f"c{n}", call(q(f"Question {n}?", f"Head{n}"), blocking=False))
    read: list[object] = []
    plain = layer.panel._chip_state
    monkeypatch.setattr(layer.panel, "_chip_state", lambda tab: (read.append(tab), plain(tab))[1])
    drawn = _text(layer.render((WIDE,), focus=True))
    assert "Head0" in drawn and "›" in drawn  # the first chips, more hidden to the right
    shown = drawn.count("Head")
    assert 0 < len(read) <= shown + 2  # the chips shown and one beyond each end at most
