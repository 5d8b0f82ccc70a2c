"""Hours of a horizon: the calendar, sums over days, months and years, and discounting.

The hours are numbered from 0, the first hour of year 1 (a Monday, 00:00). The calendar is a fixed one: a year is
8,760 h, a quarter 2,190 h (4 a year), a month 730 h (12 a year), a day 24 h; hour ``h`` is in year ``h // 8760``,
quarter ``h // 2190``, month ``h // 730`` and day ``h // 24``, each counted from 0 over the whole horizon (quarter 5
is the second quarter of the second year). A horizon that stops inside a period gives that period its own hours.

Discounting is per hour: the cost of hour ``h`` is worth ``(1 + r) ** (-h / 8760)`` of its value at the start of
the horizon (a continuous-time factor on an hourly grain: hour 0 is not discounted, the first hour of year 2 by
exactly ``1 / (1 + r)``). Flat costs over whole years are then the annuity ``c (1 - v**N) / (1 - v)`` with
``v = (1 + r) ** (-1 / 8760)`` and ``N`` hours (:func:`flat_npv_usd`). Pure functions over numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import HOURS_PER_DAY, HOURS_PER_YEAR, MONTHS_PER_YEAR

__all__ = [
    "PERIOD_HOURS",
    "Calendar",
    "calendar",
    "discount_factors",
    "flat_npv_usd",
    "period_means",
    "period_sums",
]

PERIOD_HOURS = {
    "day": int(HOURS_PER_DAY),
    "month": int(HOURS_PER_YEAR / MONTHS_PER_YEAR),
    "quarter": int(HOURS_PER_YEAR / 4),
    "year": int(HOURS_PER_YEAR),
}
"""Hours in each calendar period of a horizon [h]: 24, 730, 2,190 and 8,760."""


@dataclass(frozen=True)
class Calendar:
    """The period each hour of a horizon falls in, each ``(hours,)`` of int32, counted from 0 (see the module)."""

    hour: NDArray[np.int32]
    day: NDArray[np.int32]
    month: NDArray[np.int32]
    quarter: NDArray[np.int32]
    year: NDArray[np.int32]


def calendar(hours: int) -> Calendar:
    """The calendar of ``hours`` hours from the start of year 1.

    Examples
    --------
    >>> c = calendar(8761)
    >>> int(c.day[25]), int(c.month[730]), int(c.quarter[2190]), int(c.year[8760])
    (1, 1, 1, 1)
    """
    if hours < 1:
        raise ValueError(f"a horizon has at least one hour, not {hours}")
    h = np.arange(hours, dtype=np.int32)
    return Calendar(h, *(h // np.int32(PERIOD_HOURS[p]) for p in ("day", "month", "quarter", "year")))


def period_sums(values: ArrayLike, period_h: int) -> NDArray[np.float64]:
    """Sums over consecutive periods of ``period_h`` hours along the last axis (the last period may be short).

    Parameters
    ----------
    values
        A figure per hour, ``(..., hours)``.
    period_h
        Hours per period [h].

    Returns
    -------
    ndarray ``(..., ceil(hours / period_h))``

    Examples
    --------
    >>> period_sums([[1.0, 2.0, 3.0, 4.0, 5.0]], 2).tolist()
    [[3.0, 7.0, 5.0]]
    """
    x = np.asarray(values, dtype=float)
    starts = np.arange(0, x.shape[-1], period_h)
    return np.add.reduceat(x, starts, axis=-1)


def period_means(values: ArrayLike, period_h: int) -> NDArray[np.float64]:
    """Means over consecutive periods of ``period_h`` hours along the last axis (a short last period: the mean of
    its own hours).

    Examples
    --------
    >>> period_means([[1.0, 2.0, 3.0, 4.0, 5.0]], 2).tolist()
    [[1.5, 3.5, 5.0]]
    """
    x = np.asarray(values, dtype=float)
    hours = x.shape[-1]
    counts = np.minimum(period_h, hours - np.arange(0, hours, period_h))
    return period_sums(x, period_h) / counts


def discount_factors(hours: int, rate_fraction: float) -> NDArray[np.float64]:
    """Each hour's discount factor ``(1 + r) ** (-h / 8760)``, ``(hours,)`` [-].

    Parameters
    ----------
    hours
        Hours of the horizon [h].
    rate_fraction
        Discount rate per year, the cost of capital [-]; above -1.

    Examples
    --------
    >>> f = discount_factors(8761, 0.08)
    >>> float(f[0]), round(float(f[8760]), 12)
    (1.0, 0.925925925926)
    """
    r = float(rate_fraction)
    if not np.isfinite(r) or r <= -1.0:
        raise ValueError(f"a discount rate is a finite fraction above -1, not {rate_fraction!r}")
    return np.exp(-np.log1p(r) / HOURS_PER_YEAR * np.arange(hours, dtype=float))


def flat_npv_usd(usd_per_hour: float, hours: int, rate_fraction: float) -> float:
    """Present value of a flat cost per hour over ``hours`` hours: the annuity ``c (1 - v**N) / (1 - v)``, ``v =
    (1 + r) ** (-1 / 8760)``; ``c N`` at ``r = 0`` [USD] (the closed form :func:`discount_factors` sums to).

    Examples
    --------
    >>> round(flat_npv_usd(1.0, 8760, 0.0), 6), round(flat_npv_usd(1.0, 8760, 0.08), 3)
    (8760.0, 8431.431)
    """
    r = float(rate_fraction)
    if r == 0.0:
        return float(usd_per_hour) * hours
    v = (1.0 + r) ** (-1.0 / HOURS_PER_YEAR)
    return float(usd_per_hour) * (1.0 - v**hours) / (1.0 - v)
