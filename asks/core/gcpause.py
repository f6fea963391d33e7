"""Pausing the cyclic garbage collector while a burst of long-lived objects is built.

The process's collector is the program's: only the command line (``asks.cli``) pauses it, and
library code never does (``tests/test_architecture.py``), so an embedder's collector runs as
the embedder set it. The CLI's use is the launch trick ``gc-pause`` (asks/cli/startup.py,
switched off by ``ASKS_LAUNCH_TRICKS``): :func:`paused_gc` around its imports, which build
about 80,000 objects that nearly all stay alive (classes, functions, tables) and would
otherwise trigger ~120 young and ~12 middle collections, which find only the garbage named
below (44 M instructions, 16–18 ms of CPU of the launch: ``bench/tricks_bench.py``). Inside the
block the collector is off; on leaving, the objects built meanwhile (if more than a young
collection's worth) go straight to the oldest generation (``gc.freeze()`` + ``gc.unfreeze()``:
O(1), and it resets the young-generation count), which is where young collections would have
moved them after traversing them. Nothing stays frozen, and garbage cycles made inside the
block are still found by the next full collection. The freeze trick is skipped when the process
has frozen objects of its own (``unfreeze`` would release those too); the collector is switched
back on only if it was on before.

The price at launch: the cyclic garbage the imports make (~1 MB, mostly the classes attrs
replaces by their slotted copies) is not freed meanwhile, and the CLI freezes the heap once the
session is built, so it stays: measured +1.0 MiB RSS at the first frame, for 16–18 ms less CPU.
(A gen-0 threshold of 20,000 instead keeps RSS −0.5 MiB but saves only ~11 ms; one young
collection at the end frees the garbage but costs ~24 ms.)
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The collector off inside the block (module docstring). The freeze trick is also skipped
    when fewer objects were built than one young collection takes: nothing to gain, and
    ``gc.get_freeze_count()`` walks every frozen object (after the CLI froze a big session,
    each small replay paid for that walk)."""
    was_enabled = gc.isenabled()
    gc.disable()
    young = gc.get_count()[0]
    try:
        yield
    finally:
        built = gc.get_count()[0] - young
        if built >= gc.get_threshold()[0] and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()
