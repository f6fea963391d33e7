"""The append-only session journal, at file level: one JSON-lines file per session.

A session lives in ``<data_dir>/<session_id>.jsonl`` (mode 0600, directory 0700). Each line is
one entry encoded by :func:`asks.store.entries.encode`; this module only writes, reads and repairs
the file. What the entries *mean* (projection, policy) lives elsewhere.

Semantics:

* **Atomic or absent.** :meth:`Journal.append` writes the whole line with one ``write`` (looping
  only on short writes), then ``fsync``\\ s the file, and only then returns the
  `Record`. A returned record is an acknowledgement: the entry is on disk.
* **Rollback.** If the write or the fsync fails, the file is truncated back to its length before
  the append and fsync'd again, and :class:`StorageError` is raised: nothing was saved, the
  sequence number is not consumed, and the journal stays usable.
* **Storage unconfirmed.** If the rollback fails as well, nobody knows what is on disk. The
  journal enters :attr:`StorageState.UNCONFIRMED` and raises :class:`StorageUnconfirmed`; from
  then on every append refuses at once, without touching the file. Reopening the session (a
  fresh replay) is the way back.
* **Torn tail.** A last line without its ``\\n`` was never acknowledged. :meth:`Journal.open`
  ignores it and truncates it off the file, with a warning.
* **Damaged lines.** A complete line in the middle that does not decode is skipped with a warning
  naming its line number; a line whose ``seq`` does not increase is skipped the same way. Replay
  never fails on content. Lines of unknown type or newer schema version are kept as
  :class:`~asks.store.entries.UnknownEntry`.
* **Checkpoint.** :meth:`Journal.open` and :func:`read_records` use the session's resume
  checkpoint (:mod:`asks.store.checkpoint`) when it covers the bytes read, and replay in full
  otherwise; the records are the same either way. The one writer saves the checkpoint of the
  projection given to :meth:`Journal.keep_checkpoint` when it has folded every record: at
  close, and before an append once :data:`CHECKPOINT_EVERY` bytes were appended past the
  last one (so a crash leaves less than that to decode). Failing to is not an error.
* **O(1) appends.** The file length and the next sequence number are tracked in memory; the file
  is read only by :meth:`Journal.open`.
* **One writer.** A session file must have at most one :class:`Journal` appending to it, in one
  thread. All file-system access goes through a :class:`FileOps` passed in by the caller (tests
  pass a subclass to inject faults).

File names, ids, the listing and :class:`FileOps` live in :mod:`asks.store.files`, decoding the
bytes in :mod:`asks.store.replay`; both are re-exported here, so callers import from one place.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import time
import weakref
import zlib
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Final, Self

from asks.core.version import __version__
from asks.store.checkpoint import Checkpoint, Encoder, checkpoint_path, parse
from asks.store.checkpoint import encode as encode_checkpoint
from asks.store.entries import (
    DecodeError,
    Entry,
    Record,
    SessionMode,
    SessionStarted,
    UnknownEntry,
    decode,
    encode,
)
from asks.store.files import (
    SUFFIX,
    FileOps,
    SessionInfo,
    SessionLocked,
    SessionNotFound,
    default_data_dir,
    list_sessions,
    new_session_id,
    os_reason,
    session_path,
    validate_session_id,
)
from asks.store.projection import Projection
from asks.store.records import Records, RecordUnreadable, Table, kind_of
from asks.store.replay import replay_lines

__all__ = [
    "SUFFIX",
    "FileOps",
    "Journal",
    "RecordUnreadable",
    "SessionInfo",
    "SessionLocked",
    "SessionNotFound",
    "StorageError",
    "StorageState",
    "StorageUnconfirmed",
    "default_data_dir",
    "list_sessions",
    "new_session_id",
    "os_reason",
    "read_records",
    "validate_session_id",
]


# A session that appended this many bytes past its last checkpoint saves a new one before its
# next append (a crash then leaves less than this to decode: ~25 ms a MiB).
CHECKPOINT_EVERY: Final = 4 << 20


class StorageError(Exception):
    """An append failed and was rolled back: nothing was saved. The message names the OS error."""


class StorageUnconfirmed(StorageError):  # noqa: N818 (name fixed by the design)
    """The journal cannot confirm what is on disk; it refuses every further append."""


class StorageState(enum.StrEnum):
    """Whether the journal knows what is on disk: ``ok``, or ``unconfirmed`` after a failure
    it could not roll back (it then refuses every append)."""

    OK = "ok"
    UNCONFIRMED = "unconfirmed"


def read_records(session_id: str, *, data_dir: Path, file_ops: FileOps | None = None) -> Records:
    """Replay a session read-only: no lock, no repair (a torn tail is just ignored).

    For looking at a session another process may be writing (listings, tests, tools).
    """
    validate_session_id(session_id)
    ops = FileOps() if file_ops is None else file_ops
    path = session_path(data_dir, session_id)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError as exc:
        raise SessionNotFound(
            errno.ENOENT, f"no session {session_id!r} in {data_dir}", str(path)
        ) from exc
    try:
        data = ops.map_all(fd, path)
    finally:
        os.close(fd)
    records = replay_lines(data, _read_checkpoint(ops, path)).records
    ops.release(data)
    return records


def started_mode(info: SessionInfo) -> SessionMode:
    """How the session of ``info`` was started, from its first line alone (``unknown`` if that
    line cannot be read): for picking the newest session of one kind without replaying any."""
    try:
        with info.path.open("rb") as stream:
            entry = decode(stream.readline()).entry
    except (OSError, DecodeError):
        return SessionMode.UNKNOWN
    return entry.mode if isinstance(entry, SessionStarted) else SessionMode.UNKNOWN


def _read_checkpoint(ops: FileOps, path: Path) -> Checkpoint | None:
    try:
        return parse(ops.read_file(checkpoint_path(path)))
    except OSError:
        return None


class Journal:
    """An open session journal: ``<data_dir>/<session_id>.jsonl``, one JSON line per entry,
    locked by the one process writing it. Build it with :meth:`create` (a new session) or
    :meth:`open` (resume), never with the constructor; close it with :meth:`close` or use it
    as a context manager.

    An embedder hands it to :class:`~asks.host.host.QuestionHost` and keeps only
    :attr:`session_id` (to resume) and :attr:`path`. Every append is written and fsync'd
    before it returns; a failed one is rolled back and raises :class:`StorageError`; a torn
    last line (a crash mid-write) is dropped at the next open. docs/architecture.md, "The
    journal", has the file's semantics.
    """

    # A plain class: its help() shows what an embedder uses, not a generated constructor.
    __slots__ = (
        "__weakref__",
        "_checkpointed",
        "_clock",
        "_closed",
        "_crc",
        "_crcs",
        "_encoder",
        "_fd",
        "_first_records",
        "_length",
        "_line_warnings",
        "_lines",
        "_next_seq",
        "_ops",
        "_owner",
        "_path",
        "_projection",
        "_read_back",
        "_session_id",
        "_state",
        "_table",
        "_warnings",
    )

    def __init__(
        self,
        session_id: str,
        path: Path,
        *,
        ops: FileOps,
        fd: int,
        clock: Callable[[], float],
        length: int = 0,
        next_seq: int = 0,
        warnings: Sequence[str] = (),
        lines: int = 0,
        crc: int = 0,
        line_warnings: Sequence[str] = (),
    ) -> None:
        """Internal: :meth:`create` and :meth:`open` build journals (the file open, locked
        and replayed)."""
        self._session_id, self._path = session_id, path
        self._ops, self._fd, self._clock = ops, fd, clock
        self._length, self._next_seq = length, next_seq
        self._state = StorageState.OK
        self._warnings = list(warnings)
        self._closed = False
        self._owner: object = None
        self._first_records: tuple[Record, ...] = ()
        # Every record's line start, seq and kind (record n: position n), the replay's lines
        # and warnings about complete lines: what a checkpoint saves beside the projection.
        self._table = Table()
        self._lines = lines
        self._crc = crc  # CRC-32 of the file's first ``_length`` bytes
        self._line_warnings = list(line_warnings)
        self._projection: Projection | None = None
        self._encoder = Encoder()
        self._checkpointed = 0  # bytes the last checkpoint saved or trusted covers
        # the CRC-32 of each line this journal appended (record ``len(table) - len(crcs)`` on)
        self._crcs = array("I")
        # the entries of records read back by number (:meth:`record`), while anyone holds them
        self._read_back: weakref.WeakValueDictionary[int, Entry | UnknownEntry] = (
            weakref.WeakValueDictionary()
        )

    @property
    def session_id(self) -> str:
        """The session's id: ``Journal.open(session_id, data_dir=…)`` resumes it."""
        return self._session_id

    @property
    def path(self) -> Path:
        """The session's journal file."""
        return self._path

    def keep_checkpoint(self, projection: Projection) -> None:
        """Keep ``projection`` (the one the session's host folds every record into) as the
        source of this journal's resume checkpoint: its state is saved beside the journal, as a
        cache a later :meth:`open` trusts only on an exact match, whenever it has folded every
        record: at :meth:`close`, and before an append once 4 MiB were appended since."""
        self._projection = projection

    def attach(self, owner: object) -> None:
        """Record the one object that writes this journal (a question host); a second owner
        is an embedding bug (two hosts would both journal and deliver): it raises."""
        if self._owner is not None and self._owner is not owner:
            raise ValueError(
                "this journal already has a QuestionHost; build one host per journal and "
                "share it (several agents can share one host: pass source= to ask())"
            )
        self._owner = owner

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        *,
        data_dir: Path,
        session_id: str | None = None,
        file_ops: FileOps | None = None,
        clock: Callable[[], float] = time.time,
        app_version: str = __version__,
        mode: SessionMode = SessionMode.EMBEDDED,
        then: Sequence[Entry] = (),
    ) -> Journal:
        """Start a new session file in ``data_dir`` and save :class:`SessionStarted` as seq 0,
        ``then``'s entries after it in the same write and fsync (the ``asks`` command's
        :class:`~asks.store.entries.ModelChosen`: one fsync fewer before the first frame); the
        records of all of them are :attr:`first_records`.

        ``data_dir`` (made, 0700 with its parents, when missing) has no default: a program
        embedding asks keeps its sessions in a folder of
        its own (the ``asks`` command's is :func:`default_data_dir`). ``mode`` says who started
        the session: the default, ``embedded``, is another program (``asks sessions`` lists it
        as such and ``asks --resume`` refuses it); the ``asks`` command passes its own.

        Raises :class:`FileExistsError` if the session exists, :class:`StorageError` if the
        first line cannot be saved (the file is then removed).
        """
        ops = FileOps() if file_ops is None else file_ops
        if session_id is not None:
            validate_session_id(session_id)
        created_dir = ops.make_dir(data_dir)
        for _attempt in range(5):
            sid = new_session_id(clock) if session_id is None else session_id
            path = session_path(data_dir, sid)
            try:
                fd = ops.open(path, create=True)
                break
            except FileExistsError as exc:
                if session_id is not None:
                    raise FileExistsError(
                        errno.EEXIST, f"session {sid!r} already exists", str(path)
                    ) from exc
        else:
            raise FileExistsError(errno.EEXIST, "could not pick an unused session id")
        journal = cls(sid, path, ops=ops, fd=fd, clock=clock)
        try:
            ops.lock(fd, path)
            started = SessionStarted(sid, float(clock()), app_version, mode)
            journal._first_records = tuple(journal.append_all((started, *then)))
            try:
                ops.fsync_dir(data_dir)
                if created_dir:
                    ops.fsync_dir(data_dir.parent)
            except OSError as exc:
                raise StorageError(
                    f"could not save new session {sid!r} in {data_dir} "
                    f"(directory fsync failed: {os_reason(exc)}); nothing was saved"
                ) from exc
        except BaseException:
            journal.close()
            with contextlib.suppress(OSError):
                ops.unlink(path)
            raise
        return journal

    @classmethod
    def open(
        cls,
        session_id: str,
        *,
        data_dir: Path,
        file_ops: FileOps | None = None,
        clock: Callable[[], float] = time.time,
    ) -> tuple[Journal, Records]:
        """Open an existing session for appending and replay it.

        Returns the journal and every record that decodes, in file order (a sequence built
        on access, :class:`~asks.store.records.Records`, carrying the checkpoint of the first
        ones when one was trusted). A torn last line is
        truncated off the file; damaged lines are skipped. Both leave a message in
        :attr:`warnings`. If the torn tail cannot be truncated, the journal opens
        :attr:`~StorageState.UNCONFIRMED`. Raises :class:`SessionNotFound` for an unknown id.
        """
        validate_session_id(session_id)
        ops = FileOps() if file_ops is None else file_ops
        path = session_path(data_dir, session_id)
        try:
            fd = ops.open(path)
        except FileNotFoundError as exc:
            raise SessionNotFound(
                errno.ENOENT, f"no session {session_id!r} in {data_dir}", str(path)
            ) from exc
        try:
            ops.lock(fd, path)
            data = ops.map_all(fd, path)
            replay = replay_lines(data, _read_checkpoint(ops, path))
            ops.release(data)  # a checkpoint's records page their lines in again when read
            next_seq = replay.records[-1].seq + 1 if replay.records else 0
            journal = cls(
                session_id,
                path,
                ops=ops,
                fd=fd,
                clock=clock,
                length=replay.good_length,
                next_seq=next_seq,
                warnings=replay.warnings,
                lines=replay.lines,
                crc=replay.crc,
                line_warnings=replay.line_warnings,
            )
            journal._table = replay.table()
            if replay.checkpoint is not None:
                journal._checkpointed = replay.checkpoint.length
            if replay.good_length < len(data):
                journal._truncate_torn_tail()
        except BaseException:
            ops.close(fd)
            raise
        return journal, replay.records

    def _truncate_torn_tail(self) -> None:
        try:
            self._ops.truncate(self._fd, self._length)
            self._ops.fsync(self._fd)
        except OSError as exc:
            self._state = StorageState.UNCONFIRMED
            self._warnings.append(
                f"could not truncate the torn last line ({os_reason(exc)}); storage unconfirmed, "
                "appends refused"
            )

    # -- state ----------------------------------------------------------------------------

    @property
    def next_seq(self) -> int:
        """Sequence number the next successful append will get."""
        return self._next_seq

    @property
    def state(self) -> StorageState:
        """``ok``, or ``unconfirmed`` once an append could not be rolled back."""
        return self._state

    @property
    def warnings(self) -> tuple[str, ...]:
        """Problems found (and repaired where possible) while opening or closing, in order."""
        return tuple(self._warnings)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` ran (the lock is released; appends are refused)."""
        return self._closed

    @property
    def first_records(self) -> tuple[Record, ...]:
        """The records :meth:`create` saved: ``session_started``'s, then its ``then``'s (none
        for an opened journal): the records a new session's projection folds first."""
        return self._first_records

    @property
    def file_ops(self) -> FileOps:
        """The file-system seam this journal writes through (its side files use it too)."""
        return self._ops

    # -- reading back -----------------------------------------------------------------------

    def record(self, number: int) -> Record:
        """Record ``number`` (0-based, in file order, as a projection counts them) as it was
        saved, read back from the file: its line (found by the table of line starts) decoded
        and checked against the table's ``seq`` and kind (a line this journal appended, also
        against its CRC-32 kept since). While anyone holds its entry, the same number gives a
        record of that same entry object. Raises :class:`RecordUnreadable` (an I/O error, the
        journal closed, no such record, a line that is not it): never another value."""
        table = self._table
        if self._closed or not 0 <= number < len(table):
            raise RecordUnreadable(f"session {self.session_id!r} has no record {number} open")
        start = table.starts[number]
        end = table.starts[number + 1] if number + 1 < len(table) else self._length
        try:
            line = self._ops.read_at(self._fd, start, end - start)
            record = decode(line.removesuffix(b"\n"))
        except (OSError, DecodeError) as exc:
            raise RecordUnreadable(
                f"could not read record {number} back from {self.path}: {exc}"
            ) from exc
        appended = number - (len(table) - len(self._crcs))  # its CRC's index, if appended
        changed = appended >= 0 and zlib.crc32(line) != self._crcs[appended]
        if changed or record.seq != table.seqs[number] or kind_of(record) != table.kinds[number]:
            raise RecordUnreadable(f"record {number} of {self.path} is not the line saved")
        held = self._read_back.get(number)
        if held is None:
            self._read_back[number] = record.entry
            return record
        return Record(record.seq, record.ts, held)

    def reader(self, folded: int) -> Callable[[int], Record] | None:
        """:meth:`record` for a projection that has folded ``folded`` records so far and
        numbers the next one saved ``folded``: its record ``n`` from then on (a host given no
        records at :meth:`create` counts from 0 where the journal counts from its first
        records). ``None`` if it folded more records than this journal has (not its own)."""
        offset = len(self._table) - folded
        if offset == 0:
            return self.record
        if offset < 0:
            return None
        return lambda number: self.record(number + offset)

    # -- appending ------------------------------------------------------------------------

    def append(self, entry: Entry) -> Record:
        """Save ``entry`` as the next line and fsync it; the returned record acknowledges it.

        Raises :class:`StorageError` (rolled back, nothing saved, journal still usable) or
        :class:`StorageUnconfirmed` (journal refuses all further appends).
        """
        return self.append_all((entry,))[0]

    def append_all(self, entries: Sequence[Entry]) -> list[Record]:
        """Save ``entries`` as the next lines with one write and one fsync: all or none (a
        failure rolls all of them back, as :meth:`append` does one)."""
        if self._closed:
            raise ValueError(f"journal {self.session_id!r} is closed")
        if self._state is StorageState.UNCONFIRMED:
            raise StorageUnconfirmed(
                f"session {self.session_id!r}: storage unconfirmed after an earlier failure; "
                "refusing to append, nothing was saved"
            )
        if self._length - self._checkpointed >= CHECKPOINT_EVERY:
            self._save_checkpoint()
        seq, ts = self._next_seq, float(self._clock())
        lines = [encode(seq + i, ts, entry) for i, entry in enumerate(entries)]
        line = b"".join(lines)
        try:
            self._write_all(line)
            self._ops.fsync(self._fd)
        except OSError as exc:
            if (rollback_error := self._roll_back()) is not None:
                raise StorageUnconfirmed(
                    f"could not save to session journal {self.path}: {os_reason(exc)}; rolling "
                    f"back failed too ({os_reason(rollback_error)}). What is on disk is "
                    "unconfirmed: no further appends until the session is reopened"
                ) from exc
            raise StorageError(
                f"could not save to session journal {self.path}: {os_reason(exc)}; "
                "the append was rolled back, nothing was saved"
            ) from exc
        except BaseException:
            # Interrupted mid-write (e.g. KeyboardInterrupt): never leave a partial line behind.
            self._roll_back()
            raise
        records = [Record(seq + i, ts, entry) for i, entry in enumerate(entries)]
        for one, record in zip(lines, records, strict=True):
            self._table.add(self._length, record)
            self._crcs.append(zlib.crc32(one))
            self._length += len(one)
        self._crc = zlib.crc32(line, self._crc)
        self._lines += len(lines)
        self._next_seq = seq + len(lines)
        return records

    def _save_checkpoint(self) -> None:
        """Save the checkpoint of the projection kept (:meth:`keep_checkpoint`) if it has
        folded every record; best effort: any failure leaves the old one, checked at use."""
        projection = self._projection
        if projection is None or projection.records != len(self._table):
            return
        try:
            blob = encode_checkpoint(
                projection,
                encoder=self._encoder,
                length=self._length,
                crc=self._crc,
                lines=self._lines,
                warnings=self._line_warnings,
                table=self._table,
            )
            self._ops.replace_file(checkpoint_path(self.path), blob)
        except (OSError, ValueError):
            return
        self._checkpointed = self._length

    def _write_all(self, line: bytes) -> None:
        remaining = line
        while remaining:
            written = self._ops.write(self._fd, remaining)
            if written <= 0:
                raise OSError(errno.EIO, f"write returned {written}")
            remaining = remaining[written:]

    def _roll_back(self) -> OSError | None:
        """Truncate to the last acknowledged length; on failure mark the journal unconfirmed."""
        try:
            self._ops.truncate(self._fd, self._length)
            self._ops.fsync(self._fd)
            actual = self._ops.size(self._fd)
            if actual != self._length:
                raise OSError(
                    errno.EIO, f"file is {actual} bytes after rollback, expected {self._length}"
                )
        except OSError as exc:
            self._state = StorageState.UNCONFIRMED
            return exc
        return None

    # -- closing --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the file. Idempotent. Every acknowledged append is already on disk."""
        if self._closed:
            return
        self._closed = True
        if self._state is StorageState.OK and self._length > self._checkpointed:
            self._save_checkpoint()
        try:
            self._ops.close(self._fd)
        except OSError as exc:
            self._warnings.append(f"close failed: {os_reason(exc)}")

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
