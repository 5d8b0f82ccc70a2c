"""The trace-replay fuzzer at scale: traces of every length scale replayed through one shape, request classes and
disaggregated pools under each ``trace_lengths``, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_replay.py [N]`` (default 2,000 examples of each surface; a replay of a few
dozen requests takes 0.1-0.5 s, twice under ``relative``, so the default takes about 30 minutes on the 2-core
machine).

The strategy and contract are those of ``tests/test_fuzz_replay.py`` (``tests/fuzzing_replay.py``), which runs a few
dozen examples in CI. Prints how many examples of each surface were replayed and refused by the work estimate; a
broken contract (a traceback, a non-finite figure, an accepted share outside [0, 1] or above a pool's, class shares
not adding up to 1, a relative replay that sees the lengths' scale) stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_replay import DEMAND_SCALES, LENGTHS, SCENARIOS, check_replay, replay_traces  # noqa: E402

ROUTERS = ["least_outstanding", "random", "round_robin", "pooled", "power_of_two"]


def main(n: int) -> None:
    folder = Path(tempfile.mkdtemp())
    surfaces = []
    for kind in sorted(SCENARIOS):
        cases = st.tuples(
            replay_traces(),
            st.just(folder),
            st.just(kind),
            st.sampled_from(LENGTHS),
            st.sampled_from(ROUTERS),
            st.integers(2, 5),
            st.sampled_from(DEMAND_SCALES),
        )
        surfaces.append(Surface(f"simulate --trace, {kind}", cases, check_replay, n))
    count_surfaces(surfaces)


if __name__ == "__main__":
    main(examples_from_argv(2000))
