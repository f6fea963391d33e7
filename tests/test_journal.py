"""The session journal at file level: round trip, permissions, replay repairs, rollback."""

from __future__ import annotations

import errno
import gc
import itertools
import json
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest

from asks.core.gcpause import paused_gc
from asks.core.model import (
    Answer,
    AnswerKind,
    Option,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)
from asks.store.entries import (
    ChatMessage,
    Entry,
    FeedbackDelivered,
    GroupAsked,
    ModelChosen,
    Record,
    Resolved,
    SessionStarted,
    ToolResult,
    UnknownEntry,
    WaitOpened,
    Withdrawn,
    decode,
)
from asks.store.journal import (
    FileOps,
    Journal,
    SessionInfo,
    SessionLocked,
    SessionNotFound,
    StorageError,
    StorageState,
    StorageUnconfirmed,
    list_sessions,
    read_records,
    validate_session_id,
)

SID = "test-session"


def make_clock(start: float = 1_732_890_000.0) -> Callable[[], float]:
    counter = itertools.count()
    return lambda: start + next(counter) * 0.25


def resolved(i: int) -> Resolved:
    ref = QuestionRef(f"q-{i:04d}", i)
    answer = Answer(AnswerKind.OPTION, (i % 2,), notes=f"note {i} — ünïcode")
    return Resolved((Resolution(ref, ResolutionKind.ANSWERED, answer),))


def all_kinds() -> list[Entry]:
    ref = QuestionRef("q-abc", 1)
    spec = QuestionSpec("Which database?", "DB", (Option("Postgres"), Option("SQLite", "small")))
    question = Question(ref, "g-1", 0, spec)
    return [
        GroupAsked("call-1", "g-1", (question,), blocking=True),
        WaitOpened("call-2", (ref,)),
        resolved(1),
        Resolved((Resolution(ref, ResolutionKind.DECLINED),), source="web"),
        ToolResult("call-1", Outcome.ANSWERED, "answered", {"k": [1, 2]}, (ref,)),
        FeedbackDelivered((ref,), "the person answered", "steer"),
        Withdrawn((ref,), "no longer needed"),
        ChatMessage("assistant", "hello\nworld", ({"id": "call-1", "name": "ask"},)),
    ]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data" / "sessions"


def new_journal(data_dir: Path, ops: FileOps | None = None) -> Journal:
    return Journal.create(data_dir=data_dir, session_id=SID, file_ops=ops, clock=make_clock())


def file_bytes(journal: Journal) -> bytes:
    return journal.path.read_bytes()


# -- fault injection ----------------------------------------------------------------------


@attrs.define
class FaultyOps(FileOps):
    """Real file operations with switchable faults, counting calls that touch the file."""

    fail_write: bool = False
    write_budget: int | None = None  # bytes accepted before writes fail with ENOSPC
    fail_fsync: int = 0  # how many of the next fsyncs fail
    fail_truncate: bool = False
    interrupt_write: bool = False
    calls: list[str] = attrs.Factory(list)

    def write(self, fd: int, data: bytes) -> int:
        self.calls.append("write")
        if self.fail_write:
            raise OSError(errno.EIO, "injected write failure")
        if self.interrupt_write:
            os.write(fd, data[: len(data) // 2])
            raise KeyboardInterrupt
        if self.write_budget is not None:
            if self.write_budget <= 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            data = data[: self.write_budget]
            self.write_budget -= len(data)
        return super().write(fd, data)

    def fsync(self, fd: int) -> None:
        self.calls.append("fsync")
        if self.fail_fsync > 0:
            self.fail_fsync -= 1
            raise OSError(errno.EIO, "injected fsync failure")
        super().fsync(fd)

    def truncate(self, fd: int, length: int) -> None:
        self.calls.append("truncate")
        if self.fail_truncate:
            raise OSError(errno.EROFS, "injected truncate failure")
        super().truncate(fd, length)

    def read_all(self, fd: int) -> bytes:
        self.calls.append("read_all")
        return super().read_all(fd)


@attrs.define
class DiskFullOps(FileOps):
    """A disk of ``capacity`` bytes: writes past it are short, then fail with ENOSPC."""

    capacity: int

    def write(self, fd: int, data: bytes) -> int:
        room = self.capacity - self.size(fd)
        if room <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(fd, data[:room])


# -- round trip, files --------------------------------------------------------------------


def test_create_append_reopen_round_trip(data_dir: Path) -> None:
    with new_journal(data_dir) as journal:
        assert journal.next_seq == 1
        acked = [journal.append(entry) for entry in all_kinds()]
        assert [r.seq for r in acked] == list(range(1, len(all_kinds()) + 1))
        path = journal.path
    assert path == data_dir / f"{SID}.jsonl"
    reopened, records = Journal.open(SID, data_dir=data_dir)
    with reopened:
        assert records[1:] == acked
        assert [r.entry for r in records[1:]] == all_kinds()
        first = records[0].entry
        assert isinstance(first, SessionStarted)
        assert first.session_id == SID
        assert reopened.warnings == ()
        assert reopened.state is StorageState.OK
        assert reopened.next_seq == len(acked) + 1


def test_every_line_is_one_decodable_json_object(data_dir: Path) -> None:
    with new_journal(data_dir) as journal:
        for entry in all_kinds():
            journal.append(entry)
        raw = file_bytes(journal)
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert [json.loads(line)["seq"] for line in lines] == list(range(len(lines)))
    assert all(not isinstance(decode(line).entry, UnknownEntry) for line in lines)


def test_file_is_0600_and_dir_0700_regardless_of_umask(data_dir: Path) -> None:
    old = os.umask(0)
    try:
        with new_journal(data_dir) as journal:
            path = journal.path
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700


def test_default_session_id_is_timestamp_plus_random(data_dir: Path) -> None:
    with Journal.create(data_dir=data_dir, clock=lambda: 1_732_890_000.0) as a:
        pass
    with Journal.create(data_dir=data_dir, clock=lambda: 1_732_890_000.0) as b:
        pass
    assert re.fullmatch(r"20241129-142000-[0-9a-f]{6}", a.session_id)
    assert a.session_id != b.session_id
    assert a.path.name == f"{a.session_id}.jsonl"


def test_create_refuses_existing_session(data_dir: Path) -> None:
    with new_journal(data_dir) as journal:
        before = file_bytes(journal)
    with pytest.raises(FileExistsError, match="already exists"):
        new_journal(data_dir)
    assert (data_dir / f"{SID}.jsonl").read_bytes() == before


def test_open_unknown_session(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    with pytest.raises(SessionNotFound, match="no session 'nope'") as info:
        Journal.open("nope", data_dir=data_dir)
    assert isinstance(info.value, FileNotFoundError)
    assert not (data_dir / "nope.jsonl").exists()


BAD_IDS = ["", ".", "..", "../x", "a/b", "/abs", "a\\b", "x\n", "a b", ".hidden", "é", "a\x00"]


@pytest.mark.parametrize("bad", [*BAD_IDS, "a" * 129])
def test_bad_session_ids_are_refused(data_dir: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="invalid session id"):
        Journal.open(bad, data_dir=data_dir)
    with pytest.raises(ValueError, match="invalid session id"):
        Journal.create(data_dir=data_dir, session_id=bad)
    assert not data_dir.exists()


@pytest.mark.parametrize("good", ["a", "20241129-142000-abcdef", "x.y_z-1", "-x", "a" * 128])
def test_good_session_ids(good: str) -> None:
    assert validate_session_id(good) == good


def test_seq_continues_across_reopens(data_dir: Path) -> None:
    new_journal(data_dir).close()
    for round_ in range(3):
        journal, records = Journal.open(SID, data_dir=data_dir, clock=make_clock())
        with journal:
            assert journal.next_seq == 1 + 2 * round_
            journal.append(resolved(round_))
            journal.append(resolved(round_ + 100))
    _, records = Journal.open(SID, data_dir=data_dir)
    assert [r.seq for r in records] == list(range(7))


def test_close_is_idempotent_and_append_after_close_refuses(data_dir: Path) -> None:
    journal = new_journal(data_dir)
    journal.close()
    journal.close()
    assert journal.closed
    with pytest.raises(ValueError, match="closed"):
        journal.append(resolved(1))


def test_append_never_rereads_the_file(data_dir: Path) -> None:
    ops = FaultyOps()
    with new_journal(data_dir, ops) as journal:
        for i in range(50):
            journal.append(resolved(i))
    assert "read_all" not in ops.calls
    assert ops.calls.count("write") == ops.calls.count("fsync") == 51


# -- replay repairs -----------------------------------------------------------------------


def test_torn_tail_is_ignored_and_truncated(data_dir: Path) -> None:
    with new_journal(data_dir) as journal:
        acked = [journal.append(resolved(i)) for i in range(3)]
        good = file_bytes(journal)
    path = data_dir / f"{SID}.jsonl"
    with path.open("ab") as f:
        f.write(b'{"v":1,"seq":4,"ts":1.0,"type":"resol')
    journal, records = Journal.open(SID, data_dir=data_dir)
    with journal:
        assert records[1:] == acked
        assert len(journal.warnings) == 1
        assert "line 5: torn last line" in journal.warnings[0]
        assert path.stat().st_size == len(good)
        assert path.read_bytes() == good
        assert journal.next_seq == 4
        assert journal.append(resolved(9)).seq == 4
    journal, records = Journal.open(SID, data_dir=data_dir)
    with journal:
        assert journal.warnings == ()
        assert [r.seq for r in records] == [0, 1, 2, 3, 4]


def test_torn_tail_that_cannot_be_truncated_opens_unconfirmed(data_dir: Path) -> None:
    new_journal(data_dir).close()
    path = data_dir / f"{SID}.jsonl"
    with path.open("ab") as f:
        f.write(b'{"v":1,')
    torn = path.read_bytes()
    ops = FaultyOps(fail_truncate=True)
    journal, records = Journal.open(SID, data_dir=data_dir, file_ops=ops)
    with journal:
        assert [r.seq for r in records] == [0]
        assert journal.state is StorageState.UNCONFIRMED
        assert "could not truncate" in journal.warnings[-1]
        with pytest.raises(StorageUnconfirmed):
            journal.append(resolved(1))
    assert path.read_bytes() == torn


def test_corrupt_middle_line_is_skipped_with_warning(data_dir: Path) -> None:
    with new_journal(data_dir) as journal:
        acked = [journal.append(resolved(i)) for i in range(4)]
    path = data_dir / f"{SID}.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"\x00\x00garbage"  # seq 2 (line 3)
    lines[3] = b'{"v":1,"seq":3,"ts":1.0,"type":"resolved","resolutions":"nope"}'
    path.write_bytes(b"\n".join(lines))
    journal, records = Journal.open(SID, data_dir=data_dir)
    with journal:
        assert [r.seq for r in records] == [0, 1, 4]
        assert records[1:] == [acked[0], acked[3]]
        assert len(journal.warnings) == 2
        assert journal.warnings[0].startswith("line 3: skipped")
        assert journal.warnings[1].startswith("line 4: skipped")
        assert journal.next_seq == 5
        journal.append(resolved(5))


def test_non_increasing_seq_is_skipped(data_dir: Path) -> None:
    with new_journal(data_dir) as journal:
        journal.append(resolved(1))
        dup = file_bytes(journal).split(b"\n")[1] + b"\n"
    path = data_dir / f"{SID}.jsonl"
    with path.open("ab") as f:
        f.write(dup)
    journal, records = Journal.open(SID, data_dir=data_dir)
    with journal:
        assert [r.seq for r in records] == [0, 1]
        assert "line 3: skipped, seq 1 does not follow seq 1" in journal.warnings


@pytest.mark.parametrize(
    "body",
    [
        {
            "type": "tool_result",
            "call_id": "c",
            "outcome": "answered",
            "text": "t",
            "details": [1, 2],
        },
        {"type": "tool_result", "call_id": "c", "outcome": "maybe", "text": "t", "details": {}},
        {"type": "chat_message", "role": "user", "content": "x", "tool_calls": [1]},
        {"type": "chat_message", "role": "user", "content": "x", "tool_calls": None},
        {"type": "chat_message", "role": "user"},
        {
            "type": "group_asked",
            "call_id": "c",
            "group_id": "g",
            "blocking": True,
            "questions": [5],
        },
        {
            "type": "resolved",
            "resolutions": [{"ref": {"id": "q", "incarnation": 1}, "kind": "shrugged"}],
        },
    ],
    ids=[
        "details-list",
        "bad-outcome",
        "call-not-object",
        "calls-null",
        "no-content",
        "question-not-object",
        "bad-kind",
    ],
)
def test_malformed_entry_fields_are_skipped_not_fatal(
    data_dir: Path, body: dict[str, object]
) -> None:
    with new_journal(data_dir) as journal:
        journal.append(resolved(1))
    with journal.path.open("ab") as f:
        f.write(json.dumps({"v": 1, "seq": 2, "ts": 1.0, **body}).encode() + b"\n")
    journal, records = Journal.open(SID, data_dir=data_dir)
    with journal:
        assert [r.seq for r in records] == [0, 1]
        assert len(journal.warnings) == 1
        assert journal.warnings[0].startswith("line 3: skipped, does not decode: invalid")


def test_chat_message_fast_hook_covers_every_field() -> None:
    # entries._chat_message_hook builds ChatMessage by hand: a new field must be added there.
    assert [f.name for f in attrs.fields(ChatMessage)] == ["role", "content", "tool_calls"]
    entry = ChatMessage("assistant", "hi", ({"id": "c-1", "function": {"name": "ask"}},))
    line = (
        b'{"v":1,"seq":1,"ts":1.0,"type":"chat_message","role":"assistant","content":"hi",'
        b'"tool_calls":[{"id":"c-1","function":{"name":"ask"}}]}'
    )
    assert decode(line) == Record(1, 1.0, entry)
    assert decode(
        line.replace(b',"tool_calls":[{"id":"c-1","function":{"name":"ask"}}]', b"")
    ) == Record(1, 1.0, ChatMessage("assistant", "hi"))


def test_paused_gc_resumes_with_new_objects_in_the_oldest_generation() -> None:
    was_frozen = gc.get_freeze_count()
    gc.unfreeze()  # an earlier test may have run the CLI, which freezes the heap
    try:
        with paused_gc():
            assert not gc.isenabled()
            built = [[i] for i in range(2 * gc.get_threshold()[0])]  # more than a young gc
        assert gc.isenabled()
        assert gc.get_freeze_count() == 0
        oldest = {id(obj) for obj in gc.get_objects(generation=2)}
        assert all(id(item) in oldest for item in built)
    finally:
        if was_frozen:
            gc.freeze()  # as the earlier test left it


def test_paused_gc_leaves_what_the_process_froze_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with paused_gc():
            built = [[i] for i in range(2 * gc.get_threshold()[0])]
        assert gc.isenabled()
        assert gc.get_freeze_count() == frozen
        assert len(built) == 2 * gc.get_threshold()[0]
    finally:
        gc.unfreeze()


def test_unknown_type_and_newer_version_are_kept(data_dir: Path) -> None:
    new_journal(data_dir).close()
    future_type = {"v": 1, "seq": 1, "ts": 2.0, "type": "hologram", "x": [1]}
    future_version = {"v": 99, "seq": 2, "ts": 3.0, "type": "resolved", "resolutions": 7}
    path = data_dir / f"{SID}.jsonl"
    with path.open("ab") as f:
        for obj in (future_type, future_version):
            f.write(json.dumps(obj).encode() + b"\n")
    journal, records = Journal.open(SID, data_dir=data_dir, clock=make_clock())
    with journal:
        assert journal.warnings == ()
        assert records[1] == Record(1, 2.0, UnknownEntry(future_type))
        assert records[2] == Record(2, 3.0, UnknownEntry(future_version))
        assert journal.append(resolved(3)).seq == 3
    _, records = Journal.open(SID, data_dir=data_dir)
    assert [r.seq for r in records] == [0, 1, 2, 3]


def test_empty_file_opens_with_seq_zero(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "empty.jsonl").touch()
    journal, records = Journal.open("empty", data_dir=data_dir)
    with journal:
        assert records == []
        assert journal.next_seq == 0


# -- rollback -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [{"fail_write": True}, {"fail_fsync": 1}, {"write_budget": 10}],
    ids=["write", "fsync", "short-write-then-enospc"],
)
def test_failed_append_is_rolled_back(data_dir: Path, fault: dict[str, object]) -> None:
    ops = FaultyOps()
    journal = new_journal(data_dir, ops)
    acked = [journal.append(resolved(1))]
    before = file_bytes(journal)
    for name, value in fault.items():  # the same journal, now over a failing disk
        setattr(ops, name, value)
    with pytest.raises(StorageError) as info:
        journal.append(resolved(2))
    assert type(info.value) is StorageError
    message = str(info.value)
    assert "nothing was saved" in message
    assert "rolled back" in message
    assert os.strerror(errno.ENOSPC) in message or "injected" in message
    assert file_bytes(journal) == before
    assert journal.state is StorageState.OK
    assert journal.next_seq == 2
    ops.fail_write, ops.fail_fsync, ops.write_budget = False, 0, None  # the disk recovers
    acked.append(journal.append(resolved(3)))
    assert acked[-1].seq == 2
    journal.close()
    _, records = Journal.open(SID, data_dir=data_dir)
    assert records[1:] == acked


def test_failed_write_and_failed_rollback_make_storage_unconfirmed(data_dir: Path) -> None:
    ops = FaultyOps()
    journal = new_journal(data_dir, ops)
    acked = journal.append(resolved(1))
    ops.write_budget, ops.fail_truncate = 20, True
    with pytest.raises(StorageUnconfirmed) as info:
        journal.append(resolved(2))
    assert isinstance(info.value, StorageError)
    assert "injected truncate failure" in str(info.value)
    assert os.strerror(errno.ENOSPC) in str(info.value)
    assert journal.state is StorageState.UNCONFIRMED
    after_failure = file_bytes(journal)
    calls = len(ops.calls)
    ops.write_budget, ops.fail_truncate = None, False  # the disk recovers; the journal does not
    for i in range(3):
        with pytest.raises(StorageUnconfirmed, match="refusing to append"):
            journal.append(resolved(10 + i))
    assert len(ops.calls) == calls
    assert file_bytes(journal) == after_failure
    journal.close()
    # A fresh open repairs the torn tail and only the acknowledged entries remain.
    reopened, records = Journal.open(SID, data_dir=data_dir)
    with reopened:
        assert records[1:] == [acked]
        assert reopened.state is StorageState.OK
        assert reopened.append(resolved(4)).seq == 2


def test_fsync_failing_again_during_rollback_makes_storage_unconfirmed(data_dir: Path) -> None:
    ops = FaultyOps()
    with new_journal(data_dir, ops) as journal:
        ops.fail_fsync = 2
        with pytest.raises(StorageUnconfirmed, match="injected fsync failure"):
            journal.append(resolved(1))
        assert journal.state is StorageState.UNCONFIRMED
        with pytest.raises(StorageUnconfirmed):
            journal.append(resolved(2))


def test_interrupted_write_is_rolled_back_and_reraised(data_dir: Path) -> None:
    ops = FaultyOps()
    with new_journal(data_dir, ops) as journal:
        before = file_bytes(journal)
        ops.interrupt_write = True
        with pytest.raises(KeyboardInterrupt):
            journal.append(resolved(1))
        assert file_bytes(journal) == before
        assert journal.state is StorageState.OK
        ops.interrupt_write = False
        assert journal.append(resolved(2)).seq == 1


def test_create_saves_then_with_the_first_line_in_one_fsync(data_dir: Path) -> None:
    """What the ``asks`` command saves at start (the model chosen) goes with
    ``session_started``: one write and one fsync of the file, the records returned."""
    ops = FaultyOps()
    chosen = ModelChosen("scripted", "tour")
    journal = Journal.create(data_dir=data_dir, session_id=SID, file_ops=ops, then=(chosen,))
    with journal:
        assert (ops.calls.count("write"), ops.calls.count("fsync")) == (1, 1)
        assert [(r.seq, r.entry) for r in journal.first_records][1:] == [(1, chosen)]
        assert journal.next_seq == 2
    reopened, records = Journal.open(SID, data_dir=data_dir)
    with reopened:
        assert [type(r.entry) for r in records] == [SessionStarted, ModelChosen]
        assert records == list(journal.first_records)
        assert reopened.first_records == ()


def test_failed_first_line_removes_the_new_file(data_dir: Path) -> None:
    with pytest.raises(StorageError, match="nothing was saved"):
        new_journal(data_dir, FaultyOps(fail_fsync=1))
    assert list(data_dir.iterdir()) == []


# -- disk full, for real when we can mount a tmpfs -----------------------------------------


@attrs.frozen
class FullDisk:
    data_dir: Path
    ops: FileOps
    kind: str


@pytest.fixture(params=["tmpfs", "seam"])
def full_disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FullDisk]:
    size = 64 * 1024
    if request.param == "tmpfs":
        mountpoint = tmp_path / "mnt"
        mountpoint.mkdir()
        mounted = os.geteuid() == 0 and (
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mountpoint)],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )
        if mounted:
            try:
                yield FullDisk(mountpoint / "sessions", FileOps(), "tmpfs")
            finally:
                if subprocess.run(["umount", str(mountpoint)], check=False).returncode != 0:
                    subprocess.run(["umount", "-l", str(mountpoint)], check=False)
            return
    # No tmpfs here (or the seam variant): a FileOps that behaves like a full disk.
    yield FullDisk(tmp_path / "sessions", DiskFullOps(capacity=size), "seam")


def test_disk_full_append_is_rolled_back(full_disk: FullDisk) -> None:
    print(f"disk-full path: {full_disk.kind}")
    journal = Journal.create(
        data_dir=full_disk.data_dir, session_id=SID, file_ops=full_disk.ops, clock=make_clock()
    )
    acked: list[Record] = []
    with journal:
        for i in range(1000):
            entry = ChatMessage("assistant", f"{i:05d} " + "é" * 1500)  # ~3 KB a line
            before = journal.path.stat().st_size
            try:
                acked.append(journal.append(entry))
            except StorageError as exc:
                assert type(exc) is StorageError
                assert os.strerror(errno.ENOSPC) in str(exc)
                break
        else:
            pytest.fail("the disk never filled up")
        assert journal.path.stat().st_size == before
        assert journal.state is StorageState.OK
        assert journal.next_seq == len(acked) + 1
        assert len(acked) > 5
    reopened, records = Journal.open(SID, data_dir=full_disk.data_dir)
    with reopened:
        assert reopened.warnings == ()
        assert records[1:] == acked


# -- listing ------------------------------------------------------------------------------


def test_list_sessions_newest_first(data_dir: Path) -> None:
    for n, sid in enumerate(["old", "newest", "middle"]):
        with Journal.create(data_dir=data_dir, session_id=sid) as journal:
            for i in range(n):
                journal.append(resolved(i))
    for sid, mtime in [("old", 1000.0), ("newest", 3000.0), ("middle", 2000.0)]:
        os.utime(data_dir / f"{sid}.jsonl", (mtime, mtime))
    (data_dir / "notes.txt").write_text("x")
    (data_dir / ".hidden.jsonl").write_text("x")
    (data_dir / "dir.jsonl").mkdir()
    sessions = list_sessions(data_dir)
    assert [s.session_id for s in sessions] == ["newest", "middle", "old"]
    for info in sessions:
        assert isinstance(info, SessionInfo)
        assert info.path == data_dir / f"{info.session_id}.jsonl"
        assert info.size == info.path.stat().st_size
    assert sessions[0].modified == 3000.0


def test_list_sessions_missing_dir(tmp_path: Path) -> None:
    assert list_sessions(tmp_path / "nowhere") == []


def test_one_writer_per_session_and_read_only_replay(data_dir: Path) -> None:
    journal = Journal.create(data_dir=data_dir, session_id=SID)
    journal.append(ChatMessage("user", "hello"))
    with pytest.raises(SessionLocked, match="open in another asks process") as locked:
        Journal.open(SID, data_dir=data_dir)
    assert str(locked.value) == (
        f"session {SID!r} is open in another asks process ({data_dir / (SID + '.jsonl')})"
    )
    seen = read_records(SID, data_dir=data_dir)  # readers never need the lock
    assert [type(r.entry) for r in seen] == [SessionStarted, ChatMessage]
    journal.close()
    reopened, records = Journal.open(SID, data_dir=data_dir)  # the lock died with close()
    assert len(records) == 2
    reopened.close()


def test_read_records_leaves_a_torn_tail_alone(data_dir: Path) -> None:
    journal = Journal.create(data_dir=data_dir, session_id=SID)
    journal.close()
    with journal.path.open("ab") as f:
        f.write(b'{"v":1,"seq":1,"type":"chat_mes')
    size = journal.path.stat().st_size
    assert len(read_records(SID, data_dir=data_dir)) == 1
    assert journal.path.stat().st_size == size


def test_a_lone_surrogate_round_trips_through_a_journal_line() -> None:
    """encode() escapes text UTF-8 cannot hold; decode() must read that line back, not skip
    it as damaged (orjson refuses the escape)."""
    from asks.store.entries import ChatMessage, decode, encode  # noqa: PLC0415

    message = ChatMessage("user", "a\ud800b")
    assert decode(encode(3, 1.0, message)).entry == message
