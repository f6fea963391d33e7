"""Deferred fields: slotted attrs instances some of whose fields are filled on first read.

A class that inherits :class:`Deferred` behaves exactly like a plain slotted attrs class for
instances built by its ``__init__`` (every field set, nothing pending). An instance built by
the store's fast replay may instead leave some field slots unset and hold a *pending* value;
the first read of an unset field (Python then calls ``__getattr__``) hands the pending value
and the field's name to the class's :meth:`Deferred._fill`, which sets that field (or all of
them) and returns what is still pending (``None``: nothing), and the read proceeds. Once
nothing is pending the instance is indistinguishable from an eager one: same class (so
``isinstance``, ``match`` and attrs' ``__eq__``/``__hash__``/``__repr__`` work unchanged,
reading through the fields), same field values.

Invariant the owners keep: filling is deterministic and never needs a field of the instance
itself (``_fill`` reads only the pending value), so a read can never recurse; it sets only
fields still unset, so two reads racing fill the same values. If ``_fill`` raises, nothing
is changed and the error propagates to the read.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

__all__ = ["Deferred", "is_unset", "pending_of", "set_pending"]

_get = object.__getattribute__
_set = object.__setattr__
_del = object.__delattr__


class Deferred:
    """Base of slotted classes whose instances may start with fields unset (module docstring)."""

    __slots__ = ("_pending",)

    def _fill(self, pending: Any, name: str) -> Any:  # pragma: no cover - always overridden
        """Set ``name`` (at least) from ``pending``; return what is left pending, or None."""
        raise NotImplementedError

    if not TYPE_CHECKING:  # hidden from mypy: it would make every attribute name valid

        def __getattr__(self, name: str) -> Any:
            try:
                pending = _get(self, "_pending")
            except AttributeError:
                try:  # filled meanwhile (by a read in another thread)
                    return _get(self, name)
                except AttributeError:
                    raise AttributeError(
                        f"{type(self).__name__!r} object has no attribute {name!r}",
                        name=name,
                        obj=self,
                    ) from None
            rest = self._fill(pending, name)  # on error nothing changed: the read raises
            if rest is not None:
                _set(self, "_pending", rest)
            else:
                with contextlib.suppress(AttributeError):
                    _del(self, "_pending")
            return _get(self, name)


def pending_of(instance: object) -> Any:
    """The pending value of ``instance``, or ``None`` when every field is set."""
    try:
        return _get(instance, "_pending")
    except AttributeError:
        return None


def is_unset(instance: object, name: str) -> bool:
    """Whether the slot ``name`` of ``instance`` holds no value yet (reading it would fill)."""
    try:
        _get(instance, name)
    except AttributeError:
        return True
    return False


def set_pending(instance: Deferred, pending: Any) -> None:
    """Give ``instance`` (whose unset fields ``pending`` can fill) its pending value."""
    _set(instance, "_pending", pending)
