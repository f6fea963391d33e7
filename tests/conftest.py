"""Shared test configuration: hypothesis profiles, and the ``launch`` fixture of the pty tests
(a :class:`test_e2e.Launcher` whose apps are all closed at the end).

``HYPOTHESIS_PROFILE=deep`` runs the property tests much longer (for hunting bugs locally);
the default profile keeps CI within its time budget.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from test_e2e import Launcher

settings.register_profile(
    "default", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launcher]:
    launcher = Launcher(tmp_path)
    try:
        yield launcher
    finally:
        launcher.close()
