"""Reading a child's piped stdout (``asks`` in line mode from a pipe) until a line shows up."""

from __future__ import annotations

import os
import re
import select
import subprocess
import time

import pytest

WAIT = 30.0  # seconds before a missing line fails a test (never an assertion about speed)


def read_until(proc: subprocess.Popen[bytes], pattern: str, seen: bytearray) -> re.Match[str]:
    """Read the child's stdout into ``seen`` until ``pattern`` matches it."""
    assert proc.stdout is not None
    deadline = time.monotonic() + WAIT
    while not (found := re.search(pattern, seen.decode(errors="replace"), re.MULTILINE)):
        left = deadline - time.monotonic()
        readable, _, _ = select.select([proc.stdout], [], [], max(left, 0))
        chunk = os.read(proc.stdout.fileno(), 65536) if readable else b""
        if not chunk:
            pytest.fail(f"{pattern!r} never came; output so far:\n{seen.decode()}")
        seen += chunk
    return found
