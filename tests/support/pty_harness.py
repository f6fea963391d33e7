"""Run the real ``asks`` command under a pseudo-terminal and read its screen through pyte.

This is how a person uses the app: a real pty of a chosen size, real key bytes, and the screen
as a terminal would show it. A reader thread feeds everything the app writes into a
``pyte.Screen``; tests wait for text to appear (with a timeout) rather than sleeping.

Whole frames only: like a modern terminal, the harness answers the app's query for
synchronized output (DECRQM mode 2026: "supported, off"), so urwid wraps each frame in
``CSI ? 2026 h`` … ``CSI ? 2026 l``; the reader feeds a frame to the screen only once its end
has arrived. A frame larger than one pty read (about 4 KiB) is never seen half drawn: before
this, a test could read the screen between two reads of one frame (the panel gone, the chat
editor not yet redrawn below it) and fail on a screen no person ever saw.

The terminal's settings (termios) as the app found them are read in the child just before it
execs the app (:attr:`PtyApp.termios_at_start`); :meth:`PtyApp.termios_now` reads them again
(through the master side, which on Linux reports the terminal's own), e.g. after it exited.
"""

from __future__ import annotations

import ast
import os
import re
import sys
import termios
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import ptyprocess
import pyte
from pyte.screens import Char

from asks.core.focus import TYPING_GUARD
from support.paths import ROOT

ESC_GAP = 0.3  # seconds after a lone Esc (see PtyApp.press)
SYNC_QUERY = b"\x1b[?2026$p"  # DECRQM: does the terminal do synchronized output?
SYNC_REPLY = b"\x1b[?2026;2$y"  # DECRPM: it does (mode reset until the app sets it)
FRAME_BEGIN = b"\x1b[?2026h"
FRAME_END = b"\x1b[?2026l"
DEFAULT_TIMEOUT = 15.0

KEYS = {
    "enter": "\r",
    "tab": "\t",
    "shift tab": "\x1b[Z",
    "esc": "\x1b",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "page up": "\x1b[5~",
    "page down": "\x1b[6~",
    "backspace": "\x7f",
    "ctrl c": "\x03",
    "ctrl u": "\x15",
    "ctrl g": "\x07",
    "ctrl ]": "\x1d",
    "meta enter": "\x1b\r",
    "meta d": "\x1bd",
    "meta l": "\x1bl",
    "meta n": "\x1bn",
    " ": " ",
}


def key_bytes(key: str) -> bytes:
    """The bytes a terminal sends for ``key``: a name from :data:`KEYS` or one character."""
    if key in KEYS:
        return KEYS[key].encode()
    if len(key) == 1:
        return key.encode()
    raise KeyError(f"unknown key name {key!r}; add it to KEYS")


def whole_frames(data: bytes) -> tuple[bytes, bytes]:
    """``data`` split into what can be shown now and what waits for the rest of its frame: a
    frame begun (:data:`FRAME_BEGIN`, or a piece of it at the very end) and not ended."""
    begin = data.rfind(FRAME_BEGIN)
    if begin != -1 and data.find(FRAME_END, begin) == -1:
        return data[:begin], data[begin:]
    for size in range(len(FRAME_BEGIN) - 1, 0, -1):
        if data.endswith(FRAME_BEGIN[:size]):
            return data[:-size], data[-size:]
    return data, b""


class ScreenTimeoutError(AssertionError):
    """The expected text did not appear; the message holds the screen as it was."""


_LOCALE_VARIABLES = frozenset({"LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"})


class PtyApp:
    """One running ``asks`` process on a pty of ``cols`` × ``rows``."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        cols: int = 100,
        rows: int = 30,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        program: Sequence[str] = ("-m", "asks"),
        python: str = sys.executable,
        source: Path | None = ROOT,
    ) -> None:
        """``python`` runs ``program``, importing ``asks`` from the source tree ``source`` (put
        first on ``PYTHONPATH``); ``source=None``: only what ``python`` has installed (any
        inherited ``PYTHONPATH`` dropped)."""
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        # the app's typing guard ([ui] typing_guard): what the typist's pauses and bursts use
        self.typing_guard = TYPING_GUARD
        self.raw = bytearray()
        self._lock = threading.Lock()
        # The person's language comes from the test (env), never from the machine running it.
        inherited = {k: v for k, v in os.environ.items() if k not in _LOCALE_VARIABLES}
        full_env = {
            **inherited,
            "LANG": "C.UTF-8",
            "TERM": "xterm-256color",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        if source is None:
            full_env.pop("PYTHONPATH", None)
        else:
            full_env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(source), full_env.get("PYTHONPATH", "")) if p
            )
        read_end, write_end = os.pipe()

        def snapshot() -> None:  # in the child, just before the exec: the terminal as found
            os.write(write_end, repr(termios.tcgetattr(0)).encode())
            os.close(write_end)

        try:
            self.proc = ptyprocess.PtyProcess.spawn(
                [python, *program, *args],
                dimensions=(rows, cols),
                env=full_env,
                cwd=str(cwd or ROOT),
                preexec_fn=snapshot,
                pass_fds=(write_end,),
            )
        finally:
            os.close(write_end)
        with os.fdopen(read_end, "rb") as snapshots:
            self.termios_at_start: list[object] = ast.literal_eval(snapshots.read().decode())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        held = b""  # the start of a frame whose end has not arrived yet
        while True:
            try:
                data = self.proc.read(65536)
            except EOFError:
                with self._lock:
                    self.stream.feed(held)
                return
            seen = len(self.raw)
            with self._lock:
                self.raw += data
            if SYNC_QUERY in self.raw[max(0, seen - len(SYNC_QUERY)) :]:
                self.proc.write(SYNC_REPLY)
            ready, held = whole_frames(held + data)
            with self._lock:
                self.stream.feed(ready)

    # -- reading ---------------------------------------------------------------------------
    def text(self) -> str:
        """The screen, one line per row, trailing blanks cut. A no-break space reads as a
        space (the app uses them to keep key hints in one piece)."""
        with self._lock:
            return "\n".join(line.rstrip().replace("\xa0", " ") for line in self.screen.display)

    def text_now(self) -> str | None:
        """:meth:`text` if the screen can be read without waiting for the reader thread (which
        holds it while it feeds a frame), else None: for a typist that must keep its pace."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return "\n".join(line.rstrip().replace("\xa0", " ") for line in self.screen.display)
        finally:
            self._lock.release()

    def wait_for(self, pattern: str, timeout: float = DEFAULT_TIMEOUT) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) matches the screen; return the match."""
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.text())
            if found:
                return found
            if not self.proc.isalive():
                self._reader.join(timeout=2)
                found = regex.search(self.text())
                if found:
                    return found
                message = f"the app exited; {pattern!r} not on screen:\n{self.text()}"
                raise ScreenTimeoutError(message)
            if time.monotonic() > deadline:
                raise ScreenTimeoutError(f"{pattern!r} not on screen:\n{self.text()}")
            time.sleep(0.02)

    def wait_gone(self, pattern: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        while regex.search(self.text()):
            if time.monotonic() > deadline:
                raise ScreenTimeoutError(f"{pattern!r} still on screen:\n{self.text()}")
            time.sleep(0.02)

    def cells(self, row: int) -> list[Char]:
        """The character cells of screen row ``row`` (with their attributes)."""
        with self._lock:
            line = self.screen.buffer[row]
            return [line[x] for x in range(self.screen.columns)]

    def cursor_line(self) -> str:
        with self._lock:
            return self.screen.display[self.screen.cursor.y]

    def raw_bytes(self) -> bytes:
        """Everything the app wrote to the terminal so far."""
        with self._lock:
            return bytes(self.raw)

    def title(self) -> str:
        """The window title as the terminal would have set it (OSC 0/2)."""
        with self._lock:
            return str(self.screen.title)

    def resize(self, cols: int, rows: int) -> None:
        """Resize the terminal, as a person dragging the window does (the app gets SIGWINCH)."""
        with self._lock:
            self.screen.resize(rows, cols)
            self.proc.setwinsize(rows, cols)

    def termios_now(self) -> list[object]:
        """The terminal's settings now, as ``termios.tcgetattr`` lists them (all fields)."""
        return termios.tcgetattr(self.proc.fd)

    # -- typing ----------------------------------------------------------------------------
    def type(self, text: str) -> None:
        self.proc.write(text.encode())

    def type_chunks(self, text: str, size: int = 4, pause: float = 0.03) -> None:
        """Type ``text`` a few characters at a time, like a person typing fast."""
        for start in range(0, len(text), size):
            self.type(text[start : start + size])
            time.sleep(pause)

    def press(self, *keys: str, pause: float = 0.05) -> None:
        """Send keys by name. A lone Esc is followed by a longer gap: urwid waits
        ``complete_wait`` (0.125 s) before deciding Esc is not the start of a sequence, and a
        key arriving inside that window would be read as Alt+key."""
        for key in keys:
            self.proc.write(key_bytes(key))
            time.sleep(max(pause, ESC_GAP) if key == "esc" else pause)

    # -- ending ----------------------------------------------------------------------------
    def kill(self, sig: int) -> None:
        self.proc.kill(sig)
        self.proc.wait()

    def close(self) -> int | None:
        """Stop the app if it still runs and release the pty (safe to call twice)."""
        if self.proc.isalive():
            self.proc.terminate(force=True)
        self._reader.join(timeout=2)
        status = self.proc.exitstatus
        if not self.proc.closed:
            self.proc.close(force=True)
        return status

    def wait_exit(self, timeout: float = DEFAULT_TIMEOUT) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.isalive():
            if time.monotonic() > deadline:
                raise ScreenTimeoutError(f"the app did not exit:\n{self.text()}")
            time.sleep(0.02)
        self._reader.join(timeout=2)
        status = self.proc.exitstatus
        return -1 if status is None else status
