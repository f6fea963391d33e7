"""Shared test configuration: hypothesis profiles, and the fixtures many test files use.

``HYPOTHESIS_PROFILE=deep`` runs the property tests much longer (for hunting bugs locally);
the default profile keeps CI within its time budget.

Fixtures (the code behind them is in tests/support/, see its ``__init__``):

* ``rig`` — a real host on a real journal in the test's temporary folder
  (:class:`support.rig.Rig`), closed at the end;
* ``launch`` — starts the real ``asks`` under a pty with private folders
  (:class:`support.launcher.Launcher`); every app it started is closed at the end;
* ``server`` — a fake OpenAI-compatible provider on 127.0.0.1
  (:class:`support.fake_openai.FakeOpenAI`; tests/test_anthropic_model.py has its own, the
  Anthropic one), stopped at the end;
* ``real_clients`` — the real Claude Code and Codex against fake models
  (:class:`support.realclients.RealClients`), every one ended at the end;
* ``hub`` — the hub's MCP server on a free 127.0.0.1 port in the test's nursery, in front of
  the ``rig``'s host (shared token :data:`support.hub.TOKEN`, in the rig's data dir).
"""

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import trio
from hypothesis import HealthCheck, settings
from support.fake_openai import FakeOpenAI
from support.launcher import Launcher
from support.rig import Rig

if TYPE_CHECKING:
    from support.realclients import RealClients

    from asks.hub.server import HubServer

settings.register_profile(
    "default", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig.create(tmp_path)
    yield made
    made.journal.close()


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launcher]:
    launcher = Launcher(tmp_path)
    try:
        yield launcher
    finally:
        launcher.close()


@pytest.fixture
def real_clients(tmp_path: Path) -> Iterator["RealClients"]:
    """The real Claude Code and Codex (tests/support/realclients), all ended at the end."""
    from support.realclients import RealClients  # noqa: PLC0415

    clients = RealClients(tmp_path / "clients")
    try:
        yield clients
    finally:
        clients.close()


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
async def hub(rig: Rig, nursery: trio.Nursery) -> AsyncIterator["HubServer"]:
    # The hub's code (mcp, starlette, pydantic) loads only for the tests that use it.
    from support.hub import TOKEN, keyring_with  # noqa: PLC0415

    from asks.hub.listen import bind_listener  # noqa: PLC0415
    from asks.hub.server import HubServer  # noqa: PLC0415

    keyring = keyring_with(rig.directory, TOKEN)
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0), progress_every=0.05)
    await nursery.start(server.run)
    yield server
