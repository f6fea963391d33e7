"""Which surface a run gets: the full screen, or line mode (asks/surfaces/line.py).

Kept apart from line mode so that deciding costs nothing at start-up: the full-screen REPL
never imports line mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO


def line_mode_wanted(
    requested: bool, env: Mapping[str, str], stdin: TextIO, stdout: TextIO
) -> bool:
    """Line mode instead of the full screen: asked for (``--line``), stdin or stdout not a
    terminal, or ``TERM=dumb``."""
    return requested or not stdin.isatty() or not stdout.isatty() or env.get("TERM") == "dumb"
