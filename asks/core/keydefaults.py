"""The two configurable keys' defaults, and the word that turns a key off: one source.

The config file (asks/config.py: ``[keys]``, and what its warnings name as the default) and the
keymap (widgets/keymap.py: :func:`build_keymap`'s defaults, widgets/keyspec.py: ``"off"``) both
read them here; they sit in layers that may not import each other. The values are key specs as
a person writes them in ``config.toml`` (urwid's names).
"""

from __future__ import annotations

from typing import Final

DEFAULT_FOCUS_TOGGLE_KEY: Final = "shift tab"  # enter the question panel from chat, and back
DEFAULT_COLLAPSE_KEY: Final = "ctrl ]"  # collapse the panel to one line
OFF: Final = "off"  # a collapse key of "off" disables collapsing (the toggle cannot be off)
