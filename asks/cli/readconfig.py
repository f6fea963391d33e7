"""The config file and the keymap as the command line reads them (for :mod:`asks.cli`).

Each warning (an unreadable file, an unknown key, an invalid key spec) is printed on stderr
as one line, and added to ``seen`` when given: the REPL says them again in its transcript,
where stderr is hidden (:func:`config_notice`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from asks.config import Config, load_config, with_key_fallbacks
from asks.core.i18n import _
from asks.widgets.keymap import Keymap, build_keymap, parse_key_spec


def read_config(config_path: Path | None, seen: list[str] | None = None) -> Config:
    """The config file, its warnings printed (one line each) and added to ``seen``."""
    config, warnings = load_config(config_path)
    for warning in warnings:
        _warn(warning, seen)
    return config


def keymap_from(config: Config, seen: list[str] | None = None) -> Keymap:
    """The keymap of a loaded config; invalid key specs give one warning each and defaults."""
    config, key_warnings = with_key_fallbacks(config, parse_key_spec)
    for warning in key_warnings:
        _warn(warning, seen)
    try:
        return build_keymap(config.keys.focus_toggle_key, config.keys.collapse_key)
    except ValueError as exc:  # e.g. a key that clashes with another binding
        _warn(
            _("asks: {path}: {error}; using the default keys").format(path=config.path, error=exc),
            seen,
        )
        return build_keymap()


def _warn(warning: str, seen: list[str] | None) -> None:
    print(warning, file=sys.stderr)
    if seen is not None:
        seen.append(warning)


def config_notice(warning: str) -> str:
    """A config warning as a transcript notice: ``Config warning: PATH: …``."""
    return _("Config warning: {warning}").format(warning=warning.removeprefix("asks: "))
