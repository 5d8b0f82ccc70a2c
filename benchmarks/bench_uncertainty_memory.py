"""Peak memory of the Monte Carlo on a large scenario (issue 11: 1,000 demand points x 10k samples took 2.7 GB).

Run: ``.venv/bin/python benchmarks/bench_uncertainty_memory.py [points] [samples] [workers]``

Each measurement runs in a fresh child process so that its peak resident set (``ru_maxrss`` of the child) is its
own: the default scenario with a distribution on the electricity price and on one capex, its demand replaced by
``points`` demand points (1,000 by default), evaluated with ``samples`` samples (10,000) by
:func:`rackcost.uncertainty` without progress (as the dashboard and the library call it) and with progress (as
the CLI calls it). It prints the peak RSS [MB], the wall time [s] and the size of the kept sample arrays [MB].
"""

from __future__ import annotations

import subprocess
import sys

CHILD = r"""
import resource, sys, time
import yaml, numpy as np
import rackcost
points, samples, workers, progress = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
data = yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))
data["facility"]["electricity_usd_per_kwh"] = {"dist": "triangular", "low": 0.06, "mode": 0.081, "high": 0.17}
hours = 24.0 / points
data["demand"] = [
    {"name": f"p{i}", "arrival_rps": 1.0 + 0.05 * i, "hours_per_day": hours} for i in range(points)
]
sc = rackcost.scenario_from_dict(data, "memory benchmark")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
r = rackcost.uncertainty(sc, samples, 0, progress=(lambda done: None) if progress else None, workers=workers)
wall = time.perf_counter() - t
kept = sum(a.nbytes for s, cols in r.samples.items() for a in cols.values() if a.base is None or a.strides[-1]) / 1e6
print(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} {base:.0f} {wall:.2f} {kept:.0f}")
"""


def measure(points: int, samples: int, workers: int, progress: bool) -> str:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(points), str(samples), str(workers), "1" if progress else "0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    peak, base, wall, kept = out
    return f"peak RSS {peak} MB (after import {base} MB), {wall} s, kept samples ~{kept} MB"


def main() -> None:
    points = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    samples = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    print(f"{points} demand points x {samples:,} samples x 2 systems, {workers} worker(s)")
    for progress in (False, True):
        print(f"  {'with' if progress else 'without'} progress: {measure(points, samples, workers, progress)}")


if __name__ == "__main__":
    main()
