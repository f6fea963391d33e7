"""The built-in tour in the person's language: which texts of a script are the person's to
read, translated through the gettext catalogs when the script is played.

Only a script marked ``localized`` (the built-in tour, ``asks/agent/tour.py``) is
translated; a script file of the person's own is played as written. The texts are each
reply's ``say`` and, in its tool calls' arguments, every string under one of
:data:`LOCALIZED_KEYS` (a question, its header and context, an option's label and
description, a work step's label) — never a preview, a command or an id.

:func:`texts` lists them for extraction (``tools/i18n.py`` adds them to ``asks.pot``), and
:func:`translated` is what the scripted model plays: the same walk, so what is extracted is
what is translated. Translations keep the ``{placeholders}`` (tests/test_i18n.py checks) and
the words the tour asks the person to type (``ask``, ``block``, ``/asks``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final

from asks.core.i18n import translate

if TYPE_CHECKING:
    from asks.agent.scripted import Script

LOCALIZED_KEYS: Final = frozenset({"question", "header", "context", "label", "description"})
_ONLY_PLACEHOLDERS: Final = re.compile(r"(\s*\{[a-z_]+\}\s*)+")


def texts(script: Script) -> Iterator[str]:
    """Every translatable text of ``script`` (module docstring), in script order; a ``say``
    that is only placeholders (``{outcome}``) has nothing to translate."""
    for step in script.steps:
        for reply in step.replies:
            if reply.say and not _ONLY_PLACEHOLDERS.fullmatch(reply.say):
                yield reply.say
            for call in reply.calls:
                found: list[str] = []
                _walk(call.args, found.append)
                yield from found


def translated(value: Any) -> Any:
    """``value`` (a call's arguments) with its translatable strings in the language in force."""
    return _walk(value, lambda _text: None)


def _walk(value: Any, seen: Callable[[str], None], key: str | None = None) -> Any:
    if isinstance(value, dict):
        return {k: _walk(v, seen, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(item, seen) for item in value]
    if isinstance(value, str) and key in LOCALIZED_KEYS and value:
        seen(value)
        return translate(value)
    return value
