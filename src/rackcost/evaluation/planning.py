"""The cheapest buying plan of a scenario over its horizon (``rackcost plan``, ``rackcost.plan``).

The steps, each in its own module:

1. the horizon's hourly demand (:mod:`rackcost.model.workload.profile`, from ``demand`` as a profile);
2. each source's linear figures from the full model (:mod:`rackcost.evaluation.plan_sources`);
3. the demand in blocks per quarter and the mixed-integer program (:mod:`rackcost.model.buying.plan`, HiGHS);
4. **the figures checked at the plan's own sizes**: a source's capacity per unit is that of a reference fleet, and
   a smaller fleet pools less, so where the plan holds a size whose exact capacity at SLO is below what the plan
   asks of it, that source's figure is lowered to the size's and the program solved again (at most
   :data:`MAX_ROUNDS` rounds; the capacity only falls, so it ends);
5. the plan realised hour by hour with the full model (:func:`realise`): each hour's demand in merit order over the
   units held, each source's fleet evaluated at its load (accepted share, cost with the real power curve), so the
   reported cost and accepted requests are the model's, not the program's linear ones;
6. the same for the best single source, and the saving against it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from rackcost.errors import Problem, ScenarioError, check_argument
from rackcost.evaluation.horizon import hourly_figures
from rackcost.evaluation.plan_sources import SourceFigures, source_figures
from rackcost.model.buying import plan as milp
from rackcost.model.buying.source_kinds import Holding
from rackcost.model.workload.profile import quarter_index
from rackcost.scenario.hardware_blocks import finance_term
from rackcost.scenario.schema import Scenario

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation

__all__ = ["MAX_ROUNDS", "PlanResult", "plan", "plan_of", "plan_scenario", "realise"]

MAX_ROUNDS = 6
"""Most solves while the sources' capacities are checked at the plan's sizes (step 4)."""

LOOSE_GAP = 0.01
"""The solver's gap in the rounds of step 4 that only find the plan's sizes, before the last at the gap asked."""

MIN_SOLVE_S = 1e-3
"""A solve is not started with less than this left of the plan's time budget [s]."""

HOURS_PER_QUARTER = 2190
Array = NDArray[np.float64]


@dataclass(frozen=True)
class Realised:
    """A plan hour by hour with the full model (:func:`realise`).

    Attributes
    ----------
    units
        (S, H) units held per source and hour (API: requests/s of rate it carries) [units].
    served_rps, accepted_rps
        (S, H) requests/s each source carries and accepts within the SLO [requests/s].
    cost_usd
        (S, H) each source's cost in each hour, as paid [USD].
    unserved_rps
        (H,) demand no source carried (0 for a feasible plan) [requests/s].
    """

    units: Array
    served_rps: Array
    accepted_rps: Array
    cost_usd: Array
    unserved_rps: Array


@dataclass(frozen=True)
class PlanResult:
    """The cheapest plan, realised, beside the best single source (:func:`plan_scenario`).

    Attributes
    ----------
    scenario
        The scenario's name.
    sources
        Each source's figures (:class:`rackcost.evaluation.plan_sources.SourceFigures`).
    solution, single
        The program's plan and the best single source's (None when no source covers the demand alone).
    best_single_source
        Name of the cheapest source that covers the demand alone, or None.
    hourly_rps
        The horizon's demand per hour [requests/s].
    realised, single_realised
        The plan and the best single source's plan hour by hour.
    discount_factor
        Present value of a USD spent in each quarter [-].
    discount_fraction_per_year
        The discount rate [1/year].
    rounds
        Solves while capacities were checked (step 4) [-].
    from_single_source
        The source whose plan alone is the reported plan, when the program's mix realised dearer than it (or found
        none in the time budget); None when the mix is reported.
    unsolved_sources
        Sources that could cover the demand alone but whose plan was not found within the time budget.
    periods, years
        The plan per quarter and per year (:meth:`to_json` gives the same).
    """

    scenario: str
    sources: list[SourceFigures]
    solution: milp.PlanSolution
    single: milp.PlanSolution | None
    best_single_source: str | None
    hourly_rps: Array
    realised: Realised
    single_realised: Realised | None
    discount_factor: Array
    discount_fraction_per_year: float
    rounds: int
    periods: pd.DataFrame = field(repr=False)
    years: pd.DataFrame = field(repr=False)
    from_single_source: str | None = None
    unsolved_sources: tuple[str, ...] = ()

    @property
    def total_cost_usd(self) -> float:
        """Present value of the plan's cost over the horizon, hour by hour with the full model [USD]."""
        return _present(self.realised, self.discount_factor)

    @property
    def best_single_source_cost_usd(self) -> float | None:
        """Present value of the best single source's plan, the same way [USD]; None without one."""
        if self.single_realised is None:
            return None
        return _present(self.single_realised, self.discount_factor)

    @property
    def saving_fraction(self) -> float | None:
        """``1 - plan / best single source`` [-]; None without a single source."""
        single = self.best_single_source_cost_usd
        return None if single is None or single <= 0 else 1.0 - self.total_cost_usd / single

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON-ready data: ``total_cost_usd``, ``best_single_source``, ``best_single_source_cost_usd``,
        ``saving_fraction``, ``solver``, ``sources``, ``periods`` and ``years``."""
        s = self.solution
        return {
            "scenario": self.scenario,
            "total_cost_usd": self.total_cost_usd,
            "total_cost_undiscounted_usd": float(self.realised.cost_usd.sum()),
            "best_single_source": self.best_single_source,
            "best_single_source_cost_usd": self.best_single_source_cost_usd,
            "saving_fraction": self.saving_fraction,
            "discount_fraction_per_year": self.discount_fraction_per_year,
            "usd_per_accepted_request": _per_request(self.realised.cost_usd.sum(), self.realised.accepted_rps.sum()),
            "solver": {
                "objective_usd": s.objective_usd,
                "dual_bound_usd": s.dual_bound_usd,
                "relative_gap": s.relative_gap,
                "status": s.status,
                "solve_s": s.solve_s,
                "capacity_rounds": self.rounds,
                "from_single_source": self.from_single_source,
                "unsolved_sources": list(self.unsolved_sources),
            },
            "sources": [_source_json(f) for f in self.sources],
            "periods": _records(self.periods),
            "years": _records(self.years),
        }


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{str(k): _plain(v) for k, v in row.items()} for row in table.to_dict(orient="records")]


def _plain(value: Any) -> Any:
    """A cell as plain JSON data: a missing figure (pandas keeps it as NaN) is None."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return None if math.isnan(value) else float(value)
    return value


def _per_request(cost: float, accepted_rps_hours: float) -> float | None:
    requests = float(accepted_rps_hours) * 3600.0
    return None if requests <= 0 else float(cost) / requests


def _source_json(f: SourceFigures) -> dict[str, Any]:
    return {
        "name": f.source.name,
        "kind": f.source.kind.name,
        "system": f.source.system,
        "replicas_per_unit": f.replicas_per_unit,
        "racks_per_unit": f.racks_per_unit,
        "accelerators_per_unit": f.accelerators_per_unit,
        "capacity_rps_per_unit": f.capacity_rps_per_unit,
        "usd_per_unit_hour": f.usd_per_unit_hour,
        "usd_per_request": f.usd_per_request,
        "available_fraction": f.available_fraction,
    }


def _present(r: Realised, discount: Array) -> float:
    per_hour = np.repeat(discount, HOURS_PER_QUARTER)[: r.cost_usd.shape[1]]
    return float((r.cost_usd * per_hour[None, :]).sum())


def discount_rate(scenario: Scenario) -> float:
    """The plan's discount rate: ``plan.discount_fraction_per_year``, else the largest cost of capital of the owned
    sources' systems (each its own or the scenario's ``finance``), else 0 [1/year]."""
    assert scenario.plan is not None
    if scenario.plan.discount_fraction_per_year is not None:
        return float(scenario.plan.discount_fraction_per_year)
    systems = {s.name: s for s in scenario.systems}
    rates = [
        finance_term(costs, scenario.finance, "cost_of_capital_fraction")[0] or 0.0
        for s in scenario.plan.sources
        if s.kind.payment.owned and (costs := systems[s.system].costs) is not None
    ]
    return float(max(rates, default=0.0))


def _program_source(f: SourceFigures, capacity_rps_per_unit: float) -> milp.PlanSource:
    s = f.source
    return milp.PlanSource(
        name=s.name,
        kind=s.kind.name,
        capacity_rps_per_unit=capacity_rps_per_unit / f.available_fraction,
        usd_per_unit_hour=f.usd_per_unit_hour,
        usd_per_request=f.usd_per_request,
        lead_time_quarters=s.lead_time_quarters or 0,
        term_quarters=(s.term_quarters or 4) if s.kind.holding is Holding.term else 1,
        startup_hours=(s.startup_minutes or 0.0) / 60.0 if s.kind.startup else 0.0,
        available_fraction=f.available_fraction,
        max_units=f.max_units,
        initial_units=s.initial_units or 0,
    )


def _held(solution: milp.PlanSolution, f: SourceFigures, where: NDArray[np.int64], quarter: NDArray[np.int64]) -> Array:
    """(H,) units the plan holds of a source in each hour."""
    name = f.source.name
    if f.source.kind.holding.per_quarter:
        return np.asarray(solution.quarter_units[name], dtype=float)[quarter]
    return np.asarray(solution.block_units[name], dtype=float)[quarter, where]


def _checked_capacities(
    solution: milp.PlanSolution, figures: list[SourceFigures], capacity: dict[str, float]
) -> dict[str, float]:
    """Each source's capacity per unit lowered to that of every size the plan holds whose exact capacity is below
    what the plan asks of it (step 4); the same dict when every size holds."""
    out = dict(capacity)
    for f in figures:
        if not f.source.kind.has_fleet:
            continue
        name = f.source.name
        units = np.asarray(solution.block_units[name], dtype=float)
        carried = np.asarray(solution.dispatch_rps[name], dtype=float)
        for n in np.unique(np.rint(units[units > 0.5])).astype(int):
            asked = float(carried[np.rint(units) == n].max(initial=0.0))
            exact = f.capacity_rps(int(n))
            if exact < asked * (1 - 1e-9):
                out[name] = min(out[name], exact / n)
    return out


class Budget:
    """The plan's one time budget for the solver, shared by all its solves (``plan.time_limit_s``).

    Every solve gets what is left (:meth:`share`); when nothing is left, the capacity rounds stop with the plan they
    have and a solve not yet started finds nothing (:class:`rackcost.model.buying.plan.PlanUnsolved`).
    """

    def __init__(self, total_s: float) -> None:
        self.total_s = float(total_s)
        self._deadline = time.monotonic() + self.total_s

    def left_s(self) -> float:
        """Seconds left [s]."""
        return max(0.0, self._deadline - time.monotonic())

    def share(self, parts: int = 1) -> float:
        """A solve's time limit: what is left over ``parts`` solves still to come [s]."""
        return self.left_s() / max(1, parts)


def _solve(
    figures: list[SourceFigures],
    blocks: milp.DemandBlocks,
    discount: Array,
    gap: float,
    budget_s: float,
    only: str | None = None,
) -> tuple[milp.PlanSolution, int]:
    """The program solved in rounds while the capacities are checked (step 4), all within ``budget_s`` [s].

    Raises
    ------
    PlanInfeasible
        The first round's demand exceeds what the sources can carry.
    PlanUnsolved
        The first round found no plan within the budget.
    """
    capacity = {f.source.name: f.capacity_rps_per_unit for f in figures}
    rounds, asked = 0, max(gap, LOOSE_GAP)  # the rounds that only find the sizes to check need no tight proof
    ends = time.monotonic() + budget_s
    best: milp.PlanSolution | None = None
    while True:
        left_s = ends - time.monotonic()
        if best is not None and left_s <= MIN_SOLVE_S:  # the budget is spent: the last plan found stands
            return best, rounds
        if left_s <= MIN_SOLVE_S:
            raise milp.PlanUnsolved(f"no time left of the plan's time_limit_s to solve it ({budget_s:.3g} s given)")
        rounds += 1
        sources = tuple(_program_source(f, capacity[f.source.name]) for f in figures)
        problem = milp.PlanProblem(sources, blocks, discount)
        try:
            if only is None:
                solution = milp.solve_plan(problem, mip_rel_gap=asked, time_limit_s=left_s)
            else:
                solution = milp.solve_single_source(problem, only, mip_rel_gap=asked, time_limit_s=left_s)
        except (milp.PlanInfeasible, milp.PlanUnsolved):
            if best is None:
                raise
            # lowered capacities no source can cover with, or no plan in the time left: the last plan stands
            return best, rounds - 1
        best = solution
        checked = _checked_capacities(solution, figures, capacity)
        if (checked == capacity and asked == gap) or rounds >= MAX_ROUNDS:
            return solution, rounds
        if checked == capacity:  # the sizes hold: solve once more at the gap asked, and check its sizes
            asked = gap
        capacity = checked


def realise(
    scenario: Scenario,
    figures: list[SourceFigures],
    solution: milp.PlanSolution,
    hourly_rps: Array,
    hour_to_block: NDArray[np.int64],
    peak_rps: float,
) -> Realised:
    """The plan hour by hour with the full model (step 5).

    Each hour's demand is carried in merit order (cost per request, the cheapest first) over the units held that
    hour, each up to its exact capacity at SLO; each source's fleet is then evaluated at its load, every hour of one
    fleet size in one vectorised pass (:func:`rackcost.evaluation.horizon.hourly_figures`), for its accepted share
    and its cost with the real power curve. An on-demand source pays its start-up hours once a day on its most
    units of that day.
    """
    quarter = quarter_index(np.arange(hourly_rps.size)).astype(np.int64)
    n_sources, n_hours = len(figures), hourly_rps.size
    units = np.zeros((n_sources, n_hours))
    capacity = np.zeros((n_sources, n_hours))
    for i, f in enumerate(figures):
        if not f.source.kind.has_fleet:  # an API: the rate the plan holds in the hour's block
            capacity[i] = np.asarray(solution.block_units[f.source.name], dtype=float)[quarter, hour_to_block]
            continue
        held = np.rint(_held(solution, f, hour_to_block, quarter))
        units[i] = held
        sizes, back = np.unique(held, return_inverse=True)
        capacity[i] = np.array([f.capacity_rps(int(n)) for n in sizes])[back]
    order = sorted(range(n_sources), key=lambda i: (figures[i].usd_per_request, not figures[i].source.kind.has_fleet))
    served = np.zeros((n_sources, n_hours))
    left = hourly_rps.astype(float).copy()
    for i in order:
        served[i] = np.minimum(left, capacity[i])
        left = left - served[i]
    accepted = np.zeros_like(served)
    cost = np.zeros_like(served)
    for i, f in enumerate(figures):
        if not f.source.kind.has_fleet:
            units[i] = served[i]
            accepted[i] = served[i]
            cost[i] = served[i] * f.usd_per_request * 3600.0
            continue
        for n in np.unique(units[i]):
            if n <= 0:
                continue
            hours = np.flatnonzero(units[i] == n)
            loads = np.maximum(served[i, hours], 1e-6)
            fleet = f.scenario(int(n), [peak_rps])
            # the hours' own grid (price and carbon by hour); the appended peak hour, which sizes, is dropped
            _, got, _ = hourly_figures(fleet, np.append(loads, peak_rps), hour_index=np.append(hours, 0))
            share = np.where(loads > 0, got["accepted_rps"][0][:-1] / loads, 1.0)
            accepted[i, hours] = served[i, hours] * np.minimum(share, 1.0)
            cost[i, hours] = got["cost_usd"][0][:-1]
        if f.source.kind.preempted and f.source.refill_minutes:
            # the plan is a schedule known ahead: a spot unit added at an hour is started its refill minutes before
            # it and paid while it loads (an on-demand unit's start-up is paid once a day, below)
            cost[i] += milp.started_units(units[i]) * (f.source.refill_minutes / 60.0) * f.usd_per_unit_hour
        if f.source.kind.startup and f.source.startup_minutes:
            days = units[i][: n_hours - n_hours % 24].reshape(-1, 24).max(axis=1)
            startup = days * (f.source.startup_minutes / 60.0) * f.usd_per_unit_hour
            cost[i, : days.size * 24 : 24] += startup
    return Realised(units, served, accepted, cost, np.maximum(left, 0.0))


def _tables(
    figures: list[SourceFigures], r: Realised, rates: Array, discount: Array
) -> tuple[pd.DataFrame, pd.DataFrame]:
    n_hours = rates.size
    quarter = quarter_index(np.arange(n_hours)).astype(np.int64)
    per_hour_discount = discount[quarter]
    rows = []
    for q in range(int(quarter.max()) + 1):
        at = quarter == q
        row: dict[str, Any] = {
            "quarter": q + 1,
            "year": q // 4 + 1,
            "peak_demand_rps": float(rates[at].max()),
            "mean_demand_rps": float(rates[at].mean()),
        }
        for i, f in enumerate(figures):
            name = f.source.name
            held = r.units[i, at]
            # owned units are racks of racks_per_unit each; rented units are replicas, an API's requests/s
            per_unit = f.racks_per_unit if f.source.kind.payment.owned else 1
            row[f"{name}: {f.source.kind.units[0]}"] = float(held.max()) * per_unit
            row[f"{name}: served share"] = float(r.served_rps[i, at].sum() / max(rates[at].sum(), 1e-300))
            row[f"{name}: cost_usd"] = float(r.cost_usd[i, at].sum())
        cost = float(r.cost_usd[:, at].sum())
        accepted = float(r.accepted_rps[:, at].sum()) * 3600.0
        row.update(
            cost_usd=cost,
            cost_present_usd=float((r.cost_usd[:, at] * per_hour_discount[at]).sum()),
            accepted_requests=accepted,
            accepted_fraction=float(r.accepted_rps[:, at].sum() / max(rates[at].sum(), 1e-300)),
            usd_per_accepted_request=cost / accepted if accepted > 0 else None,
        )
        rows.append(row)
    periods = pd.DataFrame(rows)
    years = periods.groupby("year", as_index=False)[["cost_usd", "cost_present_usd", "accepted_requests"]].sum()
    # a year with no request accepted (a growth table that ends demand) has no cost per request: missing (NaN in
    # the frame, null in JSON), never cost / 0
    some = years["accepted_requests"].where(years["accepted_requests"] > 0)
    years["usd_per_accepted_request"] = years["cost_usd"] / some
    return periods, years


def short_hours(
    exc: milp.PlanInfeasible, rates: Array, quarter: NDArray[np.int64], where: NDArray[np.int64], file: str
) -> list[Problem]:
    """The hours no mix of the sources can carry, per short block: how many, the first (year, day, hour) and the
    largest shortfall in requests/s (from the program's :class:`rackcost.model.buying.plan.PlanShortfall`)."""
    problems = []
    shown = exc.shortfalls[:5]
    for s in shown:
        hours = np.flatnonzero((quarter == s.quarter) & (where == s.block) & (rates > s.most_rps * (1 + 1e-12)))
        if hours.size == 0:
            continue
        first = int(hours[0])
        when = f"year {first // 8760 + 1}, day {first % 8760 // 24 + 1}, {first % 24:02d}:00"
        problems.append(
            Problem(
                "plan.sources",
                f"{hours.size:,} hours of quarter {s.quarter + 1} (the first: {when}) need up to "
                f"{float(rates[hours].max()):,.6g} requests/s; every source together carries at most "
                f"{s.most_rps:,.6g}: up to {float(rates[hours].max()) - s.most_rps:,.6g} requests/s short (raise a "
                "max_units, or add a source)",
                file,
            )
        )
    rest = exc.shortfalls[len(shown) :]
    if rest:
        worst = max(s.shortfall_rps for s in rest)
        problems.append(
            Problem(
                "plan.sources", f"and {len(rest)} more blocks of hours short, by up to {worst:,.6g} requests/s", file
            )
        )
    return problems or [Problem("plan.sources", str(exc), file)]


def plan_scenario(scenario: Scenario) -> PlanResult:
    """The cheapest plan of the scenario's ``plan.sources`` over its demand profile's horizon, realised hour by hour,
    beside the best single source.

    Raises
    ------
    ScenarioError
        Without a ``plan`` block or a demand profile; a source whose system cannot serve; demand that no mix of the
        sources can carry (naming the quarters and blocks, and by how much).
    """
    check_argument("rackcost.plan", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    if scenario.plan is None or scenario.demand_profile is None:
        missing = "a `plan` block with its sources" if scenario.plan is None else "`demand` as a profile"
        raise ScenarioError([Problem("plan", f"a buying plan needs {missing} (docs/model.md)", scenario.origin_file)])
    block = scenario.plan
    rates = scenario.demand_profile.hourly_rates_rps()
    peak = float(rates.max())
    figures = source_figures(scenario, peak)
    quarter = quarter_index(np.arange(rates.size)).astype(np.int64)
    blocks, where = milp.demand_blocks(rates, quarter, block.blocks_per_quarter)
    r = discount_rate(scenario)
    n_quarters = int(quarter.max()) + 1
    discount: Array = np.power(1.0 + r, -(np.arange(n_quarters, dtype=float) + 0.5) / 4.0)
    gap = block.mip_rel_gap_fraction
    first = milp.PlanProblem(tuple(_program_source(f, f.capacity_rps_per_unit) for f in figures), blocks, discount)
    shortfalls = milp.coverage_shortfalls(first)
    if shortfalls:  # before any solve: no mix carries the demand
        raise ScenarioError(short_hours(milp.PlanInfeasible(shortfalls), rates, quarter, where, scenario.origin_file))
    budget = Budget(block.time_limit_s)
    # the single sources first, each within its share of half the budget; the mix gets all that is left
    alone = [f.source.name for f in figures if not milp.single_source_shortfalls(first, f.source.name)]
    candidates, unsolved = _single_sources(scenario, figures, alone, (blocks, where, rates), discount, budget)
    mix: tuple[milp.PlanSolution, int, Realised] | None = None
    try:
        sol, n = _solve(figures, blocks, discount, gap, budget.left_s())
        mix = (sol, n, realise(scenario, figures, sol, rates, where, peak))
    except milp.PlanInfeasible as exc:
        raise ScenarioError(short_hours(exc, rates, quarter, where, scenario.origin_file)) from None
    except milp.PlanUnsolved as exc:
        if not candidates:
            problem = Problem("plan", _unsolved_message(exc, block.time_limit_s), scenario.origin_file)
            raise ScenarioError([problem]) from None
    single_name = min(candidates, key=lambda n: _present(candidates[n][2], discount)) if candidates else None
    single, single_realised = (candidates[single_name][0], candidates[single_name][2]) if single_name else (None, None)
    # the reported plan is never dearer than the best single source, which is itself a plan of the same problem,
    # realised by the same function: the program's mix can lose to it, as its linear figures (lowered to the
    # smallest size it holds, step 4) and the realised costs differ from the single source's
    from_single = None
    if single_name is not None and (
        mix is None
        or not _feasible(mix[2], rates)
        or _present(candidates[single_name][2], discount) < _present(mix[2], discount)
    ):
        from_single = single_name
        mix = candidates[single_name]
    assert mix is not None  # no mix and no single source raised above
    solution, rounds, realised = mix
    if not _feasible(realised, rates):
        worst = float((realised.unserved_rps / np.maximum(rates, 1e-300)).max())
        message = (
            f"the plan found leaves up to {worst:.3%} of an hour's demand unserved at the sizes it holds after "
            f"{rounds} round(s) of capacity checks, and no single source carries the demand alone: raise "
            "plan.blocks_per_quarter or plan.time_limit_s"
        )
        raise ScenarioError([Problem("plan", message, scenario.origin_file)])
    periods, years = _tables(figures, realised, rates, discount)
    return PlanResult(
        scenario=scenario.name,
        sources=figures,
        solution=solution,
        single=single,
        best_single_source=single_name,
        hourly_rps=rates,
        realised=realised,
        single_realised=single_realised,
        discount_factor=discount,
        discount_fraction_per_year=r,
        rounds=rounds,
        periods=periods,
        years=years,
        from_single_source=from_single,
        unsolved_sources=tuple(unsolved),
    )


def _single_sources(
    scenario: Scenario,
    figures: list[Any],
    alone: list[str],
    demand: tuple[Any, Any, Array],
    discount: Array,
    budget: Budget,
) -> tuple[dict[str, tuple[milp.PlanSolution, int, Realised]], list[str]]:
    """Each source that could carry the demand alone, planned alone within its share of half the budget and realised
    hour by hour: those that carry every hour, and the names of those the solver ran out of time on."""
    blocks, where, rates = demand
    gap = scenario.plan.mip_rel_gap_fraction if scenario.plan is not None else 0.0
    peak = float(rates.max())
    candidates: dict[str, tuple[milp.PlanSolution, int, Realised]] = {}
    unsolved: list[str] = []
    for k, name in enumerate(alone):
        try:
            sol, n = _solve(figures, blocks, discount, gap, budget.share(2 * (len(alone) - k)), only=name)
        except milp.PlanInfeasible:
            continue
        except milp.PlanUnsolved:
            unsolved.append(name)
            continue
        done = realise(scenario, figures, sol, rates, where, peak)
        if _feasible(done, rates):
            candidates[name] = (sol, n, done)
    return candidates, unsolved


def _feasible(r: Realised, rates: Array) -> bool:
    """Every hour's demand carried (float rounding aside)."""
    return bool((r.unserved_rps <= milp.COVER_RTOL * rates + 1e-12).all())


def _unsolved_message(exc: Exception, time_limit_s: float) -> str:
    return (
        f"the solver found no plan within plan.time_limit_s = {time_limit_s:g} s ({exc}); raise plan.time_limit_s, "
        "or lower plan.blocks_per_quarter"
    )


plan = plan_scenario
"""``rackcost.plan(scenario)``: the library's name of :func:`plan_scenario`."""


def plan_of(evaluated: Evaluation) -> PlanResult | ScenarioError | None:
    """The buying plan of an evaluation's scenario as given (:func:`plan_scenario`: its sources name its systems),
    the error that says why there is none (a demand no mix can carry, a source that cannot serve), or None without a
    ``plan`` block.

    The one way a face finds the plan of what it shows (``rackcost evaluate``'s summary, the report, the dashboard's
    Answer and Buying plan pages): found the first time it is asked for, seconds to tens of seconds, and kept with
    the evaluation (:meth:`rackcost.evaluation.chain.Evaluation.kept`), so that a face asking again does not solve
    again."""
    given = evaluated.given
    if given.plan is None:
        return None

    def found() -> PlanResult | ScenarioError:
        try:
            return plan_scenario(given)
        except ScenarioError as exc:
            return exc

    return evaluated.kept("plan", found)
