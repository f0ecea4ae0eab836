"""Test configuration: hypothesis profiles and the ``slow`` marker.

Hypothesis profiles
-------------------
``ci``: derandomized (the same examples every run), no deadline, prints the
reproduce blob on failure.  ``dev``: random examples, fewer of them.  The
profile is HYPOTHESIS_PROFILE if set, else ``ci`` when CI is set, else ``dev``.

Slow tests
----------
Tests marked ``slow`` (large Monte Carlo grids) run with ``--run-slow`` or
when the CI environment variable is set, as it is in ``.ci/run``.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

# tests/fixtures holds genuine harness outputs and the harness scripts that wrote them (they import
# lm_eval / inspect_ai); they are data, not test modules.
collect_ignore_glob = ["fixtures/*"]

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False, help="run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow") or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(reason="slow: pass --run-slow (CI=true runs it)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
