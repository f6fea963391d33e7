"""The extras (asks/core/extras.py): which modules each needs, the one line that says
what to install, and pyproject.toml agreeing with both. The installed checks (a real venv with
only the core, the entry points run there) are tests/test_core_install.py."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from asks.core.extras import MODULES, Extra, MissingExtraError, missing_modules, require
from asks.core.i18n import Translator, use

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def find_except(*absent: str) -> Callable[[str], object | None]:
    """An import system that finds every module but ``absent``."""
    return lambda name: None if name in absent else object()


def names(requirements: list[str]) -> set[str]:
    """The distribution names of PEP 508 requirement strings (extras and versions dropped)."""
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for r in requirements}


def test_an_installed_extra_is_required_silently() -> None:
    for extra in Extra:
        require(extra, "anything", find_except())


def test_a_missing_extra_is_one_line_naming_the_pip_command() -> None:
    with use(Translator("en")), pytest.raises(MissingExtraError) as caught:
        require(Extra.HUB, "asks --mcp", find_except("mcp"))
    assert str(caught.value) == "asks --mcp needs the hub extra: pip install 'asks-panel[hub]'"
    assert "\n" not in str(caught.value)


def test_each_module_of_an_extra_is_checked() -> None:
    assert missing_modules(Extra.HUB, find_except("h11")) == ("h11",)
    assert missing_modules(Extra.HUB, find_except("hypercorn")) == ()  # the web bridge's only
    assert missing_modules(Extra.WEB, find_except("mcp")) == ()
    assert missing_modules(Extra.PROVIDERS, find_except("httpx", "mcp")) == ("httpx",)


def test_the_core_dependencies_bring_no_extra() -> None:
    core = names(PROJECT["dependencies"])
    assert {"urwid", "trio", "attrs"} <= core
    heavy = {module for modules in MODULES.values() for module in modules}
    assert not core & heavy, core & heavy


def test_pyproject_declares_each_extra_with_its_modules_and_all_and_dev_bring_them() -> None:
    extras = PROJECT["optional-dependencies"]
    for extra, modules in MODULES.items():
        assert set(modules) <= names(extras[extra.value]), extra  # module = distribution here
    assert extras["all"] == [f"asks-panel[{','.join(e.value for e in Extra)}]"]
    assert "asks-panel[all]" in extras["dev"]


def test_the_readme_run_command_installs_everything() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    run = re.search(r"## Two commands.*?```sh\n(.*?)\n```", readme, re.DOTALL)
    assert run is not None
    assert "pip install -q -e '.[all]'" in run.group(1)
