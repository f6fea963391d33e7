"""Keys typed while the program starts, before the first frame, are not lost.

urwid's raw screen puts the terminal in cbreak mode with ``TCSAFLUSH``, which discards what
the person already typed (the tty driver holds it until Enter). :meth:`TypeAhead.capture`
runs just before the screen starts: it reads those bytes (briefly non-canonical, then the
original mode is restored), and :meth:`TypeAhead.deliver` feeds them, decoded by urwid's own
key parser, to the main loop right after the screen started and before the loop reads any
later key — so they arrive first and in order. (A key typed in the microseconds between the
capture and urwid's own terminal set-up can still be flushed by urwid: a known gap.)
"""

from __future__ import annotations

import os
import termios

import urwid
from urwid.display import escape


class TypeAhead:
    """Bytes read from the terminal before the screen started, waiting for the first frame."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending: bytes = b""

    def capture(self, screen: urwid.BaseScreen) -> None:
        """Read typeahead from the screen's input if it is a terminal (else nothing)."""
        fd = _input_fd(screen)
        if fd is None or not os.isatty(fd):
            return
        original = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO)
        mode[6][termios.VMIN] = 0
        mode[6][termios.VTIME] = 0
        try:
            termios.tcsetattr(fd, termios.TCSANOW, mode)
            chunks = []
            while chunk := os.read(fd, 4096):
                chunks.append(chunk)
            self._pending = b"".join(chunks)
        finally:
            termios.tcsetattr(fd, termios.TCSANOW, original)

    def deliver(self, loop: urwid.MainLoop) -> None:
        """Hand the captured keys to ``loop`` now (once): call it after ``loop.start()`` and
        before the loop runs, so no later key overtakes them."""
        if not self._pending:
            return
        codes, self._pending = list(self._pending), b""
        typed: list[str] = []
        while codes:  # the parser decodes one key (or sequence) per call
            keys, rest = escape.process_keyqueue(codes, more_available=False)
            typed += [k for k in keys if isinstance(k, str)]
            if len(rest) >= len(codes):
                break
            codes = rest
        if typed:
            loop.process_input(typed)


def _input_fd(screen: urwid.BaseScreen) -> int | None:
    fileno = getattr(screen, "_term_input_file", None)
    try:
        return None if fileno is None else int(fileno.fileno())
    except (AttributeError, ValueError, OSError):
        return None
