"""One write and one fsync for the lines of one step (the tool call → question path).

``Journal.append_all`` saves several entries as consecutive lines in one write and one fsync,
all or none; the host uses it for an async call, whose questions (``group_asked``) and queued
result (``tool_result``) are both known before anything is saved. Invariants pinned here:
consecutive sequence numbers, a single fsync, a failure anywhere leaves none of the lines (the
journal stays usable and the call gets ``storage_failed`` with no question pending), and a
crash-and-resume sees both lines or neither.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.rig import FlakyOps, Rig, call, q

from asks.contract import ToolError
from asks.store.entries import ChatMessage
from asks.store.journal import Journal, StorageError


class CountingOps(FlakyOps):
    """FlakyOps that counts fsyncs of the journal file."""

    def __init__(self) -> None:
        super().__init__()
        self.fsyncs = 0

    def fsync(self, fd: int) -> None:
        self.fsyncs += 1
        super().fsync(fd)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def test_append_all_is_one_write_one_fsync_with_consecutive_seqs(tmp_path: Path) -> None:
    ops = CountingOps()
    journal = Journal.create(data_dir=tmp_path, session_id="s", file_ops=ops)
    before, first = ops.fsyncs, journal.next_seq
    records = journal.append_all([ChatMessage("user", "one"), ChatMessage("assistant", "two")])
    assert ops.fsyncs == before + 1
    assert [r.seq for r in records] == [first, first + 1]
    assert journal.next_seq == first + 2
    assert [line["seq"] for line in lines(journal.path)][-2:] == [first, first + 1]


def test_a_failed_append_all_leaves_none_of_its_lines(tmp_path: Path) -> None:
    ops = CountingOps()
    journal = Journal.create(data_dir=tmp_path, session_id="s", file_ops=ops)
    before = journal.path.read_bytes()
    ops.fail_next_append()
    try:
        journal.append_all([ChatMessage("user", "one"), ChatMessage("assistant", "two")])
    except StorageError:
        pass
    else:
        raise AssertionError("the injected failure was not raised")
    assert journal.path.read_bytes() == before  # rolled back: neither line
    journal.append(ChatMessage("user", "three"))  # and still usable
    assert lines(journal.path)[-1]["content"] == "three"


def test_an_async_call_saves_questions_and_result_with_one_fsync(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ops = CountingOps()
    rig.ops = ops
    rig.journal._ops = ops  # the rig's journal writes through the counting ops from here
    reply = rig.host.agent_port.start_call("c1", call(q("Which?"), blocking=False))
    assert not isinstance(reply, ToolError)
    assert ops.fsyncs == 1
    assert [line["type"] for line in lines(rig.path)][-2:] == ["group_asked", "tool_result"]
    resumed = rig.crash_and_reopen()
    assert len(resumed.surface_port.projection.pending) == 1
    assert resumed.surface_port.projection.calls["c1"].result is not None


def test_a_failed_async_call_creates_no_question(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    rig.ops.fail_next_append("tool_result")  # the batch's write holds both lines: it fails
    reply = rig.host.agent_port.start_call("c1", call(q("Which?"), blocking=False))
    assert isinstance(reply, ToolError) and reply.code.value == "storage_failed"
    assert not rig.host.surface_port.projection.pending
    assert [line["type"] for line in lines(rig.path)].count("group_asked") == 0
    again = rig.host.agent_port.start_call("c1", call(q("Which?"), blocking=False))
    assert not isinstance(again, ToolError)  # the retry succeeds once the disk has room
    assert len(rig.host.surface_port.projection.pending) == 1
