"""Charts of demand over time, shared by the dashboard and the report: a profile's hours over its years, and each
system's cost per accepted request year by year (the ``years`` table of a scenario with a demand profile).

Pure, like :mod:`rackcost.reporting.charts`: records in, an Altair chart out, not drawn. A horizon of years is tens
of thousands of hours, far past Altair's 5,000-row limit and more than a chart can show: the demand chart draws
each day's mean and busiest hour (:func:`daily_demand_rows`), at most 3,650 days (ten years) a line; the shape of a
day is the demand points' job (their hours per day).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rackcost import display
from rackcost.reporting.charts import COST_TITLE, SYSTEM_PALETTE
from rackcost.units import HOURS_PER_DAY

__all__ = ["cost_by_year_chart", "daily_demand_rows", "demand_over_time_chart"]

HOURS_A_DAY = int(HOURS_PER_DAY)  # the profile's hours, a day
DAILY_SERIES = ("busiest hour", "day's mean")
"""The two lines of the demand chart, in their legend's order."""


def daily_demand_rows(hourly_rps: ArrayLike) -> list[dict[str, Any]]:
    """Each day's mean and busiest-hour arrival rate: ``day`` (from 1), ``series`` and ``rps``.

    A last day of fewer than 24 hours is kept, over the hours it has.

    Parameters
    ----------
    hourly_rps
        The arrival rate of each hour of the horizon, hour 0 the first (``DemandProfile.hourly_rates_rps()``)
        [requests/s].

    Examples
    --------
    >>> rows = daily_demand_rows([1.0] * 24 + [2.0, 4.0])
    >>> [(r["day"], r["series"], r["rps"]) for r in rows]
    [(1, 'busiest hour', 1.0), (1, "day's mean", 1.0), (2, 'busiest hour', 4.0), (2, "day's mean", 3.0)]
    """
    rates = np.asarray(hourly_rps, dtype=float).ravel()
    days = -(-rates.size // HOURS_A_DAY)
    padded = np.full(days * HOURS_A_DAY, np.nan)
    padded[: rates.size] = rates
    by_day = padded.reshape(days, HOURS_A_DAY)
    peaks, means = np.nanmax(by_day, axis=1), np.nanmean(by_day, axis=1)
    return [
        {"day": d + 1, "series": series, "rps": float(value)}
        for d in range(days)
        for series, value in zip(DAILY_SERIES, (peaks[d], means[d]), strict=True)
    ]


def demand_over_time_chart(hourly_rps: ArrayLike, height_px: int = 220) -> alt.Chart:
    """Each day's busiest hour and mean arrival rate over the horizon, with the years marked on the axis.

    Parameters
    ----------
    hourly_rps
        The arrival rate of each hour of the horizon [requests/s].
    height_px
        The plot's height [px]; its width is left to the caller (the column's, or a fixed one).
    """
    rows = pd.DataFrame(daily_demand_rows(hourly_rps))
    rows["year"] = (rows["day"] - 1) / 365.0
    return (
        alt.Chart(rows)
        .mark_line(strokeWidth=1.2)
        .encode(
            x=alt.X("year:Q", title="years from the start of the horizon", axis=alt.Axis(tickMinStep=1, format="d")),
            y=alt.Y("rps:Q", title="arrival rate [requests/s]", axis=alt.Axis(format="~s")),
            color=alt.Color(
                "series:N",
                sort=list(DAILY_SERIES),
                title=None,
                scale=alt.Scale(domain=list(DAILY_SERIES), range=["#e45756", "#4c78a8"]),
                legend=alt.Legend(orient="bottom", direction="horizontal", symbolType="stroke"),
            ),
            tooltip=[
                alt.Tooltip("day:Q"),
                alt.Tooltip("series:N", title="rate"),
                alt.Tooltip("rps:Q", title="requests/s", format=",.4~g"),
            ],
        )
        .properties(height=height_px, title="Demand over the horizon: each day's busiest hour and mean")
    )


def cost_by_year_chart(years: list[dict[str, Any]], systems: Sequence[str], height_px: int = 240) -> alt.Chart:
    """Each system's cost per 1,000 accepted requests in each year of the horizon: a line with a point per year.

    Systems that coincide are still told apart: each has its own colour and its own point shape, so a line drawn
    under another shows its points' shapes.

    Parameters
    ----------
    years
        Rows of the ``years`` table (``Result.records["years"]``).
    systems
        The systems to draw, in the legend's order (rows of other systems are left out).
    height_px
        The plot's height [px].
    """
    shown = set(systems)
    rows = pd.DataFrame(
        [
            {
                "system": r["system"],
                "year": int(r["year"]),
                "usd_per_1k": r["usd_per_accepted_request"] * display.REQUESTS_PER_1K,
            }
            for r in years
            if r["system"] in shown and r.get("usd_per_accepted_request") is not None
        ],
        columns=["system", "year", "usd_per_1k"],
    )
    order = [s for s in systems if s in set(rows["system"])]
    colours = [SYSTEM_PALETTE[list(systems).index(s) % len(SYSTEM_PALETTE)] for s in order]
    return (
        alt.Chart(rows)
        .mark_line(point=alt.OverlayMarkDef(size=60, filled=True))
        .encode(
            x=alt.X("year:O", title="year of the horizon", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("usd_per_1k:Q", title=COST_TITLE, axis=alt.Axis(format="$.3~g")),
            color=alt.Color(
                "system:N",
                sort=order,
                title=None,
                scale=alt.Scale(domain=order, range=colours),
                legend=alt.Legend(orient="bottom", direction="horizontal", columns=2, labelLimit=260),
            ),
            shape=alt.Shape("system:N", sort=order, title=None, legend=None),
            tooltip=[
                alt.Tooltip("system:N"),
                alt.Tooltip("year:O"),
                alt.Tooltip("usd_per_1k:Q", title=display.PER_1K_ACCEPTED, format="$.3~g"),
            ],
        )
        .properties(height=height_px, title="Cost per accepted request, year by year")
    )
