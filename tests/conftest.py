"""Test-suite settings: test tiers, and property tests that are reproducible in CI.

Tiers (markers registered in pyproject.toml; ``--strict-markers`` refuses any other)::

    .venv/bin/python -m pytest -m unit                              # the fast tier: library, CLI, doctests
    .venv/bin/python -m pytest -m app                               # the Streamlit dashboard (AppTest)
    .venv/bin/python -m pytest -m browser                           # Chromium via Playwright
    .venv/bin/python -m pytest -m wheel                             # builds the wheel
    .venv/bin/python -m pytest -m data                              # real public data files beside the repository
    .venv/bin/python -m pytest -m "app or browser or wheel or data" # everything but the fast tier
    .venv/bin/python -m pytest                                      # the whole suite

A module of a tier other than ``unit`` says so with ``pytestmark = pytest.mark.app`` (or ``browser``, ``wheel``,
``data``), a single test with the decorator; every item that carries none of them, the doctests of
``src/rackcost`` included, is marked ``unit`` below, so ``-m unit`` and ``-m "app or browser or wheel or data"``
split the suite with nothing left out. (Run from the repository root, as above: the hook lives in this file, so a
run that collects nothing under ``tests/`` does not load it and leaves the doctests unmarked.)

Property tests: locally hypothesis draws new examples on every run (and keeps the ones that failed in its
database), which is how new counterexamples are found. CI (``CI`` set, as ``.ci/run`` is run) derives the examples
from each test's name instead, so a run of the same commit gives the same verdict and a landing never hangs on a
newly drawn example; a counterexample found locally is fixed and kept as an explicit case. In both, nothing depends
on the machine's speed: no deadline per example and no health check that times data generation.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

OTHER_TIERS = ("app", "browser", "wheel", "data")

settings.register_profile("rackcost", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("rackcost"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "rackcost")


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in OTHER_TIERS):
            item.add_marker(pytest.mark.unit)
