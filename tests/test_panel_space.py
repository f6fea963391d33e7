"""The panel fits: :class:`~asks.core.space.PanelSpace` (pure) and a real
:class:`~asks.widgets.layer.AsksLayer` rendered inside an embedder's screen (a transcript, the
layer, a status line) at every size down to 40×10: the panel's bottom border, the whole chat
draft, the status line and at least one transcript row are on screen, and with the keyboard in
the panel its focused row too."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import urwid
from hypothesis import given, settings
from hypothesis import strategies as st
from support.panel import database_question
from support.pty_harness import ROOT, PtyApp
from support.rig import Rig, call

from asks.core.space import MIN_PANEL_ROWS, PanelSpace
from asks.widgets.layer import AsksLayer

SCRIPTS = Path(__file__).with_name("scripts")
LONG = "Which of these many options should the service really use in production? " * 3


def test_the_cap_is_a_share_passive_and_all_that_is_left_focused() -> None:
    space = PanelSpace()
    assert space.panel_rows(40, 1, focused=False) == 20
    assert space.panel_rows(40, 1, focused=True) == 37
    assert space.panel_rows(10, 1, focused=False) == MIN_PANEL_ROWS
    assert space.panel_rows(10, 1, focused=True) == 7
    assert space.panel_rows(10, 4, focused=False) == 4  # a tall draft wins over the floor
    assert PanelSpace(share=0.25, reserve=4).panel_rows(40, 2, focused=False) == 10
    assert PanelSpace(share=1).panel_rows(40, 1, focused=False) == 37
    for bad in (0, -0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match="panel share"):
            PanelSpace(share=bad)


def embedder(layer: AsksLayer) -> urwid.Pile:
    transcript = urwid.ListBox(
        urwid.SimpleFocusListWalker([urwid.Text(f"T{n}") for n in range(40)])
    )
    transcript.set_focus(39)
    return urwid.Pile([("weight", 1, transcript), ("pack", layer), ("pack", urwid.Text("STATUS"))])


def shown(layer: AsksLayer, cols: int, rows: int) -> list[str]:
    layer.fit(rows, cols)
    canvas = embedder(layer).render((cols, rows), focus=True)
    return [row.decode("utf-8").rstrip() for row in canvas.text]


def layer_of(rig: Rig, questions: int, draft_lines: int, share: float) -> AsksLayer:
    """A layer over ``questions`` long pending questions, ``draft_lines`` of chat draft."""
    asked = [database_question(question=f"{n}. {LONG}", header=f"H{n}") for n in range(questions)]
    rig.start_call("c1", call(*asked, blocking=False))
    draft = "\n".join(f"draft line {n}" for n in range(draft_lines))
    editor = urwid.Edit("› ", draft, multiline=True)
    return AsksLayer(rig.host.panel_port, editor, clock=rig.clock, space=PanelSpace(share))


@settings(max_examples=40, deadline=None)
@given(
    size=st.tuples(st.integers(40, 120), st.integers(10, 50)),
    questions=st.integers(1, 3),
    draft_lines=st.integers(1, 2),
    focused=st.booleans(),
    share=st.sampled_from([0.3, 0.5, 1.0]),
)
def test_the_panel_fits_every_screen_down_to_40x10(
    size: tuple[int, int], questions: int, draft_lines: int, focused: bool, share: float
) -> None:
    cols, rows = size
    with tempfile.TemporaryDirectory() as directory:
        rig = Rig.create(Path(directory))
        try:
            layer = layer_of(rig, questions, draft_lines, share)
            if focused:
                assert rig.host.panel_port.enter_panel() is None
            lines = shown(layer, cols, rows)
        finally:
            rig.journal.close()
    text = "\n".join(lines)
    assert len(lines) == rows
    assert lines[-1] == "STATUS", text
    assert lines[-1 - draft_lines : -1] == [
        f"{'› ' if n == 0 else ''}draft line {n}" for n in range(draft_lines)
    ], text
    assert lines[0].startswith("T"), text  # a transcript row above the panel
    bottom = len(lines) - 2 - draft_lines
    assert lines[bottom][:1] == "└" and lines[bottom][-1:] == "┘", text
    top = next(n for n, line in enumerate(lines) if line.startswith("┌"))
    if focused:
        assert any("› " in line for line in lines[top:bottom]), text
    else:
        assert bottom - top + 1 <= max(MIN_PANEL_ROWS, int(rows * share)), text


def test_asks_repl_at_40x10_keeps_the_draft_the_border_and_a_transcript_row(
    tmp_path: Path,
) -> None:
    """The real ``asks`` under a pty at 40×10, two questions pending, a draft typed: passive
    and with the keyboard in the panel, the whole panel, the draft and the status fit."""
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    argv = ["--data-dir", str(tmp_path / "data"), "--script", str(SCRIPTS / "two_async.toml")]
    app = PtyApp(argv, env=env, cols=40, rows=10)
    try:
        app.wait_for(r"Questions \(2\)")
        app.type("my draft")
        for expected_border in ("╌", "─"):
            app.wait_for(rf"(?m)^└{expected_border}{{38}}┘\n› my draft\nAsks: 2 pending")
            rows = app.text().split("\n")
            assert len(rows) == 10 and not rows[0].startswith(("┌", "│", "╎")), app.text()
            app.press("shift tab")
        app.wait_for(r"(?m)^│ › 1\. ")  # the focused row is on screen
    finally:
        app.close()


def test_an_embedders_layer_fits_itself_to_the_running_screen(tmp_path: Path) -> None:
    """The embedding demo (transcript, layer, status line; it never calls ``fit``) at 40×10:
    the layer caps the panel from the loop's screen, the draft and the status line stay."""
    demo = ROOT / "demos" / "embed_minimal.py"
    app = PtyApp([str(tmp_path)], program=[str(demo)], cols=40, rows=10)
    try:
        app.wait_for("Type ask, block or withdraw")
        app.type("ask")
        app.press("enter")
        app.wait_for(r"\[DB \(planner\)\]")
        app.type("my draft")
        app.wait_for(r"(?m)^└╌{38}┘\n> my draft\nAsks: ")
        rows = app.text().split("\n")
        assert not rows[0].startswith(("┌", "│", "╎")), app.text()
        app.press("ctrl c")
        assert app.wait_exit() == 0
    finally:
        app.close()
