"""Several models on one fleet: each model evaluated on its own, their nodes packed onto shared racks, the racks'
cost attributed by a named rule (docs/model.md, Several models, one fleet).

Each model of a models document (:mod:`rackcost.scenario.models_doc`) is an ordinary scenario and runs through the
one evaluation of the chain (:func:`rackcost.evaluation.chain.evaluation`), unchanged: its replicas are its own, at
its own operating point, sized for its own demand and SLO. Each model runs on the cheapest of the systems it may use
(the lowest cost per accepted request over the day, alone). Then, per system type:

1. The models' nodes are packed together (:func:`rackcost.model.fleets.shared.shared_racks`): the racks are the
   total nodes over the nodes one rack holds under its slots and power limit (the same for every model, whose nodes
   are the same hardware).
2. Every cost of a fleet is linear in its racks for given nodes (rack capex, with networking and installation;
   maintenance on it; operations per rack; rack overhead power, its energy and its colocation and build per
   provisioned kW). A rack's day costs what :func:`rackcost.model.fleets.fleet.fleet_costs` says a fleet of one
   empty rack costs, at the model's demand points' hours: each model's *direct* cost is its day alone less its own
   racks' cost; the *shared* cost is the shared racks'.
3. The shared cost is split by the rule (:data:`rackcost.model.fleets.shared.ATTRIBUTION_RULES`): ``reservation``
   by the node slots each model holds, ``usage`` by the energy its own nodes use. Each model's cost per accepted
   request is its direct cost plus its share over its accepted requests of the day; the models' costs add up to
   the fleet's.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from rackcost.errors import Problem, ScenarioError, check_argument
from rackcost.evaluation.chain import Evaluation, evaluation
from rackcost.model.energy import power
from rackcost.model.fleets.fleet import Packing, fleet_costs
from rackcost.model.fleets.shared import ATTRIBUTION_RULES, AttributionRule, attributed_usd, shared_racks
from rackcost.model.outcomes import SystemOutcome
from rackcost.model.strategies import Payment
from rackcost.scenario.models_doc import ModelScenario, ModelsDocument, load_models, path_in_document, unnamed_systems
from rackcost.scenario.unpack import sampled_inputs
from rackcost.units import SECONDS_PER_HOUR, W_PER_KW

__all__ = ["ModelFleet", "ModelsResult", "evaluate_models", "rack_day"]

Models = tuple[ModelsDocument, list[ModelScenario]]


@dataclass(frozen=True)
class ModelFleet:
    """One model's fleet, evaluated alone (:func:`evaluate_models`): the figures the packing and the rules read.

    Attributes
    ----------
    name, system
        The model, and the system it runs on (the cheapest of its systems alone).
    shared_index
        The system's position under the document's ``systems``.
    evaluation, outcome
        The model's one evaluation and its outcome on ``system``.
    rack_usd_per_day, rack_kwh_per_day
        One rack's cost and facility energy over the model's day [USD, kWh].
    """

    name: str
    system: str
    shared_index: int
    evaluation: Evaluation
    outcome: SystemOutcome
    rack_usd_per_day: float
    rack_kwh_per_day: float

    @property
    def nodes(self) -> int:
        """Nodes the model's provisioned replicas take [-]."""
        return int(self.outcome.fleet.nodes[0, 0])

    @property
    def racks(self) -> int:
        """Racks the model's nodes take alone [-]."""
        return int(self.outcome.fleet.racks[0, 0])

    @property
    def nodes_per_rack_effective(self) -> int:
        """Nodes one rack holds under its slots and power limit [-]."""
        return int(self.outcome.fleet.nodes_per_rack_effective[0, 0])

    @property
    def usd_per_day(self) -> float:
        """The model's day alone [USD]."""
        return float(self.outcome.metrics.usd_per_day[0])

    @property
    def direct_usd_per_day(self) -> float:
        """The model's day alone less its racks' [USD]."""
        return self.usd_per_day - self.racks * self.rack_usd_per_day

    @property
    def node_kwh_per_day(self) -> float:
        """Facility energy of the model's own nodes over the day: its energy alone less its racks' overhead [kWh]."""
        return float(self.outcome.metrics.facility_energy_kwh_per_day[0]) - self.racks * self.rack_kwh_per_day

    @property
    def accepted_requests_per_day(self) -> float:
        """Requests accepted within the SLO over the day [requests]."""
        return float(self.outcome.metrics.accepted_requests_per_day[0])

    @property
    def offered_requests_per_day(self) -> float:
        """Requests offered over the day [requests]."""
        hours = self.evaluation.chosen.hours_per_day
        return float(np.sum(self.outcome.fleet.demand.offered_rps[0] * hours)) * SECONDS_PER_HOUR


@dataclass(frozen=True)
class ModelsResult:
    """What :func:`evaluate_models` returns.

    Attributes
    ----------
    name
        The document's name.
    placement, rule
        ``shared`` or ``separate`` racks, and the attribution rule of the shared racks' cost.
    models
        One row per model: its system, replicas, nodes, accepted share and requests of the day, its cost alone,
        direct, its share of the shared cost and its attributed cost, and the attributed cost per accepted request.
    fleets
        One row per system type: its models, nodes, racks shared and apart, a rack's day, and the fleet's day
        (direct, shared, total; and the models apart).
    fleet_models
        Each model's :class:`ModelFleet`, in the order of ``models``.
    warnings
        The document's systems no model names (they are not evaluated), then each model's evaluation warnings,
        prefixed with its name.
    """

    name: str
    placement: str
    rule: str
    models: pd.DataFrame
    fleets: pd.DataFrame
    fleet_models: tuple[ModelFleet, ...]
    warnings: list[str]


def rack_day(ev: Evaluation, outcome: SystemOutcome) -> tuple[float, float]:
    """One empty rack's cost and facility energy over the day of a scenario's demand points [USD, kWh].

    The costs of :func:`rackcost.model.fleets.fleet.fleet_costs` for a fleet of no replicas and one rack (rack
    capex with networking and installation, its capital and maintenance, operations per rack, colocation and build
    on the overhead's rated power) and the energy of the rack's overhead power at every demand point, summed over
    the points' hours as :func:`rackcost.model.costs.metrics.derive` sums a day.
    """
    inp = outcome.inputs
    index = [s.name for s in ev.scenario.systems].index(inp.name)
    sampled = sampled_inputs(ev.scenario, index, inp, {}, 1)
    hours = ev.chosen.hours_per_day
    overhead_w = np.asarray(sampled.rack_overhead_w, float) * np.ones((1, hours.size))
    facility_kw = power.facility_power_kw(overhead_w, sampled.pue)
    one = np.ones((1, 1), dtype=np.int64)
    rated_kw = power.provisioned_it_power_w(0, 0, one, 0.0, 0.0, sampled.rack_overhead_w) / W_PER_KW
    packing = Packing(outcome.fleet.nodes_per_rack_effective, 0 * one, one, rated_kw)
    _, capital, fixed, energy = fleet_costs(inp, sampled, 0 * one, packing, facility_kw)
    per_hour = capital + fixed + energy
    return float(np.sum(per_hour[0] * hours)), float(np.sum(facility_kw[0] * hours))


def _cheapest(doc: ModelsDocument, model: ModelScenario) -> ModelFleet:
    try:
        ev = evaluation(model.scenario)
        outcomes = ev.outcomes
    except ScenarioError as exc:  # none of its systems can serve it: each reason at the document's path
        raise ScenarioError(
            [replace(p, path=path_in_document(doc, model, p.path), line=None) for p in exc.problems]
        ) from None
    if not outcomes:
        where = f"workloads[{model.index}].systems"
        raise ScenarioError([Problem(where, "no system of this model can serve it", model.scenario.origin_file)])
    for o in outcomes:
        if o.inputs.payment is not Payment.own or o.inputs.pools is not None:
            where = f"workloads[{model.index}].systems"
            message = f"{o.inputs.name}: only owned, aggregated systems share racks (no rent, API or pools)"
            raise ScenarioError([Problem(where, message, model.scenario.origin_file)])
    best = min(outcomes, key=_usd_per_accepted_request)
    position = [s.name for s in model.scenario.systems].index(best.inputs.name)
    usd, kwh = rack_day(ev, best)
    return ModelFleet(model.name, best.inputs.name, model.system_indices[position], ev, best, usd, kwh)


def _usd_per_accepted_request(o: SystemOutcome) -> float:
    """A system's cost per accepted request over the model's day; infinite where it accepts none [USD]."""
    accepted = float(o.metrics.accepted_requests_per_day[0])
    return float(o.metrics.usd_per_day[0]) / accepted if accepted > 0 else math.inf


def _weights(group: list[ModelFleet], rule: AttributionRule) -> list[float]:
    if rule == "reservation":
        return [float(m.nodes) for m in group]
    return [max(m.node_kwh_per_day, 0.0) for m in group]


def evaluate_models(
    document: str | os.PathLike[str] | Models, rule: AttributionRule | None = None, placement: str | None = None
) -> ModelsResult:
    """Evaluate several models on one fleet: each model's accepted requests and cost per accepted request, the
    shared racks' cost attributed by a named rule.

    Parameters
    ----------
    document
        A models document's path (or a bundled one's name), or what
        :func:`rackcost.scenario.models_doc.load_models` returns.
    rule
        ``reservation`` (by node slots held) or ``usage`` (by the energy of the model's nodes); default the
        document's ``attribution`` (itself ``reservation`` by default).
    placement
        ``shared`` or ``separate``; default the document's ``placement``.

    Returns
    -------
    ModelsResult
        ``models`` and ``fleets`` tables; the models' attributed days add up to the fleets' total.

    Raises
    ------
    ScenarioError
        A bad document (each problem at its YAML path), or a model no system of which can serve it.
    """
    described = "a models document's path or rackcost.load_models(path)"
    check_argument("rackcost.evaluate_models", "document", document, (str, os.PathLike, tuple), described)
    doc, models = document if isinstance(document, tuple) else load_models(document)
    chosen_rule: AttributionRule = rule or doc.attribution
    where = placement or doc.placement
    if chosen_rule not in ATTRIBUTION_RULES or where not in ("shared", "separate"):
        raise ValueError(
            f"rackcost.evaluate_models: rule must be one of {ATTRIBUTION_RULES} (got {chosen_rule!r}) and placement "
            f"shared or separate (got {where!r})"
        )
    fleets = [_cheapest(doc, m) for m in models]
    model_rows: list[dict[str, Any]] = [{} for _ in fleets]
    fleet_rows: list[dict[str, Any]] = []
    for k in sorted({m.shared_index for m in fleets}):
        members = [i for i, m in enumerate(fleets) if m.shared_index == k]
        group = [fleets[i] for i in members]
        apart = int(sum(m.racks for m in group))
        racks = int(shared_racks([m.nodes for m in group], group[0].nodes_per_rack_effective))
        racks = racks if where == "shared" else apart
        rack_usd = group[0].rack_usd_per_day
        if where == "shared":
            shared_usd = racks * rack_usd
            total = attributed_usd([m.direct_usd_per_day for m in group], shared_usd, _weights(group, chosen_rule))
        else:  # each model on racks of its own: its own racks are its shared cost
            shared_usd = float(sum(m.racks * m.rack_usd_per_day for m in group))
            total = np.array([m.usd_per_day for m in group])
        for i, m, attributed in zip(members, group, total, strict=True):
            model_rows[i] = _model_row(m, float(attributed))
        fleet_rows.append(
            {
                "system": doc.systems[k].name,
                "models": ", ".join(m.name for m in group),
                "nodes": int(sum(m.nodes for m in group)),
                "nodes_per_rack_effective": group[0].nodes_per_rack_effective,
                "racks": racks,
                "racks_apart": apart,
                "rack_usd_per_day": rack_usd,
                "direct_usd_per_day": float(sum(m.direct_usd_per_day for m in group)),
                "shared_usd_per_day": shared_usd,
                "usd_per_day": float(np.sum(total)),
                "usd_per_day_apart": float(sum(m.usd_per_day for m in group)),
            }
        )
    warnings = unnamed_systems(doc, models) + [f"{m.name}: {w}" for m in fleets for w in m.evaluation.result.warnings]
    return ModelsResult(
        doc.name, where, chosen_rule, pd.DataFrame(model_rows), pd.DataFrame(fleet_rows), tuple(fleets), warnings
    )


def _model_row(m: ModelFleet, attributed: float) -> dict[str, Any]:
    accepted, offered = m.accepted_requests_per_day, m.offered_requests_per_day
    f = m.outcome.fleet
    return {
        "model": m.name,
        "system": m.system,
        "provisioned_replicas": int(f.provisioned_replicas[0, 0]),
        "accelerators": int(f.provisioned_replicas[0, 0]) * m.outcome.inputs.accelerators_per_replica,
        "nodes": m.nodes,
        "racks_alone": m.racks,
        "offered_requests_per_day": offered,
        "accepted_requests_per_day": accepted,
        "accepted_fraction": accepted / offered if offered > 0 else 1.0,
        "usd_per_day_alone": m.usd_per_day,
        "direct_usd_per_day": m.direct_usd_per_day,
        "shared_usd_per_day": attributed - m.direct_usd_per_day,
        "usd_per_day": attributed,
        "blended_usd_per_accepted_request": attributed / accepted if accepted > 0 else None,
        "blended_usd_per_accepted_request_alone": m.usd_per_day / accepted if accepted > 0 else None,
        "node_energy_kwh_per_day": m.node_kwh_per_day,
        # carbon of the model's fleet on racks of its own (its nodes' and its racks' energy x the grid's intensity)
        "carbon_kg_per_day_alone": float(m.outcome.metrics.carbon_kg_per_day[0]),
        "blended_carbon_g_per_accepted_request_alone": float(m.outcome.metrics.blended_carbon_g_per_accepted_request[0])
        if accepted > 0
        else None,
    }
