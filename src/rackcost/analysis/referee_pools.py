"""``rackcost.simulate`` for a disaggregated system (``systems[i].pools``; docs/model.md, Simulation): the two pools as
sized serve the requests as a tandem (:mod:`rackcost.model.sim.sim_tandem`), and the system's simulated figures are set
beside the analytic ones of the points and pools tables.

One row per system and demand point, with the aggregated rows' columns where they mean the same thing
(``analytic_X``, ``simulated_X``, ``simulated_X_ci95_halfwidth``, ``*_relative_error_fraction`` for
``accepted_fraction``, ``ttft_p99_ms``, ``tpot_p99_ms``, and ``simulated_ttft_p50_ms``), plus each pool's: its
serving replicas and slots, its slot utilisation and the share of its requests meeting its part of the SLO
(:data:`POOL_FIGURES`), and the KV transfer. The analytic side is the model's: the prefill pool's queueing budget at
the point (the TTFT limit less the prefill pool's TTFT there, which holds the transfer), no wait budget in the
decode pool, and ``accepted = admitted x (1 - miss_p) x (1 - miss_d)``
(:func:`rackcost.model.fleets.disaggregation.joint_accepted_rps`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rackcost.analysis.referee_arrivals import RefereeRow, RefereeRun
from rackcost.analysis.referee_classes import figure_pair, tpot_table_s
from rackcost.model.fleets.disaggregation import split_miss_target
from rackcost.model.replica.operating_point import queueing_budget_s
from rackcost.model.sim.sim_arrivals import RenewalArrivals, TraceArrivals
from rackcost.model.sim.sim_classes import LengthLaw, draw_lengths
from rackcost.model.sim.sim_engines import ReplicaModel, SimFleet, draw_work, fixed_model, replica_model
from rackcost.model.sim.sim_summary import Summary, summarise, with_rare_bound
from rackcost.model.sim.sim_tandem import TandemWork, run_tandem_once, tandem_miss_units, tandem_statistics
from rackcost.model.sim.sim_trace import TraceReplay
from rackcost.model.sim.sim_work import Stage, check_simulation_work, simulation_work
from rackcost.model.sim.simulation import DEFAULT_OUTPUT_TOKENS_CV_FRACTION, queue_relaxation_s, warmup_requests
from rackcost.model.workload.classes import cdf_moments
from rackcost.scenario.schema import Scenario
from rackcost.units import MS_PER_S

__all__ = [
    "POOL_FIGURES",
    "POOL_SHORT",
    "check_pool_options",
    "capacity_row",
    "law_cv",
    "simulate_pools",
    "workload_cv",
]

POOL_FIGURES = (
    ("prefill_utilization_fraction", "prefill pool slot utilisation"),
    ("decode_utilization_fraction", "decode pool slot utilisation"),
    ("prefill_met_fraction", "prefill pool: share within its budget"),
    ("decode_met_fraction", "decode pool: share finding a free slot"),
)
"""A disaggregated row's figures beyond the aggregated ones: key stem and label."""
POOL_SHORT = {
    "prefill_utilization_fraction": "prefill_utilization",
    "decode_utilization_fraction": "decode_utilization",
    "prefill_met_fraction": "prefill_met",
    "decode_met_fraction": "decode_met",
}
"""Stem of each pool figure's relative-error column."""
_SHORT = POOL_SHORT | {"accepted_fraction": "accepted", "ttft_p99_ms": "ttft_p99", "tpot_p99_ms": "tpot_p99"}
PREFILL_CV_FRACTION = 1.0
"""Coefficient of variation of a prefill's work: exponential, what the analytic prefill pool assumes [-]."""
RELATIVE_MEAN_TOLERANCE = 1e-6
"""How close an ``output_lengths`` law's mean must be to the workload's output tokens [-]."""


def _pooled(scenario: Scenario, system: str | None) -> list[tuple[int, str]]:
    return [(i, s.name) for i, s in enumerate(scenario.systems) if s.pools is not None and system in (None, s.name)]


def law_cv(law: LengthLaw) -> float:
    """The coefficient of variation of a length law [-] (a CDF table's as
    :func:`rackcost.model.workload.classes.cdf_moments`).

    >>> law_cv(LengthLaw("fixed", 100.0)), law_cv(LengthLaw("gamma", 100.0, 0.5))
    (0.0, 0.5)
    """
    if law.kind == "fixed":
        return 0.0
    if law.kind == "cdf":
        assert law.table_tokens is not None and law.table_cumulative_fraction is not None
        mean, var = cdf_moments(law.table_tokens, law.table_cumulative_fraction)
        return math.sqrt(var) / mean
    return float(law.cv_fraction)


def workload_cv(scenario: Scenario) -> float:
    """The workload's output-length cv: ``output_tokens_cv_fraction``, 1 (exponential) when not given [-]."""
    cv = scenario.workload.output_tokens_cv_fraction
    return DEFAULT_OUTPUT_TOKENS_CV_FRACTION if cv is None else float(cv)


def check_pool_options(
    scenario: Scenario,
    system: str | None,
    trace: object,
    rate_swing: object,
    output_lengths: LengthLaw | None = None,
) -> None:
    """Refuse what the tandem simulation does not referee: a rate swing for a disaggregated system, and an
    ``output_lengths`` law without one, whose mean is not the workload's, or beside a trace (whose lengths are its
    own).

    Raises
    ------
    ValueError
        Naming ``systems[i].pools`` (or ``demand[j].rate_swing``) and what to do instead.
    """
    pooled = _pooled(scenario, system)
    where = ", ".join(f"systems[{i}].pools ({name!r})" for i, name in pooled)
    if output_lengths is not None:
        if not pooled:
            raise ValueError("output_lengths applies to disaggregated systems (systems[i].pools) only")
        osl = float(scenario.workload.output_tokens_per_request)
        if abs(output_lengths.mean_tokens / osl - 1.0) > RELATIVE_MEAN_TOLERANCE:
            raise ValueError(
                f"output_lengths: its mean ({output_lengths.mean_tokens:g} tokens) must be "
                f"workload.output_tokens_per_request ({osl:g})"
            )
        cv = workload_cv(scenario)
        if abs(law_cv(output_lengths) - cv) > RELATIVE_MEAN_TOLERANCE * max(cv, 1.0):
            raise ValueError(
                f"output_lengths: its cv ({law_cv(output_lengths):.6g}) must be workload.output_tokens_cv_fraction "
                f"({cv:g}, 1 when not given): the analytic side reads the workload's"
            )
    if output_lengths is not None and trace is not None:
        raise ValueError("output_lengths: a trace brings its own output lengths (trace_lengths); give one or the other")
    if not pooled:
        return
    swung = [j for j, d in enumerate(scenario.demand) if getattr(d, "rate_swing", None) is not None]
    if rate_swing is not None or swung:
        at = "--rate-swing" if rate_swing is not None else f"demand[{swung[0]}].rate_swing"
        raise ValueError(f"{where}: {at}: a rate swing is not simulated through disaggregated pools")


def capacity_row(
    o: Any,
    scenario: Scenario,
    route: str,
    requests: int,
    seed: int,
    replications: int,
    bracket_fraction: float,
    scv: float,
    sizing_scv: float,
    verdict: Any,
) -> dict[str, Any]:
    """The capacity check of a disaggregated system (:func:`rackcost.analysis.referee.capacity_check`'s row).

    Its capacity at SLO is the smaller of its pools', each the largest rate at which that pool's share of
    requests missing its part of the SLO is at most its share of the misses. Both pools as sized are simulated in
    tandem at ``(1 -/+ f)`` times that capacity (each rate offered whole), and the pool that sets it (the
    ``limiting_pool``) is bracketed against its own share: within it at the lower rate and beyond it at the upper
    says the simulated capacity lies within ``f`` of the analytic one. The other pool's simulated misses are in
    the row too (beyond its share at the upper rate only when the pools' capacities are within ``f``).
    """
    pools, chosen, fleet = o.inputs.pools, o.chosen, o.fleet
    sizing = [d.name for d in scenario.demand].index(scenario.sizing_point.name)
    capacity, serving = {}, {}
    for role in ("prefill", "decode"):
        pool = fleet.pool(role)
        served = pool.demand if scv == sizing_scv else pool.served_at_scv[scv]
        capacity[role] = float(np.ravel(served.first_sample().capacity_at_slo_rps)[sizing])
        serving[role] = int(np.ravel(pool.serving_replicas)[0])
    limiting = min(capacity, key=lambda role: capacity[role])
    targets = dict(
        zip(
            ("prefill", "decode"),
            split_miss_target(1.0 - scenario.slo.attainment_fraction, pools.decode_miss_share),
            strict=True,
        )
    )
    p_slots, d_slots = _slots(chosen.prefill.concurrency), _slots(chosen.decode.concurrency)
    stages = _Stages(
        serving["prefill"],
        replica_model(chosen.prefill_inputs.curve, p_slots),
        serving["decode"],
        replica_model(pools.decode.curve, d_slots),
        route,
        pools.transfer_ms / MS_PER_S,
        tpot_table_s(pools.decode.curve, d_slots, None),
        float(scenario.workload.output_tokens_per_request),
        workload_cv(scenario),
    )
    misses: dict[str, list[tuple[float, float | None]]] = {"prefill": [], "decode": []}
    for factor in (1.0 - bracket_fraction, 1.0 + bracket_fraction):
        sim, _ = _replicate(
            stages, factor * capacity[limiting], scv, chosen.budget_s, requests, seed, replications, None, None, None
        )
        for role in misses:
            half = sim.halfwidths[f"{role}_met_fraction"]
            misses[role].append((1.0 - sim.estimates[f"{role}_met_fraction"], half if math.isfinite(half) else None))
    (below, below_half), (above, above_half) = misses[limiting]
    target = targets[limiting]
    other = "decode" if limiting == "prefill" else "prefill"
    return {
        "system": o.inputs.name,
        "routing": route,
        "arrival_scv": scv,
        "replicas_serving": serving["prefill"] + serving["decode"],
        "slots_per_replica": d_slots,
        "layout": "disaggregated",
        "prefill_replicas_serving": serving["prefill"],
        "prefill_slots_per_replica": p_slots,
        "decode_replicas_serving": serving["decode"],
        "decode_slots_per_replica": d_slots,
        "limiting_pool": limiting,
        "analytic_capacity_at_slo_rps": capacity[limiting],
        "analytic_prefill_capacity_at_slo_rps": capacity["prefill"],
        "analytic_decode_capacity_at_slo_rps": capacity["decode"],
        "miss_target_fraction": target,
        "bracket_fraction": bracket_fraction,
        "simulated_miss_fraction_below": below,
        "simulated_miss_fraction_below_ci95_halfwidth": below_half,
        "simulated_miss_fraction_above": above,
        "simulated_miss_fraction_above_ci95_halfwidth": above_half,
        f"{other}_miss_target_fraction": targets[other],
        f"simulated_{other}_miss_fraction_below": misses[other][0][0],
        f"simulated_{other}_miss_fraction_above": misses[other][1][0],
        "capacity_within_bracket": bool(below <= target < above),
        "verdict": f"{limiting} pool: {verdict(below, above, target)}",
    }


def _pair(key: str, analytic: float | None, value: float, half: float) -> dict[str, Any]:
    return figure_pair(key, analytic, value, half, _SHORT)


def _slots(concurrency: float) -> int:
    return max(int(math.floor(concurrency + 1e-9)), 1)


@dataclass(frozen=True)
class _Stages:
    """The two pools as simulated: each one's serving replicas and model, the router, the transfer, the decode
    batch's TPOT by occupancy, the mean output and its cv."""

    p_replicas: int
    p_model: ReplicaModel
    d_replicas: int
    d_model: ReplicaModel
    route: str
    transfer_s: float
    tpot_s: np.ndarray
    osl: float
    cv: float

    def fleets(self, queue_cap: int | None) -> tuple[SimFleet, SimFleet]:
        """The prefill and the decode pool as the simulator runs them."""
        prefill = SimFleet(self.p_replicas, self.p_model, self.route, queue_cap)
        return prefill, SimFleet(self.d_replicas, self.d_model, self.route, queue_cap)


@dataclass(frozen=True)
class _Tally:
    """How the replications ran: each stage's start, warm-up and relaxation time."""

    starts: tuple[str, str]
    lo_prefill: int
    lo_decode: int
    relax_prefill: float
    relax_decode: float


def _replicate(
    st: _Stages,
    arrival_rps: float,
    scv: float,
    budget_s: float,
    requests: int,
    seed: int,
    replications: int,
    queue_cap: int | None,
    output_lengths: LengthLaw | None,
    report: Any,
    replay: TraceReplay | None = None,
) -> tuple[Summary, _Tally]:
    """Independent replications of the tandem (:func:`rackcost.model.sim.sim_tandem.run_tandem_once`), each stage's
    warm-up by :func:`rackcost.model.sim.simulation.warmup_requests` from its own start and relaxation time; refused
    first when both pools' warm starts and the requests are beyond
    :func:`rackcost.model.sim.sim_work.check_simulation_work`'s bounds (the decode pool's start at the arrival rate
    too: what enters the prefill pool leaves it for decode). With a trace (``replay``), one run over its arrivals and
    batch means (:func:`_replay`)."""
    if replay is not None:
        return _replay(st, budget_s, seed, replications, queue_cap, report, replay)
    relax_p = queue_relaxation_s(st.p_model, st.p_replicas, st.route, arrival_rps, scv, PREFILL_CV_FRACTION)
    relax_d = queue_relaxation_s(st.d_model, st.d_replicas, st.route, arrival_rps, scv, st.cv)
    per_rep = max(requests // replications, 2)
    stages = (
        Stage(st.p_replicas, st.p_model, arrival_rps, "prefill"),
        Stage(st.d_replicas, st.d_model, arrival_rps, "decode"),
    )
    check_simulation_work(simulation_work(stages, st.route, per_rep, replications, queue_cap))
    engine = "auto" if np.all(st.tpot_s == st.tpot_s[1]) else "event"
    values, starts, lo_p, lo_d = [], ("occupancy", "occupancy"), 0, 0
    units, with_miss, crowding = 0, 0, 1.0
    for done, child in enumerate(np.random.SeedSequence(seed).spawn(replications), start=1):
        run_seed, length_seed = child.spawn(2)
        length_rng = np.random.default_rng(length_seed)
        if output_lengths is None:
            work = draw_work(length_rng, per_rep, st.cv)
        else:
            work = draw_lengths(length_rng, output_lengths, per_rep) / output_lengths.mean_tokens
        run = run_tandem_once(
            np.random.default_rng(run_seed),
            *st.fleets(queue_cap),
            RenewalArrivals(arrival_rps, per_rep, scv),
            st.transfer_s,
            TandemWork(work, np.maximum(work * st.osl, 1.0), st.cv, PREFILL_CV_FRACTION),
            engine,
        )
        starts = (run.prefill.start, run.decode.start)
        lo_p = warmup_requests(per_rep, run.prefill.start, relax_p, arrival_rps, st.route)
        lo_d = warmup_requests(run.decode.arrival_s.size, run.decode.start, relax_d, arrival_rps, st.route)
        values.append(tandem_statistics(run, budget_s, lo_p, lo_d, st.tpot_s))
        u, m, crowd = tandem_miss_units(run, budget_s, lo_p, lo_d, max(relax_p, relax_d))
        units, with_miss, crowding = units + u, with_miss + m, max(crowding, crowd)
        if report is not None:
            report(done)
    summary = with_rare_bound(summarise(values, "independent replications"), units, with_miss, crowding)
    return summary, _Tally(starts, lo_p, lo_d, relax_p, relax_d)


def _replay(
    st: _Stages, budget_s: float, seed: int, batches: int, queue_cap: int | None, report: Any, replay: TraceReplay
) -> tuple[Summary, _Tally]:
    """The tandem over a trace's arrivals, one run, its batches the intervals' (as
    :func:`rackcost.model.sim.simulation.replicate` does for one fleet): each request's prefill work and TTFT its input
    over the workload's mean (the prefill curve measured at the workload's input), its decode work its output over
    the workload's mean (:mod:`rackcost.model.sim.sim_trace`), or, under ``none``, both drawn as without a trace."""
    n, rate = replay.requests, replay.arrival_rps
    relax_p = queue_relaxation_s(st.p_model, st.p_replicas, st.route, rate, 1.0, PREFILL_CV_FRACTION)
    relax_d = queue_relaxation_s(st.d_model, st.d_replicas, st.route, rate, 1.0, st.cv)
    stages = (Stage(st.p_replicas, st.p_model, rate, "prefill"), Stage(st.d_replicas, st.d_model, rate, "decode"))
    check_simulation_work(simulation_work(stages, st.route, n, 1, queue_cap))
    run_seed, length_seed = np.random.SeedSequence(seed).spawn(2)
    if replay.lengths == "none":
        prefill_work = None
        work = draw_work(np.random.default_rng(length_seed), n, st.cv)
        tokens = np.maximum(work * st.osl, 1.0)
    else:
        inputs, tokens = replay.replayed()
        prefill_work, work = inputs / replay.isl, tokens / st.osl
    run = run_tandem_once(
        np.random.default_rng(run_seed),
        *st.fleets(queue_cap),
        TraceArrivals(replay.arrival_s),
        st.transfer_s,
        TandemWork(work, tokens, st.cv, PREFILL_CV_FRACTION, prefill_work),
        "auto" if np.all(st.tpot_s == st.tpot_s[1]) else "event",
    )
    lo_p = warmup_requests(n, run.prefill.start, relax_p, rate, st.route)
    lo_d = warmup_requests(run.decode.arrival_s.size, run.decode.start, relax_d, rate, st.route)
    # the batches start past both warm-ups: after the last arrival whose decode falls in the decode pool's
    early = np.flatnonzero((run.decode_position >= 0) & (run.decode_position < lo_d))
    lo_p = max(lo_p, int(early.max()) + 1 if early.size else 0)
    if n - lo_p < 2 * batches:
        raise ValueError(
            f"too few requests to measure: a trace of {n:,} arrivals leaves {n - lo_p:,} after the two pools' "
            f"warm-ups, fewer than 2 for each of {batches} batches (a longer trace, or fewer --replications)"
        )
    edges = np.linspace(lo_p, n, batches + 1).astype(int)
    values = [tandem_statistics(run, budget_s, a, lo_d, st.tpot_s, b) for a, b in zip(edges, edges[1:], strict=False)]
    if report is not None:
        report(batches)
    units, with_miss, crowding = tandem_miss_units(run, budget_s, lo_p, lo_d, max(relax_p, relax_d))
    summary = with_rare_bound(summarise(values, "batch means"), units, with_miss, crowding)
    return summary, _Tally((run.prefill.start, run.decode.start), lo_p, lo_d, relax_p, relax_d)


def simulate_pools(
    scenario: Scenario, run: RefereeRun, job: RefereeRow, output_lengths: LengthLaw | None
) -> dict[str, Any]:
    """One disaggregated system at demand point ``job.j``: its row.

    Parameters
    ----------
    scenario
        The scenario (its SLO and workload).
    run
        The options every row shares (:class:`rackcost.analysis.referee_arrivals.RefereeRun`).
    job
        The system's outcome, its points-table row at the point (at the simulated SCV), the row's arrivals (``scv``,
        ``scenario_scv``, ``admission``), and a trace in place of generated arrivals: every request offered to the
        prefill pool, batch means over one run (:func:`_replay`).
    output_lengths
        The output lengths' law (:class:`rackcost.model.sim.sim_classes.LengthLaw`, mean the workload's), or None:
        gamma at ``workload.output_tokens_cv_fraction`` (exponential without one).
    """
    pools = _sized_pools(scenario, run, job)
    st, replay = pools.stages, job.replay
    s, t = _replicate(
        st,
        pools.arrival_rps,
        job.arrivals.scv,
        pools.budget_s,
        run.requests,
        run.seed,
        run.replications,
        run.queue_cap,
        output_lengths,
        job.report,
        replay,
    )
    out = _pool_columns(run, job, pools, s, t, output_lengths) | _pool_figures(job, pools, s)
    notes = _pool_notes(job, pools, s)
    if replay is not None:
        out |= replay.columns()
    warnings = []
    for role, relax, model, n in (
        ("prefill", t.relax_prefill, st.p_model, st.p_replicas),
        ("decode", t.relax_decode, st.d_model, st.d_replicas),
    ):
        if not math.isfinite(relax):
            full = n * model.slots / float(model.service_s[model.slots])
            warnings.append(
                f"arrivals at {pools.arrival_rps:.4g} rps reach what the {role} pool completes with every slot busy "
                f"({full:.4g} rps): the queue has no steady state and the figures depend on the run length"
            )
    out["note"] = "; ".join(notes)
    out["warnings"] = "; ".join(warnings)
    return out


@dataclass(frozen=True)
class _SizedPools:
    """The two pools of a row as simulated (:class:`_Stages`), each one's served outcome at the point, their slots,
    the prefill pool's queueing budget, the offered rate, the rate simulated and the share admitted."""

    stages: _Stages
    prefill: Any
    decode: Any
    p_slots: int
    d_slots: int
    budget_s: float
    offered: float
    arrival_rps: float
    share: float


def _sized_pools(scenario: Scenario, run: RefereeRun, job: RefereeRow) -> _SizedPools:
    """Each pool as sized at the point (at the simulated SCV: the same pools' outcome there), served as its curve
    says at each occupancy (``load_dependent``) or at its chosen point's figures (``fixed``), and the model's
    acceptance rule at that load."""
    o, row, j, arrivals = job.o, job.row, job.j, job.arrivals
    pools, chosen, fleet = o.inputs.pools, o.chosen, o.fleet
    slo, osl = scenario.slo, float(scenario.workload.output_tokens_per_request)
    by_role = {}
    for role in ("prefill", "decode"):
        pool = fleet.pool(role)
        served = pool.demand if arrivals.scv == arrivals.scenario_scv else pool.served_at_scv[arrivals.scv]
        by_role[role] = served.first_sample()
    pf, df = by_role["prefill"], by_role["decode"]
    p_slots, d_slots = _slots(chosen.prefill.concurrency), _slots(chosen.decode.concurrency)
    p_replicas, d_replicas = int(pf.active_replicas[j]), int(df.active_replicas[j])
    if run.service == "fixed":
        p_model = fixed_model(
            p_slots, float(chosen.prefill.point.service_s[0]), float(chosen.prefill.point.ttft_ms[0]) / MS_PER_S
        )
        d_model = fixed_model(d_slots, float(chosen.decode.point.service_s[0]), 0.0)
        tpot_s = tpot_table_s(None, d_slots, float(chosen.decode.point.tpot_ms[0]))
    else:
        p_model = replica_model(chosen.prefill_inputs.curve, p_slots)
        d_model = replica_model(pools.decode.curve, d_slots)
        tpot_s = tpot_table_s(pools.decode.curve, d_slots, None)
    budget_s = float(queueing_budget_s(row["ttft_ms"], row["tpot_ms"], osl, slo.ttft_limit_ms, slo.e2e_limit_ms))
    offered, admitted = float(row["offered_rps"]), float(row["admitted_rps"])
    arrival_rps, share = (admitted, admitted / offered if offered > 0 else 1.0) if arrivals.admission else (offered, 1)
    if job.replay is not None:
        arrival_rps, share = job.replay.arrival_rps, 1.0
    cv, transfer_s = workload_cv(scenario), pools.transfer_ms / MS_PER_S
    stages = _Stages(p_replicas, p_model, d_replicas, d_model, run.route, transfer_s, tpot_s, osl, cv)
    return _SizedPools(stages, pf, df, p_slots, d_slots, budget_s, offered, arrival_rps, share)


def _pool_columns(
    run: RefereeRun, job: RefereeRow, pools: _SizedPools, s: Summary, t: _Tally, output_lengths: LengthLaw | None
) -> dict[str, Any]:
    """The row's description of the run: the system, the pools as simulated, the arrivals, the warm-ups."""
    st, replay, chosen = pools.stages, job.replay, job.o.chosen
    if replay is not None and replay.lengths != "none":
        lengths = "trace"
    else:
        lengths = "gamma" if output_lengths is None else output_lengths.kind
    return {
        "system": job.o.inputs.name,
        "demand_point": job.row["demand_point"],
        "layout": "disaggregated",
        "routing": run.route,
        "service_model": run.service,
        "requests": max(run.requests // run.replications, 2) * run.replications if replay is None else replay.requests,
        "replications": run.replications,
        "ci_method": s.method,
        "seed": run.seed,
        "replicas_serving": st.p_replicas + st.d_replicas,
        "slots_per_replica": pools.d_slots,
        "concurrency": chosen.decode.concurrency,
        "prefill_replicas_serving": st.p_replicas,
        "prefill_slots_per_replica": pools.p_slots,
        "decode_replicas_serving": st.d_replicas,
        "decode_slots_per_replica": pools.d_slots,
        "transfer_ms": job.o.inputs.pools.transfer_ms,
        "output_tokens_cv_fraction": st.cv,
        "output_lengths": lengths,
        "queueing_budget_ms": pools.budget_s * MS_PER_S,
        "offered_rps": pools.offered,
        "arrival_rps": pools.arrival_rps,
        "arrival_scv": job.arrivals.scv if replay is None else None,
        "admission_control": job.arrivals.admission and replay is None,
        "start": f"prefill {t.starts[0]}, decode {t.starts[1]}",
        "warmup_requests_per_replication": t.lo_prefill,
        "decode_warmup_requests_per_replication": t.lo_decode,
        "relaxation_s": t.relax_prefill if math.isfinite(t.relax_prefill) else None,
        "decode_relaxation_s": t.relax_decode if math.isfinite(t.relax_decode) else None,
        "miss_units": s.miss_units,
        "miss_units_with_miss": s.miss_units_with_miss,
        "simulated_miss_upper_bound_fraction": s.miss_upper_bound,
    }


def _pool_figures(job: RefereeRow, pools: _SizedPools, s: Summary) -> dict[str, Any]:
    """Each figure of the row, the model's beside the simulation's (with its half-width and relative error)."""
    est, half, row, j = s.estimates, s.halfwidths, job.row, job.j
    pf, df, offered = pools.prefill, pools.decode, pools.offered

    def fig(name: str, scale: float = 1.0) -> tuple[float, float]:
        return est[name] * scale, half[name] * scale

    out = _pair(
        "accepted_fraction",
        float(row["accepted_rps"]) / offered if offered > 0 else 1.0,
        *fig("accepted_fraction", pools.share),
    )
    out |= _pair("ttft_p99_ms", _num(row.get("ttft_p99_ms")), *fig("ttft_p99_s", MS_PER_S))
    out |= _pair("tpot_p99_ms", _num(row.get("tpot_p99_ms")), *fig("tpot_p99_s", MS_PER_S))
    out |= _pair(
        "prefill_utilization_fraction", float(pf.utilization_fraction[j]), *fig("prefill_utilization_fraction")
    )
    out |= _pair("decode_utilization_fraction", float(df.utilization_fraction[j]), *fig("decode_utilization_fraction"))
    for role, d in (("prefill", pf), ("decode", df)):
        a = float(d.admitted_rps[j])
        out |= _pair(
            f"{role}_met_fraction", float(d.accepted_rps[j]) / a if a > 0 else 1.0, *fig(f"{role}_met_fraction")
        )
    p50, p50_half = fig("ttft_p50_s", MS_PER_S)
    out["simulated_ttft_p50_ms"], out["simulated_ttft_p50_ms_ci95_halfwidth"] = p50, p50_half
    out["simulated_dropped_fraction"] = est["dropped_fraction"]
    return out


def _pool_notes(job: RefereeRow, pools: _SizedPools, s: Summary) -> list[str]:
    """What the row's reader should know, in words: the pools, slots rounded down, admission control's drops, rare
    misses, another SCV than the scenario's, a trace."""
    st, replay, arrivals, chosen = pools.stages, job.replay, job.arrivals, job.o.chosen
    p_replicas, d_replicas, p_slots, d_slots = st.p_replicas, st.d_replicas, pools.p_slots, pools.d_slots
    notes = [
        f"disaggregated: {p_replicas} prefill replica{'' if p_replicas == 1 else 's'} x {p_slots} slots, a "
        f"{job.o.inputs.pools.transfer_ms:.3g} ms KV transfer, {d_replicas} decode replica"
        f"{'' if d_replicas == 1 else 's'} x {d_slots} slots, each pool under {st.route} routing"
    ]
    for role, c, k in (
        ("prefill", chosen.prefill.concurrency, p_slots),
        ("decode", chosen.decode.concurrency, d_slots),
    ):
        if k != c:
            notes.append(
                f"{role} pool's chosen concurrency {c:.6g} is not an integer: simulated with {k} slots a replica"
            )
    if pools.share < 1.0:
        notes.append(f"admission control drops {1 - pools.share:.1%} of arrivals before the queue, as the model")
    if s.miss_upper_bound is not None:
        notes.append(
            f"SLO misses are rare: {s.miss_units_with_miss} of {s.miss_units:,} independent units of the runs hold "
            f"one; the accepted share's interval contains the bound that at most {s.miss_upper_bound:.2g} of the "
            "requests simulated miss either pool's part (95%, Clopper-Pearson over the units)"
        )
    if arrivals.scv != arrivals.scenario_scv and replay is None:
        notes.append(
            f"arrivals simulated with SCV {arrivals.scv:g}; the analytic figures are the same pools' at that SCV"
        )
    if replay is not None:
        notes.append(
            f"trace of {replay.requests} requests at {replay.arrival_rps:.4g} rps; analytic at {pools.offered:.4g}"
        )
        held = None
        if replay.lengths != "none":
            inputs, tokens = replay.replayed()
            held = (
                f"a prefill slot {float(np.mean(inputs)) / replay.isl:.3g} and a decode slot "
                f"{float(np.mean(tokens)) / st.osl:.3g} times as long"
            )
        notes += replay.notes(held)
    return notes


def _num(x: Any) -> float | None:
    return None if x is None else float(x)
