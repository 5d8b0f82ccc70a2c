"""Analytic against simulated for a disaggregated system (issue 23, item 6): the agreement fixture
(``tests/data/disaggregated_agreement.yaml``: one system of a prefill and a decode pool, sized at 40 rps) with its
output lengths drawn from one family at a time, light (gamma, cv 0.5), heavy-tailed (lognormal, cv 1 and cv 2) and
bimodal (a CDF table of two modes, ``tests/test_sim_pools.py``'s), each of the workload's mean (300 tokens) and the
scenario's ``output_tokens_cv_fraction`` set to the family's cv (what the analytic side reads), at the fixture's
demand points (the pools at about 46/42%, 67/61% and 89/84% of their slots).

For each family and point it prints each pool's analytic slot utilisation, the analytic and simulated accepted
share (with its 95% half-width), the analytic and simulated p99 TTFT (with its half-width) and the relative error
``(analytic - simulated) / simulated`` of the p99 TTFT, the figure the issue's "Done when" bounds by 10%.

Usage::

    PYTHONPATH=src python benchmarks/pool_agreement.py [--requests 2000000] [--replications 10] [--seed 1]
        [--prefill-cv 1.0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import rackcost
from rackcost.analysis import referee_pools
from rackcost.model.sim.sim_classes import LengthLaw

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "disaggregated_agreement.yaml"
FAMILIES = {
    "light": LengthLaw("gamma", 300.0, 0.5),
    "heavy cv 1": LengthLaw("lognormal", 300.0, 1.0),
    "heavy cv 2": LengthLaw("lognormal", 300.0, 2.0),
    "bimodal": LengthLaw(
        "cdf",
        300.0,
        table_tokens=np.array([40.0, 80.0, 580.0, 740.0]),
        table_cumulative_fraction=np.array([0.0, 0.6, 0.6, 1.0]),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2_000_000, help="simulated requests per point")
    parser.add_argument("--replications", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--prefill-cv",
        type=float,
        default=referee_pools.PREFILL_CV_FRACTION,
        help="cv of the simulated prefill work (default 1, exponential, what the analytic pool assumes; 0: every "
        "prefill of the one input length the same)",
    )
    args = parser.parse_args()
    referee_pools.PREFILL_CV_FRACTION = args.prefill_cv
    print(
        f"{args.requests:,} requests per point in {args.replications} replications, seed {args.seed}, "
        f"prefill work cv {args.prefill_cv:g}"
    )
    print(
        f"{'family':11} {'point':8} {'util p/d':>9} {'accepted a':>10} {'simulated':>17} "
        f"{'p99 TTFT a':>10} {'simulated':>14} {'a/s - 1':>8}"
    )
    text = FIXTURE.read_text()
    for name, law in FAMILIES.items():
        cv = referee_pools.law_cv(law)
        scenario = rackcost.scenario_from_yaml(
            text.replace("output_tokens_cv_fraction: 0.5", f"output_tokens_cv_fraction: {cv!r}"), FIXTURE.name
        )
        t = time.process_time()
        rows = rackcost.simulate(
            scenario, requests=args.requests, replications=args.replications, seed=args.seed, output_lengths=law
        )
        for r in rows:
            util = f"{r['analytic_prefill_utilization_fraction']:.2f}/{r['analytic_decode_utilization_fraction']:.2f}"
            sim, half = r["simulated_ttft_p99_ms"], r["simulated_ttft_p99_ms_ci95_halfwidth"]
            acc = f"{r['simulated_accepted_fraction']:.4f} +- {r['simulated_accepted_fraction_ci95_halfwidth']:.4f}"
            print(
                f"{name:11} {r['demand_point']:8} {util:>9} {r['analytic_accepted_fraction']:10.4f} {acc:>17} "
                f"{r['analytic_ttft_p99_ms']:10.0f} {sim:7.0f} +- {half:4.0f} "
                f"{100 * (r['analytic_ttft_p99_ms'] / sim - 1):+7.1f}%"
            )
        print(f"  ({time.process_time() - t:.0f} s of CPU)", file=sys.stderr)


if __name__ == "__main__":
    main()
