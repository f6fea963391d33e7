"""Diagnostics: the opt-in debug log, and the words that point the person to it.

asks logs with the standard :mod:`logging` module, under the ``asks`` logger (one child per
module: ``asks.agent.loop``, ``asks.surfaces.web``, …): an unexpected exception (a bug) with its
traceback, a provider failure with the chain of errors behind its one line. The person sees
one line (in the transcript, on stderr); the details go to the log.

* **Off by default, and silent then.** Until :func:`open_debug_log` runs nothing is written
  anywhere — not even warnings: Python's last-resort handler would print them on stderr, the
  terminal the REPL draws on. :func:`logger` gives the ``asks`` logger a
  :class:`logging.NullHandler` before handing out a logger, so records without any other
  handler go nowhere; records still propagate, so an embedder who configures logging gets
  them.
* **On** (``asks --debug-log FILE``, or the environment variable :data:`ENV`): a file, created
  0600 and appended to, never a terminal (refused), with a handler on the *root* logger, so
  the libraries' records (httpx, the MCP SDK) land there too: asks' own from DEBUG, the
  others' from INFO, each line sanitized (:class:`SafeFormatter`: what a client or an agent
  sent reaches the file as inert text). One process has at most one debug log.
  :meth:`DebugLog.close` puts the logging configuration back as it was.
* :func:`details` is how every one-line notice of an unexpected error ends: ``details: FILE``
  while the log is on, else ``details: --debug-log FILE`` (how to get them next time).
  :func:`unexpected` logs an exception with its traceback and returns that line;
  :func:`with_details` ends an expected failure's line (a provider's) with the log's path
  only while it is on.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TextIO

from asks.core.i18n import _
from asks.core.version import __version__
from asks.sanitize import sanitize_line, sanitize_text

ROOT: Final = "asks"
ENV: Final = "ASKS_DEBUG_LOG"
FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LINE_MAX: Final = 300  # characters of an exception's message in a one-line notice


class SafeFormatter(logging.Formatter):
    """The debug log's lines: a record's message is one line of inert text whoever wrote it
    (:func:`~asks.sanitize.sanitize_line`: a client's header value, an agent's label or text,
    quoted by asks or by a library, carries no escape sequence and cannot start a line of its
    own), and a traceback or stack is inert text that keeps its newlines
    (:func:`~asks.sanitize.sanitize_text`). The record is not changed: other handlers (an
    embedder's) see it as it was logged."""

    def format(self, record: logging.LogRecord) -> str:
        safe = logging.makeLogRecord(record.__dict__)
        safe.msg, safe.args = sanitize_line(record.getMessage()), None
        safe.exc_text = sanitize_text(record.exc_text) if record.exc_text else None
        return super().format(safe)

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        return sanitize_text(super().formatException(ei))

    def formatStack(self, stack_info: str) -> str:  # noqa: N802 (logging's name)
        return sanitize_text(super().formatStack(stack_info))


class DebugLogError(OSError):
    """The debug log cannot be opened (one line: the path and the reason)."""


class DebugLog(logging.StreamHandler[TextIO]):
    """The open debug log: its handler on the root logger (module docstring)."""

    def __init__(self, path: Path, stream: TextIO, levels: tuple[int, ...]) -> None:
        super().__init__(stream)
        self.path = path
        self._levels = levels  # the root's and asks' logger levels before it was opened

    def close(self) -> None:
        """Stop logging to the file and close it; the levels are put back."""
        root, own = logging.getLogger(), logging.getLogger(ROOT)
        root.removeHandler(self)
        if self._levels:
            root.setLevel(self._levels[0])
            own.setLevel(self._levels[1])
            self._levels = ()
        super().close()


def open_debug_log(path: Path) -> DebugLog:
    """Turn the debug log on, writing to ``path`` (module docstring). Raises
    :class:`DebugLogError` when it cannot be opened, is a terminal, or one is already open."""
    if debug_log_path() is not None:
        raise DebugLogError(_("a debug log is already open ({path})").format(path=debug_log_path()))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise DebugLogError(
            _("cannot open the debug log {path}: {reason}").format(
                path=path, reason=exc.strerror or exc
            )
        ) from exc
    if os.isatty(fd):
        os.close(fd)
        raise DebugLogError(_("the debug log {path} is a terminal; name a file").format(path=path))
    if stat.S_ISREG(os.fstat(fd).st_mode):
        os.fchmod(fd, 0o600)  # an existing file too: tracebacks can quote what was typed
    stream = open(fd, "a", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115 (closed by it)
    root, own = logging.getLogger(), logging.getLogger(ROOT)
    log = DebugLog(path, stream, (root.level, own.level))
    log.setFormatter(SafeFormatter(FORMAT))
    root.addHandler(log)
    root.setLevel(min(root.getEffectiveLevel(), logging.INFO))
    own.setLevel(logging.DEBUG)
    logger(__name__).info(
        "asks %s, Python %s, pid %d: debug log opened",
        __version__,
        sys.version.split()[0],
        os.getpid(),
    )
    return log


def open_requested(path: Path | None, env: Mapping[str, str]) -> DebugLog | None:
    """The debug log the command line asks for: ``path`` (``--debug-log``), else the file
    named by :data:`ENV` in ``env`` (empty: none); ``None`` when neither."""
    wanted = path or (Path(env[ENV]) if env.get(ENV) else None)
    return None if wanted is None else open_debug_log(wanted)


def debug_log_path() -> Path | None:
    """The open debug log's file, else ``None``."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, DebugLog):
            return handler.path
    return None


def logger(name: str) -> logging.Logger:
    """The logger of module ``name`` (under ``asks``), silent while nothing listens (module
    docstring)."""
    own = logging.getLogger(ROOT)
    if not own.handlers:
        own.addHandler(logging.NullHandler())
    return logging.getLogger(name)


def debug_logger(name: str) -> logging.Logger | None:
    """The logger ``name`` while the debug log is on, else ``None``: for a library that
    would otherwise write to stderr itself (hypercorn's ``errorlog``)."""
    return None if debug_log_path() is None else logging.getLogger(name)


def details() -> str:
    """Where the details of an error are, or how to get them (module docstring)."""
    path = debug_log_path()
    if path is None:
        return _("details: --debug-log FILE")
    return _("details: {path}").format(path=path)


def with_details(text: str) -> str:
    """``text``, followed by where its details are while the debug log is on."""
    return text if debug_log_path() is None else f"{text} ({details()})"


def leaf(exc: BaseException) -> BaseException:
    """The exception behind groups of one (a nursery wraps a task's exception in one)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def unexpected(exc: BaseException, where: str, what: str = "unexpected error") -> str:
    """Log ``exc`` with its traceback under the logger ``where`` (``what`` happened); the
    one line for the person: ``Type: message (details: …)``. ``what`` may quote a client
    (a request's path): it is logged as inert text, for every handler."""
    logger(where).error("%s", sanitize_line(what), exc_info=exc)
    inner = leaf(exc)
    text = sanitize_line(str(inner))[:LINE_MAX]
    said = f"{type(inner).__name__}: {text}" if text else type(inner).__name__
    return f"{said} ({details()})"
