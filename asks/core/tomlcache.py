"""Parsed TOML of package data, kept between runs the way Python keeps a module's .pyc.

The built-in tour (``asks/agent/tour.toml``) is read on every launch of the README's
``asks``; importing :mod:`tomllib` and parsing it cost ~14 M instructions of the launch (about
3 ms: NOTES "Floors (issue 21): launch"). :func:`parsed_toml` returns what ``tomllib.loads``
returns for a text, from a cache file when that file holds the very same text:

* **Exact.** The file holds the whole text it was parsed from and the parsed table; a hit
  needs the text to be equal, character for character (any edit of the source misses and is
  parsed as always). The table is what :mod:`marshal` gives back, a fresh copy on every call,
  equal to what parsing returns (tables, arrays, strings, numbers and booleans; a document
  with a value marshal cannot write, a date, is parsed every time and never cached).
* **Errors as without it.** Invalid TOML raises :class:`tomllib.TOMLDecodeError` on a miss,
  and an invalid text is never in the file, so it always misses.
* **Where, and when written.** The caller names the file (``__pycache__``, beside a module's
  .pyc, see :func:`beside_pyc`); it starts with the interpreter's bytecode magic number and a
  header, so another Python never reads it. It is rewritten (atomically, as
  :func:`asks.core.codecache.replace_file`) only after a miss and never when bytecode is not
  to be written (``PYTHONDONTWRITEBYTECODE``). A file that cannot be read, is not ours or is
  damaged is ignored; a write that fails is skipped — the only cost is parsing.

The trust is that of a .pyc file: whoever can write ``__pycache__`` can change the data read.
"""

from __future__ import annotations

import importlib.util
import marshal
import sys
from pathlib import Path
from typing import Any

from asks.core.codecache import replace_file

__all__ = ["beside_pyc", "parsed_toml"]

HEADER = b"asks parsed toml\n"


def beside_pyc(module_file: str, name: str) -> Path:
    """The cache file ``name`` in the ``__pycache__`` of the module at ``module_file``."""
    return Path(importlib.util.cache_from_source(module_file)).parent / name


def _cached(path: Path, text: str) -> dict[str, Any] | None:
    try:
        data = path.read_bytes()
        prefix = importlib.util.MAGIC_NUMBER + HEADER
        if not data.startswith(prefix):
            return None
        entry = marshal.loads(data[len(prefix) :])
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(entry, tuple) and len(entry) == 2 and entry[0] == text):
        return None
    table = entry[1]
    return table if isinstance(table, dict) else None


def parsed_toml(text: str, cache: Path | None) -> dict[str, Any]:
    """``tomllib.loads(text)``, from ``cache`` when it holds this text (module docstring);
    ``cache`` None: parsed, nothing kept. :mod:`tomllib` is imported only to parse."""
    table = None if cache is None else _cached(cache, text)
    if table is not None:
        return table
    import tomllib  # noqa: PLC0415 (only to parse: a hit needs none of it)

    table = tomllib.loads(text)
    if cache is not None and not sys.dont_write_bytecode:
        try:
            data = marshal.dumps((text, table))
        except ValueError:  # a value marshal cannot write (a date): parsed every time
            return table
        replace_file(cache, importlib.util.MAGIC_NUMBER + HEADER + data)
    return table
