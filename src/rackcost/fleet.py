"""Fleet sizing, demand, wall power and cost for n samples at once (DESIGN.md steps 5 to 8 on a sample axis).

:func:`fleet_arrays` takes one system's chosen operating point (decided on central values by
:mod:`rackcost.chain`) and runs sizing, rack packing, the demand points, power and cost with a leading sample
axis: ``n = 1`` for :func:`rackcost.evaluate`, many for :mod:`rackcost.montecarlo`. Sharing this one function is
what makes a degenerate distribution give exactly the deterministic result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rackcost import finance, power, queueing
from rackcost.demand import serve_demand
from rackcost.performance import Curve
from rackcost.sizing import nodes_per_rack_allowed, pack_racks, provisioned_replicas, sized_replicas

if TYPE_CHECKING:
    from rackcost.chain import SystemInputs
    from rackcost.schema import Scenario

__all__ = ["fleet_arrays"]


def _segment(curve: Curve, concurrency: float) -> tuple[int, int, float]:
    """Neighbouring measured points of a concurrency and its weight on the upper one, in log(concurrency)."""
    c = curve.concurrency
    if len(c) == 1:
        return 0, 0, 0.0
    hi = int(np.clip(np.searchsorted(c, concurrency), 1, len(c) - 1))
    lo = hi - 1
    w = float((np.log(concurrency) - np.log(c[lo])) / (np.log(c[hi]) - np.log(c[lo])))
    return lo, hi, float(np.clip(w, 0.0, 1.0))


def fleet_arrays(
    scenario: Scenario,
    inp: SystemInputs,
    point: Curve,
    busy_w: float,
    budget_s: float,
    values: dict[str, NDArray[np.float64]],
    n: int,
    slo_replicas: int | None = None,
) -> dict[str, Any]:
    """Steps 5 to 8 at a chosen operating point, for ``n`` samples of the uncertain inputs at once.

    Parameters
    ----------
    scenario, inp
        The scenario and one system's unpacked inputs (central values).
    point
        The chosen operating point (a one-point curve) at central values.
    busy_w, budget_s
        Accelerator busy power at the point [W] and queueing budget [s], central values.
    values
        Sampled inputs: YAML path -> array of ``n`` values; paths not in it keep their central value.
    n
        Number of samples [-].
    slo_replicas
        Replicas the SLO and utilisation ceiling need at central values, when already known (no samples).

    Returns
    -------
    dict
        Arrays with a leading sample axis: per system ``(n, 1)``, per demand point ``(n, points)``, and
        ``demand`` (a :class:`DemandOutcome` of ``(n, points)`` arrays).
    """
    fleet, slo = scenario.fleet, scenario.slo
    i = next(k for k, sy in enumerate(scenario.systems) if sy.name == inp.name)
    system = scenario.systems[i]
    prefix = f"systems[{i}]"

    def get(path: str, central: float) -> NDArray[np.float64]:
        sample = values.get(path)
        return np.full((n, 1), float(central)) if sample is None else np.asarray(sample, float).reshape(n, 1)

    def get_facility(name: str) -> NDArray[np.float64]:
        override = system.facility is not None and getattr(system.facility, name) is not None
        return get(f"{prefix}.facility.{name}" if override else f"facility.{name}", getattr(inp, _INP_FACILITY[name]))

    # throughput and measured power at the chosen concurrency, per sample (linear in the sampled point values)
    c = float(point.concurrency[0])
    cls = system.provenance.provenance_class
    derate_central = scenario.uncertainty.throughput_derate.get(cls, 1.0)
    derate_ratio = get(f"uncertainty.throughput_derate.{cls.value}", derate_central) / derate_central
    lo, hi, w = _segment(inp.curve, c)
    pts = system.performance.points
    if pts:
        sorted_to_yaml = inp.curve.source_index
        tps = [
            get(f"{prefix}.performance.points[{k}].throughput_tokens_per_s", p.throughput_tokens_per_s)
            / p.throughput_tokens_per_s
            for k, p in enumerate(pts)
        ]
        factor = (1 - w) * inp.curve.request_rps[lo] * tps[sorted_to_yaml[lo]] + w * inp.curve.request_rps[hi] * tps[
            sorted_to_yaml[hi]
        ]
        rps = (
            derate_ratio
            * factor
            * float(point.request_rps[0])
            / ((1 - w) * inp.curve.request_rps[lo] + w * inp.curve.request_rps[hi])
        )
        if inp.curve.power_w_per_accelerator is not None:
            pw = inp.curve.power_w_per_accelerator
            ratio = [
                get(f"{prefix}.performance.points[{k}].power_w_per_accelerator", p.power_w_per_accelerator)
                / p.power_w_per_accelerator
                for k, p in enumerate(pts)
            ]
            busy = (
                busy_w
                * ((1 - w) * pw[lo] * ratio[sorted_to_yaml[lo]] + w * pw[hi] * ratio[sorted_to_yaml[hi]])
                / ((1 - w) * pw[lo] + w * pw[hi])
            )
        else:
            busy = get(f"{prefix}.hardware.accelerator_busy_w", busy_w)
    else:
        rps = derate_ratio * float(point.request_rps[0])
        busy = get(f"{prefix}.hardware.accelerator_busy_w", busy_w)
    service_s = c / rps

    rates = np.hstack([get(f"demand[{j}].arrival_rps", d.arrival_rps) for j, d in enumerate(scenario.demand)])
    sizing_index = next((j for j, d in enumerate(scenario.demand) if d.name == fleet.sizing_demand_point), None)
    sizing_rps = rates.max(axis=1, keepdims=True) if sizing_index is None else rates[:, [sizing_index]]
    miss = 1.0 - slo.attainment_fraction
    umax = get("fleet.max_utilization_fraction", fleet.max_utilization_fraction)
    if slo_replicas is not None and not values:
        slo_n = np.full((n, 1), slo_replicas, dtype=np.int64)
    else:
        slo_n = sized_replicas(
            queueing.replicas_needed(sizing_rps, service_s, c, budget_s, miss), sizing_rps, service_s, c, umax
        )
    if fleet.replicas is not None:
        n_prov = np.full((n, 1), int(fleet.replicas), dtype=np.int64)
    else:
        n_prov = provisioned_replicas(
            slo_n, get("fleet.replica_availability_fraction", fleet.replica_availability_fraction), fleet.spare_replicas
        )
    apr, apn = inp.accelerators_per_replica, inp.accelerators_per_node
    overhead = get(f"{prefix}.hardware.rack_overhead_w", inp.rack_overhead_w)
    per_rack = np.maximum(
        nodes_per_rack_allowed(inp.nodes_per_rack, inp.node_rated_w, overhead, inp.rack_power_limit_w), 1
    )
    nodes, racks = pack_racks(n_prov, apr, apn, per_rack)
    prov_kw = power.provisioned_it_power_w(nodes, racks, apn, inp.rated_w, inp.host_rated_w, overhead) / 1000.0
    outcome = serve_demand(
        rates,
        n_prov,
        c,
        service_s,
        budget_s,
        slo.attainment_fraction,
        fleet.idle_policy,
        umax,
        feasible_rps=None if fleet.replicas is not None else sizing_rps,
    )
    idle = get(f"{prefix}.hardware.accelerator_idle_w", inp.idle_w)
    parked = get(f"{prefix}.hardware.accelerator_parked_w", inp.parked_w)
    host = get(f"{prefix}.hardware.host_w_per_node", inp.host_w)
    host_parked = get(f"{prefix}.hardware.host_parked_w_per_node", inp.host_parked_w)
    it_w = power.fleet_it_power_w(
        outcome.active_replicas,
        n_prov,
        outcome.utilization_fraction,
        apr,
        apn,
        racks,
        idle,
        busy,
        parked,
        host,
        host_parked,
        overhead,
        get("fleet.power_utilization_exponent", fleet.power_utilization_exponent),
    )
    pue = get_facility("pue")
    fac_kw = power.facility_power_kw(it_w, pue)
    k = system.costs

    def cost(name: str) -> NDArray[np.float64]:
        return get(f"{prefix}.costs.{name}", getattr(k, name))

    capex = finance.fleet_capex_usd(
        n_prov * apr,
        nodes,
        racks,
        cost("capex_usd_per_accelerator"),
        cost("capex_usd_per_node"),
        cost("capex_usd_per_rack"),
        cost("networking_capex_fraction"),
        cost("installation_capex_fraction"),
    )
    capital = finance.capital_usd_per_hour(capex, cost("cost_of_capital_fraction"), cost("service_life_years"))
    fixed = finance.fixed_opex_usd_per_hour(
        capex,
        cost("maintenance_fraction_per_year"),
        n_prov * apr,
        cost("software_usd_per_accelerator_year"),
        racks,
        cost("operations_usd_per_rack_year"),
        prov_kw,
        get_facility("colocation_usd_per_kw_month"),
        get_facility("build_usd_per_kw"),
        cost("cost_of_capital_fraction"),
        get_facility("build_life_years"),
    )
    # tokens per facility kWh of one replica running flat out at the SLO point, with its share of hosts and racks
    replica_w = apr * busy + host * apr / apn + overhead * apr / (apn * per_rack)
    tokens_per_kwh = (
        rps * (point.total_tokens_per_s[0] / point.request_rps[0]) * 3600.0 / power.facility_power_kw(replica_w, pue)
    )
    return {
        "slo_replicas": slo_n,
        "provisioned_replicas": n_prov,
        "nodes": nodes,
        "racks": racks,
        "nodes_per_rack_effective": per_rack,
        "provisioned_it_kw": prov_kw,
        "capex_usd": capex,
        "capital_usd_per_hour": capital,
        "fixed_opex_usd_per_hour": fixed,
        "demand": outcome,
        "it_power_kw": it_w / 1000.0,
        "facility_power_kw": fac_kw,
        "energy_usd_per_hour": finance.energy_usd_per_hour(fac_kw, get_facility("electricity_usd_per_kwh")),
        "slo_point_total_tokens_per_facility_kwh": tokens_per_kwh,
        "service_s": service_s,
    }


_INP_FACILITY = {
    "pue": "pue",
    "electricity_usd_per_kwh": "price_usd_per_kwh",
    "colocation_usd_per_kw_month": "colocation_usd_per_kw_month",
    "build_usd_per_kw": "build_usd_per_kw",
    "build_life_years": "build_life_years",
}
