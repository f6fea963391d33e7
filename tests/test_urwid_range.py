"""``AsksScreen`` against the oldest urwid the pinned range allows.

``widgets/screen.py`` reads urwid's canvas shards (tuples, by index) to reuse unchanged rows,
and overrides urwid's ``_start``/``_stop`` (the extension points urwid's ``BaseScreen``
documents) for the terminal restore. The suite runs with the newest urwid the range allows;
this runs tests/test_screen.py — byte-identical frames to urwid's own screen, the signal keys
off while started and the terminal restored exactly — once more with the range's lower bound
put first on the import path (``pip install --target``, cached outside the repo).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.pinned import lowest_bound, oldest_dir

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def test_the_screen_holds_with_the_oldest_urwid_of_the_range() -> None:
    version = lowest_bound("urwid")
    env = {**os.environ, "PYTHONPATH": str(oldest_dir("urwid", version))}
    code = "import urwid; print(urwid.__version__)"
    seen = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert seen.returncode == 0, seen.stderr
    assert tuple(seen.stdout.split(".")[:2]) == tuple(version.split(".")[:2]), seen.stdout
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_screen.py"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b5 passed\b", done.stdout), done.stdout[-500:]
