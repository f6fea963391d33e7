"""The tab bar a panel draws shows the chips the plain computation gives: every tab's chip text
made from its question (the header sanitised, who asked in brackets; ``Review`` for a
multi-question wait), numbered from its second use in one pass over all the tabs, then the bar
around the selected chip. The panel makes the texts of the chips it shows only, and those
before them (:class:`~asks.widgets.panel.tabbar.ChipNames`): checked through the real widget
on random histories of asks, withdrawals, tab moves and widths (hypothesis)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import urwid
from hypothesis import given, settings
from hypothesis import strategies as st
from support.rig import Rig, call, q

from asks.core.model import QuestionRef, question_id
from asks.core.tabs import TabKey
from asks.host.commands import PanelCommand
from asks.host.hub import HubPort
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line
from asks.widgets.layer import AsksLayer
from asks.widgets.panel.markup import BORDER_COLS
from asks.widgets.panel.tabbar import ChipState, TabBar

HEADERS = ("Database", "Deploy", "Database 2", "Deploy (a)", "Dep\u200bloy", "")
AGENTS = ("a", "b", "")  # "" asks as the session's own agent (no source)


def plain_text(port: PanelPort, tab: TabKey) -> str:
    """A chip's text, from its question alone."""
    if not isinstance(tab, QuestionRef):
        return "Review"
    question = port.question(tab)
    header = sanitize_line(question.spec.header) or "?"
    return f"{header} ({sanitize_line(question.source)})" if question.source else header


def plain_row(port: PanelPort, cols: int) -> str:
    """The tab bar's row as the plain computation draws it, ``cols`` wide."""
    tabs = port.tabs
    seen: dict[str, int] = {}
    names = []
    for tab in tabs:  # numbered in one pass over every tab
        text = plain_text(port, tab)
        seen[text] = seen.get(text, 0) + 1
        names.append(text if seen[text] == 1 else f"{text} {seen[text]}")

    def state(index: int) -> ChipState:
        tab = tabs[index]
        if isinstance(tab, QuestionRef) and port.draft(tab).staged is not None:
            return ChipState.STAGED
        return ChipState.REQUIRED if port.is_required(tab) else ChipState.PLAIN

    selected = tabs.index(port.selected) if port.selected in tabs else 0
    canvas = TabBar(names, state, selected).render((cols,))
    return bytes(canvas.text[0]).decode()


def shown_row(layer: AsksLayer, cols: int) -> str:
    """The tab bar's row of the panel the layer draws ``cols`` wide (inside the border)."""
    rows = [bytes(row).decode() for row in layer.render((cols,), focus=False).text]
    return rows[1][BORDER_COLS:-BORDER_COLS]


def step(rig: Rig, action: tuple[str, int, int, int]) -> None:
    kind, agent, n, header = action
    label = AGENTS[agent]
    arguments = call(q(f"Question {n}?", HEADERS[header]), blocking=kind == "block")
    if kind == "block":  # two questions: a Review tab, its chips required
        arguments["questions"].append(q(f"And {n}?", HEADERS[(header + 1) % len(HEADERS)]))
    if kind == "withdraw" and label:
        call_id = HubPort.hub_call_id(label, f"c{n}")
        rig.host.hub_port.withdraw(label, [question_id(rig.journal.session_id, call_id, 0)])
    elif kind == "withdraw":
        rig.host.agent_port.withdraw([question_id(rig.journal.session_id, f"c{n}", 0)])
    elif kind in ("next", "prev"):
        rig.host.panel_port.command(
            PanelCommand.NEXT_TAB if kind == "next" else PanelCommand.PREV_TAB
        )
    elif label:
        rig.host.hub_port.start_call(label, f"c{n}", arguments)
    else:
        rig.host.agent_port.start_call(f"c{n}", arguments)


actions = st.tuples(
    st.sampled_from(("ask", "ask", "ask", "block", "withdraw", "next", "next", "prev")),
    st.sampled_from((0, 0, 1, 2)),  # an agent's index in AGENTS
    st.integers(0, 60),
    st.sampled_from((0, 0, 0, 1, 2, 3, 4, 5)),  # a header's index in HEADERS: many repeats
)


@settings(max_examples=100, deadline=None)
@given(st.lists(actions, min_size=1, max_size=60), st.integers(12, 160))
def test_the_bar_shows_the_chips_of_the_plain_computation(
    history: list[tuple[str, int, int, int]], cols: int
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        rig = Rig.create(Path(directory))
        layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
        with rig.journal:
            for action in history:
                step(rig, action)
                if rig.host.panel_port.tabs:
                    assert shown_row(layer, cols) == plain_row(
                        rig.host.panel_port, cols - 2 * BORDER_COLS
                    )


def test_a_header_repeated_past_the_first_chips_is_numbered_by_all_before_it(
    tmp_path: Path,
) -> None:
    rig = Rig.create(tmp_path)
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=rig.clock)
    with rig.journal:
        for n in range(8):
            step(rig, ("ask", 0, n, 0))
        for _ in range(7):
            step(rig, ("next", 0, 0, 0))
        row = shown_row(layer, 60)
    assert "[Database (a) 8]" in row
    assert row == plain_row(rig.host.panel_port, 60 - 2 * BORDER_COLS)
