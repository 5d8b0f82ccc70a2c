"""Accepted under real traffic: every shared production trace, superposed to the peak of the InferenceX comparison
and of the default scenario, replayed through the fleets rackcost sizes with the dispersion ``rackcost trace
--scale-to R --into`` measures (rackcost.analysis.validation.traffic, the section of docs/validation.md).

The traces: Microsoft Azure's LLM inference trace 2023 (conversation service, one hour; Patel et al., "Splitwise",
ISCA 2024; CC-BY 4.0) and Moonshot AI's Mooncake conversation trace (Qin et al., "Mooncake", FAST 2025;
Apache-2.0), read from the shared data folder beside the repository (skipped, saying why, where it is absent).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rackcost.analysis.trace_files import read_trace
from rackcost.analysis.validation.traffic import SCENARIOS, TTFT_JUDGED_BELOW_FRACTION, NamedTrace, traffic_rows
from rackcost.scenario.loading import bundled_scenario_path, load_scenario

TRACES = ("AzureLLMInferenceTrace_conv.csv", "mooncake_conversation_trace.jsonl")


CASES = [(trace, scenario) for trace in TRACES for scenario in SCENARIOS]


@pytest.mark.data
@pytest.mark.parametrize(("trace_name", "file_name"), CASES)
def test_the_analytic_share_is_within_two_points_of_the_replay(shared_data: Path, trace_name, file_name) -> None:
    path = shared_data / "traces" / trace_name
    if not path.is_file():
        pytest.skip(f"needs {path} (a shared production trace)")
    named = NamedTrace(trace_name, "shared", read_trace(path))
    rows = traffic_rows(file_name, load_scenario(bundled_scenario_path(file_name)), named, seed=0)
    assert len(rows) == 2
    for row in rows:
        # the model's share within 2 points of the replay, and the replay meets the target (0.99) within half a point
        assert abs(row["accepted_gap_points"]) <= 2.0, row
        assert row["replayed_accepted_fraction"] >= 0.99 - 0.005, row
        assert row["analytic_accepted_fraction"] >= 0.99 - 1e-9, row
        half, replayed = row["replayed_ttft_p99_ms_ci95_halfwidth"], row["replayed_ttft_p99_ms"]
        if half < TTFT_JUDGED_BELOW_FRACTION * replayed:  # p99 TTFT judged where the replay pins it down
            assert abs(row["ttft_p99_relative_error_fraction"]) <= 0.10, row
