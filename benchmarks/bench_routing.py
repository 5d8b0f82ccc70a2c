"""Speed of the routing layer, printed as medians and ratios (never asserted as a timed test).

Run: ``.venv/bin/python benchmarks/bench_routing.py``

For the Monte Carlo's shapes (1,000 samples, per sample ``(n, 1)`` against 3 demand points ``(n, 3)``): the
median time of ``replicas_needed``, ``capacity_at_slo`` and ``wait_tail`` under ``least_outstanding`` (the pooled
forms of queueing.py, through the dispatch) and ``random`` (one replica's M/M/c), and each one's ratio to the
direct queueing.py call. Goal: the dispatch costs nothing measurable, and ``random`` is no slower than pooled.
"""

from __future__ import annotations

import numpy as np

from rackcost.model.queues import queueing, routing
from timing import median_s

REPEATS = 30


def main() -> None:
    rng = np.random.default_rng(0)
    n, points = 1000, 3
    service_s = rng.uniform(2.0, 20.0, (n, 1))
    slots = rng.integers(8, 256, (n, 1)).astype(float)
    budget_s = rng.uniform(0.1, 2.0, (n, 1))
    arrival_rps = rng.uniform(50.0, 3000.0, (n, points))
    eps = 0.01

    replicas = queueing.replicas_needed(arrival_rps, service_s, slots, budget_s, eps)
    provisioned = replicas.max(axis=1, keepdims=True)
    direct = {
        "replicas_needed": lambda: queueing.replicas_needed(arrival_rps, service_s, slots, budget_s, eps),
        "capacity_at_slo": lambda: queueing.capacity_at_slo(provisioned * slots, service_s, budget_s, eps),
        "wait_tail": lambda: queueing.wait_tail(budget_s, 0.99, replicas * slots, arrival_rps, service_s),
    }
    print(f"routing layer, {n} samples x {points} demand points, median of {REPEATS} [ms]")
    print(f"   {'function':<18}{'queueing':>10}{'least_out.':>12}{'random':>10}{'lo/q':>8}{'random/q':>10}")
    for name, base in direct.items():
        times = {"queueing": median_s(base, REPEATS)}
        for r in ("least_outstanding", "random"):
            n_r = routing.replicas_needed(r, arrival_rps, service_s, slots, budget_s, eps)
            calls = {
                "replicas_needed": lambda r=r: routing.replicas_needed(r, arrival_rps, service_s, slots, budget_s, eps),
                "capacity_at_slo": lambda r=r, n_r=n_r: routing.capacity_at_slo(
                    r, n_r.max(axis=1, keepdims=True), slots, service_s, budget_s, eps
                ),
                "wait_tail": lambda r=r, n_r=n_r: routing.wait_tail(
                    r, budget_s, 0.99, n_r, slots, arrival_rps, service_s
                ),
            }
            times[r] = median_s(calls[name], REPEATS)
        q, lo, rnd = times["queueing"], times["least_outstanding"], times["random"]
        print(f"   {name:<18}{q * 1e3:10.3f}{lo * 1e3:12.3f}{rnd * 1e3:10.3f}{lo / q:8.2f}{rnd / q:10.2f}")


if __name__ == "__main__":
    main()
