"""What the command line tells the person, run as the real command: ``asks hub --help`` is the
hub's own help, the command a refused ``--resume`` suggests works as typed, and language codes
are shown one way (``pt-BR``) and taken both ways."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from asks.cli.args import build_parser, parse_args

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
[[step]]
on = "message"
[[step.reply]]
say = "You said: {user}"
delay = 0
"""


class Typed:
    """The installed ``bin/asks`` typed from the venv's folder with ``asks`` not on PATH (as
    the README's ``.venv/bin/asks``), in a data dir whose name needs quoting."""

    def __init__(self, tmp: Path) -> None:
        console = Path(sys.executable).with_name("asks")  # installed by `pip install -e .`
        assert console.is_file(), "the test needs the asks console script next to python"
        self.where = console.parent.parent
        self.data_dir = tmp / "data dir"
        self.script = tmp / "script.toml"
        self.script.write_text(SCRIPT)
        (tmp / "config").mkdir()
        self.env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        self.env.update(XDG_CONFIG_HOME=str(tmp / "config"), PATH=os.defpath)

    def run(self, argv: list[str]) -> subprocess.CompletedProcess[str]:
        """``argv`` typed; stdin at its end (no terminal: line mode, which ends there)."""
        return subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.where,
            timeout=60,
            check=False,
        )

    def session_ids(self) -> list[str]:
        return sorted(p.stem for p in self.data_dir.glob("*.jsonl"))


@pytest.fixture
def typed(tmp_path: Path) -> Typed:
    return Typed(tmp_path)


def hint_of(refused: subprocess.CompletedProcess[str], session_id: str) -> list[str]:
    """The command a refused resume suggests, as the shell would split it."""
    assert refused.returncode == 2, refused.stderr
    said = f"asks: session {session_id} is "
    assert refused.stderr.startswith(said), refused.stderr
    return shlex.split(refused.stderr.split("resume it with ", 1)[1])


def test_a_hub_session_resumed_as_another_names_the_command_that_works(typed: Typed) -> None:
    """``asks --resume <hub id> --data-dir D --mcp-port 0`` said ``asks hub --resume ID``
    without ``--data-dir``: typed, that looked in the default data dir and failed."""
    first = typed.run(["bin/asks", "hub", "--data-dir", str(typed.data_dir), "--mcp-port", "0"])
    assert first.returncode == 0, first.stderr
    [session_id] = typed.session_ids()
    wrong = ["bin/asks", "--resume", session_id, "--data-dir", str(typed.data_dir)]
    hint = hint_of(typed.run([*wrong, "--mcp-port", "0"]), session_id)
    assert hint[:2] == ["bin/asks", "hub"], hint
    again = typed.run(hint)
    assert again.returncode == 0, again.stderr
    assert f"Session {session_id} saved." in again.stdout
    assert typed.session_ids() == [session_id]  # resumed, not a new one elsewhere


def test_a_session_resumed_as_a_hub_names_the_command_that_works(typed: Typed) -> None:
    first = typed.run(
        ["bin/asks", "--data-dir", str(typed.data_dir), "--script", str(typed.script), "-p", "one"]
    )
    assert first.returncode == 0, first.stderr
    [session_id] = typed.session_ids()
    wrong = ["bin/asks", "hub", "--mcp-port", "0", "--resume", session_id]
    hint = hint_of(typed.run([*wrong, "--data-dir", str(typed.data_dir)]), session_id)
    assert hint[:2] == ["bin/asks", "--resume"], hint
    again = typed.run([*hint, "-p", "two"])
    assert (again.returncode, again.stdout) == (0, "You said: two\n"), again.stderr
    assert typed.session_ids() == [session_id]


def help_of(*words: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "asks", *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "words", [["hub", "--help"], ["hub", "-h"], ["--data-dir", "d", "-h", "hub"]]
)
def test_asks_hub_help_is_the_hubs_own(words: list[str]) -> None:
    """It printed the general help (``--model``, ``-p``, ``--script``: flags the hub refuses)."""
    shown = help_of(*words)
    assert shown.startswith("usage: asks hub ")
    for flag in ("--mcp-port", "--mcp-host", "--resume", "--line", "--data-dir", "@name"):
        assert flag in shown
    for flag in ("--model", "--script", "--print", "--allow-commands", "{sessions,hub}"):
        assert flag not in shown


def test_asks_help_is_still_the_general_one() -> None:
    shown = help_of("--help")
    assert shown.startswith("usage: asks [")
    assert "--model" in shown
    assert "asks hub --help" in " ".join(shown.split())


def test_language_codes_are_shown_with_a_hyphen_and_taken_both_ways() -> None:
    """``--locale`` help said ``pt_BR`` where the README says ``pt-BR``."""
    shown = " ".join(build_parser().format_help().split())
    assert "pt-BR" in shown
    assert "pt_BR" not in shown
    assert parse_args(["--locale", "pt-BR"]).locale == "pt_BR"
    assert parse_args(["--locale", "pt_BR"]).locale == "pt_BR"


@pytest.mark.parametrize("words", [["sessions", "--help"], ["-h", "sessions"]])
def test_asks_sessions_help_is_its_own(words: list[str]) -> None:
    """It printed the general help, with every flag of the REPL beside ``rm ID`` and ``--prune``."""
    shown = help_of(*words)
    assert shown.startswith("usage: asks sessions ")
    for flag in ("--prune", "--force", "rm ID", "--data-dir"):
        assert flag in shown
    for flag in ("--model", "--mcp-port", "--resume", "{sessions,hub}"):
        assert flag not in shown


def test_the_general_help_keeps_the_sessions_flags_to_their_own() -> None:
    shown = " ".join(help_of("--help").split())
    assert "asks sessions --help" in shown
    for flag in ("--prune", "--force", "rm ID"):
        assert flag not in shown
