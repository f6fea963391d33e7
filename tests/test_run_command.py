"""``AsksLayer.run_command``: the ``/asks`` command an embedder's REPL gets in one call.

The status line advertises ``/asks`` while questions are pending; an embedder passes each line
its editor sends to ``run_command`` before its own commands. Only ``/asks`` lines are the
layer's (True); a refusal is the host's notice, shown in ``status_text``; any other line is
left alone (False), nothing changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import urwid
from support.panel import ask_async
from support.rig import Rig

from asks.widgets.layer import AsksLayer


@pytest.fixture
def layer(tmp_path: Path) -> AsksLayer:
    rig = Rig.create(tmp_path)
    ask_async(
        rig,
        "c1",
        {"question": "Which?", "header": "Which", "options": [{"label": "A"}, {"label": "B"}]},
    )
    return AsksLayer(rig.host.panel_port, urwid.Edit(), clock=lambda: 0.0)


@pytest.mark.parametrize("line", ["hello", "/asksx", "/help", "", " /ask", "asks"])
def test_a_line_that_is_not_the_layers_changes_nothing(layer: AsksLayer, line: str) -> None:
    before = (layer.port.focus.panel_focused, layer.status_text())
    assert layer.run_command(line) is False
    assert (layer.port.focus.panel_focused, layer.status_text()) == before


def test_asks_opens_the_panel_with_the_keys(layer: AsksLayer) -> None:
    assert not layer.port.focus.panel_focused
    assert layer.run_command("  /asks  ") is True
    assert layer.port.focus.panel_focused


def test_asks_with_an_unknown_id_says_so_in_the_status_line(layer: AsksLayer) -> None:
    assert layer.run_command("/asks q-0000000000") is True
    assert "No pending question with id q-0000000000." in layer.status_text()
    assert not layer.port.focus.panel_focused
