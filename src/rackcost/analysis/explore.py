"""Data behind the charts: each system's operating-point curve against the SLO, its latency cliff, its cost against
a demand scale, and histograms of sampled costs.

Both are computed by the same pure steps as :func:`rackcost.evaluate`; they return plain records (one dict per
row) that a dashboard or a notebook turns into charts. :func:`with_systems` narrows a scenario to some of its
systems, so that what is drawn of a few systems (or asked of a pair, such as a break-even) is computed for them
alone: every system is evaluated on its own, so its figures are the same in the narrower scenario.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.evaluation.chain import Evaluation, evaluation_for
from rackcost.evaluation.columns import BLENDED
from rackcost.model.fleets.demand import DemandSteps, serve_demand
from rackcost.model.outcomes import SystemOutcome
from rackcost.model.queues.burstiness import arrival_variability, wait_stretch
from rackcost.model.replica.operating_point import slo_feasible
from rackcost.model.replica.performance import Curve, LoadCurve, interpolate_curve
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import service_scv, slo_inputs
from rackcost.units import MS_PER_S

__all__ = [
    "DEMAND_SCALE_RANGE",
    "HISTOGRAM_BINS",
    "cost_against_demand_scale",
    "cost_histograms",
    "histogram",
    "latency_cliff",
    "operating_curves",
    "path_in",
    "with_systems",
]


def _evaluated(
    scenario: Scenario | Evaluation, outcomes: Sequence[SystemOutcome] | None, analysis: str
) -> tuple[Scenario, Sequence[SystemOutcome]]:
    """The scenario a chart is of and the outcomes it draws: those given (of ``scenario``, the systems drawn), else
    every hardware system served of the one evaluation (:func:`rackcost.evaluation.chain.evaluation_for`: a system
    the scenario cannot serve with is left out, with a warning)."""
    if outcomes is not None and isinstance(scenario, Scenario):
        return scenario, outcomes
    found = evaluation_for(scenario, analysis)
    return found.scenario, found.outcomes if outcomes is None else outcomes


def operating_curves(
    scenario: Scenario | Evaluation, points_per_curve: int = 60, outcomes: Sequence[SystemOutcome] | None = None
) -> list[dict[str, Any]]:
    """Each system's throughput-vs-interactivity curve, which part meets the SLO, and the chosen point.

    Parameters
    ----------
    scenario
        A validated scenario (the systems it cannot serve with are left out, with a warning), or its evaluation
        (:func:`rackcost.evaluation.chain.evaluation`).
    points_per_curve
        Log-spaced concurrencies per curve, between the measured ends (measured points are added) [-].
    outcomes
        The outcomes of the systems to draw, of the scenario's evaluation (``Evaluation.outcomes``); default all.

    Returns
    -------
    list of dict
        Rows with ``system``, ``concurrency``, ``interactivity_tokens_per_s``, ``tpot_ms``, ``ttft_ms``,
        ``total_tokens_per_s_per_replica``, ``total_tokens_per_s_per_accelerator``, ``meets_slo`` (before queueing),
        ``fits_kv_cache`` (its requests' KV caches fit the replica's memory; True without a ``memory`` block),
        ``kind`` (``measured``, ``interpolated`` or ``chosen``).
    """
    scenario, outcomes = _evaluated(scenario, outcomes, "operating curves")
    slo = slo_inputs(scenario)
    rows: list[dict[str, Any]] = []
    names = {s.name: s for s in scenario.systems}
    for outcome in outcomes:  # the systems that run hardware (an API system has no curve)
        system = names[outcome.inputs.name]
        inp = outcome.inputs
        measured = inp.curve.concurrency
        grid = np.unique(np.concatenate([np.geomspace(measured[0], measured[-1], points_per_curve), measured]))
        curve = interpolate_curve(inp.curve, grid)
        ok = slo_feasible(slo, curve.ttft_ms, curve.tpot_ms)
        fits = np.ones(grid.shape, dtype=bool) if inp.kv_memory is None else inp.kv_memory.fits(grid)
        is_measured = np.isin(grid, measured)
        for i in range(len(grid)):
            rows.append(
                _curve_row(
                    system.name,
                    curve,
                    i,
                    inp.accelerators_per_replica,
                    bool(ok[i]),
                    "measured" if is_measured[i] else "interpolated",
                    bool(fits[i]),
                )
            )
        rows.append(_curve_row(system.name, outcome.point, 0, inp.accelerators_per_replica, True, "chosen"))
    return rows


def _curve_row(
    name: str, curve: Curve, i: int, apr: int, meets: bool, kind: str, fits_kv_cache: bool = True
) -> dict[str, Any]:
    tpot = float(curve.tpot_ms[i])
    return {
        "system": name,
        "concurrency": float(curve.concurrency[i]),
        "interactivity_tokens_per_s": MS_PER_S / tpot,
        "tpot_ms": tpot,
        "ttft_ms": float(curve.ttft_ms[i]),
        "total_tokens_per_s_per_replica": float(curve.total_tokens_per_s[i]),
        "total_tokens_per_s_per_accelerator": float(curve.total_tokens_per_s[i]) / apr,
        "meets_slo": meets,
        "fits_kv_cache": fits_kv_cache,
        "kind": kind,
    }


def latency_cliff(
    scenario: Scenario | Evaluation,
    points: int = 80,
    max_load_factor: float = 1.3,
    outcomes: Sequence[SystemOutcome] | None = None,
) -> list[dict[str, Any]]:
    """What the provisioned fleet does as demand rises: accepted share and p99 TTFT against the arrival rate.

    The fleet of each system is the one :func:`rackcost.evaluate` provisions, its operating point moving with the
    load as at the demand points; the arrival rate sweeps from a
    twentieth of the lowest demand point to ``max_load_factor`` times the larger of the highest demand point and
    the fleet's capacity at SLO, so the cliff (where admission control starts to reject) is on the chart. The
    arrivals have the sizing point's burstiness (``arrival_scv``) and the workload's service spread throughout.
    ``scenario`` and ``outcomes`` are as :func:`operating_curves`'.

    Returns
    -------
    list of dict
        Rows with ``system``, ``arrival_rps``, ``accepted_rps``, ``accepted_fraction``, ``ttft_p99_ms``,
        ``utilization_fraction``, ``capacity_at_slo_rps`` and ``overloaded``.
    """
    scenario, outcomes = _evaluated(scenario, outcomes, "latency cliff")
    slo = slo_inputs(scenario)
    low = min(d.arrival_rps for d in scenario.demand) / 20.0
    rows: list[dict[str, Any]] = []
    names = {s.name: s for s in scenario.systems}
    sizing_scv = scenario.sizing_point.arrival_scv
    v = float(arrival_variability(sizing_scv))
    for o in outcomes:  # the systems that run hardware (an API system has no fleet to load)
        # the service's spread: the workload's, or with request classes the mix's at this system's chosen point
        scv = service_scv(scenario) if o.chosen.service_scv is None else o.chosen.service_scv
        stretch = float(wait_stretch(sizing_scv, scv))
        system = names[o.inputs.name]
        capacity = float(o.demand.capacity_at_slo_rps[0])
        high = max_load_factor * max(capacity, max(d.arrival_rps for d in scenario.demand))
        rates = np.geomspace(low, high, points)
        curve = o.inputs.curve
        load = LoadCurve(
            curve.concurrency,
            curve.service_s[None, :],
            curve.ttft_ms,
            curve.tpot_ms,
            None,
            o.chosen.concurrency,
        )
        served = serve_demand(
            rates[None, :],
            o.serving_replicas,
            o.chosen.concurrency,
            float(o.fleet.service_s[0, 0]),
            o.budget_s,
            slo.attainment_fraction,
            scenario.fleet.idle_policy,
            scenario.fleet.max_utilization_fraction,
            load=load,
            slo=slo,
            steps=DemandSteps.of(scenario.fleet.routing, v, stretch, o.chosen.more_constraints),
        )
        served = served.first_sample()
        assert served.ttft_ms is not None  # serve_demand gives the TTFT along the load curve it is handed
        ttft = served.ttft_ms + served.wait_p99_ms
        for i in range(points):
            rows.append(
                {
                    "system": system.name,
                    "arrival_rps": float(rates[i]),
                    "accepted_rps": float(served.accepted_rps[i]),
                    "accepted_fraction": float(served.accepted_rps[i] / rates[i]),
                    "ttft_p99_ms": float(ttft[i]),
                    "utilization_fraction": float(served.utilization_fraction[i]),
                    "capacity_at_slo_rps": capacity,
                    "overloaded": bool(served.overloaded[i]),
                }
            )
    return rows


DEMAND_SCALE_RANGE = (0.25, 4.0)
"""Default range of the demand-scale chart: a quarter to four times the scenario's demand [-]."""


def cost_against_demand_scale(
    scenario: Scenario | Evaluation,
    low: float = DEMAND_SCALE_RANGE[0],
    high: float = DEMAND_SCALE_RANGE[1],
    points: int = 17,
) -> list[dict[str, Any]]:
    """Blended cost per accepted request of each system as every demand point is scaled by one factor.

    The fleet is sized again for each scale (the operating point stays the one chosen for the scenario's own
    demand), so the chart shows where owning, renting reserved and renting on demand cross as demand grows. All
    scales are evaluated in one vectorised call (:func:`rackcost.analysis.montecarlo.evaluate_samples`, one "sample" per
    scale).

    Parameters
    ----------
    scenario
        A validated scenario (the systems it cannot serve with are left out, with a warning), or its evaluation:
        its chosen operating points are the scales'.
    low, high
        Smallest and largest factor on every demand point's arrival rate [-].
    points
        Log-spaced factors between them [-].

    Returns
    -------
    list of dict
        Rows with ``system``, ``payment``, ``demand_scale``, ``blended_usd_per_accepted_request``.
    """
    from rackcost.analysis.montecarlo import evaluate_samples

    if not 0 < low < high:
        raise ValueError(f"the demand scale range must have 0 < low < high, got [{low:g}, {high:g}]")
    found = evaluation_for(scenario, "demand scale")
    scenario = found.scenario
    scales = np.geomspace(low, high, points)
    values = {f"demand[{j}].arrival_rps": d.arrival_rps * scales for j, d in enumerate(scenario.demand)}
    result = evaluate_samples(scenario, values, points, found.chosen)
    rows: list[dict[str, Any]] = []
    for system in scenario.systems:
        blended = result[system.name]["blended_usd_per_accepted_request@system"]
        rows.extend(
            {
                "system": system.name,
                "payment": system.payment.value,
                "demand_scale": float(scale),
                "blended_usd_per_accepted_request": float(cost),
            }
            for scale, cost in zip(scales, blended, strict=True)
        )
    return rows


HISTOGRAM_BINS = 40
"""Bins of a histogram of sampled costs, per system [-]."""
HISTOGRAM_QUANTILES = (0.005, 0.995)
"""A histogram spans the samples between these quantiles (the central 99%), so one extreme sample does not squash
the rest into a single bin [-]."""


def histogram(values: NDArray[np.float64], bins: int = HISTOGRAM_BINS) -> list[tuple[float, float, float]]:
    """Histogram of samples over their central 99% (:data:`HISTOGRAM_QUANTILES`), as densities.

    Parameters
    ----------
    values
        Samples [any unit X].
    bins
        Number of equal bins [-].

    Returns
    -------
    list of tuple
        ``(bin start, bin end, density)`` [X, X, 1/X]; samples that are all equal give one thin bin.

    Examples
    --------
    >>> [round(d, 3) for _, _, d in histogram(np.linspace(0.0, 1.0, 1001), bins=4)]
    [1.001, 0.997, 1.001, 1.001]
    >>> histogram(np.full(3, 2.0))  # all equal: one thin bin
    [(1.999, 2.001, 500.0)]
    """
    lo, hi = (float(v) for v in np.quantile(values, HISTOGRAM_QUANTILES))
    if not hi > lo:
        width = abs(lo) * 1e-3 or 1e-12
        return [(lo - width / 2, lo + width / 2, 1.0 / width)]
    counts, edges = np.histogram(values, bins=bins, range=(lo, hi))
    density = counts / (values.size * (edges[1] - edges[0]))
    return [(float(a), float(b), float(d)) for a, b, d in zip(edges[:-1], edges[1:], density, strict=True)]


def cost_histograms(
    samples: dict[str, dict[str, NDArray[np.float64]]],
    systems: list[str],
    demand: list[str],
    bins: int = HISTOGRAM_BINS,
) -> list[dict[str, Any]]:
    """Histograms of each system's sampled cost per accepted request, blended over the day and at each point.

    Parameters
    ----------
    samples
        ``UncertaintyResult.samples`` of :func:`rackcost.uncertainty` (system -> column -> samples).
    systems
        The systems, in the order of the rows.
    demand
        The scenario's demand point names, in order.
    bins
        Bins per histogram [-].

    Returns
    -------
    list of dict
        Rows ``system``, ``demand_point`` (a point or ``blended``), ``x0``, ``x1`` [USD per accepted request],
        ``density`` [1/USD]: :func:`histogram` of each series (not the samples themselves).
    """
    rows: list[dict[str, Any]] = []
    for system in systems:
        cols = samples[system]
        series = [(BLENDED, cols["blended_usd_per_accepted_request@system"])]
        series += [(point, cols["usd_per_accepted_request"][:, j]) for j, point in enumerate(demand)]
        for point, values in series:
            rows += [
                {"system": system, "demand_point": point, "x0": a, "x1": b, "density": d}
                for a, b, d in histogram(values, bins)
            ]
    return rows


_SYSTEM_PATH = re.compile(r"^systems\[(\d+)\]")


def with_systems(scenario: Scenario, names: Sequence[str]) -> tuple[Scenario, dict[int, int]]:
    """The scenario with only the named systems (in the scenario's order), and where each of them was.

    Each system is evaluated on its own (its fleet, operating point and costs depend on the shared inputs and its
    own), so a system's figures in the narrower scenario are those of the whole one, bit for bit; the work is that
    of the systems kept. The baseline must be one of them.

    Parameters
    ----------
    scenario
        A validated scenario.
    names
        The systems to keep.

    Returns
    -------
    narrower : Scenario
        The scenario itself when every system is kept; else one validated anew from its plain data with the other
        systems and their ``figures:`` entries left out (the kept systems' entries follow them to their new index).
    index : dict of int to int
        Index of each kept system in ``narrower`` -> its index in ``scenario`` (to read a YAML path of the narrower
        scenario, such as a break-even's input, in the whole one: :func:`path_in`).

    Raises
    ------
    ValueError
        When a name is not a system of the scenario, or the baseline is not kept.
    """
    all_names = [s.name for s in scenario.systems]
    wanted = set(names)
    if unknown := wanted - set(all_names):
        raise ValueError(f"no system {sorted(unknown)[0]!r} in the scenario")
    if scenario.baseline_name not in wanted:
        raise ValueError(f"the baseline {scenario.baseline_name!r} must be kept")
    keep = [i for i, name in enumerate(all_names) if name in wanted]
    if len(keep) == len(all_names):
        return scenario, {i: i for i in keep}
    data = scenario_to_data(scenario)
    new = {old: k for k, old in enumerate(keep)}
    data["systems"] = [data["systems"][i] for i in keep]
    data["baseline_system"] = scenario.baseline_name
    figures = {}
    for key, figure in (data.get("figures") or {}).items():
        found = _SYSTEM_PATH.match(key)
        if found is None:
            figures[key] = figure
        elif int(found[1]) in new:
            figures[f"systems[{new[int(found[1])]}]{key[found.end() :]}"] = figure
    if "figures" in data:
        data["figures"] = figures
    return scenario_from_dict(data, "<systems of the scenario>"), {k: old for old, k in new.items()}


def path_in(path: str, index: dict[int, int]) -> str:
    """A YAML path of a narrower scenario (:func:`with_systems`) as the path of the same input in the whole one.

    Examples
    --------
    >>> path_in("systems[1].costs.capex_usd_per_accelerator", {0: 0, 1: 57}), path_in("facility.pue", {0: 3})
    ('systems[57].costs.capex_usd_per_accelerator', 'facility.pue')
    """
    found = _SYSTEM_PATH.match(path)
    return path if found is None else f"systems[{index[int(found[1])]}]{path[found.end() :]}"
