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

import collections
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzzing_plan import check_plan_problem, check_plan_scenario, plan_problems, plan_scenarios  # noqa: E402
from rackcost.model.plan import PlanProblem  # noqa: E402


def main(n: int, n_scenarios: int) -> None:
    warnings.simplefilter("error")  # as pytest runs the CI examples
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)

    def budget(examples: int) -> settings:
        return settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)

    @budget(max(1, n))
    @given(plan_problems())
    def programs(problem: PlanProblem) -> None:
        counts["programs"][check_plan_problem(problem)] += 1

    @budget(max(1, n_scenarios))
    @given(plan_scenarios())
    def scenarios(data: dict[str, Any]) -> None:
        counts["scenarios"][check_plan_scenario(data)] += 1

    for kind, run in (("programs", programs), ("scenarios", scenarios)):
        if (n if kind == "programs" else n_scenarios) < 1:
            continue
        start = time.perf_counter()
        run()
        print(f"{kind}: {dict(counts[kind])} in {time.perf_counter() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 2000,
        int(sys.argv[2]) if len(sys.argv) > 2 else (int(sys.argv[1]) if len(sys.argv) > 1 else 2000),
    )
