"""The question panel widget of a real layer over a real host (a :class:`~support.rig.Rig`),
rendered to text: what tests/test_panel_widget.py and tests/test_i18n.py look at.

:func:`make_panel` builds the layer and returns its panel; :func:`press` types keys into the
layer (the panel's key path as typed); :func:`screen` renders rows; :func:`check_golden`
compares rows with ``tests/golden/panel_<name>.txt`` (``ASKS_UPDATE_GOLDEN=1`` rewrites them).
"""

from __future__ import annotations

import os
from typing import Any
from weakref import WeakKeyDictionary

import urwid
from urwid.testing import render_text

from asks.widgets.keymap import build_keymap
from asks.widgets.layer import AsksLayer
from asks.widgets.panel import QuestionPanel
from support.paths import GOLDEN
from support.rig import Rig, call

WIDE = 80


LAYERS: WeakKeyDictionary[QuestionPanel, AsksLayer] = WeakKeyDictionary()


def make_panel(rig: Rig, **kwargs: Any) -> QuestionPanel:
    """The panel of a real layer (keys go through the layer's key path, as typed)."""
    keymap = kwargs.pop("keymap", build_keymap())
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), keymap=keymap, clock=rig.clock)
    panel = layer.panel
    if "max_rows" in kwargs:
        panel.max_rows = kwargs.pop("max_rows")
    assert not kwargs, kwargs
    rig.host.subscribe(panel.refresh)
    LAYERS[panel] = layer
    return panel


def screen(panel: QuestionPanel, cols: int = WIDE) -> list[str]:
    """The rendered rows; the footer's no-break spaces (they only steer wrapping) as spaces."""
    rows = render_text(panel, (cols,), focus=True, strip=True)
    return [row.replace("\u00a0", " ") for row in rows]


def press(panel: QuestionPanel, *keys: str, cols: int = WIDE) -> list[str]:
    """Keys typed into the layer while the panel has them; the unhandled ones are returned."""
    layer = LAYERS[panel]
    return [k for key in keys if (k := layer.keypress((cols,), key)) is not None]


def check_golden(name: str, lines: list[str]) -> None:
    text = "\n".join(lines) + "\n"
    path = GOLDEN / f"panel_{name}.txt"
    if os.environ.get("ASKS_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with ASKS_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), f"{path.name} differs:\n{text}"


def database_question(**extra: Any) -> dict[str, Any]:
    return {
        "question": "Which database should the service use?",
        "header": "Database",
        "context": "The service stores about a million rows; backups run nightly.",
        "options": [
            {"label": "Postgres", "description": "Reliable and well known; needs a server."},
            {
                "label": "SQLite",
                "description": "One file, no server.",
                "preview": "import sqlite3\ndb = sqlite3.connect('app.db')\n"
                "db.execute('create table t (id integer)')",
            },
            {"label": "MySQL", "description": "What the old service used."},
        ],
        **extra,
    }


def ask_async(rig: Rig, call_id: str, *questions: dict[str, Any]) -> None:
    rig.start_call(call_id, call(*questions, blocking=False))


def focused(rig: Rig) -> None:
    assert rig.host.panel_port.enter_panel() is None
