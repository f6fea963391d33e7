"""Removing sessions: ``asks sessions rm ID``, ``asks sessions --prune AGE`` and the same for
embedders (:func:`remove_session`, :func:`prune_sessions`).

A session is every file named after it in the data dir (:data:`SESSION_SUFFIXES`, documented
in docs/panel-space-and-sessions.md): the journal ``<id>.jsonl``, its resume
checkpoint ``<id>.jsonl.checkpoint``, the drafts file ``<id>.drafts.json``, the ``.tmp`` each
of those two leaves if a process dies while replacing it, and the replay index and stamp
(``.jsonl.idx``, ``.jsonl.stamp``, and their ``.tmp``) that earlier versions wrote. Removing a
session removes all of them, the journal last (a crash part-way leaves a session that opens).

Rules, in order:

* a session another process holds (its writer's ``flock``: a running asks or embedder) is never
  removed: :attr:`Verdict.LOCKED`, whatever ``force`` says;
* a session whose journal's projection (:class:`~asks.store.projection.Projection`, the same
  answer ``asks sessions`` lists) has pending questions or saved answers not yet delivered to
  its agent is kept (:attr:`Verdict.UNFINISHED`, with the counts) unless ``force``;
* a journal that cannot be read is kept (:attr:`Verdict.UNREADABLE`): nobody can say what it
  still holds;
* otherwise its files are removed (:attr:`Verdict.REMOVED`).

The lock is taken before the journal is read and held until its files are gone, so no writer
can start in between.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
from pathlib import Path
from typing import Final

import attrs

from asks.store.files import (
    FileOps,
    SessionLocked,
    SessionNotFound,
    list_sessions,
    os_reason,
    session_path,
    validate_session_id,
)
from asks.store.journal import read_records
from asks.store.projection import Projection

__all__ = [
    "SESSION_SUFFIXES",
    "Outcome",
    "Verdict",
    "parse_age",
    "prune_sessions",
    "remove_session",
    "session_files",
]

# Every file a session writes, by suffix after its id; the journal last (removed last).
SESSION_SUFFIXES: Final = (
    ".drafts.json.tmp",
    ".drafts.json",
    ".jsonl.checkpoint.tmp",
    ".jsonl.checkpoint",
    ".jsonl.stamp.tmp",  # the stamp and the index: written by earlier versions
    ".jsonl.stamp",
    ".jsonl.idx.tmp",
    ".jsonl.idx",
    ".jsonl",
)
_AGE_RE: Final = re.compile(r"(\d+)([smhdw])")
_UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class Verdict(enum.StrEnum):
    """What became of one session asked to be removed."""

    REMOVED = "removed"
    LOCKED = "locked"  # open in another process: never removed
    UNFINISHED = "unfinished"  # pending questions or undelivered answers: kept unless forced
    UNREADABLE = "unreadable"  # the journal cannot be read: kept


@attrs.frozen
class Outcome:
    """One session's verdict; ``pending``/``undelivered`` are the projection's counts (also
    for a forced removal), ``reason`` the OS reason when unreadable."""

    session_id: str
    verdict: Verdict
    pending: int = 0
    undelivered: int = 0
    reason: str = ""


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``45s``, ``2w`` as seconds; :class:`ValueError` otherwise."""
    match = _AGE_RE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"invalid age {text!r}: use a number and s, m, h, d or w (30d)")
    return float(int(match[1]) * _UNITS[match[2]])


def session_files(data_dir: Path, session_id: str) -> list[Path]:
    """The files of session ``session_id`` that exist, the journal last."""
    validate_session_id(session_id)
    paths = (data_dir / f"{session_id}{suffix}" for suffix in SESSION_SUFFIXES)
    return [path for path in paths if path.exists()]


def remove_session(
    session_id: str, *, data_dir: Path, force: bool = False, file_ops: FileOps | None = None
) -> Outcome:
    """Remove session ``session_id``'s files by the module's rules; :class:`SessionNotFound`
    when it has no journal."""
    validate_session_id(session_id)
    ops = FileOps() if file_ops is None else file_ops
    path = session_path(data_dir, session_id)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError as exc:
        raise SessionNotFound(2, f"no session {session_id!r} in {data_dir}", str(path)) from exc
    try:
        try:
            ops.lock(fd, path)
        except SessionLocked:
            return Outcome(session_id, Verdict.LOCKED)
        return _remove_locked(session_id, data_dir, force, ops)
    finally:
        os.close(fd)


def _remove_locked(session_id: str, data_dir: Path, force: bool, ops: FileOps) -> Outcome:
    """With the writer's lock held: check the projection, then unlink the files."""
    try:
        records = read_records(session_id, data_dir=data_dir, file_ops=ops)
    except OSError as exc:
        return Outcome(session_id, Verdict.UNREADABLE, reason=os_reason(exc))
    projection = Projection()
    projection.apply_all(records)
    pending, undelivered = len(projection.pending), len(projection.undelivered)
    if (pending or undelivered) and not force:
        return Outcome(session_id, Verdict.UNFINISHED, pending, undelivered)
    for file in session_files(data_dir, session_id):
        with contextlib.suppress(FileNotFoundError):
            ops.unlink(file)
    return Outcome(session_id, Verdict.REMOVED, pending, undelivered)


def prune_sessions(
    older_than: float, now: float, *, data_dir: Path, force: bool = False
) -> list[Outcome]:
    """:func:`remove_session` for every session last written more than ``older_than`` seconds
    before ``now`` (the journal's modification time), newest first."""
    outcomes = []
    for info in list_sessions(data_dir):
        if now - info.modified <= older_than:
            continue
        try:
            outcomes.append(remove_session(info.session_id, data_dir=data_dir, force=force))
        except SessionNotFound:  # removed meanwhile
            continue
    return outcomes
