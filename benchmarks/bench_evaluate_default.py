"""``rackcost.evaluate`` of the bundled default scenario, against a floor measured in the same run (never asserted).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_evaluate_default.py [--rounds N] [--calls M]``

An evaluation spends most of its time in per-call overhead on arrays of 1 to 9 elements, per system; the goal is the
bundled default (:func:`rackcost.bundled_scenario_path`: two systems, three demand points) in about 1 ms. This script
prints, in CPU time (``time.process_time``, so that other processes on the shared machine count less than in wall
time), the least over ``--rounds`` rounds of the mean over ``--calls`` calls, after a warm-up (the least, as
``timeit`` advises: on a shared VM interference only ever adds time):

1. ``rackcost.evaluate`` of the default scenario, loaded once (the scenario is mutable, so the chain keeps nothing
   across calls: every call does the whole work);
2. its steps, each alone on the same scenario: :func:`~rackcost.evaluation.servable.servable` (each system
   unpacked and checked), :func:`~rackcost.evaluation.steps.choose_points` (steps 1-3: the operating point of each
   system), :func:`~rackcost.evaluation.chain.run_samples` (steps 4-8: each fleet sized, served at its points and at
   arrival SCV 2 and 4, powered and costed) and :func:`~rackcost.evaluation.results.result_tables` (the records);
3. the floor: one vectorised :func:`rackcost.queueing.erlang_c` on the shape the chain serves each fleet at (the
   central row and the two SCV rows, by the three demand points: 9 elements), at the default's own figures. It is
   the least that one step of the numeric core costs on these arrays (nearly all of it per-call overhead of numpy
   and scipy, not arithmetic), so ``evaluate / floor`` says how many such calls an evaluation is worth, a ratio
   that moves with the code and not with the machine's speed. A plain copy of the result's records is not the
   floor chosen: at a few microseconds it says nothing of the numeric chain the issue is about.
4. the plain floor: the textbook Erlang C written with :mod:`scipy.special` alone (Erlang B as the Poisson term over
   the regularised upper incomplete gamma function ``Q(k + 1, a)``, then ``C = B / (1 - rho (1 - B))``; Kleinrock,
   *Queueing Systems* 1, Sec. 3.5-3.6), on every element the chain serves (both systems' fleets, the central and
   the two SCV rows, by the three points: 18 elements), with none of rackcost's checks or log-space care. The goal
   is ``evaluate`` within 100 times it;
5. the cost of one more system: the default with 0 to ``--copies`` added copies of its second system (the same
   numbers under another name), each evaluated as in (1), and the least-squares slope of the time over the count of
   systems, with its R^2, printed as ms and as a multiple of the plain floor (the goal: under 0.5 ms a system);
6. what a system would cost on one array axis, a projection: steps 4 to 8 of the second system
   (:func:`~rackcost.model.fleets.fleet.run_fleet` and :func:`~rackcost.model.costs.metrics.derive`, central values,
   no SCV rows) with one row and with ``1 + --copies`` rows of the same inputs on the sample axis (the Monte Carlo's
   axis), and the slope per added row. Every step is elementwise along that axis, so an added row costs what an
   added system would if the systems were rows of one call: the gap between (5) and (6) is what stacking the systems
   would save, and what it would not (the first system's chain is all per-call overhead and stays).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from scipy.special import gammaincc, gammaln

import rackcost
from rackcost.evaluation.chain import choose_points, evaluate_apis, evaluate_systems, run_samples
from rackcost.evaluation.results import result_tables
from rackcost.evaluation.servable import servable
from rackcost.model.costs.metrics import derive
from rackcost.model.fleets.fleet import run_fleet
from rackcost.model.queues.burstiness import FRAGILITY_SCVS
from rackcost.model.queues.erlang import erlang_c
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.system_edits import copy_system
from rackcost.scenario.unpack import one_evaluation, sampled_inputs


def interleaved_least_ms(fns: dict[str, tuple[Callable[[], object], int]], rounds: int) -> dict[str, list[float]]:
    """Each function's mean CPU time per call over a batch of its own number of calls, one batch of every function
    per round in turn (so that a busy spell of the machine weighs on all of them alike), after a warm-up [ms]."""
    for fn, calls in fns.values():
        for _ in range(max(calls // 10, 3)):
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(rounds):
        for name, (fn, calls) in fns.items():
            start = time.process_time()
            for _ in range(calls):
                fn()
            times[name].append((time.process_time() - start) / calls * 1e3)
    return times


def plain_erlang_c(k: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The textbook Erlang C with scipy.special alone (no checks, no log-space care): the plain floor."""
    b = np.exp(k * np.log(a) - a - gammaln(k + 1.0)) / gammaincc(k + 1.0, a)
    return b / (1.0 - a / k * (1.0 - b))


def with_copies(scenario: rackcost.Scenario, copies: int) -> rackcost.Scenario:
    """The scenario with ``copies`` more copies of its second system (the same numbers, another name each)."""
    data = scenario_to_data(scenario)
    for i in range(copies):
        data = copy_system(data, 1, f"{scenario.systems[1].name} copy {i + 1}")
    return rackcost.scenario_from_dict(data, scenario.origin_file)


def slope_ms(counts: list[int], times_ms: list[float]) -> tuple[float, float]:
    """The least-squares slope of time over system count [ms per system], and the fit's R^2 [-]."""
    x, y = np.asarray(counts, dtype=float), np.asarray(times_ms, dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    return float(slope), float(1.0 - (residual @ residual) / ((y - y.mean()) @ (y - y.mean())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds; the least is kept (default 7)")
    parser.add_argument("--calls", type=int, default=200, help="calls per round (default 200)")
    parser.add_argument("--copies", type=int, default=4, help="most added copies of a system (default 4)")
    args = parser.parse_args()
    rounds, calls = args.rounds, args.calls

    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path())
    served, _, inputs = servable(scenario)
    planned = choose_points(served, inputs)
    outcomes = evaluate_systems(served, inputs=inputs)
    apis = evaluate_apis(served)
    # the floor's arguments: each fleet's slots and offered load at its demand points, as the chain serves them
    fleet = outcomes[0].fleet
    slots = np.asarray(fleet.demand.active_replicas, dtype=float) * planned.chosen[0].concurrency
    load = np.asarray(fleet.demand.admitted_rps * fleet.demand.service_s, dtype=float)
    k, a = np.repeat(slots, 3, axis=0), np.repeat(load, 3, axis=0)
    # the plain floor's: both fleets' central and SCV rows, as the chain serves them (2 x 3 x 3 = 18 elements)
    k_all = np.concatenate(
        [
            np.repeat(np.asarray(o.fleet.demand.active_replicas, dtype=float) * chosen.concurrency, 3, axis=0).ravel()
            for o, chosen in zip(outcomes, planned.chosen, strict=True)
        ]
    )
    a_all = np.concatenate(
        [
            np.repeat(
                np.asarray(o.fleet.demand.admitted_rps * o.fleet.demand.service_s, dtype=float), 3, axis=0
            ).ravel()
            for o in outcomes
        ]
    )
    grown = {len(scenario.systems) + c: with_copies(scenario, c) for c in range(args.copies + 1)}

    def in_one(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> object:
            with one_evaluation():
                return fn()

        return run

    steps = {
        "servable (unpack, check)": in_one(lambda: servable(scenario)),
        "choose_points (steps 1-3)": in_one(lambda: choose_points(served, inputs)),
        "run_samples (steps 4-8)": in_one(
            lambda: run_samples(served, planned, {}, 1, resize=False, fragility_scvs=FRAGILITY_SCVS)
        ),
        "result_tables (records)": in_one(lambda: result_tables(served, outcomes, apis)),
    }

    def rows_of_second(n: int) -> Callable[[], object]:
        """Steps 4 to 8 of the second system, central values, on ``n`` rows of the sample axis (see item 6)."""
        inp, chosen, index = planned.systems[1], planned.chosen[1], planned.indices[1]
        sampled = sampled_inputs(served, index, inp, {}, n)
        slo = planned.slo

        def run() -> object:
            fleet = run_fleet(inp, chosen, sampled, planned.policy, slo, False)
            return derive(fleet, chosen.ttft_ms, slo.output_tokens, planned.hours_per_day, planned.input_tokens)

        return run

    row_counts = [1 + c for c in range(args.copies + 1)]
    timed = {
        "evaluate": (lambda: rackcost.evaluate(scenario), calls),
        "floor": (lambda: erlang_c(k, a), calls * 10),
        "plain": (lambda: plain_erlang_c(k_all, a_all), calls * 10),
    }
    timed.update((name, (fn, calls)) for name, fn in steps.items())
    timed.update((f"{n} rows", (rows_of_second(n), calls)) for n in row_counts)
    timed.update((f"{n} systems", ((lambda s=s: rackcost.evaluate(s)), max(calls // n, 10))) for n, s in grown.items())
    times = interleaved_least_ms(timed, rounds)
    least = {name: min(t) for name, t in times.items()}
    per_round = statistics.median(e / f for e, f in zip(times["evaluate"], times["floor"], strict=True))
    print(
        f"default scenario: {rackcost.bundled_scenario_path().name}, {len(scenario.systems)} systems, "
        f"{len(scenario.demand)} demand points; least of {rounds} interleaved rounds of {calls} calls, CPU time"
    )
    print(f"  evaluate                      {least['evaluate']:8.3f} ms")
    for name in steps:
        print(f"    {name:<28}{least[name]:8.3f} ms")
    print(f"  floor: erlang_c on {k.size} elements {least['floor']:8.4f} ms")
    ratio = least["evaluate"] / least["floor"]
    print(f"  evaluate / floor              {ratio:8.1f} (of the leasts; median of the rounds' ratios {per_round:.1f})")
    plain = least["plain"]
    per_round_plain = statistics.median(e / f for e, f in zip(times["evaluate"], times["plain"], strict=True))
    print(f"  plain floor: scipy Erlang C on {k_all.size} elements {plain:8.4f} ms")
    print(
        f"  evaluate / plain floor        {least['evaluate'] / plain:8.1f} (goal: at most 100; median of the rounds' "
        f"ratios {per_round_plain:.1f})"
    )
    counts = list(grown)
    slope, r2 = slope_ms(counts, [least[f"{n} systems"] for n in counts])
    each = ", ".join(f"{n}: {least[f'{n} systems']:.3f}" for n in counts)
    print(f"  evaluate by systems (ms)      {each}")
    print(
        f"  per added system              {slope:8.3f} ms (R^2 {r2:.4f}; {slope / plain:.1f} plain floors; goal 0.5 ms)"
    )
    row_slope, row_r2 = slope_ms(row_counts, [least[f"{n} rows"] for n in row_counts])
    each = ", ".join(f"{n}: {least[f'{n} rows']:.3f}" for n in row_counts)
    print(f"  one system's steps 4-8 by rows on the sample axis (ms)  {each}")
    print(f"  per added row (a system on one array axis, projected)   {row_slope:8.3f} ms (R^2 {row_r2:.4f})")


if __name__ == "__main__":
    main()
