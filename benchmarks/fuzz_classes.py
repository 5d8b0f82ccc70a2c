"""The request-class and pool fuzzer at scale: random class mixes and random prefill/decode pools through load and
evaluate, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_classes.py [N]`` (default 2,000 examples of each surface; an evaluation takes
20-300 ms, so the run takes several minutes).

The strategies and the contract are those of ``tests/test_fuzz_classes.py`` (``tests/fuzzing_classes.py``), which
runs a few dozen examples of each in CI: no exception but a ScenarioError; every figure finite or null; accepted <=
admitted <= offered; a fleet the model sized meets every class's attainment target at its sizing point. Prints how
many examples of each surface were evaluated and refused; a broken contract stops the run with hypothesis's shrunk
example.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_classes import check_scenario, class_mixes, pool_scenarios  # noqa: E402


def main(n: int) -> None:
    count_surfaces(
        [
            Surface("class mixes", st.tuples(class_mixes()), check_scenario, n),
            Surface("disaggregated pools", st.tuples(pool_scenarios()), check_scenario, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(2000))
