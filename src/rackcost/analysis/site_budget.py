"""``rackcost.site_budget``: the largest fleet of each system a site's IT power holds, and what it serves.

The face of :mod:`rackcost.model.energy.site` (pure functions over plain numbers): it reads the scenario's one
evaluation (:func:`rackcost.evaluation.chain.evaluation`) for each system's chosen operating point and packing, then
fits the largest fleet under ``facility.max_it_power_kw`` on rated power and reports its capacity at SLO per MW and the
demand it leaves unserved."""

from __future__ import annotations

from typing import Any

from rackcost.errors import Problem, ScenarioError, check_argument, problems_in_its_file
from rackcost.evaluation.chain import SCENARIO_OR_EVALUATION, Evaluation, evaluation_for
from rackcost.evaluation.columns import column_names, in_order
from rackcost.model.energy.site import (
    best_pool_split,
    fleet_rated_w,
    max_replicas_within_power,
    per_megawatt,
    serving_replicas_within,
    unserved_rps,
)
from rackcost.model.fleets.pool_fleet import PooledChosen, PooledFleet, pool_slo
from rackcost.model.fleets.sizing import pack_racks
from rackcost.model.outcomes import SystemOutcome
from rackcost.model.queues import routing
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import slo_inputs
from rackcost.units import W_PER_KW

__all__ = ["SITE_PATH", "site_budget"]

SITE_NAMES = column_names("site")

SITE_PATH = "facility.max_it_power_kw"
"""YAML path of the site's IT power budget."""


@problems_in_its_file
def site_budget(scenario: Scenario | Evaluation, max_it_power_kw: float | None = None) -> list[dict[str, Any]]:
    """The largest fleet of each system within the site's IT power, and what it serves within the SLO.

    Each system keeps its chosen operating point, packing (nodes per rack under the rack power limit) and the
    scenario's redundancy (availability and spares); its fleet is the most replicas whose rated IT power, as racks
    are provisioned, stays within the budget, whatever the demand or ``fleet.replicas``.

    Parameters
    ----------
    scenario
        A validated scenario (a system it cannot serve with is left out, with a warning), or its evaluation.
    max_it_power_kw
        The site's IT power budget [kW]; default the scenario's ``facility.max_it_power_kw``.

    Returns
    -------
    list of dict
        One row per system: ``system``, ``max_it_power_kw`` [kW], ``max_replicas``, ``serving_replicas``,
        ``accelerators``, ``nodes``, ``racks`` [-], ``rated_it_kw`` [kW], ``sized_rated_it_kw`` (the evaluated
        fleet's) [kW], ``capacity_at_slo_rps`` [requests/s], ``accepted_rps_per_mw`` [requests/s/MW],
        ``output_tokens_per_s_per_mw`` [tokens/s/MW] and ``unserved_rps``: demand point name -> demand above the
        capacity at SLO [requests/s].

    Raises
    ------
    ScenarioError
        When no budget is given, when one replica of a system does not fit in it, or when the scenario cannot be
        evaluated.
    """
    check_argument("rackcost.site_budget", "scenario", scenario, (Scenario, Evaluation), SCENARIO_OR_EVALUATION)
    given = scenario.given if isinstance(scenario, Evaluation) else scenario
    check_argument("rackcost.site_budget", "max_it_power_kw", max_it_power_kw, (int, float, type(None)), "kW or None")
    site_kw = given.facility.max_it_power_kw if max_it_power_kw is None else float(max_it_power_kw)
    if site_kw is None:
        raise ScenarioError(
            [Problem(SITE_PATH, "not set: give the site's IT power in kW there, or with --max-it-power-kw")]
        )
    if not site_kw > 0:
        raise ScenarioError([Problem(SITE_PATH, f"must be > 0 kW, got {site_kw:g}")])
    miss = slo_inputs(given).miss_target_fraction  # with request classes, the strictest class's target
    rows = []
    problems = []
    found = evaluation_for(scenario, "site")  # a system it cannot serve with is left out, with a warning
    scenario = found.scenario
    for o in found.outcomes:
        inp = o.inputs
        if inp.pools is not None:  # two pools sharing the budget: the split that carries the most
            pooled = _pooled_row(scenario, o, site_kw)
            if pooled is None:
                problems.append(
                    Problem(
                        SITE_PATH,
                        f"{site_kw:,.6g} kW holds no pair of a prefill and a decode replica of {inp.name}",
                    )
                )
            else:
                rows.append(pooled)
            continue
        row = _aggregated_row(scenario, o, site_kw, miss)
        if isinstance(row, Problem):
            problems.append(row)
        else:
            rows.append(row)
    if problems:
        raise ScenarioError(problems)
    return rows


def _aggregated_row(scenario: Scenario, o: SystemOutcome, site_kw: float, miss: float) -> dict[str, Any] | Problem:
    """The site row of an aggregated system: the most replicas whose rated IT power fits, the replicas of them that
    serve under the scenario's redundancy, and their capacity at SLO (meeting every class's target, ``miss`` the
    strictest's); the problem where not one replica fits."""
    inp, fleet = o.inputs, scenario.fleet
    output_tokens = scenario.workload.output_tokens_per_request
    packing = (
        inp.accelerators_per_replica,
        inp.accelerators_per_node,
        o.nodes_per_rack_effective,
        inp.rated_w,
        inp.host_rated_w,
        inp.rack_overhead_w,
    )
    replicas = max_replicas_within_power(site_kw * W_PER_KW, *packing)
    if replicas == 0:
        one_kw = float(fleet_rated_w(1, *packing)) / W_PER_KW
        return Problem(
            SITE_PATH,
            f"{site_kw:,.6g} kW holds no replica of {inp.name}: one replica ({inp.accelerators_per_replica} "
            f"accelerators, its nodes and rack) is rated {one_kw:,.6g} kW",
        )
    serving = serving_replicas_within(replicas, fleet.replica_availability_fraction, fleet.spare_replicas)
    capacity = 0.0
    if serving > 0:
        capacity = min(  # request classes of other attainment targets: the capacity meets every one
            float(
                routing.capacity_at_slo(
                    fleet.routing, serving, o.chosen.concurrency, o.fleet.service_s[0, 0], budget, m
                )
            )
            for budget, m in ((o.budget_s, miss), *o.chosen.more_constraints)
        )
    nodes, racks = pack_racks(replicas, *packing[:3])
    unserved = unserved_rps([d.arrival_rps for d in scenario.demand], capacity)
    return in_order(
        {
            "system": inp.name,
            "max_it_power_kw": site_kw,
            "max_replicas": replicas,
            "serving_replicas": serving,
            "accelerators": replicas * inp.accelerators_per_replica,
            "nodes": int(nodes),
            "racks": int(racks),
            "rated_it_kw": float(fleet_rated_w(replicas, *packing)) / W_PER_KW,
            "sized_rated_it_kw": o.provisioned_it_kw,
            "prefill_replicas": None,
            "decode_replicas": None,
            "capacity_at_slo_rps": capacity,
            "accepted_rps_per_mw": float(per_megawatt(capacity, site_kw)),
            "output_tokens_per_s_per_mw": float(per_megawatt(capacity * output_tokens, site_kw)),
            "unserved_rps": {d.name: float(u) for d, u in zip(scenario.demand, unserved, strict=True)},
        },
        SITE_NAMES,
    )


def _pooled_row(scenario: Scenario, o: SystemOutcome, site_kw: float) -> dict[str, Any] | None:
    """The site row of a disaggregated system: the split of the budget between its pools that carries the most
    within the SLO (:func:`rackcost.model.energy.site.best_pool_split`), each pool at its chosen point, its part of the
    SLO and the fleet's redundancy; None when no pair of replicas fits."""
    inp, chosen, fleet = o.inputs, o.chosen, o.fleet
    pools = inp.pools
    assert pools is not None and isinstance(chosen, PooledChosen) and isinstance(fleet, PooledFleet)
    slo = slo_inputs(scenario)
    parts = {
        "prefill": (pools.prefill, chosen.prefill, fleet.pool("prefill")),
        "decode": (pools.decode, chosen.decode, fleet.pool("decode")),
    }

    def packing(role: str) -> tuple[int, int, int, float, float, float]:
        pool, _, pool_fleet = parts[role]
        return (
            pool.accelerators_per_replica,
            pool.accelerators_per_node,
            int(pool_fleet.nodes_per_rack_effective[0, 0]),
            pool.rated_w,
            pool.host_rated_w,
            pool.rack_overhead_w,
        )

    def capacity(role: str) -> Any:
        _, point, pool_fleet = parts[role]
        miss = pool_slo(slo, pools, role).miss_target_fraction
        service_s = float(pool_fleet.service_s[0, 0])
        routed = scenario.fleet.routing
        return lambda n: routing.capacity_at_slo(routed, n, point.concurrency, service_s, point.budget_s, miss)

    fleet_block = scenario.fleet
    split = best_pool_split(
        site_kw * W_PER_KW,
        packing("prefill"),
        packing("decode"),
        capacity("prefill"),
        capacity("decode"),
        fleet_block.replica_availability_fraction,
        fleet_block.spare_replicas,
    )
    if split is None:
        return None
    counts = {"prefill": split.prefill_replicas, "decode": split.decode_replicas}
    packed = {role: pack_racks(counts[role], *packing(role)[:3]) for role in parts}
    capacity_rps = split.capacity_rps
    return in_order(
        {
            "system": inp.name,
            "max_it_power_kw": site_kw,
            "max_replicas": split.prefill_replicas + split.decode_replicas,
            "serving_replicas": split.prefill_serving + split.decode_serving,
            "accelerators": sum(counts[r] * parts[r][0].accelerators_per_replica for r in parts),
            "nodes": int(sum(packed[r][0] for r in parts)),
            "racks": int(sum(packed[r][1] for r in parts)),
            "rated_it_kw": split.rated_w / W_PER_KW,
            "sized_rated_it_kw": o.provisioned_it_kw,
            "prefill_replicas": split.prefill_replicas,
            "decode_replicas": split.decode_replicas,
            "capacity_at_slo_rps": capacity_rps,
            "accepted_rps_per_mw": float(per_megawatt(capacity_rps, site_kw)),
            "output_tokens_per_s_per_mw": float(
                per_megawatt(capacity_rps * scenario.workload.output_tokens_per_request, site_kw)
            ),
            "unserved_rps": {
                d.name: float(u)
                for d, u in zip(
                    scenario.demand, unserved_rps([d.arrival_rps for d in scenario.demand], capacity_rps), strict=True
                )
            },
        },
        SITE_NAMES,
    )
