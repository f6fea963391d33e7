"""Where things are: the repo root, the tests folder and what it holds."""

from __future__ import annotations

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent  # this package, and the programs tests run
TESTS = SUPPORT.parent
ROOT = TESTS.parent  # the source tree (asks/, widgets/, demos/)
SCRIPTS = TESTS / "scripts"  # the scripted model's scripts (``asks --script``)
GOLDEN = TESTS / "golden"  # the panel's golden screens
