"""The hub's bearer token: one per user, in ``<data dir>/mcp-token``, mode 0600.

Created on first use (:func:`load_token`), the same across restarts so that a client's config
keeps working, replaced by :func:`rotate_token` (``asks mcp token --rotate``). Written
atomically: a temporary file created 0600 in the same folder, then ``os.replace``. Compared in
constant time (:func:`token_matches`).
"""

from __future__ import annotations

import hmac
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
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    path = token_path(data_dir)
    temporary = path.with_name(f".{TOKEN_FILE}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, f"{token}\n".encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)
    return token


def token_matches(expected: str, authorization: str | None) -> bool:
    """Is ``authorization`` exactly ``Bearer <expected>`` (constant-time comparison)?"""
    given = (authorization or "").encode("utf-8", "replace")
    return hmac.compare_digest(given, f"Bearer {expected}".encode("ascii"))
