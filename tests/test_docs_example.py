"""The README's embedding example runs as the README shows it.

The program is taken from the README at test time — the first ``python`` block of "Embedding
the panel in your own REPL", never a copy — written to a scratch folder outside the tree and
run under a real pty, as a person runs it: an async question answered later (its answer
arrives as feedback), a blocking one answered in the panel (its tool result arrives), Ctrl+C
as a key, SIGTERM from outside. The session is the embedder's own (its folder, mode
``embedded``) and the terminal is left as it was found.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.embedder_mypy import embedder_mypy
from support.pty_harness import ROOT, PtyApp

from asks.core.model import Outcome
from asks.store.entries import SessionMode, SessionStarted, ToolResult
from asks.store.journal import read_records

SECTION = "## Embedding the panel in your own REPL"


def readme_example() -> str:
    """The first python code block of the README's embedding section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    found = re.search(r"^```python\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert found is not None, "the embedding section has no python block"
    return found.group(1)


@pytest.fixture
def example(tmp_path: Path) -> Iterator[tuple[PtyApp, Path]]:
    """The README's program running under a pty; yields it and its sessions folder."""
    program = tmp_path / "myrepl.py"
    program.write_text(readme_example(), encoding="utf-8")
    home = tmp_path / "data"
    app = PtyApp([], program=(str(program),), cwd=tmp_path, env={"XDG_DATA_HOME": str(home)})
    try:
        yield app, home / "myrepl" / "sessions"
    finally:
        app.close()


def the_session(folder: Path) -> list[object]:
    [journal] = folder.glob("*.jsonl")
    return [r.entry for r in read_records(journal.stem, data_dir=folder)]


def test_the_readme_example_answers_an_async_and_a_blocking_question(
    example: tuple[PtyApp, Path],
) -> None:
    app, folder = example
    app.wait_for("Asks: none pending")
    app.type("db")
    app.press("enter")
    app.wait_for(r"tool result: Questions sent to the user without blocking")
    app.wait_for(r"Which database\?")  # pending in the panel; the keys stay in the chat
    app.type("ship")
    app.press("enter")
    app.wait_for(r"Ship it\?")
    app.wait_for(r"keys: question “Ship”")  # after the typing guard's pause
    app.press("down")
    app.wait_for(r"│ › 2\. Not yet")
    app.press("enter")
    app.wait_for(r'tool result: User has answered your questions: "Ship it\?"="Not yet"')
    app.wait_for(r"program: not shipping: you answered 'Not yet'")  # from the typed result
    app.wait_for(r"keys: chat")
    app.press("shift tab")
    app.wait_for(r"keys: question “DB”")
    app.press("enter")  # Postgres
    app.wait_for(r"feedback: \[asks feedback\]")
    app.wait_for(r'"Which database\?": answer "Postgres"')
    app.wait_for(r"program: q-\w+ answered: 'Postgres'")  # typed, from results_of
    app.wait_for("Asks: none pending")
    app.press("ctrl c")  # a key under AsksScreen(signal_keys=False): the program quits
    assert app.wait_exit() == 0
    assert app.termios_now() == app.termios_at_start
    entries = the_session(folder)
    first = entries[0]
    assert isinstance(first, SessionStarted)
    assert first.mode is SessionMode.EMBEDDED
    outcomes = [e.outcome for e in entries if isinstance(e, ToolResult)]
    assert Outcome.ANSWERED in outcomes


def test_the_readme_example_does_not_ship_when_the_person_answers_later(
    example: tuple[PtyApp, Path],
) -> None:
    """Alt+L ("later") on the blocking question: the program reads ``deferred`` and does not
    ship (it used to deploy "to nowhere")."""
    app, _ = example
    app.wait_for("Asks: none pending")
    app.type("ship")
    app.press("enter")
    app.wait_for(r"keys: question “Ship”")
    app.press("meta l")
    app.wait_for(r"tool result: The user chose to answer later")
    app.wait_for(r"program: not shipping yet: q-\w+ stays pending")
    app.press("ctrl c")
    assert app.wait_exit() == 0


def test_sigterm_ends_the_readme_example_with_its_wait_interrupted(
    example: tuple[PtyApp, Path],
) -> None:
    app, folder = example
    app.wait_for("Asks: none pending")
    app.type("ship")
    app.press("enter")
    app.wait_for(r"keys: question “Ship”")
    app.kill(signal.SIGTERM)
    assert app.wait_exit() == 0
    assert app.termios_now() == app.termios_at_start
    results = [e for e in the_session(folder) if isinstance(e, ToolResult)]
    assert [r.outcome for r in results] == [Outcome.INTERRUPTED]


def test_the_readme_example_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    """The example as printed passes ``mypy --strict`` (what an embedder's CI runs), with
    asks' own types (the tree under test, ``MYPYPATH``): a wrong annotation fails here."""
    done = embedder_mypy(tmp_path, "myrepl.py", readme_example())
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_example_runs_the_layers_asks_command(example: tuple[PtyApp, Path]) -> None:
    """``/asks`` (what the status line advertises) is the layer's: it opens the panel and is
    never sent to the agent; ``/asks ID`` for no such question says so in the status line."""
    app, _ = example
    app.wait_for("Asks: none pending")
    app.type("db")
    app.press("enter")
    app.wait_for(r"Which database\?")
    app.type("/asks q-0000000000")
    app.press("enter")
    app.wait_for(r"No pending question with id q-0000000000\.")
    app.type("/asks")
    app.press("enter")
    app.wait_for(r"keys: question “DB”")
    assert "you: /asks" not in app.text()
    app.press("ctrl c")
    assert app.wait_exit() == 0
