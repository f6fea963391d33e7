"""``pip install asks-panel`` without extras: a real venv with only the core.

The venv is made by pip as a person makes it, ``pip install WHEEL`` with no extra, its
dependencies from the package index pip is set up with. It is cached outside the repo, keyed
by pyproject.toml (the dependencies) and the Python version, so a machine pays it once; each
run installs the wheel of the tree under test into it again (``--no-deps``). In that venv:

* none of the extras' modules can be found (else the venv proves nothing);
* the embedding demos (demos/embed_minimal.py, demos/embed_taskrunner.py) run under a pty and
  journal as they must;
* each entry point that needs an extra (``asks --mcp``, ``asks hub``, ``[mcp] enabled``,
  ``--web``, a real model) exits 2 with one line on stderr naming the pip command, writing
  no session; ``/web`` in the REPL says the same line in the transcript and the REPL goes on.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.building import NOT_SOURCE, build_wheel, run, the_wheel
from support.embed_demo import journal_kinds, play_the_demo, play_the_taskrunner
from support.pty_harness import PtyApp

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXTRA_MODULES = ("httpx", "hypercorn", "mcp", "mcp_types", "pydantic", "starlette", "uvicorn")
QUIET = """name = "quiet"
[[step]]
on = "start"
[[step.reply]]
delay = 0
say = "QUIET-READY"
"""


def cache_dir() -> Path:
    """The venv's folder: outside the repo, named by what decides its dependencies."""
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + sys.version.encode())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "asks-tests" / f"core-venv-{key.hexdigest()[:16]}"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of the tree under test, built from a copy of it (nothing written in the tree)."""
    base = tmp_path_factory.mktemp("core-install")
    tree = base / "tree"
    shutil.copytree(ROOT, tree, symlinks=True, ignore=NOT_SOURCE)
    done = build_wheel(tree, base / "wheel")
    assert done.returncode == 0, done.stdout + done.stderr
    return the_wheel(base / "wheel")


@pytest.fixture(scope="module")
def core(wheel: Path) -> Path:
    """The cached core-only venv (module docstring) with ``wheel`` installed; its folder."""
    venv = cache_dir()
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q"]
    if not (venv / "complete").exists():  # first time, or a run stopped half-way
        shutil.rmtree(venv, ignore_errors=True)
        done = run(sys.executable, "-m", "venv", venv)
        assert done.returncode == 0, done.stderr
        done = run(*pip, wheel)  # as a person installs it: the dependencies, no extra
        assert done.returncode == 0, done.stdout + done.stderr
        (venv / "complete").write_text("the core venv of tests/test_core_install.py\n")
    done = run(*pip, "--no-deps", "--force-reinstall", wheel)
    assert done.returncode == 0, done.stdout + done.stderr
    return venv


def test_the_core_venv_has_none_of_the_extras(core: Path) -> None:
    code = "import importlib.util as u, sys; print(*[m for m in sys.argv[1:] if u.find_spec(m)])"
    done = run(core / "bin" / "python", "-c", code, *EXTRA_MODULES, cwd=core)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
    done = run(core / "bin" / "python", "-c", "import asks, urwid, trio, attrs, cattrs, orjson")
    assert done.returncode == 0, done.stderr


def test_the_embedding_demo_runs_with_only_the_core(core: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    app = PtyApp(
        [str(data)],
        program=[str(ROOT / "demos" / "embed_minimal.py")],
        python=str(core / "bin" / "python"),
        source=None,
        cwd=tmp_path,
    )
    try:
        play_the_demo(app)
    finally:
        app.close()
    kinds = journal_kinds(data)
    assert kinds.count("Resolved") == 1 and kinds.count("Withdrawn") == 1


def test_the_second_embedding_runs_with_only_the_core(core: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    app = PtyApp(
        [str(data)],
        program=[str(ROOT / "demos" / "embed_taskrunner.py")],
        python=str(core / "bin" / "python"),
        source=None,
        cwd=tmp_path,
    )
    try:
        play_the_taskrunner(app)
    finally:
        app.close()
    assert journal_kinds(data).count("Resolved") == 2


def english() -> dict[str, str]:
    """The environment without the test run's paths and the machine's language: English."""
    unset = {"PYTHONPATH", "PYTEST_ADDOPTS", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}
    return {k: v for k, v in os.environ.items() if k not in unset} | {"LANG": "C.UTF-8"}


@pytest.mark.parametrize(
    ("words", "config", "line"),
    [
        (["--mcp", "--line"], "", "asks --mcp needs the hub extra: pip install 'asks-panel[hub]'"),
        (["hub", "--line"], "", "asks hub needs the hub extra: pip install 'asks-panel[hub]'"),
        (["--line"], "[mcp]\nenabled = true\n", "[mcp] enabled needs the hub extra: "),
        (["--web", "--line"], "", "asks --web needs the web extra: pip install 'asks-panel[web]'"),
        (["--web"], "", "asks --web needs the web extra: "),
        (
            ["--model", "m", "--base-url", "http://127.0.0.1:9/v1", "-p", "hi"],
            "",
            "the openai provider needs the providers extra: pip install 'asks-panel[providers]'",
        ),
        (["--provider", "anthropic", "--model", "m", "--line"], "", "the anthropic provider "),
    ],
)
def test_an_entry_point_without_its_extra_says_what_to_install_in_one_line(
    core: Path, tmp_path: Path, words: list[str], config: str, line: str
) -> None:
    (tmp_path / "config.toml").write_text(config, encoding="utf-8")
    data = tmp_path / "data"
    done = subprocess.run(
        [core / "bin" / "asks", "--data-dir", data, "--config", tmp_path / "config.toml", *words],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
        env=english(),
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"asks: {line}") and done.stderr.count("\n") == 1, done.stderr
    assert "pip install 'asks-panel[" in done.stderr
    assert done.stdout == ""
    assert not list(data.glob("*.jsonl")) if data.exists() else True  # no session written


def test_web_in_the_repl_without_the_extra_is_a_notice_and_the_repl_goes_on(
    core: Path, tmp_path: Path
) -> None:
    (tmp_path / "quiet.toml").write_text(QUIET, encoding="utf-8")
    app = PtyApp(
        ["--data-dir", str(tmp_path / "data"), "--script", str(tmp_path / "quiet.toml")],
        python=str(core / "bin" / "python"),
        source=None,
        cwd=tmp_path,
    )
    try:
        app.wait_for("QUIET-READY")
        app.type("/web")
        app.press("enter")
        app.wait_for(r"/web needs the web extra: pip install 'asks-panel\[web\]'")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
