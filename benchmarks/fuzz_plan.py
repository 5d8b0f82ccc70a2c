"""The plan's fuzzer at scale: tiny programs through the solver and its checker, scenarios through
``rackcost.plan``, with counts.

Run: ``.venv/bin/python benchmarks/fuzz_plan.py [N] [N_SCENARIOS]`` (default 2,000 of each; a program solves in
10-100 ms, a scenario plans in 0.5-4 s, so the scenarios take most of the time: about an hour on a quiet 2-core
machine at the default).

The strategies and contracts are those of ``tests/test_fuzz_plan.py`` (``tests/fuzzing_plan.py``), which runs a
few dozen examples in CI: a program is refused before the solver or planned feasibly in every block, never dearer
than a source alone; a scenario is refused with a ScenarioError naming its file, or planned with every hour
carried, its JSON finite or null, and its cost never above its best single source's. A broken contract (or any
other exception) stops the run with hypothesis's shrunk example.
"""

from __future__ import annotations

from hypothesis import strategies as st

from fuzz_counts import Surface, count_surfaces, examples_from_argv, use_test_helpers

use_test_helpers()

from fuzzing_plan import check_plan_problem, check_plan_scenario, plan_problems, plan_scenarios  # noqa: E402


def main(n: int, n_scenarios: int) -> None:
    count_surfaces(
        [
            Surface("programs", st.tuples(plan_problems()), check_plan_problem, n),
            Surface("scenarios", st.tuples(plan_scenarios()), check_plan_scenario, n_scenarios),
        ]
    )


if __name__ == "__main__":
    programs = examples_from_argv(2000)
    main(programs, examples_from_argv(programs, 2))
