"""The buying plan's MILP (rackcost.model.buying.plan, issue 24 items 3-4; docs/model.md, "The buying plan"): equal to
brute force on small random instances, closed forms, monotone properties, lead times and infeasibility.

Tolerances: with ``mip_rel_gap=0`` HiGHS proves its integer plan optimal, and ``objective_usd`` is that plan's cost
summed in float64 (rounding ~1e-15 relative), as the brute force's is, so they agree to 1e-9 relative (ties between
plans have equal costs). ``solver_objective_usd`` is HiGHS's value before its units are rounded, within its
feasibility tolerance of 1e-7 on the rows: 1e-6 relative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.errors import ScenarioError
from rackcost.model.buying.plan import (
    DemandBlocks,
    PlanInfeasible,
    PlanProblem,
    PlanSolution,
    PlanSource,
    best_single_source,
    check_plan,
    coverage_shortfalls,
    demand_blocks,
    solve_plan,
    solve_single_source,
)
from rackcost.model.buying.plan_brute import brute_force_plan

KINDS = ("owned", "reserved", "on_demand", "spot", "api")


def random_problem(seed: int, *, feasible: bool = True) -> PlanProblem:
    """A tiny random instance: 1-4 quarters, 1-3 blocks, 2-3 sources whose kinds rotate with the seed, figures that
    need a few units (so the brute force's ranges stay small). ``feasible`` adds nothing: the seeds used are feasible
    (asserted), or an unlimited API replaces a limited one."""
    rng = np.random.default_rng(seed)
    n_quarters, n_blocks, n_sources = int(rng.integers(1, 5)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    kinds = [KINDS[(seed + k) % len(KINDS)] for k in range(n_sources)]
    sources = []
    for k, kind in enumerate(kinds):
        capacity = float(rng.choice([1.0, 2.0, 2.5, 4.0]))
        price = float(rng.uniform(1.0, 10.0))
        figures: dict[str, float | int] = {}
        if kind == "owned":
            figures = {
                "lead_time_quarters": int(rng.integers(0, 3)),
                "initial_units": int(rng.integers(0, 2)),
                "usd_per_request": float(rng.uniform(0.0, 1e-3)),
            }
        elif kind == "reserved":
            figures = {"term_quarters": int(rng.integers(1, 4)), "initial_units": int(rng.integers(0, 2))}
        elif kind == "on_demand":
            figures = {"startup_hours": float(rng.uniform(0.0, 2.0))}
        elif kind == "spot":
            figures = {"available_fraction": float(rng.uniform(0.6, 1.0))}
        if kind == "api":
            capacity, price = 1.0, float(rng.uniform(0.0, 0.5))
            figures["usd_per_request"] = float(rng.uniform(1e-4, 3e-3))
            if rng.random() < 0.5:
                figures["max_units"] = float(rng.uniform(0.5, 4.0))
        elif rng.random() < 0.3:
            figures["max_units"] = float(rng.integers(1, 4))
        sources.append(PlanSource(f"{kind}{k}", kind, capacity, price, **figures))
    peak = float(rng.uniform(1.0, 8.0))
    hours = rng.uniform(50.0, 1500.0, (n_quarters, n_blocks))
    demand = np.sort(rng.uniform(0.0, peak, (n_quarters, n_blocks)), axis=1)[:, ::-1] * rng.uniform(
        0.5, 1.5, (n_quarters, 1)
    )
    mean = demand * rng.uniform(0.3, 1.0, (n_quarters, n_blocks))
    problem = PlanProblem(tuple(sources), DemandBlocks(hours, demand, mean), 1.02 ** -np.arange(n_quarters))
    if feasible and coverage_shortfalls(problem):
        unlimited = PlanSource("api_unlimited", "api", 1.0, 0.0, usd_per_request=5e-3)
        problem = PlanProblem((*problem.sources[:-1], unlimited), problem.blocks, problem.discount_factor)
    return problem


SEEDS = list(range(24))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_milp_equals_brute_force(seed: int) -> None:
    problem = random_problem(seed)
    plan = solve_plan(problem, mip_rel_gap=0.0)
    brute = brute_force_plan(problem)
    assert plan.objective_usd == pytest.approx(brute.objective_usd, rel=1e-9)
    assert plan.solver_objective_usd == pytest.approx(brute.objective_usd, rel=1e-6)
    assert plan.relative_gap <= 1e-6 and plan.status == "optimal"
    check = check_plan(problem, plan)
    assert check.ok, check.problems
    assert check.objective_usd == pytest.approx(plan.objective_usd, rel=1e-12)


def test_the_brute_force_instances_cover_every_kind_and_figure() -> None:
    sources = [s for seed in SEEDS for s in random_problem(seed).sources]
    assert {s.kind for s in sources} == set(KINDS)
    assert any(s.kind == "owned" and s.lead_time_quarters > 0 for s in sources)
    assert any(s.kind == "owned" and s.initial_units > 0 for s in sources)
    assert any(s.kind == "reserved" and s.term_quarters > 1 for s in sources)
    assert any(s.kind == "reserved" and s.initial_units > 0 for s in sources)
    assert any(s.kind == "api" and s.max_units is not None for s in sources)
    assert any(s.kind == "on_demand" and s.startup_hours > 0 for s in sources)
    assert any(s.max_units is not None and s.kind != "api" for s in sources)
    # and the plans found are mixes, not a single source each time
    mixed = 0
    for seed in SEEDS:
        plan = solve_plan(random_problem(seed), mip_rel_gap=0.0)
        mixed += sum(float(x.sum()) > 0 for x in plan.dispatch_rps.values()) > 1
    assert mixed >= len(SEEDS) // 3


def _flat(n_quarters: int, demand_rps: float, hours: float = 2190.0) -> DemandBlocks:
    return DemandBlocks(
        np.full((n_quarters, 1), hours), np.full((n_quarters, 1), demand_rps), np.full((n_quarters, 1), demand_rps)
    )


@pytest.mark.parametrize("demand_rps", [0.5, 20.0, 45.0, 60.0])
def test_one_owned_source_and_flat_demand_buys_ceil_demand_over_capacity(demand_rps: float) -> None:
    rack = PlanSource("rack", "owned", 20.0, 150.0, usd_per_request=1e-5)
    discount = np.array([1.0, 0.98, 0.96])
    plan = solve_plan(PlanProblem((rack,), _flat(3, demand_rps), discount))
    racks = math.ceil(demand_rps / 20.0)
    assert plan.quarter_units["rack"].tolist() == [racks] * 3
    assert plan.new_units["rack"].tolist() == [racks, 0, 0]
    # racks x hours x price + requests x energy price, each quarter discounted
    expected = float(((racks * 150.0 + demand_rps * 3600.0 * 1e-5) * 2190.0 * discount).sum())
    assert plan.objective_usd == pytest.approx(expected, rel=1e-12)


def test_an_api_alone_costs_its_requests_times_its_price() -> None:
    hours = np.array([[100.0, 500.0], [300.0, 1290.0]])
    blocks = DemandBlocks(hours, [[9.0, 4.0], [12.0, 3.0]], [[7.0, 2.5], [10.0, 1.0]])
    api = PlanSource("api", "api", 1.0, 0.0, usd_per_request=0.004)
    discount = np.array([1.0, 0.9])
    plan = solve_plan(PlanProblem((api,), blocks, discount))
    requests = 3600.0 * (blocks.hours * blocks.mean_rps)  # per block: mean rate x seconds
    assert plan.objective_usd == pytest.approx(float((requests.sum(axis=1) * 0.004 * discount).sum()), rel=1e-12)
    np.testing.assert_allclose(plan.block_units["api"], blocks.demand_rps)  # the rate held is the block's peak


def test_a_reservation_wins_when_demand_lasts_its_term_and_on_demand_when_it_lasts_one_block() -> None:
    # a replica: reserved $6/h for a 4-quarter term, on demand $10/h; 4 quarters of 2,190 h in two blocks
    reserved = PlanSource("reserved", "reserved", 10.0, 6.0, term_quarters=4)
    on_demand = PlanSource("on_demand", "on_demand", 10.0, 10.0)
    hours = np.array([[190.0, 2000.0]] * 4)
    discount = np.ones(4)
    lasting = DemandBlocks(hours, np.full((4, 2), 10.0), np.full((4, 2), 10.0))
    plan = solve_plan(PlanProblem((reserved, on_demand), lasting, discount))
    assert plan.new_units["reserved"].tolist() == [1, 0, 0, 0]
    assert plan.objective_usd == pytest.approx(6.0 * 4 * 2190.0)  # < 10 x 8,760 on demand
    brief = np.zeros((4, 2))
    brief[1, 0] = 10.0  # one block of 190 h in quarter 1
    plan = solve_plan(PlanProblem((reserved, on_demand), DemandBlocks(hours, brief, brief), discount))
    assert plan.quarter_units["reserved"].sum() == 0 and plan.block_units["on_demand"][1, 0] == 1
    assert plan.objective_usd == pytest.approx(10.0 * 190.0)  # < 6 x 2,190 for the reservation's one quarter


def test_on_demand_start_ups_are_charged_on_the_quarters_most_units_every_day() -> None:
    on_demand = PlanSource("od", "on_demand", 10.0, 8.0, startup_hours=0.5)
    blocks = DemandBlocks([[90.0, 2100.0]], [[25.0, 8.0]], [[25.0, 8.0]])
    plan = solve_plan(PlanProblem((on_demand,), blocks, [1.0]))
    assert plan.block_units["od"].tolist() == [[3.0, 1.0]] and plan.quarter_units["od"].tolist() == [3.0]
    # units x hours x price, plus 3 units x $8/h x 0.5 h x 91.25 days
    assert plan.objective_usd == pytest.approx(8.0 * (3 * 90.0 + 2100.0) + 3 * 8.0 * 0.5 * 2190.0 / 24)


def _scaled(problem: PlanProblem, *, source: int = -1, price: float = 1.0, demand: float = 1.0) -> PlanProblem:
    sources = list(problem.sources)
    if source >= 0:
        s = sources[source]
        sources[source] = PlanSource(
            s.name,
            s.kind,
            s.capacity_rps_per_unit,
            s.usd_per_unit_hour * price,
            s.usd_per_request * price,
            s.lead_time_quarters,
            s.term_quarters,
            s.startup_hours,
            s.available_fraction,
            s.max_units,
            s.initial_units,
        )
    b = problem.blocks
    return PlanProblem(
        tuple(sources), DemandBlocks(b.hours, b.demand_rps * demand, b.mean_rps * demand), problem.discount_factor
    )


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), which=st.integers(0, 2), factor=st.floats(1.0, 3.0))
def test_a_higher_price_of_a_source_never_lowers_the_total(seed: int, which: int, factor: float) -> None:
    problem = random_problem(seed)
    source = which % len(problem.sources)
    base = solve_plan(problem, mip_rel_gap=0.0).objective_usd
    dearer = solve_plan(_scaled(problem, source=source, price=factor), mip_rel_gap=0.0).objective_usd
    assert dearer >= base * (1 - 1e-9)


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), factor=st.floats(1.0, 1.5))
def test_more_demand_never_lowers_the_total(seed: int, factor: float) -> None:
    problem = random_problem(seed)
    more = _scaled(problem, demand=factor)
    if coverage_shortfalls(more):  # a rate limit reached: more demand is then infeasible, not cheaper
        with pytest.raises(PlanInfeasible):
            solve_plan(more)
        return
    assert solve_plan(more, mip_rel_gap=0.0).objective_usd >= solve_plan(problem, mip_rel_gap=0.0).objective_usd * (
        1 - 1e-9
    )


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000))
def test_the_plan_is_never_dearer_than_the_best_single_source(seed: int) -> None:
    problem = random_problem(seed)
    plan = solve_plan(problem, mip_rel_gap=0.0)
    best = best_single_source(problem, mip_rel_gap=0.0)
    if best is not None:
        assert plan.objective_usd <= best[1] * (1 + 1e-9)
        alone = solve_single_source(problem, best[0], mip_rel_gap=0.0)
        assert best[1] == pytest.approx(alone.objective_usd)
        assert check_plan(problem, alone).ok  # the others' initial units held and paid, carrying nothing
        assert all(alone.dispatch_rps[s.name].sum() == 0 for s in problem.sources if s.name != best[0])


def test_a_single_source_plan_still_pays_the_units_already_held() -> None:
    rack = PlanSource("rack", "owned", 10.0, 3.0, initial_units=2)
    api = PlanSource("api", "api", 1.0, 0.0, usd_per_request=0.001)
    problem = PlanProblem((rack, api), _flat(2, 30.0), [1.0, 0.9])
    alone = solve_single_source(problem, "api")
    paid = 2 * 3.0 * 2190.0 * 1.9
    assert alone.objective_usd == pytest.approx(paid + 30.0 * 3600.0 * 2190.0 * 0.001 * 1.9)
    assert alone.quarter_units["rack"].tolist() == [2, 2] and alone.dispatch_rps["rack"].sum() == 0


def test_no_owned_capacity_serves_before_its_lead_time() -> None:
    rack = PlanSource("rack", "owned", 10.0, 1.0, lead_time_quarters=2)  # far cheaper than the API
    api = PlanSource("api", "api", 1.0, 0.0, usd_per_request=0.01)
    plan = solve_plan(PlanProblem((rack, api), _flat(4, 25.0), np.ones(4)))
    assert plan.quarter_units["rack"].tolist() == [0, 0, 3, 3]
    assert plan.new_units["rack"].tolist() == [0, 0, 3, 0]
    assert plan.dispatch_rps["rack"][:2].sum() == 0 and plan.dispatch_rps["api"][:2].tolist() == [[25.0], [25.0]]
    # initial racks serve from the start; none are added before the lead time
    held = PlanSource("rack", "owned", 10.0, 1.0, lead_time_quarters=2, initial_units=1)
    plan = solve_plan(PlanProblem((held, api), _flat(4, 25.0), np.ones(4)))
    assert plan.quarter_units["rack"].tolist() == [1, 1, 3, 3]


def test_a_block_no_mix_covers_is_named_with_its_shortfall() -> None:
    blocks = DemandBlocks([[100.0, 2090.0], [100.0, 2090.0]], [[8.0, 3.0], [14.0, 6.0]], [[7.0, 2.0], [13.0, 5.0]])
    api = PlanSource("api", "api", 1.0, 0.0, usd_per_request=0.004, max_units=5.0)
    rack = PlanSource("rack", "owned", 4.0, 2.0, lead_time_quarters=1, max_units=2)
    problem = PlanProblem((api, rack), blocks, [1.0, 0.98])
    # quarter 0: only the API (5) against 8 and 3; quarter 1: 5 + 2 racks x 4 = 13 against 14 and 6
    with pytest.raises(PlanInfeasible) as caught:
        solve_plan(problem)
    assert [(s.quarter, s.block, s.shortfall_rps) for s in caught.value.shortfalls] == [(0, 0, 3.0), (1, 0, 1.0)]
    message = str(caught.value)
    assert "quarter 0, block 0" in message and "3 requests/s short" in message
    assert "quarter 1, block 0" in message and "1 requests/s short" in message
    assert isinstance(caught.value, ScenarioError) and caught.value.problems[0].path == "sources"
    with pytest.raises(PlanInfeasible, match="the source 'api' alone can carry at most 5"):
        solve_single_source(problem, "api")
    assert best_single_source(problem) is None
    # without the rate limit the API alone covers, and is the best single source (the racks alone cannot)
    free = PlanSource("api", "api", 1.0, 0.0, usd_per_request=0.004)
    problem = PlanProblem((free, rack), blocks, [1.0, 0.98])
    name, cost = best_single_source(problem) or ("", 0.0)
    assert name == "api" and cost == pytest.approx(solve_single_source(problem, "api").objective_usd)


def test_many_short_blocks_are_summarised_after_ten() -> None:
    blocks = DemandBlocks(np.full((4, 6), 365.0), np.full((4, 6), 9.0), np.full((4, 6), 9.0))
    api = PlanSource("api", "api", 1.0, 0.0, usd_per_request=0.004, max_units=5.0)
    with pytest.raises(PlanInfeasible) as caught:
        solve_plan(PlanProblem((api,), blocks, np.ones(4)))
    assert len(caught.value.shortfalls) == 24 and len(caught.value.problems) == 11
    assert "and 14 more blocks short, by up to 4 requests/s" in str(caught.value)


def test_demand_blocks_sorts_each_quarter_and_cuts_it_in_equal_counts_or_finer_near_the_top() -> None:
    rng = np.random.default_rng(3)
    quarter = np.repeat(np.arange(3), [40, 50, 45])
    rate = rng.uniform(0.0, 100.0, quarter.size)
    blocks, where = demand_blocks(rate, quarter, 4, spacing="top")
    for q in range(3):  # a loop reference: sort the quarter down, cut at round(n (k/4)^2)
        r = np.sort(rate[quarter == q])[::-1]
        edges = np.rint(r.size * (np.arange(5) / 4) ** 2).astype(int)
        assert blocks.hours[q].tolist() == np.diff(edges).tolist()
        for k in range(4):
            part = r[edges[k] : edges[k + 1]]
            assert blocks.demand_rps[q, k] == part.max()
            assert blocks.mean_rps[q, k] == pytest.approx(part.mean(), rel=1e-12)
            assert sorted(rate[(quarter == q) & (where == k)].tolist()) == sorted(part.tolist())
    equal, _ = demand_blocks(rate, quarter, 4)  # the default
    assert equal.hours.tolist() == [[10] * 4, [12, 13, 13, 12], [11, 11, 12, 11]]  # round(n k / 4), half to even
    assert blocks.hours[0].tolist() == [2, 8, 12, 18]
    # at least one hour a block even where (k/B)^2 rounds two edges together
    tiny, _ = demand_blocks(np.arange(6.0), np.zeros(6, dtype=int), 5, spacing="top")
    assert tiny.hours.tolist() == [[1, 1, 1, 1, 2]] and tiny.demand_rps.tolist() == [[5, 4, 3, 2, 1]]


@pytest.mark.parametrize(
    ("rates", "quarters", "blocks", "match"),
    [
        ([1.0, -1.0], [0, 0], 1, "hourly_rps must be finite and >= 0"),
        ([1.0, np.nan], [0, 0], 1, "hourly_rps must be finite and >= 0"),
        ([1.0, 2.0], [0], 1, "the same, non-zero length"),
        ([1.0, 2.0, 3.0], [0, 0, 1], 2, "the fewest hours in a quarter is 1"),
        ([1.0, 2.0], [0, 0], 0, "blocks_per_quarter"),
    ],
)
def test_demand_blocks_refuses_bad_hours(rates: list[float], quarters: list[int], blocks: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        demand_blocks(rates, quarters, blocks)


@pytest.mark.parametrize(
    ("source", "match"),
    [
        (PlanSource("a", "api", 0.0, 0.0), r"sources\[0\] \('a'\)\.capacity_rps_per_unit must be a finite number > 0"),
        (PlanSource("a", "spot", 1.0, 1.0, available_fraction=1.5), r"available_fraction must be <= 1"),
        (PlanSource("a", "spot", 1.0, -1.0), r"usd_per_unit_hour must be a finite number >= 0"),
        (PlanSource("a", "spot", 1.0, 1.0, term_quarters=4), r"term_quarters applies to reserved sources only"),
        (PlanSource("a", "owned", 1.0, 1.0, initial_units=3, max_units=2), r"initial_units \(3\) must not exceed"),
        (PlanSource("a", "cloud", 1.0, 1.0), r"kind must be one of owned, reserved"),
    ],
)
def test_a_bad_source_is_refused_naming_its_field(source: PlanSource, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        PlanProblem((source,), _flat(1, 1.0), [1.0])


def test_duplicate_names_and_bad_periods_are_refused() -> None:
    a = PlanSource("a", "api", 1.0, 0.0)
    with pytest.raises(ValueError, match="the name 'a' is used more than once"):
        PlanProblem((a, a), _flat(1, 1.0), [1.0])
    with pytest.raises(ValueError, match="discount_factor must be 2 finite numbers > 0"):
        PlanProblem((a,), _flat(2, 1.0), [1.0])
    with pytest.raises(ValueError, match="mean_rps must not exceed demand_rps"):
        DemandBlocks([[1.0]], [[1.0]], [[2.0]])


def test_check_plan_finds_a_broken_plan() -> None:
    problem = random_problem(4)
    plan = solve_plan(problem)
    name = problem.sources[0].name
    short = {**plan.dispatch_rps, name: plan.dispatch_rps[name] * 0.5}
    broken = PlanSolution(**{**plan.__dict__, "dispatch_rps": short})
    problems = check_plan(problem, broken).problems
    assert any("!= demand" in p for p in problems) and any("reported cost_usd" in p for p in problems)
    cheaper = PlanSolution(**{**plan.__dict__, "objective_usd": plan.objective_usd * 0.9})
    assert any(p.startswith("objective") for p in check_plan(problem, cheaper).problems)


def test_the_solver_options_are_checked_and_a_small_plan_is_proven_optimal() -> None:
    problem = random_problem(0)
    plan = solve_plan(problem, time_limit_s=30.0)
    assert plan.status == "optimal" and plan.dual_bound_usd <= plan.objective_usd * (1 + 1e-9)
    with pytest.raises(ValueError, match="mip_rel_gap"):
        solve_plan(problem, mip_rel_gap=1.0)
    with pytest.raises(ValueError, match="time_limit_s"):
        solve_plan(problem, time_limit_s=0.0)


@pytest.mark.parametrize("kind", ["spot", "on_demand", "owned", "reserved"])
def test_demand_below_the_integrality_tolerance_still_gets_a_whole_unit(kind: str) -> None:
    # HiGHS holds an integer within 1e-6 (absolute): 1e-6 requests/s needs 5e-8 of a 20 requests/s unit, which it
    # may keep as "0" and rounding left the block short (PlanUnsolved); one whole unit carries it
    blocks = DemandBlocks(hours=[[84.0, 84.0]], demand_rps=[[1e-6, 1e-6]], mean_rps=[[1e-6, 1e-6]])
    problem = PlanProblem((PlanSource("one", kind, 20.0, 16.0),), blocks, [1.0])  # type: ignore[arg-type]
    plan = solve_plan(problem, mip_rel_gap=0.0)
    assert plan.block_units["one"].tolist() == [[1.0, 1.0]]
    assert check_plan(problem, plan).ok
    assert plan.objective_usd == pytest.approx(16.0 * 168.0, rel=1e-12)  # 1 unit x 168 h x $16
