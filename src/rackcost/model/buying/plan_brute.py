"""The buying plan by brute force: the referee of :func:`rackcost.model.buying.plan.solve_plan` on tiny instances.

Every integer decision is enumerated over a range that provably holds an optimum (below), the continuous part
(dispatch, the API's rate) is dispatched optimally given the units (merit order of the cost of a requests/s
carried, a continuous knapsack), and the cheapest plan is kept. It shares nothing with the MILP but the
problem's containers: its own ranges, its own costs written from the statement, its own greedy dispatch in plain
Python. It lives in the package beside the solver, as the simulator does beside the analytic model, so that it
is typed and checked like the code it referees and the benchmarks and the lead's tests can call it.

Why the ranges hold an optimum (every cost is >= 0, so dropping a unit that is not needed never costs more):

- owned: held racks are non-decreasing from ``initial_units``, fixed at it before the lead time, and never above
  ``max(initial, ceil(peak / rps))`` (lowering every quarter above that bound to it keeps the sequence
  non-decreasing and every block covered);
- reserved: each start is at most ``min(limit, ceil(peak / rps))`` (a start above that holds more than the
  peak alone needs in every quarter of its term);
- on-demand and spot: at most ``min(limit, ceil(d_qb / rps))`` units in a block; on-demand's start-up count is
  the most units over the quarter's blocks (enumerated, then each block takes at most that many).

Given the owned and reserved units, quarters are independent, so each quarter's best block-level choice is found
once per (owned, reserved) units of that quarter and the horizon's enumeration sums them: exact, and what keeps
a 4-quarter, 3-block, 3-source instance to well under a second.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

from rackcost.model.buying.plan_problem import COVER_RTOL, PlanInfeasible, PlanProblem, PlanSource, coverage_shortfalls
from rackcost.model.buying.source_kinds import Holding
from rackcost.units import SECONDS_PER_HOUR

__all__ = ["BrutePlan", "brute_force_plan"]

MAX_PLANS = 2_000_000
"""Refuse instances whose enumeration of owned and reserved choices exceeds this count [-]."""


@dataclass(frozen=True)
class BrutePlan:
    """The cheapest plan found by enumeration.

    Attributes
    ----------
    objective_usd
        Its present value [USD].
    quarter_units
        Owned and reserved units held in each quarter of that plan, by source name [units].
    plans_tried
        Owned-and-reserved choices enumerated (each with the best block-level choice of every quarter) [-].
    """

    objective_usd: float
    quarter_units: dict[str, tuple[int, ...]]
    plans_tried: int


def _needed(demand_rps: float, source: PlanSource) -> int:
    """Whole units of ``source`` that carry ``demand_rps`` alone, within its limit."""
    return int(min(source.unit_limit, math.ceil(demand_rps / source.rps_per_unit)))


def _owned_choices(source: PlanSource, n_quarters: int, peak_rps: float) -> Iterator[tuple[int, ...]]:
    top = max(source.initial_units, _needed(peak_rps, source))
    lead = min(source.lead_time_quarters, n_quarters)
    for rising in itertools.combinations_with_replacement(range(source.initial_units, top + 1), n_quarters - lead):
        yield (source.initial_units,) * lead + rising


def _reserved_choices(source: PlanSource, n_quarters: int, peak_rps: float) -> Iterator[tuple[int, ...]]:
    term = source.term_quarters
    for starts in itertools.product(range(_needed(peak_rps, source) + 1), repeat=n_quarters):
        held = tuple(
            (source.initial_units if q < term else 0) + sum(starts[t] for t in range(n_quarters) if t <= q < t + term)
            for q in range(n_quarters)
        )
        if max(held) <= source.unit_limit:
            yield held


def _block_cost(problem: PlanProblem, q: int, b: int, carriers: list[tuple[float, float]]) -> float:
    """Cheapest dispatch of block (q, b) over ``carriers`` = (cost of a requests/s carried, most requests/s), in
    merit order; inf when they cannot cover it (undiscounted) [USD]."""
    left = float(problem.blocks.demand_rps[q, b])
    cost = 0.0
    for price, most in sorted(carriers):
        take = min(left, most)
        cost += price * take
        left -= take
    return cost if left <= COVER_RTOL * float(problem.blocks.demand_rps[q, b]) + 1e-12 else math.inf


def _quarter_cost(problem: PlanProblem, q: int, held: dict[int, int]) -> float:
    """Cheapest block-level choice of quarter q given the owned and reserved units ``held`` (by source index):
    on-demand start-up counts, then per block on-demand and spot units and the dispatch (undiscounted) [USD]."""
    blocks = problem.blocks
    n_blocks = problem.shape[1]
    per_block = [i for i, s in enumerate(problem.sources) if s.holding is Holding.per_block]
    on_demand = [i for i in per_block if problem.sources[i].source_kind.startup]  # a start-up count per quarter
    spot = [i for i in per_block if not problem.sources[i].source_kind.startup]
    days = float(problem.quarter_days[q])
    best = math.inf
    tops = [
        max(_needed(float(blocks.demand_rps[q, b]), problem.sources[i]) for b in range(n_blocks)) for i in on_demand
    ]
    for counts in itertools.product(*(range(t + 1) for t in tops)):
        cost = sum(
            n * problem.sources[i].usd_per_unit_hour * problem.sources[i].startup_hours * days
            for i, n in zip(on_demand, counts, strict=True)
        )
        for b in range(n_blocks):
            hours = float(blocks.hours[q, b])
            demand = float(blocks.demand_rps[q, b])
            served = SECONDS_PER_HOUR * hours * float(blocks.mean_rps[q, b]) / demand if demand > 0 else 0.0
            fixed = []  # the carriers whose units are already chosen: owned, reserved, the API's limit
            for i, s in enumerate(problem.sources):
                if i in held:
                    fixed.append((s.usd_per_request * served, held[i] * s.rps_per_unit))
                elif s.holding is Holding.rate:
                    per_rps = s.usd_per_request * served + s.usd_per_unit_hour * hours / s.rps_per_unit
                    fixed.append((per_rps, s.unit_limit * s.rps_per_unit))
            ranges = [
                range(min(n, _needed(demand, problem.sources[i])) + 1) for i, n in zip(on_demand, counts, strict=True)
            ]
            ranges += [range(_needed(demand, problem.sources[i]) + 1) for i in spot]
            block_best = math.inf
            for units in itertools.product(*ranges):
                rented = list(zip(on_demand + spot, units, strict=True))
                hold = sum(n * problem.sources[i].usd_per_unit_hour * hours for i, n in rented)
                carriers = fixed + [
                    (problem.sources[i].usd_per_request * served, n * problem.sources[i].rps_per_unit)
                    for i, n in rented
                ]
                block_best = min(block_best, hold + _block_cost(problem, q, b, carriers))
            cost += block_best
            if cost >= best:
                break
        best = min(best, cost)
    return best


def brute_force_plan(problem: PlanProblem) -> BrutePlan:
    """The cheapest plan by enumerating every integer decision (module docstring: the ranges and why they hold an
    optimum), for instances of a few sources, quarters and blocks.

    Raises
    ------
    PlanInfeasible
        As :func:`rackcost.model.buying.plan.solve_plan`.
    ValueError
        More than :data:`MAX_PLANS` owned and reserved choices to enumerate.

    Examples
    --------
    >>> from rackcost.model.buying.plan_problem import DemandBlocks
    >>> blocks = DemandBlocks(hours=[[2190.0]], demand_rps=[[45.0]], mean_rps=[[45.0]])
    >>> rack = PlanSource("rack", "owned", capacity_rps_per_unit=20.0, usd_per_unit_hour=100.0)
    >>> brute_force_plan(PlanProblem((rack,), blocks, discount_factor=[1.0])).objective_usd
    657000.0
    """
    shortfalls = coverage_shortfalls(problem)
    if shortfalls:
        raise PlanInfeasible(shortfalls)
    n_quarters = problem.shape[0]
    peak = float(problem.blocks.demand_rps.max())
    quarter_level = [i for i, s in enumerate(problem.sources) if s.holding.per_quarter]
    choices = []
    for i in quarter_level:
        s = problem.sources[i]
        bought = s.holding is Holding.bought
        made = _owned_choices(s, n_quarters, peak) if bought else _reserved_choices(s, n_quarters, peak)
        choices.append(list(made))
    count = math.prod(len(c) for c in choices)
    if count > MAX_PLANS:
        raise ValueError(f"brute force: {count:,} owned and reserved choices, more than {MAX_PLANS:,}")
    hours = problem.quarter_hours
    disc = problem.discount_factor
    memo: dict[tuple[int, tuple[int, ...]], float] = {}
    best = math.inf
    best_held: tuple[tuple[int, ...], ...] = ()
    for plan in itertools.product(*choices):
        total = 0.0
        for i, held in zip(quarter_level, plan, strict=True):
            price = problem.sources[i].usd_per_unit_hour
            total += sum(held[q] * price * float(hours[q]) * float(disc[q]) for q in range(n_quarters))
        for q in range(n_quarters):
            key = (q, tuple(held[q] for held in plan))
            if key not in memo:
                memo[key] = _quarter_cost(problem, q, dict(zip(quarter_level, key[1], strict=True)))
            total += memo[key] * float(disc[q])
            if total >= best:
                break
        if total < best:
            best, best_held = total, plan
    names = [problem.sources[i].name for i in quarter_level]
    return BrutePlan(best, dict(zip(names, best_held, strict=True)), count)
