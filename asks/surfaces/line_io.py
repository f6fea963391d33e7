"""Line mode's I/O: reading stdin line by line under trio, writing plain lines, and printing
the transcript as it grows.

* :class:`LineReader` reads the input file descriptor in one worker thread (``os.read``, no
  Python-level buffer lock, so an abandoned read can never hang interpreter shutdown) and
  queues complete lines (UTF-8, invalid bytes replaced, ``\\r\\n`` or ``\\n`` cut). End of input
  (or an unreadable terminal) is ``None`` from :meth:`LineReader.next_line`, for ever after.
  A line is only *interpreted* when the caller takes it, so reading ahead of a pipe changes
  nothing: ``printf 'hello\\n1\\n'`` gives "hello" to the chat and "1" to whatever asks next.
* :class:`Output` writes lines and prompts. Prompts are only written when a person types
  (``interactive``: stdin is a terminal); otherwise each line read is echoed after its
  prompt (``answer> 2``), so a piped session's output reads like a transcript. While a prompt
  is on screen, printed lines start on a new line and the prompt is written again after them.
  Nothing but the given text is written: no escape sequences, ever (the BEL of a blocking
  question only when stdout is a terminal).
* :class:`TranscriptPrinter` prints transcript entries once each, in order, sanitised: model
  text as it streams, one complete line at a time (the rest when the entry is done); a tool
  line when it starts (``…``) and again with its result. Live ``you>`` entries and question
  cards are left out (the prompt echo and the question printer show them).
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import TextIO

import attrs
import trio

from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.sanitize import sanitize_text
from asks.surfaces.line_prompts import INDENT, entry_lines, entry_prefix

READ_CHUNK = 65536
BELL = "\a"


@attrs.define(eq=False)
class LineReader:
    """Lines of one input file descriptor (see module docstring)."""

    fd: int
    _send: trio.MemorySendChannel[str] = attrs.field(init=False)
    _receive: trio.MemoryReceiveChannel[str] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[str](math.inf)

    async def run(self) -> None:
        """Read until end of input; run it in the surface's nursery."""
        pending = b""
        async with self._send:
            while True:
                try:
                    chunk = await trio.to_thread.run_sync(
                        os.read, self.fd, READ_CHUNK, abandon_on_cancel=True
                    )
                except OSError:  # e.g. EIO: the terminal went away
                    chunk = b""
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._send.send_nowait(_decode(line))
            if pending:
                self._send.send_nowait(_decode(pending))

    async def next_line(self) -> str | None:
        """The next line, or ``None`` at end of input (cancellation loses nothing)."""
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            return None


def _decode(line: bytes) -> str:
    return line.decode("utf-8", "replace").removesuffix("\r")


@attrs.define(eq=False)
class Output:
    """Plain lines and prompts on one text stream (see module docstring)."""

    stream: TextIO
    interactive: bool
    _shown: str | None = None  # the prompt on screen, not yet followed by a newline
    _asked: str = ""  # the last prompt, for the echo of a piped line

    def lines(self, lines: list[str]) -> None:
        if not lines:
            return
        text = "\n".join(lines) + "\n"
        if self._shown is not None:
            text = "\n" + text + self._shown
        self._write(text)

    def line(self, text: str) -> None:
        self.lines([text])

    def prompt(self, text: str) -> None:
        """Ask for a line: written now when a person types, else echoed with the line."""
        self._asked = text
        if self.interactive:
            self._shown = text
            self._write(text)

    def hide_prompt(self) -> None:
        """The prompt no longer applies (what it asked for went away)."""
        if self._shown is not None:
            self._shown = None
            self._write("\n")

    def took(self, line: str) -> None:
        """A line was read for the last prompt."""
        if self.interactive:
            self._shown = None  # the terminal echoed it, newline included
        else:
            self._write(f"{self._asked}{line}\n")

    def bell(self) -> None:
        if self.stream.isatty():
            self._write(BELL)

    def _write(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # a closed pipe must not end the session
            self.stream.write(text)
            self.stream.flush()


@attrs.define(eq=False)
class TranscriptPrinter:
    """Prints a transcript's entries as lines (see module docstring)."""

    transcript: Transcript
    out: Output
    _next: int = 0  # the first entry not looked at yet
    _live_from: int = 0  # entries before this one were there at start (a resumed history)
    _open: dict[int, int] = attrs.Factory(dict)  # streaming/running entry → sanitised chars out

    def start(self) -> None:
        """Print what the transcript already holds (a resumed session: all of its history),
        then follow it."""
        self.transcript.load_all()
        self._live_from = len(self.transcript.entries)
        for entry in self.transcript.entries:
            self.out.lines(entry_lines(entry))
        self._next = self._live_from
        self.transcript.subscribe(self.refresh)

    def refresh(self) -> None:
        entries = self.transcript.entries
        for index in sorted(self._open):
            self._follow(index, entries[index])
        for index in range(self._next, len(entries)):
            self._first(index, entries[index])
        self._next = len(entries)

    def _first(self, index: int, entry: Entry) -> None:
        if entry.kind in (EntryKind.USER, EntryKind.QUESTION):
            return  # shown by the prompt echo / the question printer
        if entry.kind is EntryKind.AGENT:
            self._open[index] = -1  # nothing printed yet, not even the prefix
            self._follow(index, entry)
        elif not entry.done:
            lines = entry_lines(entry)
            self.out.lines([*lines[:-1], lines[-1] + " …"])
            self._open[index] = 0
        else:
            self.out.lines(entry_lines(entry))

    def _follow(self, index: int, entry: Entry) -> None:
        if entry.kind is not EntryKind.AGENT:
            if entry.done:
                del self._open[index]
                self.out.lines(entry_lines(entry))
            return
        self._stream(index, entry)

    def _stream(self, index: int, entry: Entry) -> None:
        """Print the complete lines of a streaming reply not printed yet (all at the end)."""
        upto = len(entry.text) if entry.done else entry.text.rfind("\n") + 1
        clean = sanitize_text(entry.text[:upto])
        printed = self._open[index]  # sanitised characters out; -1: nothing, not even the prefix
        fresh = clean[max(printed, 0) :]
        if entry.done:
            del self._open[index]
        fresh = fresh.rstrip("\n") if entry.done else fresh.removesuffix("\n")
        if printed < 0:
            fresh = fresh.lstrip("\n")
        if not fresh:
            return
        if not entry.done:
            self._open[index] = len(clean)
        first = entry_prefix(entry) if printed < 0 else INDENT
        lines = fresh.split("\n")
        self.out.lines([first + lines[0], *(f"{INDENT}{line}".rstrip() for line in lines[1:])])
