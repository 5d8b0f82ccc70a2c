"""Does ``rackcost simulate`` at default settings agree with the exact values on every bundled system at peak?
(issue 21, item 5: random and round_robin routing.)

Run: ``.venv/bin/python benchmarks/sim_agreement.py [--requests N] [--service load_dependent|fixed|both]``.

For each bundled scenario and each system (a system whose fleet at peak repeats one already shown is skipped), at
the peak demand point, ``rackcost.simulate`` with its defaults (200,000 requests in 5 replications, seed 0) under
``random`` and ``round_robin`` routing, beside the exact accepted share of offered requests:

- ``random``: each replica an independent queue fed Poisson(lambda / N). With ``--service fixed`` it is the M/M/c
  queue, its tail from ``rackcost.model.queues.queueing.wait_exceedance`` (Erlang C; the issue's 0.196 / 0.213 / 0.224).
  With the default load-dependent service it is the birth-death chain with completion rate ``min(n, c) / S(n)``
  (``rackcost.model.sim.sim_steady.birth_death_law``; exact for exponential work, which every bundled workload has).
- ``round_robin``: each replica an E_N/M/c queue (every N-th arrival of a Poisson stream), solved exactly as a
  Markov chain on (requests, arrival phase) (``rackcost.model.sim.sim_steady.erlang_phase_law``).

Both scaled by the admitted share (admission control sheds the rest before the queue). "covered" is whether the
exact value lies within the simulated value's reported 95% interval: "yes" for a Student t interval over the
replications, "bound" where SLO misses are so rare that fewer than 5 independent units of the runs hold one and the
interval is the conservative rare-miss bound (``rackcost.model.sim.sim_rare.rare_miss_bound``: Clopper-Pearson over
independent replica states or stretches of the run, the rule of three when none holds a miss); "warned" where it is
not covered and the row carries a warning saying why. With 5 replications about 1 row in 20 misses by chance alone.
"""

from __future__ import annotations

import argparse
import time

import rackcost
from rackcost.evaluation.chain import evaluate_systems
from rackcost.model.queues import queueing
from rackcost.model.sim import sim_steady as steady
from rackcost.model.sim.simulation import fixed_model, replica_model
from rackcost.units import MS_PER_S


def exact_accepted(row: dict, o, service: str, routing: str) -> tuple[float, float | None]:
    """Exact accepted share of offered for a simulated row, and (random, fixed service) the Erlang C figure."""
    replicas, slots = row["replicas_serving"], row["slots_per_replica"]
    each = row["arrival_rps"] / replicas
    budget_s = row["queueing_budget_ms"] / MS_PER_S
    share = row["arrival_rps"] / row["offered_rps"]
    if service == "fixed":
        model = fixed_model(slots, float(o.point.service_s[0]), o.chosen.ttft_ms / MS_PER_S)
    else:
        model = replica_model(o.inputs.curve, slots)
    erlang = None
    if routing == "random":
        law = steady.birth_death_law(model, each)
        if service == "fixed":
            erlang = share * (1.0 - float(queueing.wait_exceedance(budget_s, slots, each, float(model.service_s[1]))))
    else:
        law = steady.erlang_phase_law(model, each, replicas)
        law = None if law is None else law[:, -1]  # what an arrival finds: the end of the last phase
    if law is None:
        return float("nan"), erlang
    return share * steady.accepted_fraction(model, law, budget_s), erlang


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--service", choices=("load_dependent", "fixed", "both"), default="load_dependent")
    args = parser.parse_args()
    services = ("load_dependent", "fixed") if args.service == "both" else (args.service,)
    seen = set()
    tally: dict[str, int] = {}
    header = (
        f"{'system':<28} {'router':<12} {'service':<15} {'simulated':>9} {'± 95%':>7} {'exact':>7} {'1-exact':>8} "
        f"{'Erlang C':>8} {'covered':>7} {'units':>11} {'s':>5}  warnings"
    )
    print(f"rackcost.simulate at peak, {args.requests:,} requests in 5 replications, seed 0 (the defaults)")
    print(header)
    for path in rackcost.bundled_scenarios():
        scenario = rackcost.load_scenario(path)
        names = [d.name for d in scenario.demand]
        point = "peak" if "peak" in names else scenario.sizing_point.name
        for o in evaluate_systems(scenario):
            j = names.index(point)
            shape = (
                int(o.demand.active_replicas[j]),
                o.chosen.concurrency,
                float(o.demand.admitted_rps[j]),
                float(o.point.service_s[0]),
            )
            if shape in seen:
                continue
            seen.add(shape)
            for service in services:
                for routing in ("random", "round_robin"):
                    t = time.perf_counter()
                    (row,) = rackcost.simulate(
                        scenario,
                        system=o.inputs.name,
                        demand_point=point,
                        requests=args.requests,
                        routing=routing,
                        service=service,
                    )
                    elapsed = time.perf_counter() - t
                    exact, erlang = exact_accepted(row, o, service, routing)
                    sim, half = row["simulated_accepted_fraction"], row["simulated_accepted_fraction_ci95_halfwidth"]
                    ok = abs(sim - exact) <= (half or 0.0)
                    bound = row["simulated_miss_upper_bound_fraction"] is not None
                    verdict = ("bound" if bound else "yes") if ok else ("warned" if row["warnings"] else "NO")
                    tally[verdict] = tally.get(verdict, 0) + 1
                    print(
                        f"{o.inputs.name[:28]:<28} {routing:<12} {service:<15} {sim:9.4f} {half or 0:7.4f} "
                        f"{exact:7.4f} {1 - exact:8.1e} {'-' if erlang is None else f'{erlang:.4f}':>8} {verdict:>7} "
                        f"{row['miss_units_with_miss']:>4}/{row['miss_units']:<6} "
                        f"{elapsed:5.1f}  {row['warnings']}",
                        flush=True,
                    )
    print(
        "covered: "
        + ", ".join(f"{k} {v}" for k, v in sorted(tally.items()))
        + " (bound: the rare-miss bound; warned: not covered, and the row says why); units: independent units of "
        "the runs with an SLO miss / in all"
    )


if __name__ == "__main__":
    main()
