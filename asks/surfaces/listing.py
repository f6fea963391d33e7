"""``asks sessions``: the sessions of a data dir as a table, newest first.

One row per session journal (:func:`asks.store.journal.list_sessions` order: last written
first), under a header::

    SESSION                 STARTED           LAST USED         MODE  QUESTIONS  FIRST MESSAGE
    20261201-093804-a1b2c3  2026-12-01 09:38  2026-12-01 10:02  repl  1 pending  Deploy the …

* **STARTED** is the ``session_started`` time, **LAST USED** the file's modification time, both
  local time to the minute.
* **MODE** is how the session was started: ``repl`` (interactive), ``-p`` (one turn without
  UI), ``hub`` (``asks hub``: no agent of its own), ``embedded`` (written by another program
  that embeds asks, into this folder; ``asks --resume`` refuses it), ``?`` (a journal from
  before the mode was recorded).
* **QUESTIONS**: how many are pending, and how many saved answers have not reached the agent
  yet (``unsent``; they are delivered once at the next resume).
* **FIRST MESSAGE** is the first line of the person's first message, sanitised (journal text
  is data) and cut to :data:`MAX_FIRST_LINE` characters.

Reading a session never writes it (no lock, no repair). A journal that cannot be read is
still listed, with the reason in place of its first message.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import attrs

from asks.sanitize import sanitize_line
from asks.store.entries import ChatMessage, SessionMode, SessionStarted
from asks.store.journal import SessionInfo, list_sessions, os_reason, read_records
from asks.store.projection import Projection

MAX_FIRST_LINE: Final = 60
HEADER: Final = ("SESSION", "STARTED", "LAST USED", "MODE", "QUESTIONS", "FIRST MESSAGE")
MODE_LABELS: Final = {
    SessionMode.INTERACTIVE: "repl",
    SessionMode.PRINT: "-p",
    SessionMode.HUB: "hub",
    SessionMode.EMBEDDED: "embedded",
    SessionMode.UNKNOWN: "?",
}


@attrs.frozen
class SessionRow:
    """What the listing shows of one session."""

    session_id: str
    started: float | None
    last_used: float
    mode: SessionMode
    pending: int
    unsent: int
    first_line: str


def session_rows(data_dir: Path) -> list[SessionRow]:
    """One row per session in ``data_dir``, newest first (raises ``OSError`` if the directory
    itself cannot be read)."""
    return [_row(data_dir, info) for info in list_sessions(data_dir)]


def _row(data_dir: Path, info: SessionInfo) -> SessionRow:
    try:
        records = read_records(info.session_id, data_dir=data_dir)
    except OSError as exc:
        return SessionRow(
            info.session_id,
            None,
            info.modified,
            SessionMode.UNKNOWN,
            0,
            0,
            f"(cannot read it: {os_reason(exc)})",
        )
    projection = Projection()
    projection.apply_all(records)
    first = records[0].entry if records else None
    started = first if isinstance(first, SessionStarted) else None
    return SessionRow(
        info.session_id,
        started.created_at if started else None,
        info.modified,
        started.mode if started else SessionMode.UNKNOWN,
        len(projection.pending),
        len(projection.undelivered),
        _first_user_line(projection),
    )


def _first_user_line(projection: Projection) -> str:
    for record in projection.conversation:
        entry = record.entry
        if isinstance(entry, ChatMessage) and entry.role == "user" and entry.content.strip():
            line = sanitize_line(entry.content.strip().splitlines()[0]).strip()
            return line if len(line) <= MAX_FIRST_LINE else line[: MAX_FIRST_LINE - 1] + "…"
    return ""


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _questions(row: SessionRow) -> str:
    text = f"{row.pending} pending"
    return f"{text}, {row.unsent} unsent" if row.unsent else text


def table(rows: Sequence[SessionRow]) -> list[str]:
    """The header and one line per row, columns padded to their widest cell."""
    cells = [HEADER] + [
        (
            r.session_id,
            _when(r.started),
            _when(r.last_used),
            MODE_LABELS[r.mode],
            _questions(r),
            r.first_line,
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADER) - 1)]
    return [
        "  ".join(
            [*(cell.ljust(w) for cell, w in zip(line, widths, strict=False)), line[-1]]
        ).rstrip()
        for line in cells
    ]
