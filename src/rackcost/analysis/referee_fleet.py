"""``rackcost.simulate`` for one aggregated fleet at one demand point (docs/model.md, Simulation): the fleet as sized,
simulated (:func:`rackcost.model.sim.simulation.replicate`) and set beside the points table's figures.

:func:`simulate_fleet` composes the steps, each with one job:

- :func:`simulated_fleet`: the fleet as sized at the point (its serving replicas, each with as many slots as the
  chosen concurrency allows), its replica model and the model's acceptance rule at that load (the queueing budget);
- :func:`fleet_stream`: what arrives (at the admitted or the offered rate, swinging, or a trace) and the work each
  request brings;
- :func:`analytic_figures` and :func:`simulated_figures`: each figure of the row, the model's and the simulation's;
- :func:`fleet_notes`: what the reader should know about the run, in words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rackcost.analysis import referee_swing
from rackcost.analysis.referee_arrivals import RefereeRow, RefereeRun
from rackcost.model.queues import queueing
from rackcost.model.replica.operating_point import queueing_budget_s
from rackcost.model.sim.sim_engines import ReplicaModel
from rackcost.model.sim.sim_summary import Summary
from rackcost.model.sim.sim_trace import shape_requests
from rackcost.model.sim.simulation import (
    RenewalArrivals,
    RequestWork,
    SimFleet,
    TraceArrivals,
    fixed_model,
    replica_model,
    replicate,
)
from rackcost.units import MS_PER_S

__all__ = [
    "FIGURE_STEMS",
    "TAIL_NOTE",
    "FleetStream",
    "SimulatedFleet",
    "analytic_figures",
    "fleet_notes",
    "fleet_stream",
    "simulate_fleet",
    "simulated_figures",
    "simulated_fleet",
    "tail_note_applies",
]

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
FIGURE_STEMS = {
    "accepted_fraction": "accepted",
    "ttft_p50_ms": "ttft_p50",
    "ttft_p99_ms": "ttft_p99",
    "utilization_fraction": "utilization",
    "accepted_rps": "throughput",
    "useful_output_tokens_per_s": "output_tokens",
}
"""An aggregated row's figures and the stem of each one's relative-error column."""


def tail_note_applies(utilization_fraction: float, total_slots: int) -> bool:
    """Whether a row carries :data:`TAIL_NOTE`: utilisation above 98% with thousands of slots.

    Examples
    --------
    >>> tail_note_applies(0.99, 4096), tail_note_applies(0.99, 64)
    (True, False)
    """
    return utilization_fraction > HOT_UTILIZATION_FRACTION and total_slots >= MANY_SLOTS


def _relative_error(simulated: float, analytic: float) -> float | None:
    """(simulated - analytic) / analytic; 0 when both are 0, None when only the analytic one is [-]."""
    if analytic == 0:
        return 0.0 if simulated == 0 else None
    return (simulated - analytic) / analytic


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


@dataclass(frozen=True)
class SimulatedFleet:
    """The fleet as sized at one point, as simulated.

    Attributes
    ----------
    replicas, slots, concurrency
        Serving replicas at the point [-], slots a replica (the chosen concurrency's integer part, at least 1) and
        the chosen concurrency [requests].
    model
        The replica's :class:`rackcost.model.sim.sim_engines.ReplicaModel`.
    budget_s
        The model's acceptance rule at that load: the SLO's TTFT (and end-to-end) limit less the TTFT (and latency)
        the curve gives at the concurrency in service there [s].
    offered_rps, admitted_rps
        The point's offered and admitted rates [requests/s].
    """

    replicas: int
    slots: int
    concurrency: float
    model: ReplicaModel
    budget_s: float
    offered_rps: float
    admitted_rps: float


def simulated_fleet(job: RefereeRow, service: str, osl: float, slo: Any) -> SimulatedFleet:
    """The fleet of a row: the serving replicas at its point, each with the chosen concurrency's slots, served as the
    curve says at each occupancy (``load_dependent``) or at the chosen point's figures (``fixed``)."""
    o, row = job.o, job.row
    d = row.get("_served", o.demand)
    concurrency = o.chosen.concurrency
    slots = max(int(math.floor(concurrency + 1e-9)), 1)
    budget_s = float(queueing_budget_s(row["ttft_ms"], row["tpot_ms"], osl, slo.ttft_limit_ms, slo.e2e_limit_ms))
    if service == "fixed":
        model = fixed_model(slots, float(o.point.service_s[0]), o.chosen.ttft_ms / MS_PER_S)
    else:
        model = replica_model(o.inputs.curve, slots)
    offered, admitted = float(row["offered_rps"]), float(row["admitted_rps"])
    return SimulatedFleet(int(d.active_replicas[job.j]), slots, concurrency, model, budget_s, offered, admitted)


@dataclass(frozen=True, eq=False)
class FleetStream:
    """What a row's simulation is fed: its arrivals, each request's work, the rate simulated, the share of the
    offered arrivals admission control lets through, and a trace's work per request where replayed (else None)."""

    arrivals: RenewalArrivals | TraceArrivals
    work: RequestWork
    arrival_rps: float
    admitted_share: float
    trace_work: np.ndarray | None = None


def fleet_stream(job: RefereeRow, fleet: SimulatedFleet, requests: int, cv: float, osl: float, slo: Any) -> FleetStream:
    """The arrivals of a row: a trace replayed with each request's own lengths (:mod:`rackcost.model.sim.sim_trace`), or
    renewal arrivals at the admitted rate (admission control sheds the rest before the queue), at the offered rate
    without admission control, or thinned from the offered rate under a swing, admission capping each phase."""
    replay, arrivals = job.replay, job.arrivals
    offered, admitted = fleet.offered_rps, fleet.admitted_rps
    if replay is not None:
        trace = TraceArrivals(replay.arrival_s)
        if replay.lengths == "none":
            return FleetStream(trace, RequestWork(cv, osl), replay.arrival_rps, 1.0)
        inputs, outputs = replay.replayed()  # each request's own prefill and decode
        ttft_ms, tpot_ms = float(job.row["ttft_ms"]), float(job.row["tpot_ms"])
        rho, trace_work = shape_requests(inputs, outputs, replay.isl, osl, ttft_ms, tpot_ms)
        return FleetStream(trace, RequestWork(cv, osl, trace_work, outputs, rho), replay.arrival_rps, 1.0, trace_work)
    if not arrivals.admission:
        arrival_rps, admitted_share = offered, 1.0
    else:
        arrival_rps, admitted_share = admitted, (admitted / offered if offered > 0 else 1.0)
    swing = None
    if arrivals.swing is not None:  # thinned from the offered rate, admission capping each phase
        swing = referee_swing.thinned_arrivals(
            job.o, job.j, arrivals.swing, arrivals.admission, arrivals.model_routing, slo.attainment_fraction
        )
        arrival_rps = offered
    stream = RenewalArrivals(arrival_rps, requests, arrivals.scv, swing)
    return FleetStream(stream, RequestWork(cv, osl), arrival_rps, admitted_share)


def analytic_figures(job: RefereeRow, fleet: SimulatedFleet) -> dict[str, float]:
    """The model's figures of a row. Its p50 TTFT: the TTFT before queueing the model reports, plus the median M/M/k
    wait at the point's effective service time (utilisation x slots / admitted rate, whatever evaluate made of the
    load)."""
    o, row, j = job.o, job.row, job.j
    d = row.get("_served", o.demand)
    admitted, offered = fleet.admitted_rps, fleet.offered_rps
    util_analytic = float(row["utilization_fraction"])
    k_slots = fleet.replicas * fleet.concurrency
    ttft_base_ms = (
        float(row["ttft_ms"]) if d.ttft_ms is not None else float(row["ttft_p99_ms"]) - float(d.wait_p99_ms[j])
    )
    service_eff = util_analytic * k_slots / admitted if admitted > 0 else float(o.point.service_s[0])
    wait_p50_s = float(queueing.wait_quantile(0.5, k_slots, admitted, service_eff)) if admitted > 0 else 0.0
    return {
        "accepted_fraction": float(row["accepted_rps"]) / offered if offered > 0 else 1.0,
        "ttft_p50_ms": ttft_base_ms + wait_p50_s * MS_PER_S,
        "ttft_p99_ms": float(row["ttft_p99_ms"]),
        "utilization_fraction": util_analytic,
        "accepted_rps": float(row["accepted_rps"]),
        "useful_output_tokens_per_s": float(row["useful_output_tokens_per_s"]),
    }


def simulated_figures(s: Summary, admitted_share: float) -> dict[str, tuple[float, float]]:
    """The simulation's figures of a row, each with its 95% half-width; the accepted share of the offered arrivals
    (those admission control sheds count as not accepted)."""
    est, half = s.estimates, s.halfwidths
    return {
        "accepted_fraction": (est["accepted_fraction"] * admitted_share, half["accepted_fraction"] * admitted_share),
        "ttft_p50_ms": (est["ttft_p50_s"] * MS_PER_S, half["ttft_p50_s"] * MS_PER_S),
        "ttft_p99_ms": (est["ttft_p99_s"] * MS_PER_S, half["ttft_p99_s"] * MS_PER_S),
        "utilization_fraction": (est["utilization_fraction"], half["utilization_fraction"]),
        "accepted_rps": (est["accepted_rps"], half["accepted_rps"]),
        "useful_output_tokens_per_s": (est["accepted_output_tokens_per_s"], half["accepted_output_tokens_per_s"]),
    }


def fleet_notes(run: RefereeRun, job: RefereeRow, fleet: SimulatedFleet, stream: FleetStream, s: Summary) -> list[str]:
    """What a row's reader should know, in words: a loosely bounded tail, slots rounded down, admission control's
    drops, a run without it, another SCV than the analytic side's, a short replication, a swing, a trace, rare
    misses."""
    arrivals, replay, model = job.arrivals, job.replay, fleet.model
    offered, admitted, share = fleet.offered_rps, fleet.admitted_rps, stream.admitted_share
    notes = []
    if tail_note_applies(float(job.row["utilization_fraction"]), fleet.replicas * fleet.slots):
        notes.append(TAIL_NOTE)
    if fleet.slots != fleet.concurrency:
        notes.append(
            f"chosen concurrency {fleet.concurrency:.6g} is not an integer: simulated with {fleet.slots} slots a "
            "replica"
        )
    if share < 1.0:
        notes.append(f"admission control drops {1 - share:.1%} of arrivals before the queue, as the model")
    if not arrivals.admission and replay is None and admitted < offered:
        notes.append(
            f"without admission control: {offered:.4g} rps offered where the model admits {admitted:.4g}; "
            "the analytic figures assume admission control"
        )
    if replay is None and arrivals.scv != arrivals.scenario_scv:
        notes.append(  # (the analytic row is the same fleet's at that SCV: referee._row_at_scv)
            f"arrivals simulated with SCV {arrivals.scv:g}, not the scenario's {arrivals.scenario_scv:g}; the analytic "
            f"figures are the same fleet's at SCV {arrivals.scv:g}"
        )
    requests = replay.requests if replay is not None else run.requests
    span_s = 0.9 * requests / run.replications / max(stream.arrival_rps, 1e-300)
    if span_s < SHORT_SPAN_SERVICE_TIMES * float(model.service_s[-1]):
        notes.append(
            f"each replication measures {span_s:.3g} s, under {SHORT_SPAN_SERVICE_TIMES} mean service times "
            f"({float(model.service_s[-1]):.3g} s): raise the requests for steadier estimates"
        )
    if arrivals.swing is not None:
        notes += referee_swing.swing_notes(arrivals.swing, float(model.service_s[-1]), span_s / 0.9)
    if replay is not None:
        notes.append(f"trace of {replay.requests} requests at {replay.arrival_rps:.4g} rps; analytic at {offered:.4g}")
        trace_work = stream.trace_work
        notes += replay.notes(None if trace_work is None else f"a slot {float(np.mean(trace_work)):.3g} times as long")
    if s.miss_upper_bound is not None:
        notes.append(
            f"SLO misses are rare: {s.miss_units_with_miss} of {s.miss_units:,} independent units of the runs hold "
            f"one, too few for a Student t interval; the accepted share's interval contains the conservative bound "
            f"that at most {s.miss_upper_bound:.2g} of the requests simulated miss the SLO (95%, Clopper-Pearson "
            "over the units; raise the requests to narrow it)"
        )
    return notes


def simulate_fleet(run: RefereeRun, job: RefereeRow, cv: float, osl: float, slo: Any) -> dict[str, Any]:
    """One aggregated system at one demand point: its row (the fleet simulated, then each analytic figure beside its
    simulated value, 95% half-width and relative error; docs/model.md, "Simulation").

    Parameters
    ----------
    run, job
        The options every row shares, and this row's system, point and arrivals.
    cv, osl
        The workload's output length's coefficient of variation [-] and mean [tokens].
    slo
        The scenario's SLO.
    """
    fleet = simulated_fleet(job, run.service, osl, slo)
    stream = fleet_stream(job, fleet, run.requests, cv, osl, slo)
    sim_fleet = SimFleet(fleet.replicas, fleet.model, run.route, run.queue_cap)
    s = replicate(
        run.replications, run.seed, sim_fleet, stream.arrivals, fleet.budget_s, stream.work, progress=job.report
    )
    replay, arrivals = job.replay, job.arrivals
    per_rep = max(run.requests // run.replications, 2)
    out: dict[str, Any] = {
        "system": job.o.inputs.name,
        "demand_point": job.row["demand_point"],
        "routing": run.route,
        "service_model": run.service,
        "requests": replay.requests if replay is not None else per_rep * run.replications,
        "replications": run.replications,
        "ci_method": s.method,
        "seed": run.seed,
        "replicas_serving": fleet.replicas,
        "slots_per_replica": fleet.slots,
        "concurrency": fleet.concurrency,
        "output_tokens_cv_fraction": cv,
        "queueing_budget_ms": fleet.budget_s * MS_PER_S,
        "offered_rps": fleet.offered_rps,
        "arrival_rps": stream.arrival_rps,
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
    simulated = simulated_figures(s, stream.admitted_share)
    for name, value in analytic_figures(job, fleet).items():
        sim_value, sim_half = simulated[name]
        out[f"analytic_{name}"] = value
        out[f"simulated_{name}"] = sim_value
        out[f"simulated_{name}_ci95_halfwidth"] = _finite(sim_half)
        out[f"{FIGURE_STEMS[name]}_relative_error_fraction"] = _relative_error(sim_value, value)
    out["simulated_dropped_fraction"] = s.estimates["dropped_fraction"]
    out["simulated_wait_mean_ms"] = s.estimates["wait_mean_s"] * MS_PER_S
    if replay is not None:
        out |= replay.columns()
    out["note"] = "; ".join(fleet_notes(run, job, fleet, stream, s))
    out["warnings"] = "; ".join(s.warnings)
    return out
