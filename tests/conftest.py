"""Test-suite settings: property tests are reproducible in CI.

Locally hypothesis draws new examples on every run (and keeps the ones that failed in its database), which is how
new counterexamples are found. CI (``CI`` set, as ``.ci/run`` is run) derives the examples from each test's name
instead, so a run of the same commit gives the same verdict and a landing never hangs on a newly drawn example; a
counterexample found locally is fixed and kept as an explicit case.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
