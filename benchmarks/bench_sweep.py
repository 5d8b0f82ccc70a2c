"""Speed and memory of sweeps, printed as least times and ratios (never asserted as a timed test).

Run: ``.venv/bin/python benchmarks/bench_sweep.py [CONFIGURATIONS]`` (default 10^6)

Times are the least of several runs (the machine is shared: the least is the run least disturbed by others).

The sweep of issue 13: the default scenario (2 systems, 3 demand points) over electricity price x PUE x demand
scale x Jalapeño capex, 10 x 10 x 100 x 100 = 10^6 configurations, 6 x 10^6 rows.

1. ``rackcost.sweep`` on Dask's local threaded scheduler (the default): wall time and configurations per second,
   split into resolving and planning (100 demand scales: 100 groups, each sized and planned as ``evaluate``
   would), the vectorised evaluation, and building the table.
2. The vectorised Erlang C floor: one ``queueing.erlang_c`` call over every row's serving slots and offered load,
   at the states the sweep itself evaluates (the floor the Monte Carlo benchmark prints), and the ratio of (1) to
   it (goal: within 6x).
3. Peak memory, each in a child process of its own (``ru_maxrss`` of the child, read by ``os.wait4``): the command
   ``rackcost sweep FILE -o FILE.parquet`` (the table streamed to the file and the summary, goal below 1 GiB), and
   ``rackcost.analysis.sweep.run.run_sweep`` returning the whole table (one copy of it: 0.82 GiB at 10^6, of which
   the float64 figures are 0.72 GiB; 1.07 GiB before its numeric axes were categoricals and its counts int32).
4. The same sweep on a 2-worker ``distributed.LocalCluster``: started beforehand and reached by its address, the
   work alone (the goal's ratio to (1), 1.3x), with the time the cluster took to start and to close; and started
   and closed by the sweep (``--workers 2``), which adds the workers' start (overlapping the planning of the chunks)
   and close, whatever the sweep's size.

Measured (docs/sweeps.md, "Speed and memory", has the whole output and the conditions), 01:12 UTC, load average 3 to
4, before -> after the second pass of issue 24, item 5: run_sweep's peak 1.72 -> 1.23 GiB (numeric axes categorical,
counts int32, no copy as the frame is made), the command's 0.95 -> 0.79 GiB; --workers 2 / local 2.00x -> 1.59x, its
cost over the cluster's work 2.81 -> 0.92 s (the close 1.0-1.6 -> 0.09 s, rackcost.analysis.sweep.cluster; the start
overlapping the planning); the cluster's work alone 1.56x -> 1.42x under that load (1.24x on a quieter machine).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

from rackcost.analysis.sweep.chunks import plan_chunks
from rackcost.analysis.sweep.cluster import close_cluster, start_local_cluster
from rackcost.analysis.sweep.design import group_scenario, structural_groups
from rackcost.analysis.sweep.run import WORKER_ENVIRONMENT, resolve, run_sweep
from rackcost.evaluation.chain import choose_points, run_samples
from rackcost.model.queues import queueing


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
        planned = choose_points(scenario)
        for chosen, (fleet, _) in zip(planned.chosen, run_samples(scenario, planned, {}, 1, False), strict=True):
            k.append(np.tile((fleet.demand.active_replicas * chosen.concurrency).ravel(), len(members)))
            a.append(np.tile((fleet.demand.admitted_rps * fleet.service_s).ravel(), len(members)))
    return np.concatenate(k).astype(float), np.concatenate(a)


GIB = 2**30
MEMORY_GOAL_GIB = 1.0
CLUSTER_GOAL = 1.3
LIBRARY = "import sys; from rackcost.analysis.sweep.run import run_sweep; run_sweep(sys.argv[1], confirm=True)"


WAIT = (
    "import os, subprocess, sys; child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL); "
    "_, status, usage = os.wait4(child.pid, 0); print(usage.ru_maxrss, status)"
)
"""A small process that runs a command and prints its peak RSS [KiB]: a child forked from this large process would
count this one's pages in its ``ru_maxrss`` (they are its own until it executes)."""


def peak_memory(command: list[str]) -> tuple[float, float]:
    """Peak resident set [GiB] and wall time [s] of a child process running ``command``."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", WAIT, *command], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    peak_kib, status = done.stdout.split()
    if status != "0":
        raise RuntimeError(f"{command} failed: {done.stderr}")
    return int(peak_kib) * 1024 / GIB, wall


def least(fn, repeats: int) -> float:
    """Least wall time of ``fn()`` over ``repeats`` calls [s]."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    configurations = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
    d = resolve(spec(configurations))
    print(f"sweep: {d.configurations:,} configurations x 2 systems x 3 demand points = {6 * d.configurations:,} rows")
    run_sweep(resolve(spec(10_000)))  # warm-up (imports, Dask)
    t0 = time.perf_counter()
    d = resolve(spec(configurations))
    chunks, _ = plan_chunks(d)
    t_plan = time.perf_counter() - t0
    rows = [0]

    def local() -> None:
        rows[0] = len(run_sweep(d, confirm=True).frame)

    t_local = least(local, 3)
    k, a = states(d)
    t_c = least(lambda: queueing.erlang_c(k, a), 3)
    print(
        f"1. local threaded scheduler, least of 3: {t_local:.2f} s, {d.configurations / t_local:,.0f} "
        f"configurations/s ({rows[0]:,} rows; resolving, grouping and planning {len(chunks)} chunks: "
        f"{t_plan:.2f} s)"
    )
    print(
        f"2. vectorised Erlang C over every row's state ({k.size:,} elements, one call), least of 3: {t_c:.3f} s; "
        f"sweep / Erlang C floor = {t_local / t_c:.1f}x (goal: within 6x)"
    )
    with tempfile.TemporaryDirectory() as folder:
        sweep_file = Path(folder) / "bench.yaml"
        sweep_file.write_text(yaml.safe_dump(spec(configurations)), encoding="utf-8")
        cli = [sys.executable, "-m", "rackcost.cli", "sweep", str(sweep_file), "-o", str(Path(folder) / "t.parquet")]
        peak_cli, wall_cli = peak_memory([*cli, "--yes"])
        peak_lib, wall_lib = peak_memory([sys.executable, "-c", LIBRARY, str(sweep_file)])
    met = "met" if peak_cli < MEMORY_GOAL_GIB else "NOT met"
    print(
        f"3. peak memory (ru_maxrss of a child process, one run each): rackcost sweep -o t.parquet {peak_cli:.2f} GiB "
        f"in {wall_cli:.1f} s (goal below {MEMORY_GOAL_GIB:g} GiB: {met}); "
        f"run_sweep's whole table {peak_lib:.2f} GiB in {wall_lib:.1f} s (wall times include the start of Python)"
    )
    started = time.perf_counter()
    cluster, client = start_local_cluster(2, WORKER_ENVIRONMENT)  # as the sweep's own cluster starts
    t_start = time.perf_counter() - started
    try:
        t_warm = least(lambda: run_sweep(d, address=cluster.scheduler_address, confirm=True), 3)
    finally:
        closing = time.perf_counter()
        close_cluster((cluster, client))
        t_close = time.perf_counter() - closing
    t_cold = least(lambda: run_sweep(d, workers=2, confirm=True), 2)
    print(
        f"4. 2-worker LocalCluster, least of 3: started beforehand (start {t_start:.2f} s, close {t_close:.2f} s), "
        f"the work {t_warm:.2f} s: distributed / local = {t_warm / t_local:.2f}x (goal {CLUSTER_GOAL:g}x); started "
        f"and closed by the sweep (--workers 2), least of 2: {t_cold:.2f} s, {t_cold / t_local:.2f}x"
    )


if __name__ == "__main__":
    main()
