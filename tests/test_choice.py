"""Which model a run talks to (asks/agent/choice.py): flags, then the session's record, then
the config file — pure, on real script files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from asks.agent.choice import (
    ASKS_MAIN,
    ChoiceError,
    Configured,
    Wanted,
    choose,
    last_choice,
    program_words,
    record_of,
    resume_command,
)
from asks.agent.provider import Provider, Settings, SettingsError
from asks.agent.scripted import Script
from asks.store.entries import ChatMessage, ModelChosen, Record

SCRIPT = '[[step]]\non = "message"\n[[step.reply]]\nsay = "hi"\n'
LOCAL = "http://127.0.0.1:8080/v1"


def settings(choice: object) -> Settings:
    assert isinstance(choice, Settings), choice
    return choice


def test_the_tour_when_nothing_is_said() -> None:
    choice = choose(Wanted(), Configured(), None, {})
    assert isinstance(choice, Script) and choice.path == ""
    assert record_of(choice) == ModelChosen("scripted", choice.name)


def test_a_script_file_is_recorded_with_its_path_and_comes_back(tmp_path: Path) -> None:
    path = tmp_path / "demo.toml"
    path.write_text(SCRIPT)
    choice = choose(Wanted(script=path), Configured(name="ignored"), None, {})
    assert isinstance(choice, Script)
    recorded = record_of(choice)
    assert recorded == ModelChosen("scripted", "demo", script=str(path.resolve()))
    again = choose(Wanted(), Configured(name="gpt"), recorded, {})  # resume: the same script
    assert isinstance(again, Script) and again.path == str(path.resolve())
    with pytest.raises(ChoiceError, match="--script and --provider cannot be combined"):
        choose(Wanted(script=path, provider="openai"), Configured(), None, {})


def test_the_config_applies_only_to_its_own_provider() -> None:
    configured = Configured(
        name="gpt-x",
        base_url=LOCAL,
        api_key_env="MY_KEY",
        timeout=5,
        provider="openai",
        temperature=0.0,
    )
    openai = settings(choose(Wanted(), configured, None, {"MY_KEY": "k"}))
    assert (openai.provider, openai.model, openai.base_url, openai.api_key_env) == (
        Provider.OPENAI,
        "gpt-x",
        LOCAL,
        "MY_KEY",
    )
    assert (openai.timeout, openai.temperature, openai.api_key) == (5, 0.0, "k")
    claude = settings(
        choose(
            Wanted(provider="anthropic", model="claude-x"),
            configured,
            None,
            {"ANTHROPIC_API_KEY": "a"},
        )
    )
    assert (claude.base_url, claude.api_key_env, claude.api_key) == (
        "https://api.anthropic.com",
        "ANTHROPIC_API_KEY",
        "a",
    )
    with pytest.raises(ChoiceError, match="--provider needs a model name"):
        choose(Wanted(provider="anthropic"), configured, None, {})


def test_a_resumed_session_keeps_its_model_and_flags_override_parts() -> None:
    recorded = ModelChosen("anthropic", "claude-a", "http://127.0.0.1:9/")
    same = settings(choose(Wanted(), Configured(name="gpt-x"), recorded, {}))
    assert (same.provider, same.model, same.base_url) == (
        Provider.ANTHROPIC,
        "claude-a",
        "http://127.0.0.1:9",
    )
    renamed = settings(choose(Wanted(model="claude-b"), Configured(), recorded, {}))
    assert (renamed.model, renamed.base_url) == ("claude-b", "http://127.0.0.1:9")
    moved = settings(
        choose(Wanted(provider="openai", model="m", base_url=LOCAL), Configured(), recorded, {})
    )
    assert (moved.provider, moved.base_url) == (Provider.OPENAI, LOCAL)  # nothing carried over
    with pytest.raises(SettingsError, match="ANTHROPIC_API_KEY"):  # a remote URL needs a key
        choose(Wanted(base_url="https://example.invalid"), Configured(), recorded, {})


def test_unknown_providers_name_the_choices() -> None:
    with pytest.raises(
        ChoiceError,
        match=r"unknown provider 'nope' \(\[model\] provider\); "
        "choose one of: openai, anthropic",
    ):
        choose(Wanted(model="m"), Configured(provider="nope"), None, {})
    with pytest.raises(ChoiceError, match="the session's record"):
        choose(Wanted(), Configured(), ModelChosen("gemini", "g"), {})


def test_the_last_record_wins_and_old_journals_have_none() -> None:
    first, second = ModelChosen("openai", "a"), ModelChosen("anthropic", "b")
    records = [
        Record(0, 0.0, first),
        Record(1, 0.0, ChatMessage("user", "hi")),
        Record(2, 0.0, second),
    ]
    assert last_choice(records) == second
    assert last_choice(records[1:2]) is None


# ---------------------------------------------------------------------------- the resume hint
def on_path(found: dict[str, str]) -> Callable[[str], str | None]:
    return found.get


@pytest.mark.parametrize(
    ("argv0", "executable", "path", "words"),
    [
        # the README's set-up: .venv/bin/asks, not on PATH
        (".venv/bin/asks", "/x/.venv/bin/python", {}, [".venv/bin/asks"]),
        # an activated venv (or pipx): PATH finds the very same file
        ("/x/.venv/bin/asks", "/x/.venv/bin/python", {"asks": "/x/.venv/bin/asks"}, ["asks"]),
        # a different asks comes first on PATH: the path, as invoked
        (
            "/opt/asks/bin/asks",
            "/opt/asks/bin/python",
            {"asks": "/usr/bin/asks"},
            ["/opt/asks/bin/asks"],
        ),
        ("asks", "/usr/bin/python3", {"asks": "/usr/bin/asks"}, ["asks"]),
        # python -m asks: the interpreter by name only if PATH finds that same path
        (
            ASKS_MAIN,
            "/x/.venv/bin/python",
            {"python": "/x/.venv/bin/python"},
            ["python", "-m", "asks"],
        ),
        (
            ASKS_MAIN,
            "/x/.venv/bin/python",
            {"python": "/usr/bin/python"},
            ["/x/.venv/bin/python", "-m", "asks"],
        ),
    ],
)
def test_the_program_is_named_as_it_can_be_typed(
    argv0: str, executable: str, path: dict[str, str], words: list[str]
) -> None:
    assert program_words(argv0, executable, on_path(path)) == words


def test_a_relative_program_matches_what_path_finds_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    found = {"asks": str(tmp_path / ".venv" / "bin" / "asks")}
    assert program_words(".venv/bin/asks", "/usr/bin/python3", on_path(found)) == ["asks"]


def test_the_resume_command_starts_with_the_program() -> None:
    command = resume_command("s1", Path("d"), None, [".venv/bin/asks"])
    assert command.startswith(".venv/bin/asks --resume s1 --data-dir /")
    assert resume_command("s1", None, None) == "asks --resume s1"
