"""Session files on disk, without their contents: where they live, their names, the listing,
and the file-system seam every journal operation goes through.

* A session is ``<data_dir>/<session_id>.jsonl`` (file 0600, directory 0700); the default data
  dir is ``<XDG user data dir>/asks/sessions``: platformdirs' user data dir, which on Linux is
  computed here by its rule (``$XDG_DATA_HOME`` if absolute, else ``$HOME/.local/share``; the
  same path, ``tests/test_data_dir.py``) without importing platformdirs (~2 ms of the launch);
  anywhere its answer is not that rule (another system, Android, no absolute ``HOME``)
  platformdirs is asked.
* Session ids are ``[A-Za-z0-9_.-]``, 1-128 characters, no leading dot (safe as file names);
  new ones are ``YYYYMMDD-HHMMSS-<6 hex>`` (UTC).
* :func:`list_sessions` reads directory metadata only (no replay), newest first.
* :class:`FileOps` is the seam: the default calls :mod:`os`; tests subclass it to inject faults.
  Its ``lock`` is the one-writer ``flock`` (:class:`SessionLocked` when another process holds it;
  the kernel drops it when that process dies).
* Error texts name the OS reason as a person reads it (:func:`os_reason`), never ``[Errno N]``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import mmap
import os
import re
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeAlias

import attrs

__all__ = [
    "DIR_MODE",
    "FILE_MODE",
    "SUFFIX",
    "Data",
    "FileOps",
    "InvalidSessionId",
    "SessionInfo",
    "SessionLocked",
    "SessionNotFound",
    "default_data_dir",
    "list_sessions",
    "new_session_id",
    "os_reason",
    "session_path",
    "user_data_path",
    "validate_session_id",
]

SUFFIX: Final = ".jsonl"
FILE_MODE: Final = 0o600
DIR_MODE: Final = 0o700
MAX_SESSION_ID: Final = 128
_READ_CHUNK: Final = 1 << 20
Data: TypeAlias = bytes | mmap.mmap  # a journal's bytes, read or mapped (FileOps.map_all)
# Leading dot refused: no ".", "..", or hidden files.
_SESSION_ID_RE: Final = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")


class SessionNotFound(FileNotFoundError):  # noqa: N818 (name fixed by the design)
    """No journal file exists for the requested session id."""


class SessionLocked(OSError):  # noqa: N818 (reads better at the call site)
    """Another process has this session open for writing."""

    def __str__(self) -> str:  # "… (PATH)", not "[Errno 11] …: 'PATH'"
        return f"{self.strerror} ({self.filename})" if self.filename else str(self.strerror)


def os_reason(exc: OSError) -> str:
    """What went wrong, for a person: ``No space left on device``, not ``[Errno 28] …``."""
    return exc.strerror or str(exc)


def session_path(directory: Path, session_id: str) -> Path:
    return directory / f"{session_id}{SUFFIX}"


def default_data_dir() -> Path:
    """Where sessions live by default: ``<XDG user data dir>/asks/sessions``."""
    return user_data_path() / "sessions"


def user_data_path() -> Path:
    """``platformdirs.user_data_path("asks")``, by its XDG rule where that is its answer."""
    base = _xdg_data_home()
    if base is None:
        import platformdirs  # noqa: PLC0415 (launch cost: module docstring)

        return platformdirs.user_data_path("asks")
    return base / "asks"


def _xdg_data_home() -> Path | None:
    """platformdirs' user data root on Linux: ``$XDG_DATA_HOME`` when it is an absolute path,
    else ``~/.local/share`` with an absolute ``$HOME``; ``None`` where platformdirs answers
    otherwise (another system, Android, ``HOME`` unset or relative)."""
    if sys.platform != "linux" or "ANDROID_DATA" in os.environ:
        return None
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg.startswith("/"):
        return Path(xdg)
    home = os.environ.get("HOME", "")
    return Path(home, ".local", "share") if home.startswith("/") else None


class InvalidSessionId(ValueError):  # noqa: N818 (reads better at the call site)
    """A session id that cannot name a journal file (one line saying what is allowed)."""


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` if it is safe as a file name, else raise
    :class:`InvalidSessionId`.

    Allowed: ``[A-Za-z0-9_.-]``, 1 to 128 characters, not starting with a dot.
    """
    if len(session_id) > MAX_SESSION_ID or not _SESSION_ID_RE.fullmatch(session_id):
        raise InvalidSessionId(
            f"invalid session id {session_id!r}: use 1-{MAX_SESSION_ID} characters from "
            "A-Z a-z 0-9 _ . - and do not start with a dot"
        )
    return session_id


def new_session_id(clock: Callable[[], float] = time.time) -> str:
    """A fresh id ``YYYYMMDD-HHMMSS-<6 hex>`` (UTC time from ``clock``, to the second below it;
    random suffix). ``time``, not ``datetime``: its import is ~0.8 ms of the launch."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(clock()))
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

    def map_all(self, fd: int, path: Path) -> Data:
        """The whole file open as ``fd`` at ``path``, mapped read-only: no copy, its pages
        read as they are touched (slices are ``bytes``). For a replay whose checkpoint's
        records read their lines from it when first built (:mod:`asks.store.records`): once
        :meth:`release` drops the pages from this process, a line is paged in again (from
        the page cache) only when its record is first read. An empty file is ``b""``.

        Mapped through a descriptor of its own, opened read-only and closed at once: a
        mapping keeps a duplicate of the descriptor it was made from, and one sharing
        ``fd``'s open file would hold the writer's lock (``flock``) for as long as any record
        lives, past :meth:`close`. If ``path`` is no longer that file, the bytes are read."""
        if not os.fstat(fd).st_size:
            return b""
        reader = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            same = os.path.samestat(os.fstat(reader), os.fstat(fd))
            return mmap.mmap(reader, 0, prot=mmap.PROT_READ) if same else self.read_all(fd)
        finally:
            os.close(reader)

    def release(self, data: Data) -> None:
        """Drop the mapped pages of ``data`` (from :meth:`map_all`) from this process's
        memory; they are read again on access. Nothing for plain bytes."""
        if isinstance(data, mmap.mmap):
            data.madvise(mmap.MADV_DONTNEED)

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

    def read_from(self, fd: int, offset: int) -> bytes:
        """The file's bytes from ``offset`` to its end."""
        chunks = []
        while chunk := os.pread(fd, max(_READ_CHUNK, os.fstat(fd).st_size - offset), offset):
            chunks.append(chunk)
            offset += len(chunk)
        return b"".join(chunks)

    def read_at(self, fd: int, offset: int, size: int) -> bytes:
        """The file's ``size`` bytes from ``offset`` (fewer only at its end)."""
        chunks = []
        while size > 0 and (chunk := os.pread(fd, size, offset)):
            chunks.append(chunk)
            offset += len(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def write(self, fd: int, data: bytes) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def truncate(self, fd: int, length: int) -> None:
        os.ftruncate(fd, length)

    def size(self, fd: int) -> int:
        return os.fstat(fd).st_size

    def status(self, fd: int) -> os.stat_result:
        return os.fstat(fd)

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

    def read_file(self, path: Path) -> bytes:
        """The whole of a side file (the resume checkpoint)."""
        return path.read_bytes()

    def replace_file(self, path: Path, data: bytes) -> None:
        """Put ``data`` at ``path`` by writing a temporary file (0600) and renaming it over,
        without fsync: for side files that are checked before use (the resume checkpoint)."""
        temporary = path.with_name(path.name + ".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


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
