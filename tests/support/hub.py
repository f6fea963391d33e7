"""The hub's side of the tests: outside agents on the official MCP client, and asks as one.

In process (the ``hub`` fixture of tests/conftest.py: a :class:`asks.hub.server.HubServer` on
a real host, token :data:`TOKEN`): :func:`client`. Against a running ``asks --mcp`` or
``asks hub`` under a pty: :func:`token_of` and :func:`agent`. On a bare host (no server):
:func:`hub_ask`, :func:`hub_receipts`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
import trio
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from asks.contract import ResultEnvelope
from asks.core.model import QuestionRef
from asks.host.hub import recipient_of
from asks.hub.credentials import Keyring
from asks.hub.server import HubServer
from asks.hub.token import token_path, write_private
from support.launcher import Launcher
from support.pty_harness import PtyApp
from support.rig import Rig, call, q

TOKEN = "test-token-0123456789"  # the in-process hub's bearer token
DB = {
    "question": "Which database?",
    "header": "Database",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}],
}


HELLO = {  # an initialize request: 200 with a session when the credential is accepted
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}


# ---------------------------------------------------------------------------- clients
def keyring_with(data_dir: Path, token: str) -> Keyring:
    """The credentials of ``data_dir``, whose shared token is ``token``."""
    write_private(token_path(data_dir), f"{token}\n")
    return Keyring(data_dir)


def client(server: HubServer, agent: str | None = "planner", *, mode: str = "auto") -> Client:
    """The SDK's client as agent ``agent`` (None: no ``X-Asks-Agent``) of the in-process hub."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if agent is not None:
        headers["X-Asks-Agent"] = agent
    assert server.url is not None
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return Client(streamable_http_client(server.url, http_client=http), mode=mode)


def agent(url: str, token: str, name: str | None, client_name: str = "mcp") -> Client:
    """The SDK's client as agent ``name`` of the hub at ``url`` (a running asks)."""
    headers = {"Authorization": f"Bearer {token}"}
    if name is not None:
        headers["X-Asks-Agent"] = name
    http = httpx2.AsyncClient(headers=headers, timeout=60)
    return Client(
        streamable_http_client(url, http_client=http),
        client_info=Implementation(name=client_name, version="1"),
    )


def token_of(launch: Launcher) -> str:
    """The hub token of the launcher's data dir (``asks mcp token``)."""
    return subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(launch.data_dir)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def text_of(result: Any) -> str:
    """The text of a tool result."""
    return "".join(part.text for part in result.content)


def first_id(result: Any) -> str:
    """The first question id a tool result names."""
    found = re.search(r"q-[0-9a-f]{10}", text_of(result))
    assert found is not None, text_of(result)
    return found.group(0)


async def in_thread(function: Any, *args: Any) -> Any:
    """A blocking call (a pty wait, a key) off the trio thread the client runs on."""
    return await trio.to_thread.run_sync(function, *args)


# ---------------------------------------------------------------------------- on a host
def receipts(rig: Rig) -> list[list[str]]:
    """The question ids of each ``offer_delivered`` line, in journal order."""
    return [[r["id"] for r in line["refs"]] for line in rig.lines_of("offer_delivered")]


def hub_ask(rig: Rig, label: str, call_id: str, text: str) -> QuestionRef:
    """Agent ``label`` asks one async question; its ref."""
    reply = rig.host.hub_port.start_call(label, call_id, call(q(text), blocking=False))
    assert isinstance(reply, ResultEnvelope), reply
    return rig.ref(f"{recipient_of(label)}:{call_id}")


def hub_receipts(rig: Rig) -> Counter[QuestionRef]:
    """How many ``offer_delivered`` lines name each ref."""
    counts: Counter[QuestionRef] = Counter()
    for line in rig.lines_of("offer_delivered"):
        counts.update(QuestionRef(r["id"], r["incarnation"]) for r in line["refs"])
    return counts


# ---------------------------------------------------------------------------- the hub under a pty
def start_hub(launch: Launcher) -> tuple[PtyApp, str, str]:
    """``asks --mcp`` on a free port: the app, the hub's URL (from the screen), the token."""
    app = launch.start("--mcp", "--mcp-port", "0", script="hub_quiet.toml", cols=140)
    found = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)")
    app.wait_for("QUIET-READY")
    token = subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(launch.data_dir)],
        capture_output=True,
        text=True,
        check=True,
        env=None,
    ).stdout.strip()
    return app, found.group(1), token
