"""asks: an inline async-question panel for terminal chat REPLs — the pure core.

This package never imports urwid (only :mod:`asks.cli`, the composition root, may import
:mod:`widgets`). See NOTES.md for the state model and DESIGN.md for the product.
"""

__version__ = "0.1.0"
