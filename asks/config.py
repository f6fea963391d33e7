"""The config file: read-only, optional, and never fatal (DESIGN §8).

Where it is: ``--config FILE`` when given, else ``$XDG_CONFIG_HOME/asks/config.toml`` when
``XDG_CONFIG_HOME`` is set to an absolute path, else ``~/.config/asks/config.toml`` (``~`` is
``$HOME`` of the given environment). It is computed here rather than by platformdirs, which
reads the process environment and accepts a relative ``XDG_CONFIG_HOME``.

What it holds (TOML)::

    [keys]
    focus_toggle_key = "shift tab"    # enter the question panel from chat
    collapse_key = "ctrl ]"           # or "off"

    [guidance]                        # the text that teaches the model the tool
    description = "…"
    prompt_snippet = "…"
    prompt_guidelines = "…"

    [model]                           # a real model (flags override each key)
    provider = "openai"               # or "anthropic" (the Messages API); checked by cli
    name = "gpt-4o-mini"
    base_url = "http://127.0.0.1:11434/v1"
    api_key_env = "OPENAI_API_KEY"    # the *name* of the variable holding the key
                                      # (default per provider: OPENAI_/ANTHROPIC_API_KEY)
    timeout = 60                      # seconds, a positive number
    stream = true                     # false: one non-streamed reply per model call
    temperature = 0                   # optional, a number >= 0 (default: the server's)

    [ui]
    locale = "de"                     # the person's language (else LC_ALL/LC_MESSAGES/LANG)

    [tools]
    command_timeout = 120             # seconds before run_command's process group is killed

    [mcp]                             # the hub: asks' MCP server for Claude Code, Codex, …
    enabled = true                    # every session serves it (else: asks --mcp, asks hub)
    port = 8765                       # fixed, so a client's config keeps working
    host = "127.0.0.1"                # beyond loopback only on purpose (a warning says so)

    [hooks]                           # a command (argv list, no shell) per event name, run
    wait_opened = ["notify-send", "asks", "The agent is waiting for you"]  # with the event
    timeout = 10                      # as JSON on stdin (asks/surfaces/hooks.py); seconds
    # event names: question_asked wait_opened wait_ended answer_saved delivered withdrawn
    # storage_failed

Semantics of :func:`load_config`:

* A missing default file is the normal case: defaults, no warning. A missing ``--config`` file,
  an unreadable file or a malformed one gives one warning and all defaults.
* Every unknown table, unknown key, table that is not a table, and value of the wrong type gives
  one warning naming the file and the key; that key keeps its default, the rest is used.
* It never raises for bad config; warnings are returned for the caller to print.

Key specs are only type-checked here: :func:`with_key_fallbacks` runs the caller's key parser
(the widget layer owns key syntax), replacing each invalid spec by its default with one warning.
This module imports no urwid and no widgets.
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, TypeVar

import attrs

from asks.contract import DEFAULT_GUIDANCE, Guidance
from asks.core.events import EventKind
from asks.core.i18n import LANGUAGES, N_, _, normalize
from asks.core.keydefaults import DEFAULT_COLLAPSE_KEY, DEFAULT_FOCUS_TOGGLE_KEY, OFF
from asks.sanitize import sanitize_line

DEFAULT_TIMEOUT: Final = 60.0
DEFAULT_COMMAND_TIMEOUT: Final = 120.0
DEFAULT_HOOK_TIMEOUT: Final = 10.0
_SHORT_DEFAULT: Final = 40  # longer default values are not quoted in warnings

S = TypeVar("S")


@attrs.frozen
class KeysConfig:
    """Key specs as written (validated by :func:`with_key_fallbacks`)."""

    focus_toggle_key: str = DEFAULT_FOCUS_TOGGLE_KEY
    collapse_key: str = DEFAULT_COLLAPSE_KEY


@attrs.frozen
class ModelConfig:
    """A real model; ``None`` means "not configured" (flags may still set it; the provider's
    default is used for ``provider`` and ``api_key_env``)."""

    name: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    stream: bool = True
    provider: str | None = None
    temperature: float | None = None


@attrs.frozen
class UiConfig:
    """``[ui]``: the language of every person-facing string (``None``: from the environment;
    asks/core/i18n.py), a supported code such as ``de`` or ``pt-BR``."""

    locale: str | None = None


@attrs.frozen
class McpConfig:
    """``[mcp]``: the hub (asks' MCP server for outside agents): on for every session with
    ``enabled``, on ``host``:``port`` (loopback and a fixed port by default, so a client's
    config keeps working)."""

    enabled: bool = False
    port: int = 8765
    host: str = "127.0.0.1"


@attrs.frozen
class ToolsConfig:
    """The real tools' limits."""

    command_timeout: float = DEFAULT_COMMAND_TIMEOUT


Argv = tuple[str, ...]


@attrs.frozen
class HooksConfig:
    """``[hooks]``: a command per event name (an :class:`EventKind` value; ``None``: no hook),
    and the seconds each run may take."""

    question_asked: Argv | None = None
    wait_opened: Argv | None = None
    wait_ended: Argv | None = None
    answer_saved: Argv | None = None
    delivered: Argv | None = None
    withdrawn: Argv | None = None
    storage_failed: Argv | None = None
    timeout: float = DEFAULT_HOOK_TIMEOUT

    def commands(self) -> dict[EventKind, Argv]:
        """The configured hooks by event."""
        found = ((kind, getattr(self, kind.value)) for kind in EventKind)
        return {kind: argv for kind, argv in found if argv is not None}


@attrs.frozen
class Config:
    """The whole configuration. ``path`` is the file that was consulted (it may not exist)."""

    path: Path | None = None
    keys: KeysConfig = KeysConfig()
    guidance: Guidance = DEFAULT_GUIDANCE
    model: ModelConfig = ModelConfig()
    tools: ToolsConfig = ToolsConfig()
    hooks: HooksConfig = HooksConfig()
    ui: UiConfig = UiConfig()
    mcp: McpConfig = McpConfig()


# -- the schema, as data ---------------------------------------------------------------------


@attrs.frozen
class _Rule:
    """One TOML key: the attribute it sets, what a valid value is, and how to convert it."""

    attribute: str
    expected: str  # "a string", for the warning
    accepts: Callable[[object], bool]
    convert: Callable[[Any], object] = lambda value: value


def _is_string(value: object) -> bool:
    return isinstance(value, str)


def _is_name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_temperature(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value >= 0


def _is_argv(value: object) -> bool:
    """A command as an argv list: non-empty, strings only, a program name first."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, str) for v in value)
        and bool(value[0].strip())
        and not any("\x00" in v for v in value)
    )


def _is_positive_number(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value > 0


def _is_port(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 65535


def _is_locale(value: object) -> bool:
    return isinstance(value, str) and normalize(value) is not None


_STRING = N_("a string")  # the expected values, translated where a warning says them
_NAME = N_("a non-empty string")
_ARGV = N_('a command as a list of strings, e.g. ["notify-send", "asks"]')
_POSITIVE = N_("a positive number")

_TABLES: Final[Mapping[str, Mapping[str, _Rule]]] = MappingProxyType(
    {
        "keys": MappingProxyType(
            {
                "focus_toggle_key": _Rule("focus_toggle_key", _STRING, _is_string),
                "collapse_key": _Rule("collapse_key", _STRING, _is_string),
            }
        ),
        "guidance": MappingProxyType(
            {
                "description": _Rule("description", _STRING, _is_string),
                "prompt_snippet": _Rule("prompt_snippet", _STRING, _is_string),
                "prompt_guidelines": _Rule("guidelines", _STRING, _is_string),
            }
        ),
        "model": MappingProxyType(
            {
                "name": _Rule("name", _NAME, _is_name),
                "base_url": _Rule("base_url", _NAME, _is_name),
                "api_key_env": _Rule("api_key_env", _NAME, _is_name),
                "timeout": _Rule("timeout", _POSITIVE, _is_positive_number, float),
                "stream": _Rule("stream", N_("true or false"), _is_bool),
                "provider": _Rule("provider", _NAME, _is_name),
                "temperature": _Rule("temperature", N_("a number >= 0"), _is_temperature, float),
            }
        ),
        "tools": MappingProxyType(
            {
                "command_timeout": _Rule("command_timeout", _POSITIVE, _is_positive_number, float),
            }
        ),
        "ui": MappingProxyType({"locale": _Rule("locale", N_("one of {codes}"), _is_locale)}),
        "mcp": MappingProxyType(
            {
                "enabled": _Rule("enabled", N_("true or false"), _is_bool),
                "port": _Rule("port", N_("a port number (0-65535)"), _is_port),
                "host": _Rule("host", _NAME, _is_name),
            }
        ),
        "hooks": MappingProxyType(
            {
                **{kind.value: _Rule(kind.value, _ARGV, _is_argv, tuple) for kind in EventKind},
                "timeout": _Rule("timeout", _POSITIVE, _is_positive_number, float),
            }
        ),
    }
)


# -- where the file is -----------------------------------------------------------------------


def default_config_path(env: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME/asks/config.toml`` if that is absolute, else under ``~/.config``."""
    xdg = env.get("XDG_CONFIG_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "asks" / "config.toml"
    home = env.get("HOME", "")
    base = Path(home) if home else Path.home()
    return base / ".config" / "asks" / "config.toml"


# -- loading ---------------------------------------------------------------------------------


def load_config(
    path_override: Path | None = None, env: Mapping[str, str] = os.environ
) -> tuple[Config, list[str]]:
    """Read the config file; return the config and one warning per problem (see module doc)."""
    path = path_override if path_override is not None else default_config_path(env)
    defaults = Config(path=path)
    document, warning = _read(path, explicit=path_override is not None)
    if document is None:
        return defaults, [] if warning is None else [warning]
    return _build(path, document)


def _read(path: Path, *, explicit: bool) -> tuple[dict[str, Any] | None, str | None]:
    """The parsed document, or ``None`` with the warning to give (``None``: stay silent)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, _warn(path, _("no such file; using the defaults")) if explicit else None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return None, _warn(
            path, _("cannot be read ({reason}); using the defaults").format(reason=reason)
        )
    try:
        return tomllib.loads(data.decode("utf-8")), None
    except UnicodeDecodeError:
        return None, _warn(path, _("is not valid UTF-8; using the defaults"))
    except tomllib.TOMLDecodeError as exc:
        return None, _warn(
            path, _("is not valid TOML ({error}); using the defaults").format(error=exc)
        )


def _build(path: Path, document: Mapping[str, Any]) -> tuple[Config, list[str]]:
    warnings: list[str] = []
    for name in document:
        if name not in _TABLES:
            if isinstance(document[name], dict):
                unknown = _("unknown table {name}; ignored").format(name=_table_label(name))
            else:
                unknown = _("unknown key {name}; ignored").format(name=_key_label(name))
            warnings.append(_warn(path, unknown))
    defaults = Config(path=path)

    def section(table: str, default: S) -> S:
        if table not in document:
            return default
        return _section(path, table, document[table], default, warnings)

    config = Config(
        path=path,
        keys=section("keys", defaults.keys),
        guidance=section("guidance", defaults.guidance),
        model=section("model", defaults.model),
        tools=section("tools", defaults.tools),
        hooks=section("hooks", defaults.hooks),
        ui=section("ui", defaults.ui),
        mcp=section("mcp", defaults.mcp),
    )
    return config, warnings


def _section(path: Path, table: str, raw: object, default: S, warnings: list[str]) -> S:
    """The section of ``table`` from ``raw``, with defaults for every rejected key."""
    if not isinstance(raw, dict):
        message = _("[{table}] must be a table; using its defaults").format(table=table)
        warnings.append(_warn(path, message))
        return default
    rules = _TABLES[table]
    accepted: dict[str, object] = {}
    for key, value in raw.items():
        rule = rules.get(key)
        if rule is None:
            label = f"[{table}] {_key_label(key)}"
            warnings.append(_warn(path, _("unknown key {name}; ignored").format(name=label)))
        elif not rule.accepts(value):
            shown = _show_default(getattr(default, rule.attribute))
            expected = _(rule.expected).format(codes=", ".join(LANGUAGES))
            message = _("{key} must be {expected}; using the default {default}").format(
                key=f"[{table}] {key}", expected=expected, default=shown
            )
            warnings.append(_warn(path, message))
        else:
            accepted[rule.attribute] = rule.convert(value)
    return attrs.evolve(default, **accepted)  # type: ignore[misc]


# -- key fallbacks ---------------------------------------------------------------------------


def with_key_fallbacks(config: Config, validate: Callable[[str], str]) -> tuple[Config, list[str]]:
    """Run ``validate`` (a key-spec parser raising :class:`ValueError`) over the key settings.

    A valid spec is replaced by what ``validate`` returns (its normal form); an invalid one by
    its default, with one warning each. ``collapse_key = "off"`` is kept as is.
    """
    warnings: list[str] = []
    defaults = KeysConfig()
    checked: dict[str, str] = {}
    for name in ("focus_toggle_key", "collapse_key"):
        value: str = getattr(config.keys, name)
        if name == "collapse_key" and value == OFF:  # not passed to the parser
            continue
        try:
            checked[name] = validate(value)
        except ValueError as exc:
            default: str = getattr(defaults, name)
            checked[name] = default
            detail = sanitize_line(str(exc))
            message = _("{key} {value} is not a valid key ({detail}); using the default {default}")
            message = message.format(
                key=f"[keys] {name}", value=_quote(value), detail=detail, default=_quote(default)
            )
            warnings.append(_warn(config.path, message))
    keys = attrs.evolve(config.keys, **checked)
    return attrs.evolve(config, keys=keys), warnings


# -- warning text ----------------------------------------------------------------------------


def _warn(path: Path | None, message: str) -> str:
    where = "" if path is None else f"{sanitize_line(str(path))}: "
    return f"asks: {where}{message}"


def _quote(value: str) -> str:
    return f'"{sanitize_line(value)}"'


def _key_label(key: str) -> str:
    clean = sanitize_line(key)
    return clean if clean and clean.replace("_", "").replace("-", "").isalnum() else _quote(key)


def _table_label(name: str) -> str:
    return f"[{_key_label(name)}]"


def _show_default(value: object) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return _quote(value) if len(value) <= _SHORT_DEFAULT else "text"
    return str(value)
