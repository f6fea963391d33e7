"""Shared test configuration: hypothesis profiles.

``HYPOTHESIS_PROFILE=deep`` runs the property tests much longer (for hunting bugs locally);
the default profile keeps CI within its time budget.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
