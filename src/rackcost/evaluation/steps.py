"""Steps 1 to 3 of the evaluation chain, decided once per scenario on central values: each system unpacked,
checked and its operating point chosen (:func:`choose_points`). :mod:`rackcost.evaluation.chain` runs the rest; in a
module of its own so that what evaluates a sized fleet at other demand (:mod:`rackcost.evaluation.horizon`) needs no
chain."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from rackcost.errors import Problem, ScenarioError
from rackcost.model.fleets.pool_fleet import choose_pools
from rackcost.model.inputs import FleetPolicy, SloInputs, SystemInputs
from rackcost.model.outcomes import ChosenPoint
from rackcost.model.queues.burstiness import arrival_variability
from rackcost.model.replica.operating_point import choose_point
from rackcost.scenario.feasibility import feasibility_problems, unserved_systems
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import fleet_policy, has_dispersion, point_arrival_scvs, sizing_demand, slo_inputs
from rackcost.scenario.unpack_pools import any_system_inputs

__all__ = ["ChosenPoints", "choose_points"]


@dataclass(frozen=True)
class ChosenPoints:
    """What is decided once per scenario, on central values (steps 1 to 3).

    Attributes
    ----------
    slo, policy
        The SLO and the fleet policy.
    sizing_rps
        Demand the fleet is sized for [requests/s].
    hours_per_day
        Hours of each demand point [h].
    input_tokens
        Input tokens per request, ISL [tokens].
    indices
        Index in ``scenario.systems`` of each system that runs hardware (API systems have no operating point).
    systems
        Each system's central inputs.
    chosen
        Each system's chosen operating point.
    """

    slo: SloInputs
    policy: FleetPolicy
    sizing_rps: float
    hours_per_day: NDArray[np.float64]
    input_tokens: float
    indices: tuple[int, ...]
    systems: tuple[SystemInputs, ...]
    chosen: tuple[ChosenPoint, ...]


def choose_points(scenario: Scenario, inputs: tuple[SystemInputs, ...] | None = None) -> ChosenPoints:
    """Steps 1 to 3: unpack each system, check it can be evaluated, and choose its operating point.

    ``inputs``: the hardware systems' inputs when the caller has them already (:func:`evaluate` does, from
    :func:`rackcost.evaluation.servable.servable`, which gives them only for a scenario it found every system of
    servable: the unserved check is then not run again).

    Raises
    ------
    ScenarioError
        If the scenario cannot be evaluated (an SLO no operating point meets, a node over the rack limit).
    """
    indices = tuple(scenario.hardware_indices)
    checked = inputs is not None
    if inputs is None:
        inputs = tuple(any_system_inputs(scenario, scenario.systems[i]) for i in indices)
    problems = feasibility_problems(scenario, list(inputs))
    if not checked:
        problems += [(u.loc, u.path, u.reason) for u in unserved_systems(scenario, list(inputs))]
    if problems:
        raise ScenarioError([Problem(path, message) for _, path, message in problems])
    policy = fleet_policy(scenario)
    slo = slo_inputs(scenario)
    _, sizing_rps = sizing_demand(scenario)
    max_utilization = scenario.fleet.max_utilization_fraction
    sizing = scenario.sizing_point

    def choose(inp: SystemInputs, scv: float) -> ChosenPoint:
        variability, stretch = float(arrival_variability(scv)), float(policy.stretch_at((scv,))[0, 0])
        if inp.pools is not None:
            return choose_pools(inp, slo, sizing_rps, max_utilization, policy.routing, variability)
        return choose_point(inp, slo, sizing_rps, max_utilization, policy.routing, variability, stretch, scv)

    if not has_dispersion(scenario):
        chosen = tuple(choose(inp, sizing.arrival_scv) for inp in inputs)
    else:
        index = scenario.demand.index(sizing)
        chosen = tuple(_choose_at_own_service(scenario, inp, choose, index) for inp in inputs)
    return ChosenPoints(
        slo=slo,
        policy=policy,
        sizing_rps=sizing_rps,
        hours_per_day=np.array([d.hours_per_day for d in scenario.demand]),
        input_tokens=float(scenario.workload.input_tokens_per_request),
        indices=indices,
        systems=inputs,
        chosen=chosen,
    )


MAX_SERVICE_ROUNDS = 4
"""Most rounds of choosing a system's point where a measured dispersion sets its arrival SCV [-]."""


def _choose_at_own_service(
    scenario: Scenario, inp: SystemInputs, choose: Callable[[SystemInputs, float], ChosenPoint], sizing_index: int
) -> ChosenPoint:
    """The operating point of a system whose sizing arrivals are a measured dispersion, chosen at the arrival SCV
    its own service time reads from it (:func:`rackcost.scenario.unpack.point_arrival_scvs`).

    The service time depends on the point chosen and the point on the SCV, so the two are settled by rounds: start
    from the point chosen for Poisson arrivals, read the SCV at its service time, choose again, until the service
    time repeats (one or two rounds on every case measured: the choice moves only when the SCV crosses a step of
    the curve). Should the rounds not settle in :data:`MAX_SERVICE_ROUNDS`, the point chosen at the largest SCV
    read is kept (the burstiest reading: never the optimistic one). Every point's SCV is read at the kept point's
    service time and carried on the chosen point, which the fleet keeps at every demand point.
    """
    chosen = choose(inp, 1.0)
    rounds: list[tuple[float, ChosenPoint]] = []
    for _ in range(MAX_SERVICE_ROUNDS):
        service_s = float(chosen.point.service_s[0])
        scv = point_arrival_scvs(scenario, service_s)[sizing_index]
        chosen = choose(inp, scv)
        rounds.append((scv, chosen))
        if float(chosen.point.service_s[0]) == service_s:  # the point its own service time's SCV chooses
            break
    else:
        chosen = max(rounds, key=lambda pair: pair[0])[1]
    return replace(chosen, arrival_scv=point_arrival_scvs(scenario, float(chosen.point.service_s[0])))
