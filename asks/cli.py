"""Command-line entry (composition root).

Until the REPL lands (see NOTES.md, "Status"), ``asks`` only reports what is built and exits:
it does not pretend to be the chat REPL.
"""

from __future__ import annotations

import argparse
import sys

from asks import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asks", description="Inline async-question panel for terminal chat REPLs."
    )
    parser.add_argument("--version", action="version", version=f"asks {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    build_parser().parse_args(argv)
    print(
        f"asks {__version__}: the question core (tool contract, journal, host, delivery) is "
        "built and tested; the interactive REPL is not built yet. See NOTES.md (Status).",
        file=sys.stdout,
    )
    return 0
