"""asks: an inline async-question panel for terminal chat REPLs — the public API.

Everything an embedder needs is importable from here (``from asks import QuestionHost``);
:data:`__all__` is the list. The names are declared once, in ``asks/__init__.pyi``: type
checkers read their types there, and this module reads the same ``from M import N as N`` lines
on first use to load ``asks.N`` from ``M`` (PEP 562) and to build :data:`__all__`. So
``import asks.core.model`` never pays for trio, urwid or the store, the pure core never imports
urwid (only :mod:`asks.widgets`, the urwid layer, and :mod:`asks.cli`, our REPL's composition
root, do), and our REPL, which imports its modules directly, never reads the stub.

The layers (docs/design.md, "Layers"): ``asks.core`` (pure values and state machines) ←
``asks.store``, ``asks.contract`` ← ``asks.host`` (the question host and its ports) ← ``asks.agent``
← ``asks.surfaces`` (web bridge, headless, line mode) ← ``asks.widgets`` ← ``asks.cli``. The
README's "Embedding the panel" section is the guide; docs/architecture.md has the state model.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from asks.core.version import __version__ as __version__


@functools.cache
def public_names() -> dict[str, str]:
    """Each public name and the module it comes from, as ``asks/__init__.pyi`` declares them.

    Written by hand rather than with ``lazy_loader.attach_stub`` (which does the same): that
    parses the stub when ``asks`` is imported, so every launch of our REPL would pay for it.
    """
    import ast  # noqa: PLC0415 (only when an embedder first reads a public name)
    from pathlib import Path  # noqa: PLC0415

    tree = ast.parse(Path(__file__).with_suffix(".pyi").read_text(encoding="utf-8"))
    return {
        alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def __getattr__(name: str) -> Any:
    """Load a public name on first use (see the module docstring)."""
    if name == "__all__":
        return sorted(public_names())
    module = public_names().get(name)
    if module is None:
        raise AttributeError(f"module 'asks' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, and this module's own (what ``dir(asks)`` and completion show)."""
    return sorted({*globals(), *public_names()})
