"""The provider edge: what a model sent, made safe once before the agent, the journal and the
next request see it. Pure functions, no I/O.

* **Encodable text** (:func:`encodable`, :func:`encodable_arguments`). A lone surrogate (a JSON
  ``"\\ud800"`` escape decodes to one) cannot be UTF-8: the next request body, the journal's
  line and the terminal would each fail or differ. Model text, tool names and ids get every
  surrogate code point replaced by U+FFFD; tool *arguments* (a JSON text) also get every
  ``\\uD800``-``\\uDFFF`` escape that is not half of a valid pair replaced by ``\\ufffd``, so
  whatever later decodes them gets encodable strings too. Then the live context equals the
  context rebuilt from the journal.
* **JSON punctuation beside tool calls** (:func:`is_punctuation`). Some servers (llama.cpp) leave
  the model's JSON wrapper as text: ``{}``, ``{``, ``{}\\n{}`` next to the calls. Text made only
  of ``{}[],:`` and whitespace is dropped from a reply that has tool calls; a reply without
  calls keeps it.
* **Call ids** (:func:`assign_ids`). The host derives question ids from call ids and treats a
  repeated id as a retry of that call. A call keeps its id when the id is new to the context
  and the reply. A reused id is kept only for a *true retry*: an earlier call with that id has
  the same name and the same arguments and is still open (its questions pending, asked by the
  caller's ``still_open``); any other reuse (servers that number calls ``call_0``… per reply),
  and a missing id, get a fresh ``call_<16 hex>``.
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Protocol, TypeVar

REPLACEMENT: Final = "\ufffd"
_SURROGATE: Final = "[\ud800-\udfff]"
# In JSON text: an escaped backslash (left alone), a valid surrogate pair (left alone), or a
# surrogate escape on its own (replaced).
_ESCAPES: Final = (
    r"(\\\\)"
    r"|(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)
_PUNCTUATION: Final = frozenset("{}[],: \t\r\n")


class Call(Protocol):
    """What :func:`assign_ids` needs of a tool call."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def arguments(self) -> str: ...


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Compiled on first use, not at import (the launch compiles no pattern of this module)."""
    return re.compile(pattern)


def warm_up() -> None:
    """Compile the patterns now, off the path of the first model reply that needs them."""
    _compiled(_SURROGATE)
    _compiled(_ESCAPES)


def encodable(text: str) -> str:
    """``text`` with every surrogate code point replaced by U+FFFD (the same object if none)."""
    if text.isascii():
        return text
    surrogate = _compiled(_SURROGATE)
    return surrogate.sub(REPLACEMENT, text) if surrogate.search(text) else text


def _escape(match: re.Match[str]) -> str:
    return "\\ufffd" if match.group(3) else match.group(0)


def encodable_arguments(arguments: str) -> str:
    """Tool arguments (JSON text) whose raw and escaped lone surrogates are U+FFFD."""
    text = encodable(arguments)
    return _compiled(_ESCAPES).sub(_escape, text) if "\\u" in text else text


def is_punctuation(text: str) -> bool:
    """Text made only of JSON punctuation and whitespace (the empty text included)."""
    return all(char in _PUNCTUATION for char in text)


def fresh_id() -> str:
    """``call_`` and 16 random hex digits (``secrets``: ``uuid``'s import is ~0.5 ms of the
    launch, and nothing here needs a UUID's form)."""
    return f"call_{secrets.token_hex(8)}"


C = TypeVar("C", bound="Call")


def assign_ids(
    calls: Sequence[C],
    earlier: Iterable[Call],
    still_open: Callable[[str], bool],
    renamed: Callable[[C, str], C],
) -> list[C]:
    """The reply's calls with ids made unique but for true retries (module docstring).

    ``earlier`` are the calls already in the context; ``renamed(call, id)`` returns the call
    with a new id."""
    previous: dict[str, Call] = {}
    for call in earlier:
        previous[call.id] = call
    used = set(previous)
    out: list[C] = []
    for call in calls:
        keep = bool(call.id) and call.id not in used
        if call.id and call.id in previous and call.id not in {c.id for c in out}:
            before = previous[call.id]
            keep = (before.name, before.arguments) == (call.name, call.arguments) and still_open(
                call.id
            )
        new = call if keep else renamed(call, fresh_id())
        used.add(new.id)
        out.append(new)
    return out
