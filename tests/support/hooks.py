"""Hook commands for the tests: ``support/hook_append.py`` appends each event it is given.

:func:`hook` is the command (``[hooks]`` argv), :func:`hook_lines` waits until its file has
grown to a number of events (never for a fixed time), :func:`write_config` writes a config
file naming hooks for a real ``asks``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from support.paths import SUPPORT

HOOK = SUPPORT / "hook_append.py"
WAIT = 30.0  # seconds before a hook that never ran fails the test


def hook(out: Path, *extra: str) -> list[str]:
    """The hook command appending to ``out`` (``extra``: ``--exit N``, ``--sleep S``)."""
    return [sys.executable, str(HOOK), str(out), *extra]


async def hook_lines(out: Path, count: int) -> list[dict[str, Any]]:
    """The hook file once it has ``count`` lines (fails after :data:`WAIT` seconds)."""
    with trio.fail_after(WAIT):
        while not out.exists() or len(out.read_text().splitlines()) < count:
            await trio.sleep(0.02)
    return [json.loads(line) for line in out.read_text().splitlines()]


def write_config(home: Path, commands: dict[str, Sequence[str]], timeout: float = WAIT) -> None:
    """``home/asks/config.toml`` with these hooks (``home``: an ``XDG_CONFIG_HOME``)."""
    folder = home / "asks"
    folder.mkdir(parents=True)
    lines = [
        "[hooks]",
        *(f"{name} = {json.dumps(list(argv))}" for name, argv in commands.items()),
        f"timeout = {timeout}",
    ]
    (folder / "config.toml").write_text("\n".join(lines) + "\n")
