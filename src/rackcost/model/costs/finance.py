"""Cost arithmetic (docs/model.md, 8. Cost): annualised capital, fixed opex and energy, per hour.

Typed, vectorised functions; edge cases (a zero discount rate) handled explicitly.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import HOURS_PER_YEAR, MONTHS_PER_YEAR

__all__ = [
    "HOURS_PER_YEAR",
    "capital_recovery_factor",
    "capital_usd_per_hour",
    "energy_usd_per_hour",
    "fleet_capex_usd",
    "fixed_opex_usd_per_hour",
]


def capital_recovery_factor(rate_fraction: ArrayLike, life_years: ArrayLike) -> NDArray[np.float64]:
    """Capital recovery factor: the annual payment that repays 1 over ``life_years`` at ``rate_fraction``.

    ``r (1 + r)^n / ((1 + r)^n - 1)``, and ``1 / n`` at r = 0.

    Parameters
    ----------
    rate_fraction
        Annual cost of capital, >= 0 [1/year].
    life_years
        Service life, > 0 [years].

    Returns
    -------
    ndarray
        Annual payment per unit of capital [1/year].

    References
    ----------
    E. L. Grant, W. G. Ireson, R. S. Leavenworth, *Principles of Engineering Economy*, 8th ed., Wiley 1990
    (capital recovery factor, A/P). PyPSA ``annuity(r, n)`` computes the same.

    Examples
    --------
    >>> float(capital_recovery_factor(0.0, 5.0))
    0.2
    >>> round(float(capital_recovery_factor(0.10, 10.0)), 6)
    0.162745
    """
    r = np.asarray(rate_fraction, dtype=float)
    n = np.asarray(life_years, dtype=float)
    # the arrays' own all / any: the same test as np.all / np.any without their dispatch
    if not (np.isfinite(r).all() and np.isfinite(n).all()) or (r < 0).any() or (n <= 0).any():
        raise ValueError("rate_fraction must be finite and >= 0 and life_years finite and > 0")
    # r / (1 - (1 + r)^-n), with 1 - (1 + r)^-n = -expm1(-n log1p(r)) so that small rates do not cancel; below
    # n r = 1e-8 the series 1/n + r (n + 1) / (2 n) is exact to double precision (and safe for subnormal rates)
    with np.errstate(under="ignore"):  # (a subnormal rate)
        small = n * r < 1e-8
        if not small.any():  # every rate well above 0 (the usual case): the exact form alone, the same values
            return np.asarray(r / -np.expm1(-n * np.log1p(r)), dtype=float)
        safe_r = np.where(r > 0, r, 1.0)
        exact = safe_r / -np.expm1(-n * np.log1p(np.where(small, 1.0, safe_r)))
        series = 1.0 / n + r * (n + 1.0) / (2.0 * n)
    return np.where(small, series, exact)


def fleet_capex_usd(
    accelerators: ArrayLike,
    nodes: ArrayLike,
    racks: ArrayLike,
    usd_per_accelerator: ArrayLike,
    usd_per_node: ArrayLike,
    usd_per_rack: ArrayLike,
    networking_fraction: ArrayLike = 0.0,
    installation_fraction: ArrayLike = 0.0,
) -> NDArray[np.float64]:
    """Capital cost of a fleet: hardware, plus networking and installation as shares of it [USD].

    Examples
    --------
    >>> float(fleet_capex_usd(8, 1, 1, 30_000.0, 60_000.0, 0.0, networking_fraction=0.1))
    330000.0
    """
    hardware = (
        np.asarray(accelerators, float) * np.asarray(usd_per_accelerator, float)
        + np.asarray(nodes, float) * np.asarray(usd_per_node, float)
        + np.asarray(racks, float) * np.asarray(usd_per_rack, float)
    )
    return hardware * (1.0 + np.asarray(networking_fraction, float) + np.asarray(installation_fraction, float))


def capital_usd_per_hour(capex_usd: ArrayLike, rate_fraction: ArrayLike, life_years: ArrayLike) -> NDArray[np.float64]:
    """Capex annualised with the capital recovery factor, per hour of the year [USD/h].

    Examples
    --------
    At a zero rate over 5 years a fifth of the capex is due each year: 43,800 USD is 8,760 USD a year, 1 USD/h:

    >>> float(capital_usd_per_hour(43_800.0, 0.0, 5.0))
    1.0
    """
    return np.asarray(capex_usd, float) * capital_recovery_factor(rate_fraction, life_years) / HOURS_PER_YEAR


def fixed_opex_usd_per_hour(
    capex_usd: ArrayLike,
    maintenance_fraction_per_year: ArrayLike,
    accelerators: ArrayLike,
    software_usd_per_accelerator_year: ArrayLike,
    racks: ArrayLike,
    operations_usd_per_rack_year: ArrayLike,
    provisioned_it_kw: ArrayLike,
    colocation_usd_per_kw_month: ArrayLike,
    facility_build_usd_per_kw: ArrayLike,
    facility_rate_fraction: ArrayLike,
    facility_life_years: ArrayLike,
) -> NDArray[np.float64]:
    """Costs that do not change with load: maintenance, software, labour and the facility [USD/h].

    The facility is paid per provisioned (rated) IT kW: colocation per kW-month, and/or a build cost per kW
    annualised over the facility's life.

    Examples
    --------
    >>> round(float(fixed_opex_usd_per_hour(876_000.0, 0.1, 0, 0.0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 15.0)), 6)
    10.0
    """
    kw = np.asarray(provisioned_it_kw, float)
    per_year = (
        np.asarray(capex_usd, float) * np.asarray(maintenance_fraction_per_year, float)
        + np.asarray(accelerators, float) * np.asarray(software_usd_per_accelerator_year, float)
        + np.asarray(racks, float) * np.asarray(operations_usd_per_rack_year, float)
        + kw * np.asarray(colocation_usd_per_kw_month, float) * MONTHS_PER_YEAR
        + kw
        * np.asarray(facility_build_usd_per_kw, float)
        * capital_recovery_factor(facility_rate_fraction, facility_life_years)
    )
    return per_year / HOURS_PER_YEAR


def energy_usd_per_hour(facility_power_kw: ArrayLike, price_usd_per_kwh: ArrayLike) -> NDArray[np.float64]:
    """Electricity bill per hour at a facility power [USD/h].

    Examples
    --------
    >>> float(energy_usd_per_hour(100.0, 0.08))
    8.0
    """
    return np.asarray(facility_power_kw, float) * np.asarray(price_usd_per_kwh, float)
