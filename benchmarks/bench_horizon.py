"""Speed of every hour of a horizon, printed as medians and a ratio (never asserted as a timed test; issue 24, item 2).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_horizon.py``

1. ``rackcost.evaluate_hours`` over 3 years of hours (26,280) on two scenarios of 4 systems each: the bundled
   ``deepseek-r1-own-vs-rent-vs-api`` (owned, reserved, on demand, API) and the same with its API system replaced by
   a second on-demand fleet (four fleets, the harder case: every system runs the queue). The profile is synthetic,
   computed here: a weekly shape (a day's sine, weekends at 60%) times 40% a year of compound growth.
2. One vectorised Erlang C (``rackcost.queueing.erlang_c``, the function the fleet evaluates) over the same element
   count, 4 x 26,280 = 105,120, at the states the model is in: each fleet's active slots and offered load in each
   hour (an API system has no queue: its share of the elements repeats the fleets' states).
3. The ratio of each (1) to its (2) (goal: within 20x). The runs are interleaved, 9 rounds of 3 calls; each time is
   the CPU time of a call (``time.process_time``: on this shared 2-core machine other jobs then count less than in
   wall time), the least of its round's calls, and the figure is the median over rounds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import yaml

import rackcost
from rackcost.evaluation.chain import choose_points
from rackcost.evaluation.horizon import evaluate_hours, sizing_scenario
from rackcost.model.queues import queueing

HOURS = 3 * 8760
ROUNDS, CALLS = 9, 3


def cpu_s(fn: Callable[[], object]) -> float:
    """CPU time of one call of ``fn`` [s]."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def weekly_profile(hours: int = HOURS, peak_rps: float = 240.0, growth_per_year: float = 0.4) -> np.ndarray:
    """A week's shape tiled over the horizon, times compound growth; the last hour at ``peak_rps`` or below."""
    h = np.arange(hours)
    day = 0.55 + 0.45 * np.sin(2.0 * np.pi * ((h % 24) - 8) / 24.0).clip(-1.0, 1.0)
    week = np.where((h // 24) % 7 < 5, 1.0, 0.6)
    growth = (1.0 + growth_per_year) ** (h / 8760.0)
    shape = day * week * growth
    return peak_rps * shape / shape.max()


def four_fleets() -> rackcost.Scenario:
    """The bundled own / rent / API scenario with its API system replaced by a second on-demand fleet."""
    path = rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    copy = dict(data["systems"][2], name="GB200 NVL72 rented, on demand (second)")
    data["systems"] = [*data["systems"][:3], copy]
    data["figures"] = {k: v for k, v in data.get("figures", {}).items() if not k.startswith("systems[3]")}
    return rackcost.scenario_from_dict(data, "benchmark")


def model_states(scenario: rackcost.Scenario, rates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Active slots and offered load of every fleet in every hour, as ``evaluate_hours`` serves them, repeated to
    4 x ``hours`` elements."""
    hours = evaluate_hours(scenario, rates).hours
    planned = choose_points(sizing_scenario(scenario, float(rates.max())))
    k, a = [], []
    for index, chosen in zip(planned.indices, planned.chosen, strict=True):
        rows = hours[hours.system == scenario.systems[index].name]
        slots = rows.active_replicas.to_numpy() * chosen.concurrency
        k.append(slots)
        a.append(rows.utilization_fraction.to_numpy() * slots)
    n = 4 * rates.size
    return np.resize(np.concatenate(k), n), np.resize(np.concatenate(a), n)


def main() -> None:
    rates = weekly_profile()
    scenarios = {
        "own / reserved / on demand / API": rackcost.load_scenario(
            rackcost.bundled_scenario_path("deepseek-r1-own-vs-rent-vs-api.yaml")
        ),
        "four fleets (API -> on demand)": four_fleets(),
    }
    states = {name: model_states(s, rates) for name, s in scenarios.items()}
    times: dict[str, list[float]] = {name: [] for name in scenarios}
    floors: dict[str, list[float]] = {name: [] for name in scenarios}
    for _ in range(ROUNDS):
        for name, scenario in scenarios.items():
            k, a = states[name]
            times[name].append(min(cpu_s(lambda s=scenario: evaluate_hours(s, rates)) for _ in range(CALLS)))
            floors[name].append(min(cpu_s(lambda k=k, a=a: queueing.erlang_c(k, a)) for _ in range(CALLS)))
    print(
        f"evaluate_hours: 4 systems x {rates.size:,} hours (3 years, weekly shape x 40%/yr growth); "
        f"floor: one erlang_c over {4 * rates.size:,} elements at the model's states"
    )
    print(f"(CPU time: median over {ROUNDS} interleaved rounds of the least of {CALLS} calls)")
    for name in scenarios:
        t, f = float(np.median(times[name])), float(np.median(floors[name]))
        print(f"   {name:<36} evaluate_hours {t * 1e3:7.1f} ms   erlang_c {f * 1e3:6.2f} ms   ratio {t / f:5.1f}x")
    print("goal: within 20x")


if __name__ == "__main__":
    main()
