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
* **O(1) appends.** The file length and the next sequence number are tracked in memory; the file
  is read only by :meth:`Journal.open`.
* **One writer.** A session file must have at most one :class:`Journal` appending to it, in one
  thread. All file-system access goes through a :class:`FileOps` passed in by the caller (tests
  pass a subclass to inject faults).
"""

from __future__ import annotations

import contextlib
import datetime
import enum
import errno
import fcntl
import gc
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Final, Self

import attrs
import platformdirs

from asks import __version__
from asks.store.entries import DecodeError, Entry, Record, SessionStarted, decode, encode

__all__ = [
    "SUFFIX",
    "FileOps",
    "Journal",
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
    "validate_session_id",
]

SUFFIX: Final = ".jsonl"
FILE_MODE: Final = 0o600
DIR_MODE: Final = 0o700
MAX_SESSION_ID: Final = 128
_READ_CHUNK: Final = 1 << 20
# Leading dot refused: no ".", "..", or hidden files.
_SESSION_ID_RE: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


class StorageError(Exception):
    """An append failed and was rolled back: nothing was saved. The message names the OS error."""


class StorageUnconfirmed(StorageError):  # noqa: N818 (name fixed by the design)
    """The journal cannot confirm what is on disk; it refuses every further append."""


class SessionNotFound(FileNotFoundError):  # noqa: N818 (name fixed by the design)
    """No journal file exists for the requested session id."""


class SessionLocked(OSError):  # noqa: N818 (reads better at the call site)
    """Another process has this session open for writing."""

    def __str__(self) -> str:  # "… (PATH)", not "[Errno 11] …: 'PATH'"
        return f"{self.strerror} ({self.filename})" if self.filename else str(self.strerror)


class StorageState(enum.StrEnum):
    OK = "ok"
    UNCONFIRMED = "unconfirmed"


def os_reason(exc: OSError) -> str:
    """What went wrong, for a person: ``No space left on device``, not ``[Errno 28] …``."""
    return exc.strerror or str(exc)


def default_data_dir() -> Path:
    """Where sessions live by default: ``<XDG user data dir>/asks/sessions``."""
    return platformdirs.user_data_path("asks") / "sessions"


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` if it is safe as a file name, else raise :class:`ValueError`.

    Allowed: ``[A-Za-z0-9_.-]``, 1 to 128 characters, not starting with a dot.
    """
    if len(session_id) > MAX_SESSION_ID or not _SESSION_ID_RE.fullmatch(session_id):
        raise ValueError(
            f"invalid session id {session_id!r}: use 1-{MAX_SESSION_ID} characters from "
            "A-Z a-z 0-9 _ . - and do not start with a dot"
        )
    return session_id


def new_session_id(clock: Callable[[], float] = time.time) -> str:
    """A fresh id ``YYYYMMDD-HHMMSS-<6 hex>`` (UTC time from ``clock``, random suffix)."""
    stamp = datetime.datetime.fromtimestamp(clock(), tz=datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


class FileOps:
    """The journal's file-system seam; the default implementation calls :mod:`os` directly.

    Every method may raise :class:`OSError`. Subclass to inject faults.
    """

    def open(self, path: Path, *, create: bool = False) -> int:
        """Open ``path`` read-write in append mode. ``create``: it must not exist yet (0600)."""
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        if create:
            flags |= os.O_CREAT | os.O_EXCL
        return os.open(path, flags, FILE_MODE)

    def lock(self, fd: int, path: Path) -> None:
        """Take the single-writer lock (``flock``, released by the kernel if we die)."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise SessionLocked(
                errno.EWOULDBLOCK,
                f"session {path.name.removesuffix(SUFFIX)!r} is open in another asks process",
                str(path),
            ) from exc

    def read_all(self, fd: int) -> bytes:
        chunks: list[bytes] = []
        offset = 0
        # The whole file in one read when its size holds (the size is only a hint: read on to
        # EOF). Chunks of 1 MiB and a join cost twice as long for 80 MB (measured).
        want = max(_READ_CHUNK, os.fstat(fd).st_size + 1)
        while chunk := os.pread(fd, want, offset):
            chunks.append(chunk)
            offset += len(chunk)
            want = _READ_CHUNK
        return b"".join(chunks)

    def write(self, fd: int, data: bytes) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def truncate(self, fd: int, length: int) -> None:
        os.ftruncate(fd, length)

    def size(self, fd: int) -> int:
        return os.fstat(fd).st_size

    def close(self, fd: int) -> None:
        os.close(fd)

    def fsync_dir(self, path: Path) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def make_dir(self, path: Path) -> bool:
        """Create ``path`` (0700, parents as needed); True if it did not exist before."""
        try:
            path.mkdir(mode=DIR_MODE, parents=True)
        except FileExistsError:
            return False
        return True

    def unlink(self, path: Path) -> None:
        os.unlink(path)


@attrs.frozen
class SessionInfo:
    """File metadata of one session journal (no replay)."""

    session_id: str
    path: Path
    modified: float
    size: int


def list_sessions(data_dir: Path | None = None) -> list[SessionInfo]:
    """Sessions in ``data_dir`` (default :func:`default_data_dir`), newest first."""
    directory = default_data_dir() if data_dir is None else data_dir
    try:
        with os.scandir(directory) as it:
            candidates = list(it)
    except FileNotFoundError:
        return []
    sessions = []
    for item in candidates:
        session_id = item.name.removesuffix(SUFFIX)
        if session_id == item.name or not _is_valid_session_id(session_id):
            continue
        try:
            if not item.is_file(follow_symlinks=False):
                continue
            st = item.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        sessions.append(SessionInfo(session_id, Path(item.path), st.st_mtime, st.st_size))
    sessions.sort(key=lambda s: (s.modified, s.session_id), reverse=True)
    return sessions


def _is_valid_session_id(session_id: str) -> bool:
    try:
        validate_session_id(session_id)
    except ValueError:
        return False
    return True


@attrs.define(eq=False)
class _Replay:
    records: list[Record]
    warnings: list[str]
    good_length: int  # bytes up to and including the last complete line


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic GC while building many long-lived objects (replay): it would rescan
    the growing heap again and again (measured: ~45% of a 100k-line replay).

    On exit the objects built meanwhile are moved straight to the oldest generation
    (``gc.freeze()`` + ``gc.unfreeze()``, O(1), resets the young-generation count), which is
    where two young collections would have put them after traversing all of them (measured:
    ~0.25 s at the first allocation after a 100k-line replay). Nothing is left frozen, and
    garbage cycles among them are still found by full collections. Skipped if the process
    has frozen objects of its own (``unfreeze`` would release those too).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if was_enabled:
            gc.enable()


def _replay(data: bytes) -> _Replay:
    with paused_gc():
        return _decode_lines(data)


def _decode_lines(data: bytes) -> _Replay:
    good_length = data.rfind(b"\n") + 1
    lines = data[:good_length].split(b"\n")  # no copy of ``data`` when there is no torn tail
    lines.pop()  # the empty piece after the last newline
    records: list[Record] = []
    warnings: list[str] = []
    last: Record | None = None
    for number, line in enumerate(lines, start=1):
        try:
            record = decode(line)
        except DecodeError as exc:
            warnings.append(f"line {number}: skipped, does not decode: {exc}")
            continue
        if last is not None and record.seq <= last.seq:
            warnings.append(
                f"line {number}: skipped, seq {record.seq} does not follow seq {last.seq}"
            )
            continue
        records.append(record)
        last = record
    if good_length < len(data):
        warnings.append(
            f"line {len(lines) + 1}: torn last line ({len(data) - good_length} bytes without "
            "a newline) ignored and truncated"
        )
    return _Replay(records, warnings, good_length)


def read_records(
    session_id: str, *, data_dir: Path | None = None, file_ops: FileOps | None = None
) -> list[Record]:
    """Replay a session read-only: no lock, no repair (a torn tail is just ignored).

    For looking at a session another process may be writing (listings, tests, tools).
    """
    validate_session_id(session_id)
    ops = FileOps() if file_ops is None else file_ops
    directory = default_data_dir() if data_dir is None else data_dir
    path = directory / f"{session_id}{SUFFIX}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError as exc:
        raise SessionNotFound(
            errno.ENOENT, f"no session {session_id!r} in {directory}", str(path)
        ) from exc
    try:
        return _replay(ops.read_all(fd)).records
    finally:
        os.close(fd)


@attrs.define(eq=False)
class Journal:
    """An open session journal. Build it with :meth:`create` or :meth:`open`.

    See the module docstring for the append, rollback and replay semantics.
    """

    session_id: str = attrs.field(on_setattr=attrs.setters.frozen)
    path: Path = attrs.field(on_setattr=attrs.setters.frozen)
    _ops: FileOps = attrs.field(repr=False)
    _fd: int = attrs.field(repr=False)
    _clock: Callable[[], float] = attrs.field(repr=False)
    _length: int = 0
    _next_seq: int = 0
    _state: StorageState = StorageState.OK
    _warnings: list[str] = attrs.Factory(list)
    _closed: bool = False
    _owner: object = attrs.field(default=None, repr=False)

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
        data_dir: Path | None = None,
        session_id: str | None = None,
        file_ops: FileOps | None = None,
        clock: Callable[[], float] = time.time,
        app_version: str = __version__,
    ) -> Journal:
        """Start a new session file and save :class:`SessionStarted` as seq 0.

        Raises :class:`FileExistsError` if the session exists, :class:`StorageError` if the
        first line cannot be saved (the file is then removed).
        """
        ops = FileOps() if file_ops is None else file_ops
        directory = default_data_dir() if data_dir is None else data_dir
        if session_id is not None:
            validate_session_id(session_id)
        created_dir = ops.make_dir(directory)
        for _attempt in range(5):
            sid = new_session_id(clock) if session_id is None else session_id
            path = directory / f"{sid}{SUFFIX}"
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
            journal.append(SessionStarted(sid, float(clock()), app_version))
            try:
                ops.fsync_dir(directory)
                if created_dir:
                    ops.fsync_dir(directory.parent)
            except OSError as exc:
                raise StorageError(
                    f"could not save new session {sid!r} in {directory} "
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
        data_dir: Path | None = None,
        file_ops: FileOps | None = None,
        clock: Callable[[], float] = time.time,
    ) -> tuple[Journal, list[Record]]:
        """Open an existing session for appending and replay it.

        Returns the journal and every record that decodes, in file order. A torn last line is
        truncated off the file; damaged lines are skipped. Both leave a message in
        :attr:`warnings`. If the torn tail cannot be truncated, the journal opens
        :attr:`~StorageState.UNCONFIRMED`. Raises :class:`SessionNotFound` for an unknown id.
        """
        validate_session_id(session_id)
        ops = FileOps() if file_ops is None else file_ops
        directory = default_data_dir() if data_dir is None else data_dir
        path = directory / f"{session_id}{SUFFIX}"
        try:
            fd = ops.open(path)
        except FileNotFoundError as exc:
            raise SessionNotFound(
                errno.ENOENT, f"no session {session_id!r} in {directory}", str(path)
            ) from exc
        try:
            ops.lock(fd, path)
            data = ops.read_all(fd)
            replay = _replay(data)
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
            )
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
        return self._state

    @property
    def warnings(self) -> tuple[str, ...]:
        """Problems found (and repaired where possible) while opening or closing, in order."""
        return tuple(self._warnings)

    @property
    def closed(self) -> bool:
        return self._closed

    # -- appending ------------------------------------------------------------------------

    def append(self, entry: Entry) -> Record:
        """Save ``entry`` as the next line and fsync it; the returned record acknowledges it.

        Raises :class:`StorageError` (rolled back, nothing saved, journal still usable) or
        :class:`StorageUnconfirmed` (journal refuses all further appends).
        """
        if self._closed:
            raise ValueError(f"journal {self.session_id!r} is closed")
        if self._state is StorageState.UNCONFIRMED:
            raise StorageUnconfirmed(
                f"session {self.session_id!r}: storage unconfirmed after an earlier failure; "
                "refusing to append, nothing was saved"
            )
        seq, ts = self._next_seq, float(self._clock())
        line = encode(seq, ts, entry)
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
        self._length += len(line)
        self._next_seq = seq + 1
        return Record(seq, ts, entry)

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
