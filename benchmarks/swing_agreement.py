"""The rate swing's pointwise stationary approximation against ``rackcost simulate --rate-swing`` on every bundled
system at peak (issue 21, item 1).

Run: ``.venv/bin/python benchmarks/swing_agreement.py [--amplitude 0.2] [--period 60] [--periods 5]``.

Each bundled scenario's fleets as sized (no swing in the scenario: the Poisson-sized fleet), at the peak demand point,
with every point's rate swinging ``+/- amplitude`` over ``period`` seconds. The analytic side is the same fleet's
pointwise stationary approximation (``FleetOutcome.served_at_swing``); the simulated side draws the swing as a
non-homogeneous Poisson process by thinning (a random phase per replication, the first period left out), in 5
replications of ``periods`` periods each (seed 0), with admission control capping each phase at the stationary
capacity at SLO (the model's assumption) and without it (every request served, however long it waits). A system
whose fleet at peak repeats one already shown is skipped. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

import rackcost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amplitude", type=float, default=0.2)
    parser.add_argument("--period", type=float, default=60.0)
    parser.add_argument("--periods", type=float, default=5.0, help="periods per replication")
    parser.add_argument("--replications", type=int, default=5)
    args = parser.parse_args()
    print(
        "| scenario | system | replicas x slots | utilisation | S (s) | constant rate | PSA | simulated, admission "
        "| simulated, no admission |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    seen = set()
    start = time.perf_counter()
    for path in rackcost.bundled_scenarios():
        scenario = rackcost.load_scenario(path)
        peak = scenario.sizing_point
        points = rackcost.evaluate(scenario).records["points"]
        requests = int(args.replications * args.periods * args.period * peak.arrival_rps)
        swing = (args.amplitude, args.period)
        common = dict(demand_point=peak.name, requests=requests, replications=args.replications, rate_swing=swing)
        names = [s.name for s in scenario.systems if s.api is None]
        for name in names:
            row = next(r for r in points if r["system"] == name and r["demand_point"] == peak.name)
            key = (scenario.workload.model, row["active_replicas"], row["in_service_concurrency"], peak.arrival_rps)
            if key in seen:
                continue
            seen.add(key)
            shed = rackcost.simulate(scenario, system=name, **common)[0]
            served = rackcost.simulate(scenario, system=name, admission=False, **common)[0]
            print(
                f"| {path.stem} | {name} | {shed['replicas_serving']} x {shed['slots_per_replica']} | "
                f"{row['utilization_fraction']:.3f} | {row['service_s']:.3g} | "
                f"{row['accepted_rps'] / row['offered_rps']:.4f} | {shed['analytic_accepted_fraction']:.4f} | "
                f"{shed['simulated_accepted_fraction']:.4f} +- "
                f"{shed['simulated_accepted_fraction_ci95_halfwidth']:.4f} | "
                f"{served['simulated_accepted_fraction']:.4f} +- "
                f"{served['simulated_accepted_fraction_ci95_halfwidth']:.4f} |",
                flush=True,
            )
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
