"""An embedder's own type check: ``mypy --strict`` over one program in a folder of its own,
with asks' types from the tree under test (``MYPYPATH``), as an embedder's CI runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def embedder_mypy(folder: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    """Write ``source`` as ``folder/name`` and run ``mypy --strict`` there; never raises."""
    (folder / name).write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(folder / "cache"), "."],
        cwd=folder,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
