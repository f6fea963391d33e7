"""The method cache against the oldest and the newest attrs of the pinned range.

:mod:`asks.core.codecache` shadows ``compile`` in attrs' private module ``attr._make`` (inside the
launch's import block only: asks/cli/startup.py). A private name can change in any release, so
tests/test_codecache.py — the cache active, a hit is what compiling gives, the block leaves attrs
as it found it — runs once more with the range's lower bound first on the import path (``pip
install --target``, cached outside the repo); the suite itself runs with the newest attrs the
range allows, and this test also checks that the newest installed attrs keeps the one name the
cache relies on, so a release that drops it fails here rather than quietly launching slower.
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
RELIES_ON = (
    "import attr, attr._make as make; "
    "print(attr.__version__, 'compile' in make._compile_and_eval.__code__.co_names)"
)


def relied_on(env: dict[str, str]) -> tuple[str, bool]:
    """The attrs version ``env`` imports, and whether it compiles through ``compile``."""
    seen = subprocess.run(
        [sys.executable, "-c", RELIES_ON], env=env, capture_output=True, text=True, check=False
    )
    assert seen.returncode == 0, seen.stderr
    version, compiles = seen.stdout.split()
    return version, compiles == "True"


def test_the_newest_attrs_compiles_where_the_cache_looks() -> None:
    version, compiles = relied_on(dict(os.environ))
    assert compiles, f"attrs {version}: attr._make no longer compiles through compile"


def test_the_method_cache_holds_with_the_oldest_attrs_of_the_range() -> None:
    version = lowest_bound("attrs")
    env = {**os.environ, "PYTHONPATH": str(oldest_dir("attrs", version))}
    seen, compiles = relied_on(env)
    assert seen.split(".")[:2] == version.split(".")[:2], seen
    assert compiles, f"attrs {seen}: attr._make does not compile through compile"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_codecache.py"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", done.stdout), done.stdout[-500:]
    assert " failed" not in done.stdout and " skipped" not in done.stdout, done.stdout[-500:]
