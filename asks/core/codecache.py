"""attrs' generated methods, kept compiled between runs the way Python keeps a module's .pyc.

attrs writes the source of each class's ``__init__``, ``__eq__``, ``__repr__``, … and compiles
it when the class is built, on every launch: for the ~160 attrs classes ``asks`` imports
before its first frame (ours and trio's) that compiling is the largest single cost of the
launch above a bare trio + urwid screen (~255 M instructions, 28–34 ms of CPU:
``bench/tricks_bench.py``, 2026-12-05). Python caches the bytecode of modules, not of code
made at run time, so :func:`cached_attrs_methods` does it for attrs inside one block (the
CLI's imports, as the launch trick ``method-cache`` of asks/cli/startup.py):

* **Exact.** A cached code object is used only for the very same source text and file name
  under the same ``-O`` level (the key is all three, whole): ``compile`` is a pure function of
  them, so a hit is what compiling would have returned. A class whose generated source
  changed (a field added, another attrs) misses and is compiled as always. One part of the
  source differs from run to run: a hashable class's ``__hash__`` mixes in a salt, ``hash()``
  of the class's name, written in as a literal, and ``str`` hashes are randomised per process
  (attrs ≥ 25 compiles a class's methods as one script, older ones each method alone: the
  salt is in the methods script, or in the hash script, and :func:`salt_of` knows both).
  The key has this run's salt replaced by a marker (the salt is known: :func:`salt_of` the
  file name), the entry keeps the salt it was compiled with, and a hit gets this run's salt
  back in its constants: the code compiling would have given (column offsets after the
  literal aside, which only tracebacks show).
* **Where, and when written.** One file beside this module's .pyc (``__pycache__``, honouring
  ``sys.pycache_prefix``), starting with the interpreter's bytecode magic number: another
  Python never reads it (another attrs writes other sources: they miss; ``attr.__version__``
  is not read, it imports ``importlib.metadata``, ~15 ms). It is rewritten on leaving the
  block only if something missed, atomically (a temporary file renamed over), holding exactly
  what the block used; never when bytecode is not to be written (``PYTHONDONTWRITEBYTECODE``).
  A file that cannot be read, is not ours or is damaged is ignored; a write that fails is
  skipped — the only cost is compiling, as without the cache.
* **Scope.** attrs compiles through ``compile`` looked up in its ``attr._make`` module; the block
  shadows that one name there and removes it on leaving, so nothing outside the block and no
  other caller of ``compile`` is touched. An attrs that compiles some other way is left alone
  (:attr:`MethodCache.active` is false).

The trust is that of a .pyc file: whoever can write ``__pycache__`` can change the code run.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.util
import marshal
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any

__all__ = [
    "MethodCache",
    "cache_file",
    "cached_attrs_methods",
    "class_name",
    "replace_file",
    "salt_of",
]

HEADER = b"asks attrs methods\n"
SALT = "__asks_attrs_salt__"
# The scripts that can hold a class's salt: all its methods (attrs >= 25) or only __hash__
# (older); then the class's name, maybe -N, and ">".
_SALTED = ("<attrs generated methods ", "<attrs generated hash ")
Entry = tuple[CodeType, int | None]  # the code, the salt it was compiled with (if any)


def salt_of(filename: str) -> int | None:
    """The salt attrs writes into ``__hash__`` of the class whose methods (or hash method) are
    ``filename``: ``hash()`` of the class's hash file name (``None``: no such script)."""
    name = class_name(filename)
    return None if name is None else hash(f"<attrs generated hash {name}>")


def class_name(filename: str) -> str | None:
    """The class of attrs' methods or hash script ``filename`` (``<attrs generated methods
    NAME>``, ``<attrs generated hash NAME>``, or ``…NAME-N>`` for a second class of that name),
    else ``None``: what the pattern ``<attrs generated (?:methods|hash) (?P<name>.*?)(?:-\\d+)?>``
    matches, by string methods (compiling it is ~0.6 M instructions of the launch;
    ``tests/test_codecache.py`` compares the two)."""
    prefix = next((p for p in _SALTED if filename.startswith(p)), None)
    if prefix is None or not filename.endswith(">"):
        return None
    inner = filename[len(prefix) : -1]
    if "\n" in inner:  # the pattern's "." does not match a newline
        return None
    head, dash, tail = inner.rpartition("-")
    return head if dash and tail.isdecimal() else inner


def _resalted(code: CodeType, old: int, new: int) -> CodeType:
    """``code`` with the constant ``old`` replaced by ``new``, in nested code objects too."""
    consts = tuple(
        new
        if type(c) is int and c == old
        else _resalted(c, old, new)
        if isinstance(c, CodeType)
        else c
        for c in code.co_consts
    )
    return code.replace(co_consts=consts)


def cache_file(part: str = "") -> Path:
    """The cache, beside this module's .pyc; ``part`` names the cache of another block (each
    file holds exactly what its own block used: two blocks sharing one would rewrite it in
    turn)."""
    name = f"attrs-methods-{part}.bin" if part else "attrs-methods.bin"
    return Path(importlib.util.cache_from_source(__file__)).parent / name


def _read(path: Path) -> dict[str, Entry]:
    """The cached code objects in ``path``; nothing if it is missing, another Python's or bad."""
    try:
        data = path.read_bytes()
        prefix = importlib.util.MAGIC_NUMBER + HEADER
        if not data.startswith(prefix):
            return {}
        table = marshal.loads(data[len(prefix) :])
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict):
        return {}
    return {
        key: (entry[0], entry[1])
        for key, entry in table.items()
        if isinstance(key, str)
        and isinstance(entry, tuple)
        and len(entry) == 2
        and isinstance(entry[0], CodeType)
        and (entry[1] is None or type(entry[1]) is int)
    }


def _write(path: Path, table: dict[str, Entry]) -> None:
    """Replace ``path`` with ``table`` (atomic; a failure leaves the old file or none)."""
    try:
        data = importlib.util.MAGIC_NUMBER + HEADER + marshal.dumps(table)
    except ValueError:  # a constant marshal cannot write: no cache, as before
        return
    replace_file(path, data)


def replace_file(path: Path, data: bytes) -> None:
    """Replace the cache file ``path`` with ``data``, atomically (a temporary file renamed
    over), with the mode of this module's source, as a .pyc; a failure (OSError) leaves the
    old file or none and is not raised: a cache that cannot be written is only not used."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.chmod(tmp, Path(__file__).stat().st_mode & 0o666)  # as a .pyc: the source's mode
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError:
        pass


class MethodCache:
    """The code objects known from the file and the ones compiled in the block."""

    def __init__(self, path: Path, active: bool) -> None:
        self.path = path
        self.active = active
        self.known = _read(path) if active else {}
        self.used: dict[str, Entry] = {}
        self.hits = 0
        self.misses = 0

    def compile(self, source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        """``compile``, from the cache for attrs' plain ``exec`` scripts."""
        if args or kwargs or mode != "exec" or not isinstance(source, str):
            return builtins.compile(source, filename, mode, *args, **kwargs)
        salt = salt_of(filename) if isinstance(filename, str) else None
        literal = None if salt is None else str(salt)
        if literal is not None and literal not in source:
            salt = literal = None
        text = source if literal is None else source.replace(literal, SALT)
        key = f"{sys.flags.optimize}\0{filename}\0{text}"  # -O strips asserts when compiling
        entry = self.known.get(key)
        if entry is None:
            entry = (builtins.compile(source, filename, mode), salt)
            self.misses += 1
        else:
            self.hits += 1
        self.used[key] = entry
        code, compiled_with = entry
        if compiled_with is None or salt is None or compiled_with == salt:
            return code
        return _resalted(code, compiled_with, salt)

    def save(self) -> None:
        """Write what the block used, if anything missed and bytecode may be written."""
        if self.active and self.misses and not sys.dont_write_bytecode:
            _write(self.path, self.used)


@contextlib.contextmanager
def cached_attrs_methods(path: Path | None = None) -> Iterator[MethodCache]:
    """Inside the block, attrs classes get their generated methods from the cache (module
    docstring); ``path``: the cache file (default :func:`cache_file`)."""
    make: Any = importlib.import_module("attr._make")  # loads with the block's imports anyway
    compiles = getattr(make, "_compile_and_eval", None)
    active = "compile" in getattr(
        getattr(compiles, "__code__", None), "co_names", ()
    ) and "compile" not in vars(make)
    cache = MethodCache(path or cache_file(), active)
    if active:
        make.compile = cache.compile
    try:
        yield cache
    finally:
        if active:
            del make.compile
            cache.save()
