"""Shared scaffolding for the host and delivery scenario tests.

A :class:`Rig` is one session: a real journal in a temporary directory written through
:class:`FlakyOps` (real file operations with write/truncate failures on demand), a fake clock,
and a :class:`~asks.host.host.QuestionHost` built on them. ``rig.crash_and_reopen()`` closes the
journal without finishing anything (what a killed process leaves) and replays the file into a
fresh host. The disk readers parse the raw JSON lines, independently of the journal decoder.
"""

from __future__ import annotations

import errno
import json
from collections import Counter
from pathlib import Path
from typing import Any

import attrs

from asks.core.focus import TYPING_GUARD, FocusTarget
from asks.core.model import QuestionRef
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.host.waits import Wait
from asks.store.journal import FileOps, Journal

SESSION = "test-session"
OPTIONS = ("Postgres", "SQLite", "MySQL")


class FlakyOps(FileOps):
    """Real file operations; the next ``fail_writes`` writes fail (optionally only writes whose
    line contains ``fail_when``), and ``fail_truncate`` makes the rollback fail too. Side
    files: the next ``fail_replaces`` replacements fail; ``replaced`` counts the others."""

    def __init__(self) -> None:
        self.fail_writes = 0
        self.fail_when: bytes | None = None
        self.fail_truncate = False
        self.fail_replaces = 0
        self.replaced: list[Path] = []

    def replace_file(self, path: Path, data: bytes) -> None:
        if self.fail_replaces:
            self.fail_replaces -= 1
            raise OSError(errno.ENOSPC, "No space left on device (injected)")
        super().replace_file(path, data)
        self.replaced.append(path)

    def write(self, fd: int, data: bytes) -> int:
        if self.fail_writes and (self.fail_when is None or self.fail_when in data):
            self.fail_writes -= 1
            raise OSError(errno.ENOSPC, "No space left on device (injected)")
        return super().write(fd, data)

    def truncate(self, fd: int, length: int) -> None:
        if self.fail_truncate:
            raise OSError(errno.EIO, "I/O error (injected)")
        super().truncate(fd, length)

    def fail_next_append(self, entry_type: str | None = None, *, unconfirmed: bool = False) -> None:
        """Make the next append (of ``entry_type`` only, if given) fail."""
        self.fail_writes = 1
        self.fail_when = None if entry_type is None else f'"type":"{entry_type}"'.encode()
        self.fail_truncate = unconfirmed


class CountingOps(FlakyOps):
    """FlakyOps that counts fsyncs of the journal file."""

    def __init__(self) -> None:
        super().__init__()
        self.fsyncs = 0

    def fsync(self, fd: int) -> None:
        self.fsyncs += 1
        super().fsync(fd)


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def past_guard(self) -> None:
        """Let the arrival guard of a claim made now run out."""
        self.now += TYPING_GUARD + 0.05


@attrs.define(eq=False)
class Rig:
    """One session on disk plus the host that serves it."""

    directory: Path
    clock: Clock
    ops: FlakyOps
    journal: Journal
    host: QuestionHost

    @classmethod
    def create(cls, directory: Path) -> Rig:
        clock, ops = Clock(), FlakyOps()
        journal = Journal.create(data_dir=directory, session_id=SESSION, file_ops=ops)
        return cls(directory, clock, ops, journal, QuestionHost(journal, clock=clock))

    @property
    def path(self) -> Path:
        return self.journal.path

    def crash_and_reopen(self) -> QuestionHost:
        """Drop the host mid-flight (no waits finished, no feedback taken) and resume."""
        self.journal.close()
        self.ops = FlakyOps()
        self.journal, records = Journal.open(SESSION, data_dir=self.directory, file_ops=self.ops)
        self.host = QuestionHost(self.journal, records, clock=self.clock)
        return self.host

    # -- the agent side --------------------------------------------------------------------
    def start_call(self, call_id: str, arguments: object) -> Any:
        return self.host.agent_port.start_call(call_id, arguments)

    def blocker(self, call_id: str, *questions: dict[str, Any]) -> Wait:
        started = self.host.agent_port.start_call(call_id, call(*questions))
        assert isinstance(started, Wait), started
        return started

    def async_question(self, call_id: str, text: str, **kwargs: Any) -> QuestionRef:
        """Ask one non-blocking question; return its ref."""
        self.host.agent_port.start_call(call_id, call(q(text, **kwargs), blocking=False))
        return self.ref(call_id)

    def ref(self, call_id: str, index: int = 0) -> QuestionRef:
        return self.host.surface_port.projection.calls[call_id].refs[index]

    # -- the person ------------------------------------------------------------------------
    def move_to(self, ref: QuestionRef, row: int) -> None:
        """Arrow to ``row`` on tab ``ref`` (moves neither focus nor the selected tab)."""
        for _ in range(8):
            if self.host.panel_port.draft(ref).cursor == row:
                return
            self.host.panel_port.command(PanelCommand.DOWN, ref)
        raise AssertionError(f"row {row} is not reachable on {ref}")

    def answer_option(self, ref: QuestionRef, option: int) -> None:
        """Arrow to ``option`` on tab ``ref`` and press Enter there."""
        self.move_to(ref, option)
        self.host.panel_port.command(PanelCommand.CONFIRM, ref)

    def press(self, command: PanelCommand) -> None:
        """A key read now, routed like a widget does it (through the arrival guard)."""
        route = self.host.panel_port.key_route(self.clock())
        assert route.target is self.host.panel_port.focus.panel, f"the key went to {route.target}"
        self.host.panel_port.command(command, route.tab)  # type: ignore[arg-type]

    def give_focus(self, target: FocusTarget) -> FocusTarget:
        """The embedding app mounts another editor and focuses it."""
        self.host.panel_port.mount(target)
        assert self.host.panel_port.focus_target(target) is None
        return target

    # -- the disk --------------------------------------------------------------------------
    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.path.read_bytes().splitlines()]

    def lines_of(self, entry_type: str) -> list[dict[str, Any]]:
        return [line for line in self.lines() if line["type"] == entry_type]

    def tool_results(self, call_id: str) -> list[dict[str, Any]]:
        return [line for line in self.lines_of("tool_result") if line["call_id"] == call_id]

    def receipts(self) -> Counter[QuestionRef]:
        """How often each unit is named by a receipt (tool_result / feedback_delivered)."""
        counts: Counter[QuestionRef] = Counter()
        for line in self.lines():
            if line["type"] in ("tool_result", "feedback_delivered"):
                counts.update(QuestionRef(d["id"], d["incarnation"]) for d in line["delivered"])
        return counts

    def saved_units(self) -> set[QuestionRef]:
        return {
            QuestionRef(r["ref"]["id"], r["ref"]["incarnation"])
            for line in self.lines_of("resolved")
            for r in line["resolutions"]
        }

    def assert_receipts_at_most_once(self) -> None:
        twice = {ref: n for ref, n in self.receipts().items() if n > 1}
        assert not twice, f"units delivered more than once: {twice}"


def q(
    text: str,
    header: str = "Choice",
    options: tuple[str, ...] | None = OPTIONS,
    *,
    multi: bool = False,
) -> dict[str, Any]:
    """One new-question entry of the tool arguments (``options=None``: free text)."""
    entry: dict[str, Any] = {"question": text, "header": header}
    if options is not None:
        entry["options"] = [{"label": label} for label in options]
    if multi:
        entry["multiSelect"] = True
    return entry


def call(*questions: dict[str, Any], blocking: bool = True) -> dict[str, Any]:
    return {"questions": list(questions), "blocking": blocking}


def wait_on(*question_ids: str) -> dict[str, Any]:
    return {"questions": [{"questionId": qid} for qid in question_ids]}
