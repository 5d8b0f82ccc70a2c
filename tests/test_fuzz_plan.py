"""The plan's fuzzer (tests/fuzzing_plan.py) at a small budget: tiny programs through the solver and its checker,
scenarios through ``rackcost.plan``. ``benchmarks/fuzz_plan.py`` runs the same strategies at a large budget."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings

from fuzzing_plan import check_plan_problem, check_plan_scenario, plan_problems, plan_scenarios
from rackcost.model.buying.plan import PlanProblem


@settings(max_examples=60, deadline=None)  # a few solves of a tiny program: 10-100 ms
@given(plan_problems())
def test_programs_plan_feasibly_and_never_dearer_than_a_single_source(problem: PlanProblem) -> None:
    assert check_plan_problem(problem) in ("planned", "infeasible")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a scenario plans in 1-4 s
@given(plan_scenarios())
def test_scenarios_plan_every_hour_and_never_dearer_than_a_single_source(data: dict[str, Any]) -> None:
    assert check_plan_scenario(data) in ("planned", "refused")
