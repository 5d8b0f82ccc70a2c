"""Speed of the fleet simulator, printed as medians and ratios (never asserted as a timed test).

Run: ``.venv/bin/python benchmarks/bench_simulate.py`` (SimPy and ciw are measured when installed:
``.venv/bin/pip install simpy ciw``; they are not dependencies of rackcost).

1. The FIFO recursion: 10**6 requests of a 4,096-slot pooled fleet, load-independent exponential service
   (target: under 5 s), in requests/s.
2. The event engine on the same fleet, and on a load-dependent curve (the default scenario's Jalapeño at peak,
   least-outstanding routing), in requests/s.
3. The same pooled M/M/k in SimPy (one process per request, a ``Resource`` of 4,096 slots) and in ciw, in
   requests/s: why the engine is a hand-written heap loop.
4. Simulate / analytic at equal answer: ``rackcost.simulate`` of one system at one point (200,000 requests)
   against the Erlang evaluation that gives the analytic accepted fraction there (``queueing.wait_tail``), and
   against ``rackcost.evaluate`` of the whole scenario (goal: analytic at least 10**4 times faster).
5. ``rackcost.simulate`` at default settings (200,000 requests, 5 replications) of Jalapeño at peak under each
   router, as a ratio to the floor of item 1 (the recursion's 10**6 requests, measured in the same run), and the
   solve of the round-robin steady-state law (E_N/M/c, 113 phases) that the round-robin start draws from.
"""

from __future__ import annotations

import importlib.util

import numpy as np

import rackcost
from rackcost.evaluation.chain import evaluate_systems
from rackcost.model.queues import queueing
from rackcost.model.sim import sim_steady
from rackcost.model.sim import simulation as sim
from timing import median_s

SLOTS = 4096
SERVICE_S = 10.0
RHO = 0.95


def _simpy_rps(requests: int) -> float:
    import simpy

    rng = np.random.default_rng(0)
    gaps = rng.exponential(SERVICE_S / (RHO * SLOTS), requests).tolist()
    holds = rng.exponential(SERVICE_S, requests).tolist()
    env = simpy.Environment()
    slots = simpy.Resource(env, capacity=SLOTS)

    def request(i):
        with slots.request() as req:
            yield req
            yield env.timeout(holds[i])

    def source():
        for i, gap in enumerate(gaps):
            yield env.timeout(gap)
            env.process(request(i))

    env.process(source())
    return requests / median_s(env.run, 1)


def _ciw_rps(requests: int) -> float:
    import ciw

    lam = RHO * SLOTS / SERVICE_S
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(lam)],
        service_distributions=[ciw.dists.Exponential(1.0 / SERVICE_S)],
        number_of_servers=[SLOTS],
    )
    ciw.seed(0)
    q = ciw.Simulation(network)
    horizon = requests / lam
    return requests / median_s(lambda: q.simulate_until_max_time(horizon), 1)


def main() -> None:
    lam = RHO * SLOTS / SERVICE_S
    fixed = sim.fixed_model(SLOTS, SERVICE_S, 0.5)

    def pooled(engine: str, requests: int) -> sim.Run:
        controls = sim.RunControls(initial_busy_fraction=RHO, engine=engine)
        fleet = sim.SimFleet(1, fixed, "pooled")
        return sim.run_fleet_once(
            np.random.default_rng(0), fleet, sim.RenewalArrivals(lam, requests), controls=controls
        )

    t = median_s(lambda: pooled("recursion", 10**6), 3)
    floor_s = t
    print(f"1. FIFO recursion, 10^6 requests, {SLOTS:,}-slot pooled fleet: {t:.2f} s ({1e6 / t:,.0f} requests/s)")

    t = median_s(lambda: pooled("event", 300_000), 3)
    print(f"2. event engine, same fleet: {3e5 / t:,.0f} requests/s ({t * 1e6 / 3e5:.2f} us a request)")
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path("deepseek-r1-jalapeno-vs-gb300.yaml"))
    outcome = next(o for o in evaluate_systems(scenario) if o.inputs.name.startswith("Jalape"))
    model = sim.replica_model(outcome.inputs.curve, int(outcome.chosen.concurrency))
    replicas = int(outcome.demand.active_replicas[-1])
    rate = float(outcome.demand.admitted_rps[-1])

    def load_dependent() -> sim.Run:
        fleet = sim.SimFleet(replicas, model, "least_outstanding")
        return sim.run_fleet_once(np.random.default_rng(0), fleet, sim.RenewalArrivals(rate, 300_000))

    t = median_s(load_dependent, 3)
    print(
        f"   event engine, load-dependent curve ({replicas} replicas x {model.slots} slots, least_outstanding): "
        f"{3e5 / t:,.0f} requests/s"
    )

    for name, fn, n in (("simpy", _simpy_rps, 100_000), ("ciw", _ciw_rps, 20_000)):
        if importlib.util.find_spec(name) is None:
            print(f"3. {name}: not installed (pip install {name} to measure it)")
        else:
            print(f"3. {name}, the same pooled M/M/{SLOTS} ({n:,} requests): {fn(n):,.0f} requests/s")

    row_s = median_s(
        lambda: rackcost.simulate(scenario, system=outcome.inputs.name, demand_point="peak", requests=200_000), 3
    )
    k = replicas * outcome.chosen.concurrency
    service = float(outcome.point.service_s[0])

    def erlang() -> object:
        return queueing.wait_tail(outcome.chosen.budget_s, 0.99, k, rate, service)

    erlang_s = median_s(erlang, 2001)
    evaluate_s = median_s(lambda: rackcost.evaluate(scenario), 51)
    print(
        f"4. rackcost.simulate, one system at peak, 200,000 requests: {row_s:.2f} s; one Erlang evaluation: "
        f"{erlang_s * 1e6:.1f} us (simulate / analytic = {row_s / erlang_s:,.0f}x); rackcost.evaluate of the "
        f"whole scenario: {evaluate_s * 1e3:.2f} ms (simulate / evaluate = {row_s / evaluate_s:,.0f}x)"
    )

    print(f"5. rackcost.simulate at default settings, Jalapeno at peak (floor: item 1, {floor_s:.2f} s):")
    for routing in ("least_outstanding", "pooled", "power_of_two", "random", "round_robin"):
        sim_steady._LAW_CACHE.clear()  # the round-robin law is solved once per call, as a user's call would
        row_s = median_s(
            lambda routing=routing: rackcost.simulate(
                scenario, system=outcome.inputs.name, demand_point="peak", routing=routing
            ),
            3,
        )
        print(f"   {routing:<18} {row_s:6.2f} s = {row_s / floor_s:5.2f}x the floor")
    law_s = median_s(lambda: sim_steady.erlang_phase_law(model, rate / replicas, replicas), 3)
    print(f"   round-robin steady-state law ({replicas} phases x {model.slots} slots): {law_s:.2f} s")


if __name__ == "__main__":
    main()
