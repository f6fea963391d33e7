"""A flat journal line written by the stdlib's ``json``, byte for byte as orjson writes it.

Why: a new session's first lines (``session_started``, ``model_chosen``) are written before the
first frame, and importing orjson brings ``uuid`` and ``datetime`` (~7.6 M instructions of the
launch); ``json`` is loaded anyway. :func:`as_orjson_writes` returns orjson's bytes wherever the
two writers are known to agree — every value a ``str`` (enums of ``str`` too), a ``bool``, an
``int`` in orjson's 64-bit range or a finite float whose ``repr`` has no exponent — and
``None`` otherwise, when the caller lets orjson write the line (the stdlib then never decides a
line orjson would write differently or refuse). ``tests/test_entries_flat.py`` compares the two
writers over values of every kind, the ones where they differ included.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

__all__ = ["as_orjson_writes"]

_INT64: Final = range(-(2**63), 2**64)  # what orjson writes as an int (else it refuses)


def _same_in_both(value: object) -> bool:
    """Whether ``json.dumps`` writes ``value`` as orjson does: a ``str`` (enums of it too) or
    ``bool``; an ``int`` orjson accepts; a finite float whose ``repr`` has no exponent (both
    write the shortest repr, but orjson spells ``1e16``, ``1e-5`` where Python has ``1e+16``,
    ``1e-05``, and ``null`` for what Python writes ``NaN``)."""
    if isinstance(value, str | bool):
        return True
    if type(value) is int:
        return value in _INT64
    if type(value) is float:
        text = repr(value)
        return "e" not in text and "n" not in text  # nan, inf
    return False


def as_orjson_writes(line: Mapping[str, object]) -> bytes | None:
    """``orjson.dumps(line, option=OPT_APPEND_NEWLINE)`` for a line of flat values, by the
    stdlib, or ``None`` when one of its values may be written otherwise by the two."""
    if not all(_same_in_both(value) for value in line.values()):
        return None
    try:
        return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except UnicodeEncodeError:  # lone surrogates: orjson refuses them too
        return None
