"""Chat commands inside answers (such an Enter is armed): what counts as a line meant for the chat.

A **chat command line** is a line that, stripped of surrounding white space, is exactly a
slash command as a chat REPL reads it: ``/word`` or ``/word arguments``, where ``word`` starts
with an ASCII letter and continues with letters, digits, ``_`` or ``-``. So ``/quit``,
``/asks q-1``, ``/help`` are chat commands; ``/tmp/x`` (a path), ``/`` alone, ``//x``,
``/2`` and ``see /help`` (text around it) are not.

The host refuses to send an answer whose custom text or notes hold such a line until the
person confirms it (the same key again): typed into an answer, a chat command is evidence that
the person thought the keyboard was in the chat.

Pure functions, no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable


@functools.cache
def _command() -> re.Pattern[str]:
    """A slash command line; compiled on first use (not at launch)."""
    return re.compile(r"/[A-Za-z][\w-]*(?:\s.*)?", re.ASCII | re.DOTALL)


def is_chat_command(line: str) -> bool:
    """Is ``line`` (one line, surrounding white space ignored) exactly a chat command?"""
    return _command().fullmatch(line.strip()) is not None


def chat_command_line(*texts: str | None) -> str | None:
    """The first line of ``texts`` that is a chat command (stripped), or ``None``."""
    for line in _lines(texts):
        if is_chat_command(line):
            return line.strip()
    return None


def _lines(texts: Iterable[str | None]) -> Iterable[str]:
    for text in texts:
        if text:
            yield from text.splitlines()
