"""The layout of tests/ (docs/testing.md): test files hold tests, tests/support/ the rest.

Directly in ``tests/``: only ``test_*.py`` files and ``conftest.py``; no test file imports
another (what two test files share lives in ``tests/support/``, fixtures in conftest.py);
``tests/support/`` modules are imported as ``support.NAME``, never by their bare name.
"""

from __future__ import annotations

import ast
from pathlib import Path

from support.paths import SUPPORT, TESTS


def imported_modules(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports (also inside functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def offenders(paths: list[Path], bad: set[str]) -> dict[str, list[str]]:
    """``{file: [modules]}`` of the files importing any of ``bad`` (by full or first name)."""
    out: dict[str, list[str]] = {}
    for path in paths:
        names = sorted(m for m in imported_modules(path) if m in bad or m.split(".")[0] in bad)
        if names:
            out[path.name] = names
    return out


def test_tests_holds_only_test_files_and_conftest() -> None:
    stray = sorted(
        p.name
        for p in TESTS.glob("*.py")
        if p.name != "conftest.py" and not p.name.startswith("test_")
    )
    assert not stray, f"move these to tests/support/: {stray}"


def test_no_test_file_imports_another() -> None:
    tests = sorted(TESTS.glob("test_*.py"))
    found = offenders([*tests, TESTS / "conftest.py"], {p.stem for p in tests})
    assert not found, f"move what they share to tests/support/: {found}"


def test_support_modules_are_imported_as_support_names() -> None:
    bare = {p.stem for p in SUPPORT.glob("*.py") if p.stem != "__init__"}
    everything = [*TESTS.glob("*.py"), *SUPPORT.glob("*.py")]
    found = offenders(everything, bare)
    assert not found, f"import them as support.NAME: {found}"


def test_the_checks_see_a_test_file_importing_another(tmp_path: Path) -> None:
    one = tmp_path / "test_one.py"
    one.write_text("from test_two import helper\nimport support.rig\n")
    assert offenders([one], {"test_two", "rig"}) == {"test_one.py": ["test_two"]}
    assert offenders([one], {"support"}) == {"test_one.py": ["support.rig"]}


def test_the_support_index_names_every_module() -> None:
    index = ast.get_docstring(ast.parse((SUPPORT / "__init__.py").read_text(encoding="utf-8")))
    assert index is not None
    unlisted = sorted(
        p.name
        for p in SUPPORT.glob("*.py")
        if p.stem != "__init__" and f"support.{p.stem}`" not in index and p.name not in index
    )
    assert not unlisted, f"say what they are in tests/support/__init__.py: {unlisted}"
