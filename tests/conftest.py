"""Test-suite settings: test tiers, property tests that are reproducible in CI, and where the real data files are.

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

Real data: the repository carries only files the project wrote (issue 18). Real public files (InferenceX results,
...) live in ``../shared/data`` beside the repository, which CI has and a lone clone does not: tests that read them
are marked ``data`` and take the :func:`shared_data` or :func:`real_inferencex` fixture, which skips them with a
reason where the folder is absent. Tests that must always run read the invented fixtures in ``tests/data/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

OTHER_TIERS = ("app", "browser", "wheel", "data")

settings.register_profile("rackcost", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("rackcost"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "rackcost")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
"""Real public data files beside the repository (``../shared/data``); absent in a lone clone."""

ABSENT = {
    "data": "needs ../shared/data (the real public data files beside the project; CI has them)",
    "inferencex": "needs ../shared/data/inferencex (the real InferenceX files beside the project; CI has them)",
}
"""Why a ``data`` test was skipped, by the folder it needs."""


@pytest.hookimpl(tryfirst=True)  # before -m deselects anything
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in OTHER_TIERS):
            item.add_marker(pytest.mark.unit)


def _folder(request: pytest.FixtureRequest, folder: Path, reason: str) -> Path:
    if request.node.get_closest_marker("data") is None:  # so that `-m "not data"` leaves out every such test
        pytest.fail(f"{request.node.nodeid} reads real files from {folder.name}/ but is not marked @pytest.mark.data")
    if not folder.is_dir():
        pytest.skip(reason)
    return folder


@pytest.fixture
def shared_data(request: pytest.FixtureRequest) -> Path:
    """``../shared/data`` (the real public files beside the repository), or a skip saying it is absent."""
    return _folder(request, SHARED_DATA, ABSENT["data"])


@pytest.fixture
def real_inferencex(request: pytest.FixtureRequest) -> Path:
    """``../shared/data/inferencex`` (real InferenceX result files), or a skip saying it is absent."""
    return _folder(request, SHARED_DATA / "inferencex", ABSENT["inferencex"])


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables as wide as the CLI's default for a pipe, whatever ``COLUMNS`` the shell running the tests exports
    (the CLI honours it: tests/test_cli_width.py sets it per command)."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session")
def _three_year_plan() -> tuple[Path, object]:
    import rackcost

    path = rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan.yaml")
    return path, rackcost.plan(rackcost.load_scenario(path))


@pytest.fixture
def three_year_plan(
    _three_year_plan: tuple[Path, object], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, object, list]:
    """The bundled three-year buying plan's path, its plan (``rackcost.plan``: about 15 s, solved once per session)
    and the scenarios ``plan_scenario`` was called with since: every call returns that plan, so that each face's own
    path to the plan (``rackcost.evaluation.planning.plan_of``, ``rackcost plan``) is run without solving again."""
    from rackcost.evaluation import planning

    path, plan = _three_year_plan
    calls: list = []

    def solved(scenario):  # the same scenario as solved: the face asked for the bundled plan, not another one
        assert scenario.name == plan.scenario, scenario.name
        calls.append(scenario)
        return plan

    monkeypatch.setattr(planning, "plan_scenario", solved)
    return path, plan, calls
