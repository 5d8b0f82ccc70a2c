"""The grid behind the wall: carbon intensity and price of each kWh, flat or hour by hour (docs/model.md, 8. Cost).

A fleet's facility energy is bought from a grid whose carbon intensity (grams of CO2-equivalent per kWh) and price
may change by the hour. This module turns facility power into grams of CO2 per hour, prices carbon into the
electricity bill, and reads a daily (24-value) or weekly (168-value) hourly grid at any hour of a horizon or as the
mean over the hours of a named demand point. Plain numbers and arrays only; the scenario's ``facility`` block is
read by :mod:`rackcost.scenario.unpack`.

Accounting convention: *location-based* scope-2 emissions (the GHG Protocol, *Scope 2 Guidance*, World Resources
Institute, 2015): the grid's average intensity times the energy drawn at the wall (IT power x PUE), whoever pays
for it (a rented accelerator's energy emits the same carbon as an owned one's).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.workload.profile import HOURS_PER_WEEK, hour_of_day, hour_of_week
from rackcost.units import GRAMS_PER_TONNE, HOURS_PER_DAY

__all__ = [
    "GRID_LENGTHS",
    "carbon_g_per_hour",
    "carbon_usd_per_kwh",
    "grid_at_hours",
    "point_means",
]

GRID_LENGTHS = (int(HOURS_PER_DAY), HOURS_PER_WEEK)
"""Lengths an hourly grid may have: a day (hour 0 is 00:00) or a week (hour 0 is Monday 00:00) [h]."""


def carbon_g_per_hour(facility_power_kw: ArrayLike, carbon_g_per_kwh: ArrayLike) -> NDArray[np.float64]:
    """Grams of CO2-equivalent emitted per hour at a facility (wall) power [g/h].

    Examples
    --------
    A 100 kW facility on a 390 g/kWh grid emits 39 kg an hour:

    >>> float(carbon_g_per_hour(100.0, 390.0))
    39000.0
    """
    return np.asarray(facility_power_kw, float) * np.asarray(carbon_g_per_kwh, float)


def carbon_usd_per_kwh(carbon_g_per_kwh: ArrayLike, carbon_usd_per_tonne: ArrayLike) -> NDArray[np.float64]:
    """The carbon price carried by each kWh: intensity x price per tonne [USD/kWh].

    Examples
    --------
    At 390 g/kWh and $100 a tonne each kWh carries 0.039 USD of carbon (390 / 1e6 x 100):

    >>> round(float(carbon_usd_per_kwh(390.0, 100.0)), 12)
    0.039
    """
    return np.asarray(carbon_g_per_kwh, float) * np.asarray(carbon_usd_per_tonne, float) / GRAMS_PER_TONNE


def grid_at_hours(values: Sequence[float] | NDArray[np.float64], hour_index: ArrayLike) -> NDArray[np.float64]:
    """An hourly grid's value at each hour of a horizon (hour 0 is Monday 00:00 of its first year).

    Parameters
    ----------
    values
        24 values (a day, repeated every day) or 168 (a week, Monday 00:00 first; every year restarts on a Monday,
        as a demand profile's weeks do: :func:`rackcost.model.workload.profile.hour_of_week`).
    hour_index
        Hours of the horizon [h].

    Examples
    --------
    >>> day = list(range(24))
    >>> grid_at_hours(day, [0, 23, 24, 8760]).tolist()
    [0.0, 23.0, 0.0, 0.0]
    """
    v = np.asarray(values, dtype=np.float64)
    if v.size not in GRID_LENGTHS:
        raise ValueError(f"an hourly grid has {GRID_LENGTHS[0]} or {GRID_LENGTHS[1]} values, got {v.size}")
    index = hour_of_day(hour_index) if v.size == GRID_LENGTHS[0] else hour_of_week(hour_index)
    return v[index]


def point_means(
    values_at_hours: ArrayLike, point_of_hour: ArrayLike, points: int, fallback: float
) -> NDArray[np.float64]:
    """The mean of an hourly figure over the hours of each named demand point (those nearest to its rate).

    The fleet runs at a point's rate during each of its hours, so its wall power is the same in all of them and
    the point's energy cost and carbon per hour are its power times this plain mean. A point no hour is nearest to
    (the busiest hour of several years, given a minimum of hours) takes ``fallback``.

    Parameters
    ----------
    values_at_hours
        The figure at each hour of the horizon.
    point_of_hour
        The index of the point each hour belongs to (:func:`rackcost.model.workload.profile.nearest_point_index`).
    points
        Number of named points.
    fallback
        The value of a point with no hour.

    Examples
    --------
    Hours 0-1 at point 0 (prices 10 and 20), hour 2 at point 1 (30), point 2 with none:

    >>> point_means([10.0, 20.0, 30.0], [0, 0, 1], 3, fallback=-1.0).tolist()
    [15.0, 30.0, -1.0]
    """
    idx = np.asarray(point_of_hour, dtype=np.intp)
    counts = np.bincount(idx, minlength=points).astype(float)
    sums = np.bincount(idx, weights=np.asarray(values_at_hours, dtype=float), minlength=points)
    return np.divide(sums, counts, out=np.full(points, float(fallback)), where=counts > 0)
