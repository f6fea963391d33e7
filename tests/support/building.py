"""Building the package for the tests: pip's wheel build, offline, with this venv's setuptools.

Commands run without the test run's ``PYTHONPATH`` and ``PYTEST_ADDOPTS`` (what is built or
installed must not see the source tree through them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

NOT_SOURCE = shutil.ignore_patterns(  # what .gitignore keeps out of the tree, and .git
    ".git",
    ".venv",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    ".*_cache",
    ".hypothesis",
    "build",
    "dist",
)
"""What a build of the source tree must not see (a copy made with ``shutil.copytree``)."""
NOT_INHERITED = frozenset({"PYTHONPATH", "PYTEST_ADDOPTS"})


def run(*command: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``command`` with its output captured, without :data:`NOT_INHERITED` in its environment."""
    env = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def build_wheel(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """pip's wheel build from ``source`` (a tree or an sdist file) into ``out``."""
    return run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "-q",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        source,
        "-w",
        out,
    )


def the_wheel(out: Path) -> Path:
    """The one wheel in ``out``."""
    (wheel,) = out.glob("*.whl")
    return wheel
