"""The fleet simulator as referee: ``rackcost.simulate`` runs :mod:`rackcost.model.simulation` on the fleets rackcost
sized and sets the simulated figures beside the analytic ones users see in :func:`rackcost.evaluate`.

For each system and demand point the fleet is simulated as sized: the serving replicas at that point
(``active_replicas``), each with as many slots as the chosen concurrency allows (its integer part: a scheduler
limit is an integer, and the SLO was checked at the chosen concurrency, not above it), service read from the
system's curve at the replica's occupancy, the model's acceptance rule at that load (the queueing budget the SLO
leaves after the TTFT at the concurrency in service there), and the
router the scenario names (``fleet.routing``, default ``least_outstanding``). Arrivals are a renewal process
(Poisson by default; ``arrival_scv`` sets their burstiness) at the rate the model admits (admission control drops
the rest before the queue, as in the model), or with ``admission=False`` at the offered rate with nothing shed
(every request is served however long it waits), or a trace of arrival times.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from rackcost import limits
from rackcost.analysis import referee_classes, referee_pools, referee_swing
from rackcost.analysis.referee_arrivals import capacity_scvs, point_arrivals, trace_replay
from rackcost.analysis.trace_files import Trace, read_trace
from rackcost.errors import check_argument, check_count
from rackcost.evaluation.servable import served_for
from rackcost.model import queueing
from rackcost.model.operating_point import queueing_budget_s
from rackcost.model.routers import router_of
from rackcost.model.sim_classes import LengthLaw
from rackcost.model.sim_trace import DEFAULT_TRACE_LENGTHS, check_trace_lengths, shape_requests
from rackcost.model.sim_work import BYTES_PER_SIMULATED_REQUEST, MEMORY_SHARE, SimulationTooLarge
from rackcost.model.simulation import (
    DEFAULT_OUTPUT_TOKENS_CV_FRACTION,
    RenewalArrivals,
    RequestWork,
    SimFleet,
    TraceArrivals,
    check_arrival_scv,
    fixed_model,
    replica_model,
    replicate,
)
from rackcost.model.strategies import DEFAULT_ROUTING
from rackcost.scenario.schema import Scenario
from rackcost.units import MS_PER_S

__all__ = [
    "ADMISSION_WORDS",
    "CAPACITY_BRACKET_FRACTION",
    "DEFAULT_ROUTING",
    "FIGURES",
    "SERVICE_MODELS",
    "TAIL_NOTE",
    "capacity_check",
    "BYTES_PER_SIMULATED_REQUEST",
    "check_requests_fit",
    "figure_rows",
    "tail_note_applies",
    "simulate",
]

SERVICE_MODELS = ("load_dependent", "fixed")
"""``load_dependent``: service time and TTFT read from the curve at the replica's occupancy; ``fixed``: the chosen
point's at every occupancy (what the pooled M/M/k assumes)."""
HOT_UTILIZATION_FRACTION = 0.98
"""Above this slot utilisation, with :data:`MANY_SLOTS` slots or more, the 1% tail is bounded loosely [-]."""
MANY_SLOTS = 1000
"""Slots from which :data:`HOT_UTILIZATION_FRACTION` brings the tail caveat [requests]."""
SHORT_SPAN_SERVICE_TIMES = 5
"""A replication measuring fewer mean service times than this gets a note: its estimates lean on the warm start."""
TAIL_NOTE = (
    "utilisation above 98% with thousands of slots: 10^6 requests only bound a 1% tail, about +-30%; "
    "read the accepted fraction's interval, not its point"
)


FIGURES = (
    ("accepted_fraction", "accepted (within SLO) share of offered"),
    ("ttft_p50_ms", "TTFT p50 ms"),
    ("ttft_p99_ms", "TTFT p99 ms"),
    ("utilization_fraction", "slot utilisation"),
    ("accepted_rps", "accepted rps"),
    ("useful_output_tokens_per_s", "accepted output tokens/s"),
    ("tpot_p99_ms", "TPOT p99 ms"),
    *referee_pools.POOL_FIGURES,
)
"""The figures set side by side: row key stem and label."""
_SHORT = {
    "accepted_fraction": "accepted",
    "ttft_p50_ms": "ttft_p50",
    "ttft_p99_ms": "ttft_p99",
    "utilization_fraction": "utilization",
    "accepted_rps": "throughput",
    "useful_output_tokens_per_s": "output_tokens",
    "tpot_p99_ms": "tpot_p99",
    **referee_pools.POOL_SHORT,
}
"""Stem of each figure's relative-error column."""


def tail_note_applies(utilization_fraction: float, total_slots: int) -> bool:
    """Whether a row carries :data:`TAIL_NOTE`: utilisation above 98% with thousands of slots."""
    return utilization_fraction > HOT_UTILIZATION_FRACTION and total_slots >= MANY_SLOTS


def _relative_error(simulated: float, analytic: float) -> float | None:
    """(simulated - analytic) / analytic; 0 when both are 0, None when only the analytic one is [-]."""
    if analytic == 0:
        return 0.0 if simulated == 0 else None
    return (simulated - analytic) / analytic


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def figure_rows(row: dict[str, Any]) -> list[dict[str, Any]]:
    """One simulated row as a long table: per figure, its label, analytic and simulated value, 95% half-width and
    relative error (what the command line and the dashboard print).

    Examples
    --------
    >>> row = {"analytic_accepted_fraction": 1.0, "simulated_accepted_fraction": 0.99,
    ...        "simulated_accepted_fraction_ci95_halfwidth": 0.01, "accepted_relative_error_fraction": -0.01}
    >>> figure_rows(row)[0]["simulated"]
    0.99
    """
    return [
        {
            "figure": label,
            "key": key,
            "analytic": row[f"analytic_{key}"],
            "simulated": row[f"simulated_{key}"],
            "ci95_halfwidth": row[f"simulated_{key}_ci95_halfwidth"],
            "relative_error_fraction": row[f"{_SHORT[key]}_relative_error_fraction"],
        }
        for key, label in FIGURES
        if f"analytic_{key}" in row
    ]


CLASSES_NOT_SIMULATED = (
    "workload.classes: the capacity check does not bracket a mix of request classes (each class has its own "
    "budget and target); rackcost simulate without --capacity referees each class at each demand point"
)
"""Why the capacity check refuses a scenario with request classes."""


def check_one_shape(scenario: Scenario) -> None:
    """Refuse a scenario with request classes in the capacity check (:data:`CLASSES_NOT_SIMULATED`): bracketing
    it as one shape would referee something the model did not compute.

    Raises
    ------
    ValueError
        With ``workload.classes``.
    """
    if getattr(scenario.workload, "classes", None) is not None:
        raise ValueError(CLASSES_NOT_SIMULATED)


def check_requests_fit(requests: int) -> None:
    """Refuse a simulation whose requests the machine cannot hold (:data:`BYTES_PER_SIMULATED_REQUEST`).

    Raises
    ------
    ValueError
        Saying the estimate, what the machine has and the most requests it can simulate.

    Examples
    --------
    >>> check_requests_fit(1000)
    """
    need = requests * BYTES_PER_SIMULATED_REQUEST
    have = MEMORY_SHARE * limits.available_memory_bytes()
    if need > have:
        most = int(have // BYTES_PER_SIMULATED_REQUEST)
        raise ValueError(
            f"{requests:,} simulated requests need about {limits.gigabytes(need)} of memory "
            f"({BYTES_PER_SIMULATED_REQUEST} bytes each); this machine has {limits.gigabytes(have / MEMORY_SHARE)} "
            f"available: simulate at most {most:,} requests"
        )


def simulate(
    scenario: Scenario,
    system: str | None = None,
    demand_point: str | None = None,
    requests: int = 200_000,
    seed: int = 0,
    routing: str | None = None,
    replications: int = 5,
    service: str = "load_dependent",
    trace: Trace | str | Path | None = None,
    queue_cap: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    arrival_scv: float | None = None,
    admission: bool = True,
    rate_swing: tuple[float, float] | None = None,
    output_lengths: LengthLaw | None = None,
    trace_lengths: str | None = None,
) -> list[dict[str, Any]]:
    """Simulate the fleets rackcost sized and set the simulated figures beside the analytic ones.

    Parameters
    ----------
    scenario
        A validated scenario.
    system, demand_point
        Only this system / demand point (default: every one).
    requests
        Simulated requests per system and demand point, over all replications [-].
    seed
        Seed; the same seed gives the same rows.
    routing
        Router (a name registered in :mod:`rackcost.model.routers`); default the scenario's ``fleet.routing``, else
        ``least_outstanding``.
    replications
        Independent replications for the 95% intervals (batches, with a trace) [-], at least 2.
    service
        ``load_dependent`` (default) or ``fixed`` (:data:`SERVICE_MODELS`).
    trace
        A :class:`Trace` or a CSV path: its arrivals replace the Poisson ones (``requests`` is then ignored), each
        request of its own lengths (``trace_lengths``); with request classes each judged in its nearest class, and
        through a disaggregated system's two pools.
    queue_cap
        Queued requests allowed before arrivals are dropped (counted in ``simulated_dropped_fraction``).
    progress
        Called with (replications done, replications in all).
    arrival_scv
        Squared coefficient of variation of the inter-arrival times
        (:data:`rackcost.model.simulation.ARRIVAL_SCV_RANGE`; 1 is Poisson); default the demand point's
        ``arrival_scv`` where the scenario gives one, else 1. Ignored with a trace.
    admission
        True (default): arrivals at the rate the model admits, the overload shed before the queue by admission
        control at the SLO, as the model assumes. False: every offered request is served, however long it waits
        (accepted = served within the queueing budget); an overloaded fleet then has no steady state.
    rate_swing
        (amplitude [-], period [s]): every simulated point's rate swings, the same fleet serving (the analytic side
        its pointwise stationary approximation, :mod:`rackcost.model.rate_swing`); default each demand point's
        ``rate_swing``. Poisson arrivals only; ignored with a trace.
    output_lengths
        Disaggregated systems only: the output lengths' law (:class:`rackcost.model.sim_classes.LengthLaw`, of the
        workload's mean and cv) in place of gamma (:mod:`rackcost.analysis.referee_pools`).
    trace_lengths
        With a trace, how its lengths are replayed (:data:`rackcost.model.sim_trace.TRACE_LENGTHS`): ``relative``
        (default: each over the trace's mean times the workload's, the scenario's mean request kept), ``own`` (as
        recorded) or ``none`` (arrival times only); :mod:`rackcost.model.sim_trace`.

    Returns
    -------
    list of dict
        One row per system and demand point: the fleet simulated, then each analytic figure beside its simulated
        value, 95% half-width and relative error (columns listed in docs/model.md, "Simulation").

    Raises
    ------
    ValueError
        An unknown system, demand point, router or service model.
    ScenarioError
        If the scenario cannot be evaluated.
    """
    from rackcost.evaluation.chain import evaluate, evaluate_systems

    fn = "rackcost.simulate"
    check_argument(fn, "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    for name, value in (("system", system), ("demand_point", demand_point), ("routing", routing)):
        check_argument(fn, name, value, (str, type(None)), "a name or None")
    check_argument(fn, "service", service, str, f"one of {', '.join(SERVICE_MODELS)}")
    check_count(fn, "requests", requests, 20)
    check_count(fn, "seed", seed, 0)
    check_count(fn, "replications", replications, 2, 10_000)
    if queue_cap is not None:
        check_count(fn, "queue_cap", queue_cap, 0)
    check_argument(fn, "admission", admission, bool, "True or False")
    if arrival_scv is not None:
        check_argument(fn, "arrival_scv", arrival_scv, (int, float), "a number (1 is Poisson)")
        check_arrival_scv(arrival_scv)
    route = routing or getattr(scenario.fleet, "routing", None) or DEFAULT_ROUTING
    route = router_of(route).name  # a ValueError naming the registered routers for an unknown one
    if service not in SERVICE_MODELS:
        raise ValueError(f"service must be one of {', '.join(SERVICE_MODELS)}; got {service!r}")
    if trace_lengths is not None:
        check_trace_lengths(trace_lengths)
        if trace is None:
            raise ValueError("trace_lengths says how a trace's lengths are replayed: give a trace too")
    lengths = DEFAULT_TRACE_LENGTHS if trace_lengths is None else trace_lengths
    referee_pools.check_pool_options(scenario, system, trace, rate_swing, output_lengths)
    laws = referee_classes.class_laws(scenario)
    if laws is not None:
        referee_classes.check_class_options(
            arrival_scv,
            [1.0 if d.arrival_scv is None else float(d.arrival_scv) for d in scenario.demand],
            rate_swing,
        )
    if replications < 2:
        raise ValueError(f"replications must be at least 2, got {replications}")
    check_requests_fit(requests if trace is None or isinstance(trace, str | Path) else trace.arrival_s.size)
    if rate_swing is not None:
        rate_swing = referee_swing.parse_rate_swing(f"{rate_swing[0]}:{rate_swing[1]}")
    swings = () if rate_swing is None else (rate_swing[0],)
    # a system the scenario cannot serve with is left out with a warning (an error when it is the one asked for)
    scenario = served_for(scenario, "simulate", (system,))[0]
    outcomes = evaluate_systems(scenario, () if arrival_scv is None else (float(arrival_scv),), swings)
    records = evaluate(scenario).records
    points = records["points"]
    system_names = [o.inputs.name for o in outcomes]
    point_names = [d.name for d in scenario.demand]
    if system is not None and system not in system_names:
        raise ValueError(f"no system named {system!r}; the scenario has: {', '.join(system_names)}")
    if demand_point is not None and demand_point not in point_names:
        raise ValueError(f"no demand point named {demand_point!r}; the scenario has: {', '.join(point_names)}")
    if trace is not None and not isinstance(trace, Trace):
        trace = read_trace(trace)
        check_requests_fit(trace.arrival_s.size)
    cv = scenario.workload.output_tokens_cv_fraction
    cv = DEFAULT_OUTPUT_TOKENS_CV_FRACTION if cv is None else float(cv)
    osl = float(scenario.workload.output_tokens_per_request)
    chosen_points = [demand_point] if demand_point is not None else point_names
    if trace is not None and demand_point is None:
        chosen_points = [scenario.sizing_point.name]
    jobs = [(o, p) for o in outcomes if system in (None, o.inputs.name) for p in chosen_points]
    total = len(jobs) * replications
    rows = []
    pooled = partial(referee_pools.simulate_pools, scenario, route, service, requests, seed, replications, queue_cap)
    replay = None if trace is None else trace_replay(trace, lengths, scenario)
    job_label = ""
    try:  # a simulation refused before it runs (its requests and warm starts) says which
        for job, (o, point_name) in enumerate(jobs):
            job_label = f"{o.inputs.name} at {point_name}"
            j = point_names.index(point_name)
            row = next(r for r in points if r["system"] == o.inputs.name and r["demand_point"] == point_name)
            done = job * replications
            report = None if progress is None else (lambda k, done=done: progress(done + k, total))
            swing = None if trace is not None else referee_swing.row_swing(scenario, j, rate_swing)
            arrivals = point_arrivals(scenario, o, j, arrival_scv, admission, swing)
            scenario_scv = arrivals.scenario_scv
            referee_swing.check_poisson(point_name, swing, arrivals.scv)
            if arrivals.scv != scenario_scv and trace is None:  # the analytic side of the same fleet at that SCV
                row = _row_at_scv(o, row, j, arrivals.scv)
            if rate_swing is not None:  # the analytic side of the same fleet under that swing
                row = referee_swing.row_at_swing(o, row, j, rate_swing[0])
            if o.inputs.pools is not None:  # a disaggregated system: its two pools in tandem
                rows.append(pooled(output_lengths, o, row, j, report, arrivals, replay))
                continue
            if laws is not None:  # request classes: the mix's row, then each class's
                at = [c for c in records["classes"] if c["system"] == o.inputs.name and c["demand_point"] == point_name]
                rows += referee_classes.simulate_classes(
                    laws,
                    o,
                    row,
                    at,
                    route,
                    service,
                    requests,
                    seed,
                    replications,
                    queue_cap,
                    report,
                    arrivals.scv,
                    arrivals.admission,
                    replay,
                )
                continue
            rows.append(
                _simulate_one(
                    o,
                    row,
                    j,
                    route,
                    service,
                    cv,
                    osl,
                    requests,
                    seed,
                    replications,
                    replay,
                    queue_cap,
                    report,
                    scenario.slo,
                    arrivals,
                )
            )
    except SimulationTooLarge as exc:
        raise SimulationTooLarge(f"{job_label}: {exc}") from None
    return rows


ADMISSION_WORDS = {
    True: "admission control at the SLO: arrivals beyond what the fleet serves within the SLO are shed before the "
    "queue (the model's assumption)",
    False: "no admission control: every request is served however long it waits; accepted = served within the SLO",
}
"""The ``admission_control`` column of a simulated row, in words."""


def _row_at_scv(o: Any, row: dict[str, Any], j: int, scv: float) -> dict[str, Any]:
    """The model's row of point ``j`` for the same fleet under arrivals of this SCV (``served_at_scv``)."""
    d = o.fleet.served_at_scv[scv].first_sample()
    accepted = float(d.accepted_rps[j])
    ttft_ms = float(d.ttft_ms[j]) if d.ttft_ms is not None else float(o.chosen.ttft_ms)
    tpot_ms = float(d.tpot_ms[j]) if d.tpot_ms is not None else float(row["tpot_ms"])
    useful = float(row["useful_output_tokens_per_s"]) * (accepted / row["accepted_rps"] if row["accepted_rps"] else 1)
    return row | {
        "admitted_rps": float(d.admitted_rps[j]),
        "accepted_rps": accepted,
        "utilization_fraction": float(d.utilization_fraction[j]),
        "ttft_ms": ttft_ms,
        "tpot_ms": tpot_ms,
        "ttft_p99_ms": ttft_ms + float(d.wait_p99_ms[j]) if d.ttft_p99_ms is None else float(d.ttft_p99_ms[j]),
        "useful_output_tokens_per_s": useful,
        "_served": d,
    }


def _simulate_one(
    o, row, j, route, service, cv, osl, requests, seed, replications, replay, queue_cap, report, slo, arrivals
):
    d = row.get("_served", o.demand)
    replicas = int(d.active_replicas[j])
    concurrency = o.chosen.concurrency
    slots = max(int(math.floor(concurrency + 1e-9)), 1)
    # the acceptance rule of the model at this load: the SLO's TTFT (and end-to-end) limit less the TTFT (and
    # latency) the curve gives at the concurrency in service there
    budget_s = float(queueing_budget_s(row["ttft_ms"], row["tpot_ms"], osl, slo.ttft_limit_ms, slo.e2e_limit_ms))
    if service == "fixed":
        model = fixed_model(slots, float(o.point.service_s[0]), o.chosen.ttft_ms / MS_PER_S)
    else:
        model = replica_model(o.inputs.curve, slots)
    offered = float(row["offered_rps"])
    admitted = float(row["admitted_rps"])
    util_analytic = float(row["utilization_fraction"])
    work = RequestWork(cv, osl)
    trace_work = None
    stream: RenewalArrivals | TraceArrivals
    if replay is not None:
        stream = TraceArrivals(replay.arrival_s)
        if replay.lengths != "none":  # each request's own prefill and decode (rackcost.model.sim_trace)
            inputs, outputs = replay.replayed()
            ttft_ms, tpot_ms = float(row["ttft_ms"]), float(row["tpot_ms"])
            rho, trace_work = shape_requests(inputs, outputs, replay.isl, osl, ttft_ms, tpot_ms)
            work = RequestWork(cv, osl, trace_work, outputs, rho)
        arrival_rps, admitted_share = replay.arrival_rps, 1.0
    else:
        if not arrivals.admission:
            arrival_rps, admitted_share = offered, 1.0
        else:
            arrival_rps, admitted_share = admitted, (admitted / offered if offered > 0 else 1.0)
        swing = None
        if arrivals.swing is not None:  # thinned from the offered rate, admission capping each phase
            swing = referee_swing.thinned_arrivals(
                o, j, arrivals.swing, arrivals.admission, arrivals.model_routing, slo.attainment_fraction
            )
            arrival_rps = offered
        stream = RenewalArrivals(arrival_rps, requests, arrivals.scv, swing)
    s = replicate(
        replications, seed, SimFleet(replicas, model, route, queue_cap), stream, budget_s, work, progress=report
    )
    est, half = s.estimates, s.halfwidths
    # analytic p50 TTFT: the TTFT before queueing the model reports, plus the median M/M/k wait at the point's
    # effective service time (utilisation x slots / admitted rate, whatever evaluate made of the load)
    k_slots = replicas * concurrency
    ttft_base_ms = (
        float(row["ttft_ms"]) if d.ttft_ms is not None else float(row["ttft_p99_ms"]) - float(d.wait_p99_ms[j])
    )
    service_eff = util_analytic * k_slots / admitted if admitted > 0 else float(o.point.service_s[0])
    wait_p50_s = float(queueing.wait_quantile(0.5, k_slots, admitted, service_eff)) if admitted > 0 else 0.0
    analytic = {
        "accepted_fraction": float(row["accepted_rps"]) / offered if offered > 0 else 1.0,
        "ttft_p50_ms": ttft_base_ms + wait_p50_s * MS_PER_S,
        "ttft_p99_ms": float(row["ttft_p99_ms"]),
        "utilization_fraction": util_analytic,
        "accepted_rps": float(row["accepted_rps"]),
        "useful_output_tokens_per_s": float(row["useful_output_tokens_per_s"]),
    }
    simulated = {
        "accepted_fraction": (est["accepted_fraction"] * admitted_share, half["accepted_fraction"] * admitted_share),
        "ttft_p50_ms": (est["ttft_p50_s"] * MS_PER_S, half["ttft_p50_s"] * MS_PER_S),
        "ttft_p99_ms": (est["ttft_p99_s"] * MS_PER_S, half["ttft_p99_s"] * MS_PER_S),
        "utilization_fraction": (est["utilization_fraction"], half["utilization_fraction"]),
        "accepted_rps": (est["accepted_rps"], half["accepted_rps"]),
        "useful_output_tokens_per_s": (est["accepted_output_tokens_per_s"], half["accepted_output_tokens_per_s"]),
    }
    notes = []
    if tail_note_applies(util_analytic, replicas * slots):
        notes.append(TAIL_NOTE)
    if slots != concurrency:
        notes.append(f"chosen concurrency {concurrency:.6g} is not an integer: simulated with {slots} slots a replica")
    if admitted_share < 1.0:
        notes.append(f"admission control drops {1 - admitted_share:.1%} of arrivals before the queue, as the model")
    if not arrivals.admission and replay is None and admitted < offered:
        notes.append(
            f"without admission control: {offered:.4g} rps offered where the model admits {admitted:.4g}; "
            "the analytic figures assume admission control"
        )
    if replay is None and arrivals.scv != arrivals.scenario_scv:
        notes.append(
            f"arrivals simulated with SCV {arrivals.scv:g}; the analytic figures are the scenario's "
            f"(SCV {arrivals.scenario_scv:g})"
        )
    span_s = (0.9 * replay.requests / replications if replay is not None else 0.9 * requests / replications) / max(
        arrival_rps, 1e-300
    )
    if span_s < SHORT_SPAN_SERVICE_TIMES * float(model.service_s[-1]):
        notes.append(
            f"each replication measures {span_s:.3g} s, under {SHORT_SPAN_SERVICE_TIMES} mean service times "
            f"({float(model.service_s[-1]):.3g} s): raise the requests for steadier estimates"
        )
    if arrivals.swing is not None:
        notes += referee_swing.swing_notes(arrivals.swing, float(model.service_s[-1]), span_s / 0.9)
    if replay is not None:
        notes.append(f"trace of {replay.requests} requests at {replay.arrival_rps:.4g} rps; analytic at {offered:.4g}")
        notes += replay.notes(None if trace_work is None else f"a slot {float(np.mean(trace_work)):.3g} times as long")
    if s.miss_upper_bound is not None:
        notes.append(
            f"SLO misses are rare: {s.miss_units_with_miss} of {s.miss_units:,} independent units of the runs hold "
            f"one, too few for a Student t interval; the accepted share's interval contains the conservative bound "
            f"that at most {s.miss_upper_bound:.2g} of the requests simulated miss the SLO (95%, Clopper-Pearson "
            "over the units; raise the requests to narrow it)"
        )
    out: dict[str, Any] = {
        "system": o.inputs.name,
        "demand_point": row["demand_point"],
        "routing": route,
        "service_model": service,
        "requests": replay.requests if replay is not None else max(requests // replications, 2) * replications,
        "replications": replications,
        "ci_method": s.method,
        "seed": seed,
        "replicas_serving": replicas,
        "slots_per_replica": slots,
        "concurrency": concurrency,
        "output_tokens_cv_fraction": cv,
        "queueing_budget_ms": budget_s * MS_PER_S,
        "offered_rps": offered,
        "arrival_rps": arrival_rps,
        "arrival_scv": None if replay is not None else arrivals.scv,
        "rate_swing_amplitude_fraction": None if arrivals.swing is None else arrivals.swing[0],
        "rate_swing_period_s": None if arrivals.swing is None else arrivals.swing[1],
        "admission_control": replay is None and arrivals.admission,
        "start": s.start,
        "warmup_requests_per_replication": s.warmup_requests,
        "relaxation_s": _finite(s.relaxation_s),
        "miss_units": s.miss_units,
        "miss_units_with_miss": s.miss_units_with_miss,
        "simulated_miss_upper_bound_fraction": s.miss_upper_bound,
    }
    for name, value in analytic.items():
        sim_value, sim_half = simulated[name]
        out[f"analytic_{name}"] = value
        out[f"simulated_{name}"] = sim_value
        out[f"simulated_{name}_ci95_halfwidth"] = _finite(sim_half)
        out[f"{_SHORT[name]}_relative_error_fraction"] = _relative_error(sim_value, value)
    out["simulated_dropped_fraction"] = est["dropped_fraction"]
    out["simulated_wait_mean_ms"] = est["wait_mean_s"] * MS_PER_S
    if replay is not None:
        out |= replay.columns()
    out["note"] = "; ".join(notes)
    out["warnings"] = "; ".join(s.warnings)
    return out


CAPACITY_BRACKET_FRACTION = 0.05
"""The capacity check simulates at (1 -/+ this) x the analytic capacity at SLO: the analytic value is within this
share of the simulated one when the miss share crosses the SLO's target between the two rates [-]."""


def capacity_check(
    scenario: Scenario,
    system: str | None = None,
    requests: int = 200_000,
    seed: int = 0,
    routing: str | None = None,
    replications: int = 5,
    bracket_fraction: float = CAPACITY_BRACKET_FRACTION,
    arrival_scv: float | None = None,
) -> list[dict[str, Any]]:
    """Check the analytic capacity at SLO of each fleet as sized against the simulation, by bracketing.

    The capacity at SLO is the largest arrival rate whose share of requests waiting past the queueing budget is
    at most ``1 - attainment``. The serving replicas are simulated (load-dependent service, the scenario's routing)
    at ``(1 - f)`` and ``(1 + f)`` times the analytic capacity, with the chosen point's budget (where the model
    computes capacity); when the simulated miss share is within the target at the lower rate and beyond it at the
    upper, the simulated capacity lies within ``f`` of the analytic one. Two simulations per system, where a search
    over rates would need a dozen.

    Parameters
    ----------
    scenario
        A validated scenario.
    system
        Only this system (default: every one).
    requests, seed, routing, replications
        As :func:`simulate`, per simulated rate.
    bracket_fraction
        ``f`` [-].
    arrival_scv
        Squared coefficient of variation of the inter-arrival times simulated (as :func:`simulate`); default the
        sizing demand point's ``arrival_scv``, else 1. Where it is not the scenario's, the analytic capacity is the
        same fleet's at that SCV (``served_at_scv``). There is no admission option: each rate is offered to the
        queue whole, since shedding at the analytic capacity would hide the overload the upper rate tests.

    Returns
    -------
    list of dict
        One row per system: ``system``, ``routing``, ``analytic_capacity_at_slo_rps``, ``miss_target_fraction``,
        ``simulated_miss_fraction_below`` / ``_above`` (at the lower and upper rate) with their 95% half-widths,
        ``bracket_fraction``, ``capacity_within_bracket`` (bool) and ``verdict`` (in words).
    """
    from rackcost.evaluation.chain import evaluate_systems

    route = routing or getattr(scenario.fleet, "routing", None) or DEFAULT_ROUTING
    route = router_of(route).name  # a ValueError naming the registered routers for an unknown one
    if not 0.0 < bracket_fraction < 1.0:
        raise ValueError(f"bracket_fraction must lie in (0, 1), got {bracket_fraction}")
    if arrival_scv is not None:
        check_argument("rackcost.capacity_check", "arrival_scv", arrival_scv, (int, float), "a number (1 is Poisson)")
        check_arrival_scv(arrival_scv)
    check_one_shape(scenario)
    sizing_scv, scv = capacity_scvs(scenario, arrival_scv)
    scenario = served_for(scenario, "the capacity check", (system,))[0]
    outcomes = evaluate_systems(scenario, () if scv == sizing_scv else (scv,))
    names = [o.inputs.name for o in outcomes]
    if system is not None and system not in names:
        raise ValueError(f"no system named {system!r}; the scenario has: {', '.join(names)}")
    cv = scenario.workload.output_tokens_cv_fraction
    cv = DEFAULT_OUTPUT_TOKENS_CV_FRACTION if cv is None else float(cv)
    target = 1.0 - scenario.slo.attainment_fraction
    rows = []
    pooled = partial(referee_pools.capacity_row, verdict=_capacity_verdict)
    for o in outcomes:
        if system not in (None, o.inputs.name):
            continue
        if o.inputs.pools is not None:  # a disaggregated system: its limiting pool bracketed against its share
            rows.append(pooled(o, scenario, route, requests, seed, replications, bracket_fraction, scv, sizing_scv))
            continue
        slots = max(int(math.floor(o.chosen.concurrency + 1e-9)), 1)
        model = replica_model(o.inputs.curve, slots)
        served = o.demand if scv == sizing_scv else o.fleet.served_at_scv[scv].first_sample()
        sizing = [d.name for d in scenario.demand].index(scenario.sizing_point.name)
        capacity = float(np.ravel(served.capacity_at_slo_rps)[sizing])
        misses = []
        for factor in (1.0 - bracket_fraction, 1.0 + bracket_fraction):
            s = replicate(
                replications,
                seed,
                SimFleet(o.serving_replicas, model, route),
                RenewalArrivals(factor * capacity, requests, scv),
                o.chosen.budget_s,
                RequestWork(cv, float(scenario.workload.output_tokens_per_request)),
            )
            misses.append((1.0 - s.estimates["accepted_fraction"], _finite(s.halfwidths["accepted_fraction"])))
        (below, below_half), (above, above_half) = misses
        rows.append(
            {
                "system": o.inputs.name,
                "routing": route,
                "arrival_scv": scv,
                "replicas_serving": o.serving_replicas,
                "slots_per_replica": slots,
                "analytic_capacity_at_slo_rps": capacity,
                "miss_target_fraction": target,
                "bracket_fraction": bracket_fraction,
                "simulated_miss_fraction_below": below,
                "simulated_miss_fraction_below_ci95_halfwidth": below_half,
                "simulated_miss_fraction_above": above,
                "simulated_miss_fraction_above_ci95_halfwidth": above_half,
                "capacity_within_bracket": bool(below <= target < above),
                "verdict": _capacity_verdict(below, above, target),
            }
        )
    return rows


def _capacity_verdict(below: float, above: float, target: float) -> str:
    """What the two simulated miss shares say about the analytic capacity, in words."""
    if below > target:
        return "analytic capacity optimistic: the simulation misses the SLO below it"
    if above <= target:
        return (
            "analytic capacity conservative by more than the bracket, or the run too short for the queue to build "
            "above capacity (raise --requests)"
        )
    return "simulated capacity within the bracket of the analytic one"
