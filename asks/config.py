"""The config file: read-only, optional, and never fatal (docs/design.md, "Configuration").

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
    panel_share = 0.5                 # the most of the screen the question panel takes while
                                      # it does not have the keyboard (0 < share <= 1)
    typing_guard = 0.6                # seconds without a key before a required question or a
                                      # permission prompt takes the keys (0.3 to 5)

    [tools]
    command_timeout = 120             # seconds before run_command's process group is killed

    [mcp]                             # the hub: asks' MCP server for Claude Code, Codex, …
    enabled = true                    # every session serves it (else: asks --mcp, asks hub)
    port = 8765                       # fixed, so a client's config keeps working
    host = "127.0.0.1"                # beyond loopback only on purpose (a warning says so)
    codex = "codex"                   # for late answers to Codex (codex queue); default: PATH

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

The schema is the attrs classes below, once: each key is declared with :func:`setting` (its
default and its :class:`Kind`: what the warning says it must be, the check, the conversion);
the table of TOML keys the loader walks (``_TABLES``) is derived from them, and a key declared
without its kind stops the import. (Not cattrs: "a positive number", "a port", "a supported
locale" are checks, not types, so it would need the same kinds; and the file is read at every
launch, while cattrs loads only at the journal's first use.)

Key specs are only type-checked here: :func:`with_key_fallbacks` runs the caller's key parser
(the widget layer owns key syntax), replacing each invalid spec by its default with one warning.
This module imports no urwid and no widgets.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, TypeVar, cast

import attrs

from asks.contract import DEFAULT_GUIDANCE, Guidance
from asks.core.events import EventKind
from asks.core.focus import TYPING_GUARD, TYPING_GUARD_RANGE
from asks.core.i18n import N_, SHOWN_CODES, _, normalize
from asks.core.keydefaults import DEFAULT_COLLAPSE_KEY, DEFAULT_FOCUS_TOGGLE_KEY, OFF
from asks.core.space import DEFAULT_PANEL_SHARE
from asks.sanitize import sanitize_line

DEFAULT_TIMEOUT: Final = 60.0
DEFAULT_COMMAND_TIMEOUT: Final = 120.0
DEFAULT_HOOK_TIMEOUT: Final = 10.0
_SHORT_DEFAULT: Final = 40  # longer default values are not quoted in warnings

S = TypeVar("S")
T = TypeVar("T")


# -- what a value may be ---------------------------------------------------------------------


def _same(value: T) -> T:
    return value


@attrs.frozen
class Kind:
    """What one config value may be: what its warning says it must be, the check, and the
    conversion of an accepted value (TOML's integer for a float setting, its list for argv)."""

    expected: str  # marked with N_, translated where a warning says it
    accepts: Callable[[object], bool]
    convert: Callable[[Any], object] = _same


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


def _is_guard(value: object) -> bool:
    low, high = TYPING_GUARD_RANGE
    return _is_positive_number(value) and low <= cast("float", value) <= high


def _is_port(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 65535


def _is_share(value: object) -> bool:
    return _is_positive_number(value) and cast("float", value) <= 1


def _is_locale(value: object) -> bool:
    return isinstance(value, str) and normalize(value) is not None


STRING: Final = Kind(N_("a string"), _is_string)
NAME: Final = Kind(N_("a non-empty string"), _is_name)
BOOL: Final = Kind(N_("true or false"), _is_bool)
POSITIVE: Final = Kind(N_("a positive number"), _is_positive_number, float)
TEMPERATURE: Final = Kind(N_("a number >= 0"), _is_temperature, float)
PORT: Final = Kind(N_("a port number (0-65535)"), _is_port)
LOCALE: Final = Kind(N_("one of {codes}"), _is_locale)
SHARE: Final = Kind(N_("a number above 0 and at most 1"), _is_share, float)
GUARD: Final = Kind(N_("a number of seconds from 0.3 to 5"), _is_guard, float)
ARGV: Final = Kind(
    N_('a command as a list of strings, e.g. ["notify-send", "asks"]'), _is_argv, tuple
)

_KIND: Final = "asks.config.kind"  # field metadata: the Kind of a key
_STRINGS: Final = "asks.config.strings"  # field metadata: a table of strings from elsewhere


def setting(default: T, kind: Kind) -> T:
    """A key of a table: its default and what it may be (the schema is the classes below)."""
    return attrs.field(default=default, metadata={_KIND: kind})


# -- the schema: the classes -----------------------------------------------------------------


@attrs.frozen
class KeysConfig:
    """Key specs as written (validated by :func:`with_key_fallbacks`)."""

    focus_toggle_key: str = setting(DEFAULT_FOCUS_TOGGLE_KEY, STRING)
    collapse_key: str = setting(DEFAULT_COLLAPSE_KEY, STRING)


@attrs.frozen
class ModelConfig:
    """A real model; ``None`` means "not configured" (flags may still set it; the provider's
    default is used for ``provider`` and ``api_key_env``)."""

    name: str | None = setting(None, NAME)
    base_url: str | None = setting(None, NAME)
    api_key_env: str | None = setting(None, NAME)
    timeout: float = setting(DEFAULT_TIMEOUT, POSITIVE)
    stream: bool = setting(True, BOOL)
    provider: str | None = setting(None, NAME)
    temperature: float | None = setting(None, TEMPERATURE)


@attrs.frozen
class UiConfig:
    """``[ui]``: the language of every person-facing string (``None``: from the environment;
    asks/core/i18n.py), a supported code such as ``de`` or ``pt-BR``; ``panel_share``: the
    most of the screen's rows the question panel takes while it does not have the keyboard
    (asks/core/space.py); ``typing_guard``: how long the person must not type before a required
    question or a permission prompt takes the keys (until then keys go where they went)."""

    locale: str | None = setting(None, LOCALE)
    panel_share: float = setting(DEFAULT_PANEL_SHARE, SHARE)
    typing_guard: float = setting(TYPING_GUARD, GUARD)


@attrs.frozen
class McpConfig:
    """``[mcp]``: the hub (asks' MCP server for outside agents): on for every session with
    ``enabled``, on ``host``:``port`` (loopback and a fixed port by default, so a client's
    config keeps working). ``codex``: the binary that queues a late answer for an idle
    Codex session (a path or a name on ``PATH``; default ``codex`` on ``PATH``)."""

    enabled: bool = setting(False, BOOL)
    port: int = setting(8765, PORT)
    host: str = setting("127.0.0.1", NAME)
    codex: str | None = setting(None, NAME)


@attrs.frozen
class ToolsConfig:
    """The real tools' limits."""

    command_timeout: float = setting(DEFAULT_COMMAND_TIMEOUT, POSITIVE)


Argv = tuple[str, ...]


@attrs.frozen
class HooksConfig:
    """``[hooks]``: a command per event name (an :class:`EventKind` value; ``None``: no hook),
    and the seconds each run may take."""

    question_asked: Argv | None = setting(None, ARGV)
    wait_opened: Argv | None = setting(None, ARGV)
    wait_ended: Argv | None = setting(None, ARGV)
    answer_saved: Argv | None = setting(None, ARGV)
    delivered: Argv | None = setting(None, ARGV)
    withdrawn: Argv | None = setting(None, ARGV)
    storage_failed: Argv | None = setting(None, ARGV)
    keys_returned: Argv | None = setting(None, ARGV)
    timeout: float = setting(DEFAULT_HOOK_TIMEOUT, POSITIVE)

    def commands(self) -> dict[EventKind, Argv]:
        """The configured hooks by event."""
        found = ((kind, getattr(self, kind.value)) for kind in EventKind)
        return {kind: argv for kind, argv in found if argv is not None}


@attrs.frozen
class Config:
    """The whole configuration. ``path`` is the file that was consulted (it may not exist).
    Every other field is a table of the file, named as the field; ``guidance`` is the
    contract's class, every field of it a string (its ``guidelines`` is written
    ``prompt_guidelines``)."""

    path: Path | None = None
    keys: KeysConfig = KeysConfig()
    guidance: Guidance = attrs.field(
        default=DEFAULT_GUIDANCE, metadata={_STRINGS: {"guidelines": "prompt_guidelines"}}
    )
    model: ModelConfig = ModelConfig()
    tools: ToolsConfig = ToolsConfig()
    hooks: HooksConfig = HooksConfig()
    ui: UiConfig = UiConfig()
    mcp: McpConfig = McpConfig()


# -- the schema as data, derived from the classes --------------------------------------------


@attrs.frozen
class _Rule:
    """One TOML key: the attribute it sets and what it may be."""

    attribute: str
    kind: Kind


def _rules(table: attrs.Attribute[Any]) -> Mapping[str, _Rule]:
    """The keys of ``table`` (a field of :class:`Config`), by their TOML name."""
    strings: Mapping[str, str] | None = table.metadata.get(_STRINGS)
    rules: dict[str, _Rule] = {}
    section = type(table.default)
    assert attrs.has(section)  # a table: _TABLES takes only these
    for field in attrs.fields(section):
        if strings is not None:
            rules[strings.get(field.name, field.name)] = _Rule(field.name, STRING)
        elif _KIND in field.metadata:
            rules[field.name] = _Rule(field.name, field.metadata[_KIND])
        else:
            raise TypeError(f"[{table.name}] {field.name}: declare it with setting(default, kind)")
    return MappingProxyType(rules)


_TABLES: Final[Mapping[str, Mapping[str, _Rule]]] = MappingProxyType(
    {t.name: _rules(t) for t in attrs.fields(Config) if attrs.has(type(t.default))}
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
    import tomllib  # noqa: PLC0415 (only with a config file: the bare asks has none to parse)

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
    sections = {
        table: _section(path, table, document[table], getattr(defaults, table), warnings)
        for table in _TABLES
        if table in document
    }
    config = attrs.evolve(defaults, **sections)
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
        elif not rule.kind.accepts(value):
            shown = _show_default(getattr(default, rule.attribute))
            expected = _(rule.kind.expected).format(codes=", ".join(SHOWN_CODES))
            message = _("{key} must be {expected}; using the default {default}").format(
                key=f"[{table}] {key}", expected=expected, default=shown
            )
            warnings.append(_warn(path, message))
        else:
            accepted[rule.attribute] = rule.kind.convert(value)
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
