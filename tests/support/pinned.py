"""The oldest release a dependency's pinned range allows, installed alone in a cached folder
(``pip install --target``, outside the repo) to put first on ``PYTHONPATH``: how the range tests
(tests/test_urwid_range.py, tests/test_attrs_range.py) run asks' code against it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from support.paths import ROOT

PIP_TARGET = (sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target")


def lowest_bound(package: str) -> str:
    """The lower bound of ``PACKAGE>=X`` in pyproject.toml's dependencies."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if re.match(rf"{package}\b", d)]
    found = re.search(r">=\s*([\d.]+)", spec)
    assert found, f"no lower bound in {spec!r}"
    return found.group(1)


def oldest_dir(package: str, version: str) -> Path:
    """A folder with only ``package`` ``version`` in it (its dependencies come from the venv)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    target = base / "asks-tests" / f"{package}-{version}"
    if not (target / "complete").exists():
        done = subprocess.run(
            [*PIP_TARGET, target, "--upgrade", f"{package}=={version}"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        (target / "complete").write_text(f"{package} {version} for the range tests\n")
    return target
