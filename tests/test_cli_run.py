"""``asks.cli.run.run_session``: the one composition the REPL and line mode share, run with a
surface of the test's own (no screen, no pty): what it hands the surface and when, the exit
status it passes on, the resume line, and a resumed session's opening turn."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
import trio

from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.transcript import EntryKind
from asks.cli import run
from asks.cli.args import build_parser
from asks.config import Config
from asks.widgets.app import Session


@attrs.define
class Recorded:
    """A surface that records what the composition does with it."""

    status: int
    hints: AnswerHints = LINE_HINTS
    warms_up = False
    seen: list[object] = attrs.Factory(list)

    def prepare(self, session: Session) -> None:
        self.seen.append("prepare")

    def report(self, session: Session) -> Callable[[str], None]:
        return self.seen.append

    async def serve(
        self,
        session: Session,
        *,
        opening_turn: bool,
        shown: Callable[[], object],
        listening: trio.Event,
    ) -> int:
        shown()
        assert listening.is_set()  # no hub: nothing to wait for
        self.seen.append(("serve", opening_turn))
        return self.status


def test_one_composition_runs_a_surface_and_passes_its_status_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    args = build_parser().parse_args(["--data-dir", str(data)])
    surface = Recorded(status=7)
    assert run.run_session(args, data, Config(), surface) == 7
    assert surface.seen == ["prepare", ("serve", True)]  # a new session: the opening turn
    out = capsys.readouterr().out.strip()
    assert out.startswith("Session ") and " saved. Resume it with: " in out
    session_id = out.split()[1]
    assert f"--resume {session_id}" in out
    resumed = Recorded(status=0)
    again = build_parser().parse_args(["--data-dir", str(data), "--resume", session_id])
    assert run.run_session(again, data, Config(), resumed) == 0
    assert resumed.seen == ["prepare", ("serve", False)]  # resumed: no opening turn


def test_the_screen_says_the_config_warnings_again_and_line_mode_does_not(
    tmp_path: Path,
) -> None:
    """What differs between the two real surfaces before they serve."""
    data = tmp_path / "data"
    args = build_parser().parse_args(["--data-dir", str(data)])
    seen: list[list[str]] = []

    async def serve(
        self: object,
        session: Session,
        *,
        opening_turn: bool,
        shown: Callable[[], object],
        listening: trio.Event,
    ) -> int:
        seen.append([e.text for e in session.transcript.entries if e.kind is EntryKind.NOTICE])
        return 0

    from asks.widgets.keymap import build_keymap  # noqa: PLC0415

    screen = run.Screen(build_keymap(), run.WebOptions(), ["asks: f.toml: a warning"])
    lines = run.Lines()
    for surface in (screen, lines):
        cls = type(surface)
        original = cls.serve
        cls.serve = serve  # type: ignore[method-assign]
        try:
            assert run.run_session(args, data, Config(), surface) == 0
        finally:
            cls.serve = original  # type: ignore[method-assign]
    assert seen[0] == ["Config warning: f.toml: a warning"] and seen[1] == []
    assert screen.warms_up and not lines.warms_up
    assert screen.hints != lines.hints == LINE_HINTS
