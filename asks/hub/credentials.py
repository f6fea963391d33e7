"""Who may speak to the hub, and as whom: the shared token and the agents' own tokens.

Two kinds of credential, both files in the data dir, mode 0600, written atomically
(:func:`asks.hub.token.write_private`):

* the **shared token** ``mcp-token`` (:mod:`asks.hub.token`) — *any agent*: a request that
  carries it speaks as the label it gives (``X-Asks-Agent``, else its client's name);
* **agent tokens** ``mcp-agents.json`` — ``{"agents": {"reviewer": "<token>"}}``: a request
  that carries one speaks as that agent and no other. :func:`agent_token` mints one (or gives
  the one there is, so that printing a client's config twice gives the same token), with
  ``rotate`` replaces it; :func:`revoke_agent` removes it. Tokens are kept, not hashes: the
  config command prints an agent's token again, as it prints the shared one.

A running hub judges every request by the files as they are when it arrives
(:class:`Keyring`): one ``stat`` per file per request, a file re-read when its (inode,
mtime, size) changed. An atomic replace always makes a new inode, so a rotation or a
revocation refuses the old token from the next request on. No thread, no interval.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path
from typing import Final

import attrs

from asks.hub.identity import label_problem
from asks.hub.token import new_token, token_path, write_private

AGENTS_FILE: Final = "mcp-agents.json"
BEARER: Final = "Bearer "


@attrs.frozen
class Credential:
    """What an accepted token allows: ``agent`` is the one agent it speaks as, ``None`` for
    the shared token (any agent)."""

    agent: str | None


def agents_path(data_dir: Path) -> Path:
    return data_dir / AGENTS_FILE


def agent_tokens(data_dir: Path) -> dict[str, str]:
    """The agents' tokens by name (none if the file is missing or unreadable as one)."""
    return _parse_agents(_read(agents_path(data_dir)))


def agent_token(data_dir: Path, name: str, *, rotate: bool = False) -> str:
    """Agent ``name``'s token: the one there is, or a new one (always new with ``rotate``).
    Raises :class:`ValueError` (a sentence) if ``name`` is not a label."""
    problem = label_problem(name)
    if problem is not None:
        raise ValueError(f"the agent name {name!r} {problem}")
    tokens = agent_tokens(data_dir)
    if rotate or name not in tokens:
        tokens[name] = new_token()
        _write_agents(data_dir, tokens)
    return tokens[name]


def revoke_agent(data_dir: Path, name: str) -> bool:
    """Remove agent ``name``'s token; ``False`` if it had none."""
    tokens = agent_tokens(data_dir)
    if tokens.pop(name, None) is None:
        return False
    _write_agents(data_dir, tokens)
    return True


def _write_agents(data_dir: Path, tokens: dict[str, str]) -> None:
    text = json.dumps({"agents": dict(sorted(tokens.items()))}, indent=2)
    write_private(agents_path(data_dir), text + "\n")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return ""


def _parse_agents(text: str) -> dict[str, str]:
    try:
        parsed = json.loads(text) if text else {}
    except ValueError:
        return {}
    agents = parsed.get("agents") if isinstance(parsed, dict) else None
    if not isinstance(agents, dict):
        return {}
    return {
        name: token
        for name, token in agents.items()
        if isinstance(token, str) and token and label_problem(name) is None
    }


Signature = tuple[int, int, int] | None  # (inode, mtime_ns, size) of a file; None: no file


def _signature(path: str) -> Signature:
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return (found.st_ino, found.st_mtime_ns, found.st_size)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


@attrs.define(eq=False)
class Keyring:
    """The credentials of ``data_dir`` as they are now (module docstring)."""

    data_dir: Path
    _files: tuple[str, str] = attrs.field(init=False)  # the shared token's, the agents'
    _seen: dict[str, Signature] = attrs.field(init=False, factory=dict)
    _shared: bytes | None = attrs.field(init=False, default=None)  # its digest
    _agents: dict[bytes, tuple[str, str]] = attrs.field(init=False, factory=dict)

    def credential(self, authorization: str | None) -> Credential | None:
        """What ``Authorization: Bearer <token>`` allows now, or ``None`` (no such token)."""
        self._refresh()
        if authorization is None or not authorization.startswith(BEARER):
            return None
        given = authorization[len(BEARER) :]
        digest = _digest(given)
        if self._shared is not None and hmac.compare_digest(digest, self._shared):
            return Credential(None)
        found = self._agents.get(digest)
        if found is not None and hmac.compare_digest(found[1].encode(), given.encode()):
            return Credential(found[0])
        return None

    @_files.default
    def _paths(self) -> tuple[str, str]:
        return str(token_path(self.data_dir)), str(agents_path(self.data_dir))

    def _refresh(self) -> None:
        shared, agents = self._files
        if self._changed(shared):
            text = _read(Path(shared)).strip()
            self._shared = _digest(text) if text else None
        if self._changed(agents):
            tokens = _parse_agents(_read(Path(agents)))
            self._agents = {_digest(token): (name, token) for name, token in tokens.items()}

    def _changed(self, path: str) -> bool:
        now = _signature(path)
        if path in self._seen and self._seen[path] == now:
            return False
        self._seen[path] = now
        return True
