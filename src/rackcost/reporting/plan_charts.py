"""The buying plan's chart, shared by the dashboard's Plan page and the report's Buying plan section.

:func:`capacity_chart` draws a :class:`~rackcost.evaluation.planning.PlanResult`: the capacity each source holds,
stacked, against the demand's peak hour, over the horizon. :func:`capacity_frame` gives its data (plain rows), so
a test or a caller reads the same numbers the chart draws.

**What "capacity" is.** For a source with units (owned racks, reserved, on-demand and spot replicas): the most
requests/s its units held can carry within the SLO (:meth:`~rackcost.evaluation.plan_sources.SourceFigures.capacity_rps`
at the units held, exact for that fleet size, times the share of time they serve: spot after its preemptions, owned
after its availability). For the API, which holds nothing, the rate it carries. Each bucket shows its **busiest
hour**: the demand then and the capacity held then, so the stack is never below the line (every hour is served)
and the stack's top above the line is capacity held but idle at the peak (owned racks bought ahead of growth, a
whole replica's slack). The API's top-ups in other hours, where a source holds fewer units, are in the table's
served shares, not here.

**Buckets.** A bucket is a week (a three-year horizon: 157 of them), or a whole number of weeks beyond
:data:`MAX_PLAN_BUCKETS` weeks; it shows its busiest hour. Weeks, not days: drawn per day, the weekday and
weekend peaks made a saw-tooth of 365 teeth a year that hid the growth and the changes of plan, which are what the
chart is for (the table gives each quarter). Sources that hold nothing over the
whole horizon are left out (the caption says which). So the data stay far below Altair's 5,000 rows a dataset.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import altair as alt
import numpy as np
import pandas as pd

from rackcost.reporting.charts import SYSTEM_PALETTE
from rackcost.reporting.decision import unused_sources
from rackcost.units import HOURS_PER_YEAR

if TYPE_CHECKING:
    from rackcost.evaluation.planning import PlanResult

__all__ = [
    "DEMAND_COLOR",
    "DEMAND_LABEL",
    "MAX_PLAN_BUCKETS",
    "bucket_hours",
    "busiest_hours",
    "capacity_chart",
    "capacity_frame",
    "description",
    "hourly_capacity_rps",
    "unused_sources",
]

MAX_PLAN_BUCKETS = 260
"""Most buckets along the horizon [-]: five years of weeks (the bundled plan has three, 157 weeks)."""
DEMAND_LABEL = "demand (peak hour)"
"""The demand line's name in the legend."""
DEMAND_COLOR = "#1d2430"
"""The demand line's colour: the report's ink."""
PLOT_HEIGHT_PX = 300


def bucket_hours(n_hours: int, max_buckets: int = MAX_PLAN_BUCKETS) -> int:
    """Hours of a bucket of the chart: a week (168 h), or the fewest whole weeks that keep the horizon to
    ``max_buckets`` buckets.

    Examples
    --------
    >>> bucket_hours(8760), bucket_hours(3 * 8760), bucket_hours(6 * 8760)
    (168, 168, 336)
    """
    return 168 * max(1, math.ceil(math.ceil(n_hours / 168) / max_buckets))


def hourly_capacity_rps(plan: PlanResult) -> np.ndarray:
    """(S, H) the capacity each source holds in each hour [requests/s] (the API: the rate it carries).

    A source's capacity at ``n`` units is its exact capacity at SLO for that fleet size
    (:meth:`~rackcost.evaluation.plan_sources.SourceFigures.capacity_rps`, already known for every size the plan
    holds, so nothing is evaluated again).
    """
    r = plan.realised
    out = np.zeros_like(r.served_rps)
    for i, f in enumerate(plan.sources):
        if not f.source.kind.has_fleet:
            out[i] = r.served_rps[i]
            continue
        sizes, back = np.unique(np.rint(r.units[i]).astype(int), return_inverse=True)
        out[i] = np.array([f.capacity_rps(int(n)) for n in sizes])[back]
    return out


def busiest_hours(hourly_rps: np.ndarray, hours: int) -> np.ndarray:
    """The index of the busiest hour of each bucket of ``hours`` (the first of equals; the last bucket may be
    shorter).

    >>> busiest_hours(np.array([1.0, 3.0, 2.0, 5.0, 4.0]), 2).tolist()
    [1, 3, 4]
    """
    starts = np.arange(0, hourly_rps.size, hours)
    return np.array([s + int(np.argmax(hourly_rps[s : s + hours])) for s in starts], dtype=np.int64)


def capacity_frame(plan: PlanResult, max_buckets: int = MAX_PLAN_BUCKETS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The chart's data: the capacity of each source used and the demand's peak, per bucket.

    Parameters
    ----------
    plan
        The plan (:func:`rackcost.evaluation.planning.plan_scenario`).
    max_buckets
        Most buckets along the horizon (:func:`bucket_hours`).

    Returns
    -------
    capacity : pandas.DataFrame
        One row per bucket and source used: ``start_years`` (the bucket's start, in years from the horizon's start)
        [year], ``source``, ``order`` (its index in ``plan.sources``), ``capacity_rps`` (what the source holds in the
        bucket's busiest hour, :func:`hourly_capacity_rps`) [requests/s].
    demand : pandas.DataFrame
        One row per bucket: ``start_years`` [year], ``series`` (:data:`DEMAND_LABEL`), ``demand_rps`` (the bucket's
        busiest hour's rate) [requests/s].
    """
    hours = bucket_hours(plan.hourly_rps.size, max_buckets)
    rates = np.asarray(plan.hourly_rps, dtype=float)
    at = busiest_hours(rates, hours)
    capacity = hourly_capacity_rps(plan)[:, at]
    peak = rates[at]
    start_years = np.arange(peak.size) * hours / HOURS_PER_YEAR
    unused = set(unused_sources(plan))
    rows = [
        {"start_years": float(t), "source": f.source.name, "order": i, "capacity_rps": float(capacity[i, b])}
        for i, f in enumerate(plan.sources)
        if f.source.name not in unused
        for b, t in enumerate(start_years)
    ]
    frame = pd.DataFrame(rows, columns=["start_years", "source", "order", "capacity_rps"])
    demand = pd.DataFrame({"start_years": start_years, "series": DEMAND_LABEL, "demand_rps": peak})
    return frame, demand


def capacity_chart(plan: PlanResult, height_px: int = PLOT_HEIGHT_PX) -> alt.LayerChart:
    """Capacity held by source, stacked (areas), against the demand's peak hour (a line), over the horizon.

    Each source keeps its colour (the n-th of ``plan.sources`` gets the n-th of
    :data:`~rackcost.reporting.charts.SYSTEM_PALETTE`), stacked in the scenario's order from the bottom. The width is
    left open (the report sets its own; the dashboard fits its column).

    Parameters
    ----------
    plan
        The plan (:func:`rackcost.evaluation.planning.plan_scenario`).
    height_px
        Height of the plot [px].
    """
    capacity, demand = capacity_frame(plan)
    names = [f.source.name for f in plan.sources]
    used = [n for n in names if n in set(capacity["source"])]
    palette = [SYSTEM_PALETTE[names.index(n) % len(SYSTEM_PALETTE)] for n in used]
    step = bucket_hours(plan.hourly_rps.size)
    per = "week" if step == 168 else f"{step // 168} weeks"
    x = alt.X(
        "start_years:Q",
        title=f"years from the start of the horizon (the busiest hour of each {per})",
        axis=alt.Axis(format=".2~f", tickMinStep=0.25),
        scale=alt.Scale(nice=False),
    )
    tooltip_x = alt.Tooltip("start_years:Q", title="from year", format=".3f")
    areas = (
        alt.Chart(capacity)
        .mark_area(interpolate="step-after", opacity=0.85)
        .encode(
            x=x,
            y=alt.Y(
                "capacity_rps:Q",
                stack="zero",
                title="capacity and demand [requests/s]",
                axis=alt.Axis(titleLimit=height_px - 10),
            ),
            color=alt.Color(
                "source:N",
                title="capacity held by",
                sort=used,
                scale=alt.Scale(domain=used, range=palette),
                legend=alt.Legend(orient="bottom", columns=3),
            ),
            order=alt.Order("order:Q"),
            tooltip=[
                alt.Tooltip("source:N"),
                tooltip_x,
                alt.Tooltip("capacity_rps:Q", title="capacity [requests/s]", format=",.4~g"),
            ],
        )
    )
    line = (
        alt.Chart(demand)
        .mark_line(interpolate="step-after", color=DEMAND_COLOR, strokeWidth=1.5)
        .encode(
            x=x,
            y=alt.Y("demand_rps:Q"),
            strokeDash=alt.StrokeDash("series:N", title=None, legend=alt.Legend(orient="bottom")),
            tooltip=[tooltip_x, alt.Tooltip("demand_rps:Q", title="peak demand [requests/s]", format=",.4~g")],
        )
    )
    return (areas + line).properties(height=height_px)


def description(plan: PlanResult) -> str:
    """The chart's caption (and alt text): what it draws, and the sources it leaves out."""
    step = bucket_hours(plan.hourly_rps.size)
    per = "week" if step == 168 else f"{step // 168} weeks"
    text = (
        f"Capacity held by each source within the SLO, stacked, against the demand, at the busiest hour of each {per} "
        "over the horizon; the API is drawn at the rate it carries then. The stack above the line is capacity held "
        "but idle at the peak."
    )
    if unused := unused_sources(plan):
        text += f" Not used by the plan, so not drawn: {', '.join(unused)}."
    return text
