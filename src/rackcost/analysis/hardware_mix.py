"""The cheapest mix of a scenario's systems for its workload: each request class routed to the system that serves
it cheapest, beside each system alone (docs/model.md, "A mix of hardware").

The question of Mélange (T. Griggs et al., "Mélange: Cost Efficient Large Language Model Serving by Exploiting GPU
Heterogeneity", arXiv 2404.14527, 2024): which combination of hardware types serves a workload of several request
shapes within its SLO at the least cost.

Each system that takes part serves the classes assigned to it with a fleet of its own, sized for their arrivals at
the SLO. So for every system and every subset of the classes (a *cell*), the scenario cut down to that system and
those classes (:func:`rackcost.scenario.class_edits.subset_classes`: their share of every demand point's rate,
their shares renormalised) is evaluated by the one evaluation, :func:`rackcost.evaluate`, for its fleet's day cost
and accepted requests. A system that cannot serve a class alone (no operating point meets its SLO, its cache does
not fit) is left out of every cell with that class. The cheapest assignment over those cells is found exactly
(:func:`rackcost.model.fleets.assignment.cheapest_assignment`); the systems alone are among the assignments, so the
mix is never dearer than the best of them.

By default a class goes whole to one system. With ``slices=n`` each class's load is cut into ``n`` equal slices that
may go to different systems (a cell is then how many slices of each class a system serves): the load of one class,
or of a workload without classes, split between systems on a grid of ``1/n``. A demand profile is priced on its named
points (its day).
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from rackcost.errors import Problem, ScenarioError, check_argument, problems_in_its_file
from rackcost.evaluation.chain import evaluate
from rackcost.model.fleets.assignment import cell_counts, cheapest_assignment
from rackcost.scenario.class_edits import scaled_demand, subset_classes
from rackcost.scenario.edits import subset_systems
from rackcost.scenario.horizon_edits import without_profile
from rackcost.scenario.loading import problem_at, scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario

__all__ = [
    "MAX_MIX_CELLS",
    "NO_CLASSES_NOTE",
    "ClassOnSystem",
    "HardwareMix",
    "MixFleet",
    "SystemAlone",
    "hardware_mix",
]

MAX_MIX_CELLS = 256
"""Most cells per system the mix evaluates, ``(slices + 1)^K``: 8 whole classes, one class in 255 slices [-]."""
WHOLE = "(whole workload)"
"""The name of the one class of a workload without classes."""
NO_CLASSES_NOTE = (
    "the workload has no request classes: one class, so the mix is the best system alone (slices split its load)"
)
"""The mix's note on a workload without classes searched whole (``HardwareMix.notes``); a face that has said so
already, with where to add classes, leaves it out (the dashboard's Hardware mix page)."""


@dataclass(frozen=True)
class MixFleet:
    """One system's fleet in the mix: the classes it serves and what it costs.

    Attributes
    ----------
    system
        The system.
    classes
        Each class routed to it -> the fraction of that class's load it serves (1: all of it) [-].
    usd_per_day, accepted_requests_per_day
        Its fleet's cost and accepted requests over the day [USD/day, requests/day].
    usd_per_accepted_request
        The two divided [USD].
    provisioned_replicas, racks
        The fleet's size [-].
    """

    system: str
    classes: dict[str, float]
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
    slices
        Slices of each class's load the search could route apart (1: each class whole) [-].
    assignment
        Class -> each system serving it in the mix -> the fraction of the class's load it serves [-].
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
    slices: int
    assignment: dict[str, dict[str, float]]
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
    """The (system, cell) pairs: cost, accepted requests, the fleet's row, and why a pair is infeasible."""

    counts: np.ndarray
    slices: int
    cost: np.ndarray
    accepted: np.ndarray
    rows: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    reasons: dict[tuple[int, int], str] = field(default_factory=dict)
    evaluations: int = 0

    def whole(self, k: int) -> int:
        """The cell of class ``k``'s whole load alone."""
        return self.slices * (self.slices + 1) ** k

    @property
    def full(self) -> int:
        """The cell of every class's whole load."""
        return self.counts.shape[0] - 1

    def fractions(self, cell: int, classes: list[str]) -> dict[str, float]:
        """Each class of a cell -> the fraction of its load [-]."""
        return {c: int(v) / self.slices for c, v in zip(classes, self.counts[cell], strict=True) if v}


@problems_in_its_file
def hardware_mix(scenario: Scenario, slices: int = 1) -> HardwareMix:
    """The cheapest combination of the scenario's systems that serves its workload within the SLO, each request
    class routed to one system, beside each system alone (see the module).

    Parameters
    ----------
    scenario
        A validated scenario (:func:`rackcost.load_scenario`).
    slices
        Cut each class's load into this many equal slices, each routed on its own (1: each class whole; a workload
        without classes is then the best system alone). Each system is evaluated on ``(slices + 1)^K - 1`` cells,
        at most :data:`MAX_MIX_CELLS`.

    Returns
    -------
    HardwareMix
        The assignment, each fleet, the mix's cost per accepted request, and each system alone.

    Raises
    ------
    ScenarioError
        When the fleet is given by count (``fleet.replicas``: the mix sizes each fleet), there are more cells than
        :data:`MAX_MIX_CELLS`, or no assignment serves every class (each system's reasons).
    ValueError
        When ``slices`` is not a whole number from 1.
    """
    check_argument("rackcost.hardware_mix", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    if isinstance(slices, bool) or not isinstance(slices, int) or slices < 1:
        raise ValueError(f"rackcost.hardware_mix: slices must be a whole number from 1, got {slices!r}")
    _check_mixable(scenario, slices)
    base, notes = _base_data(scenario)
    names = [s.name for s in scenario.systems]
    classes = {c: share for c, share in _classes(scenario).items() if share > 0.0}
    idle = [c for c in _classes(scenario) if c not in classes]
    if idle:
        notes.append(f"no arrivals (share_fraction 0), left out of the mix: {', '.join(idle)}")
    cells = _evaluate_cells(scenario, base, names, classes, slices)
    found = cheapest_assignment(cells.cost, cells.accepted, slices)
    order = list(classes)
    alone = tuple(_alone(cells, s, name, order) for s, name in enumerate(names))
    if found is None:
        raise ScenarioError(_unserved_problems(scenario, alone, order))
    priced = [a for a in alone if a.usd_per_accepted_request is not None]
    best = min(priced, key=lambda a: a.usd_per_accepted_request or 0.0) if priced else None
    mix_usd = found.usd_per_accepted
    if len(names) == 1:
        notes.append("the scenario has one system: the mix is that system alone")
    if scenario.workload.classes is None and slices == 1:
        notes.append(NO_CLASSES_NOTE)
    fleets = tuple(_fleet(cells, s, names[s], order, cell) for s, cell in enumerate(found.cells) if cell)
    return HardwareMix(
        scenario_name=scenario.name,
        classes=classes,
        slices=slices,
        assignment={c: {f.system: f.classes[c] for f in fleets if c in f.classes} for c in order},
        fleets=fleets,
        usd_per_day=found.usd_per_day,
        accepted_requests_per_day=found.accepted_per_day,
        usd_per_accepted_request=mix_usd,
        alone=alone,
        class_costs=_class_costs(cells, names, order),
        best_single=None if best is None else best.system,
        saving_fraction=None if best is None else 1.0 - mix_usd / (best.usd_per_accepted_request or math.inf),
        evaluations=cells.evaluations,
        notes=tuple(notes),
    )


def _unserved_problems(scenario: Scenario, alone: tuple[SystemAlone, ...], classes: list[str]) -> list[Problem]:
    """Why no mix serves the workload: each class no system can serve, with every system's reason."""
    problems = []
    index = {c.name: k for k, c in enumerate(scenario.workload.classes or ())}
    for c in classes:
        k = index.get(c, 0)
        if all(c in a.cannot_serve for a in alone):
            why = "; ".join(f"{a.system}: {a.cannot_serve[c]}" for a in alone)
            loc: tuple[str | int, ...] = ("workload", "classes", k) if c != WHOLE else ("systems",)
            path = f"workload.classes[{k}]" if c != WHOLE else "systems"
            problems.append(problem_at(scenario, loc, path, f"no system can serve class {c!r} within the SLO: {why}"))
    if not problems:  # every class has a system, but no whole assignment accepts a request
        problems.append(problem_at(scenario, ("systems",), "systems", "no mix of the systems accepts a request"))
    return problems


def _check_mixable(scenario: Scenario, slices: int) -> None:
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
    count = len(scenario.workload.classes or (None,))
    if (slices + 1) ** count > MAX_MIX_CELLS:
        where = ("workload", "classes") if scenario.workload.classes is not None else ("workload",)
        problems.append(
            problem_at(
                scenario,
                where,
                ".".join(where),
                f"the hardware mix evaluates each system on (slices + 1)^classes = {slices + 1}^{count} cells, at "
                f"most {MAX_MIX_CELLS}: merge classes or use fewer slices",
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


def _cell_scenario(scenario: Scenario, base: dict[str, Any], system: str, kept: dict[str, float]) -> Scenario:
    """The scenario of one cell: one system, each kept class's fraction of its load (the whole scenario's when every
    class is kept whole)."""
    data = subset_systems(copy.deepcopy(base), (system,))
    if scenario.workload.classes is None:
        if kept[WHOLE] < 1.0:
            scaled_demand(data, kept[WHOLE])
    elif len(kept) < len(scenario.workload.classes) or any(f < 1.0 for f in kept.values()):
        w = scenario.workload
        data = subset_classes(data, kept, (w.input_tokens_per_request, w.output_tokens_per_request))
    return scenario_from_dict(data, scenario.origin_file)


def _evaluate_cells(
    scenario: Scenario, base: dict[str, Any], names: list[str], classes: dict[str, float], slices: int
) -> _Cells:
    """Every (system, cell) pair, the smallest cells first: a system that cannot serve one slice of a class alone
    is not evaluated on any cell with that class."""
    order = list(classes)
    counts = cell_counts(len(order), slices)
    shape = (len(names), counts.shape[0])
    cells = _Cells(counts, slices, np.full(shape, math.inf), np.zeros(shape))
    for s, name in enumerate(names):
        refused = np.zeros(len(order), dtype=bool)
        for cell in sorted(range(1, counts.shape[0]), key=lambda m: (int(counts[m].sum()), m)):
            holds = counts[cell] > 0
            if (holds & refused).any():
                cells.reasons[(s, cell)] = "cannot serve " + ", ".join(np.array(order)[holds & refused])
                continue
            kept = cells.fractions(cell, order)
            _evaluate_cell(cells, (s, cell), _cell_scenario(scenario, base, name, kept))
            if counts[cell].sum() == 1 and (s, cell) in cells.reasons:
                refused |= holds
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


def _fleet(cells: _Cells, s: int, name: str, classes: list[str], cell: int) -> MixFleet:
    """The mix's fleet of system ``s`` serving ``cell``."""
    row = cells.rows.get((s, cell), {})
    usd, accepted = float(cells.cost[s, cell]), float(cells.accepted[s, cell])
    return MixFleet(
        system=name,
        classes=cells.fractions(cell, classes),
        usd_per_day=usd,
        accepted_requests_per_day=accepted,
        usd_per_accepted_request=usd / accepted if accepted > 0 else 0.0,
        provisioned_replicas=int(row.get("provisioned_replicas", 0)),
        racks=int(row.get("racks", 0)),
    )


def _alone(cells: _Cells, s: int, name: str, classes: list[str]) -> SystemAlone:
    """System ``s`` serving every class alone."""
    one_slice = [(s, (cells.slices + 1) ** k) for k in range(len(classes))]
    cannot = {c: cells.reasons[at] for c, at in zip(classes, one_slice, strict=True) if at in cells.reasons}
    full = cells.full
    if (s, full) in cells.reasons or cells.accepted[s, full] <= 0:
        if not cannot:
            cannot = {c: cells.reasons.get((s, full), "accepts nothing") for c in classes}
        return SystemAlone(name, None, None, None, cannot)
    usd, accepted = float(cells.cost[s, full]), float(cells.accepted[s, full])
    return SystemAlone(name, usd, accepted, usd / accepted)


def _class_costs(cells: _Cells, names: list[str], classes: list[str]) -> tuple[ClassOnSystem, ...]:
    """Each class's whole load on each system, alone."""
    out = []
    for k, c in enumerate(classes):
        for s, name in enumerate(names):
            at = (s, cells.whole(k))
            accepted = float(cells.accepted[at])
            if at in cells.reasons or accepted <= 0:
                out.append(ClassOnSystem(c, name, None, cells.reasons.get(at, "no arrivals")))
            else:
                out.append(ClassOnSystem(c, name, float(cells.cost[at]) / accepted))
    return tuple(out)
