"""Three attrs classes built at call time, as a module's body builds them (tests/test_codecache.py
builds them in and out of the method cache, and in another process)."""

from __future__ import annotations

import importlib
from typing import Any

import attrs


def compiles_per_build() -> int:
    """How many scripts attrs compiles for :func:`build`: one per class (attrs >= 25 compiles
    a class's methods together), or one per generated method (older attrs)."""
    make: Any = importlib.import_module("attr._make")
    seen: list[str] = []

    def counting(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(filename)
        return compile(source, filename, mode, *args, **kwargs)

    make.compile = counting
    try:
        build()
    finally:
        del make.compile
    return len(seen)


def build(extra_field: bool = False) -> dict[str, Any]:
    """Three attrs classes, as a module's body would make them."""

    @attrs.frozen
    class Point:
        x: int
        y: int = 0

    @attrs.define(eq=False)
    class Service:
        name: str
        seen: list[str] = attrs.Factory(list)

    if extra_field:

        @attrs.define
        class Row:
            cells: tuple[str, ...] = ()
            width: int = attrs.field(default=1, validator=attrs.validators.gt(0))
            note: str = ""

    else:

        @attrs.define
        class Row:  # type: ignore[no-redef]
            cells: tuple[str, ...] = ()
            width: int = attrs.field(default=1, validator=attrs.validators.gt(0))

    return {"Point": Point, "Service": Service, "Row": Row}
