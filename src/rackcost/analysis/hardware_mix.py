"""The cheapest mix of a scenario's systems for its workload: each request class routed to the system that serves
it cheapest, beside each system alone (docs/model.md, "A mix of hardware").

The question of Mélange (T. Griggs et al., "Mélange: Cost Efficient Large Language Model Serving by Exploiting GPU
Heterogeneity", arXiv 2404.14527, 2024): which combination
of hardware types serves a workload of several request shapes within its SLO at the least cost.

Each system that takes part serves the classes assigned to it with a fleet of its own, sized for their arrivals at
the SLO. So for every system and every subset of the classes, the scenario cut down to that system and those classes
(:func:`rackcost.scenario.class_edits.subset_classes`: their share of every demand point's rate, their shares
renormalised) is evaluated by the one evaluation, :func:`rackcost.evaluate`, for its fleet's day cost and accepted
requests. A system that cannot serve a class alone (no operating point meets its SLO, its cache does not fit) is
left out of every subset with that class. The cheapest assignment over those cells is found exactly
(:func:`rackcost.model.fleets.assignment.cheapest_assignment`); the systems alone are among the assignments, so the
mix is never dearer than the best of them.

A class goes whole to one system: the load of one class is not split between systems (a workload that should be
split gives finer classes, as Mélange's request-size buckets). A workload without classes is one class, so its mix
is the best system alone. A demand profile is priced on its named points (its day).
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from rackcost.errors import ScenarioError, check_argument
from rackcost.evaluation.chain import evaluate
from rackcost.model.fleets.assignment import cheapest_assignment
from rackcost.scenario.class_edits import subset_classes
from rackcost.scenario.edits import subset_systems
from rackcost.scenario.horizon_edits import without_profile
from rackcost.scenario.loading import problem_at, scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario

__all__ = ["MAX_MIX_CLASSES", "ClassOnSystem", "HardwareMix", "MixFleet", "SystemAlone", "hardware_mix"]

MAX_MIX_CLASSES = 8
"""Most request classes the mix searches over: it evaluates each system on each of the ``2^K - 1`` subsets [-]."""
WHOLE = "(whole workload)"
"""The name of the one class of a workload without classes."""


@dataclass(frozen=True)
class MixFleet:
    """One system's fleet in the mix: the classes it serves and what it costs.

    Attributes
    ----------
    system, classes
        The system and the classes routed to it.
    usd_per_day, accepted_requests_per_day
        Its fleet's cost and accepted requests over the day [USD/day, requests/day].
    usd_per_accepted_request
        The two divided [USD].
    provisioned_replicas, racks
        The fleet's size [-].
    """

    system: str
    classes: tuple[str, ...]
    usd_per_day: float
    accepted_requests_per_day: float
    usd_per_accepted_request: float
    provisioned_replicas: int
    racks: int


@dataclass(frozen=True)
class SystemAlone:
    """One system serving the whole workload alone, or why it cannot.

    Attributes
    ----------
    system
        Its name.
    usd_per_day, accepted_requests_per_day, usd_per_accepted_request
        Its fleet's figures, None when it cannot serve every class [USD/day, requests/day, USD].
    cannot_serve
        The classes it cannot serve alone, with why (empty when it serves them all).
    """

    system: str
    usd_per_day: float | None
    accepted_requests_per_day: float | None
    usd_per_accepted_request: float | None
    cannot_serve: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ClassOnSystem:
    """One class served alone by one system: what its own fleet would cost per accepted request, or why not.

    Attributes
    ----------
    request_class, system
        The class and the system.
    usd_per_accepted_request
        The fleet's cost per accepted request, None when the system cannot serve the class [USD].
    reason
        Why not, or None.
    """

    request_class: str
    system: str
    usd_per_accepted_request: float | None
    reason: str | None = None


@dataclass(frozen=True)
class HardwareMix:
    """The cheapest mix of systems for a scenario's workload (:func:`hardware_mix`).

    Attributes
    ----------
    scenario_name
        The scenario's name.
    classes
        The workload's classes (one, :data:`WHOLE`, without classes) and their shares of the arrivals [-].
    assignment
        Class -> the system serving it in the mix.
    fleets
        Each system's fleet in the mix (systems serving no class left out).
    usd_per_day, accepted_requests_per_day, usd_per_accepted_request
        The mix's totals, and its cost per accepted request = total cost / total accepted [USD/day, requests/day,
        USD].
    alone
        Each system serving everything alone.
    class_costs
        Each class on each system, its own fleet alone.
    best_single
        The system alone of least cost per accepted request, None when no system serves every class alone.
    saving_fraction
        1 - the mix's cost per accepted request / the best single system's; None without a best single [-].
    evaluations
        Scenario evaluations the search ran [-].
    notes
        What the reader must know (a profile priced on its day, one system, no classes).
    """

    scenario_name: str
    classes: dict[str, float]
    assignment: dict[str, str]
    fleets: tuple[MixFleet, ...]
    usd_per_day: float
    accepted_requests_per_day: float
    usd_per_accepted_request: float
    alone: tuple[SystemAlone, ...]
    class_costs: tuple[ClassOnSystem, ...]
    best_single: str | None
    saving_fraction: float | None
    evaluations: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return asdict(self)


@dataclass
class _Cells:
    """The (system, class subset) cells: cost, accepted requests, the fleet's row, and why a cell is infeasible."""

    cost: np.ndarray
    accepted: np.ndarray
    rows: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    reasons: dict[tuple[int, int], str] = field(default_factory=dict)
    evaluations: int = 0


def hardware_mix(scenario: Scenario) -> HardwareMix:
    """The cheapest combination of the scenario's systems that serves its workload within the SLO, each request
    class routed to one system, beside each system alone (see the module).

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`).

    Returns
    -------
    HardwareMix
        The assignment, each fleet, the mix's cost per accepted request, and each system alone.

    Raises
    ------
    ScenarioError
        When the fleet is given by count (``fleet.replicas``: the mix sizes each fleet), the workload has more than
        :data:`MAX_MIX_CLASSES` classes, or no assignment serves every class (each system's reasons).
    """
    check_argument("rackcost.hardware_mix", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    _check_mixable(scenario)
    base, notes = _base_data(scenario)
    names = [s.name for s in scenario.systems]
    classes = _classes(scenario)
    cells = _evaluate_cells(scenario, base, names, list(classes))
    found = cheapest_assignment(cells.cost, cells.accepted)
    full = (1 << len(classes)) - 1
    if found is None:
        reasons = [cells.reasons.get((s, full), "serves no class") for s in range(len(names))]
        raise ScenarioError(
            [
                problem_at(scenario, ("systems", s), f"systems[{s}]", f"the mix cannot use {names[s]}: {why}")
                for s, why in enumerate(reasons)
            ]
        )
    alone = tuple(_alone(cells, s, name, list(classes)) for s, name in enumerate(names))
    priced = [a for a in alone if a.usd_per_accepted_request is not None]
    best = min(priced, key=lambda a: a.usd_per_accepted_request or 0.0) if priced else None
    mix_usd = found.usd_per_accepted
    if len(names) == 1:
        notes.append("the scenario has one system: the mix is that system alone")
    if scenario.workload.classes is None:
        notes.append("the workload has no request classes: one class, so the mix is the best system alone")
    return HardwareMix(
        scenario_name=scenario.name,
        classes=classes,
        assignment={c: names[found.system_of_class[k]] for k, c in enumerate(classes)},
        fleets=tuple(
            _fleet(cells, s, names[s], list(classes), found.subset_of(s))
            for s in sorted(set(found.system_of_class))
            if found.subset_of(s)
        ),
        usd_per_day=found.usd_per_day,
        accepted_requests_per_day=found.accepted_per_day,
        usd_per_accepted_request=mix_usd,
        alone=alone,
        class_costs=_class_costs(cells, names, list(classes)),
        best_single=None if best is None else best.system,
        saving_fraction=None if best is None else 1.0 - mix_usd / (best.usd_per_accepted_request or math.inf),
        evaluations=cells.evaluations,
        notes=tuple(notes),
    )


def _check_mixable(scenario: Scenario) -> None:
    """The scenario's own reasons the mix cannot be searched, as problems at their YAML paths."""
    problems = []
    if scenario.fleet.replicas is not None:
        problems.append(
            problem_at(
                scenario,
                ("fleet", "replicas"),
                "fleet.replicas",
                "the hardware mix sizes each system's fleet for the classes routed to it: remove fleet.replicas",
            )
        )
    count = len(scenario.workload.classes or ())
    if count > MAX_MIX_CLASSES:
        problems.append(
            problem_at(
                scenario,
                ("workload", "classes"),
                "workload.classes",
                f"the hardware mix searches at most {MAX_MIX_CLASSES} classes (it evaluates each system on every "
                f"subset of them), got {count}: merge some",
            )
        )
    if problems:
        raise ScenarioError(problems)


def _base_data(scenario: Scenario) -> tuple[dict[str, Any], list[str]]:
    """The scenario's data the cells are cut from: its day's points at their central rates, no plan, no profile."""
    notes = []
    data = scenario_to_data(scenario)
    if scenario.demand_profile is not None:
        data = without_profile(data)
        notes.append("the demand is a profile: the mix is priced on its named points (one day)")
    if data.pop("plan", None) is not None:  # its sources name systems a cell leaves out; the mix does not plan
        data["figures"] = {k: v for k, v in data.get("figures", {}).items() if not k.startswith("plan")}
    for point, given in zip(data["demand"], scenario.demand, strict=True):
        point["arrival_rps"] = float(given.arrival_rps)  # a distribution's central value: the mix is deterministic
    return data, notes


def _classes(scenario: Scenario) -> dict[str, float]:
    """Each class's name and share of the arrivals; one whole class without classes."""
    if scenario.workload.classes is None:
        return {WHOLE: 1.0}
    return {c.name: float(c.share_fraction) for c in scenario.workload.classes}


def _cell_scenario(
    scenario: Scenario, base: dict[str, Any], system: str, kept: tuple[str, ...], whole: bool
) -> Scenario:
    """The scenario of one cell: one system, the kept classes (all of them: ``whole``)."""
    data = subset_systems(copy.deepcopy(base), (system,))
    if not whole:
        w = scenario.workload
        data = subset_classes(data, kept, (w.input_tokens_per_request, w.output_tokens_per_request))
    return scenario_from_dict(data, scenario.origin_file)


def _evaluate_cells(scenario: Scenario, base: dict[str, Any], names: list[str], classes: list[str]) -> _Cells:
    """Every (system, class subset) cell, singletons first: a system that cannot serve a class alone is not
    evaluated on any subset with it."""
    k = len(classes)
    shares = _classes(scenario)
    cells = _Cells(np.full((len(names), 1 << k), math.inf), np.zeros((len(names), 1 << k)))
    for s, name in enumerate(names):
        refused = 0
        for mask in sorted(range(1, 1 << k), key=lambda m: (m.bit_count(), m)):
            kept = tuple(c for i, c in enumerate(classes) if mask >> i & 1)
            if mask & refused:
                cells.reasons[(s, mask)] = "cannot serve " + ", ".join(
                    c for i, c in enumerate(classes) if (mask & refused) >> i & 1
                )
                continue
            if math.fsum(shares[c] for c in kept) <= 0.0:  # classes without arrivals: no fleet, nothing to pay
                cells.cost[s, mask] = 0.0
                continue
            _evaluate_cell(cells, (s, mask), _cell_scenario(scenario, base, name, kept, mask == (1 << k) - 1))
            if mask.bit_count() == 1 and (s, mask) in cells.reasons:
                refused |= mask
    return cells


def _evaluate_cell(cells: _Cells, at: tuple[int, int], scenario: Scenario) -> None:
    """One cell's figures from the one evaluation of its scenario, or why it cannot be served."""
    cells.evaluations += 1
    try:
        result = evaluate(scenario)
    except ScenarioError as exc:
        cells.reasons[at] = "; ".join(p.message for p in exc.problems)
        return
    if result.unserved:
        cells.reasons[at] = "; ".join(str(u.get("reason", u)) for u in result.unserved)
        return
    row = result.records["systems"][0]
    cells.cost[at] = float(row["usd_per_day"])
    cells.accepted[at] = float(row["accepted_requests_per_day"])
    cells.rows[at] = row


def _fleet(cells: _Cells, s: int, name: str, classes: list[str], mask: int) -> MixFleet:
    """The mix's fleet of system ``s`` serving the classes of ``mask``."""
    row = cells.rows.get((s, mask), {})
    usd, accepted = float(cells.cost[s, mask]), float(cells.accepted[s, mask])
    return MixFleet(
        system=name,
        classes=tuple(c for i, c in enumerate(classes) if mask >> i & 1),
        usd_per_day=usd,
        accepted_requests_per_day=accepted,
        usd_per_accepted_request=usd / accepted if accepted > 0 else 0.0,
        provisioned_replicas=int(row.get("provisioned_replicas", 0)),
        racks=int(row.get("racks", 0)),
    )


def _alone(cells: _Cells, s: int, name: str, classes: list[str]) -> SystemAlone:
    """System ``s`` serving every class alone."""
    full = (1 << len(classes)) - 1
    cannot = {c: cells.reasons[(s, 1 << i)] for i, c in enumerate(classes) if (s, 1 << i) in cells.reasons}
    if (s, full) in cells.reasons or cells.accepted[s, full] <= 0:
        if not cannot:
            cannot = {c: cells.reasons.get((s, full), "accepts nothing") for c in classes}
        return SystemAlone(name, None, None, None, cannot)
    usd, accepted = float(cells.cost[s, full]), float(cells.accepted[s, full])
    return SystemAlone(name, usd, accepted, usd / accepted)


def _class_costs(cells: _Cells, names: list[str], classes: list[str]) -> tuple[ClassOnSystem, ...]:
    """Each class on each system, alone."""
    out = []
    for i, c in enumerate(classes):
        for s, name in enumerate(names):
            at = (s, 1 << i)
            accepted = float(cells.accepted[at])
            if at in cells.reasons or accepted <= 0:
                out.append(ClassOnSystem(c, name, None, cells.reasons.get(at, "no arrivals")))
            else:
                out.append(ClassOnSystem(c, name, float(cells.cost[at]) / accepted))
    return tuple(out)
