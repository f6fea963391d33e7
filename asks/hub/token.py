"""The hub's shared bearer token: one per user, in ``<data dir>/mcp-token``, mode 0600.

It lets a client speak as any agent (the agents' own tokens: :mod:`asks.hub.credentials`).
Created on first use (:func:`load_token`), the same across restarts so that a client's config
keeps working, replaced by :func:`rotate_token` (``asks mcp token --rotate``). Written
atomically (:func:`write_private`); a running hub reads it again when it changes.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Final

TOKEN_FILE: Final = "mcp-token"
TOKEN_BYTES: Final = 32


def token_path(data_dir: Path) -> Path:
    return data_dir / TOKEN_FILE


def load_token(data_dir: Path) -> str:
    """The user's token, created (0600) if there is none or the file holds no token."""
    path = token_path(data_dir)
    try:
        token = path.read_text(encoding="ascii").strip()
    except (FileNotFoundError, UnicodeDecodeError):
        token = ""
    return token or rotate_token(data_dir)


def rotate_token(data_dir: Path) -> str:
    """Write a new token (atomically, 0600) and return it."""
    token = new_token()
    write_private(token_path(data_dir), f"{token}\n")
    return token


def new_token() -> str:
    """A fresh bearer token (:data:`TOKEN_BYTES` random bytes, URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically, mode 0600: a temporary file created 0600 in
    the same folder (made 0700 if missing), written and synced, then ``os.replace``. A reader
    sees the old file or the new one, never a part; the new one is a new inode."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(text.encode("utf-8"))
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
