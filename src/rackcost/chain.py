"""The evaluation chain: a validated scenario in, result tables out (DESIGN.md section 2, steps 1 to 10).

This is the only module that reads the pydantic scenario: it unpacks each system into plain numbers and arrays
(:class:`SystemInputs`), runs the pure steps in order (performance curve, operating point, sizing, demand, power,
cost) and hands the numbers to :mod:`rackcost.results` to become DataFrames.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rackcost.compare import comparability_warnings, comparison_rows
from rackcost.demand import DemandOutcome
from rackcost.errors import Problem, ScenarioError
from rackcost.fleet import fleet_arrays
from rackcost.operating_point import choose_operating_point, feasible, queueing_budget_s
from rackcost.performance import Curve, build_curve, candidate_concurrencies, interpolate_curve
from rackcost.results import Result, point_rows, system_rows
from rackcost.schema import Scenario, System
from rackcost.sizing import nodes_per_rack_allowed

__all__ = [
    "SystemInputs",
    "SystemOutcome",
    "evaluate",
    "evaluate_systems",
    "feasibility_problems",
    "fleet_arrays",
    "result_tables",
    "sizing_demand",
    "system_inputs",
]

COARSE_CANDIDATES = 33
FINE_CANDIDATES = 32


@dataclass(frozen=True)
class SystemInputs:
    """One system's inputs as plain numbers: what the pure core needs, nothing pydantic."""

    name: str
    curve: Curve
    concurrency_derived: bool
    accelerators_per_replica: int
    accelerators_per_node: int
    nodes_per_rack: int
    rated_w: float
    busy_w: float
    idle_w: float
    parked_w: float
    host_w: float
    host_rated_w: float
    host_parked_w: float
    rack_overhead_w: float
    pue: float
    price_usd_per_kwh: float
    rack_power_limit_w: float
    colocation_usd_per_kw_month: float
    build_usd_per_kw: float
    build_life_years: float
    headline_tokens_per_s_per_kw: float
    headline_power_basis: str
    headline_is_claim: bool
    coarse: Curve  # the curve at the coarse candidate concurrencies, computed once

    @property
    def node_rated_w(self) -> float:
        """Rated power of one node: accelerators plus host [W]."""
        return self.accelerators_per_node * self.rated_w + self.host_rated_w


def system_inputs(scenario: Scenario, system: System) -> SystemInputs:
    """Unpack one system of a scenario into plain numbers (the only place the core's inputs are read)."""
    perf, hw = system.performance, system.hardware
    isl = perf.benchmark_input_tokens or scenario.workload.input_tokens_per_request
    osl = perf.benchmark_output_tokens or scenario.workload.output_tokens_per_request
    derate = scenario.uncertainty.throughput_derate.get(system.provenance.provenance_class, 1.0)
    scale = (hw.accelerators_per_replica if perf.throughput_per == "accelerator" else 1) * derate
    if perf.points:
        pts = perf.points
        conc = None if pts[0].concurrency is None else [p.concurrency for p in pts]
        powers = [p.power_w_per_accelerator for p in pts]
        curve = build_curve(
            conc,
            [p.throughput_tokens_per_s * scale for p in pts],
            perf.token_basis.value,
            [p.tpot_ms_value for p in pts],
            [p.ttft_ms for p in pts],
            isl,
            osl,
            None if any(w is None for w in powers) else powers,
        )
        derived = conc is None
    else:
        claim = perf.claim
        assert claim is not None and claim.tpot_ms is not None and claim.ttft_ms is not None  # schema guarantees
        tps = claim.tokens_per_s_per_kw * claim.power_basis_kw_per_accelerator * hw.accelerators_per_replica * derate
        curve = build_curve(
            None if claim.concurrency is None else [claim.concurrency],
            [tps],
            claim.token_basis.value,
            [claim.tpot_ms],
            [claim.ttft_ms],
            isl,
            osl,
        )
        derived = claim.concurrency is None
    if perf.claim is not None:
        headline, basis, is_claim = perf.claim.tokens_per_s_per_kw, perf.claim.power_basis, True
    else:
        # no claim: the curve's peak total throughput per kW of rated accelerator power, labelled as derived
        peak = float(np.max(curve.total_tokens_per_s))
        headline = peak / (hw.accelerators_per_replica * hw.accelerator_rated_w / 1000.0)
        basis, is_claim = "rated accelerator power (derived from the curve)", False
    fac = scenario.facility
    over = system.facility

    def pick(name: str) -> float:
        value = getattr(over, name) if over is not None else None
        return float(getattr(fac, name) if value is None else value)

    return SystemInputs(
        name=system.name,
        curve=curve,
        concurrency_derived=derived,
        accelerators_per_replica=hw.accelerators_per_replica,
        accelerators_per_node=hw.accelerators_per_node,
        nodes_per_rack=hw.nodes_per_rack,
        rated_w=hw.accelerator_rated_w,
        busy_w=hw.accelerator_busy_w,
        idle_w=hw.accelerator_idle_w,
        parked_w=hw.accelerator_idle_w if hw.accelerator_parked_w is None else hw.accelerator_parked_w,
        host_w=hw.host_w_per_node,
        host_rated_w=hw.host_w_per_node if hw.host_rated_w_per_node is None else hw.host_rated_w_per_node,
        host_parked_w=hw.host_w_per_node if hw.host_parked_w_per_node is None else hw.host_parked_w_per_node,
        rack_overhead_w=hw.rack_overhead_w,
        pue=pick("pue"),
        price_usd_per_kwh=pick("electricity_usd_per_kwh"),
        rack_power_limit_w=pick("rack_power_limit_kw") * 1000.0,
        colocation_usd_per_kw_month=pick("colocation_usd_per_kw_month"),
        build_usd_per_kw=pick("build_usd_per_kw"),
        build_life_years=pick("build_life_years"),
        headline_tokens_per_s_per_kw=headline,
        headline_power_basis=basis,
        headline_is_claim=is_claim,
        coarse=_candidates(curve, COARSE_CANDIDATES),
    )


def _candidates(
    curve: Curve, count: int, low: float | None = None, high: float | None = None, extra: float | None = None
) -> Curve:
    """The curve at candidate concurrencies in [low, high] (default: the measured range), measured points included."""
    c = curve.concurrency
    grid = candidate_concurrencies(c[0] if low is None else low, c[-1] if high is None else high, count)
    keep = [grid, c[(c >= grid[0]) & (c <= grid[-1])]] + ([] if extra is None else [[extra]])
    return interpolate_curve(curve, np.unique(np.concatenate(keep)))


def feasibility_problems(
    scenario: Scenario, inputs: list[SystemInputs] | None = None
) -> list[tuple[tuple[str | int, ...], str, str]]:
    """Problems no pydantic field check can see: an SLO no operating point meets, a node too big for a rack.

    Returns
    -------
    list of (loc, path, message)
        YAML location tuple, its path as text, and the message.
    """
    slo, osl = scenario.slo, scenario.workload.output_tokens_per_request
    out = []
    if inputs is None:
        inputs = [system_inputs(scenario, s) for s in scenario.systems]
    for i, (system, inp) in enumerate(zip(scenario.systems, inputs, strict=True)):
        cand = inp.coarse
        ok = feasible(cand.ttft_ms, cand.tpot_ms, osl, slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms)
        if not ok.any():
            e2e = "" if slo.e2e_limit_ms is None else f", end-to-end < {slo.e2e_limit_ms:g} ms"
            loc: tuple[str | int, ...] = ("systems", i, "performance")
            out.append(
                (
                    loc,
                    f"systems[{i}].performance",
                    f"no operating point of {system.name!r} meets the SLO (TPOT <= {slo.tpot_limit_ms:g} ms, "
                    f"TTFT < {slo.ttft_limit_ms:g} ms{e2e}); its points span TPOT {cand.tpot_ms.min():.3g}-"
                    f"{cand.tpot_ms.max():.3g} ms and TTFT {cand.ttft_ms.min():.4g}-{cand.ttft_ms.max():.4g} ms",
                )
            )
        if (
            nodes_per_rack_allowed(inp.nodes_per_rack, inp.node_rated_w, inp.rack_overhead_w, inp.rack_power_limit_w)
            < 1
        ):
            loc = ("systems", i, "hardware")
            out.append(
                (
                    loc,
                    f"systems[{i}].hardware",
                    f"one node of {system.name!r} is rated {inp.node_rated_w / 1000:.3g} kW and the rack overhead "
                    f"{inp.rack_overhead_w / 1000:.3g} kW, over the rack power limit of "
                    f"{inp.rack_power_limit_w / 1000:.3g} kW (facility.rack_power_limit_kw)",
                )
            )
    return out


@dataclass(frozen=True)
class SystemOutcome:
    """Everything the chain computed for one system (numbers only)."""

    inputs: SystemInputs
    point: Curve
    busy_w: float
    budget_s: float
    slo_replicas: int
    provisioned_replicas: int
    nodes: int
    racks: int
    nodes_per_rack_effective: int
    provisioned_it_kw: float
    capex_usd: float
    capital_usd_per_hour: float
    fixed_opex_usd_per_hour: float
    demand: DemandOutcome
    it_power_kw: NDArray[np.float64]
    facility_power_kw: NDArray[np.float64]
    energy_usd_per_hour: NDArray[np.float64]
    slo_point_total_tokens_per_facility_kwh: float


def _choose(inp: SystemInputs, scenario: Scenario, sizing_rps: float) -> tuple[Curve, float, float, int]:
    """Chosen operating point (as a one-point curve), its busy power, budget and SLO replica count."""
    slo, osl, fleet = scenario.slo, scenario.workload.output_tokens_per_request, scenario.fleet
    apr = inp.accelerators_per_replica
    host_share_w = inp.host_w * apr / inp.accelerators_per_node

    def run(cand: Curve) -> tuple[int, NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
        busy = (
            cand.power_w_per_accelerator
            if cand.power_w_per_accelerator is not None
            else np.full(cand.concurrency.shape, inp.busy_w)
        )
        ok = feasible(cand.ttft_ms, cand.tpot_ms, osl, slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms)
        budget = queueing_budget_s(cand.ttft_ms, cand.tpot_ms, osl, slo.ttft_limit_ms, slo.e2e_limit_ms)
        if not ok.any():
            raise ScenarioError([Problem("slo", f"no operating point of {inp.name!r} meets the SLO")])
        best, n = choose_operating_point(
            cand.concurrency,
            cand.service_s,
            np.where(ok, budget, 0.0),
            ok,
            apr * busy + host_share_w,
            apr * inp.idle_w + host_share_w,
            sizing_rps,
            slo.attainment_fraction,
            fleet.max_utilization_fraction,
        )
        return best, n, busy, budget

    cand = inp.coarse
    best, n, busy, budget = run(cand)
    lo = cand.concurrency[max(best - 1, 0)]
    hi = cand.concurrency[min(best + 1, len(cand) - 1)]
    if hi - lo > 2.0:  # the coarse grid skipped integers next to the best candidate: refine between its neighbours
        cand = _candidates(inp.curve, FINE_CANDIDATES, lo, hi, extra=cand.concurrency[best])
        best, n, busy, budget = run(cand)
    return cand.take(np.array([best])), float(busy[best]), float(budget[best]), int(n[best])


def _evaluate_system(inp: SystemInputs, scenario: Scenario, sizing_rps: float) -> SystemOutcome:
    point, busy_w, budget_s, slo_replicas = _choose(inp, scenario, sizing_rps)
    a = fleet_arrays(scenario, inp, point, busy_w, budget_s, {}, 1, slo_replicas=slo_replicas)
    d = a["demand"]
    return SystemOutcome(
        inputs=inp,
        point=point,
        busy_w=busy_w,
        budget_s=budget_s,
        slo_replicas=int(a["slo_replicas"][0, 0]),
        provisioned_replicas=int(a["provisioned_replicas"][0, 0]),
        nodes=int(a["nodes"][0, 0]),
        racks=int(a["racks"][0, 0]),
        nodes_per_rack_effective=int(a["nodes_per_rack_effective"][0, 0]),
        provisioned_it_kw=float(a["provisioned_it_kw"][0, 0]),
        capex_usd=float(a["capex_usd"][0, 0]),
        capital_usd_per_hour=float(a["capital_usd_per_hour"][0, 0]),
        fixed_opex_usd_per_hour=float(a["fixed_opex_usd_per_hour"][0, 0]),
        demand=DemandOutcome(**{k: v[0] for k, v in vars(d).items()}),
        it_power_kw=a["it_power_kw"][0],
        facility_power_kw=a["facility_power_kw"][0],
        energy_usd_per_hour=a["energy_usd_per_hour"][0],
        slo_point_total_tokens_per_facility_kwh=float(a["slo_point_total_tokens_per_facility_kwh"][0, 0]),
    )


def evaluate_systems(scenario: Scenario) -> list[SystemOutcome]:
    """Run steps 1 to 8 for every system and return the numbers (no tables); :func:`evaluate` builds on it.

    Raises
    ------
    ScenarioError
        If the scenario cannot be evaluated (an SLO no operating point meets, a node over the rack limit).
    """
    inputs = [system_inputs(scenario, s) for s in scenario.systems]
    problems = feasibility_problems(scenario, inputs)
    if problems:
        raise ScenarioError([Problem(path, message) for _, path, message in problems])
    _, sizing_rps = sizing_demand(scenario)
    return [_evaluate_system(inp, scenario, sizing_rps) for inp in inputs]


def sizing_demand(scenario: Scenario) -> tuple[str, float]:
    """Name and arrival rate of the demand point the fleet is sized for [-, requests/s]."""
    if scenario.fleet.sizing_demand_point is not None:
        d = next(d for d in scenario.demand if d.name == scenario.fleet.sizing_demand_point)
    else:
        d = max(scenario.demand, key=lambda d: d.arrival_rps)
    return d.name, d.arrival_rps


def evaluate(scenario: Scenario) -> Result:
    """Evaluate a scenario: cost per accepted request of each system at each demand point.

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`).

    Returns
    -------
    Result
        ``points`` (one row per system and demand point), ``systems`` (one row per system), ``comparison``
        (each system against the baseline) and ``warnings``.

    Raises
    ------
    ScenarioError
        If the scenario cannot be evaluated (an SLO no operating point meets, a node over the rack limit).
    """
    return result_tables(scenario, evaluate_systems(scenario))


def result_tables(scenario: Scenario, outcomes: list[SystemOutcome]) -> Result:
    """Tables, comparison and warnings of already evaluated systems (:func:`evaluate_systems`).

    Lets a caller that also needs the raw outcomes (the dashboard's charts) evaluate only once.
    """
    sizing_name, _ = sizing_demand(scenario)
    points = point_rows(scenario, outcomes)
    systems = system_rows(scenario, outcomes, sizing_name)
    warnings = comparability_warnings(scenario) + _outcome_warnings(scenario, outcomes)
    comparison = comparison_rows(scenario, systems, points)
    return Result(
        scenario_name=scenario.name,
        records={"points": points, "systems": systems, "comparison": comparison},
        warnings=warnings,
    )


def _outcome_warnings(scenario: Scenario, outcomes: list[SystemOutcome]) -> list[str]:
    """Named outcomes that are not errors: overload, too many racks, derived concurrency, edge of the curve."""
    out = []
    for o in outcomes:
        name = o.inputs.name
        for i, d in enumerate(scenario.demand):
            if o.demand.overloaded[i]:
                out.append(
                    f"{name} at {d.name}: demand {d.arrival_rps:.4g} rps is above the fleet's capacity at SLO "
                    f"({o.demand.capacity_at_slo_rps[i]:.4g} rps); admission control rejects "
                    f"{o.demand.rejected_rps[i]:.4g} rps"
                )
        if scenario.facility.max_racks is not None and o.racks > scenario.facility.max_racks:
            out.append(
                f"{name}: the fleet needs {o.racks} racks; the facility has {scenario.facility.max_racks} "
                "(facility.max_racks)"
            )
        if o.nodes_per_rack_effective < o.inputs.nodes_per_rack:
            out.append(
                f"{name}: the rack power limit ({o.inputs.rack_power_limit_w / 1000:.4g} kW) allows only "
                f"{o.nodes_per_rack_effective} of {o.inputs.nodes_per_rack} node slots per rack on rated power"
            )
        if o.inputs.concurrency_derived:
            out.append(f"{name}: concurrency not given; derived by Little's law from throughput and latency")
        if len(o.inputs.curve) == 1:
            out.append(
                f"{name}: a single operating point; the curve cannot be interpolated, the SLO is met there "
                "or not at all"
            )
    return out
