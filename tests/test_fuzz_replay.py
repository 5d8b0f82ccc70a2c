"""The trace-replay fuzzer (tests/fuzzing_replay.py) at a small budget: traces of every length scale replayed
through one shape, request classes and disaggregated pools under each ``trace_lengths``.
``benchmarks/fuzz_replay.py`` runs the same strategy at a large budget, with counts."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzing_replay import DEMAND_SCALES, LENGTHS, SCENARIOS, check_replay, replay_traces

ROUTERS = ["least_outstanding", "random", "round_robin", "pooled", "power_of_two"]


@settings(max_examples=30, deadline=None)  # a replay of a few dozen requests takes 0.1-0.5 s (twice, relative)
@given(
    replay_traces(),
    st.sampled_from(sorted(SCENARIOS)),
    st.sampled_from(LENGTHS),
    st.sampled_from(ROUTERS),
    st.integers(2, 5),
    st.sampled_from(DEMAND_SCALES),
)
def test_a_replay_gives_finite_rows_within_what_was_offered_or_refuses_before_the_work(
    tmp_path_factory, trace, kind: str, lengths: str, routing: str, replications: int, scale: float
) -> None:
    folder = Path(tmp_path_factory.mktemp("replay"))
    assert check_replay(trace, folder, kind, lengths, routing, replications, scale) in (
        "replayed",
        "refused (work)",
        "refused (short)",
    )
