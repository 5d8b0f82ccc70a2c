"""``rackcost.simulate`` for a scenario with request classes (docs/model.md, Simulation): the fleet as sized serves the
mix request by request (:mod:`rackcost.model.sim.sim_classes`), and each class's simulated figures are set beside its
analytic ones from ``Result.classes``.

Rows: for each system and demand point, one row for the mix (``class`` None: JSON ``null``, an empty CSV cell,
"the mix" in the table; a class of any name, "all" included, stays unambiguous) and then one per class in the
scenario's order (``class`` its name). Each carries ``analytic_<figure>``, ``simulated_<figure>``, its 95%
half-width and the relative error for ``accepted_fraction`` (of the class's offered requests), ``ttft_p99_ms`` and
``tpot_p99_ms``; the mix's row also ``ttft_p50_ms`` (simulated only, no analytic), and ``utilization_fraction``.
The mix's analytic p99 TTFT is the points table's, of the mix's *mean* request (``rho = 1``), while the simulated
one is over every request of the mix: they are not the same figure, and the row says so. A class row also gives
``simulated_accepted_own_length_fraction``: the share accepted when each request is judged at its own length
rather than its class's mean (what the analytic model does not do); the mix's row the same over every request. The
mix's row has every column (the CSV header is its keys); a class row leaves the mix's figures out (blank in CSV).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from rackcost.analysis.referee_arrivals import RefereeRow, RefereeRun
from rackcost.model.replica.memory import KvMemory
from rackcost.model.replica.performance import interpolate_curve
from rackcost.model.sim.sim_classes import (
    ClassLaws,
    ClassRequests,
    LengthLaw,
    class_requests,
    class_statistics,
    draw_class_requests,
)
from rackcost.model.sim.sim_engines import KvLimit
from rackcost.model.sim.sim_summary import Summary, summarise
from rackcost.model.sim.sim_trace import nearest_class
from rackcost.model.sim.sim_work import Stage, check_simulation_work, simulation_work
from rackcost.model.sim.simulation import (
    RenewalArrivals,
    RequestWork,
    RunControls,
    SimFleet,
    TraceArrivals,
    fixed_model,
    queue_relaxation_s,
    replica_model,
    run_fleet_once,
    run_statistics,
    warmup_requests,
)
from rackcost.model.workload.classes import ClassMix, class_budgets_s, mix_service_scv
from rackcost.scenario.class_blocks import Lengths
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import class_mix
from rackcost.units import MS_PER_S

__all__ = [
    "CLASS_FIGURES",
    "MIX_FIGURES",
    "check_class_options",
    "class_laws",
    "kv_limit",
    "simulate_classes",
]

CLASS_FIGURES = ("accepted_fraction", "ttft_p99_ms", "tpot_p99_ms")
"""The figures of a class row, analytic beside simulated."""
MIX_FIGURES = ("accepted_fraction", "ttft_p99_ms", "tpot_p99_ms", "utilization_fraction")
"""The figures of the mix's row, analytic beside simulated."""
_SHORT = {
    "accepted_fraction": "accepted",
    "ttft_p99_ms": "ttft_p99",
    "tpot_p99_ms": "tpot_p99",
    "utilization_fraction": "utilization",
}


def _law(count: float | Lengths) -> LengthLaw:
    """A token count's per-request law: a plain number is a fixed length at it."""
    if not isinstance(count, Lengths):
        return LengthLaw("fixed", float(count))
    mean, _ = count.moments()
    if count.lengths == "cdf":
        assert count.table is not None  # the schema's _kind_fields
        t = np.array([row[0] for row in count.table], dtype=float)
        f = np.array([row[1] for row in count.table], dtype=float)
        return LengthLaw("cdf", mean, table_tokens=t, table_cumulative_fraction=f)
    return LengthLaw(count.lengths, mean, 0.0 if count.cv is None else float(count.cv))


def class_laws(scenario: Scenario) -> ClassLaws | None:
    """The workload's classes with their per-request length laws, or None without ``workload.classes``."""
    mix = class_mix(scenario)
    classes = scenario.workload.classes
    if mix is None or classes is None:
        return None
    return ClassLaws(mix, tuple(_law(c.input_tokens) for c in classes), tuple(_law(c.output_tokens) for c in classes))


def check_class_options(arrival_scv: float | None, scenario_scv: list[float], rate_swing: object = None) -> None:
    """Refuse what the class simulation does not referee: arrivals of another SCV than the scenario's (the analytic
    class table is the scenario's arrivals') and a rate swing (not modelled with classes). A trace is replayed, each
    request judged in its nearest class (:mod:`rackcost.model.sim.sim_trace`)."""
    if rate_swing is not None:
        raise ValueError(
            "workload.classes: a rate swing with request classes is not modelled (nor simulated): leave out "
            "--rate-swing"
        )
    if arrival_scv is not None and any(float(arrival_scv) != s for s in scenario_scv):
        raise ValueError(
            "workload.classes: --arrival-scv other than the demand point's is not simulated with classes (the "
            "analytic class figures are at the scenario's arrivals); set demand[i].arrival_scv instead"
        )


def kv_limit(memory: KvMemory, context_tokens: np.ndarray) -> KvLimit:
    """Each request's KV bytes at its own context (input + output), for KV-limited admission.

    ``copies x context x kv_bytes_per_token`` plus the sliding-window part of the mean request's bytes, held at
    every length (its window is full for a request as long as the mean; conservative for a shorter one).

    Examples
    --------
    >>> m = KvMemory(8 * 80 * 2**30, 141.2e9, 0.1, 2048.0, 327680.0, 2048 * 327680.0, 1)
    >>> kv_limit(m, np.array([1024.0, 4096.0])).bytes_per_request.tolist() == [1024 * 327680.0, 4096 * 327680.0]
    True
    """
    full = memory.copies * memory.kv_bytes_per_token
    window = memory.kv_bytes_per_request - full * memory.context_tokens
    return KvLimit(memory.free_bytes, full * context_tokens + window, memory.kv_bytes_per_request)


def tpot_table_s(curve: Any, slots: int, fixed_tpot_ms: float | None = None) -> np.ndarray:
    """TPOT at each occupancy ``0 .. slots`` (entry 0 repeats entry 1), clipped to the curve's measured range, or
    ``fixed_tpot_ms`` at every occupancy [s] (the class and the pool simulators both read it)."""
    if fixed_tpot_ms is not None:
        return np.full(slots + 1, fixed_tpot_ms / MS_PER_S)
    n = np.clip(np.arange(1, slots + 1, dtype=float), curve.concurrency[0], curve.concurrency[-1])
    tpot = interpolate_curve(curve, n).tpot_ms / MS_PER_S
    return np.concatenate([tpot[:1], tpot])


def _tpot_table_s(o: Any, slots: int, service: str) -> np.ndarray:
    """:func:`tpot_table_s` of a system's curve, or of its chosen point's TPOT for a fixed service."""
    return tpot_table_s(o.inputs.curve, slots, float(o.point.tpot_ms[0]) if service == "fixed" else None)


def figure_pair(key: str, analytic: float | None, value: float, half: float, short: dict[str, str]) -> dict[str, Any]:
    """The analytic value, the simulated one, its half-width and the relative error of one figure (its column's
    stem ``short[key]``)."""
    rel = None
    if analytic is not None and math.isfinite(value):
        rel = (0.0 if value == 0 else None) if analytic == 0 else (value - analytic) / analytic
    return {
        f"analytic_{key}": analytic,
        f"simulated_{key}": value if math.isfinite(value) else None,
        f"simulated_{key}_ci95_halfwidth": half if math.isfinite(half) else None,
        f"{short[key]}_relative_error_fraction": rel,
    }


def _pair(key: str, analytic: float | None, value: float, half: float) -> dict[str, Any]:
    return figure_pair(key, analytic, value, half, _SHORT)


def simulate_classes(
    laws: ClassLaws, run: RefereeRun, job: RefereeRow, class_rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One system at one demand point with request classes: the mix's row, then each class's.

    Parameters
    ----------
    laws
        The classes and their length laws (:func:`class_laws`).
    run
        The options every row shares (:class:`rackcost.analysis.referee_arrivals.RefereeRun`).
    job
        The system's outcome, its points-table row at the point, the point's arrivals (their SCV; admission control
        at the SLO, arrivals at the admitted rate, or not, at the offered rate), and a trace in place of generated
        arrivals (every request offered to the queue, batch means over its one run: each request of its own lengths
        judged in its nearest class, or, under ``none``, drawn by share, :mod:`rackcost.model.sim.sim_trace`).
    class_rows
        Its ``Result.classes`` rows at the point, in the classes' order.
    """
    st = _class_setup(laws, run, job)
    runs = _class_runs(laws, run, job, st)
    common, notes, warnings = _class_common(run, job, st, runs)
    out = [_mix_row(laws.mix, job.row, st, runs, common, notes, warnings)]
    for k, name in enumerate(laws.mix.names):
        c = class_rows[k]
        assert c["class"] == name  # Result.classes is in the classes' order
        out.append(_class_row(laws.mix, k, c, st, runs, common, notes, warnings))
    return out


@dataclass(frozen=True)
class _ClassSetup:
    """The fleet of a class row as simulated: its replicas, slots and model, the decode batch's TPOT by occupancy,
    each class's budget, the mix's service cv, the rate simulated and the share admitted, the arrivals' SCV, the KV
    memory (None: slots only), the engine, the queue's relaxation time and the requests a replication draws."""

    replicas: int
    slots: int
    concurrency: float
    model: Any
    tpot_s: np.ndarray
    budgets_s: np.ndarray
    cv: float
    ttft_ms: float
    tpot_ms: float
    offered: float
    arrival_rps: float
    share: float
    arrival_scv: float
    memory: KvMemory | None
    engine: str
    relax: float
    per_rep: int


def _class_setup(laws: ClassLaws, run: RefereeRun, job: RefereeRow) -> _ClassSetup:
    """The fleet as sized at the point (:class:`_ClassSetup`), refused first when its requests and warm starts are
    beyond :func:`rackcost.model.sim.sim_work.check_simulation_work`'s bounds."""
    o, row, replay = job.o, job.row, job.replay
    replicas = int(row["active_replicas"])
    concurrency = o.chosen.concurrency
    slots = max(int(math.floor(concurrency + 1e-9)), 1)
    if run.service == "fixed":
        model = fixed_model(slots, float(o.point.service_s[0]), float(o.point.ttft_ms[0]) / MS_PER_S)
    else:
        model = replica_model(o.inputs.curve, slots)
    tpot_s = _tpot_table_s(o, slots, run.service)
    ttft_ms, tpot_ms = float(row["ttft_ms"]), float(row["tpot_ms"])
    budgets_s = np.asarray(class_budgets_s(laws.mix, ttft_ms, tpot_ms), dtype=float)
    cv = math.sqrt(max(float(mix_service_scv(laws.mix, ttft_ms, tpot_ms)), 0.0))
    offered, admitted = float(row["offered_rps"]), float(row["admitted_rps"])
    admission, arrival_scv = job.arrivals.admission, job.arrivals.scv
    arrival_rps, share = (admitted, admitted / offered if offered > 0 else 1.0) if admission else (offered, 1.0)
    memory = getattr(o.inputs, "kv_memory", None)
    engine = "auto" if np.all(tpot_s == tpot_s[1]) and memory is None else "event"
    if replay is not None:
        arrival_rps, share, arrival_scv = replay.arrival_rps, 1.0, 1.0
    relax = queue_relaxation_s(model, replicas, run.route, arrival_rps, arrival_scv, cv)
    per_rep = max(run.requests // run.replications, 2) if replay is None else replay.requests
    stages = [Stage(replicas, model, arrival_rps)]
    runs = 1 if replay else run.replications
    check_simulation_work(simulation_work(stages, run.route, per_rep, runs, run.queue_cap))
    return _ClassSetup(
        replicas, slots, concurrency, model, tpot_s, budgets_s, cv, ttft_ms, tpot_ms, offered, arrival_rps, share,
        arrival_scv, memory, engine, relax, per_rep,
    )  # fmt: skip


@dataclass(frozen=True, eq=False)
class _ClassRuns:
    """The simulated runs of a class row, summarised: how the last run started, its warm-up, the requests it drew
    and, for a trace's own lengths, each request's nearest class (else None)."""

    summary: Summary
    start: str
    lo: int
    drawn: ClassRequests
    trace_klass: np.ndarray | None


def _class_runs(laws: ClassLaws, run: RefereeRun, job: RefereeRow, st: _ClassSetup) -> _ClassRuns:
    """Independent replications of the mix, or one run over the trace whose batches are the intervals' (as
    :mod:`rackcost.model.sim.simulation`'s)."""
    replay, report, mix = job.replay, job.report, laws.mix
    values = []
    fleet = (st.memory, st.replicas, st.model, run.route, st.arrival_rps, st.cv, run.queue_cap, st.engine)
    if replay is not None:
        fleet_seed, class_seed = np.random.SeedSequence(run.seed).spawn(2)
        trace_klass = None
        if replay.lengths == "none":
            drawn = draw_class_requests(np.random.default_rng(class_seed), laws, st.per_rep, st.ttft_ms, st.tpot_ms)
        else:
            inputs, outputs = replay.replayed()
            trace_klass = nearest_class(mix, inputs, outputs)
            drawn = class_requests(mix, trace_klass, inputs, outputs, st.ttft_ms, st.tpot_ms)
        path = _class_run(fleet_seed, drawn, *fleet, 1.0, replay.arrival_s)
        lo = warmup_requests(st.per_rep, path.start, st.relax, st.arrival_rps, run.route)
        edges = np.linspace(lo, st.per_rep, run.replications + 1).astype(int)
        for a, b in zip(edges, edges[1:], strict=False):
            values.append(_class_values(path, drawn, mix, st.tpot_s, st.budgets_s, a, b))
        if report is not None:
            report(run.replications)
        return _ClassRuns(summarise(values, "batch means"), path.start, lo, drawn, trace_klass)
    start, lo = "occupancy", 0
    for done, child in enumerate(np.random.SeedSequence(run.seed).spawn(run.replications), start=1):
        fleet_seed, class_seed = child.spawn(2)
        drawn = draw_class_requests(np.random.default_rng(class_seed), laws, st.per_rep, st.ttft_ms, st.tpot_ms)
        path = _class_run(fleet_seed, drawn, *fleet, st.arrival_scv)
        start = path.start
        lo = warmup_requests(st.per_rep, path.start, st.relax, st.arrival_rps, run.route)
        values.append(_class_values(path, drawn, mix, st.tpot_s, st.budgets_s, lo, None))
        if report is not None:
            report(done)
    return _ClassRuns(summarise(values, "independent replications"), start, lo, drawn, None)


def _class_common(
    run: RefereeRun, job: RefereeRow, st: _ClassSetup, runs: _ClassRuns
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The columns every row of the point shares, its notes and its warnings."""
    replay, o = job.replay, job.o
    common: dict[str, Any] = {
        "system": o.inputs.name,
        "demand_point": job.row["demand_point"],
        "routing": run.route,
        "service_model": run.service,
        "requests": st.per_rep * run.replications if replay is None else replay.requests,
        "replications": run.replications,
        "ci_method": runs.summary.method,
        "seed": run.seed,
        "replicas_serving": st.replicas,
        "slots_per_replica": st.slots,
        "concurrency": st.concurrency,
        "arrival_rps": st.arrival_rps,
        "arrival_scv": st.arrival_scv if replay is None else None,
        "admission_control": job.arrivals.admission and replay is None,
        "start": runs.start,
        "warmup_requests_per_replication": runs.lo,
        "relaxation_s": st.relax if math.isfinite(st.relax) else None,
        "service_scv": st.cv * st.cv,
        "kv_limited_admission": st.memory is not None,
    }
    notes = []
    if st.slots != st.concurrency:
        notes.append(
            f"chosen concurrency {st.concurrency:.6g} is not an integer: simulated with {st.slots} slots a replica"
        )
    if st.memory is not None:
        notes.append(
            f"KV-limited admission: a request starts when its replica has a free slot and room for its KV cache "
            f"({st.memory.free_bytes / 2**30:.3g} GiB free a replica)"
        )
    if st.share < 1.0:
        notes.append(f"admission control drops {1 - st.share:.1%} of arrivals before the queue, as the model")
    if replay is not None:
        common |= replay.columns()
        notes.append(
            f"trace of {replay.requests} requests at {replay.arrival_rps:.4g} rps; analytic at {st.offered:.4g}"
        )
        held = f"a slot {float(np.mean(runs.drawn.work)):.3g} times as long" if runs.trace_klass is not None else None
        notes += replay.notes(held)
    warnings = []
    if not math.isfinite(st.relax):
        warnings.append(
            f"arrivals at {st.arrival_rps:.4g} rps reach what the fleet completes with every slot busy: the queue has "
            "no steady state and the figures depend on the run length"
        )
    return common, notes, warnings


def _figure(runs: _ClassRuns, key: str, name: str, scale: float = 1.0) -> tuple[float, float]:
    """A class's (``key``: its index, or ``all``) simulated figure and its 95% half-width, scaled."""
    return runs.summary.estimates[f"{key}:{name}"] * scale, runs.summary.halfwidths[f"{key}:{name}"] * scale


def _mix_row(
    mix: ClassMix,
    row: dict[str, Any],
    st: _ClassSetup,
    runs: _ClassRuns,
    common: dict[str, Any],
    notes: list[str],
    warnings: list[str],
) -> dict[str, Any]:
    """The mix's row: its accepted share, p99 TTFT and TPOT and utilisation beside the points table's."""
    offered, share = st.offered, st.share
    accepted_mix = float(row["accepted_rps"]) / offered if offered > 0 else 1.0
    mix_row = common | {"class": None, "offered_rps": offered, "queueing_budget_ms": None}
    mix_row |= _pair("accepted_fraction", accepted_mix, *_figure(runs, "all", "accepted_fraction", share))
    mix_row |= _pair("ttft_p99_ms", _num(row.get("ttft_p99_ms")), *_figure(runs, "all", "ttft_p99_s", MS_PER_S))
    mix_row |= _pair("tpot_p99_ms", _num(row.get("tpot_p99_ms")), *_figure(runs, "all", "tpot_p99_s", MS_PER_S))
    utilization = _figure(runs, "all", "utilization_fraction")
    mix_row |= _pair("utilization_fraction", float(row["utilization_fraction"]), *utilization)
    own, own_half = _figure(runs, "all", "accepted_own_length_fraction", share)
    mix_row["simulated_accepted_own_length_fraction"] = _finite(own)
    mix_row["simulated_accepted_own_length_fraction_ci95_halfwidth"] = _finite(own_half)
    p50, p50_half = _figure(runs, "all", "ttft_p50_s", MS_PER_S)
    mix_row["simulated_ttft_p50_ms"], mix_row["simulated_ttft_p50_ms_ci95_halfwidth"] = _finite(p50), _finite(p50_half)
    mix_row["note"] = "; ".join(
        [
            *notes,
            "the p99 TTFT is over every request of the mix, analytic (each class's law by its share) and simulated",
        ]
    )
    mix_row["warnings"] = "; ".join(warnings)
    return mix_row


def _class_row(
    mix: ClassMix,
    k: int,
    c: dict[str, Any],
    st: _ClassSetup,
    runs: _ClassRuns,
    common: dict[str, Any],
    notes: list[str],
    warnings: list[str],
) -> dict[str, Any]:
    """Class ``k``'s row: its accepted share (of its offered requests), p99 TTFT and TPOT beside its
    ``Result.classes`` row ``c``."""
    name, share, trace_klass = mix.names[k], st.share, runs.trace_klass
    class_offered = float(c["offered_rps"])
    r = common | {"class": name, "offered_rps": class_offered, "queueing_budget_ms": st.budgets_s[k] * MS_PER_S}
    analytic_accepted = float(c["accepted_rps"]) / class_offered if class_offered > 0 else 1.0
    r |= _pair("accepted_fraction", analytic_accepted, *_figure(runs, str(k), "accepted_fraction", share))
    r |= _pair("ttft_p99_ms", _num(c.get("ttft_p99_ms")), *_figure(runs, str(k), "ttft_p99_s", MS_PER_S))
    r |= _pair("tpot_p99_ms", _num(c.get("tpot_p99_ms")), *_figure(runs, str(k), "tpot_p99_s", MS_PER_S))
    own, own_half = _figure(runs, str(k), "accepted_own_length_fraction", share)
    r["simulated_accepted_own_length_fraction"] = _finite(own)
    r["simulated_accepted_own_length_fraction_ci95_halfwidth"] = _finite(own_half)
    if trace_klass is not None:  # the trace's requests judged in this class, by their lengths
        r["trace_share_fraction"] = float(np.mean(trace_klass == k))
        r["note"] = "; ".join(
            [
                *notes,
                f"{np.mean(trace_klass == k):.1%} of the trace's requests are nearest this class in length (log "
                f"space), against its share of {float(mix.share_fraction[k]):.1%}",
            ]
        )
    else:
        r["note"] = "; ".join(notes)
    r["warnings"] = "; ".join(warnings)
    return r


def _class_run(
    seed: np.random.SeedSequence,
    drawn: ClassRequests,
    memory: KvMemory | None,
    replicas: int,
    model: Any,
    route: str,
    arrival_rps: float,
    cv: float,
    queue_cap: int | None,
    engine: str,
    arrival_scv: float,
    arrival_s: np.ndarray | None = None,
) -> Any:
    """One sample path of the class mix: generated arrivals at ``arrival_rps``, or a trace's ``arrival_s``."""
    kv = None if memory is None else kv_limit(memory, drawn.input_tokens + drawn.output_tokens)
    fleet = SimFleet(replicas, model, route, queue_cap, kv)
    arrivals = (
        RenewalArrivals(arrival_rps, drawn.work.size, arrival_scv) if arrival_s is None else TraceArrivals(arrival_s)
    )
    work = RequestWork(cv, work=drawn.work, request_output_tokens=drawn.output_tokens)
    return run_fleet_once(
        np.random.default_rng(seed), fleet, arrivals, work, RunControls(engine=engine, record_occupancy=True)
    )


def _class_values(
    run: Any, drawn: ClassRequests, mix: ClassMix, tpot_s: np.ndarray, budgets_s: np.ndarray, lo: int, hi: int | None
) -> dict[str, float]:
    """The class estimates of one path over its requests ``lo`` to ``hi - 1`` (:func:`class_statistics`), with the
    mix's slot utilisation."""
    occupancy = run.start_occupancy if run.start_occupancy is not None else np.ones(drawn.work.size, dtype=np.int64)
    wait = run.wait_s
    stats = class_statistics(drawn, mix, wait, run.ttft_s - wait, tpot_s[occupancy], run.dropped, budgets_s, lo, hi)
    stats["all:utilization_fraction"] = run_statistics(run, 0.0, lo=lo, hi=hi)["utilization_fraction"]
    return stats


def _finite(x: float) -> float | None:
    """``x``, or None where it is not finite (JSON has no NaN)."""
    return float(x) if math.isfinite(x) else None


def _num(x: Any) -> float | None:
    return None if x is None else float(x)
