"""The launch's tricks, all applied here, each behind a named switch.

A trick is launch work done another way than plain Python would do it, kept only while it buys
its keep (docs/decisions/0025-launch-tricks-in-one-place.md: each is measured on its own by
``bench/tricks_bench.py``, and one that saves less than ~5 ms of the first frame is deleted,
its cost paid or designed away). :func:`importing` wraps the command line's imports
(:mod:`asks.cli`) and applies what :data:`CHOSEN` holds; a later block of imports that only
some commands make (the hub's: asks/cli/hub.py) is wrapped the same way under a ``part`` name
of its own (its own cache file):

* :attr:`Trick.METHOD_CACHE` — attrs' generated methods come compiled from the last launch
  (:mod:`asks.core.codecache`; it shadows ``compile`` in attrs' private ``attr._make`` inside
  the block only, switches itself off when attrs compiles some other way, and is tested
  against the oldest and newest attrs of the pinned range: ``tests/test_attrs_range.py``).
* :attr:`Trick.GC_PAUSE` — the cyclic collector is off while the imports build their ~80,000
  long-lived objects, which then go to the oldest generation (:mod:`asks.core.gcpause`): the
  ~130 collections the imports would trigger walk them to free little. The process's
  collector is the program's to pause; library code never touches it.

Which tricks run is read once, here, from the environment: :data:`ENV` unset or ``all`` is
every trick; ``none`` (or empty) is none; else a comma-separated list of the tricks' values
(``method-cache,gc-pause``) runs those only, and a name that is no trick's is ignored. Nothing
else in ``asks`` reads it: with a trick off the launch does what plain Python does, and
nothing after the imports behaves differently (the switch is for measuring and for doubt).
"""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Collection, Iterator, Mapping
from typing import Final

from asks.core.codecache import cache_file, cached_attrs_methods
from asks.core.gcpause import paused_gc

__all__ = ["CHOSEN", "ENV", "Trick", "chosen", "importing"]

ENV: Final = "ASKS_LAUNCH_TRICKS"


class Trick(enum.Enum):
    """A launch trick, by the name :data:`ENV` lists it with."""

    METHOD_CACHE = "method-cache"
    GC_PAUSE = "gc-pause"


def chosen(environ: Mapping[str, str]) -> frozenset[Trick]:
    """The tricks :data:`ENV` in ``environ`` turns on (module docstring)."""
    value = environ.get(ENV)
    if value is None or value.strip() == "all":
        return frozenset(Trick)
    names = {name.strip() for name in value.split(",")}
    return frozenset(trick for trick in Trick if trick.value in names)


CHOSEN: Final = chosen(os.environ)


@contextlib.contextmanager
def importing(tricks: Collection[Trick] = CHOSEN, *, part: str = "") -> Iterator[None]:
    """The block of the command line's imports, with ``tricks`` applied; ``part``: the name of
    a later block (module docstring), whose method cache is a file of its own."""
    with contextlib.ExitStack() as stack:
        if Trick.GC_PAUSE in tricks:
            stack.enter_context(paused_gc())
        if Trick.METHOD_CACHE in tricks:
            stack.enter_context(cached_attrs_methods(cache_file(part)))
        yield
