"""Chart specifications shared by the dashboard and the report: result records in, Altair charts out.

Each function is pure: it takes the records of :mod:`rackcost.evaluation.results`, :mod:`rackcost.analysis.explore`,
:mod:`rackcost.analysis.montecarlo` or :mod:`rackcost.analysis.sensitivity` (lists of plain dicts) and returns an
``alt.Chart`` (or a layered / faceted one) without drawing it. The dashboard draws them with Streamlit, the report
(:mod:`rackcost.report`) renders them to SVG or PNG with ``vl-convert``, so both show *the same* specifications.
Widths are fixed where the dashboard fixed them; a caller may set a width on a chart that leaves it open
(``chart.properties(width=...)``).

**Size limits.** A chart draws at most :data:`MAX_CHART_SYSTEMS` systems (the baseline and the cheapest others over
the day), :data:`MAX_CHART_POINTS` demand points (spread over the arrival rates, the sizing point among them),
:data:`MAX_CURVE_POINTS` measured operating points per curve and :data:`MAX_TORNADO_INPUTS` inputs per tornado: the
caller chooses them with :func:`chart_subset` and says so in the chart's caption (:attr:`ChartSubset.note`), the
tables keep every row. So every chart's data stay far below Altair's row limit (5,000 rows a dataset) and a
drawing's cost does not grow with the scenario: 300 systems or 10,000 demand points draw the same size of chart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd

from rackcost import display
from rackcost.reporting.chart_styles import LINE_LEGEND, SYSTEM_PALETTE, system_color, system_dash

__all__ = [
    "CLAIM_COLORS",
    "MAX_CHART_POINTS",
    "MAX_CHART_SYSTEMS",
    "MAX_CURVE_POINTS",
    "MAX_TORNADO_INPUTS",
    "SYSTEM_PALETTE",
    "ChartSubset",
    "chart_subset",
    "COST_BAR_PX",
    "COST_LABEL_PX",
    "COST_PLOT_PX",
    "LABEL_ROW_PX",
    "TORNADO_ENDS",
    "claim_chart",
    "cliff_charts",
    "cost_chart",
    "cost_distribution_chart",
    "curves_chart",
    "demand_scale_chart",
    "system_color",
    "tornado_charts",
]

COST_PLOT_PX = 300
"""Width of the cost bars' panel [px]: with the labels, about 540 px in all, inside the 560 px column of a 1,024 px
window (a faceted chart keeps its width: Vega-Lite cannot fit one to its container)."""
COST_LABEL_PX = 160
"""Longest system or demand point label before it is cut with an ellipsis [px]."""
COST_BAR_PX = 22
"""Height of a bar's band in the cost chart [px]."""
LABEL_ROW_PX = 18
"""Vertical distance between the demand points' labels above the latency-cliff panels [px] (more than a label's
height, so that they never overlap one another nor the curves)."""
CLAIM_COLORS = {"claim": "#e45756", "derived": "#f58518", "modelled": "#4c78a8"}
"""Colour of each kind of row in the claim-vs-decision chart."""
TORNADO_ENDS = ("input at its P5", "input at its P95")
"""The two ends of each tornado bar."""
COST_TITLE = f"cost per accepted request [{display.PER_1K_ACCEPTED}]"
"""Every chart's cost axis: dollars per 1,000 accepted requests, the unit of every table."""
MAX_CHART_SYSTEMS = 10
"""Most systems a chart draws [-]: the baseline and the cheapest others (blended cost per accepted request at central
values). Ten keep the colours of the ``tableau10`` scheme distinct and a bar chart readable; the bundled scenarios
have at most six, so their charts draw every system."""
MAX_CHART_POINTS = 12
"""Most demand points a chart draws (a panel of the cost chart, a rule of the latency cliff, a bar of the claim
chart) [-], spread evenly over the arrival rates."""
MAX_CURVE_POINTS = 200
"""Most measured operating points drawn per curve [-] (evenly by concurrency, both ends kept); the chosen point is
always drawn."""
MAX_TORNADO_INPUTS = 20
"""Most inputs a tornado chart draws [-]: those with the largest swing (the table lists every input)."""


@dataclass(frozen=True)
class ChartSubset:
    """What the charts of a scenario draw: which systems and demand points, out of how many.

    Attributes
    ----------
    systems
        The systems drawn, in the scenario's order.
    points
        The demand points drawn, in the scenario's order.
    total_systems, total_points
        How many the scenario has.
    baseline
        The baseline's name (always drawn).
    sizing
        The sizing demand point's name (always drawn).
    """

    systems: tuple[str, ...]
    points: tuple[str, ...]
    total_systems: int
    total_points: int
    baseline: str
    sizing: str

    @property
    def systems_note(self) -> str:
        """The sentence that says which systems a chart draws, or '' when it draws them all."""
        if len(self.systems) == self.total_systems:
            return ""
        return (
            f"The chart shows {len(self.systems)} of the {self.total_systems:,} systems (at most "
            f"{MAX_CHART_SYSTEMS}): the baseline, {self.baseline}, and the {len(self.systems) - 1} cheapest per "
            "accepted request over the day; the tables give every system."
        )

    @property
    def points_note(self) -> str:
        """The sentence that says which demand points a chart draws, or '' when it draws them all."""
        if len(self.points) == self.total_points:
            return ""
        return (
            f"It shows {len(self.points)} of the {self.total_points:,} demand points (at most {MAX_CHART_POINTS}), "
            f"spread evenly over the arrival rates, the sizing point ({self.sizing}) among them; the tables give "
            "every point."
        )

    def note(self, points: bool = False) -> str:
        """What a chart of systems (and, with ``points``, of demand points) leaves out, in words; '' when nothing."""
        return " ".join(n for n in (self.systems_note, self.points_note if points else "") if n)

    def only(self, rows: Sequence[dict[str, Any]], by_point: bool = False) -> list[dict[str, Any]]:
        """The rows of the systems drawn (and, with ``by_point``, of the demand points drawn, by ``demand_point``)."""
        systems, points = set(self.systems), set(self.points)
        return [r for r in rows if r["system"] in systems and (not by_point or r["demand_point"] in points)]


def chart_subset(
    systems: Sequence[dict[str, Any]],
    baseline: str,
    demand: Sequence[dict[str, Any]],
    sizing: str,
    max_systems: int = MAX_CHART_SYSTEMS,
    max_points: int = MAX_CHART_POINTS,
) -> ChartSubset:
    """The systems and demand points a scenario's charts draw.

    Parameters
    ----------
    systems
        Rows of the ``systems`` table (``system``, ``blended_usd_per_accepted_request``), in the scenario's order.
    baseline
        The baseline system's name.
    demand
        The demand points as dicts with ``name`` and ``arrival_rps`` [requests/s], in the scenario's order.
    sizing
        The sizing demand point's name.
    max_systems, max_points
        The limits (:data:`MAX_CHART_SYSTEMS`, :data:`MAX_CHART_POINTS`).

    Returns
    -------
    ChartSubset
        Every system when there are at most ``max_systems``, else the baseline and the ``max_systems - 1`` cheapest
        others by blended cost (ties: the first in the scenario); every demand point when there are at most
        ``max_points``, else ``max_points`` of them evenly spaced in the order of their arrival rates (the lowest and
        the highest included), the sizing point among them.

    Examples
    --------
    >>> rows = [{"system": s, "blended_usd_per_accepted_request": c} for s, c in [("a", 3), ("b", 1), ("c", 2)]]
    >>> demand = [{"name": f"p{i}", "arrival_rps": float(i)} for i in range(5)]
    >>> sub = chart_subset(rows, "a", demand, "p4", max_systems=2, max_points=3)
    >>> sub.systems, sub.points
    (('a', 'b'), ('p0', 'p2', 'p4'))
    """
    names = [r["system"] for r in systems]
    if len(names) > max_systems:
        others = sorted(
            (i for i, r in enumerate(systems) if r["system"] != baseline),
            key=lambda i: (display.cost_order(systems[i]["blended_usd_per_accepted_request"]), i),
        )
        keep = {names.index(baseline), *others[: max_systems - 1]}
        names = [n for i, n in enumerate(names) if i in keep]
    points = [d["name"] for d in demand]
    if len(points) > max_points:
        by_rate = sorted(range(len(demand)), key=lambda i: (demand[i]["arrival_rps"], i))
        picks = [by_rate[round(k * (len(demand) - 1) / (max_points - 1))] for k in range(max_points)]
        at = points.index(sizing)
        if at not in picks:  # the sizing point replaces the pick nearest to it in rate order
            rank = by_rate.index(at)
            nearest = min(range(max_points), key=lambda k: abs(by_rate.index(picks[k]) - rank))
            picks[nearest] = at
        chosen = set(picks)
        points = [p for i, p in enumerate(points) if i in chosen]
    return ChartSubset(tuple(names), tuple(points), len(systems), len(demand), baseline, sizing)


def cost_chart(points: list[dict[str, Any]], systems: Sequence[str], demand: Sequence[str]) -> alt.FacetChart:
    """Cost per accepted request of each system at each demand point, stacked by cost component.

    Horizontal bars, one row of panels per demand point: the chart's width does not grow with the number of
    systems (six systems side by side in a panel per point made it 1,868 px wide in a 1,100 px column); it grows
    downwards.

    Parameters
    ----------
    points
        Rows of the ``points`` table (``Result.records["points"]``).
    systems
        System names, in the order of the bars (rows of other systems are left out).
    demand
        Demand point names, in the order of the panels (rows of other points are left out).
    """
    shown_systems, shown_points = set(systems), set(demand)
    points = [p for p in points if p["system"] in shown_systems and p["demand_point"] in shown_points]
    parts = pd.DataFrame(display.cost_components_per_request(points))
    parts["usd_per_1k"] = parts["usd_per_accepted_request"] * display.REQUESTS_PER_1K
    component_order = list(display.COST_COMPONENTS.values())
    parts["order"] = parts["component"].map(component_order.index)
    return (
        alt.Chart(parts)
        .mark_bar()
        .encode(
            y=alt.Y("system:N", title=None, sort=list(systems), axis=alt.Axis(labelLimit=COST_LABEL_PX)),
            x=alt.X("sum(usd_per_1k):Q", title=COST_TITLE, axis=alt.Axis(format="$.3~g")),
            color=alt.Color(
                "component:N",
                sort=component_order,
                title="cost component",
                legend=alt.Legend(orient="bottom", direction="horizontal"),
            ),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("demand_point:N", title="demand point"),
                alt.Tooltip("component:N"),
                alt.Tooltip("usd_per_1k:Q", title=display.PER_1K_ACCEPTED, format="$.3~g"),
            ],
        )
        .properties(width=COST_PLOT_PX, height=alt.Step(COST_BAR_PX))
        .facet(
            row=alt.Row(
                "demand_point:N",
                sort=list(demand),
                title="demand point",
                header=alt.Header(labelAngle=0, labelAlign="left", labelLimit=COST_LABEL_PX),
            )
        )
    )


def demand_scale_chart(
    scale: list[dict[str, Any]], systems: Sequence[str] | None = None, height_px: int = 300
) -> alt.Chart:
    """Blended cost per 1,000 accepted requests against a factor on every demand point, one line per system.

    The line's dash says how the system is paid (own, rent reserved, rent on demand, API). The cost axis starts
    near the data, not at 0 (the lines' differences are the point), and its title is cut to the panel's height: a
    title taller than the panel made a container-fitted drawing (the dashboard's) shrink the plot to a few pixels.

    Parameters
    ----------
    scale
        Rows of :func:`rackcost.analysis.explore.cost_against_demand_scale`.
    systems
        The systems drawn, in the scenario's order: the colour domain (:func:`system_color`).
    height_px
        Height of the plot [px].
    """
    frame = pd.DataFrame(scale)
    frame["usd_per_1k"] = frame["blended_usd_per_accepted_request"] * display.REQUESTS_PER_1K
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "demand_scale:Q",
                scale=alt.Scale(type="log", nice=False),
                title="demand scale [x every demand point] (log)",
            ),
            y=alt.Y(
                "usd_per_1k:Q",
                title=f"blended {COST_TITLE.replace(' per accepted request', '')}",
                scale=alt.Scale(zero=False),
                axis=alt.Axis(format="$.3~g", titleLimit=height_px - 10),
            ),
            color=system_color(
                systems, present=frame["system"], legend=alt.Legend(orient="bottom", columns=2, **LINE_LEGEND)
            ),
            strokeDash=alt.StrokeDash(
                "payment:N", title="paid as", legend=alt.Legend(symbolStrokeColor="gray", **LINE_LEGEND)
            ),
            tooltip=[
                alt.Tooltip("system:N", title="system"),
                alt.Tooltip("payment:N", title="paid as"),
                alt.Tooltip("demand_scale:Q", title="demand scale", format=".3~g"),
                alt.Tooltip("usd_per_1k:Q", title=display.PER_1K_ACCEPTED, format="$.3~g"),
            ],
        )
        .properties(width=COST_PLOT_PX + COST_LABEL_PX, height=height_px)
    )


def cliff_charts(
    cliff: list[dict[str, Any]],
    demand: list[dict[str, Any]],
    ttft_limit_ms: float,
    height_px: int = 320,
    systems: Sequence[str] | None = None,
) -> tuple[alt.LayerChart, alt.LayerChart]:
    """The latency cliff: accepted share and p99 TTFT of each provisioned fleet against the arrival rate.

    Each demand point is a dashed rule with its label on a row of its own above the panel (labels never overlap
    one another nor the curves); the TTFT panel has the limit as a red rule.

    Parameters
    ----------
    cliff
        Rows of :func:`rackcost.analysis.explore.latency_cliff`.
    demand
        The scenario's demand points as dicts with ``name`` and ``arrival_rps`` [requests/s].
    ttft_limit_ms
        The SLO's TTFT limit [ms].
    height_px
        Height of each panel [px].
    systems
        The systems drawn, in the scenario's order: the colour domain (:func:`system_color`).

    Returns
    -------
    accepted, ttft : alt.LayerChart
        Accepted within SLO [share of offered], and p99 TTFT incl. queueing [ms], against arrival rate (log).
    """
    frame = pd.DataFrame(cliff)
    by_rate = sorted(demand, key=lambda d: d["arrival_rps"])
    rules = pd.DataFrame(
        [
            {"demand_point": d["name"], "arrival_rps": d["arrival_rps"], "label_y": -LABEL_ROW_PX * (len(by_rate) - i)}
            for i, d in enumerate(by_rate)
        ]
    )
    x = alt.X("arrival_rps:Q", title="arrival rate [requests/s] (log)", scale=alt.Scale(type="log"))
    demand_rules = alt.Chart(rules).mark_rule(strokeDash=[4, 4], color="gray").encode(x=x)
    demand_labels = (
        alt.Chart(rules)
        .mark_text(align="left", dx=3, dy=-5, color="gray")
        .encode(x=x, y=alt.Y("label_y:Q", scale=None), text="demand_point:N")
    )
    tooltip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("arrival_rps:Q", title="arrival [requests/s]", format=",.4~g"),
        alt.Tooltip("accepted_fraction:Q", title="accepted", format=".2%"),
        alt.Tooltip("ttft_p99_ms:Q", title="p99 TTFT [ms]", format=",.0f"),
        alt.Tooltip("capacity_at_slo_rps:Q", title="capacity at SLO [requests/s]", format=",.4~g"),
    ]
    present = frame["system"] if len(frame) else ()
    # a dash per system as well as a colour: an owned and a rented copy of one fleet draw the same line
    color = system_color(systems, present=present, legend=alt.Legend(orient="bottom", columns=2, **LINE_LEGEND))
    dash = system_dash(list(systems or dict.fromkeys(present)), present=present)
    accepted = (
        alt.Chart(frame)
        .mark_line()
        .encode(
            x=x,
            y=alt.Y("accepted_fraction:Q", title="accepted within SLO [share of offered]", axis=alt.Axis(format="%")),
            color=color,
            strokeDash=dash,
            tooltip=tooltip,
        )
    )
    ttft = (
        alt.Chart(frame)
        .mark_line()
        .encode(
            x=x,
            y=alt.Y(
                "ttft_p99_ms:Q",
                title="p99 TTFT incl. queueing [ms]",
                scale=alt.Scale(domain=[0, 1.5 * ttft_limit_ms], clamp=True),
            ),
            color=color,
            strokeDash=dash,
            tooltip=tooltip,
        )
    )
    limit_rule = (
        alt.Chart(pd.DataFrame([{"ttft_limit_ms": ttft_limit_ms}]))
        .mark_rule(color="firebrick")
        .encode(y="ttft_limit_ms:Q")
    )
    return (
        (accepted + demand_rules + demand_labels).properties(height=height_px),
        (ttft + limit_rule + demand_rules + demand_labels).properties(height=height_px),
    )


def curves_chart(
    curves: list[dict[str, Any]], tpot_limit_ms: float, height_px: int = 380, systems: Sequence[str] | None = None
) -> alt.LayerChart:
    """Each system's throughput against interactivity, which points meet the SLO, and the chosen point (diamond).

    Parameters
    ----------
    curves
        Rows of :func:`rackcost.analysis.explore.operating_curves` (at most :data:`MAX_CURVE_POINTS` measured points
        per system are drawn).
    tpot_limit_ms
        The SLO's TPOT limit [ms] (a red rule at the interactivity it allows).
    height_px
        Height of the panel [px].
    systems
        The systems drawn, in the scenario's order: the colour domain (:func:`system_color`).
    """
    curve = pd.DataFrame(_thinned(curves, MAX_CURVE_POINTS))
    color = system_color(systems, present=curve["system"], legend=alt.Legend(**LINE_LEGEND))
    dash = system_dash(list(systems or dict.fromkeys(curve["system"])), present=curve["system"])
    curve["meets"] = curve["meets_slo"].map({True: "meets SLO", False: "misses SLO"})
    limit = display.slo_interactivity_limit(tpot_limit_ms)
    xi = alt.X(
        "interactivity_tokens_per_s:Q", title="interactivity [tokens/s per user] (log)", scale=alt.Scale(type="log")
    )
    yi = alt.Y("total_tokens_per_s_per_accelerator:Q", title="throughput [total tokens/s per accelerator]")
    ctip = [
        alt.Tooltip("system:N"),
        alt.Tooltip("kind:N"),
        alt.Tooltip("concurrency:Q", format=",.4~g"),
        alt.Tooltip("interactivity_tokens_per_s:Q", title="interactivity [tokens/s per user]", format=",.3~g"),
        alt.Tooltip("total_tokens_per_s_per_accelerator:Q", title="tokens/s per accelerator", format=",.4~g"),
        alt.Tooltip("ttft_ms:Q", title="TTFT [ms]", format=",.0f"),
        alt.Tooltip("meets:N", title="SLO (before queueing)"),
    ]
    line = (
        alt.Chart(curve[curve["kind"] != "chosen"])
        .mark_line()
        .encode(x=xi, y=yi, color=color, strokeDash=dash, order="concurrency:Q", tooltip=ctip)
    )
    measured = (
        alt.Chart(curve[curve["kind"] == "measured"])
        .mark_point(filled=True, size=60)
        .encode(
            x=xi,
            y=yi,
            color=color,
            opacity=alt.Opacity("meets:N", scale=alt.Scale(domain=["meets SLO", "misses SLO"], range=[1.0, 0.35])),
            tooltip=ctip,
        )
    )
    chosen = (
        alt.Chart(curve[curve["kind"] == "chosen"])
        .mark_point(shape="diamond", size=260, filled=True, stroke="black", strokeWidth=1.5)
        .encode(x=xi, y=yi, color=color, tooltip=ctip)
    )
    slo = pd.DataFrame([{"interactivity_tokens_per_s": limit, "label": f"TPOT limit ({limit:.3g} tokens/s per user)"}])
    slo_rule = alt.Chart(slo).mark_rule(color="firebrick", strokeWidth=2).encode(x=xi)
    slo_label = (
        alt.Chart(slo)
        .mark_text(align="left", dx=4, dy=-6, color="firebrick")
        .encode(x=xi, y=alt.value(10), text="label:N")
    )
    return (line + measured + chosen + slo_rule + slo_label).properties(height=height_px)


def _thinned(curves: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The curve rows with at most ``limit`` measured points per system, evenly spaced by concurrency (both ends
    kept); the same rows, in the same order, when no system has more."""
    measured: dict[str, list[int]] = {}
    for i, r in enumerate(curves):
        if r["kind"] == "measured":
            measured.setdefault(r["system"], []).append(i)
    drop: set[int] = set()
    for rows in measured.values():
        if len(rows) > limit:
            rows = sorted(rows, key=lambda i: curves[i]["concurrency"])
            keep = {rows[round(k * (len(rows) - 1) / (limit - 1))] for k in range(limit)}
            drop |= set(rows) - keep
    return [r for i, r in enumerate(curves) if i not in drop] if drop else curves


_AT_POINT = "cost per accepted request at "  # the comparison's metric at one demand point (evaluation.compare)


def claim_chart(
    pair: list[dict[str, Any]], system: str, baseline: str, points: Sequence[str] | None = None
) -> alt.LayerChart:
    """The claim-vs-decision rows of one system against the baseline as bars of advantage, parity dashed at 1x.

    Parameters
    ----------
    pair
        The comparison rows (``Result.records["comparison"]``) of this system and baseline, in table order.
    system, baseline
        Their names.
    points
        The demand points whose cost rows are drawn (default every one): the headline, the tokens per kWh and the
        blended cost are always drawn.
    """
    if points is not None:
        shown = {f"{_AT_POINT}{p}" for p in points}
        pair = [r for r in pair if not r["metric"].startswith(_AT_POINT) or r["metric"] in shown]
    frame = pd.DataFrame(pair)
    frame["step"] = range(len(frame))
    bars = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            y=alt.Y("metric:N", sort=alt.SortField("step"), title=None, axis=alt.Axis(labelLimit=420)),
            x=alt.X("advantage_ratio:Q", title=f"advantage of {system} over {baseline} [x]"),
            color=alt.Color(
                "kind:N",
                title="kind",
                scale=alt.Scale(domain=list(CLAIM_COLORS), range=list(CLAIM_COLORS.values())),
            ),
            tooltip=[
                alt.Tooltip("metric:N"),
                alt.Tooltip("advantage_ratio:Q", title="advantage [x]", format=".2f"),
                alt.Tooltip("kind:N"),
            ],
        )
    )
    parity = alt.Chart(pd.DataFrame([{"x": 1.0}])).mark_rule(color="black", strokeDash=[4, 4]).encode(x="x:Q")
    return (bars + parity).properties(height=40 * len(frame))


def cost_distribution_chart(
    histogram: list[dict[str, Any]], marks: list[dict[str, Any]], systems: Sequence[str], height_px: int = 320
) -> alt.LayerChart:
    """Histogram of the sampled cost per accepted request of each system, with P5 / P50 / P95 as rules.

    Parameters
    ----------
    histogram
        Rows ``system``, ``x0``, ``x1`` [USD per accepted request], ``density`` [1/USD] of one demand point (or
        blended): :func:`rackcost.analysis.explore.cost_histograms`.
    marks
        Rows ``system``, ``percentile`` (``P5``, ``P50``, ``P95``), ``usd`` [USD per accepted request].
    systems
        System names (the colour domain, so that each system keeps its colour); rows of other systems are left
        out.
    height_px
        Height of the panel [px].

    Notes
    -----
    Costs are drawn in dollars per 1,000 accepted requests (densities per that unit). A system whose cost does not
    vary (a fixed price: one thin bin) is drawn by its P5 / P50 / P95 rules alone, not as a bar: its density, one
    over a thin bin's width, would set the height of the axis and flatten every other system's histogram.
    """
    names = list(systems)
    shown = set(names)
    per_system: dict[str, int] = {}
    for r in histogram:
        per_system[r["system"]] = per_system.get(r["system"], 0) + 1
    k = display.REQUESTS_PER_1K
    histogram = [
        {**r, "x0": r["x0"] * k, "x1": r["x1"] * k, "density": r["density"] / k}
        for r in histogram
        if r["system"] in shown and per_system[r["system"]] > 1
    ]
    # (a percentile that is undefined, among samples that accept nothing, has no rule)
    marks = [{**r, "usd": r["usd"] * k} for r in marks if r["system"] in shown and r["usd"] is not None]
    x = alt.X("x0:Q", title=COST_TITLE, axis=alt.Axis(format="$.3~g"), scale=alt.Scale(zero=False))
    color = system_color(names)
    bars = (
        alt.Chart(pd.DataFrame(histogram, columns=["system", "x0", "x1", "density"]))
        .mark_rect(opacity=0.45)
        .encode(
            x=x,
            x2="x1:Q",
            y=alt.Y("density:Q", title="probability density", axis=alt.Axis(format="~s")),
            y2=alt.datum(0),
            color=color,
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("x0:Q", title=f"from [{display.PER_1K_ACCEPTED}]", format="$.3~g"),
                alt.Tooltip("x1:Q", title=f"to [{display.PER_1K_ACCEPTED}]", format="$.3~g"),
            ],
        )
    )
    rules = (
        alt.Chart(pd.DataFrame(marks))
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X("usd:Q"),
            color=color,
            strokeDash=alt.StrokeDash(
                "percentile:N",
                title="percentile",
                sort=["P5", "P50", "P95"],
                scale=alt.Scale(domain=["P5", "P50", "P95"], range=[[4, 4], [1, 0], [4, 4]]),
            ),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("percentile:N"),
                alt.Tooltip("usd:Q", title=display.PER_1K_ACCEPTED, format="$.3~g"),
            ],
        )
    )
    return (bars + rules).properties(height=height_px)


def tornado_charts(
    tornado: list[dict[str, Any]],
    systems: Sequence[str],
    central_usd: dict[str, float | None],
    input_label: Callable[[str], str],
) -> list[alt.LayerChart]:
    """One tornado per system: its blended cost with each input at its P5 and at its P95, the central cost a rule.

    Parameters
    ----------
    tornado
        Rows of :func:`rackcost.tornado`, ranked by swing (the first :data:`MAX_TORNADO_INPUTS` are drawn).
    systems
        System names (one chart each, in this order).
    central_usd
        Each system's blended cost per accepted request at central values [USD/request] (drawn, like every cost
        axis, in dollars per 1,000 accepted requests).
    input_label
        A readable name of an input from its YAML path.
    """
    tornado = tornado[:MAX_TORNADO_INPUTS]
    frame = pd.DataFrame(
        [
            {
                "input": input_label(r["input"]),
                "rank": rank,
                "system": system,
                "end": end,
                "usd": display.per_1k(r[f"{system}@{which}"]),
                "central_usd": display.per_1k(central_usd[system]),
                "value": display.input_value(r[f"{which}_value"], r["input"]),
            }
            for rank, r in enumerate(tornado)
            for system in systems
            for which, end in zip(("low", "high"), TORNADO_ENDS, strict=True)
            # (an end, or a central cost, that is undefined, the fleet accepting nothing there, has no bar)
            if r[f"{system}@{which}"] is not None and central_usd[system] is not None
        ],
        columns=["input", "rank", "system", "end", "usd", "central_usd", "value"],
    )
    order = [input_label(r["input"]) for r in tornado]
    ends = list(TORNADO_ENDS)
    charts = []
    for system in systems:
        mine = frame[frame["system"] == system]
        y = alt.Y("input:N", sort=order, title=None, axis=alt.Axis(labelLimit=260))
        bars = (
            alt.Chart(mine)
            .mark_bar(opacity=0.85)
            .encode(
                y=y,
                yOffset=alt.YOffset("end:N", sort=ends),
                x=alt.X(
                    "usd:Q",
                    title=f"blended {COST_TITLE}",
                    scale=alt.Scale(zero=False),
                    axis=alt.Axis(format="$.3~g", tickCount=4),
                ),
                x2="central_usd:Q",
                color=alt.Color("end:N", title=None, scale=alt.Scale(domain=ends, range=["#4c78a8", "#f58518"])),
                tooltip=[
                    alt.Tooltip("system:N"),
                    alt.Tooltip("input:N"),
                    alt.Tooltip("end:N", title="input"),
                    alt.Tooltip("value:N", title="input value"),
                    alt.Tooltip("usd:Q", title=f"blended, {display.PER_1K_ACCEPTED}", format="$.3~g"),
                ],
            )
        )
        central = central_usd[system]
        center = (
            alt.Chart(pd.DataFrame([{"central_usd": None if central is None else central * display.REQUESTS_PER_1K}]))
            .mark_rule(color="black", strokeWidth=1.5)
            .encode(x="central_usd:Q")
        )
        charts.append((bars + center).properties(title=system, height=alt.Step(18)))
    return charts
