"""The built-in tour as a new user meets it (issue 19's polish): its words follow the keys and
the surface in front of the person, under the real command in a pty (tests/pty_harness.py).

* With ``focus_toggle_key = "f2"`` the tour and every queued result name F2, never Shift+Tab;
  in line mode (no panel) they say ``/asks``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pty_harness import PtyApp

from asks import contract
from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.lines import result_summary
from asks.agent.loop import TextDelta
from asks.agent.scripted import ScriptedModel, parse_script
from asks.core.model import Outcome
from asks.widgets.hints import panel_hints
from asks.widgets.keymap import build_keymap


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "config" / "asks").mkdir(parents=True)
    return tmp_path


def start(home: Path, *args: str, cols: int = 120, rows: int = 40) -> PtyApp:
    env = {"XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "xdg")}
    return PtyApp(["--data-dir", str(home / "data"), *args], cols=cols, rows=rows, env=env)


@pytest.fixture
def apps() -> Iterator[list[PtyApp]]:
    started: list[PtyApp] = []
    try:
        yield started
    finally:
        for app in started:
            app.close()


def flat(app: PtyApp) -> str:
    """The screen as one line: wrapped text joined back (urwid wraps at spaces)."""
    return re.sub(r"\s+", " ", app.text())


@pytest.mark.e2e
def test_the_tour_names_the_configured_focus_key(home: Path, apps: list[PtyApp]) -> None:
    config = home / "config" / "asks" / "config.toml"
    config.write_text('[keys]\nfocus_toggle_key = "f2"\ncollapse_key = "ctrl x"\n')
    app = start(home)
    apps.append(app)
    app.wait_for(r"queued\): pending: q-")
    app.wait_for(r"answer any time: F2 or /asks\)")
    text = flat(app)
    assert "press F2 (or type /asks) to answer it" in text
    assert "Shift+Tab" not in text


@pytest.mark.e2e
def test_the_tour_in_line_mode_says_asks(home: Path, apps: list[PtyApp]) -> None:
    app = start(home, "--line")
    apps.append(app)
    app.wait_for(r"answer any time: /asks\)")
    text = flat(app)
    assert "Type /asks to see it and /asks ID to answer it" in text
    assert "Shift+Tab" not in text and "F2" not in text


# ---------------------------------------------------------------- the words, in process
def test_the_screen_hints_come_from_its_keymap() -> None:
    assert panel_hints(build_keymap()) == AnswerHints("Shift+Tab", "Alt+D", "Alt+L", "Ctrl+]")
    assert panel_hints(build_keymap("f2", "off")) == AnswerHints("F2", "Alt+D", "Alt+L", None)


def test_a_pending_result_says_how_to_answer_on_its_surface() -> None:
    envelope = contract.ResultEnvelope(Outcome.QUEUED, "(model text)", {"pending": ["q-1"]})
    f2 = AnswerHints("F2", "Alt+D", "Alt+L")
    assert result_summary(envelope, f2) == "pending: q-1 (answer any time: F2 or /asks)"
    assert result_summary(envelope, LINE_HINTS) == "pending: q-1 (answer any time: /asks)"


HINT_SCRIPT = """
[[step]]
on = "start"
[[step.reply]]
delay = 0
say = "{answer_hint} | decline ({decline}) or defer ({defer}) | {collapse_hint}"
"""


async def said(hints: AnswerHints) -> str:
    model = ScriptedModel(parse_script(HINT_SCRIPT, "hints"), hints=hints)
    return "".join([e.text async for e in model.stream([], []) if isinstance(e, TextDelta)])


async def test_script_placeholders_say_the_surfaces_keys() -> None:
    panel = await said(AnswerHints("F2", "Alt+D", "Alt+L", "Ctrl+X"))
    assert panel == ("It waits in the panel above the editor: press F2 (or type /asks) to "
                     "answer it whenever you like. | decline (Alt+D) or defer (Alt+L) | "
                     "Ctrl+X hides the panel and brings it back.")
    line = await said(LINE_HINTS)
    assert line == ("Type /asks to see it and /asks ID to answer it, whenever you like. | "
                    "decline (/decline) or defer (/later) |")
