"""The buying plan's fuzzer: hypothesis strategies for plan sources and demand profiles, and the contract the plan
keeps on every one.

Used by ``tests/test_fuzz_plan.py`` (a small budget in CI) and ``benchmarks/fuzz_plan.py`` (a large one, with
counts). Strategies:

- :func:`plan_problems`: tiny programs (1-2 quarters, 1-3 blocks, 1-3 sources of every kind) with demand that is
  flat at the floor of 1e-6 requests/s, spiky (one block far above the rest) or random, with limits, initial
  units within them, lead times, terms, start-ups and availability;
- :func:`plan_scenarios`: ``tests/data/plan_small.yaml`` with 1-3 sources of every kind on its systems (prices,
  limits, initial units, terms, lead times, start-ups, preemptions) and a week of hourly rates that is flat at the
  floor, spiky or random, with growth that may end demand (``per_year_table: [g, -1]``), few blocks a quarter.

Contracts: a program either is refused before the solver (:class:`~rackcost.model.buying.plan.PlanInfeasible`, when
:func:`~rackcost.model.buying.plan.coverage_shortfalls` finds a block no mix covers) or has a plan that
:func:`~rackcost.model.buying.plan.check_plan` finds feasible in every block with its costs its costs, finite, and never
dearer than any source that covers the demand alone. A scenario either is refused with a ScenarioError naming its
file, or plans with every hour's demand carried, every number finite or null in its JSON, and a cost never above
its best single source's.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from hypothesis import strategies as st

import rackcost
from rackcost.errors import ScenarioError
from rackcost.evaluation.planning import plan_scenario
from rackcost.model.buying.plan import (
    COVER_RTOL,
    DemandBlocks,
    PlanInfeasible,
    PlanProblem,
    PlanSource,
    check_plan,
    coverage_shortfalls,
    single_source_shortfalls,
    solve_plan,
    solve_single_source,
)

SMALL = Path(__file__).parent / "data" / "plan_small.yaml"
FLOOR_RPS = 1e-6
"""The smallest demand a scenario accepts [requests/s]."""
KINDS = ("owned", "reserved", "on_demand", "spot", "api")
REL_TOL = 1e-9
"""Float rounding between two sums of the same costs [-]."""


def _demand(draw: st.DrawFn, shape: tuple[int, int], top: float) -> np.ndarray:
    """(Q, B) block peaks, the highest first: flat at the floor, spiky, or random."""
    style = draw(st.sampled_from(["floor", "spiky", "random"]))
    if style == "floor":
        return np.full(shape, FLOOR_RPS)
    rates = np.array(
        draw(st.lists(st.floats(FLOOR_RPS, top), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1]))
    )
    if style == "spiky":
        rates = np.full(rates.size, FLOOR_RPS)
        rates[0] = draw(st.floats(1.0, 50.0 * top))
    return np.sort(rates.reshape(shape), axis=1)[:, ::-1].copy()


@st.composite
def plan_problems(draw: st.DrawFn) -> PlanProblem:
    """A tiny program: every kind, limits, initial units, lead times, terms; demand at the floor, spiky or random."""
    n_quarters, n_blocks = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    sources = []
    for k in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(KINDS))
        capacity = 1.0 if kind == "api" else draw(st.sampled_from([0.5, 1.0, 2.5, 20.0]))
        figures: dict[str, Any] = {"usd_per_request": draw(st.sampled_from([0.0, 1e-4, 3e-3]))}
        limit = draw(st.none() | st.integers(1, 4))
        if limit is not None:
            figures["max_units"] = float(limit) if kind != "api" else draw(st.floats(0.5, 10.0))
        if kind in ("owned", "reserved"):
            figures["initial_units"] = draw(st.integers(0, 2 if limit is None else min(2, limit)))
        if kind == "owned":
            figures["lead_time_quarters"] = draw(st.integers(0, 2))
        if kind == "reserved":
            figures["term_quarters"] = draw(st.integers(1, 3))
        if kind == "on_demand":
            figures["startup_hours"] = draw(st.sampled_from([0.0, 0.5]))
        if kind == "spot":
            figures["available_fraction"] = draw(st.sampled_from([1.0, 0.6]))
        price = draw(st.floats(0.0, 10.0)) if kind != "api" else draw(st.sampled_from([0.0, 0.1]))
        sources.append(PlanSource(f"{kind}{k}", kind, capacity, price, **figures))
    hours = np.array(
        draw(
            st.lists(
                st.sampled_from([1.0, 24.0, 700.0]), min_size=n_quarters * n_blocks, max_size=n_quarters * n_blocks
            )
        )
    ).reshape(n_quarters, n_blocks)
    demand = _demand(draw, (n_quarters, n_blocks), 8.0)
    mean = demand * draw(st.sampled_from([1.0, 0.5, 0.01]))
    return PlanProblem(tuple(sources), DemandBlocks(hours, demand, mean), 1.02 ** -np.arange(n_quarters))


def check_plan_problem(problem: PlanProblem) -> str:
    """Solve a program and check its contract; "planned" or "infeasible" (AssertionError: broken)."""
    if coverage_shortfalls(problem):
        try:
            solve_plan(problem)
        except PlanInfeasible:
            return "infeasible"
        raise AssertionError("a program no mix covers was solved")
    plan = solve_plan(problem, mip_rel_gap=0.0)
    check = check_plan(problem, plan)
    assert check.ok, check.problems  # every block covered, whole units within limits, costs its costs
    assert math.isfinite(plan.objective_usd) and plan.objective_usd >= 0.0
    for s in problem.sources:
        if single_source_shortfalls(problem, s.name):
            continue
        alone = solve_single_source(problem, s.name, mip_rel_gap=0.0)
        assert check_plan(problem, alone).ok
        slack = 1e-6 * alone.objective_usd + _hidden_usd(problem)
        assert plan.objective_usd <= alone.objective_usd + slack, (s.name, plan.objective_usd, alone)
    return "planned"


INTEGRALITY_TOL = 1e-6
"""HiGHS's mip_feasibility_tolerance: an integer column within this of a whole number counts as whole [units]."""


def _hidden_usd(problem: PlanProblem) -> float:
    """What HiGHS's tolerances can hide in a plan's cost at gap 0 [USD]: its absolute gap (1e-6), a unit of
    1e-6 held "as 0" in every integer column, and the requests such units carry at the dearest price per request.

    Demand below ``1e-6 x capacity`` (the fuzzer's floor of 1e-6 requests/s) can be carried by a unit the solver
    counts as none; rounded to a whole one (or to none, another source carrying it) the plan may cost this much more
    than the solver's optimum. The scenario's plan does not rely on it: there the best single source is a candidate.
    """
    b = problem.blocks
    rps = max(s.rps_per_unit for s in problem.sources)
    per_request = max(s.usd_per_request for s in problem.sources)
    price = max(s.usd_per_unit_hour for s in problem.sources)
    carried = np.minimum(b.demand_rps, INTEGRALITY_TOL * rps * len(problem.sources))
    requests = float((problem.served_share_per_rps() * carried).sum())
    columns = len(problem.sources) * b.hours.size
    return 1e-6 + requests * per_request + INTEGRALITY_TOL * columns * price * float(b.hours.sum())


_SYSTEMS = {"owned": ["A", "B"], "reserved": ["A", "B"], "on_demand": ["A", "B"], "spot": ["A", "B"], "api": ["API"]}


@st.composite
def _source(draw: st.DrawFn, k: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(KINDS))
    source: dict[str, Any] = {"name": f"{kind} {k}", "kind": kind, "system": draw(st.sampled_from(_SYSTEMS[kind]))}
    if kind in ("reserved", "on_demand", "spot"):
        source["usd_per_accelerator_hour"] = draw(st.sampled_from([0.5, 2.0, 2.5, 6.0]))
        if draw(st.booleans()):
            source["max_units"] = draw(st.integers(1, 12))
    if kind == "owned":
        source["lead_time_quarters"] = draw(st.integers(0, 2))
        if draw(st.booleans()):
            source["max_units"] = draw(st.integers(1, 4))
    if kind in ("owned", "reserved") and draw(st.booleans()):
        source["initial_units"] = draw(st.integers(0, source.get("max_units", 3)))
    if kind == "reserved":
        source["term_quarters"] = draw(st.integers(1, 4))
    if kind == "on_demand":
        source["startup_minutes"] = draw(st.sampled_from([0.0, 10.0]))
    if kind == "spot":
        source.update(preemptions_per_hour=draw(st.sampled_from([0.0, 0.05])), refill_minutes=30.0)
    return source


@st.composite
def plan_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """plan_small.yaml's data with 1-3 sources and a hostile week of demand (see the module's docstring)."""
    data = copy.deepcopy(_BASE)
    style = draw(st.sampled_from(["floor", "spiky", "random", "week"]))
    if style == "floor":
        week = [FLOOR_RPS] * 168
    elif style == "spiky":
        week = [FLOOR_RPS] * 168
        for hour in draw(st.lists(st.integers(0, 167), min_size=1, max_size=3)):
            week[hour] = draw(st.floats(0.01, 60.0))
    elif style == "random":
        week = draw(st.lists(st.floats(FLOOR_RPS, 40.0), min_size=168, max_size=168))
    else:
        scale = draw(st.floats(1e-3, 3.0))
        week = [r * scale for r in data["demand"]["profile"]["hourly_arrival_rps"]]
    data["demand"]["profile"]["hourly_arrival_rps"] = [max(FLOOR_RPS, float(r)) for r in week]
    growth = draw(st.sampled_from(["none", "rate", "ends"]))
    if growth == "none":
        data["demand"].pop("growth")
    elif growth == "rate":
        data["demand"]["growth"] = {"per_year_fraction": draw(st.sampled_from([-0.5, 0.0, 0.4, 2.0]))}
    else:
        data["demand"].update(growth={"per_year_table": [0.4, -1]}, horizon_years=2)
    data["plan"] = {
        "blocks_per_quarter": draw(st.integers(1, 4)),
        "time_limit_s": draw(st.sampled_from([0.1, 5.0])),
        "sources": [draw(_source(k)) for k in range(draw(st.integers(1, 3)))],
    }
    return data


_BASE = yaml.safe_load(SMALL.read_text(encoding="utf-8"))


def check_plan_scenario(data: dict[str, Any]) -> str:
    """Plan a scenario and check its contract; "planned" or "refused" (AssertionError: broken)."""
    try:
        result = plan_scenario(rackcost.scenario_from_dict(data, "fuzz.yaml"))
    except ScenarioError as exc:
        assert all(p.file == "fuzz.yaml" for p in exc.problems), exc.problems
        return "refused"
    r = result.realised
    # every hour carried, float rounding aside (the hour's merit order subtracts each source's part from its rate)
    assert (r.unserved_rps <= COVER_RTOL * result.hourly_rps + 1e-12).all(), float(r.unserved_rps.max())
    np.testing.assert_allclose(r.served_rps.sum(axis=0), result.hourly_rps, rtol=1e-9)
    out = result.to_json()
    json.dumps(out, allow_nan=False)  # finite numbers, or null
    single = result.best_single_source_cost_usd
    if single is not None:
        assert result.total_cost_usd <= single * (1 + REL_TOL), (result.total_cost_usd, single)
        assert out["saving_fraction"] is None or out["saving_fraction"] >= -REL_TOL
    return "planned"
