"""The package installs whole or not at all: built, installed and run for real.

Built once per run (module fixtures), offline: ``--no-build-isolation`` (the build uses this
venv's setuptools) and ``--no-index``.

* The **sdist**, from a copy of the source tree, through setuptools' PEP 517 hook (what any
  frontend calls; pip builds no sdists).
* The **wheel**, from that sdist file as pip builds one from a download, and from the tree as
  ``pip install .`` or a git URL does: the same files either way.
* A **fresh venv** (no pip, no site packages) with the wheel installed into it by this venv's
  pip (``--python``). Its dependencies come from this venv's site-packages through one line of
  a ``.pth`` file; the ``.pth`` files of a directory added that way are not run, so this venv's
  editable ``asks`` stays invisible there (asserted: where ``asks`` is imported from).

Checked: the wheel installs only ``asks``, with every source file (``widgets/`` as
``asks.widgets``), ``py.typed`` twice, the tour and the catalogs; the sdist is the source tree
(every tracked file, the ``asks/widgets`` link as a link, never a followed copy); the installed
wheel runs the embedding demo under a pty from outside any source tree; the unpacked sdist runs
some of its own test files (conftest, helpers, the pty harness, scripts, golden screens) with
the fresh venv. The wrong trees: a clone made with ``core.symlinks=false`` (a real clone shows
that the link becomes a 10-byte file) still builds the whole wheel, but its editable install
stops with a sentence; a tree without ``widgets/`` stops the build with a sentence.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from support.building import NOT_SOURCE, build_wheel, run, the_wheel
from support.embed_demo import journal_kinds, play_the_demo
from support.pty_harness import PtyApp

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
BROKEN_LINK = b"../widgets"  # what git checks out for the link with core.symlinks=false
SDIST_TESTS = (  # run from the unpacked sdist: conftest, helpers, pty harness, scripts, goldens
    "tests/test_architecture.py",
    "tests/test_keymap.py",
    "tests/test_panel_widget.py",
    "tests/test_public_api.py",
    "tests/test_e2e_i18n.py",
)


LAUNCH_LEFTOVER = "asks/core/__pycache__/attrs-methods.bin"  # asks/core/codecache.py's file


def copy_tree(dest: Path) -> Path:
    """The source tree as a clone has it (the link kept a link), without what is ignored, and
    with what a launch leaves in it beside the .pyc files (the sdist must not carry it)."""
    shutil.copytree(ROOT, dest, symlinks=True, ignore=NOT_SOURCE)
    (dest / LAUNCH_LEFTOVER).parent.mkdir(exist_ok=True)
    (dest / LAUNCH_LEFTOVER).write_bytes(b"not a source")
    return dest


def backend(tree: Path, hook: str, out: Path) -> subprocess.CompletedProcess[str]:
    """setuptools' PEP 517 ``hook`` (build_sdist, build_editable) run in ``tree``."""
    out.mkdir(exist_ok=True)
    code = f"import sys; from setuptools import build_meta; print(build_meta.{hook}(sys.argv[1]))"
    return run(sys.executable, "-c", code, out, cwd=tree)


def python_in(venv: Path) -> Path:
    return venv / "bin" / "python"


def break_the_link(tree: Path) -> None:
    """Make ``tree`` what a clone with ``core.symlinks=false`` is."""
    link = tree / "asks" / "widgets"
    link.unlink()
    link.write_bytes(BROKEN_LINK)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_tree(tmp_path_factory.mktemp("packaging") / "tree")


@pytest.fixture(scope="module")
def sdist(tree: Path) -> Path:
    out = tree.parent / "sdist"
    done = backend(tree, "build_sdist", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def wheel(sdist: Path) -> Path:
    out = sdist.parent.parent / "wheel"
    done = build_wheel(sdist, out)
    assert done.returncode == 0, done.stdout + done.stderr
    return the_wheel(out)


@pytest.fixture(scope="module")
def unpacked(sdist: Path) -> Path:
    with tarfile.open(sdist) as archive:
        archive.extractall(sdist.parent, filter="data")  # refuses links out of the tree
    return sdist.parent / sdist.name.removesuffix(".tar.gz")


@pytest.fixture(scope="module")
def venv(wheel: Path) -> Path:
    """A fresh venv with the wheel installed; the dependencies through this venv's site-packages."""
    venv = wheel.parent.parent / "venv"
    done = run(sys.executable, "-m", "venv", "--without-pip", venv)
    assert done.returncode == 0, done.stderr
    done = run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python_in(venv),
        "install",
        "-q",
        "--no-deps",
        "--no-index",
        wheel,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    site = run(python_in(venv), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    deps = Path(site.stdout.strip()) / "asks-test-dependencies.pth"
    deps.write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return venv


def imported_from(python: Path, module: str, cwd: Path) -> Path:
    done = run(python, "-c", f"import {module} as m; print(m.__file__)", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


# ---------------------------------------------------------------------------- the wheel
def expected_wheel_files(tree: Path) -> set[str]:
    """Every source file of the tree, where the wheel puts it (``widgets/`` in ``asks/``)."""
    sources = {p.relative_to(tree).as_posix() for p in (tree / "asks").rglob("*.py")}
    widgets = {f"asks/{p.relative_to(tree).as_posix()}" for p in (tree / "widgets").rglob("*.py")}
    assert "asks/widgets/panel/view.py" in widgets
    extras = {
        "asks/py.typed",
        "asks/__init__.pyi",  # the public names (asks/__init__.py reads it)
        "asks/widgets/py.typed",
        "asks/locale/de/LC_MESSAGES/asks.mo",
        "asks/locale/zh/LC_MESSAGES/asks.mo",
    }
    return sources | widgets | extras


def test_the_wheel_installs_only_the_asks_package(tree: Path, wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {PurePosixPath(name).parts[0] for name in names}
    dist_info = {top for top in tops if top.endswith(".dist-info")}
    assert len(dist_info) == 1 and tops - dist_info == {"asks"}, tops
    missing = expected_wheel_files(tree) - names
    assert not missing, sorted(missing)
    assert not {n for n in names if n.endswith((".po", ".pot"))}  # the sources of the catalogs


def test_the_wheel_from_the_tree_is_the_wheel_from_the_sdist(tree: Path, wheel: Path) -> None:
    out = tree.parent / "tree-wheel"
    done = build_wheel(tree, out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(zipfile.ZipFile(the_wheel(out)).namelist()) == set(zipfile.ZipFile(wheel).namelist())


def test_the_installed_wheel_runs_the_embedding_demo_under_a_pty(
    venv: Path, unpacked: Path, tmp_path: Path
) -> None:
    """From outside any source tree: ``asks`` and its widgets come from the venv alone."""
    for module in ("asks", "asks.widgets.layer"):
        assert imported_from(python_in(venv), module, tmp_path).is_relative_to(venv), module
    version = run(venv / "bin" / "asks", "--version", cwd=tmp_path)  # the entry point
    assert version.returncode == 0 and version.stdout.startswith("asks "), version
    data = tmp_path / "data"
    app = PtyApp(
        [str(data)],
        program=[str(unpacked / "demos" / "embed_minimal.py")],
        python=str(python_in(venv)),
        source=None,
        cwd=tmp_path,
    )
    try:
        play_the_demo(app)
    finally:
        app.close()
    kinds = journal_kinds(data)
    assert kinds.count("Resolved") == 1 and kinds.count("Withdrawn") == 1


# ---------------------------------------------------------------------------- the sdist
def tracked_files() -> set[str]:
    """The repository's tracked files (the test is skipped outside a git checkout)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (e.g. an unpacked sdist): nothing says what is tracked")
    done = run("git", "ls-files", "-z", cwd=ROOT)
    assert done.returncode == 0, done.stderr
    names = (name for name in done.stdout.split("\0") if name)
    return {name for name in names if (ROOT / name).is_symlink() or (ROOT / name).is_file()}


def sdist_members(sdist: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(sdist) as archive:
        members = archive.getmembers()
    top = sdist.name.removesuffix(".tar.gz")
    return {PurePosixPath(m.name).relative_to(top).as_posix(): m for m in members if not m.isdir()}


def files_under(tree: Path, *folders: str) -> set[str]:
    return {
        path.relative_to(tree).as_posix()
        for folder in folders
        for path in (tree / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_sdist_carries_what_its_tests_need(tree: Path, sdist: Path) -> None:
    """The link as a link, and every file of the folders the tests read (also outside git)."""
    members = sdist_members(sdist)
    link = members["asks/widgets"]
    assert link.issym() and link.linkname == "../widgets", (link.type, link.linkname)
    assert not {name for name in members if name.startswith("asks/widgets/")}  # not followed
    needed = files_under(tree, "widgets", "tests", "demos", "tools", "bench", ".ci")
    needed |= {
        "setup.py",
        "MANIFEST.in",
        "pyproject.toml",
        "README.md",
        "tests/conftest.py",
        "asks/locale/de/LC_MESSAGES/asks.po",
        "asks/locale/asks.pot",
    }
    assert "tests/scripts/two_async.toml" in needed
    assert any(name.startswith("tests/golden/") for name in needed)
    assert needed <= set(members), sorted(needed - set(members))


def test_the_sdist_holds_every_tracked_file(sdist: Path) -> None:
    missing = tracked_files() - set(sdist_members(sdist))
    assert not missing, f"add them to MANIFEST.in: {sorted(missing)}"


def test_the_sdist_leaves_out_what_a_launch_wrote(sdist: Path) -> None:
    assert LAUNCH_LEFTOVER not in sdist_members(sdist)


def test_the_unpacked_sdist_runs_its_tests(venv: Path, unpacked: Path) -> None:
    """The sdist's own sources are what its tests import (through its link), not the venv's."""
    here = imported_from(python_in(venv), "asks.widgets", unpacked)
    assert here == unpacked / "asks" / "widgets" / "__init__.py", here
    done = run(
        python_in(venv), "-m", "pytest", "-q", "-p", "no:cacheprovider", *SDIST_TESTS, cwd=unpacked
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout, done.stdout[-2000:]


# ---------------------------------------------------------------------------- wrong trees
def test_a_clone_without_symlinks_gets_a_10_byte_file(tmp_path: Path) -> None:
    """What :func:`break_the_link` makes is what git makes (a real clone, only that path)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (e.g. an unpacked sdist): nothing to clone")
    clone = tmp_path / "clone"
    done = run("git", "clone", "-q", "--no-checkout", "-c", "core.symlinks=false", ROOT, clone)
    assert done.returncode == 0, done.stderr
    done = run("git", "-C", clone, "checkout", "-q", "HEAD", "--", "asks/widgets")
    assert done.returncode == 0, done.stderr
    link = clone / "asks" / "widgets"
    assert not link.is_symlink() and link.read_bytes() == BROKEN_LINK


def test_a_clone_without_symlinks_builds_the_whole_wheel(tree: Path, wheel: Path) -> None:
    broken = copy_tree(tree.parent / "broken-for-wheel")
    break_the_link(broken)
    out = tree.parent / "broken-wheel"
    done = build_wheel(broken, out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert set(zipfile.ZipFile(the_wheel(out)).namelist()) == set(zipfile.ZipFile(wheel).namelist())


def test_an_editable_install_without_the_link_stops_with_a_sentence(tree: Path) -> None:
    good = backend(tree, "build_editable", tree.parent / "editable")
    assert good.returncode == 0, good.stdout + good.stderr
    broken = copy_tree(tree.parent / "broken-for-editable")
    break_the_link(broken)
    done = backend(broken, "build_editable", tree.parent / "broken-editable")
    assert done.returncode != 0, done.stdout
    assert "asks/widgets is a 10-byte file, not the symlink to ../widgets" in done.stderr
    assert "git config core.symlinks true && git checkout -- asks/widgets" in done.stderr
    assert not list((tree.parent / "broken-editable").iterdir())


def test_a_tree_without_the_widgets_folder_stops_the_build(tree: Path) -> None:
    """Never a wheel without the widgets (e.g. a tree unpacked from an old sdist)."""
    partial = copy_tree(tree.parent / "no-widgets")
    shutil.rmtree(partial / "widgets")
    out = tree.parent / "no-widgets-wheel"
    done = build_wheel(partial, out)
    assert done.returncode != 0
    assert "widgets is missing or is not a package" in done.stdout + done.stderr
    assert not list(out.glob("*.whl"))
