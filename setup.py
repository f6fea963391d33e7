"""The build's computed part: the repo's top-level ``widgets/`` folder installs as ``asks.widgets``.

The user's layout keeps the urwid layer in ``widgets/`` beside ``asks/``, and the distribution
claims no top-level import name but ``asks`` (DESIGN §2). So the build maps the folder onto the
package with setuptools' ``package_dir`` and lists its packages from ``widgets/`` itself: a wheel
never depends on the ``asks/widgets -> ../widgets`` symlink, which is there for the *source
tree* only (mypy, editors and ``python -m asks`` read the widgets through it; an editable
install's import hook is invisible to them — NOTES, Packaging).

A build that would be wrong stops with a sentence instead of shipping half a package:

* ``widgets/`` is missing or is not a package (e.g. a tree unpacked from an old sdist);
* an editable install in a tree whose link is a plain 10-byte file: a clone made with
  ``core.symlinks=false`` (Windows' default), where mypy and the tests would not see the
  widgets. A plain wheel build from such a clone is correct and goes on.

The sdist is the source tree: every tracked file (``MANIFEST.in``) and the link, made anew in
the sdist's tree whatever the clone has, so its tests run from the unpacked sdist as they do in
a clone. Building a wheel from the sdist needs no link either (pip on a system without symlinks
skips it with a warning).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.editable_wheel import editable_wheel
from setuptools.command.sdist import sdist

WIDGETS = "widgets"  # the folder, relative to the project (setuptools wants relative paths)
LINK = Path("asks", "widgets")  # the source tree's link to it
LINK_TARGET = Path("..", WIDGETS)


class LayoutError(SystemExit):
    """The tree cannot make a whole ``asks``: the message says what is wrong and the fix."""


def packages() -> list[str]:
    """``asks`` and its sub-packages, with ``widgets/`` and its sub-packages as ``asks.widgets``."""
    if not Path(WIDGETS, "__init__.py").is_file():
        raise LayoutError(
            f"{Path(WIDGETS).resolve()} is missing or is not a package (no __init__.py): the "
            "widgets cannot be built into asks.widgets. Build from a clone of the repository "
            "or from its sdist, which carry the widgets/ folder."
        )
    own = find_packages("asks", exclude=["widgets", "widgets.*"])
    inner = find_packages(WIDGETS)
    return [
        "asks",
        *(f"asks.{name}" for name in own),
        "asks.widgets",
        *(f"asks.widgets.{name}" for name in inner),
    ]


def link_problem() -> str | None:
    """What is wrong with the source tree's ``asks/widgets`` link (``None``: nothing)."""
    if LINK.is_symlink() or not LINK.exists():
        return None  # the link, or no link (a tree where symlinks could not be made)
    if LINK.is_file():
        return (
            f"{LINK.resolve()} is a {LINK.stat().st_size}-byte file, not the symlink to "
            f"{LINK_TARGET}: this clone was made with core.symlinks=false (Windows' default). "
            "mypy, editors and the tests see the widgets only through the link. Fix: "
            f"git config core.symlinks true && git checkout -- {LINK.as_posix()} "
            "(on Windows, with Developer Mode on), then install again. "
            "A plain `pip install .` needs no link."
        )
    return None  # a real directory (e.g. the link's target copied): the tree sees the widgets


class EditableWithLink(editable_wheel):
    """An editable install, refused in a tree whose link is a plain file (see the module)."""

    def run(self) -> None:
        problem = link_problem()
        if problem is not None:
            raise LayoutError(problem)
        super().run()


class SdistWithLink(sdist):
    """The sdist, with the ``asks/widgets`` link made in its tree (see the module)."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        link = Path(base_dir, LINK)
        try:
            link.symlink_to(LINK_TARGET, target_is_directory=True)
        except OSError as error:
            raise LayoutError(
                f"cannot make the link {LINK.as_posix()} -> {LINK_TARGET.as_posix()} in the "
                f"sdist's tree ({error}): build the sdist where symlinks can be made, or its "
                "tests cannot run from it."
            ) from error


setup(
    packages=packages(),
    package_dir={"asks.widgets": WIDGETS},
    cmdclass={"editable_wheel": EditableWithLink, "sdist": SdistWithLink},
)
