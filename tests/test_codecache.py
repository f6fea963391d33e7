"""attrs' generated methods come from the cache exactly as compiling would give them.

:mod:`asks.core.codecache`: the second block builds the same classes from
the file the first wrote; a class whose source changed is compiled anew; a hashable class's
salt (per-process: ``str`` hashes are randomised) is this run's even when another process
wrote the entry; a damaged file, no bytecode writing or an unwritable place only cost the
compiling; the block leaves attrs as it found it; and the CLI's imports use it (a second
launch writes nothing: nothing missed).
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.attrs_classes import build, compiles_per_build

from asks.core.codecache import cached_attrs_methods, class_name, salt_of

ROOT = Path(__file__).resolve().parents[1]
COMPILES = compiles_per_build()  # what one build() compiles with this attrs


@pytest.fixture(autouse=True)
def bytecode_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever ``PYTHONDONTWRITEBYTECODE`` says where the tests run (one test turns it on)."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def behaviour(classes: dict[str, Any]) -> tuple[object, ...]:
    point, row = classes["Point"](1, 2), classes["Row"](("a",), 3)
    with pytest.raises(ValueError, match="width"):
        classes["Row"]((), 0)
    service = classes["Service"]("s")
    return (
        repr(point),
        point == classes["Point"](1, 2),
        hash(point) == hash(classes["Point"](1, 2)),
        repr(row),
        row == classes["Row"](("a",), 3),
        service == classes["Service"]("s"),
        repr(service),
    )


def test_the_second_block_builds_the_same_classes_from_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "methods.bin"
    with cached_attrs_methods(path) as first:
        before = build()
    assert (first.active, first.hits, first.misses) == (True, 0, COMPILES)
    assert path.exists()
    with cached_attrs_methods(path) as second:
        after = build()
    assert (second.hits, second.misses) == (COMPILES, 0)
    assert behaviour(after) == behaviour(before)
    fresh = build()  # outside any block: compiled as attrs always does
    for name in ("Point", "Row"):
        for method in ("__init__", "__eq__", "__repr__"):
            cached, compiled = getattr(after[name], method), getattr(fresh[name], method)
            assert cached.__code__.co_code == compiled.__code__.co_code
            assert cached.__code__.co_consts == compiled.__code__.co_consts


def test_a_class_whose_source_changed_is_compiled_anew(tmp_path: Path) -> None:
    path = tmp_path / "methods.bin"
    with cached_attrs_methods(path):
        build()
    with cached_attrs_methods(path) as later:
        classes = build(extra_field=True)
    assert later.hits + later.misses == COMPILES
    assert 0 < later.misses < COMPILES  # only Row's script(s) changed
    assert classes["Row"](("a",), 2, "n").note == "n"


def test_the_same_file_name_with_other_source_misses(tmp_path: Path) -> None:
    """The key is the whole source: another class body under the same name (another version of
    a module) never gets the old code."""
    path, name = tmp_path / "methods.bin", "<attrs generated methods m.C>"
    with cached_attrs_methods(path) as first:
        exec(first.compile("x = 1", name, "exec"), space := {})
    with cached_attrs_methods(path) as second:
        exec(second.compile("x = 2", name, "exec"), space)
        exec(second.compile("x = 1", name, "exec"), other := {})
    assert (space["x"], other["x"]) == (2, 1)
    assert (second.hits, second.misses) == (1, 1)


WRITE_ELSEWHERE = (
    "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2])\n"
    "from support.attrs_classes import build\n"
    "from asks.core.codecache import cached_attrs_methods\n"
    "with cached_attrs_methods(Path(sys.argv[1])): build()\n"
)


def test_another_process_salt_becomes_this_runs(tmp_path: Path) -> None:
    """``__hash__`` mixes in ``hash()`` of the class's name, which differs per process: an
    entry written under another hash seed gets this process's salt."""
    path = tmp_path / "methods.bin"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "12345"
    here = str(Path(__file__).parent)
    subprocess.run([sys.executable, "-c", WRITE_ELSEWHERE, str(path), here], env=env, check=True)
    with cached_attrs_methods(path) as cache:
        point = build()["Point"]
    assert (cache.hits, cache.misses) == (COMPILES, 0)
    salt = salt_of(point.__hash__.__code__.co_filename)
    assert salt is not None and salt in point.__hash__.__code__.co_consts
    compiled = build()["Point"].__hash__.__code__
    assert point.__hash__.__code__.co_consts == compiled.co_consts
    assert point.__hash__.__code__.co_code == compiled.co_code


def test_a_damaged_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "methods.bin"
    path.write_bytes(b"not a cache at all")
    with cached_attrs_methods(path) as cache:
        classes = build()
    assert (cache.hits, cache.misses) == (0, COMPILES)
    assert behaviour(classes)[1:3] == (True, True)
    with cached_attrs_methods(path) as again:
        build()
    assert (again.hits, again.misses) == (COMPILES, 0)


def test_no_file_when_bytecode_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with cached_attrs_methods(tmp_path / "methods.bin") as cache:
        build()
    assert cache.misses == COMPILES and not (tmp_path / "methods.bin").exists()


def test_an_unwritable_place_only_costs_the_compiling(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    with cached_attrs_methods(tmp_path / "a-file" / "methods.bin") as cache:
        classes = build()
    assert cache.misses == COMPILES and behaviour(classes)[1:3] == (True, True)


def test_the_block_leaves_attrs_as_it_found_it(tmp_path: Path) -> None:
    make = importlib.import_module("attr._make")
    with cached_attrs_methods(tmp_path / "methods.bin"):
        assert "compile" in vars(make)
        with cached_attrs_methods(tmp_path / "inner.bin") as inner:  # nested: the outer serves
            build()
        assert not inner.active and "compile" in vars(make)
    assert "compile" not in vars(make)


def test_the_cli_imports_use_it(tmp_path: Path) -> None:
    """``import asks.cli`` writes the cache once (the .pyc go to a prefix of the test's own,
    and the cache beside them); a second launch finds everything and writes nothing."""
    unset = ("PYTHONDONTWRITEBYTECODE", "ASKS_LAUNCH_TRICKS")  # every trick on (cli.startup)
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(PYTHONPYCACHEPREFIX=str(tmp_path / "pycache"), PYTHONPATH=str(ROOT))
    code = "import asks.cli; from asks.core.codecache import cache_file; print(cache_file())"
    first = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    path = Path(first.stdout.strip())
    assert path.is_relative_to(tmp_path) and path.exists()
    written = path.stat().st_mtime_ns, path.read_bytes()
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    assert (path.stat().st_mtime_ns, path.read_bytes()) == written
    with cached_attrs_methods(path) as cache:  # and it holds the launch's classes
        pass
    assert len(cache.known) > 100


METHODS_PATTERN = re.compile(r"<attrs generated (?:methods|hash) (?P<name>.*?)(?:-\d+)?>")
NAME_PARTS = st.text(alphabet=st.sampled_from("aZ._-09>\n <\u0663"), max_size=12)


@given(
    st.sampled_from(
        ["<attrs generated methods ", "<attrs generated hash ", "<attrs generated init ", ""]
    ),
    NAME_PARTS,
    st.sampled_from(["", "-1", "-23", "-", "-\u0663", "-1-2"]),
    st.sampled_from([">", "", ">>", "\n>"]),
)
def test_the_class_name_is_what_attrs_file_name_pattern_matches(
    prefix: str, name: str, suffix: str, end: str
) -> None:
    filename = prefix + name + suffix + end
    found = METHODS_PATTERN.fullmatch(filename)
    assert class_name(filename) == (None if found is None else found["name"])


def test_the_class_name_of_a_real_attrs_class() -> None:
    """The script that holds a hashable class's salt is named so that its class is found (all
    methods in one script with attrs >= 25, ``__hash__`` alone before)."""
    point = build()["Point"]
    filename = point.__hash__.__code__.co_filename
    found = METHODS_PATTERN.fullmatch(filename)
    assert found is not None, filename
    assert class_name(filename) == found["name"] == f"{point.__module__}.{point.__qualname__}"
