"""Speed of every hour of a horizon with replicas that scale with a delay (``fleet.scaling``), printed as CPU times
and a ratio to ``park`` (never asserted as a timed test).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_autoscale.py``

1. The bundled ``deepseek-r1-three-year-buying-plan`` over its own 3-year profile (26,280 hours, two fleets and an
   API), with ``idle_policy: park`` and ``fleet.scaling`` (5-minute scale-up, 10-minute scale-down delay): the
   scaling grid is 1,576,800 steps of a minute per fleet.
2. The bundled ``deepseek-r1-own-vs-rent-vs-api`` over the synthetic 3-year weekly profile of
   ``benchmarks/bench_horizon.py`` (its three fleets, an API), the same policy.

Each ``rackcost.evaluate_hours`` call is timed in CPU time (``time.process_time``: on this shared 2-core machine
other jobs then count less than in wall time); a figure is the least of :data:`CALLS` calls, the scaled and the
``park`` calls interleaved. The goal: under 10 s each.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

import rackcost
from bench_horizon import weekly_profile
from rackcost.evaluation.horizon import evaluate_hours
from rackcost.model.strategies import IdlePolicy
from rackcost.scenario.scaling_blocks import Scaling

CALLS = 5
SCALING = Scaling(scale_up_delay_s=300.0, scale_down_delay_s=600.0)


def cpu_s(fn: Callable[[], object]) -> float:
    """CPU time of one call of ``fn`` [s]."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def with_fleet(scenario: rackcost.Scenario, scaling: Scaling | None) -> rackcost.Scenario:
    """The scenario parking, with ``scaling`` (a copy; the rates are passed to ``evaluate_hours`` directly)."""
    fleet = scenario.fleet.model_copy(update={"idle_policy": IdlePolicy.park, "scaling": scaling})
    return scenario.model_copy(update={"fleet": fleet})


def least_s(scenario: rackcost.Scenario, rates: np.ndarray, windows: np.ndarray | None) -> tuple[float, float]:
    """The least CPU time of the scaled and the ``park`` evaluation over ``CALLS`` interleaved calls [s, s]."""
    scaled, park = with_fleet(scenario, SCALING), with_fleet(scenario, None)
    times: dict[str, list[float]] = {"scaled": [], "park": []}
    for _ in range(CALLS):
        times["scaled"].append(cpu_s(lambda: evaluate_hours(scaled, rates, window_ratios=windows)))
        times["park"].append(cpu_s(lambda: evaluate_hours(park, rates, window_ratios=windows)))
    return min(times["scaled"]), min(times["park"])


def main() -> None:
    plan = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-three-year-buying-plan.yaml"))
    assert plan.demand_profile is not None
    cases = [
        ("deepseek-r1-three-year-buying-plan, its profile", plan, plan.demand_profile.hourly_rates_rps(), None),
        (
            "deepseek-r1-own-vs-rent-vs-api, weekly profile",
            rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml")),
            weekly_profile(),
            None,
        ),
    ]
    print("| scenario (26,280 h) | scaled (5 min up, 10 min down) | park | ratio |")
    print("|---|---|---|---|")
    for name, scenario, rates, windows in cases:
        scaled_s, park_s = least_s(scenario, np.maximum(rates, 1e-6), windows)
        print(f"| {name} | {scaled_s:.2f} s | {park_s:.2f} s | {scaled_s / park_s:.1f}x |")


if __name__ == "__main__":
    main()
