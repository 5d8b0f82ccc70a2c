"""The trace fuzzer (tests/fuzzing_traces.py) at a small budget: traces at every scale through ``rackcost trace``
(table, JSON, CSV, ``--into``) and through the simulator. ``benchmarks/fuzz_traces.py`` runs the same strategies at
a large budget, with counts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzing_traces import DEMAND_SCALES, HOWS, ROUTERS, check_simulated_trace, check_trace_command, hostile_traces


@settings(max_examples=60, deadline=None)  # a CLI run through the Typer app takes 10-50 ms
@given(hostile_traces(), st.sampled_from(HOWS))
def test_rackcost_trace_measures_finite_figures_or_refuses_in_one_line_naming_the_file(
    tmp_path_factory, text: str, how: str
) -> None:
    assert check_trace_command(text, Path(tmp_path_factory.mktemp("trace")), how) in ("measured", "refused")


@settings(max_examples=30, deadline=None)  # a simulation of a few dozen requests takes 0.1-0.5 s
@given(hostile_traces(), st.sampled_from(ROUTERS), st.integers(2, 5), st.sampled_from(DEMAND_SCALES))
def test_simulate_trace_gives_finite_rows_or_refuses_before_the_work(
    tmp_path_factory, text: str, routing: str, replications: int, scale: float
) -> None:
    outcome = check_simulated_trace(text, Path(tmp_path_factory.mktemp("trace")), routing, replications, scale)
    assert outcome in ("simulated", "refused (file)", "refused (work)")
