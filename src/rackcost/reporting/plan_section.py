"""The report's Buying plan section (docs/report.md), and the words and tables the dashboard's Plan page shows too.

For a scenario with a ``plan`` block, :func:`plan_section` words its plan (found once per evaluation,
:func:`rackcost.evaluation.planning.plan_of`): the saving against the best single source first (:func:`plan_sentence`),
what each source holds and when it is bought (:func:`holdings`), the plan per quarter (:func:`quarter_table`) and per
year (:func:`year_table`), the solver's gap (:func:`solver_sentence`) and the chart of
:mod:`rackcost.reporting.plan_charts`. A scenario without a ``plan`` block has no such section, and costs nothing. Every
figure is the plan's own (realised hour by hour with the full model), formatted by :mod:`rackcost.display`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from rackcost import display
from rackcost.errors import ScenarioError
from rackcost.model.buying.source_kinds import Holding
from rackcost.reporting import plan_charts
from rackcost.reporting.blocks import Block, Bullets, Chart, Paragraph, Section, Subheading, Table, section, width
from rackcost.reporting.decision import plan_sentence
from rackcost.scenario.schema import Scenario

if TYPE_CHECKING:
    from rackcost.evaluation.planning import PlanResult

__all__ = [
    "holdings",
    "plan_blocks",
    "plan_section",
    "plan_sentence",
    "quarter_label",
    "quarter_table",
    "solver_sentence",
    "unit_column",
    "year_table",
]


def quarter_label(quarter: int) -> str:
    """A quarter of the horizon (1 is the first) as a reader says it.

    >>> quarter_label(1), quarter_label(6)
    ('Y1 Q1', 'Y2 Q2')
    """
    return f"Y{(quarter - 1) // 4 + 1} Q{(quarter - 1) % 4 + 1}"


def unit_column(plan: PlanResult, index: int) -> str:
    """The ``PlanResult.periods`` column of the units a source holds."""
    f = plan.sources[index]
    return f"{f.source.name}: {f.source.kind.units[0]}"


def _used(plan: PlanResult) -> list[int]:
    unused = set(plan_charts.unused_sources(plan))
    return [i for i, f in enumerate(plan.sources) if f.source.name not in unused]


def _bought(plan: PlanResult, index: int) -> str:
    """When an owned source's racks start serving, or a reserved source's terms start, in words ('' for the
    others)."""
    f = plan.sources[index]
    if not f.source.kind.holding.per_quarter:
        return ""
    new = np.asarray(plan.solution.new_units.get(f.source.name, []), dtype=float)
    per = f.racks_per_unit if f.source.kind.payment.owned else 1
    steps = [f"{display.count(round(n) * per)} from {quarter_label(q + 1)}" for q, n in enumerate(new) if round(n) > 0]
    if not steps:
        return ""
    if f.source.kind.holding is Holding.bought:
        lead = f.source.lead_time_quarters or 0
        ahead = f" (each bought {lead} quarter{'s' if lead != 1 else ''} ahead)" if lead else ""
        return f"; new {f.source.kind.units[2]} serving: " + ", ".join(steps) + ahead
    term = f.source.term_quarters or 4
    return f"; {f.source.kind.units[2]} reserved for {term} quarters: " + ", ".join(steps)


def holdings(plan: PlanResult) -> list[str]:
    """What each source the plan uses holds, its share of the requests and, for owned and reserved capacity, when
    each step starts; then the sources it does not use."""
    r = plan.realised
    demand = float(np.asarray(plan.hourly_rps, dtype=float).sum())
    items = []
    for i in _used(plan):
        f = plan.sources[i]
        column = unit_column(plan, i)
        most = float(plan.periods[column].max())
        unit = f.source.kind.units[2]
        amount = display.count(most) if f.source.kind.holding.whole else display.num(most)
        share = float(r.served_rps[i].sum()) / demand if demand > 0 else 0.0
        items.append(
            f"{f.source.name} ({f.source.kind.words}, system {f.source.system}): up to {amount} {unit}, "
            f"{display.pct(share)} of the requests" + _bought(plan, i) + "."
        )
    if unused := plan_charts.unused_sources(plan):
        items.append(f"Not used: {', '.join(unused)}.")
    return items


def quarter_table(plan: PlanResult) -> Table:
    """The plan per quarter: the busiest hour's demand, the units of each source used, the cost as paid and at
    present value, and the cost per 1,000 accepted requests."""
    used = _used(plan)
    columns = [("quarter", "quarter"), ("peak_demand_rps", "busiest hour [requests/s]")]
    columns += [
        (unit_column(plan, i), f"{plan.sources[i].source.name} [{plan.sources[i].source.kind.units[1]}]") for i in used
    ]
    columns += [
        ("cost_usd", "cost [USD]"),
        ("cost_present_usd", "present value [USD]"),
        ("usd_per_accepted_request", f"cost [{display.PER_1K_ACCEPTED}]"),
    ]
    rows = []
    for row in plan.periods.to_dict(orient="records"):
        cells = [quarter_label(int(row["quarter"])), display.num(row["peak_demand_rps"])]
        for i in used:
            value = float(row[unit_column(plan, i)])
            cells.append(display.count(value) if plan.sources[i].source.kind.holding.whole else display.num(value))
        per = row["usd_per_accepted_request"]
        cells += [
            display.money(row["cost_usd"]),
            display.money(row["cost_present_usd"]),
            display.usd_per_1k_requests(per) if per is not None and np.isfinite(per) else "-",
        ]
        rows.append(cells)
    return Table("plan-quarters", columns, rows)


def year_table(plan: PlanResult) -> Table:
    """The plan per year and over the horizon: cost as paid and at present value, accepted requests, cost per 1,000
    accepted requests."""
    columns = [
        ("year", "year"),
        ("cost_usd", "cost [USD]"),
        ("cost_present_usd", "present value [USD]"),
        ("accepted_requests", "accepted requests [-]"),
        ("usd_per_accepted_request", f"cost [{display.PER_1K_ACCEPTED}]"),
    ]

    def cells(name: str, cost: float, present: float, accepted: float) -> list[str]:
        per = display.usd_per_1k_requests(cost / accepted) if accepted > 0 else "-"
        return [name, display.money(cost), display.money(present), display.num(accepted), per]

    rows = [
        cells(f"Y{int(y['year'])}", y["cost_usd"], y["cost_present_usd"], y["accepted_requests"])
        for y in plan.years.to_dict(orient="records")
    ]
    y = plan.years
    rows.append(
        cells(
            "horizon",
            float(y["cost_usd"].sum()),
            float(y["cost_present_usd"].sum()),
            float(y["accepted_requests"].sum()),
        )
    )
    return Table("plan-years", columns, rows)


def solver_sentence(plan: PlanResult, asked_gap_fraction: float | None = None) -> str:
    """What the solver proved: its status, the plan's value in the program's linear figures, the proven bound and the
    gap between them (against the gap asked), and the rounds of capacity checks."""
    s = plan.solution
    asked = f" (asked: {display.pct(asked_gap_fraction, 2)})" if asked_gap_fraction is not None else ""
    status = "found the optimal plan" if s.status == "optimal" else f"stopped ({s.status.replace('_', ' ')})"
    rounds = f"{plan.rounds} solve{'s' if plan.rounds != 1 else ''}"
    return (
        f"The solver (HiGHS) {status}: {display.money(s.objective_usd)} at present value in the program's linear "
        f"figures, against a proven lower bound of {display.money(s.dual_bound_usd)}, a gap of "
        f"{display.pct(s.relative_gap, 2)}{asked}, after {rounds} with each source's capacity checked at the plan's "
        "own fleet sizes. The figures above are the plan realised hour by hour with the full model (each hour's "
        "demand in merit order over the units held, each fleet's accepted share and cost at its load)."
    )


def plan_blocks(plan: PlanResult, asked_gap_fraction: float | None = None) -> list[Block]:
    """The section's blocks: the answer, the holdings, the tables, the solver and the chart."""
    return [
        Paragraph(plan_sentence(plan), strong=True),
        Bullets(holdings(plan)),
        Chart("plan-capacity", width(plan_charts.capacity_chart(plan)), plan_charts.description(plan)),
        Subheading("Per quarter"),
        Paragraph(
            "Units are the most each source holds in the quarter (owned racks and reservations are held all quarter; "
            "on-demand and spot replicas follow the demand; the API is the most requests/s it carries). Cost is as "
            "paid in the quarter; present value discounts it to the start of the horizon."
        ),
        quarter_table(plan),
        Subheading("Per year"),
        year_table(plan),
        Paragraph(solver_sentence(plan, asked_gap_fraction)),
    ]


def plan_section(scenario: Scenario, plan: Any) -> Section | None:
    """The Buying plan section of a scenario with a ``plan`` block (None without one).

    Parameters
    ----------
    scenario
        The scenario as given.
    plan
        What :func:`planned` gave: the plan, the error that says why there is none, or None.
    """
    if plan is None:
        return None
    if isinstance(plan, ScenarioError):
        problems = [f"{p.path}: {p.message}" if p.path else p.message for p in plan.problems]
        return section(
            "plan",
            [
                Paragraph("No buying plan: the scenario's plan block cannot be met.", strong=True),
                Bullets(problems),
            ],
        )
    asked = scenario.plan.mip_rel_gap_fraction if scenario.plan is not None else None
    return section("plan", plan_blocks(plan, asked))
