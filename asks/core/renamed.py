"""Old method names kept for embedders after a rename: calling one warns, then does the new.

asks' sync methods once carried a ``_nowait`` suffix although they have no async twin; the
suffix now means only that (trio's ``send_nowait``/``send``). The old public names stay as
aliases made by :func:`renamed` for the 0.x releases: each call warns
:class:`DeprecationWarning` (shown once per call site under Python's default filters) and runs
the new method with the same arguments. They are not part of the reference (docs/api.md lists
them under "Renamed").
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def renamed(new: Callable[P, R], old: str) -> Callable[P, R]:
    """``new`` under its former name ``old``: warns that ``old`` is deprecated, calls ``new``."""

    @functools.wraps(new)
    def alias(*args: P.args, **kwargs: P.kwargs) -> R:
        warnings.warn(f"{old} is deprecated: use {new.__name__}", DeprecationWarning, stacklevel=2)
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated name of :meth:`{new.__name__}`."
    return alias
