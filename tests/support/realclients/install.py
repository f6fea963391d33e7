"""Where ``.ci/realclients-setup`` put the real clients (keep the two in step).

The cache lives outside the repository: ``$ASKS_REALCLIENTS_DIR``, else
``${TMPDIR:-/tmp}/asks-peer-bench``. :func:`binaries` finds the installed programs or fails the
test with the command that installs them (never a skip: CI runs the installer first).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import attrs

CLAUDE_VERSION = "2.1.332"
CODEX_VERSION = "0.171.0"
SETUP = ".ci/realclients-setup"


@attrs.frozen
class Binaries:
    """The installed programs: Claude Code, Codex (and its npm package root), tmux."""

    claude: Path
    codex: Path
    codex_package: Path  # Codex reads it as CODEX_MANAGED_PACKAGE_ROOT
    tmux: Path


def cache_dir() -> Path:
    """The folder the installer fills."""
    named = os.environ.get("ASKS_REALCLIENTS_DIR")
    if named:
        return Path(named)
    return Path(os.environ.get("TMPDIR") or "/tmp") / "asks-peer-bench"


def binaries() -> Binaries:
    """The installed programs; an AssertionError naming the installer when one is missing."""
    root = cache_dir()
    codex_package = root / "codex/node_modules/@openai/codex"
    musl = "codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    found = Binaries(
        claude=root / "claude/node_modules/.bin/claude",
        codex=root / musl,
        codex_package=codex_package,
        tmux=Path(shutil.which("tmux") or "/usr/bin/tmux"),
    )
    missing = [
        str(path)
        for path in (found.claude, found.codex, found.tmux)
        if not os.access(path, os.X_OK)
    ]
    assert not missing, f"not installed: {', '.join(missing)}; run {SETUP}"
    return found
