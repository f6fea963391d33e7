"""The config file: where it is, what it may hold, one warning per problem, never a crash."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from asks import config as config_file
from asks.config import (
    Config,
    KeysConfig,
    ModelConfig,
    ToolsConfig,
    default_config_path,
    load_config,
    with_key_fallbacks,
)
from asks.contract import DEFAULT_GUIDANCE, Guidance
from asks.core.keydefaults import DEFAULT_COLLAPSE_KEY, DEFAULT_FOCUS_TOGGLE_KEY


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment whose home is a temporary directory (never the real one)."""
    home = tmp_path / "home"
    home.mkdir()
    return {"HOME": str(home)}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load_text(tmp_path: Path, text: str) -> tuple[Config, list[str], Path]:
    path = write(tmp_path / "config.toml", text)
    config, warnings = load_config(path, env={})
    return config, warnings, path


# -- where the file is -----------------------------------------------------------------------


def test_default_path_is_under_home_dot_config(env: dict[str, str]) -> None:
    assert default_config_path(env) == Path(env["HOME"]) / ".config" / "asks" / "config.toml"


def test_xdg_config_home_is_honoured(tmp_path: Path, env: dict[str, str]) -> None:
    xdg = tmp_path / "xdg"
    write(xdg / "asks" / "config.toml", '[keys]\ncollapse_key = "ctrl x"\n')
    config, warnings = load_config(env={**env, "XDG_CONFIG_HOME": str(xdg)})
    assert warnings == []
    assert config.path == xdg / "asks" / "config.toml"
    assert config.keys.collapse_key == "ctrl x"


def test_relative_xdg_config_home_is_ignored(env: dict[str, str]) -> None:
    path = default_config_path({**env, "XDG_CONFIG_HOME": "relative/dir"})
    assert path == Path(env["HOME"]) / ".config" / "asks" / "config.toml"


def test_missing_default_file_is_silent(env: dict[str, str]) -> None:
    config, warnings = load_config(env=env)
    assert warnings == []
    assert config == Config(path=default_config_path(env))
    assert config.keys == KeysConfig(DEFAULT_FOCUS_TOGGLE_KEY, DEFAULT_COLLAPSE_KEY)
    assert config.guidance == DEFAULT_GUIDANCE
    assert config.model == ModelConfig(None, None, None, 60.0)  # the provider's key variable


def test_missing_explicit_file_warns(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "nope.toml"
    config, warnings = load_config(path, env=env)
    assert warnings == [f"asks: {path}: no such file; using the defaults"]
    assert config == Config(path=path)


def test_explicit_file_wins_over_xdg(tmp_path: Path) -> None:
    write(tmp_path / "xdg" / "asks" / "config.toml", '[keys]\ncollapse_key = "ctrl a"\n')
    explicit = write(tmp_path / "mine.toml", '[keys]\ncollapse_key = "ctrl b"\n')
    config, _ = load_config(explicit, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert config.keys.collapse_key == "ctrl b"


# -- whole-file failures ---------------------------------------------------------------------


def test_malformed_toml_gives_one_warning_and_all_defaults(tmp_path: Path) -> None:
    config, warnings, path = load_text(tmp_path, '[keys]\ncollapse_key = "ctrl x"\n[model\n')
    assert len(warnings) == 1
    assert warnings[0].startswith(f"asks: {path}: is not valid TOML (")
    assert warnings[0].endswith("; using the defaults")
    assert config == Config(path=path)


def test_invalid_utf8_gives_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'[keys]\ncollapse_key = "\xff"\n')
    config, warnings = load_config(path, env={})
    assert warnings == [f"asks: {path}: is not valid UTF-8; using the defaults"]
    assert config == Config(path=path)


def test_unreadable_file_gives_one_warning(tmp_path: Path) -> None:
    directory = tmp_path / "config.toml"
    directory.mkdir()  # reading a directory fails like an unreadable file
    config, warnings = load_config(directory, env={})
    assert len(warnings) == 1
    assert warnings[0].startswith(f"asks: {directory}: cannot be read (")
    assert config == Config(path=directory)


def test_unreadable_default_file_warns_too(env: dict[str, str]) -> None:
    default_config_path(env).mkdir(parents=True)
    _, warnings = load_config(env=env)
    assert len(warnings) == 1
    assert "cannot be read" in warnings[0]


# -- a valid file ----------------------------------------------------------------------------

FULL = """\
[keys]
focus_toggle_key = "meta a"
collapse_key = "off"

[guidance]
description = "Ask things."
prompt_snippet = "snippet"
prompt_guidelines = "be brief"

[model]
name = "llama3"
base_url = "http://127.0.0.1:11434/v1"
api_key_env = "MY_KEY"
timeout = 12.5
stream = false
provider = "anthropic"
temperature = 0

[tools]
command_timeout = 30
"""


def test_valid_full_file(tmp_path: Path) -> None:
    config, warnings, path = load_text(tmp_path, FULL)
    assert warnings == []
    assert config == Config(
        path=path,
        keys=KeysConfig("meta a", "off"),
        guidance=Guidance("Ask things.", "snippet", "be brief"),
        model=ModelConfig(
            "llama3",
            "http://127.0.0.1:11434/v1",
            "MY_KEY",
            12.5,
            stream=False,
            provider="anthropic",
            temperature=0.0,
        ),
        tools=ToolsConfig(30.0),
    )


VALID = {  # a value of each kind, as TOML, that no key has as its default
    config_file.STRING: '"x"',
    config_file.NAME: '"n"',
    config_file.POSITIVE: "7",
    config_file.TEMPERATURE: "0.5",
    config_file.PORT: "1234",
    config_file.LOCALE: '"de"',
    config_file.SHARE: "0.25",
    config_file.GUARD: "2.5",
    config_file.ARGV: '["true"]',
}


def test_every_key_of_the_classes_is_read_from_the_file(tmp_path: Path) -> None:
    """The schema is the attrs classes: every key of every table (derived from them) is read
    into its attribute, converted (an integer timeout is a float)."""
    defaults = Config()
    lines = []
    for table, rules in config_file._TABLES.items():
        lines.append(f"[{table}]")
        for key, rule in rules.items():
            default = getattr(getattr(defaults, table), rule.attribute)
            value = ("false" if default else "true") if rule.kind is config_file.BOOL else None
            lines.append(f"{key} = {value or VALID[rule.kind]}")
    loaded, warnings, _ = load_text(tmp_path, "\n".join(lines) + "\n")
    assert warnings == []
    fields = [(f.name, f) for f in attrs.fields(Config) if attrs.has(type(f.default))]
    assert {name for name, _ in fields} == set(config_file._TABLES) >= {"guidance", "hooks", "mcp"}
    for name, table in fields:
        for field in attrs.fields(type(table.default)):
            got = getattr(getattr(loaded, name), field.name)
            assert got != getattr(table.default, field.name), (name, field.name)
    assert loaded.guidance.guidelines == "x" and loaded.tools.command_timeout == 7.0
    assert isinstance(loaded.tools.command_timeout, float) and loaded.hooks.delivered == ("true",)
    assert loaded.ui.panel_share == 0.25


def test_a_panel_share_outside_0_to_1_is_warned_about_and_the_default_kept(
    tmp_path: Path,
) -> None:
    for bad in ("0", "1.5", "-0.5", '"half"', "true"):
        loaded, warnings, _ = load_text(tmp_path, f"[ui]\npanel_share = {bad}\n")
        assert loaded.ui.panel_share == 0.5, bad
        assert len(warnings) == 1 and "a number above 0 and at most 1" in warnings[0], warnings
    loaded, warnings, _ = load_text(tmp_path, "[ui]\npanel_share = 1\n")
    assert (loaded.ui.panel_share, warnings) == (1.0, [])


def test_a_typing_guard_outside_its_range_is_warned_about_and_the_default_kept(
    tmp_path: Path,
) -> None:
    for bad in ("0.1", "6", "0", '"slow"', "true"):
        loaded, warnings, _ = load_text(tmp_path, f"[ui]\ntyping_guard = {bad}\n")
        assert loaded.ui.typing_guard == 0.6, bad
        assert len(warnings) == 1 and "a number of seconds from 0.3 to 5" in warnings[0]
    loaded, warnings, _ = load_text(tmp_path, "[ui]\ntyping_guard = 5\n")
    assert (loaded.ui.typing_guard, warnings) == (5.0, [])


def test_a_key_declared_without_its_kind_is_refused() -> None:
    @attrs.frozen
    class Bare:
        size: int = 1

    @attrs.frozen
    class Holder:
        bare: Bare = Bare()

    with pytest.raises(TypeError, match=r"\[bare\] size: declare it with setting"):
        config_file._rules(attrs.fields(Holder).bare)


def test_partial_guidance_keeps_other_defaults(tmp_path: Path) -> None:
    config, warnings, _ = load_text(tmp_path, '[guidance]\nprompt_snippet = "short"\n')
    assert warnings == []
    assert config.guidance == Guidance(
        DEFAULT_GUIDANCE.description, "short", DEFAULT_GUIDANCE.guidelines
    )


def test_integer_timeout_becomes_float(tmp_path: Path) -> None:
    config, warnings, _ = load_text(tmp_path, "[model]\ntimeout = 5\n")
    assert warnings == []
    assert config.model.timeout == 5.0
    assert isinstance(config.model.timeout, float)


def test_empty_file_is_all_defaults(tmp_path: Path) -> None:
    config, warnings, path = load_text(tmp_path, "")
    assert (config, warnings) == (Config(path=path), [])


# -- one warning per bad key -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "key", "value", "expected", "default"),
    [
        ("keys", "focus_toggle_key", "1", "a string", '"shift tab"'),
        ("keys", "collapse_key", "true", "a string", '"ctrl ]"'),
        ("keys", "collapse_key", '["ctrl", "]"]', "a string", '"ctrl ]"'),
        ("guidance", "description", "3", "a string", "text"),
        ("guidance", "prompt_snippet", "{a = 1}", "a string", "text"),
        ("guidance", "prompt_guidelines", "false", "a string", "text"),
        ("model", "name", "7", "a non-empty string", "(not set)"),
        ("model", "name", '"  "', "a non-empty string", "(not set)"),
        ("model", "base_url", "[]", "a non-empty string", "(not set)"),
        ("model", "api_key_env", '""', "a non-empty string", "(not set)"),
        ("model", "provider", '""', "a non-empty string", "(not set)"),
        ("model", "temperature", "-1", "a number >= 0", "(not set)"),
        ("model", "temperature", "nan", "a number >= 0", "(not set)"),
        ("tools", "command_timeout", "0", "a positive number", "120"),
        ("model", "timeout", '"60"', "a positive number", "60"),
        ("model", "timeout", "0", "a positive number", "60"),
        ("model", "timeout", "-3", "a positive number", "60"),
        ("model", "timeout", "inf", "a positive number", "60"),
        ("model", "timeout", "nan", "a positive number", "60"),
        ("model", "timeout", "true", "a positive number", "60"),
        ("model", "stream", '"no"', "true or false", "true"),
        ("model", "stream", "0", "true or false", "true"),
    ],
)
def test_wrong_value_warns_and_keeps_default(  # noqa: PLR0917
    tmp_path: Path, table: str, key: str, value: str, expected: str, default: str
) -> None:
    config, warnings, path = load_text(tmp_path, f"[{table}]\n{key} = {value}\n")
    assert warnings == [
        f"asks: {path}: [{table}] {key} must be {expected}; using the default {default}"
    ]
    assert config == Config(path=path)


def test_the_example_warning_from_the_spec(tmp_path: Path) -> None:
    _, warnings, path = load_text(tmp_path, "[keys]\ncollapse_key = 29\n")
    assert warnings == [
        f'asks: {path}: [keys] collapse_key must be a string; using the default "ctrl ]"'
    ]


def test_bad_key_does_not_spoil_its_neighbours(tmp_path: Path) -> None:
    text = '[model]\nname = "m"\ntimeout = -1\napi_key_env = "K"\n'
    config, warnings, _ = load_text(tmp_path, text)
    assert len(warnings) == 1
    assert config.model == ModelConfig("m", None, "K", 60.0)


def test_unknown_table_warns(tmp_path: Path) -> None:
    config, warnings, path = load_text(
        tmp_path, '[colours]\nfg = "red"\n[keys]\ncollapse_key = "f2"\n'
    )
    assert warnings == [f"asks: {path}: unknown table [colours]; ignored"]
    assert config.keys.collapse_key == "f2"


def test_unknown_top_level_key_warns(tmp_path: Path) -> None:
    _, warnings, path = load_text(tmp_path, "collapse_key = 'f2'\n")
    assert warnings == [f"asks: {path}: unknown key collapse_key; ignored"]


def test_unknown_key_in_known_table_warns(tmp_path: Path) -> None:
    config, warnings, path = load_text(tmp_path, '[model]\nnmae = "x"\nname = "y"\n')
    assert warnings == [f"asks: {path}: unknown key [model] nmae; ignored"]
    assert config.model.name == "y"


def test_known_table_that_is_not_a_table_warns(tmp_path: Path) -> None:
    config, warnings, path = load_text(tmp_path, 'keys = "ctrl x"\n')
    assert warnings == [f"asks: {path}: [keys] must be a table; using its defaults"]
    assert config == Config(path=path)


def test_every_problem_gets_its_own_warning(tmp_path: Path) -> None:
    text = "a = 1\n[b]\n[keys]\ncollapse_key = 1\nzzz = 2\n[model]\ntimeout = 0\n"
    _, warnings, _ = load_text(tmp_path, text)
    assert len(warnings) == 5


def test_key_names_in_warnings_are_sanitised(tmp_path: Path) -> None:
    _, warnings, _ = load_text(tmp_path, '[keys]\n"evil\\u001b[2Jkey" = 1\n')
    assert len(warnings) == 1
    assert "\x1b" not in warnings[0]
    assert "evil" in warnings[0]


# -- key validation fallbacks ----------------------------------------------------------------


def strict_parser(spec: str) -> str:
    """A stand-in for asks.widgets.keymap.parse_key_spec: accepts a few keys, normalises case."""
    normal = spec.lower()
    if normal not in {"shift tab", "ctrl ]", "meta a", "f2"}:
        raise ValueError(f"unknown key {spec!r}")
    return normal


def test_valid_keys_pass_and_are_normalised(tmp_path: Path) -> None:
    config, _, _ = load_text(tmp_path, '[keys]\nfocus_toggle_key = "Meta A"\ncollapse_key = "F2"\n')
    checked, warnings = with_key_fallbacks(config, strict_parser)
    assert warnings == []
    assert checked.keys == KeysConfig("meta a", "f2")


def test_invalid_keys_fall_back_with_one_warning_each(tmp_path: Path) -> None:
    text = '[keys]\nfocus_toggle_key = "hyper q"\ncollapse_key = "ctrl ]]"\n'
    config, _, path = load_text(tmp_path, text)
    checked, warnings = with_key_fallbacks(config, strict_parser)
    assert checked.keys == KeysConfig(DEFAULT_FOCUS_TOGGLE_KEY, DEFAULT_COLLAPSE_KEY)
    assert warnings == [
        f'asks: {path}: [keys] focus_toggle_key "hyper q" is not a valid key '
        "(unknown key 'hyper q'); using the default \"shift tab\"",
        f'asks: {path}: [keys] collapse_key "ctrl ]]" is not a valid key '
        "(unknown key 'ctrl ]]'); using the default \"ctrl ]\"",
    ]


def test_collapse_off_is_not_validated(tmp_path: Path) -> None:
    config, _, _ = load_text(tmp_path, '[keys]\ncollapse_key = "off"\n')
    checked, warnings = with_key_fallbacks(config, strict_parser)
    assert warnings == []
    assert checked.keys.collapse_key == "off"


def test_defaults_pass_the_validator(env: dict[str, str]) -> None:
    config, _ = load_config(env=env)
    checked, warnings = with_key_fallbacks(config, strict_parser)
    assert (checked, warnings) == (config, [])


def test_key_fallbacks_keep_everything_else(tmp_path: Path) -> None:
    config, _, _ = load_text(tmp_path, FULL.replace('"meta a"', '"nonsense"'))
    checked, warnings = with_key_fallbacks(config, strict_parser)
    assert len(warnings) == 1
    assert checked.model == config.model
    assert checked.guidance == config.guidance
    assert checked.path == config.path
