"""A replay of an hour's windows through a fleet rackcost sized: the referee of sub-hour peaks (docs/model.md,
"Sub-hour peaks in a profile").

The analytic side serves a demand point's windows by the pointwise stationary approximation
(:mod:`rackcost.model.queues.rate_swing`, ``demand[i].sub_hour``). This side draws the hour itself: each window's
arrivals a Poisson process at that window's rate, one window after another, preceded by a warm-up window (the
hour's first rate unless given) that is not counted; admission control caps each window's admitted rate at the
stationary capacity at SLO of the fleet's active replicas (the model's assumption, as ``rackcost simulate``
assumes it: offered arrivals are thinned to the cap); the admitted ones go through the discrete-event simulator
(:func:`rackcost.model.sim.simulation.run_fleet_once`) with the scenario's router, the curve's load-dependent service
and the workload's output spread. A request is accepted when it is admitted and waits at most the queueing budget
of the point. The share accepted is counted over the hour's offered requests, replication by replication
(independent seeds), and reported with a Student t 95% half-width.

Poisson within a window is the superposition of many clients' streams (ServeGen's fleet is 162 clients; the
superposition of many independent sparse streams tends to Poisson, the Palm-Khintchine theorem), and it is what the
analytic side assumes at each window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import stdtrit

from rackcost.model.queues import routing as routes
from rackcost.model.replica.operating_point import queueing_budget_s
from rackcost.model.sim.sim_engines import replica_model
from rackcost.model.sim.simulation import (
    DEFAULT_OUTPUT_TOKENS_CV_FRACTION,
    RequestWork,
    SimFleet,
    TraceArrivals,
    run_fleet_once,
)
from rackcost.scenario.schema import Scenario

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation

__all__ = ["INFERENCEX_SCENARIO", "CheckRow", "WindowReplay", "replay_windows", "servegen_check"]


@dataclass(frozen=True)
class WindowReplay:
    """The accepted share of an hour of windows, analytic beside replayed.

    Attributes
    ----------
    system, demand_point
        What was replayed.
    replicas, slots_per_replica
        The fleet's active replicas at the point and each one's slots [-].
    utilization_fraction
        The analytic slot utilisation at the point [-].
    analytic_accepted_fraction
        The model's accepted share of the point (its windows' pointwise stationary average where it has them) [-].
    replayed_accepted_fraction, halfwidth_fraction
        The replay's mean over replications and its 95% half-width (Student t) [-].
    replications, requests
        Replications and offered requests drawn over all of them (warm-up windows left out) [-].
    """

    system: str
    demand_point: str
    replicas: int
    slots_per_replica: int
    utilization_fraction: float
    analytic_accepted_fraction: float
    replayed_accepted_fraction: float
    halfwidth_fraction: float
    replications: int
    requests: int


def replay_windows(
    scenario: Scenario | Evaluation,
    system: str,
    window_rps: ArrayLike,
    window_s: float,
    *,
    demand_point: str | None = None,
    warmup_rps: float | None = None,
    replications: int = 5,
    seed: int = 0,
) -> WindowReplay:
    """Replay windows of Poisson arrivals through the fleet rackcost sizes for ``scenario`` (module docstring).

    Parameters
    ----------
    scenario
        A validated scenario, or its evaluation; its fleet for ``system`` as :func:`rackcost.evaluate` sizes it.
    system
        The system replayed (a single-pool system of a performance curve).
    window_rps
        The arrival rate of each window, in order [requests/s].
    window_s
        Length of each window [s].
    demand_point
        The demand point whose active replicas and queueing budget serve the windows; default the sizing point.
    warmup_rps
        Rate of the warm-up window before the first, not counted; default the first window's [requests/s].
    replications
        Independent replications, at least 2 [-].
    seed
        Seed; the same seed gives the same replay.

    Returns
    -------
    WindowReplay
    """
    from rackcost.evaluation.chain import evaluation_for

    rates = np.asarray(window_rps, dtype=float)
    if rates.ndim != 1 or rates.size == 0 or not np.all(np.isfinite(rates)) or np.any(rates < 0):
        raise ValueError("window_rps must be a non-empty list of finite rates >= 0")
    if not (math.isfinite(window_s) and window_s > 0):
        raise ValueError(f"window_s must be a positive number of seconds, got {window_s!r}")
    if replications < 2:
        raise ValueError(f"replications must be at least 2, got {replications}")
    found = evaluation_for(scenario, "replay", (system,), warn=False)
    scenario = found.scenario
    point = demand_point or scenario.sizing_point.name
    names = [d.name for d in scenario.demand]
    j = names.index(point)
    outcome = next(o for o in found.outcomes if o.inputs.name == system)
    points = found.result.records["points"]
    row = next(r for r in points if r["system"] == system and r["demand_point"] == point)
    replicas = int(np.asarray(outcome.demand.active_replicas).reshape(-1, len(names))[0, j])
    concurrency = float(outcome.chosen.concurrency)
    slots = max(int(math.floor(concurrency + 1e-9)), 1)
    osl = float(scenario.workload.output_tokens_per_request)
    cv = scenario.workload.output_tokens_cv_fraction
    cv = DEFAULT_OUTPUT_TOKENS_CV_FRACTION if cv is None else float(cv)
    slo = scenario.slo
    budget_s = float(queueing_budget_s(row["ttft_ms"], row["tpot_ms"], osl, slo.ttft_limit_ms, slo.e2e_limit_ms))
    cap_rps = float(
        routes.capacity_at_slo(
            scenario.fleet.routing,
            replicas,
            concurrency,
            float(np.asarray(outcome.point.service_s).reshape(-1)[0]),
            outcome.chosen.budget_s,
            1.0 - slo.attainment_fraction,
        )
    )
    model = replica_model(outcome.inputs.curve, slots)
    warm = float(rates[0] if warmup_rps is None else warmup_rps)
    all_rates = np.concatenate(([warm], rates))
    shares = []
    offered_total = 0
    for child in np.random.SeedSequence(seed).spawn(replications):
        rng = np.random.default_rng(child)
        counts = rng.poisson(all_rates * window_s)
        starts = np.repeat(np.arange(all_rates.size) * window_s, counts)
        offered = np.sort(starts + rng.random(starts.size) * window_s)  # uniform within the window: Poisson
        window = np.minimum((offered // window_s).astype(np.intp), all_rates.size - 1)
        keep_p = np.minimum(1.0, cap_rps / np.maximum(all_rates[window], 1e-300))
        admitted = offered[rng.random(offered.size) < keep_p]
        counted_offered = int(np.sum(window >= 1))
        if admitted.size == 0 or counted_offered == 0:
            raise ValueError("the windows hold too few arrivals to replay")
        fleet = SimFleet(replicas, model, scenario.fleet.routing)
        run = run_fleet_once(rng, fleet, TraceArrivals(admitted), RequestWork(cv, osl))
        measured = run.arrival_s >= window_s  # the warm-up window is not counted
        measured &= np.arange(run.arrival_s.size) >= run.arrival_s.size - admitted.size  # nor a steady start's
        accepted = measured & ~run.dropped & (run.wait_s <= budget_s)
        shares.append(float(np.sum(accepted)) / counted_offered)
        offered_total += counted_offered
    values = np.asarray(shares)
    half = float(stdtrit(replications - 1, 0.975) * values.std(ddof=1) / math.sqrt(replications))
    return WindowReplay(
        system=system,
        demand_point=point,
        replicas=replicas,
        slots_per_replica=slots,
        utilization_fraction=float(row["utilization_fraction"]),
        analytic_accepted_fraction=float(row["accepted_rps"]) / float(row["offered_rps"]),
        replayed_accepted_fraction=float(values.mean()),
        halfwidth_fraction=half,
        replications=replications,
        requests=offered_total,
    )


INFERENCEX_SCENARIO = "deepseek-r1-b200-vs-gb200-inferencex"
"""The bundled scenario whose systems serve the ServeGen check."""


@dataclass(frozen=True)
class CheckRow:
    """One fleet of the ServeGen check: what it was sized for, and its hour replayed."""

    sized_for: str
    replay: WindowReplay


def servegen_check(
    folder: str | Path, *, peak_rps: float = 240.0, replications: int = 5, seed: int = 0
) -> list[CheckRow]:
    """ServeGen's busiest hour, replayed through each system of :data:`INFERENCEX_SCENARIO` as rackcost sizes it
    from the profile with its windows, and as it sizes it from the hourly means alone (docs/model.md, "Sub-hour peaks
    in a profile"; ``benchmarks/sub_hour_agreement.py``).

    The analytic share of the fleet sized for the means is that same fleet (``fleet.replicas`` its serving count)
    under the busiest hour's windows.
    """
    from rackcost.analysis.servegen_windows import profile_of_windows, read_servegen_windows
    from rackcost.evaluation.chain import evaluate
    from rackcost.scenario.loading import bundled_scenario_path, load_scenario, scenario_to_data

    profile = profile_of_windows(read_servegen_windows(folder), peak_rps)
    busiest = int(np.argmax(profile.hourly_arrival_rps))
    hour = profile.window_rps[busiest]
    warmup = float(profile.window_rps[busiest - 1][-1]) if busiest > 0 else None
    base = scenario_to_data(load_scenario(bundled_scenario_path(INFERENCEX_SCENARIO)))
    base.pop("demand_profile", None)
    with_windows = dict(base, demand=profile.demand())
    means = dict(base, demand={k: v for k, v in profile.demand().items() if k != "sub_hour"})
    sized = scenario_from_data(with_windows)
    plain = scenario_from_data(means)
    rows = []

    def replay(scenario: Scenario, system: str) -> WindowReplay:
        return replay_windows(
            scenario, system, hour, profile.window_s, warmup_rps=warmup, replications=replications, seed=seed
        )

    plain_points = evaluate(plain).records["points"]  # once: the same result for every system
    for system in [s.name for s in sized.systems if s.api is None]:
        rows.append(CheckRow("the profile with its windows", replay(sized, system)))
        serving = next(r for r in plain_points if r["system"] == system and r["demand_point"] == "peak")
        fixed = dict(with_windows, fleet=dict(with_windows["fleet"], replicas=int(serving["active_replicas"])))
        fixed["systems"] = [s for s in with_windows["systems"] if s["name"] == system]
        fixed.pop("baseline_system", None)
        fixed.pop("figures", None)  # provenance of the figures of both systems: not needed for one
        rows.append(CheckRow("the hourly means", replay(scenario_from_data(fixed), system)))
    return rows


def scenario_from_data(data: dict[str, object]) -> Scenario:
    """A scenario from its data (:func:`rackcost.scenario.loading.scenario_from_dict`)."""
    from rackcost.scenario.loading import scenario_from_dict

    return scenario_from_dict(data)
