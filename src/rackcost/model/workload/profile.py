"""Demand over time: an hourly profile, its growth over a horizon of years, and the calendar of the horizon.

The numeric core of ``demand: {profile: ...}`` (docs/model.md, "Demand over time"). Conventions, shared by every
module that evaluates the horizon hour by hour:

- the horizon starts on a Monday at 00:00 of year 1 and is ``horizon_years`` years of 8,760 hours (a 365-day year:
  52 weeks and a day); hour ``t`` is the hour that starts ``t`` hours after the horizon begins;
- a profile of 168 values is a typical week (Monday 00:00 first), tiled over a year and truncated to 8,760 hours;
  a profile of ``n`` whole weeks (``168 n`` values, ``n`` up to 52) is tiled by its weeks in order (week 1, week 2,
  ..., week n, week 1, ...), never cut to one; a profile of 8,760 values is a year; the year is repeated for every
  year of the horizon, so every year starts on a Monday at 00:00;
- growth is smooth and geometric: a rate ``g`` per period of ``P`` hours multiplies hour ``t`` by
  ``(1 + g) ** (t / P)`` (``P`` = 8,760 for a yearly rate, 2,190 for a quarterly one); a table of yearly rates
  compounds each year's own rate within that year, continuously across year boundaries;
- for aggregation, a quarter is 2,190 hours, a month 730 hours and a day 24 hours, counted from the start of the
  horizon (0-based).

Everything is vectorised over hours: no Python loop runs over the hours of the horizon.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import HOURS_PER_DAY

__all__ = [
    "DEFAULT_PERCENTILES",
    "HOURS_PER_MONTH_OF_HORIZON",
    "HOURS_PER_QUARTER",
    "HOURS_PER_WEEK",
    "HOURS_PER_YEAR_OF_HORIZON",
    "MAX_HORIZON_YEARS",
    "MAX_PROFILE_WEEKS",
    "PROFILE_LENGTHS_H",
    "GrowthRates",
    "day_index",
    "growth_factors",
    "hour_of_day",
    "hour_of_week",
    "hour_of_profile",
    "hourly_rates_rps",
    "is_profile_length",
    "month_index",
    "named_points",
    "nearest_point_index",
    "quarter_index",
    "year_index",
    "year_of_profile_rps",
]

HOURS_PER_WEEK = 168
"""Hours in a typical week, the shorter profile [h]."""
HOURS_PER_YEAR_OF_HORIZON = 8760
"""Hours in a year of the horizon, the longer profile: 365 days, 52 weeks and a day [h] (as ``units.HOURS_PER_YEAR``,
an integer for indexing)."""
HOURS_PER_QUARTER = 2190
"""Hours in a quarter of the horizon: a year of 8,760 hours in 4 [h]."""
HOURS_PER_MONTH_OF_HORIZON = 730
"""Hours in a month of the horizon, for aggregation: a year of 8,760 hours in 12 [h]."""
MAX_PROFILE_WEEKS = HOURS_PER_YEAR_OF_HORIZON // HOURS_PER_WEEK
"""Most whole weeks a profile may give: 52, the whole weeks of a year of the horizon [-]."""
PROFILE_LENGTHS_H = (HOURS_PER_WEEK, HOURS_PER_YEAR_OF_HORIZON)
"""The two lengths a profile was first given in: a typical week or a year of hourly values [h]. Any whole number of
weeks up to :data:`MAX_PROFILE_WEEKS` is a profile too (:func:`is_profile_length`)."""
MAX_HORIZON_YEARS = 10
"""Longest horizon [years]."""
DEFAULT_PERCENTILES = (5.0, 50.0, 100.0)
"""Percentiles of the horizon's hourly rates that make the quiet, normal and peak points [%]: the peak is the
busiest hour, so a fleet sized on the named points is sized for the whole horizon."""


@dataclass(frozen=True)
class GrowthRates:
    """Geometric growth: ``fractions[k]`` is the rate over the ``k``-th period of ``period_h`` hours.

    The factor at hour ``t`` in period ``k = t // period_h`` is ``prod(1 + fractions[:k]) * (1 + fractions[k]) **
    ((t - k * period_h) / period_h)``: each period compounds its own rate smoothly, continuously across period
    boundaries. Hours past the last period keep compounding at the last rate.

    Attributes
    ----------
    period_h
        Length of a period [h]: 8,760 for yearly rates, 2,190 for quarterly ones.
    fractions
        Growth over each period, at least -1 (-100%: demand vanishes) [fraction per period].
    """

    period_h: float
    fractions: tuple[float, ...]

    @classmethod
    def per_year(cls, fraction: float) -> GrowthRates:
        """The same yearly rate every year: factor ``(1 + fraction) ** (t / 8760)``."""
        return cls(float(HOURS_PER_YEAR_OF_HORIZON), (float(fraction),))

    @classmethod
    def per_quarter(cls, fraction: float) -> GrowthRates:
        """The same quarterly rate every quarter: factor ``(1 + fraction) ** (t / 2190)``."""
        return cls(float(HOURS_PER_QUARTER), (float(fraction),))

    @classmethod
    def per_year_table(cls, fractions: Sequence[float]) -> GrowthRates:
        """Each year's own rate, compounding within the year and continuously across year boundaries."""
        return cls(float(HOURS_PER_YEAR_OF_HORIZON), tuple(float(f) for f in fractions))


def growth_factors(hour_index: ArrayLike, growth: GrowthRates | None) -> NDArray[np.float64]:
    """Demand multiplier at each hour of the horizon (1 at hour 0; all ones without growth).

    Parameters
    ----------
    hour_index
        Hours since the start of the horizon, ``t >= 0`` [h].
    growth
        The growth rates, or None for none.

    Returns
    -------
    ndarray
        Factor at each hour, the shape of ``hour_index`` [-]; finite and >= 0.

    Examples
    --------
    >>> growth_factors([0, 4380, 8760], GrowthRates.per_year(0.44)).round(6).tolist()
    [1.0, 1.2, 1.44]
    """
    t = np.asarray(hour_index, dtype=np.float64)
    if growth is None:
        return np.ones_like(t)
    fractions = np.asarray(growth.fractions, dtype=np.float64)
    if fractions.size == 0 or np.any(fractions < -1) or not np.all(np.isfinite(fractions)):
        raise ValueError(f"growth fractions must be finite and >= -1, got {growth.fractions}")
    ratio = 1.0 + fractions
    # factor at the start of each period: 1, (1+g0), (1+g0)(1+g1), ...
    start = np.concatenate(([1.0], np.cumprod(ratio)))
    period = np.minimum(np.floor(t / growth.period_h), fractions.size - 1).astype(np.intp)
    period = np.maximum(period, 0)
    within = (t - period * growth.period_h) / growth.period_h  # share of the period elapsed (past the last: > 1)
    # np.power(0, 0) is 1: a -100% period still starts at the factor it reached
    return start[period] * np.power(ratio[period], within)


def is_profile_length(hours: int) -> bool:
    """Whether a profile may have this many hourly values: ``168 n`` (``n`` whole weeks, 1 to 52) or 8,760 [-].

    Examples
    --------
    >>> [is_profile_length(h) for h in (168, 336, 8736, 8760, 167, 200, 8904)]
    [True, True, True, True, False, False, False]
    """
    weeks, rest = divmod(int(hours), HOURS_PER_WEEK)
    return hours == HOURS_PER_YEAR_OF_HORIZON or (rest == 0 and 1 <= weeks <= MAX_PROFILE_WEEKS)


def hour_of_profile(hour_index: ArrayLike, profile_hours: int) -> NDArray[np.intp]:
    """The index into a profile of ``profile_hours`` values that hour ``t`` of the horizon reads [-].

    A year restarts the profile (every year starts on a Monday); within a year the profile's weeks are tiled in
    order, so a profile of two weeks gives week 1, week 2, week 1, ... and a year of 8,760 values is read as it is.

    Examples
    --------
    >>> hour_of_profile([0, 167, 168, 335, 336, 8759, 8760], 336).tolist()
    [0, 167, 168, 335, 0, 23, 0]
    """
    if not is_profile_length(profile_hours):
        raise ValueError(f"a profile has 168 n (n whole weeks, 1 to 52) or 8,760 hourly values, got {profile_hours}")
    return (np.asarray(hour_index, dtype=np.intp) % HOURS_PER_YEAR_OF_HORIZON) % int(profile_hours)


def year_of_profile_rps(profile_rps: ArrayLike) -> NDArray[np.float64]:
    """A profile as one year of hourly rates: its weeks tiled in order and truncated to 8,760 hours, a year as it is.

    Parameters
    ----------
    profile_rps
        ``168 n`` (``n`` whole weeks, 1 to 52, Monday 00:00 first) or 8,760 (a year) hourly arrival rates
        [requests/s].

    Returns
    -------
    ndarray
        The 8,760 hourly rates of a year [requests/s].

    Raises
    ------
    ValueError
        A profile of another length.

    Examples
    --------
    Two weeks are tiled as week 1, week 2, week 1, ... (52 weeks and a Monday of week 1):

    >>> year = year_of_profile_rps([1.0] * 168 + [2.0] * 168)
    >>> year[[0, 168, 336, 504, 8736]].tolist()
    [1.0, 2.0, 1.0, 2.0, 1.0]
    """
    profile = np.asarray(profile_rps, dtype=np.float64)
    if profile.ndim != 1 or not is_profile_length(profile.size):
        raise ValueError(
            f"a profile has 168 n (n whole weeks, 1 to 52) or 8,760 hourly values, got shape {profile.shape}"
        )
    return profile[hour_of_profile(np.arange(HOURS_PER_YEAR_OF_HORIZON), profile.size)]


def hourly_rates_rps(profile_rps: ArrayLike, growth: GrowthRates | None, horizon_years: int) -> NDArray[np.float64]:
    """Arrival rate at every hour of the horizon: the profile's year repeated, times the growth factor.

    Parameters
    ----------
    profile_rps
        ``168 n`` (``n`` whole weeks) or 8,760 (a year) hourly arrival rates at the start of the horizon
        [requests/s].
    growth
        Growth over the horizon, or None for a flat repeat.
    horizon_years
        Years of the horizon, 1 to 10 [years].

    Returns
    -------
    ndarray
        ``horizon_years * 8760`` hourly arrival rates [requests/s].

    Examples
    --------
    >>> rates = hourly_rates_rps([1.0] * 168, GrowthRates.per_year(0.4), 2)
    >>> rates.shape, float(rates[0]), round(float(rates[8760]), 12)
    ((17520,), 1.0, 1.4)
    """
    if not 1 <= int(horizon_years) <= MAX_HORIZON_YEARS or int(horizon_years) != horizon_years:
        raise ValueError(f"horizon_years must be an integer from 1 to {MAX_HORIZON_YEARS}, got {horizon_years}")
    year = year_of_profile_rps(profile_rps)
    hours = HOURS_PER_YEAR_OF_HORIZON * int(horizon_years)
    base = np.tile(year, int(horizon_years))
    if growth is None:
        return base
    return base * growth_factors(np.arange(hours), growth)


def nearest_point_index(rates_rps: ArrayLike, point_rates_rps: ArrayLike) -> NDArray[np.intp]:
    """For each hourly rate, the index of the point whose rate is nearest (a tie goes to the lower point).

    Parameters
    ----------
    rates_rps
        Hourly arrival rates [requests/s].
    point_rates_rps
        The points' rates, non-decreasing [requests/s].

    Returns
    -------
    ndarray
        Index into ``point_rates_rps`` for each rate [-].
    """
    points = np.asarray(point_rates_rps, dtype=np.float64)
    midpoints = 0.5 * (points[:-1] + points[1:])
    return np.searchsorted(midpoints, np.asarray(rates_rps, dtype=np.float64), side="left").astype(np.intp)


def named_points(
    rates_rps: ArrayLike,
    percentiles: Sequence[float] = DEFAULT_PERCENTILES,
    min_hours_per_day: float = 1e-3,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The named demand points of a horizon's hourly rates: their rates and hours a day.

    A point's rate is the percentile of the hourly rates (numpy's linear interpolation). Its hours a day are 24
    times the share of the hours whose rate is nearest to the point's rate (:func:`nearest_point_index`), so they
    add up to 24 and weigh each point by how much of the horizon looks like it. A point nearest to fewer hours than
    ``min_hours_per_day`` (the busiest hour of several years) is given ``min_hours_per_day``, taken from the point
    with the most hours.

    Parameters
    ----------
    rates_rps
        Hourly arrival rates of the horizon [requests/s].
    percentiles
        Increasing percentiles, 0 to 100, one per point [%].
    min_hours_per_day
        Fewest hours a day a point is given [h/day].

    Returns
    -------
    rates_rps, hours_per_day
        Each point's arrival rate [requests/s] and hours a day [h/day]; the hours add up to 24 exactly.

    Examples
    --------
    >>> rates, hours = named_points([1.0] * 6 + [2.0] * 12 + [4.0] * 6, (0, 50, 100))
    >>> rates.tolist(), hours.tolist()
    ([1.0, 2.0, 4.0], [6.0, 12.0, 6.0])
    """
    rates = np.asarray(rates_rps, dtype=np.float64)
    levels = np.asarray(percentiles, dtype=np.float64)
    if rates.ndim != 1 or rates.size == 0:
        raise ValueError("rates_rps must be a non-empty 1-D array")
    if np.any(np.diff(levels) <= 0) or levels.min() < 0 or levels.max() > 100:
        raise ValueError(f"percentiles must increase within 0 to 100, got {list(percentiles)}")
    point_rates = np.percentile(rates, levels)
    counts = np.bincount(nearest_point_index(rates, point_rates), minlength=levels.size)
    hours = HOURS_PER_DAY * counts / rates.size
    short = hours < min_hours_per_day
    hours[short] = min_hours_per_day
    largest = int(np.argmax(np.where(short, -np.inf, hours)))
    hours[largest] = 0.0
    hours[largest] = HOURS_PER_DAY - float(np.sum(hours))  # the others as they are, the largest takes the rest
    return point_rates, hours


def year_index(hour_index: ArrayLike) -> NDArray[np.intp]:
    """Year of the horizon of each hour, 0-based (hours 0 to 8,759 are year 0) [-]."""
    return np.asarray(hour_index, dtype=np.intp) // HOURS_PER_YEAR_OF_HORIZON


def quarter_index(hour_index: ArrayLike) -> NDArray[np.intp]:
    """Quarter of the horizon of each hour, 0-based over the whole horizon (quarter 4 is year 1's first) [-]."""
    return np.asarray(hour_index, dtype=np.intp) // HOURS_PER_QUARTER


def month_index(hour_index: ArrayLike) -> NDArray[np.intp]:
    """Month of the horizon of each hour (730 h each), 0-based over the whole horizon [-]."""
    return np.asarray(hour_index, dtype=np.intp) // HOURS_PER_MONTH_OF_HORIZON


def day_index(hour_index: ArrayLike) -> NDArray[np.intp]:
    """Day of the horizon of each hour, 0-based over the whole horizon [-]."""
    return np.asarray(hour_index, dtype=np.intp) // int(HOURS_PER_DAY)


def hour_of_day(hour_index: ArrayLike) -> NDArray[np.intp]:
    """Hour of the day of each hour, 0 to 23 [h]."""
    return np.asarray(hour_index, dtype=np.intp) % int(HOURS_PER_DAY)


def hour_of_week(hour_index: ArrayLike) -> NDArray[np.intp]:
    """Hour of the week of each hour, 0 (Monday 00:00) to 167; every year restarts on a Monday [h].

    This is the index into a 168-value profile that :func:`hourly_rates_rps` uses for the hour.
    """
    return (np.asarray(hour_index, dtype=np.intp) % HOURS_PER_YEAR_OF_HORIZON) % HOURS_PER_WEEK
