"""The fleet simulator as referee: ``rackcost.simulate`` runs :mod:`rackcost.model.sim.simulation` on the fleets
rackcost sized and sets the simulated figures beside the analytic ones users see in :func:`rackcost.evaluate`.

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
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from rackcost import limits
from rackcost.analysis import referee_classes, referee_pools, referee_swing
from rackcost.analysis.referee_arrivals import RefereeRow, RefereeRun, capacity_scvs, point_arrivals, trace_replay
from rackcost.analysis.referee_fleet import FIGURE_STEMS, TAIL_NOTE, simulate_fleet, tail_note_applies
from rackcost.analysis.trace_files import Trace, read_trace
from rackcost.errors import check_argument, check_count, problems_in_its_file
from rackcost.evaluation.servable import served_for
from rackcost.model.queues.routers import router_of
from rackcost.model.sim.sim_classes import LengthLaw
from rackcost.model.sim.sim_trace import DEFAULT_TRACE_LENGTHS, check_trace_lengths
from rackcost.model.sim.sim_work import BYTES_PER_SIMULATED_REQUEST, MEMORY_SHARE, SimulationTooLarge
from rackcost.model.sim.simulation import (
    DEFAULT_OUTPUT_TOKENS_CV_FRACTION,
    RenewalArrivals,
    RequestWork,
    SimFleet,
    check_arrival_scv,
    replica_model,
    replicate,
)
from rackcost.model.strategies import DEFAULT_ROUTING
from rackcost.scenario.schema import Scenario

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
_SHORT = {**FIGURE_STEMS, "tpot_p99_ms": "tpot_p99", **referee_pools.POOL_SHORT}
"""Stem of each figure's relative-error column."""


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


@problems_in_its_file
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

    Why this long: its parameters are the library's keyword options, one for each option of ``rackcost simulate``
    (as a Typer command's are its options); :func:`_checked_options` checks them, the one evaluation and the rows
    (:func:`_rows`) are steps of their own.

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
        Router (a name registered in :mod:`rackcost.model.queues.routers`); default the scenario's ``fleet.routing``,
        else ``least_outstanding``.
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
        (:data:`rackcost.model.sim.simulation.ARRIVAL_SCV_RANGE`; 1 is Poisson); default the demand point's
        ``arrival_scv`` where the scenario gives one, else 1. Ignored with a trace.
    admission
        True (default): arrivals at the rate the model admits, the overload shed before the queue by admission
        control at the SLO, as the model assumes. False: every offered request is served, however long it waits
        (accepted = served within the queueing budget); an overloaded fleet then has no steady state.
    rate_swing
        (amplitude [-], period [s]): every simulated point's rate swings, the same fleet serving (the analytic side
        its pointwise stationary approximation, :mod:`rackcost.model.queues.rate_swing`); default each demand point's
        ``rate_swing``. Poisson arrivals only; ignored with a trace.
    output_lengths
        Disaggregated systems only: the output lengths' law (:class:`rackcost.model.sim.sim_classes.LengthLaw`, of the
        workload's mean and cv) in place of gamma (:mod:`rackcost.analysis.referee_pools`).
    trace_lengths
        With a trace, how its lengths are replayed (:data:`rackcost.model.sim.sim_trace.TRACE_LENGTHS`): ``relative``
        (default: each over the trace's mean times the workload's, the scenario's mean request kept), ``own`` (as
        recorded) or ``none`` (arrival times only); :mod:`rackcost.model.sim.sim_trace`.

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
    options = _SimulateOptions(
        system,
        demand_point,
        requests,
        seed,
        routing,
        replications,
        service,
        trace,
        queue_cap,
        arrival_scv,
        admission,
        rate_swing,
        output_lengths,
        trace_lengths,
    )
    options = _checked_options(scenario, options)
    ev, outcomes, records = _evaluated(scenario, options)
    own = ev.chosen.policy.routing
    system_names = [o.inputs.name for o in outcomes]
    point_names = [d.name for d in ev.scenario.demand]
    if system is not None and system not in system_names:
        raise ValueError(f"no system named {system!r}; the scenario has: {', '.join(system_names)}")
    if demand_point is not None and demand_point not in point_names:
        raise ValueError(f"no demand point named {demand_point!r}; the scenario has: {', '.join(point_names)}")
    if options.trace is not None and not isinstance(options.trace, Trace):
        trace = read_trace(options.trace)
        check_requests_fit(trace.arrival_s.size)
        options = replace(options, trace=trace)
    rows = _rows(ev.scenario, outcomes, records, options, progress)
    if options.routing != own and not router_of(str(options.routing)).analytic:
        said = (
            f"{options.routing} has no analytic form: the analytic figures, and the admission control, are the "
            f"scenario's router's ({own})"
        )
        for row in rows:
            row["note"] = "; ".join(n for n in (row.get("note") or "", said) if n)
    return rows


@dataclass(frozen=True)
class _SimulateOptions:
    """:func:`simulate`'s options, as given; :func:`_checked_options` checks them, resolves the router and parses the
    rate swing."""

    system: str | None
    demand_point: str | None
    requests: int
    seed: int
    routing: str | None
    replications: int
    service: str
    trace: Trace | str | Path | None
    queue_cap: int | None
    arrival_scv: float | None
    admission: bool
    rate_swing: tuple[float, float] | None
    output_lengths: LengthLaw | None
    trace_lengths: str | None


def _checked_options(scenario: Scenario, options: _SimulateOptions) -> _SimulateOptions:
    """The options checked against their types, ranges and each other (ValueError or TypeError naming the
    argument), with the router's name resolved (the scenario's ``fleet.routing`` by default), the trace's lengths
    defaulted and the rate swing parsed."""
    fn, o = "rackcost.simulate", options
    check_argument(fn, "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    for name, value in (("system", o.system), ("demand_point", o.demand_point), ("routing", o.routing)):
        check_argument(fn, name, value, (str, type(None)), "a name or None")
    check_argument(fn, "service", o.service, str, f"one of {', '.join(SERVICE_MODELS)}")
    check_count(fn, "requests", o.requests, 20)
    check_count(fn, "seed", o.seed, 0)
    check_count(fn, "replications", o.replications, 2, 10_000)
    if o.queue_cap is not None:
        check_count(fn, "queue_cap", o.queue_cap, 0)
    check_argument(fn, "admission", o.admission, bool, "True or False")
    if o.arrival_scv is not None:
        check_argument(fn, "arrival_scv", o.arrival_scv, (int, float), "a number (1 is Poisson)")
        check_arrival_scv(o.arrival_scv)
    route = o.routing or getattr(scenario.fleet, "routing", None) or DEFAULT_ROUTING
    route = router_of(route).name  # a ValueError naming the registered routers for an unknown one
    if o.service not in SERVICE_MODELS:
        raise ValueError(f"service must be one of {', '.join(SERVICE_MODELS)}; got {o.service!r}")
    if o.trace_lengths is not None:
        check_trace_lengths(o.trace_lengths)
        if o.trace is None:
            raise ValueError("trace_lengths says how a trace's lengths are replayed: give a trace too")
    lengths = DEFAULT_TRACE_LENGTHS if o.trace_lengths is None else o.trace_lengths
    referee_pools.check_pool_options(scenario, o.system, o.trace, o.rate_swing, o.output_lengths)
    if referee_classes.class_laws(scenario) is not None:
        referee_classes.check_class_options(
            o.arrival_scv,
            [1.0 if d.arrival_scv is None else float(d.arrival_scv) for d in scenario.demand],
            o.rate_swing,
        )
    if o.replications < 2:
        raise ValueError(f"replications must be at least 2, got {o.replications}")
    check_requests_fit(o.requests if o.trace is None or isinstance(o.trace, str | Path) else o.trace.arrival_s.size)
    swing = o.rate_swing
    if swing is not None:
        swing = referee_swing.parse_rate_swing(f"{swing[0]}:{swing[1]}")
    return replace(o, routing=route, trace_lengths=lengths, rate_swing=swing)


def _evaluated(scenario: Scenario, options: _SimulateOptions) -> tuple[Any, list[Any], dict[str, Any]]:
    """The one evaluation of the systems the scenario can serve with (:func:`rackcost.evaluation.chain.evaluation`;
    a system left out is warned about, an error when it is the one asked for), its outcomes and its records: the
    analytic side of the fleets simulated. They are served again at the simulated SCV and swing where the options ask
    for them, and by the simulated router where it is not the scenario's and the model has an analytic form of it
    (:meth:`~rackcost.evaluation.chain.Evaluation.served_by`: the same fleets; the scenario's router's figures
    stood beside a simulation of another, and ``--routing random`` read as the model overstating acceptance by 70%)."""
    from rackcost.evaluation.chain import Unpacked, evaluate_systems, evaluation

    served, unserved, inputs = served_for(scenario, "simulate", (options.system,))
    ev = evaluation(Unpacked(scenario, served, unserved, inputs))
    scvs = () if options.arrival_scv is None else (float(options.arrival_scv),)
    swings = () if options.rate_swing is None else (options.rate_swing[0],)
    assert options.routing is not None  # _checked_options resolved it
    if options.routing != ev.chosen.policy.routing and router_of(options.routing).analytic:
        outcomes, result = ev.served_by(options.routing, scvs, swings)
        return ev, outcomes, result.records
    if not scvs and not swings:
        return ev, list(ev.outcomes), ev.result.records
    return ev, evaluate_systems(served, scvs, swings, inputs), ev.result.records


def _rows(
    scenario: Scenario,
    outcomes: list[Any],
    records: dict[str, Any],
    options: _SimulateOptions,
    progress: Callable[[int, int], None] | None,
) -> list[dict[str, Any]]:
    """Every simulated row: each system (or the one asked) at each demand point (the one asked; with a trace, the
    sizing point), its arrivals drawn (:func:`rackcost.analysis.referee_arrivals.point_arrivals`) and its analytic
    row moved to the simulated SCV or swing, simulated as a disaggregated system's two pools, a class mix, or one
    fleet."""
    o_ = options
    assert o_.routing is not None and o_.trace_lengths is not None  # _checked_options resolved them
    run = RefereeRun(o_.routing, o_.service, o_.requests, o_.seed, o_.replications, o_.queue_cap)
    point_names = [d.name for d in scenario.demand]
    chosen_points = [o_.demand_point] if o_.demand_point is not None else point_names
    if o_.trace is not None and o_.demand_point is None:
        chosen_points = [scenario.sizing_point.name]
    jobs = [(o, p) for o in outcomes if o_.system in (None, o.inputs.name) for p in chosen_points]
    total = len(jobs) * o_.replications
    assert o_.trace is None or isinstance(o_.trace, Trace)  # simulate read it
    replay = None if o_.trace is None else trace_replay(o_.trace, o_.trace_lengths, scenario)
    laws = referee_classes.class_laws(scenario)
    cv = scenario.workload.output_tokens_cv_fraction
    cv = DEFAULT_OUTPUT_TOKENS_CV_FRACTION if cv is None else float(cv)
    osl = float(scenario.workload.output_tokens_per_request)
    rows, job_label = [], ""
    try:  # a simulation refused before it runs (its requests and warm starts) says which
        for k, (o, point_name) in enumerate(jobs):
            job_label = f"{o.inputs.name} at {point_name}"
            j = point_names.index(point_name)
            row = next(r for r in records["points"] if r["system"] == o.inputs.name and r["demand_point"] == point_name)
            done = k * o_.replications
            report = None if progress is None else (lambda n, done=done: progress(done + n, total))
            swing = None if replay is not None else referee_swing.row_swing(scenario, j, o_.rate_swing)
            arrivals = point_arrivals(scenario, o, j, o_.arrival_scv, o_.admission, swing)
            referee_swing.check_poisson(point_name, swing, arrivals.scv)
            if arrivals.scv != arrivals.scenario_scv and replay is None:  # the same fleet's analytic side at that SCV
                row = _row_at_scv(o, row, j, arrivals.scv)
            if o_.rate_swing is not None:  # the analytic side of the same fleet under that swing
                row = referee_swing.row_at_swing(o, row, j, o_.rate_swing[0])
            job = RefereeRow(o, row, j, arrivals, replay, report)
            if o.inputs.pools is not None:  # a disaggregated system: its two pools in tandem
                rows.append(referee_pools.simulate_pools(scenario, run, job, o_.output_lengths))
            elif laws is not None:  # request classes: the mix's row, then each class's
                at = [c for c in records["classes"] if c["system"] == o.inputs.name and c["demand_point"] == point_name]
                rows += referee_classes.simulate_classes(laws, run, job, at)
            else:
                rows.append(simulate_fleet(run, job, cv, osl, scenario.slo))
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
