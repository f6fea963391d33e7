"""``asks sessions rm ID…`` and ``asks sessions --prune AGE``: remove sessions, one line each.

Policy is asks/store/prune.py; this prints what became of every session asked about: removed,
kept because it is open in a running asks, kept because it has pending questions or
undelivered answers (and that ``--force`` removes it), or kept because it cannot be read.
Exit status 0 when every session asked about was removed (or ``--prune`` found none),
1 when any was kept or not found, 2 for a bad ``rm`` or age.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from asks.cli.journal import UsageError, storage_problem
from asks.core.i18n import _
from asks.store.files import InvalidSessionId, SessionNotFound
from asks.store.prune import Outcome, Verdict, parse_age, prune_sessions, remove_session


def remove_command(words: list[str], prune: str | None, data_dir: Path, *, force: bool) -> int:
    """Run ``rm ID…`` (``words``) or ``--prune AGE`` (module docstring)."""
    if prune is not None:
        if words:
            raise UsageError(_("use either 'asks sessions rm ID' or '--prune AGE'"))
        try:
            age = parse_age(prune)
        except ValueError as exc:
            raise UsageError(
                _("--prune {age}: use a number and s, m, h, d or w (30d)").format(age=repr(prune))
            ) from exc
        try:
            outcomes = prune_sessions(age, time.time(), data_dir=data_dir, force=force)
        except OSError as exc:
            what = _("prune the sessions in {dir}").format(dir=data_dir)
            raise storage_problem(what, exc) from exc
        if not outcomes:
            print(_("No sessions older than {age} in {dir}.").format(age=prune, dir=data_dir))
        return _report(outcomes)
    if words[:1] != ["rm"] or len(words) < 2:
        raise UsageError(_("use 'asks sessions rm ID…' or 'asks sessions --prune AGE'"))
    return _remove_each(words[1:], data_dir, force=force)


def _remove_each(ids: list[str], data_dir: Path, *, force: bool) -> int:
    status = 0
    for session_id in ids:
        try:
            outcome = remove_session(session_id, data_dir=data_dir, force=force)
        except (SessionNotFound, InvalidSessionId):
            print(
                _("asks: no session {id} in {dir} (list them: asks sessions)").format(
                    id=repr(session_id), dir=data_dir
                ),
                file=sys.stderr,
            )
            status = 1
            continue
        status = max(status, _report([outcome]))
    return status


def _report(outcomes: list[Outcome]) -> int:
    """Print one line per outcome (kept ones on stderr); 1 if any was kept."""
    status = 0
    for outcome in outcomes:
        line = _line(outcome)
        if outcome.verdict is Verdict.REMOVED:
            print(line)
        else:
            print(f"asks: {line}", file=sys.stderr)
            status = 1
    return status


def _line(outcome: Outcome) -> str:
    """What became of one session, for a person."""
    sid = repr(outcome.session_id)
    if outcome.verdict is Verdict.LOCKED:
        return _("kept {id}: it is open in a running asks").format(id=sid)
    if outcome.verdict is Verdict.UNREADABLE:
        return _("kept {id}: cannot read it ({reason})").format(id=sid, reason=outcome.reason)
    counts = _("{pending} pending, {unsent} undelivered").format(
        pending=outcome.pending, unsent=outcome.undelivered
    )
    if outcome.verdict is Verdict.UNFINISHED:
        return _("kept {id}: {counts} (--force removes it)").format(id=sid, counts=counts)
    if outcome.pending or outcome.undelivered:
        return _("removed {id} ({counts})").format(id=sid, counts=counts)
    return _("removed {id}").format(id=sid)
