"""The sweep-folder and demand-profile fuzzer (tests/fuzzing_sweeps_profiles.py) at a small budget: sweeps whose
scenario reads files inside, outside, through symlinks and by absolute paths (nothing opened or quoted from outside
the sweep's folder, no exception but ScenarioError), and demand profiles inline or in CSVs with growth that may end
the demand (finite figures or None, strict JSON, no traceback). ``benchmarks/fuzz_sweeps_profiles.py`` runs the same
strategies at a large budget, with counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from fuzzing_sweeps_profiles import check_profile, check_sweep_folder, make_layout, profiles, sweep_folders


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(tmp_path_factory.mktemp("sweep_folders"))
    make_layout(root)
    return root


@settings(max_examples=60, deadline=None)  # a sweep's design loads its scenario: 20-100 ms
@given(sweep_folders())
def test_a_sweep_reads_nothing_outside_its_folder_and_quotes_no_file(layout: Path, case: dict) -> None:
    assert check_sweep_folder(case, layout) in ("read", "refused")


@settings(max_examples=30, deadline=None)  # a profile's horizon evaluates every hour: 0.1-0.5 s
@given(profiles())
def test_demand_profiles_evaluate_to_finite_figures_or_are_refused(tmp_path_factory, case: dict) -> None:
    assert check_profile(case, Path(tmp_path_factory.mktemp("profile"))) in ("evaluated", "refused")
