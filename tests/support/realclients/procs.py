"""Processes the harness started, ended by id with their whole tree (never by name).

A process is identified by its pid *and* its start time (``/proc/PID/stat`` field 22), so a
reused pid is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

import attrs

GRACE = 2.0  # seconds between SIGTERM and SIGKILL


@attrs.frozen
class Proc:
    """One process as it was when found: pid and start time."""

    pid: int
    started: str | None

    @classmethod
    def of(cls, pid: int) -> Proc:
        return cls(pid, start_time(pid))

    def alive(self) -> bool:
        """Still the same process (same pid, same start time), not a zombie."""
        return self.started is not None and start_time(self.pid) == self.started


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot; None when gone or a zombie."""
    fields = _stat_fields(pid)
    if fields is None or fields[0] == "Z":
        return None
    return fields[19]


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None:
                kids.setdefault(int(fields[1]), []).append(int(entry))
    return kids


def tree(root: Proc) -> list[Proc]:
    """``root`` and its descendants now (empty when ``root`` has ended)."""
    if not root.alive():
        return []
    kids = _children()
    found, todo = [], [root.pid]
    while todo:
        pid = todo.pop()
        found.append(Proc.of(pid) if pid != root.pid else root)
        todo.extend(kids.get(pid, []))
    return found


def running_from(folder: Path) -> list[Proc]:
    """Processes whose program lives under ``folder`` (Codex may start a detached daemon from
    its private home)."""
    prefix = str(folder.resolve()) + os.sep
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            program = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0].decode()
        except (OSError, UnicodeDecodeError):
            continue
        if program.startswith(prefix):
            found.append(Proc.of(int(entry)))
    return found


def end(procs: Iterable[Proc]) -> None:
    """SIGTERM every process still alive, SIGKILL whatever outlives :data:`GRACE`."""
    victims = [proc for proc in procs if proc.alive()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for proc in victims:
            if proc.alive():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, sig)
        deadline = time.monotonic() + GRACE
        while any(proc.alive() for proc in victims) and time.monotonic() < deadline:
            time.sleep(0.05)


def end_tree(root: Proc) -> None:
    """End ``root`` and all its descendants."""
    end(tree(root))
