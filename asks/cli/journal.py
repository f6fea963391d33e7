"""Which journal a command opens, and the one-line errors of the command line (part of
:mod:`asks.cli`).

* :func:`open_journal`: a new session's journal, started in its mode, or the resumed one
  (``--resume ID``; ``--continue``: the newest session of its kind, :func:`resume_id`) with its
  records. A hub session (``asks hub``) resumes only as one, any other only not as one: the
  other way is a :class:`UsageError` saying which command resumes it, before anything is
  written (the command that does, as typed with the flags that matter: :func:`resume_hint`).
  A session another program wrote by embedding asks (mode ``embedded``) is never
  resumed (its agent is that program's; the tour would take over its conversation), and
  ``--continue`` passes over it. :func:`check_resumable` makes the same refusals from the
  session's first line alone, before anything is opened or bound (the hub's port).
* :class:`UsageError`: a problem with what the person asked for (one line, exit 2);
  :class:`StartupError`: the data dir cannot be used (one line naming what failed and where,
  the OS reason, never ``[Errno N]``; exit 1).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from asks.core.i18n import _
from asks.store.entries import Entry, SessionMode, session_mode
from asks.store.files import SessionInfo, session_path, validate_session_id
from asks.store.journal import (
    Journal,
    SessionLocked,
    SessionNotFound,
    StorageError,
    list_sessions,
    started_mode,
)
from asks.store.records import Records

if TYPE_CHECKING:
    import argparse


class UsageError(Exception):
    """A problem with what the person asked for; printed as one line."""


class StartupError(Exception):
    """The data dir cannot be used at start (one line: what failed and where; exit 1)."""


def storage_problem(what: str, exc: OSError | StorageError) -> StartupError:
    """``cannot WHAT: No space left on device (PATH)``: the OS reason, never ``[Errno N]``."""
    cause = exc.__cause__ if isinstance(exc, StorageError) else exc
    if not isinstance(cause, OSError) or not cause.strerror:
        return StartupError(_("cannot {what}: {reason}").format(what=what, reason=exc))
    where = f" ({cause.filename})" if cause.filename and str(cause.filename) not in what else ""
    reason = f"{cause.strerror}{where}"
    return StartupError(_("cannot {what}: {reason}").format(what=what, reason=reason))


def open_journal(
    args: argparse.Namespace, data_dir: Path, mode: SessionMode, then: Sequence[Entry] = ()
) -> tuple[Journal, Records, bool]:
    """A new session's journal (started in ``mode``, ``then`` saved with its first line: the
    records returned), or the resumed one with its records; True when resumed. A hub session
    resumes only as one (``asks hub``), any other only not."""
    session_id = resume_id(args, data_dir)
    try:
        if session_id is None:
            journal = Journal.create(data_dir=data_dir, mode=mode, then=then)
            return journal, Records(journal.first_records), False
        journal, records = Journal.open(session_id, data_dir=data_dir)
    except (SessionNotFound, SessionLocked):
        raise
    except (OSError, StorageError) as exc:
        what = (
            _("start a new session in {dir}")
            if session_id is None
            else _("open session {id} in {dir}")
        ).format(id=repr(session_id), dir=data_dir)
        raise storage_problem(what, exc) from exc
    refusal = resume_refusal(args, session_id, session_mode(records), mode)
    if refusal is not None:
        journal.close()
        raise refusal
    return journal, records, True  # not copied: built on access (asks/store/records.py)


def check_resumable(args: argparse.Namespace, data_dir: Path, mode: SessionMode) -> None:
    """Raise what resuming the session ``args`` name as ``mode`` would raise (no session to
    continue, an invalid id, no such session, one written by an embedder, a hub session resumed
    as another or the other way), reading only its first line; nothing is opened, locked,
    written or bound. A new session passes."""
    session_id = resume_id(args, data_dir)
    if session_id is None:
        return
    validate_session_id(session_id)
    path = session_path(data_dir, session_id)
    try:
        found = path.stat()
    except FileNotFoundError as exc:
        raise SessionNotFound(
            exc.errno, f"no session {session_id!r} in {data_dir}", str(path)
        ) from exc
    except OSError:
        return  # the open says what is wrong with it, in its words
    info = SessionInfo(session_id, path, found.st_mtime, found.st_size)
    refusal = resume_refusal(args, session_id, started_mode(info), mode)
    if refusal is not None:
        raise refusal


def resume_refusal(
    args: argparse.Namespace, session_id: str, started: SessionMode, mode: SessionMode
) -> UsageError | None:
    """Why a session started as ``started`` is not resumed as ``mode`` (``None``: it is): an
    embedder's session never is, a hub session only as one, any other only not as one (saying
    the command that resumes it, with the flags of ``args`` it needs)."""
    if started is SessionMode.EMBEDDED:
        return UsageError(
            _(
                "session {id} was written by another program that embeds asks: "
                "continue it in that program"
            ).format(id=session_id)
        )
    if (hub := started is SessionMode.HUB) != (mode is SessionMode.HUB):
        return UsageError(
            (
                _("session {id} is a hub session: resume it with {command}")
                if hub
                else _("session {id} is not a hub session: resume it with {command}")
            ).format(id=session_id, command=resume_hint(args, session_id, hub=hub))
        )
    return None


def resume_hint(args: argparse.Namespace, session_id: str, *, hub: bool) -> str:
    """The command that resumes ``session_id`` — as a hub session (``asks hub``) or not —
    typed as the person typed the program, shell-quoted, with the flags of ``args`` that it
    needs: where the session is (``--data-dir``, ``--config``, absolute) and, for a hub,
    where it listens (``--mcp-host``, ``--mcp-port``: its clients are set up for them)."""
    # the agent's model choice (imported here: asks hub never loads it before it ends)
    from asks.agent.choice import program_words, resume_command  # noqa: PLC0415

    program = program_words(sys.argv[0], sys.executable)  # as typed: `asks` may not be on PATH
    if hub:
        program.append("hub")
        if args.mcp_host:
            program += ["--mcp-host", args.mcp_host]
        if args.mcp_port is not None:
            program += ["--mcp-port", str(args.mcp_port)]
    return resume_command(session_id, args.data_dir, args.config, program)


def resume_id(args: argparse.Namespace, data_dir: Path) -> str | None:
    if args.resume:
        return str(args.resume)
    if args.cont:  # the newest of its kind: hub sessions for asks hub, asks' others otherwise
        hub = args.command == "hub"
        for info in list_sessions(data_dir):
            started = started_mode(info)
            if started is not SessionMode.EMBEDDED and (started is SessionMode.HUB) == hub:
                return info.session_id
        raise UsageError(
            (
                _("no hub session to continue in {dir}")
                if hub
                else _("no session to continue in {dir}")
            ).format(dir=data_dir)
        )
    return None
