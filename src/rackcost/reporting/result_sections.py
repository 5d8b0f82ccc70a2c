"""The report's sections about the result: the systems and their fleets, the cost at each demand point,
the latency cliff, the claim against the decision, and the warnings. Each takes the evaluated tables (and the
outcomes, for charts) and returns a :class:`~rackcost.reporting.blocks.Section`.
"""

from __future__ import annotations

from typing import Any

from rackcost import display
from rackcost.analysis.explore import cost_against_demand_scale, latency_cliff, operating_curves, with_systems
from rackcost.evaluation.columns import FLEET_SUMMARY, column
from rackcost.evaluation.compare import headline_sentences
from rackcost.model.strategies import Payment
from rackcost.reporting import charts
from rackcost.reporting.blocks import (
    NOT_APPLICABLE,
    Block,
    Bullets,
    Chart,
    Paragraph,
    Section,
    Subheading,
    Table,
    section,
    width,
)
from rackcost.reporting.charts import ChartSubset
from rackcost.reporting.decision import answer_sentence
from rackcost.scenario.feasibility import UNSERVED_WORDS
from rackcost.scenario.schema import Scenario

__all__ = [
    "CLIFF_COLUMNS",
    "POINT_COLUMNS",
    "SYSTEM_COLUMNS",
    "answer_sentence",
    "unserved_sentence",
    "claim_section",
    "cliff_section",
    "cost_section",
    "described",
    "drawn_outcomes",
    "systems_section",
    "warnings_section",
]


def described(description: str, subset: ChartSubset, points: bool = False) -> str:
    """A chart's description, with what it leaves out when the scenario is larger than a chart shows."""
    note = subset.note(points)
    return f"{description} {note}" if note else description


def drawn_outcomes(outcomes: list[Any], subset: ChartSubset) -> list[Any]:
    """The outcomes of the systems the charts draw (the same objects: their charts' data are computed from them)."""
    drawn = set(subset.systems)
    return [o for o in outcomes if o.inputs.name in drawn]


def unserved_sentence(unserved: dict[str, Any]) -> str:
    """Why a system is left out (a row of ``Result.unserved``): which limit, by how much, and where.

    Examples
    --------
    >>> unserved_sentence({"system": "X", "path": "systems[1].performance", "limit": "slo",
    ...                    "reason": "no operating point meets TPOT <= 5 ms"})
    'it cannot meet the SLO. No operating point meets TPOT <= 5 ms (systems[1].performance).'
    """
    what = "its node does not fit the rack power limit"
    if unserved["limit"] != "rack_power":
        what = f"it {UNSERVED_WORDS.get(unserved['limit'], 'cannot be served')}"
    reason = unserved["reason"]
    return f"{what}. {reason[:1].upper()}{reason[1:]} ({unserved['path']})."


SYSTEM_COLUMNS = tuple(column("systems", name) for name in ("payment", "provenance", *FLEET_SUMMARY))
"""Columns of the per-system table, after the system (headers and formats from the registry)."""

POINT_COLUMNS = tuple(
    column("points", name)
    for name in (
        "hours_per_day",
        "offered_rps",
        "accepted_rps",
        "rejected_fraction",
        "utilization_fraction",
        "facility_power_kw",
        "capital_usd_per_hour",
        "fixed_opex_usd_per_hour",
        "energy_usd_per_hour",
        "rent_usd_per_hour",
        "api_usd_per_hour",
        "total_usd_per_hour",
        "usd_per_accepted_request",
        "usd_per_million_accepted_output_tokens",
        "carbon_g_per_accepted_request",
    )
)
"""Columns of the cost table, after system and demand point."""

CLIFF_COLUMNS = tuple(
    column("points", name)
    for name in (
        "system",
        "demand_point",
        "offered_rps",
        "capacity_at_slo_rps",
        "spare_capacity_fraction",
        "ttft_p99_ms",
        "status",
    )
)
"""Columns of the latency-cliff table."""


def systems_section(
    scenario: Scenario, result: Any, outcomes: list[Any], subset: ChartSubset, kv_notes: list[str] | None = None
) -> Section:
    """The systems and their fleets: the table, where KV-cache memory caps an operating point (``kv_notes``,
    :func:`rackcost.reporting.breakdowns.kv_limit_notes`), and the operating-point curves."""
    rows = result.records["systems"]
    points = result.records["points"]
    sizing = scenario.sizing_point.name
    wall = {p["system"]: p["facility_power_kw"] for p in points if p["demand_point"] == sizing}
    table = Table(
        "systems",
        [("system", "system")]
        + [(c.name, c.header) for c in SYSTEM_COLUMNS]
        + [("facility_power_kw", f"wall power at {sizing} demand [kW]")],
        [
            [r["system"]]
            + [c.format(r[c.name]) for c in SYSTEM_COLUMNS]
            + [display.num(wall[r["system"]]) if Payment(r["payment"]).has_fleet else NOT_APPLICABLE]
            for r in rows
        ],
    )
    blocks: list[Block] = [
        Paragraph(
            "Each system runs at the operating point that meets the SLO with the fewest replicas for the sizing "
            f"demand ({sizing}); the fleet is that many replicas, divided by availability, plus spares, packed into "
            "racks by node slots and by the rack power limit. Wall power is IT power (accelerators, hosts, rack "
            "overheads) times PUE. An API system has no fleet: its cells are '-'."
        ),
        table,
    ]
    if kv_notes:
        blocks += [
            Paragraph(
                "KV-cache memory limits the operating point: a replica's memory holds fewer requests in flight than "
                "some operating points that meet the SLO, so the fleet runs at a batch the memory holds, which may "
                "need more replicas than the curve alone would.",
                strong=True,
            ),
            Bullets(list(kv_notes)),
        ]
    if outcomes:
        drawn = drawn_outcomes(outcomes, subset)
        blocks += [
            Chart(
                "operating-curves",
                width(
                    charts.curves_chart(
                        operating_curves(scenario, outcomes=drawn),
                        scenario.slo.tpot_limit_ms,
                        systems=subset.systems,
                    )
                ),
                described(
                    "Throughput per accelerator against interactivity for each system, the TPOT limit as a red line "
                    "and the chosen operating point as a diamond.",
                    subset,
                ),
            ),
            Paragraph(
                "Right of the red line the TPOT limit is met. Measured points are dots (faded where TPOT or TTFT "
                "misses the SLO before queueing); the diamond is the chosen operating point."
            ),
        ]
    return section("systems", blocks)


def cost_section(scenario: Scenario, result: Any, subset: ChartSubset) -> Section:
    points = result.records["points"]
    apis = {s.name for s in scenario.systems if s.api is not None}
    # rent and API columns only where some system pays them
    shown = [
        c
        for c in POINT_COLUMNS
        if c.name not in ("rent_usd_per_hour", "api_usd_per_hour") or any(p.get(c.name) for p in points)
    ]
    table = Table(
        "points",
        [("system", "system"), ("demand_point", "demand point")] + [(c.name, c.header) for c in shown],
        [
            [p["system"], p["demand_point"]]
            + [NOT_APPLICABLE if p["system"] in apis and c.fleet_only else c.format(p.get(c.name)) for c in shown]
            for p in points
        ],
        keys=2,
    )
    return section(
        "cost",
        [
            Paragraph(
                "Cost per hour = capital (capex x capital recovery factor / 8,760 h) + fixed opex + energy (wall kW x "
                "price), or rent, or the API's price; divided by the requests accepted within the SLO. Rejected = "
                "offered - accepted (late, or refused by admission control above capacity)."
            ),
            table,
            Chart(
                "cost-by-component",
                charts.cost_chart(points, subset.systems, subset.points),
                described(
                    "Cost per accepted request of each system at each demand point, stacked by cost component.",
                    subset,
                    points=True,
                ),
            ),
            Chart(
                "cost-against-demand-scale",
                # of the systems drawn alone: the same figures, for their work only
                charts.demand_scale_chart(
                    cost_against_demand_scale(with_systems(scenario, subset.systems)[0]),
                    systems=subset.systems,
                ),
                described(
                    "Blended cost per 1,000 accepted requests of each system as every demand point is scaled by one "
                    "factor, the fleet sized again for each.",
                    subset,
                ),
            ),
            Paragraph(
                "Every demand point scaled by one factor, the fleet sized again for each (the operating point stays "
                "the one chosen for the scenario's demand): where lines cross, the systems cost the same."
            ),
        ],
    )


def cliff_section(scenario: Scenario, result: Any, outcomes: list[Any], subset: ChartSubset) -> Section:
    if not outcomes:
        return section("cliff", [Paragraph("No system runs hardware here (APIs only): there is no fleet to load.")])
    drawn_points = set(subset.points)
    demand = [{"name": d.name, "arrival_rps": d.arrival_rps} for d in scenario.demand if d.name in drawn_points]
    cliff = latency_cliff(scenario, outcomes=drawn_outcomes(outcomes, subset))
    accepted, ttft = charts.cliff_charts(cliff, demand, scenario.slo.ttft_limit_ms, systems=subset.systems)
    points = [p for p in result.records["points"] if p["routing"] != "api"]
    return section(
        "cliff",
        [
            Paragraph(
                "The provisioned fleet of each system as demand rises: the share of requests accepted within the SLO "
                "and the p99 time to first token, queueing included. Past capacity at SLO, admission control "
                "rejects the excess. Dashed lines are the scenario's demand points, the red line the TTFT limit."
            ),
            Chart(
                "cliff-accepted",
                width(accepted),
                described("Share of offered requests accepted against arrival rate.", subset, points=True),
            ),
            Chart(
                "cliff-ttft",
                width(ttft),
                described("p99 TTFT including queueing against arrival rate.", subset, points=True),
            ),
            Table(
                "cliff",
                [(c.name, c.header) for c in CLIFF_COLUMNS],
                [[c.format(p[c.name]) for c in CLIFF_COLUMNS] for p in points],
            ),
        ],
    )


def _claim_value(value: float, unit: str) -> str:
    return display.usd_per_1k_requests(value) if unit == "USD/request" else display.num(value)


def claim_section(result: Any, subset: ChartSubset) -> Section:
    rows = result.records["comparison"]
    if not rows:
        return section("claim", [Paragraph("One system only: there is nothing to compare.")])
    blocks: list[Block] = [
        Paragraph(
            "The vendor's headline (peak tokens/s per kW) beside what the model finds: tokens per wall kWh at the "
            "SLO operating point, and cost per accepted request at each demand point and over the day. Advantage > "
            "1 means the system beats the baseline (more tokens, or lower cost)."
        )
    ]
    blocks += [Paragraph(s, strong=True) for s in headline_sentences(rows)]
    drawn = set(subset.systems)
    if subset.systems_note:
        blocks.append(
            Paragraph(
                f"Each of the {subset.total_systems - 1:,} systems has its table against the baseline; a chart is "
                f"drawn for the {len(drawn) - 1} cheapest (the systems the other charts draw, at most "
                f"{charts.MAX_CHART_SYSTEMS} with the baseline)."
            )
        )
    order = [r["system"] for r in rows]
    pairs = sorted({(r["system"], r["baseline"]) for r in rows}, key=lambda p: order.index(p[0]))
    for number, (system, baseline) in enumerate(pairs):
        pair = [r for r in rows if r["system"] == system and r["baseline"] == baseline]
        blocks += [
            Subheading(f"{system} vs {baseline}"),
            Table(
                f"claim-{number}",
                [
                    ("metric", "metric"),
                    ("kind", "kind"),
                    ("unit", "unit of the values"),
                    ("system_value", f"{system} [unit]"),
                    ("baseline_value", f"{baseline} [unit]"),
                    ("advantage_ratio", "advantage [x]"),
                ],
                [
                    [
                        r["metric"],
                        r["kind"],
                        display.PER_1K_REQUESTS if r["unit"] == "USD/request" else r["unit"],
                        _claim_value(r["system_value"], r["unit"]),
                        _claim_value(r["baseline_value"], r["unit"]),
                        display.ratio(r["advantage_ratio"]),
                    ]
                    for r in pair
                ],
            ),
        ]
        if system in drawn:
            blocks.append(
                Chart(
                    f"claim-{number}",
                    width(charts.claim_chart(pair, system, baseline, subset.points)),
                    f"Advantage of {system} over {baseline}: the headline claim beside the modelled ratios."
                    + (f" {subset.points_note}" if subset.points_note else ""),
                )
            )
    return section("claim", blocks)


def warnings_section(result: Any) -> Section:
    if not result.warnings:
        return section(
            "warnings", [Paragraph("No warning: the systems were measured and are compared under the same conditions.")]
        )
    return section(
        "warnings",
        [
            Paragraph("What makes the comparison not like for like, or an outcome to know about:"),
            Bullets(list(result.warnings)),
        ],
    )


YEAR_COLUMNS = (
    "year",
    "usd_per_accepted_request",
    "cost_usd",
    "accepted_requests",
    "offered_rps",
    "utilization_fraction",
    "facility_power_kw",
    "carbon_g_per_accepted_request",
)
"""The ``years`` table's columns the report shows, after the system (the registry's headers and formats)."""


def years_section(scenario: Scenario, result: Any, subset: ChartSubset) -> Section | None:
    """A demand profile's years: the demand over the horizon (each day's busiest hour and mean), each system's cost
    per accepted request year by year, and the ``years`` table; None without a profile."""
    years = result.records.get("years")
    if not years or scenario.demand_profile is None:
        return None
    from rackcost.reporting import horizon_charts

    shown = [column("years", name) for name in YEAR_COLUMNS]
    table = Table(
        "years",
        [("system", "system")] + [(c.name, c.header) for c in shown],
        [[r["system"]] + [c.format(r.get(c.name)) for c in shown] for r in years],
        keys=2,
    )
    profile = scenario.demand_profile
    return section(
        "years",
        [
            Paragraph(
                f"Demand over {display.num(profile.horizon_years)} years from the scenario's hourly profile. Each "
                "fleet is sized once, for the busiest hour of the horizon, and serves every hour of every year; a "
                "year's cost per accepted request is its cost over its accepted requests."
            ),
            Chart(
                "demand-over-time",
                width(horizon_charts.demand_over_time_chart(profile.hourly_rates_rps())),
                "Each day's busiest-hour and mean arrival rate over the horizon.",
            ),
            Chart(
                "cost-by-year",
                width(horizon_charts.cost_by_year_chart(years, subset.systems)),
                described("Each system's cost per 1,000 accepted requests in each year of the horizon.", subset),
            ),
            table,
        ],
    )
