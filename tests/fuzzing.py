"""The settings every fuzz test shares: bounded and derandomized, so CI runs the same examples every time."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
