"""The grid's figures as each system's inputs see them: flat, or the hourly grid's mean over each named point.

:func:`point_grid` reads ``facility.hourly`` at the hours of the scenario's demand profile and averages it over the
hours nearest to each named demand point (the hours that point stands for, :mod:`rackcost.model.workload.profile`);
:func:`system_grid` gives one system's electricity price and carbon intensity per sample and point, the flat
figure's sampled / central ratio scaling the hourly means (a spread, sweep or break-even of the flat figure moves
every hour alike). A system with its own ``facility`` figure is on another tariff or grid: the hourly grid is not
its.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.energy.grid import grid_at_hours, point_means
from rackcost.model.inputs import SystemInputs
from rackcost.model.workload.profile import nearest_point_index
from rackcost.scenario.schema import Scenario

__all__ = ["GridFigure", "grid_inputs", "hourly_grid_values", "point_grid", "system_grid"]

GridFigure = Literal["electricity_usd_per_kwh", "carbon_g_per_kwh"]
"""The figures an hourly grid may give, named as the facility's flat ones."""


def hourly_grid_values(scenario: Scenario, name: GridFigure, hours: int | ArrayLike) -> NDArray[np.float64] | None:
    """The hourly grid's ``name`` at each of ``hours`` (hours of the horizon; an int ``n``: the first ``n``), or None
    without one."""
    hourly = scenario.facility.hourly
    values = None if hourly is None else getattr(hourly, name)
    if values is None:
        return None
    return grid_at_hours(values, np.arange(hours) if isinstance(hours, int) else hours)


def point_grid(scenario: Scenario, name: GridFigure) -> NDArray[np.float64] | None:
    """The mean of the hourly grid's ``name`` over the hours of each demand point, in ``scenario.demand``'s order;
    None without an hourly ``name``.

    With a demand profile each hour of the horizon belongs to the point whose rate is nearest its own (a tie to the
    lower), and a point no hour is nearest to takes the mean of every hour. Named points given by hand have no clock
    hours: each takes the mean of the grid's day (or week).
    """
    hourly = scenario.facility.hourly
    grid_values = None if hourly is None else getattr(hourly, name)
    if grid_values is None:
        return None
    points = len(scenario.demand)
    profile = scenario.demand_profile
    if profile is None:
        return np.full(points, float(np.mean(grid_values)))
    rates = profile.hourly_rates_rps()
    values = grid_at_hours(grid_values, np.arange(rates.size))
    point_rates = np.array([d.arrival_rps for d in scenario.demand])
    order = np.argsort(point_rates, kind="stable")
    nearest = order[nearest_point_index(rates, point_rates[order])]
    return point_means(values, nearest, points, fallback=float(values.mean()))


def system_grid(
    scenario: Scenario, index: int, name: GridFigure, flat: NDArray[np.float64], central: float
) -> NDArray[np.float64]:
    """System ``index``'s ``name`` per sample and point: ``flat`` (``(n, 1)``, sampled) where the hourly grid does
    not apply, else the point means scaled by ``flat / central`` (``(n, points)``)."""
    system = scenario.systems[index]
    if system.facility is not None and getattr(system.facility, name) is not None:
        return flat
    means = point_grid(scenario, name)
    if means is None:
        return flat
    scale = flat / central if central > 0 else np.ones_like(flat)
    return means[None, :] * scale


def grid_inputs(
    scenario: Scenario,
    index: int,
    inp: SystemInputs,
    facility: Callable[[str], NDArray[np.float64]],
    facility_cost: Callable[[str], NDArray[np.float64]],
) -> dict[str, NDArray[np.float64]]:
    """System ``index``'s electricity price, carbon intensity and carbon price as :class:`SampledInputs` takes them.

    ``facility`` and ``facility_cost`` read a flat facility figure sampled as the system sees it (``(n, 1)``; the
    second zero for a figure a rental that covers power already pays); the price and the intensity then take the
    hourly grid's point means where it is the system's (:func:`system_grid`), except a price the system does not
    pay.
    """
    price = facility_cost("electricity_usd_per_kwh")
    rent = scenario.systems[index].rent
    if rent is None or not rent.includes_power_and_facility:
        price = system_grid(scenario, index, "electricity_usd_per_kwh", price, inp.price_usd_per_kwh)
    carbon = system_grid(scenario, index, "carbon_g_per_kwh", facility("carbon_g_per_kwh"), inp.carbon_g_per_kwh)
    return {
        "electricity_usd_per_kwh": price,
        "carbon_g_per_kwh": carbon,
        "carbon_usd_per_tonne": facility_cost("carbon_usd_per_tonne"),
    }
