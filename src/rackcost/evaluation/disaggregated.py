"""A disaggregated system in the evaluation chain and its tables (docs/model.md, Disaggregated prefill and decode).

The chain (:mod:`rackcost.evaluation.chain`) evaluates a disaggregated system as it does any other, through
:func:`rackcost.model.fleets.pool_fleet.choose_pools` and :func:`run_pooled`: the system gets its usual rows in every
table (its figures are both pools' together, :func:`rackcost.model.fleets.pool_fleet.combine_fleets`), and the ``pools``
table (:func:`pool_rows`) one row per system, pool and demand point with what each pool needs and costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rackcost.evaluation.columns import column_names, in_order
from rackcost.model.costs.metrics import per_accepted
from rackcost.model.fleets.disaggregation import split_miss_target
from rackcost.model.fleets.pool_fleet import PooledChosen, PooledFleet, run_pools
from rackcost.model.inputs import FleetPolicy, SloInputs, SystemInputs
from rackcost.model.outcomes import ChosenPoint, SystemOutcome
from rackcost.scenario.unpack import Samples
from rackcost.scenario.unpack_pools import POOL_ROLES, pool_sampled_inputs
from rackcost.units import MS_PER_S

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario

__all__ = ["POOLS_TABLE", "accelerators", "pool_rows", "pool_warnings", "run_pooled"]

POOLS_TABLE = "pools"
"""The table of a scenario with a disaggregated system: one row per such system, pool and demand point."""


def run_pooled(
    scenario: Scenario,
    index: int,
    inp: SystemInputs,
    chosen: ChosenPoint,
    values: Samples,
    n: int,
    policy: FleetPolicy,
    slo: SloInputs,
    resize: bool = True,
    serve_once: bool = False,
    fragility_scvs: tuple[float, ...] = (),
    swing_amplitudes: tuple[float, ...] = (),
) -> PooledFleet:
    """Steps 4 to 8 of disaggregated system ``index`` for ``n`` samples
    (:func:`rackcost.model.fleets.pool_fleet.run_pools`
    on each pool's sampled inputs, :func:`rackcost.scenario.unpack_pools.pool_sampled_inputs`); the arguments are
    :func:`rackcost.evaluation.chain.run_samples`'s."""
    pools = inp.pools
    assert pools is not None and isinstance(chosen, PooledChosen)  # the chain's plan chose it with choose_pools
    pool_inputs = {"prefill": chosen.prefill_inputs, "decode": pools.decode}
    sampled = {role: pool_sampled_inputs(scenario, index, role, pool_inputs[role], values, n) for role in POOL_ROLES}
    central = None
    if serve_once:
        central = {role: pool_sampled_inputs(scenario, index, role, pool_inputs[role], {}, 1) for role in POOL_ROLES}
    return run_pools(inp, chosen, sampled, policy, slo, resize, central, fragility_scvs, swing_amplitudes)


def accelerators(outcome: SystemOutcome) -> int:
    """Accelerators a system installs: its replicas' (both pools' for a disaggregated system) [-]."""
    pools = outcome.inputs.pools
    if pools is None or not isinstance(outcome.fleet, PooledFleet):
        return outcome.provisioned_replicas * outcome.inputs.accelerators_per_replica
    return sum(
        int(outcome.fleet.pool(role).provisioned_replicas[0, 0]) * part.accelerators_per_replica
        for role, part in zip(POOL_ROLES, (pools.prefill, pools.decode), strict=True)
    )


def pool_rows(scenario: Scenario, outcomes: list[SystemOutcome]) -> list[dict[str, Any]]:
    """Rows of the ``pools`` table: one per disaggregated system, pool (prefill, decode) and demand point.

    What each pool is (its operating point, replicas, accelerators, racks and rated power, capex) and what it does
    and costs at each point (active replicas, utilisation, the share of requests meeting its part of the SLO, power
    and every cost line per hour, and its share of the system's cost per accepted request). Empty when no system is
    disaggregated.
    """
    names = column_names(POOLS_TABLE)
    rows = []
    for o in outcomes:
        pools, chosen, fleet = o.inputs.pools, o.chosen, o.fleet
        if pools is None or not isinstance(chosen, PooledChosen) or not isinstance(fleet, PooledFleet):
            continue
        miss = dict(
            zip(POOL_ROLES, split_miss_target(1.0 - _attainment(scenario), pools.decode_miss_share), strict=True)
        )
        system_total = (fleet.capital_usd_per_hour + fleet.fixed_opex_usd_per_hour + fleet.energy_usd_per_hour)[0]
        system_total = system_total + fleet.rent_usd_per_hour[0]
        accepted_per_hour = o.demand.accepted_rps * 3600.0
        for role, part, pc in zip(
            POOL_ROLES, (chosen.prefill_inputs, pools.decode), (chosen.prefill, chosen.decode), strict=True
        ):
            pf = fleet.pool(role)
            d = pf.demand.first_sample()
            total = (pf.capital_usd_per_hour + pf.fixed_opex_usd_per_hour + pf.energy_usd_per_hour)[0]
            total = total + pf.rent_usd_per_hour[0]
            prefill = role == "prefill"
            for j, point in enumerate(scenario.demand):
                row = {
                    "system": o.inputs.name,
                    "pool": role,
                    "demand_point": point.name,
                    "accelerators_per_replica": part.accelerators_per_replica,
                    "concurrency": pc.concurrency,
                    "service_s": float(pc.point.service_s[0]),
                    "prefill_ms": float(pc.point.ttft_ms[0]) - pools.transfer_ms if prefill else None,
                    "transfer_ms": pools.transfer_ms if prefill else None,
                    "tpot_ms": None if prefill else float(pc.point.tpot_ms[0]),
                    "queueing_budget_ms": pc.budget_s * MS_PER_S,
                    "miss_target_fraction": miss[role],
                    "slo_replicas": int(pf.slo_replicas[0, 0]),
                    "provisioned_replicas": int(pf.provisioned_replicas[0, 0]),
                    "accelerators": int(pf.provisioned_replicas[0, 0]) * part.accelerators_per_replica,
                    "racks": int(pf.racks[0, 0]),
                    "provisioned_it_kw": float(pf.provisioned_it_kw[0, 0]),
                    "capex_usd": float(pf.capex_usd[0, 0]),
                    "active_replicas": int(d.active_replicas[j]),
                    "utilization_fraction": float(d.utilization_fraction[j]),
                    "met_fraction": float(d.accepted_rps[j] / d.admitted_rps[j]),
                    "capacity_at_slo_rps": float(d.capacity_at_slo_rps[j]),
                    "it_power_kw": float(pf.it_power_kw[0, j]),
                    "facility_power_kw": float(pf.facility_power_kw[0, j]),
                    "capital_usd_per_hour": float(pf.capital_usd_per_hour[0, 0]),
                    "fixed_opex_usd_per_hour": float(pf.fixed_opex_usd_per_hour[0, 0]),
                    "energy_usd_per_hour": float(pf.energy_usd_per_hour[0, j]),
                    "rent_usd_per_hour": float(pf.rent_usd_per_hour[0, j]),
                    "total_usd_per_hour": float(total[j]),
                    "usd_per_accepted_request": float(per_accepted(total[j], accepted_per_hour[j])),
                    "cost_share_fraction": float(total[j] / system_total[j]),
                }
                rows.append(in_order(row, names))
    return rows


def _attainment(scenario: Scenario) -> float:
    return float(scenario.slo.attainment_fraction)


def pool_warnings(outcomes: list[SystemOutcome]) -> list[str]:
    """What a reader of a disaggregated system's figures should know: where a pool's capacity limits the system, and
    how the rows read it (the batch, TPOT and per-replica figures are the decode pool's)."""
    out = []
    for o in outcomes:
        pools, fleet = o.inputs.pools, o.fleet
        if pools is None or not isinstance(fleet, PooledFleet):
            continue
        out.append(
            f"{o.inputs.name}: disaggregated: its replicas, racks, power and costs are both pools' together (the "
            "pools table has each); its concurrency, TPOT and per-replica figures are the decode pool's, its TTFT "
            f"the prefill pool's with the KV transfer ({pools.transfer_ms:.3g} ms: "
            f"{pools.kv_bytes_per_request / 1e6:,.4g} MB at {pools.bandwidth_gb_per_s:g} GB/s)"
        )
        p, d = fleet.pool("prefill").demand.first_sample(), fleet.pool("decode").demand.first_sample()
        limited = np.flatnonzero(o.demand.overloaded)
        if limited.size:
            which = (
                "prefill"
                if float(p.capacity_at_slo_rps[limited[0]]) < float(d.capacity_at_slo_rps[limited[0]])
                else "decode"
            )
            out.append(
                f"{o.inputs.name}: overloaded points are limited by its {which} pool; the other pool is powered at "
                "what it would admit on its own (an upper bound on its power there)"
            )
    return out
