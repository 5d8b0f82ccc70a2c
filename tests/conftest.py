"""Test-suite settings: property tests are reproducible in CI, and where the real public data files are.

Locally hypothesis draws new examples on every run (and keeps the ones that failed in its database), which is how
new counterexamples are found. CI (``CI`` set, as ``.ci/run`` is run) derives the examples from each test's name
instead, so a run of the same commit gives the same verdict and a landing never hangs on a newly drawn example; a
counterexample found locally is fixed and kept as an explicit case.

The repository carries only files the project wrote (issue 18). Real public files (InferenceX results, ...) live
in ``../shared/data`` beside the repository, which CI has and a lone clone does not: tests that read them are
marked ``data`` and take the :func:`shared_data` or :func:`real_inferencex` fixture, which skips them with a reason
where the folder is absent. Tests that must always run read the invented fixtures in ``tests/data/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
"""Real public data files beside the repository (``../shared/data``); absent in a lone clone."""

ABSENT = {
    "data": "needs ../shared/data (the real public data files beside the project; CI has them)",
    "inferencex": "needs ../shared/data/inferencex (the real InferenceX files beside the project; CI has them)",
}
"""Why a ``data`` test was skipped, by the folder it needs."""


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
