"""The sub-hour fuzzer (tests/fuzzing_sub_hour.py) at a small budget: hostile ServeGen client folders (one line
naming a file, or finite rates), windows inside an hour (a share in [0, 1]; more spread never needs fewer
replicas) and demand points that carry them (finite records, accepted never above offered, or a ScenarioError).
``benchmarks/fuzz_sub_hour.py`` runs the same strategies at a large budget, with counts."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings

from fuzzing_sub_hour import (
    check_client_folder,
    check_sub_hour_point,
    check_windows,
    client_folders,
    sub_hour_points,
    window_cases,
)


@settings(max_examples=40, deadline=None)
@given(client_folders())
def test_client_folders_are_read_or_refused_in_one_line(tmp_path_factory: pytest.TempPathFactory, case) -> None:
    assert check_client_folder(case, Path(tmp_path_factory.mktemp("clients"))) in (
        "refused",
        "read, no profile",
        "profile",
    )


@settings(max_examples=40, deadline=None)
@given(window_cases())
def test_windows_accept_at_most_all_and_more_spread_never_needs_fewer(case) -> None:
    assert check_windows(*case) in ("more replicas", "same replicas")


@settings(max_examples=20, deadline=None)  # an evaluation of the two-system scenario: 0.1-0.3 s
@given(sub_hour_points())
@example((0, 900.0, [0.0, 0.0, 0.0, 1.0]))  # idle windows: NaN from a phase of rate 0 (found by the benchmark)
@example((0, 900.0, [0.0, 0.0, 1.0, 2.225073858507203e-309]))  # a subnormal window: a log of 0
@example((0, 1800.0, [0.0, 5e-324]))  # a mean of 0 to the division: refused (found by the benchmark)
def test_points_with_windows_evaluate_or_are_refused(case) -> None:
    assert check_sub_hour_point(*case) in ("evaluated", "refused")
