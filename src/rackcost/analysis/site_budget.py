"""``rackcost.site_budget``: the largest fleet of each system a site's IT power holds, and what it serves.

The face of :mod:`rackcost.model.site` (pure functions over plain numbers): it evaluates the scenario
(:func:`rackcost.evaluation.chain.evaluate_systems`) for each system's chosen operating point and packing, then fits the
largest fleet under ``facility.max_it_power_kw`` on rated power and reports its capacity at SLO per MW and the
demand it leaves unserved.
"""

from __future__ import annotations

from typing import Any

from rackcost.errors import Problem, ScenarioError, check_argument
from rackcost.evaluation.chain import evaluate_systems
from rackcost.evaluation.columns import column_names, in_order
from rackcost.evaluation.servable import served_for
from rackcost.model import routing
from rackcost.model.site import (
    fleet_rated_w,
    max_replicas_within_power,
    per_megawatt,
    serving_replicas_within,
    unserved_rps,
)
from rackcost.model.sizing import pack_racks
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import slo_inputs
from rackcost.units import W_PER_KW

__all__ = ["SITE_PATH", "site_budget"]

SITE_NAMES = column_names("site")

SITE_PATH = "facility.max_it_power_kw"
"""YAML path of the site's IT power budget."""


def site_budget(scenario: Scenario, max_it_power_kw: float | None = None) -> list[dict[str, Any]]:
    """The largest fleet of each system within the site's IT power, and what it serves within the SLO.

    Each system keeps its chosen operating point, packing (nodes per rack under the rack power limit) and the
    scenario's redundancy (availability and spares); its fleet is the most replicas whose rated IT power, as racks
    are provisioned, stays within the budget, whatever the demand or ``fleet.replicas``.

    Parameters
    ----------
    scenario
        A validated scenario.
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
    check_argument("rackcost.site_budget", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    check_argument("rackcost.site_budget", "max_it_power_kw", max_it_power_kw, (int, float, type(None)), "kW or None")
    site_kw = scenario.facility.max_it_power_kw if max_it_power_kw is None else float(max_it_power_kw)
    if site_kw is None:
        raise ScenarioError(
            [Problem(SITE_PATH, "not set: give the site's IT power in kW there, or with --max-it-power-kw")]
        )
    if not site_kw > 0:
        raise ScenarioError([Problem(SITE_PATH, f"must be > 0 kW, got {site_kw:g}")])
    fleet = scenario.fleet
    miss = slo_inputs(scenario).miss_target_fraction  # with request classes, the strictest class's target
    output_tokens = scenario.workload.output_tokens_per_request
    rows = []
    problems = []
    scenario = served_for(scenario, "site")[0]  # a system it cannot serve with is left out, with a warning
    for index, o in zip(scenario.hardware_indices, evaluate_systems(scenario), strict=True):
        inp = o.inputs
        if inp.pools is not None:  # two pools sharing one budget: not computed, rather than a wrong fleet
            problems.append(
                Problem(
                    f"systems[{index}].pools",
                    f"{inp.name} is disaggregated: the largest fleet of two pools within one power budget is not "
                    "computed; evaluate it, or leave it out of the scenario for rackcost site",
                )
            )
            continue
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
            problems.append(
                Problem(
                    SITE_PATH,
                    f"{site_kw:,.6g} kW holds no replica of {inp.name}: one replica ({inp.accelerators_per_replica} "
                    f"accelerators, its nodes and rack) is rated {one_kw:,.6g} kW",
                )
            )
            continue
        serving = serving_replicas_within(replicas, fleet.replica_availability_fraction, fleet.spare_replicas)
        capacity = 0.0
        if serving > 0:
            capacity = min(  # request classes of other attainment targets: the capacity meets every one
                float(
                    routing.capacity_at_slo(
                        fleet.routing.value, serving, o.chosen.concurrency, o.fleet.service_s[0, 0], budget, m
                    )
                )
                for budget, m in ((o.budget_s, miss), *o.chosen.more_constraints)
            )
        nodes, racks = pack_racks(replicas, *packing[:3])
        unserved = unserved_rps([d.arrival_rps for d in scenario.demand], capacity)
        rows.append(
            in_order(
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
                    "capacity_at_slo_rps": capacity,
                    "accepted_rps_per_mw": float(per_megawatt(capacity, site_kw)),
                    "output_tokens_per_s_per_mw": float(per_megawatt(capacity * output_tokens, site_kw)),
                    "unserved_rps": {d.name: float(u) for d, u in zip(scenario.demand, unserved, strict=True)},
                },
                SITE_NAMES,
            )
        )
    if problems:
        raise ScenarioError(problems)
    return rows
