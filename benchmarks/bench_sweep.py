"""Speed of sweeps, printed as medians and ratios (never asserted as a timed test).

Run: ``.venv/bin/python benchmarks/bench_sweep.py [CONFIGURATIONS]`` (default 10^6)

The sweep of issue 13: the default scenario (2 systems, 3 demand points) over electricity price x PUE x demand
scale x Jalapeño capex, 10 x 10 x 100 x 100 = 10^6 configurations, 6 x 10^6 rows.

1. ``rackcost.sweep`` on Dask's local threaded scheduler (the default): wall time and configurations per second,
   split into resolving and planning (100 demand scales: 100 groups, each sized and planned as ``evaluate``
   would), the vectorised evaluation, and building the table.
2. The vectorised Erlang C floor: one ``queueing.erlang_c`` call over every row's serving slots and offered load,
   at the states the sweep itself evaluates (the floor the Monte Carlo benchmark prints), and the ratio of (1) to
   it (goal: within 6x).
3. The same sweep on a 2-worker ``distributed.LocalCluster`` (started and closed by the sweep): wall time and the
   ratio to (1), the overhead of the distributed scheduler (process start, shipping chunks and results).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from rackcost.analysis.sweep.chunks import plan_chunks
from rackcost.analysis.sweep.design import group_scenario, structural_groups
from rackcost.analysis.sweep.run import resolve, run_sweep
from rackcost.evaluation.chain import plan, run_samples
from rackcost.model import queueing


def spec(configurations: int) -> dict:
    """The benchmark sweep, scaled so that demand scale and capex have 100 values each at 10^6."""
    side = max(1, round((configurations / 100) ** 0.5))
    return {
        "name": "benchmark",
        "scenario": "deepseek-r1-jalapeno-vs-gb300",
        "axes": [
            {"axis": "facility.electricity_usd_per_kwh", "range": {"from": 0.04, "to": 0.2, "steps": 10}},
            {"axis": "facility.pue", "range": {"from": 1.05, "to": 1.5, "steps": 10}},
            {"axis": "demand.scale", "range": {"from": 0.1, "to": 10, "steps": side, "scale": "log"}},
            {"axis": "systems[1].costs.capex_usd_per_accelerator", "range": {"from": 1e4, "to": 8e4, "steps": side}},
        ],
    }


def states(d) -> tuple[np.ndarray, np.ndarray]:
    """Serving slots and offered load of every row, as the sweep evaluates them (each group's, repeated)."""
    k, a = [], []
    for values, members in structural_groups(d, np.arange(d.configurations)):
        scenario = group_scenario(d, values).scenario
        planned = plan(scenario)
        for chosen, (fleet, _) in zip(planned.chosen, run_samples(scenario, planned, {}, 1, False), strict=True):
            k.append(np.tile((fleet.demand.active_replicas * chosen.concurrency).ravel(), len(members)))
            a.append(np.tile((fleet.demand.admitted_rps * fleet.service_s).ravel(), len(members)))
    return np.concatenate(k).astype(float), np.concatenate(a)


def main() -> None:
    configurations = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
    d = resolve(spec(configurations))
    print(f"sweep: {d.configurations:,} configurations x 2 systems x 3 demand points = {6 * d.configurations:,} rows")
    run_sweep(resolve(spec(10_000)))  # warm-up (imports, Dask)
    t0 = time.perf_counter()
    d = resolve(spec(configurations))
    chunks, _ = plan_chunks(d)
    t_plan = time.perf_counter() - t0
    runs, t_total = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        result = run_sweep(d)
        t_total.append(time.perf_counter() - t0)
    t_local = float(np.median(t_total))
    k, a = states(d)
    t_c = []
    for _ in range(3):
        t0 = time.perf_counter()
        queueing.erlang_c(k, a)
        t_c.append(time.perf_counter() - t0)
    t_c = float(np.median(t_c))
    print(
        f"1. local threaded scheduler, median of 3: {t_local:.2f} s, {d.configurations / t_local:,.0f} "
        f"configurations/s ({len(result.frame):,} rows; resolving, grouping and planning {len(chunks)} chunks: "
        f"{t_plan:.2f} s)"
    )
    print(
        f"2. vectorised Erlang C over every row's state ({k.size:,} elements, one call): {t_c:.3f} s; "
        f"sweep / Erlang C floor = {t_local / t_c:.1f}x (goal: within 6x)"
    )
    del result
    t0 = time.perf_counter()
    run_sweep(d, workers=2)
    t_cluster = time.perf_counter() - t0
    print(
        f"3. 2-worker LocalCluster (started and closed by the sweep): {t_cluster:.2f} s; distributed / local = "
        f"{t_cluster / t_local:.2f}x"
    )
    runs.append(t_cluster)


if __name__ == "__main__":
    main()
