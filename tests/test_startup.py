"""The launch's tricks in one place (asks/cli/startup.py): which ones the switch turns on, that
each is applied inside the import block only, and that the command line's imports follow the
switch (the method cache written or not; the collector's young collections during the imports
avoided or not)."""

from __future__ import annotations

import gc
import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from asks.cli.startup import ENV, Trick, chosen, importing
from asks.core.codecache import cache_file

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()


@pytest.mark.parametrize(
    ("value", "tricks"),
    [
        (None, set(Trick)),
        ("all", set(Trick)),
        (" all ", set(Trick)),
        ("none", set()),
        ("", set()),
        ("gc-pause", {Trick.GC_PAUSE}),
        ("method-cache, gc-pause", {Trick.METHOD_CACHE, Trick.GC_PAUSE}),
        ("tour-cache,method-cache", {Trick.METHOD_CACHE}),  # a deleted trick's name: ignored
    ],
)
def test_the_switch_names_the_tricks_that_run(value: str | None, tricks: set[Trick]) -> None:
    environ = {} if value is None else {ENV: value}
    assert chosen(environ) == tricks


@pytest.mark.parametrize("tricks", [set(), {Trick.GC_PAUSE}, {Trick.METHOD_CACHE}, set(Trick)])
def test_each_trick_is_applied_inside_the_block_only(tricks: set[Trick]) -> None:
    make = importlib.import_module("attr._make")
    gc.enable()
    with importing(tricks):
        assert gc.isenabled() == (Trick.GC_PAUSE not in tricks)
        assert ("compile" in vars(make)) == (Trick.METHOD_CACHE in tricks)
    assert gc.isenabled()
    assert "compile" not in vars(make)


def test_a_later_block_keeps_a_method_cache_of_its_own() -> None:
    """The hub's blocks (asks/cli/hub.py) each write their own file: one file shared by two
    blocks would be rewritten by each in turn (it holds exactly what its block used)."""
    make = importlib.import_module("attr._make")
    files = set()
    for part in ("", "hub", "hub-session", "hub-server"):
        with importing({Trick.METHOD_CACHE}, part=part):
            files.add(vars(make)["compile"].__self__.path)
        assert cache_file(part) in files
    assert len(files) == 4


LAUNCH_IMPORTS = (
    "import gc; young = lambda: gc.get_stats()[0]['collections']; before = young();"
    "import asks.cli; from asks.core.codecache import cache_file;"
    "print(young() - before, cache_file().exists())"
)


def imports(tmp_path: Path, switch: str) -> tuple[int, bool]:
    """``import asks.cli`` in a fresh interpreter with ``switch`` (its .pyc under a prefix of
    its own, first written by a launch with every trick off): the young collections seen so
    meanwhile, and whether the method cache was written."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(tmp_path / switch), PYTHONPATH=str(ROOT))
    env[ENV] = "none"
    subprocess.run([sys.executable, "-c", "import asks.cli"], env=env, check=True)
    env[ENV] = switch
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH_IMPORTS], env=env, capture_output=True, text=True, check=True
    )
    collections, written = done.stdout.split()
    return int(collections), written == "True"


def test_the_command_lines_imports_follow_the_switch(tmp_path: Path) -> None:
    plain, plain_written = imports(tmp_path, "none")
    paused, paused_written = imports(tmp_path, "gc-pause")
    cached, cached_written = imports(tmp_path, "method-cache")
    assert (plain_written, paused_written, cached_written) == (False, False, True)
    assert paused < plain / 4  # the imports' young collections (~120) did not happen
    assert cached > plain / 2  # only the collector's pause avoids them
