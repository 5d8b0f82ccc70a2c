"""What a decision report says: its sections as plain blocks (paragraphs, tables, charts), before any format.

:func:`build_report` runs the model (:func:`rackcost.evaluate`, and the Monte Carlo, tornado and break-even of
:mod:`rackcost.analysis.montecarlo` and :mod:`rackcost.analysis.sensitivity` when the scenario has distributions or
samples are asked
for) and words the result in blocks; :mod:`rackcost.reporting.html` and :mod:`rackcost.reporting.markdown` turn the
blocks into a file. Every number is formatted by :mod:`rackcost.display`, every header carries its unit, and every
chart is a specification of :mod:`rackcost.reporting.charts` (the dashboard's).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rackcost import display
from rackcost.analysis.explore import cost_against_demand_scale, cost_histograms, latency_cliff, operating_curves
from rackcost.evaluation.chain import evaluate_systems
from rackcost.evaluation.compare import headline_sentences
from rackcost.evaluation.results import result_tables
from rackcost.reporting import charts
from rackcost.scenario.loading import scenario_to_data, scenario_to_yaml
from rackcost.scenario.schema import ROUTING_WORDS, Scenario
from rackcost.scenario.yaml_paths import MISSING, lookup, parse_path

__all__ = [
    "BLENDED",
    "DEFAULT_SAMPLES",
    "NOT_APPLICABLE",
    "SECTIONS",
    "Bullets",
    "Chart",
    "Code",
    "KeyFigures",
    "Paragraph",
    "Report",
    "Section",
    "Subheading",
    "Table",
    "build_report",
    "input_name",
    "ms",
]

DEFAULT_SAMPLES = 10_000
"""Monte Carlo samples of a report when the scenario has distributions and no number is asked for (the dashboard's
default too) [-]."""
NOT_APPLICABLE = "-"
"""What a table shows where a figure does not apply (an API system's latency or fleet)."""
BLENDED = "blended"

# section id -> heading, in the order of the report (the uncertainty section only when there is something to say)
SECTIONS = {
    "summary": "Summary",
    "scenario": "The scenario",
    "systems": "Systems: operating point, fleet, racks and wall power",
    "cost": "Cost per accepted request at each demand point",
    "cliff": "Latency cliff",
    "claim": "Claim vs decision",
    "uncertainty": "Uncertainty",
    "provenance": "Provenance of every figure",
    "warnings": "Warnings",
    "appendix": "Appendix: the scenario file",
}

REPORT_CHART_PX = 560
"""Width of a report chart whose specification leaves it open [px]: fits an A4 or Letter page and scales down on a
phone (the SVG keeps its viewBox)."""


# ---- blocks --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text (escaped by the renderer); ``strong`` for the sentence a reader must not miss."""

    text: str
    strong: bool = False


@dataclass(frozen=True)
class Subheading:
    """A heading inside a section."""

    text: str


@dataclass(frozen=True)
class Bullets:
    """A list of plain-text items."""

    items: list[str]


@dataclass(frozen=True)
class KeyFigures:
    """Figures shown large: ``(label, value)`` pairs, the value formatted with its unit."""

    figures: list[tuple[str, str]]


@dataclass(frozen=True)
class Table:
    """A table of formatted cells.

    Attributes
    ----------
    id
        A name unique in the report (the HTML ``id``, so that a reader or a test can find it).
    columns
        ``(key, header)`` per column: ``key`` names the result column the cells come from (``data-key`` in HTML),
        ``header`` says what it is, with its unit in brackets.
    rows
        Cells as shown, one list per row.
    """

    id: str
    columns: list[tuple[str, str]]
    rows: list[list[str]]


@dataclass(frozen=True)
class Chart:
    """An Altair chart of :mod:`rackcost.reporting.charts`; ``name`` becomes its file name, ``description`` its alt
    text."""

    name: str
    chart: Any
    description: str


@dataclass(frozen=True)
class Code:
    """A block of text shown as written (the scenario YAML)."""

    text: str
    language: str = "yaml"


Block = Paragraph | Subheading | Bullets | KeyFigures | Table | Chart | Code


@dataclass
class Section:
    """One section of the report: an id from :data:`SECTIONS`, its heading and its blocks."""

    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Report:
    """A whole report, ready for a renderer.

    Attributes
    ----------
    title
        The scenario's name.
    subtitle
        What the report answers, in one line.
    sections
        In order.
    version
        rackcost's version.
    date
        The day the report was made (ISO 8601).
    """

    title: str
    subtitle: str
    sections: list[Section]
    version: str
    date: str

    @property
    def colophon(self) -> str:
        """The closing line: who made the report, when, and how to make it again."""
        return (
            f"Made with rackcost {self.version} on {self.date}. To reproduce it, save the appendix as scenario.yaml "
            "and run: rackcost report scenario.yaml"
        )


# ---- building --------------------------------------------------------------------------------------------------------


def ms(x: float) -> str:
    """Milliseconds for reading: a whole number in full (``2,000``), else as :func:`rackcost.display.num`.

    >>> ms(2000), ms(12.5)
    ('2,000', '12.5')
    """
    return display.count(x) if float(x).is_integer() and abs(x) < 1e15 else display.num(x)


def _cell(value: Any, fmt: Callable[[float], str]) -> str:
    return NOT_APPLICABLE if value is None else fmt(value)


def input_name(path: str, systems: list[str], demand: list[str]) -> str:
    """A readable name of an input's YAML path: the system or demand point named, the field kept as written.

    Examples
    --------
    >>> input_name("systems[1].costs.capex_usd_per_accelerator", ["GB300", "Jalapeño"], ["peak"])
    'Jalapeño: costs.capex_usd_per_accelerator'
    >>> input_name("demand[0].arrival_rps", [], ["quiet"]), input_name("facility.pue", [], [])
    ('quiet demand: arrival_rps', 'facility.pue')
    """
    parts = parse_path(path)
    rest = ".".join(str(p) for p in parts[2:] if not isinstance(p, int))
    if parts[0] == "systems" and len(parts) > 2 and isinstance(parts[1], int) and parts[1] < len(systems):
        if "points" in parts:
            point = parts[parts.index("points") + 1]
            return f"{systems[parts[1]]}: operating point {point + 1}, {parts[-1]}"
        return f"{systems[parts[1]]}: {rest}"
    if parts[0] == "demand" and len(parts) > 2 and isinstance(parts[1], int) and parts[1] < len(demand):
        return f"{demand[parts[1]]} demand: {rest}"
    return path


def build_report(scenario: Scenario, samples: int | None = None, seed: int = 0, date: str | None = None) -> Report:
    """Evaluate a scenario and word the result as a :class:`Report`.

    Parameters
    ----------
    scenario
        A validated scenario.
    samples
        Monte Carlo samples [-]; default :data:`DEFAULT_SAMPLES` when the scenario has distributions, none when it
        has not (the uncertainty section then says so, if samples were asked for).
    seed
        Seed of the Monte Carlo (same seed, same report).
    date
        The report's date (ISO 8601); default today. Give it to make the same bytes on another day.

    Returns
    -------
    Report

    Raises
    ------
    rackcost.ScenarioError
        When the model finds a problem validation could not (an SLO no operating point meets).
    """
    from rackcost import __version__

    outcomes = evaluate_systems(scenario)
    result = result_tables(scenario, outcomes)
    systems = [s.name for s in scenario.systems]
    demand = [d.name for d in scenario.demand]
    uncertain = bool(scenario.distributions)
    n = (samples if samples is not None else DEFAULT_SAMPLES) if uncertain else None
    mc = None
    if n is not None:
        from rackcost.analysis.montecarlo import uncertainty

        mc = uncertainty(scenario, n, seed)
    sections = [
        _summary(scenario, result, mc),
        _scenario(scenario),
        _systems(scenario, result, outcomes),
        _cost(scenario, result),
        _cliff(scenario, result, outcomes),
        _claim(result),
    ]
    if uncertain or samples is not None:
        sections.append(_uncertainty(scenario, result, mc, systems, demand))
    sections += [_provenance(scenario), _warnings(result), _appendix(scenario)]
    return Report(
        title=scenario.name,
        subtitle="What each system costs per accepted request, at each demand point and over the day",
        sections=sections,
        version=__version__,
        date=date or dt.date.today().isoformat(),
    )


def _section(key: str, blocks: list[Block]) -> Section:
    return Section(key, SECTIONS[key], blocks)


def _width(chart: Any) -> Any:
    return chart.properties(width=REPORT_CHART_PX)


def _probability_rows(mc: Any) -> list[dict[str, Any]]:
    return [r for r in mc.probability_cheaper if r["demand_point"] == BLENDED]


def _summary(scenario: Scenario, result: Any, mc: Any) -> Section:
    rows = result.records["systems"]
    by_cost = sorted(rows, key=lambda r: r["blended_usd_per_accepted_request"])
    cheapest = by_cost[0]
    blocks: list[Block] = []
    if len(rows) == 1:
        sentence = (
            f"{cheapest['system']} costs {display.usd_per_1k_requests(cheapest['blended_usd_per_accepted_request'])} "
            "per 1,000 accepted requests, blended over the demand day."
        )
    else:
        others = ", ".join(
            f"{display.usd_per_1k_requests(r['blended_usd_per_accepted_request'])} for {r['system']}"
            for r in by_cost[1:]
        )
        sentence = (
            f"Over the demand day, {cheapest['system']} is the cheapest per accepted request: "
            f"{display.usd_per_1k_requests(cheapest['blended_usd_per_accepted_request'])} per 1,000 accepted "
            f"requests, against {others}."
        )
    blocks.append(Paragraph(sentence, strong=True))
    blocks += [Paragraph(s) for s in headline_sentences(result.records["comparison"])]
    if mc is not None:
        blocks += [
            Paragraph(
                f"{r['system']} is cheaper per accepted request than {r['baseline']} in "
                f"{display.pct(r['probability_fraction'], 0)} of {mc.n:,} Monte Carlo samples of the uncertain inputs "
                "(blended over the day)."
            )
            for r in _probability_rows(mc)
        ]
    blocks.append(
        KeyFigures(
            [
                (
                    f"{r['system']}: blended cost [{display.PER_1K_ACCEPTED}]",
                    display.usd_per_1k_requests(r["blended_usd_per_accepted_request"]),
                )
                for r in rows
            ]
            + [
                (f"{r['system']}: fleet", f"{display.count(r['racks'])} racks, {display.money(r['capex_usd'])} capex")
                for r in rows
                if r["payment"] != "api"
            ]
        )
    )
    if result.warnings:
        blocks.append(
            Paragraph(
                f"{len(result.warnings)} warning{'s' if len(result.warnings) > 1 else ''} say where the comparison "
                "is not like for like (section Warnings)."
            )
        )
    return _section("summary", blocks)


def _scenario(scenario: Scenario) -> Section:
    w, slo, f, fleet = scenario.workload, scenario.slo, scenario.facility, scenario.fleet
    blocks: list[Block] = []
    if scenario.description:
        blocks.append(Paragraph(scenario.description.strip()))
    revision = f", revision {w.revision}" if w.revision else ""
    blocks += [
        Subheading("Workload"),
        Paragraph(
            f"{w.model} ({w.precision}{revision}): {display.count(w.input_tokens_per_request)} input tokens and "
            f"{display.count(w.output_tokens_per_request)} output tokens per request."
        ),
        Subheading("Latency SLO"),
        Paragraph(
            "A request is accepted when its time to first token, queueing included, is at most "
            f"{ms(slo.ttft_limit_ms)} ms and its time per output token at most "
            f"{ms(slo.tpot_limit_ms)} ms"
            + (f", and its end-to-end latency at most {ms(slo.e2e_limit_ms)} ms" if slo.e2e_limit_ms else "")
            + f"; the fleet is sized so that {display.pct(slo.attainment_fraction)} of requests are accepted at "
            f"{scenario.sizing_point.name} demand."
        ),
        Subheading("Demand day"),
        Table(
            "demand",
            [
                ("demand_point", "demand point"),
                ("arrival_rps", "arrival rate [requests/s]"),
                ("hours_per_day", "hours [h/day]"),
                ("requests_per_day", "requests [requests/day]"),
            ],
            [
                [
                    d.name,
                    display.num(d.arrival_rps),
                    display.num(d.hours_per_day),
                    display.num(d.arrival_rps * d.hours_per_day * 3600.0),
                ]
                for d in scenario.demand
            ],
        ),
        Paragraph(f"The fleet is sized for {scenario.sizing_point.name} demand and serves every demand point."),
        Subheading("Facility and fleet"),
    ]
    site = (
        f"colocation at {display.money(f.colocation_usd_per_kw_month)} per kW-month"
        if f.colocation_usd_per_kw_month
        else f"built at {display.money(f.build_usd_per_kw)} per kW over {display.num(f.build_life_years)} years"
    )
    blocks.append(
        Bullets(
            [
                f"PUE {display.num(f.pue)}; electricity {display.money(f.electricity_usd_per_kwh)} per kWh.",
                f"Racks provisioned up to {display.num(f.rack_power_limit_kw)} kW each (rated power); {site} of "
                "provisioned IT power.",
                f"Replicas {'stay powered when idle' if fleet.idle_policy == 'powered' else 'park when not needed'}; "
                f"routing {fleet.routing.value}: {ROUTING_WORDS[fleet.routing.value]}.",
                f"Replica availability {display.pct(fleet.replica_availability_fraction)}, "
                f"{display.count(fleet.spare_replicas)} spare replicas, slot utilisation at most "
                f"{display.pct(fleet.max_utilization_fraction)} at the sizing demand.",
                f"Baseline of the comparison: {scenario.baseline_name}.",
            ]
        )
    )
    if scenario.distributions:
        blocks.append(
            Paragraph(
                f"{len(scenario.distributions)} inputs are given as distributions; every figure outside the "
                "Uncertainty section uses their central values."
            )
        )
    return _section("scenario", blocks)


SYSTEM_COLUMNS: list[tuple[str, str, Callable[[float], str]]] = [
    ("payment", "paid as", str),
    ("provenance", "provenance class", str),
    ("concurrency", "concurrency at the SLO point [requests/replica]", display.num),
    ("tpot_ms", "TPOT at the point [ms]", display.num),
    ("ttft_ms", "TTFT at the point [ms]", display.num),
    ("total_tokens_per_s_per_replica", "throughput [tokens/s per replica]", display.num),
    ("provisioned_replicas", "provisioned replicas [count]", display.count),
    ("accelerators", "accelerators [count]", display.count),
    ("racks", "racks [count]", display.count),
    ("provisioned_it_kw", "provisioned IT power [kW]", display.num),
    ("capex_usd", "capex [USD]", display.money),
    ("blended_usd_per_accepted_request", f"blended cost [{display.PER_1K_ACCEPTED}]", display.usd_per_1k_requests),
]
"""Columns of the per-system table: result column, header with unit, format."""

POINT_COLUMNS: list[tuple[str, str, Callable[[float], str]]] = [
    ("hours_per_day", "hours [h/day]", display.num),
    ("offered_rps", "offered [requests/s]", display.num),
    ("accepted_rps", "accepted within SLO [requests/s]", display.num),
    ("rejected_fraction", "rejected [% of offered]", display.pct),
    ("utilization_fraction", "slot utilisation [%]", display.pct),
    ("facility_power_kw", "wall power [kW]", display.num),
    ("capital_usd_per_hour", "capital [USD/h]", display.money),
    ("fixed_opex_usd_per_hour", "fixed opex [USD/h]", display.money),
    ("energy_usd_per_hour", "energy [USD/h]", display.money),
    ("rent_usd_per_hour", "rent [USD/h]", display.money),
    ("api_usd_per_hour", "API [USD/h]", display.money),
    ("total_usd_per_hour", "total [USD/h]", display.money),
    ("usd_per_accepted_request", f"cost [{display.PER_1K_ACCEPTED}]", display.usd_per_1k_requests),
    ("usd_per_million_accepted_output_tokens", "cost [USD per million accepted output tokens]", display.money),
]
"""Columns of the cost table, after system and demand point: result column, header with unit, format."""


def _systems(scenario: Scenario, result: Any, outcomes: list[Any]) -> Section:
    rows = result.records["systems"]
    points = result.records["points"]
    sizing = scenario.sizing_point.name
    wall = {p["system"]: p["facility_power_kw"] for p in points if p["demand_point"] == sizing}
    table = Table(
        "systems",
        [("system", "system")]
        + [(key, header) for key, header, _ in SYSTEM_COLUMNS]
        + [("facility_power_kw", f"wall power at {sizing} demand [kW]")],
        [
            [r["system"]]
            + [_cell(r[key], fmt) for key, _, fmt in SYSTEM_COLUMNS]
            + [NOT_APPLICABLE if r["payment"] == "api" else display.num(wall[r["system"]])]
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
    if outcomes:
        blocks += [
            Chart(
                "operating-curves",
                _width(charts.curves_chart(operating_curves(scenario, outcomes=outcomes), scenario.slo.tpot_limit_ms)),
                "Throughput per accelerator against interactivity for each system, the TPOT limit as a red line and "
                "the chosen operating point as a diamond.",
            ),
            Paragraph(
                "Right of the red line the TPOT limit is met. Measured points are dots (faded where TPOT or TTFT "
                "misses the SLO before queueing); the diamond is the chosen operating point."
            ),
        ]
    return _section("systems", blocks)


def _cost(scenario: Scenario, result: Any) -> Section:
    points = result.records["points"]
    systems = [s.name for s in scenario.systems]
    demand = [d.name for d in scenario.demand]
    apis = {s.name for s in scenario.systems if s.api is not None}
    # rent and API columns only where some system pays them
    columns = [
        (k, h, f)
        for k, h, f in POINT_COLUMNS
        if k not in ("rent_usd_per_hour", "api_usd_per_hour") or any(p.get(k) for p in points)
    ]
    table = Table(
        "points",
        [("system", "system"), ("demand_point", "demand point")] + [(k, h) for k, h, _ in columns],
        [
            [p["system"], p["demand_point"]]
            + [
                NOT_APPLICABLE
                if p["system"] in apis and key in ("utilization_fraction", "facility_power_kw")
                else _cell(p.get(key), fmt)
                for key, _, fmt in columns
            ]
            for p in points
        ],
    )
    return _section(
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
                charts.cost_chart(points, systems, demand),
                "Cost per accepted request of each system at each demand point, stacked by cost component.",
            ),
            Chart(
                "cost-against-demand-scale",
                charts.demand_scale_chart(cost_against_demand_scale(scenario)),
                "Blended cost per 1,000 accepted requests of each system as every demand point is scaled by one "
                "factor, the fleet sized again for each.",
            ),
            Paragraph(
                "Every demand point scaled by one factor, the fleet sized again for each (the operating point stays "
                "the one chosen for the scenario's demand): where lines cross, the systems cost the same."
            ),
        ],
    )


def _cliff(scenario: Scenario, result: Any, outcomes: list[Any]) -> Section:
    if not outcomes:
        return _section("cliff", [Paragraph("No system runs hardware here (APIs only): there is no fleet to load.")])
    demand = [{"name": d.name, "arrival_rps": d.arrival_rps} for d in scenario.demand]
    accepted, ttft = charts.cliff_charts(latency_cliff(scenario, outcomes=outcomes), demand, scenario.slo.ttft_limit_ms)
    points = [p for p in result.records["points"] if p["routing"] != "api"]
    return _section(
        "cliff",
        [
            Paragraph(
                "The provisioned fleet of each system as demand rises: the share of requests accepted within the SLO "
                "and the p99 time to first token, queueing included. Past capacity at SLO, admission control "
                "rejects the excess. Dashed lines are the scenario's demand points, the red line the TTFT limit."
            ),
            Chart("cliff-accepted", _width(accepted), "Share of offered requests accepted against arrival rate."),
            Chart("cliff-ttft", _width(ttft), "p99 TTFT including queueing against arrival rate."),
            Table(
                "cliff",
                [
                    ("system", "system"),
                    ("demand_point", "demand point"),
                    ("offered_rps", "offered [requests/s]"),
                    ("capacity_at_slo_rps", "capacity at SLO [requests/s]"),
                    ("spare_capacity_fraction", "spare capacity [% of capacity]"),
                    ("ttft_p99_ms", "p99 TTFT incl. queueing [ms]"),
                    ("status", "status"),
                ],
                [
                    [
                        p["system"],
                        p["demand_point"],
                        display.num(p["offered_rps"]),
                        display.num(p["capacity_at_slo_rps"]),
                        display.pct(p["spare_capacity_fraction"]),
                        _cell(p["ttft_p99_ms"], display.num),
                        p["status"],
                    ]
                    for p in points
                ],
            ),
        ],
    )


def _claim_value(value: float, unit: str) -> str:
    return display.usd_per_1k_requests(value) if unit == "USD/request" else display.num(value)


def _claim(result: Any) -> Section:
    rows = result.records["comparison"]
    if not rows:
        return _section("claim", [Paragraph("One system only: there is nothing to compare.")])
    blocks: list[Block] = [
        Paragraph(
            "The vendor's headline (peak tokens/s per kW) beside what the model finds: tokens per wall kWh at the "
            "SLO operating point, and cost per accepted request at each demand point and over the day. Advantage > "
            "1 means the system beats the baseline (more tokens, or lower cost)."
        )
    ]
    blocks += [Paragraph(s, strong=True) for s in headline_sentences(rows)]
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
            Chart(
                f"claim-{number}",
                _width(charts.claim_chart(pair, system, baseline)),
                f"Advantage of {system} over {baseline}: the headline claim beside the modelled ratios.",
            ),
        ]
    return _section("claim", blocks)


def _distribution_words(dist: Any) -> str:
    params = dist.model_dump(mode="json", exclude_none=True)
    kind = params.pop("dist")

    def fmt(v: Any) -> str:
        return ", ".join(display.num(x) for x in v) if isinstance(v, list) else display.num(v)

    return f"{kind}: " + ", ".join(f"{k} {fmt(v)}" for k, v in params.items())


def _uncertainty(scenario: Scenario, result: Any, mc: Any, systems: list[str], demand: list[str]) -> Section:
    if mc is None:
        return _section(
            "uncertainty",
            [
                Paragraph(
                    "This scenario has no distributions: every input is a single number, so there is no spread to "
                    "sample, no probability to state and no tornado. The figures above are its only outcome."
                )
            ],
        )
    from rackcost.analysis.sensitivity import breakeven, tornado

    def name(path: str) -> str:
        return input_name(path, systems, demand)

    baseline = scenario.baseline_name
    blocks: list[Block] = [
        Paragraph(
            f"{mc.n:,} samples (seed {mc.seed}) of every input given as a distribution, drawn independently; the "
            "operating point is chosen on central values and the fleet is sized again for each sample."
        ),
        Subheading("Uncertain inputs"),
        Table(
            "uncertain-inputs",
            [
                ("input", "input"),
                ("path", "YAML path"),
                ("distribution", "distribution"),
                ("central", "central value [unit of the input]"),
                ("p5", "P5 [unit of the input]"),
                ("p95", "P95 [unit of the input]"),
            ],
            [
                [
                    name(path),
                    path,
                    _distribution_words(dist),
                    display.input_value(float(dist.central), path),
                    display.input_value(float(dist.ppf(0.05)), path),
                    display.input_value(float(dist.ppf(0.95)), path),
                ]
                for path, dist in sorted(scenario.distributions.items())
            ],
        ),
    ]
    cheaper = mc.probability_cheaper
    if cheaper:
        blocks += [
            Subheading(f"Probability of being cheaper than {baseline}"),
            Table(
                "probability-cheaper",
                [("system", "system")]
                + [(f"probability_fraction:{p}", f"at {p} demand [% of samples]") for p in demand]
                + [("probability_fraction:blended", "blended over the day [% of samples]")],
                [
                    [system]
                    + [
                        display.pct(r["probability_fraction"])
                        for p in [*demand, BLENDED]
                        for r in cheaper
                        if r["system"] == system and r["demand_point"] == p
                    ]
                    for system in dict.fromkeys(r["system"] for r in cheaper)
                ],
            ),
        ]
    pcts = mc.percentiles
    by = {(r["system"], r["demand_point"], r["column"]): r for r in pcts}
    marks = [
        {"system": s, "percentile": q.upper(), "usd": by[(s, "system", "blended_usd_per_accepted_request")][q]}
        for s in systems
        for q in ("p5", "p50", "p95")
    ]
    histogram = [
        r
        for r in cost_histograms(mc.samples, systems, demand)
        if r["demand_point"] == BLENDED  # the blended cost: one chart (each point's percentiles are in the table)
    ]
    blocks += [
        Subheading("Distribution of cost per accepted request"),
        Chart(
            "cost-distribution",
            _width(charts.cost_distribution_chart(histogram, marks, systems)),
            "Histogram of the sampled blended cost per accepted request of each system, with P5, P50 and P95.",
        ),
        Paragraph(
            f"Blended over the day: histogram of {mc.n:,} samples (central 99% shown); solid line the median (P50), "
            "dashed lines P5 and P95."
        ),
        Table(
            "percentiles",
            [
                ("system", "system"),
                ("demand_point", "demand point"),
                ("p5", f"P5 [{display.PER_1K_ACCEPTED}]"),
                ("p50", f"P50 [{display.PER_1K_ACCEPTED}]"),
                ("p95", f"P95 [{display.PER_1K_ACCEPTED}]"),
            ],
            [
                [s, p]
                + [display.usd_per_1k_requests(by[(s, p, "usd_per_accepted_request")][q]) for q in ("p5", "p50", "p95")]
                for s in systems
                for p in demand
            ]
            + [
                [s, "blended over the day"]
                + [
                    display.usd_per_1k_requests(by[(s, "system", "blended_usd_per_accepted_request")][q])
                    for q in ("p5", "p50", "p95")
                ]
                for s in systems
            ],
        ),
    ]
    ranked = tornado(scenario)
    others = [s for s in systems if s != baseline]
    if ranked:
        central = {r["system"]: r["blended_usd_per_accepted_request"] for r in result.records["systems"]}
        columns = [
            ("input", "input"),
            ("low_value", "input at its P5 [unit of the input]"),
            ("high_value", "input at its P95 [unit of the input]"),
        ]
        for s in systems:
            columns += [
                (f"{s}@low", f"{s}: blended cost at P5 [{display.PER_1K_ACCEPTED}]"),
                (f"{s}@high", f"{s}: blended cost at P95 [{display.PER_1K_ACCEPTED}]"),
            ]
        if others:
            columns += [
                ("advantage_low", f"advantage of {others[0]} over {baseline} at P5 [x]"),
                ("advantage_high", f"advantage of {others[0]} over {baseline} at P95 [x]"),
            ]
        columns.append(("relative_swing", "largest swing [% of central cost]"))
        rows = []
        for r in ranked:
            row = [
                name(r["input"]),
                display.input_value(r["low_value"], r["input"]),
                display.input_value(r["high_value"], r["input"]),
            ]
            for s in systems:
                row += [display.usd_per_1k_requests(r[f"{s}@low"]), display.usd_per_1k_requests(r[f"{s}@high"])]
            if others:
                row += [display.ratio(r["advantage_low"]), display.ratio(r["advantage_high"])]
            row.append(display.pct(r["relative_swing"]))
            rows.append(row)
        tornado_chart = charts.tornado_charts(ranked, systems, central, name)
        import altair as alt

        blocks += [
            Subheading("Which inputs decide it: tornado"),
            Table("tornado", columns, rows),
            Chart(
                "tornado",
                alt.vconcat(*(c.properties(width=REPORT_CHART_PX - 160) for c in tornado_chart)).configure_legend(
                    orient="bottom"
                ),
                "Each system's blended cost with each uncertain input at its P5 and at its P95.",
            ),
            Paragraph(
                "Each input at its P5 and at its P95 with every other input at its central value; the black line is "
                "the central cost. Ranked by the largest swing of any system's blended cost."
            ),
        ]
    if others:
        blocks += [Subheading("Break-even values"), _breakeven_table(scenario, others, breakeven, name)]
    return _section("uncertainty", blocks)


def _own_price_path(scenario: Scenario, system: str) -> str:
    """The YAML path of a system's own price: capex when owned, the rental price when rented, an API's output price."""
    index = next(i for i, s in enumerate(scenario.systems) if s.name == system)
    spec = scenario.systems[index]
    if spec.api is not None:
        return f"systems[{index}].api.usd_per_million_output_tokens"
    if spec.rent is not None:
        return f"systems[{index}].rent.usd_per_accelerator_hour"
    return f"systems[{index}].costs.capex_usd_per_accelerator"


def _breakeven_table(scenario: Scenario, others: list[str], breakeven: Any, name: Callable[[str], str]) -> Table:
    """Each other system's own price, and the electricity price, at which it costs what the baseline does."""
    from rackcost.errors import ScenarioError

    data = scenario_to_data(scenario)
    rows = []
    for system in others:
        for path in (_own_price_path(scenario, system), "facility.electricity_usd_per_kwh"):
            central = display.input_value(_central(scenario, path, lookup(data, path)), path)
            try:
                found = breakeven(scenario, path, system, BLENDED)
            except (ScenarioError, ValueError, ArithmeticError) as exc:  # e.g. a zero price: no range to search
                rows.append([system, name(path), central, NOT_APPLICABLE, NOT_APPLICABLE, str(exc)])
                continue
            rows.append(
                [
                    system,
                    name(path),
                    central,
                    NOT_APPLICABLE if found.value is None else display.input_value(found.value, path),
                    f"{display.input_value(found.low, path)} to {display.input_value(found.high, path)}",
                    found.message if found.value is None else "the two cost the same at this value",
                ]
            )
    return Table(
        "breakeven",
        [
            ("system", f"system (against {scenario.baseline_name})"),
            ("input", "input"),
            ("central_value", "value in the scenario [unit of the input]"),
            ("value", "break-even value [unit of the input]"),
            ("range", "range searched [unit of the input]"),
            ("message", "result"),
        ],
        rows,
    )


def _central(scenario: Scenario, path: str, found: Any) -> float:
    """The value of an input as the model uses it: a distribution's central value, else the number in the file."""
    dist = scenario.distributions.get(path)
    if dist is not None:
        return float(dist.central)
    if found is MISSING or isinstance(found, dict):
        raise KeyError(f"{path} is not a number of the scenario")
    return float(found)


def _figure_value(data: dict[str, Any], path: str) -> str:
    found = lookup(data, path)
    if found is MISSING:
        return NOT_APPLICABLE
    if isinstance(found, dict) and "dist" in found:
        return _distribution_words_from_dict(found)
    if isinstance(found, dict | list):
        return "every figure under this path"
    if isinstance(found, bool) or not isinstance(found, int | float):
        return str(found)
    return display.input_value(float(found), path)


def _distribution_words_from_dict(params: dict[str, Any]) -> str:
    params = dict(params)
    kind = params.pop("dist")
    return f"{kind}: " + ", ".join(f"{k} {v}" for k, v in params.items())


def _provenance(scenario: Scenario) -> Section:
    data = scenario_to_data(scenario)
    systems = Table(
        "system-provenance",
        [
            ("system", "system"),
            ("class", "provenance class"),
            ("reported_by", "reported by"),
            ("date", "date"),
            ("source", "source"),
            ("software_stack", "software stack"),
            ("notes", "notes"),
        ],
        [
            [
                s.name,
                s.provenance.provenance_class.value,
                s.provenance.reported_by or NOT_APPLICABLE,
                s.provenance.date or NOT_APPLICABLE,
                s.provenance.source,
                s.provenance.software_stack or NOT_APPLICABLE,
                (s.provenance.notes or NOT_APPLICABLE).strip(),
            ]
            for s in scenario.systems
        ],
    )
    blocks: list[Block] = [
        Paragraph(
            "Classes: vendor (published by the seller), collaborative (run with the vendor), independent (measured "
            "by a third party), assumption (a value chosen where nothing was published, with the reason)."
        ),
        Subheading("Each system's figures"),
        systems,
    ]
    if scenario.figures:
        blocks += [
            Subheading("Each figure of the scenario"),
            Table(
                "figures",
                [
                    ("path", "YAML path"),
                    ("value", "value [unit from the field name]"),
                    ("class", "provenance class"),
                    ("source", "source"),
                    ("why", "why (assumptions)"),
                ],
                [
                    [
                        path,
                        _figure_value(data, path),
                        figure.provenance.value,
                        figure.source,
                        figure.why or NOT_APPLICABLE,
                    ]
                    for path, figure in scenario.figures.items()
                ],
            ),
        ]
    else:
        blocks.append(
            Paragraph("The scenario has no figures: block; each system's provenance above covers its figures.")
        )
    return _section("provenance", blocks)


def _warnings(result: Any) -> Section:
    if not result.warnings:
        return _section(
            "warnings", [Paragraph("No warning: the systems were measured and are compared under the same conditions.")]
        )
    return _section(
        "warnings",
        [
            Paragraph("What makes the comparison not like for like, or an outcome to know about:"),
            Bullets(list(result.warnings)),
        ],
    )


def _appendix(scenario: Scenario) -> Section:
    return _section(
        "appendix",
        [
            Paragraph(
                "The scenario as rackcost read it (every value it sets, distributions in place, every source in "
                "figures:). Saved as a .yaml file it loads back to the same scenario and the same results."
            ),
            Code(scenario_to_yaml(scenario)),
        ],
    )
