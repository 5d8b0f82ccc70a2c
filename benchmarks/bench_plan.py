"""Time of the buying plan's MILP at a realistic size, with its gap to the proven bound (never a timed test).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/bench_plan.py`` (``--blocks N``, ``--spacing top|equal``,
``--time-limit S``, ``--sweep`` for the block-count study of docs/model.md, "The buying plan", ``--exact-owned`` for
the exact optimum without reservations by dynamic programming over the owned racks, which measures how far the MILP's
plan is from the optimum when its proven bound is loose).

12 quarters (3 years) x 24 blocks x 5 sources, one of each kind, with figures of the order of a DeepSeek-R1 fleet on
GB200 NVL72 racks (assumptions for timing, not the bundled scenario's cited figures):

- demand: a weekly profile (a day's swing between 35% and 100% of the peak, weekends at 70%), 600 requests/s at the
  first week's peak, growing 40%/year compound, hour by hour; quarters of 2,190 h (issue 24's convention);
- owned: a rack at $3.3M levelised over 4 years at 8%/year (capital recovery factor 0.3019: $113.7/h) plus $30/h of
  fixed opex and idle energy, 25 requests/s per rack, energy above idle $6.4/h at full load ($7.1e-5/request),
  a lead time of 2 quarters and 8 racks held at the start;
- reserved: 72 GPUs x $3.00/GPU-h, a 4-quarter term, 25 requests/s a replica;
- on-demand: 72 x $6.00/GPU-h, 0.5 h of start-up a day; spot: 72 x $2.50/GPU-h, 80% available;
- API: $0.55/M input and $2.19/M output tokens (DeepSeek's published R1 price) at 1,000 + 2,000 tokens a
  request ($0.00493/request), rate-limited to 30 requests/s;
- discount: 8%/year, each quarter's cost at its middle.

Goal (issue 24): under 10 s and within 0.5% of the proven bound.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from rackcost.model.buying.plan import (
    DemandBlocks,
    PlanProblem,
    PlanSource,
    check_plan,
    demand_blocks,
    solve_plan,
)
from rackcost.model.costs.finance import capital_recovery_factor

QUARTERS = 12
HOURS_PER_QUARTER = 2190
RATE = 0.08


def hourly_demand_rps(quarters: int = QUARTERS) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's hourly demand over the horizon and the quarter of each hour."""
    hour = np.arange(quarters * HOURS_PER_QUARTER)
    of_day = hour % 24
    day_of_week = (hour // 24) % 7  # the horizon starts on a Monday
    swing = 0.35 + 0.65 * 0.5 * (1 - np.cos(2 * np.pi * (of_day - 3) / 24))  # lowest at 03:00, highest at 15:00
    weekly = np.where(day_of_week >= 5, 0.7, 1.0)
    growth = 1.40 ** (hour / 8760.0)
    return 600.0 * swing * weekly * growth, hour // HOURS_PER_QUARTER


def sources() -> tuple[PlanSource, ...]:
    """The five sources of the benchmark (module docstring)."""
    capital_usd_per_h = 3.3e6 * float(capital_recovery_factor(RATE, 4.0)) / 8760.0
    per_request = 0.55e-6 * 1000 + 2.19e-6 * 2000
    return (
        PlanSource(
            "owned",
            "owned",
            25.0,
            capital_usd_per_h + 30.0,
            usd_per_request=6.4 / (25.0 * 3600.0),
            lead_time_quarters=2,
            initial_units=8,
        ),
        PlanSource("reserved", "reserved", 25.0, 72 * 3.00, term_quarters=4),
        PlanSource("on_demand", "on_demand", 25.0, 72 * 6.00, startup_hours=0.5),
        PlanSource("spot", "spot", 25.0, 72 * 2.50, available_fraction=0.8),
        PlanSource("api", "api", 1.0, 0.0, usd_per_request=per_request, max_units=30.0),
    )


def problem(blocks_per_quarter: int = 24, spacing: str = "equal", quarters: int = QUARTERS) -> PlanProblem:
    """The benchmark's plan problem."""
    rate, quarter = hourly_demand_rps(quarters)
    blocks, _ = demand_blocks(rate, quarter, blocks_per_quarter, spacing="top" if spacing == "top" else "equal")
    discount = (1 + RATE) ** (-(np.arange(quarters) + 0.5) / 4)
    return PlanProblem(sources(), blocks, discount)


def run(blocks_per_quarter: int, spacing: str, time_limit_s: float | None) -> None:
    started = time.perf_counter()
    p = problem(blocks_per_quarter, spacing)
    built = time.perf_counter()
    plan = solve_plan(p, time_limit_s=time_limit_s)
    done = time.perf_counter()
    check = check_plan(p, plan)
    print(
        f"{p.shape[0]} quarters x {p.shape[1]} blocks ({spacing}) x {len(p.sources)} sources: "
        f"blocks {built - started:.2f} s, solve {plan.solve_s:.2f} s, total {done - started:.2f} s, "
        f"status {plan.status}"
    )
    print(
        f"  plan ${plan.objective_usd:,.0f} (present value), proven bound ${plan.dual_bound_usd:,.0f}, "
        f"gap {100 * plan.relative_gap:.4f}%  (HiGHS's objective ${plan.solver_objective_usd:,.0f}); "
        f"check_plan: {'ok' if check.ok else check.problems}"
    )
    print(f"  {'quarter':>7}" + "".join(f"{s.name:>11}" for s in p.sources) + f"{'peak r/s':>11}")
    for q in range(p.shape[0]):
        row = "".join(f"{plan.quarter_units[s.name][q]:>11.1f}" for s in p.sources)
        print(f"  {q:>7}{row}{p.blocks.demand_rps[q, 0]:>11.0f}")
    print(
        "  present value by source [$M]: "
        + ", ".join(f"{s.name} {plan.cost_present_usd[s.name].sum() / 1e6:.2f}" for s in p.sources)
    )


def sweep() -> None:
    """The plan's cost against the blocks per quarter and their spacing, and the overcover of the blocks: the hours
    x (block peak - hour's rate), as a share of the requests."""
    rate, quarter = hourly_demand_rps()
    print("blocks  spacing   overcover   plan [$M]   solve [s]   gap")
    for n in (6, 12, 24, 48):
        for spacing in ("equal", "top"):
            blocks, where = demand_blocks(rate, quarter, n, spacing="top" if spacing == "top" else "equal")
            over = (blocks.demand_rps[quarter, where] - rate).sum() / rate.sum()
            plan = solve_plan(problem(n, spacing), time_limit_s=8.0)
            print(
                f"{n:>6}  {spacing:<8}{100 * over:>9.2f}%  {plan.objective_usd / 1e6:>10.4f}  {plan.solve_s:>10.2f}"
                f"  {100 * plan.relative_gap:.3f}%"
            )


def exact_owned(blocks_per_quarter: int = 24, spacing: str = "equal") -> None:
    """The cheapest plan with no reservation, exactly: for each quarter and each count of owned racks H, the
    quarter's cheapest rest (on-demand, spot, API; one small MILP solved to gap 0), then the cheapest non-decreasing
    H over the quarters (dynamic programming, H fixed at the initial racks before the lead time)."""
    p = problem(blocks_per_quarter, spacing)
    owned, _, on_demand, spot, api = p.sources
    started = time.perf_counter()
    n_quarters = p.shape[0]
    top = int(np.ceil(p.blocks.demand_rps.max() / owned.rps_per_unit))
    counts = range(owned.initial_units, top + 1)
    rest = np.empty((n_quarters, len(counts)))
    for q in range(n_quarters):
        one = DemandBlocks(p.blocks.hours[q : q + 1], p.blocks.demand_rps[q : q + 1], p.blocks.mean_rps[q : q + 1])
        for k, held in enumerate(counts):
            fixed = dataclasses.replace(owned, initial_units=held, lead_time_quarters=1)  # held, none added
            quarter = PlanProblem((fixed, on_demand, spot, api), one, p.discount_factor[q : q + 1])
            rest[q, k] = solve_plan(quarter, mip_rel_gap=0.0).objective_usd
    allowed = np.array(
        [[q >= owned.lead_time_quarters or held == owned.initial_units for held in counts] for q in range(n_quarters)]
    )
    best = np.where(allowed[0], rest[0], np.inf)
    for q in range(1, n_quarters):
        best = np.where(allowed[q], np.minimum.accumulate(best) + rest[q], np.inf)
    print(
        f"exact optimum without reservations ({blocks_per_quarter} blocks, {spacing}): ${best.min():,.0f} "
        f"({time.perf_counter() - started:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=24)
    parser.add_argument("--spacing", choices=("equal", "top"), default="equal")
    parser.add_argument("--time-limit", type=float, default=8.0)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--exact-owned", action="store_true")
    args = parser.parse_args()
    if args.sweep:
        sweep()
    elif args.exact_owned:
        exact_owned(args.blocks, args.spacing)
    else:
        run(args.blocks, args.spacing, args.time_limit)


if __name__ == "__main__":
    main()
