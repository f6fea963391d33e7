"""``read_file`` for real models: a text file under the working directory, bounded, no prompt.

Semantics of :class:`ReadFileTool`:

* ``path`` is relative to the directory asks was started in (an absolute path is accepted when
  it lies inside it). It is resolved with symlinks followed; a result outside that directory is
  ``Error [outside_workdir]`` — ``..`` and symlinks cannot leave it.
* Only regular files: a missing path is ``not_found``, a directory or device ``not_a_file``.
* At most :data:`MAX_BYTES`: a larger file is ``file_too_large`` (with its size) and nothing is
  read. A file with a NUL byte, or that is not UTF-8, is ``binary_file``. An OS error is
  ``unreadable``.
* Reading needs no permission (it changes nothing and stays in the working directory); it runs
  in a worker thread so a slow disk does not stall the UI.
* The result is one line naming the file and its size, then the text.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any, Final

import attrs
import trio

from asks import contract
from asks.agent.loop import ToolCall, ToolContext
from asks.agent.toolkit import arguments_of, function_schema, invalid
from asks.contract.errors import quote

MAX_BYTES: Final = 128 * 1024
_SNIFF: Final = 8192


def _error(code: contract.ErrorCode, message: str) -> str:
    return contract.ToolError(code, message).text


def _decoded(data: bytes) -> str | None:
    """UTF-8 text, or ``None`` for binary data (a NUL byte, or not UTF-8)."""
    if b"\0" in data[:_SNIFF]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_text(root: Path, path: str) -> str:
    """The result text for ``path`` under ``root`` (module docstring). Blocking I/O."""
    base = root.resolve()
    try:
        target = (base / path).resolve()
    except (OSError, ValueError, RuntimeError):
        return invalid(f"{quote(path)} is not a usable path.")
    if not target.is_relative_to(base):
        return _error(
            contract.ErrorCode.OUTSIDE_WORKDIR,
            f"{quote(path)} is outside the working directory {base}; only files "
            "under it can be read.",
        )
    shown = quote(str(target.relative_to(base)) or ".")
    try:
        info = target.stat()
    except FileNotFoundError:
        return _error(contract.ErrorCode.NOT_FOUND, f"there is no file {shown}.")
    except OSError as exc:
        return _error(
            contract.ErrorCode.UNREADABLE,
            f"{shown} cannot be read ({exc.strerror or type(exc).__name__}).",
        )
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        return _error(contract.ErrorCode.NOT_A_FILE, f"{shown} is {kind}.")
    if info.st_size > MAX_BYTES:
        return _error(
            contract.ErrorCode.FILE_TOO_LARGE,
            f"{shown} has {info.st_size:,} bytes; at most {MAX_BYTES:,} can be read. "
            "Use run_command (e.g. head, grep) to look at parts of it.",
        )
    try:
        with open(target, "rb") as file:
            data = file.read(MAX_BYTES + 1)
    except OSError as exc:
        return _error(
            contract.ErrorCode.UNREADABLE,
            f"{shown} cannot be read ({exc.strerror or type(exc).__name__}).",
        )
    if len(data) > MAX_BYTES:  # it grew since stat
        return _error(
            contract.ErrorCode.FILE_TOO_LARGE, f"{shown} has more than {MAX_BYTES:,} bytes."
        )
    text = _decoded(data)
    if text is None:
        return _error(
            contract.ErrorCode.BINARY_FILE,
            f"{shown} is not a UTF-8 text file; read_file only reads text.",
        )
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return f"{shown}: {len(data):,} bytes, {lines} lines.\n{text}"


@attrs.frozen
class ReadFileTool:
    """The ``read_file`` tool (module docstring)."""

    cwd: Path
    name: str = "read_file"

    def schema(self) -> dict[str, Any]:
        return function_schema(
            self.name,
            f"Read a UTF-8 text file under the working directory {self.cwd} (at most "
            f"{MAX_BYTES // 1024} KiB). No permission needed.",
            {
                "path": {
                    "type": "string",
                    "description": "The file's path, relative to the working directory.",
                }
            },
            ("path",),
        )

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        args = arguments_of(call)
        if isinstance(args, contract.ToolError):
            return args.text
        path = args.get("path")
        if not isinstance(path, str) or not path.strip():
            return invalid('"path" must be a non-empty string: a file under the working directory.')
        return await trio.to_thread.run_sync(read_text, self.cwd, path)
