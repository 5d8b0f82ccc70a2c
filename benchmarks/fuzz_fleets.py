"""The fuzzer of fleets as they are run at scale: mutated models documents, models documents of random shape and
autoscaling blocks over a weekly profile, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_fleets.py [N]`` (default 1,000 examples of each surface; a models document
of random shape is evaluated under two rules and two placements, 0.1-1 s, and a scaling scenario takes 0.2-1 s, so
the default takes about 20 minutes on the 2-core machine).

The strategies and contracts are those of ``tests/test_fuzz_fleets.py`` (``tests/fuzzing_fleets.py``), which runs a
few dozen examples of each in CI. Prints how many examples of each surface evaluated, were refused at load, or named
a model no system can serve; a broken contract stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_fleets import (  # noqa: E402
    check_models_outcome,
    check_scaling_outcome,
    models_documents,
    mutated_models_documents,
    scaling_scenarios,
)


def main(n: int) -> None:
    count_surfaces(
        [
            Surface(
                "mutated models documents",
                st.tuples(mutated_models_documents().map(lambda case: case.text)),
                check_models_outcome,
                n,
            ),
            Surface("models documents of any shape", st.tuples(models_documents()), check_models_outcome, n),
            Surface("autoscaling blocks", st.tuples(scaling_scenarios()), check_scaling_outcome, n),
        ]
    )


if __name__ == "__main__":
    main(examples_from_argv(1000))
