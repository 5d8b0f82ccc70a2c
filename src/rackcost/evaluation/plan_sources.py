"""Each capacity source of a plan as the linear figures the solver reads, from the full model.

A source serves with one of the scenario's systems. Its figures come from evaluating that system, alone, as a fleet
of a given number of units (``fleet.replicas``: a fleet given by count serves whole), at the same operating point for
every size: the one the system chooses for the horizon's busiest hour. So everything the model knows (the curve, the
power law, parking, PUE, capex through the capital recovery factor, rent) is in the figures:

- **capacity**: the fleet's capacity at SLO, per unit; the solver's figure is that of a reference fleet (the units
  the source would need to carry the busiest hour alone), and :func:`rackcost.evaluation.planning.plan_scenario`
  lowers it where the plan holds fewer units, whose pooling is weaker;
- **cost per unit-hour**: what the fleet costs per hour while it serves almost nothing (capital, fixed opex, idle
  energy; rent);
- **cost per request**: what each request served adds (the energy above idle; an API's token price), the slope
  between an idle and a full fleet.

Owned units are whole racks (the replicas one rack holds, or the racks one replica spans); rented units are
replicas. A spot replica serves ``1 - preemptions x refill`` of its time; an owned one the fleet's
``replica_availability_fraction``.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rackcost.errors import Problem, ScenarioError
from rackcost.evaluation.chain import evaluate
from rackcost.evaluation.results import Result
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data
from rackcost.scenario.plan_blocks import CapacitySource
from rackcost.scenario.schema import Scenario

__all__ = ["SourceFigures", "source_figures", "source_scenario"]

_IDLE_RPS = 1e-6  # the smallest demand a scenario accepts [requests/s]: the fleet serves almost nothing


@dataclass
class SourceFigures:
    """One source's figures for the solver, and its exact capacity at any size.

    Attributes
    ----------
    source
        The scenario's source block.
    index
        Its index in ``plan.sources``.
    replicas_per_unit, racks_per_unit, accelerators_per_unit
        What one unit is: an owned rack's replicas and racks, a rented replica (API: 0) [-].
    capacity_rps_per_unit
        Capacity at SLO per unit of the reference fleet, times the share of time a unit serves [requests/s].
    usd_per_unit_hour
        Cost of a held unit per hour, serving almost nothing [USD/h].
    usd_per_request
        Cost each served request adds [USD].
    available_fraction
        Share of held time a unit serves (spot preemptions, owned availability) [-].
    max_units
        Most units at once (API: its rate limit, in requests/s), or None [-].
    """

    source: CapacitySource
    index: int
    replicas_per_unit: int
    racks_per_unit: int
    accelerators_per_unit: int
    capacity_rps_per_unit: float
    usd_per_unit_hour: float
    usd_per_request: float
    available_fraction: float
    max_units: float | None
    _scenario: Scenario | None = field(default=None, repr=False)
    _sizing_rps: float = 0.0
    _capacity: dict[int, float] = field(default_factory=dict, repr=False)

    def capacity_rps(self, units: int) -> float:
        """Exact capacity at SLO of ``units`` held units, times the share of time they serve [requests/s]."""
        if not self.source.kind.has_fleet:  # an API: one unit is one request/s of its rate
            return float(units)
        if units <= 0:
            return 0.0
        if units not in self._capacity:
            assert self._scenario is not None
            result = _run(
                self._scenario, self.source, units * self.replicas_per_unit, [self._sizing_rps], self._sizing_rps
            )
            self._capacity[units] = float(result.points["capacity_at_slo_rps"].iloc[0]) * self.available_fraction
        return self._capacity[units]

    def scenario(self, units: int, rates_rps: list[float]) -> Scenario:
        """This source's system alone as a fleet of ``units``, at these demand rates (equal hours)."""
        assert self._scenario is not None
        return source_scenario(self._scenario, self.source, units * self.replicas_per_unit, rates_rps, self._sizing_rps)


def source_scenario(
    scenario: Scenario, source: CapacitySource, replicas: int, rates_rps: list[float], sizing_rps: float
) -> Scenario:
    """The scenario of one source: its system alone, paid as the source is, a fleet of ``replicas``, at ``rates_rps``.

    The operating point is chosen for ``sizing_rps`` (a demand point named ``sizing``, 1e-3 h a day) so that every
    size of the fleet runs at the same point.
    """
    data = scenario_to_data(scenario)
    system = copy.deepcopy(next(s for s in data["systems"] if s["name"] == source.system))
    if source.kind.payment.rented:
        system.pop("costs", None)
        billing = "on_demand" if source.kind.payment.active_only else "reserved"
        rent: dict[str, Any] = {"usd_per_accelerator_hour": source.usd_per_accelerator_hour, "billing": billing}
        if source.includes_power_and_facility is not None:
            rent["includes_power_and_facility"] = source.includes_power_and_facility
        system["rent"] = rent
    # fleet.scaling is a reactive scaler's over a profile's hours; a plan is a schedule known ahead, whose units start
    # before the hours they serve (their start-ups priced by the plan), and a source's scenario has no profile
    dropped = ("spare_replicas", "replica_availability_fraction", "scaling")
    fleet = {k: v for k, v in data.get("fleet", {}).items() if k not in dropped}
    if system.get("api") is None:
        fleet["replicas"] = max(1, int(replicas))
    fleet["sizing_demand_point"] = "sizing"
    hours = (24.0 - 1e-3) / len(rates_rps)
    demand = [
        {"name": f"p{i}", "arrival_rps": max(float(r), _IDLE_RPS), "hours_per_day": hours}
        for i, r in enumerate(rates_rps)
    ]
    demand.append({"name": "sizing", "arrival_rps": max(sizing_rps, _IDLE_RPS), "hours_per_day": 1e-3})
    keep = ("name", "description", "workload", "slo", "facility", "uncertainty")
    out = {k: data[k] for k in keep if k in data}
    out.update(systems=[system], fleet=fleet, demand=demand)
    return scenario_from_dict(out, scenario.origin_file)


def _run(scenario: Scenario, source: CapacitySource, replicas: int, rates: list[float], sizing_rps: float) -> Result:
    """The source's fleet of ``replicas`` evaluated at ``rates``, at the operating point chosen for ``sizing_rps``."""
    return evaluate(source_scenario(scenario, source, replicas, rates, sizing_rps))


def _unit(scenario: Scenario, source: CapacitySource, sizing_rps: float) -> tuple[int, int, int]:
    """(replicas, racks, accelerators) of one unit: an owned rack's worth, or one rented replica."""
    system = next(s for s in scenario.systems if s.name == source.system)
    _, hardware = system.hardware_blocks()
    per_replica = hardware.accelerators_per_replica
    if not source.kind.payment.owned:
        racks = evaluate(source_scenario(scenario, source, 1, [sizing_rps], sizing_rps)).systems["racks"].iloc[0]
        return 1, int(racks), per_replica
    per_rack = hardware.accelerators_per_node * hardware.nodes_per_rack
    replicas = max(1, per_rack // per_replica)
    while replicas > 1:  # the rack power limit may hold fewer replicas than the slots do
        racks = evaluate(source_scenario(scenario, source, replicas, [sizing_rps], sizing_rps)).systems["racks"].iloc[0]
        if int(racks) <= 1:
            break
        replicas -= 1
    racks = evaluate(source_scenario(scenario, source, replicas, [sizing_rps], sizing_rps)).systems["racks"].iloc[0]
    return replicas, int(racks), replicas * per_replica


def source_figures(scenario: Scenario, peak_rps: float) -> list[SourceFigures]:
    """Every source's figures, with the operating point chosen for ``peak_rps`` (the horizon's busiest hour).

    Raises
    ------
    ScenarioError
        If a source's system cannot serve (no operating point meets the SLO, a node over the rack limit), at the
        source's YAML path.
    """
    assert scenario.plan is not None
    out = []
    for i, source in enumerate(scenario.plan.sources):
        try:
            out.append(_figures(scenario, i, source, peak_rps))
        except ScenarioError as exc:
            reasons = "; ".join(p.message for p in exc.problems)
            raise ScenarioError(
                [Problem(f"plan.sources[{i}]", f"source {source.name!r} cannot serve: {reasons}", scenario.origin_file)]
            ) from None
    return out


def _figures(scenario: Scenario, index: int, source: CapacitySource, peak_rps: float) -> SourceFigures:
    if not source.kind.has_fleet:
        api = evaluate(source_scenario(scenario, source, 1, [1.0], 1.0))
        row = api.points.iloc[0]
        usd_per_request = float(row["api_usd_per_hour"]) / (float(row["offered_rps"]) * 3600.0)
        system = next(s for s in scenario.systems if s.name == source.system)
        assert system.api is not None
        return SourceFigures(source, index, 0, 0, 0, 1.0, 0.0, usd_per_request, 1.0, system.api.rate_limit_rps)
    replicas, racks, accelerators = _unit(scenario, source, peak_rps)
    if source.kind.payment.owned:
        available = scenario.fleet.replica_availability_fraction
    else:
        available = 1.0 - source.preemption_loss_fraction
    figures = SourceFigures(
        source,
        index,
        replicas,
        racks,
        accelerators,
        0.0,
        0.0,
        0.0,
        available,
        None if source.max_units is None else float(source.max_units),
        scenario,
        peak_rps,
    )
    # the reference fleet: the units that would carry the busiest hour alone
    one = figures.capacity_rps(1)
    units = max(1, math.ceil(peak_rps / one)) if one > 0 else 1
    if source.max_units is not None:
        units = min(units, source.max_units)
    capacity = figures.capacity_rps(units)
    busy = capacity / available
    result = _run(scenario, source, units * replicas, [_IDLE_RPS, busy * (1 - 1e-6)], peak_rps)
    cost = result.points["total_usd_per_hour"].to_numpy(dtype=float)
    served = result.points["accepted_rps"].to_numpy(dtype=float)
    figures.capacity_rps_per_unit = capacity / units
    figures.usd_per_unit_hour = float(cost[0]) / units
    slope = (cost[1] - cost[0]) / max(served[1] - served[0], 1e-12) / 3600.0
    figures.usd_per_request = float(max(slope, 0.0))
    if not np.isfinite(figures.usd_per_request):
        figures.usd_per_request = 0.0
    return figures
