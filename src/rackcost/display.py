"""Numbers for reading, and result records reshaped for charts: shared by the CLI, the dashboard and reports.

Pure functions on plain values and records; nothing here computes a new quantity of the model. One rule
everywhere:

- large numbers with one suffix style, K / M / B / T (thousand, million, billion, trillion), three significant
  digits; a time in ms or a power in W in whole units (``1,400``, :func:`whole`), a power in kW with its unit
  (``3.53 MW``, :func:`power_kw`);
- exact counts (replicas, racks) in full with thousands separators (``4,861``);
- dollars never in scientific notation: ``$1,234`` / ``$12.30`` / ``$0.00181`` / ``$47.5M``, with a floor
  (:data:`MONEY_FLOOR_USD`) and a ceiling (:data:`MONEY_CEILING_USD`) for absurd values;
- a cost per request always in dollars per 1,000 requests (:func:`usd_per_1k_requests`, header
  :data:`PER_1K_REQUESTS`), so that a column of them reads and compares without a string of zeros;
- ratios in one direction, the advantage (baseline cost / system cost: > 1 means the system is cheaper);
- every figure with its unit; an input's unit comes from its YAML field name (:func:`input_unit`).

>>> num(1_413_691.4)
'1.41M'
>>> money(0.0018099)
'$0.00181'
>>> usd_per_1k_requests(0.0000972)
'$0.0972'
>>> pct(0.2117)
'21.2%'
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "COST_COMPONENTS",
    "MONEY_CEILING_USD",
    "MONEY_FLOOR_USD",
    "PCT_MAX_DECIMALS",
    "PER_1K_ACCEPTED",
    "PER_1K_REQUESTS",
    "POWER_UNITS",
    "REQUESTS_PER_1K",
    "UNDEFINED",
    "SUFFIXES",
    "cost_components_per_request",
    "cost_order",
    "count",
    "input_unit",
    "input_value",
    "money",
    "num",
    "pct",
    "power_kw",
    "ratio",
    "slo_interactivity_limit",
    "per_1k",
    "undefined",
    "whole",
    "words",
    "usd_per_1k_requests",
]

# cost components of the points table: column -> name shown on charts
COST_COMPONENTS = {
    "capital_usd_per_hour": "capital",
    "fixed_opex_usd_per_hour": "fixed opex",
    "energy_usd_per_hour": "energy",
    "rent_usd_per_hour": "rent",
    "api_usd_per_hour": "API",
}

SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K"))
"""Suffixes of large numbers, largest first: the one style of every face (CLI, dashboard, report)."""
MONEY_FLOOR_USD = 1e-6
"""Smallest non-zero amount shown as a number [USD]; below it ``<$0.000001`` (a millionth of a dollar)."""
MONEY_CEILING_USD = 1e15
"""Largest amount shown as a number [USD]; at or above it ``>$1,000T`` (no 300-digit figures)."""
NUMBER_FLOOR = 1e-6
"""Smallest non-zero magnitude :func:`num` shows as a number [-]; below it ``<0.000001``."""
NUMBER_CEILING = 1e15
"""Largest magnitude :func:`num` shows as a number [-]; at or above it ``>1,000T``."""
UNDEFINED = "-"
"""How a figure that is undefined (None: a cost per accepted request where nothing was accepted) is shown."""
REQUESTS_PER_1K = 1000.0
"""Requests per unit of a per-request cost as shown [requests]: costs per request are shown per 1,000 requests."""
PER_1K_REQUESTS = "$ per 1,000 requests"
"""The unit of :func:`usd_per_1k_requests`, for labels and headers."""
PER_1K_ACCEPTED = "$ per 1,000 accepted requests"
"""The label of a cost per accepted request shown with :func:`usd_per_1k_requests`."""


def _fixed(x: float, significant: int) -> str:
    """A positive ``x`` < 1000 in fixed-point notation with ``significant`` digits (never an exponent)."""
    decimals = max(0, significant - 1 - math.floor(math.log10(x)))
    text = f"{x:.{decimals}f}"
    if float(text) >= 10 ** (significant - decimals) and decimals > 0:  # rounding added a digit: 0.000999 -> 0.00100
        text = f"{x:.{decimals - 1}f}"
    return text


def money(x: float | None) -> str:
    """US dollars for reading, never in scientific notation.

    ``$1,234`` (whole dollars from 1,000), ``$12.30`` (cents from 1), ``$0.00181`` (three significant digits below
    1), ``$47.5M`` from a million (:data:`SUFFIXES`); ``<$0.000001`` below :data:`MONEY_FLOOR_USD` and
    ``>$1,000T`` from :data:`MONEY_CEILING_USD`; ``n/a`` for a value that is not finite.

    Parameters
    ----------
    x
        Amount [USD].

    Returns
    -------
    str

    Examples
    --------
    >>> money(43_505_000), money(12.3), money(0), money(9.72e-05), money(-2.5), money(3e-300)
    ('$43.5M', '$12.30', '$0', '$0.0000972', '-$2.50', '<$0.000001')
    """
    if x is None:
        return UNDEFINED
    if not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "$0"
    sign = "-" if x < 0 else ""
    x = abs(x)
    if x < MONEY_FLOOR_USD:
        return f"{sign}<$0.000001"
    if x >= MONEY_CEILING_USD:
        return f"{sign}>$1,000T"
    if x >= 1e6:
        return f"{sign}${_suffixed(x)}"
    if x >= 1000:
        return f"{sign}${x:,.0f}"
    if x >= 1:
        text = f"{x:,.2f}"
        return f"{sign}${text}" if text != "1,000.00" else f"{sign}$1,000"
    return f"{sign}${_fixed(x, 3)}"


def usd_per_1k_requests(usd_per_request: float | None) -> str:
    """A cost per request shown per 1,000 requests (the unit :data:`PER_1K_REQUESTS` names), with :func:`money`.

    Parameters
    ----------
    usd_per_request
        Cost [USD/request].

    Examples
    --------
    >>> usd_per_1k_requests(0.0018099), usd_per_1k_requests(8.7e-05)
    ('$1.81', '$0.0870')
    """
    return UNDEFINED if usd_per_request is None else money(usd_per_request * REQUESTS_PER_1K)


def _suffixed(x: float, digits: int = 3) -> str:
    """A magnitude ``x`` that rounds to 1,000 or more, with the smallest :data:`SUFFIXES` suffix that keeps its
    ``digits`` significant digits below 1,000 (999,999 is ``1M``, not ``1,000K``)."""
    for bound, suffix in reversed(SUFFIXES):
        scaled = float(f"{x / bound:.{digits}g}")
        if scaled < 1000 or suffix == SUFFIXES[0][1]:
            return f"{scaled:,.{digits}g}{suffix}" if scaled < 1000 else f"{scaled:,.0f}{suffix}"
    raise AssertionError("unreachable")  # pragma: no cover


def num(x: float | None, digits: int = 3) -> str:
    """A quantity for reading: K / M / B / T from 1,000, ``digits`` significant digits, never an exponent.

    ``<0.000001`` below :data:`NUMBER_FLOOR`, ``>1,000T`` from :data:`NUMBER_CEILING`, ``n/a`` if not finite.

    Examples
    --------
    >>> num(1200), num(64_800_000), num(0.5), num(0.0000123)
    ('1.2K', '64.8M', '0.5', '0.0000123')
    """
    if x is None:
        return UNDEFINED
    if not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    m = abs(x)
    if m < NUMBER_FLOOR:
        return f"{sign}<0.000001"
    if m >= NUMBER_CEILING:
        return f"{sign}>1,000T"
    if float(f"{m:.{digits}g}") >= 1000:
        return sign + _suffixed(m, digits)
    text = _fixed(m, digits)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return sign + text


def count(x: float) -> str:
    """A count in full with thousands separators, as every count is shown beside another (one decimal if it is
    not whole: a percentile of a count).

    Examples
    --------
    >>> count(4861), count(1000.0), count(12), count(4860.5)
    ('4,861', '1,000', '12', '4,860.5')
    """
    if not math.isfinite(x):
        return "n/a"
    if abs(x) >= NUMBER_CEILING:
        return num(x)
    return f"{round(x):,}" if float(x).is_integer() else f"{x:,.1f}"


def pct(x: float, decimals: int = 1) -> str:
    """A share in [0, 1] as a percentage, never rounded to 0% or 100% unless it is exactly 0 or 1.

    ``decimals`` decimals; a share that would round to 0% or 100% (or -100%) without being exactly that gets more,
    as many as it takes to show it is not (``99.96%``, ``0.004%``), up to :data:`PCT_MAX_DECIMALS`; closer still it
    is shown as ``>99.999999%`` or ``<0.000001%``: a share of a million requests that differs from 1 by less than a
    millionth of a percent is not worth another digit.

    Parameters
    ----------
    x
        Share [-] (1 is 100%).
    decimals
        Decimals of the percentage when it is not near 0% or 100%.

    Examples
    --------
    >>> pct(0.97), pct(0.2117), pct(1.0), pct(0.0)
    ('97.0%', '21.2%', '100.0%', '0.0%')
    >>> pct(0.9996), pct(0.99996, 0), pct(0.00004), pct(-0.00004)
    ('99.96%', '99.996%', '0.004%', '-0.004%')
    >>> pct(1 - 1e-12), pct(1e-12)
    ('>99.999999%', '<0.000001%')
    """
    if not math.isfinite(x):
        return "n/a"
    percent = 100 * x
    if percent == 0 or abs(percent) == 100:
        return f"{percent:,.{decimals}f}%"
    for places in range(decimals, PCT_MAX_DECIMALS + 1):
        text = f"{percent:,.{places}f}"
        if abs(float(text.replace(",", ""))) not in (0.0, 100.0):
            return f"{text}%"
    sign = "-" if percent < 0 else ""
    floor = f"0.{'0' * (PCT_MAX_DECIMALS - 1)}1%"
    if abs(percent) < 50:
        return f"{sign}<{floor}"
    return f"{sign}>{100 - 10.0**-PCT_MAX_DECIMALS:.{PCT_MAX_DECIMALS}f}%" if abs(percent) < 100 else f"{sign}>100%"


PCT_MAX_DECIMALS = 6
"""Most decimals :func:`pct` shows to keep a share that is not exactly 0 or 1 off 0% and 100% [-]."""

POWER_UNITS = ((1e6, "GW"), (1e3, "MW"))
"""Units of :func:`power_kw` above kW, largest first: a fleet's 3,530 kW is ``3.53 MW``."""


def power_kw(x_kw: float) -> str:
    """A power given in kW, in the unit buyers say: kW below 1,000 kW, MW from there, GW from 1,000 MW.

    The unit is in the text (the header names only the quantity), with :func:`num`'s three significant digits;
    a power that rounds to 1,000 of a unit is shown in the next (999.7 kW is ``1 MW``).

    Parameters
    ----------
    x_kw
        Power [kW].

    Examples
    --------
    >>> power_kw(906.4), power_kw(3530), power_kw(999.7), power_kw(2.4e6), power_kw(0)
    ('906 kW', '3.53 MW', '1 MW', '2.4 GW', '0 kW')
    """
    if not math.isfinite(x_kw):
        return "n/a"
    magnitude = abs(x_kw)
    for bound, unit in POWER_UNITS:
        if magnitude and float(f"{magnitude / bound:.3g}") >= 1:
            return f"{num(x_kw / bound)} {unit}"
    return f"{num(x_kw)} kW"


def whole(x: float) -> str:
    """A quantity read in whole units (milliseconds, watts): :func:`num`'s three significant digits below 100 (a
    TPOT of ``12.3`` ms), whole units with thousands separators from there (a p99 TTFT of ``1,400`` ms, a busy power
    of ``1,200`` W: never ``1.4K``), :func:`num` from a million.

    Examples
    --------
    >>> whole(12.34), whole(350.4), whole(1412.6), whole(2.5e9)
    ('12.3', '350', '1,413', '2.5B')
    """
    if not math.isfinite(x):
        return "n/a"
    return f"{x:,.0f}" if 100 <= abs(x) < 1e6 else num(x)


def words(value: Any) -> str:
    """An enumerated value of the model in words: its underscores as spaces (``rent on_demand`` is ``rent on
    demand``, ``least_outstanding`` is ``least outstanding``); an enum member by its value.

    >>> words("rent on_demand"), words("ok")
    ('rent on demand', 'ok')
    """
    return str(getattr(value, "value", value)).replace("_", " ")


def undefined(value: Any) -> bool:
    """A figure with nothing to show: None, or a float NaN (pandas' missing value in a column of numbers).

    >>> undefined(None), undefined(float("nan")), undefined(0.0), undefined("-")
    (True, True, False, False)
    """
    return value is None or (isinstance(value, float) and value != value)


def ratio(x: float | None) -> str:
    """An advantage (baseline / system, > 1: the system is better) as ``1.67x``.

    >>> ratio(1.666), ratio(0.5)
    ('1.67x', '0.50x')
    """
    if x is None:
        return UNDEFINED
    if not math.isfinite(x):
        return "n/a"
    if x >= 1000:
        return num(x) + "x"
    if 0 < x < 0.01:
        return num(x, 2) + "x"
    return f"{x:.2f}x"


# unit of an input from the suffix of its YAML field name, longest suffix first: (suffix, kind, words)
_UNIT_SUFFIXES = (
    ("usd_per_million_input_tokens", "usd", " per million input tokens"),
    ("usd_per_million_output_tokens", "usd", " per million output tokens"),
    ("usd_per_million_cached_input_tokens", "usd", " per million cached input tokens"),
    ("usd_per_accelerator_hour", "usd", " per accelerator-hour"),
    ("_usd_per_accelerator_year", "usd", " per accelerator-year"),
    ("_usd_per_rack_year", "usd", " per rack-year"),
    ("_usd_per_kw_month", "usd", " per kW-month"),
    ("_usd_per_accelerator", "usd", " per accelerator"),
    ("_usd_per_node", "usd", " per node"),
    ("_usd_per_rack", "usd", " per rack"),
    ("_usd_per_kwh", "usd", " per kWh"),
    ("_usd_per_kw", "usd", " per kW"),
    ("_usd_per_tonne", "usd", " per tonne CO2e"),
    ("_g_per_kwh", "num", " g CO2e/kWh"),
    ("_fraction_per_year", "pct", " per year"),
    ("_fraction", "pct", ""),
    ("_w_per_accelerator", "num", " W per accelerator"),
    ("_w_per_node", "num", " W per node"),
    ("_tokens_per_s", "num", " tokens/s"),
    ("_years", "num", " years"),
    ("_rps", "num", " requests/s"),
    ("_kw", "num", " kW"),
    ("_ms", "num", " ms"),
    ("_w", "num", " W"),
)


def input_unit(path: str) -> tuple[str, str]:
    """How to show the value of the input at a YAML path, from its field name's suffix.

    Parameters
    ----------
    path
        YAML path, e.g. ``facility.electricity_usd_per_kwh``.

    Returns
    -------
    kind : str
        ``usd`` (dollars), ``pct`` (a fraction shown as a percentage), ``factor`` (a multiplier, ``x``) or ``num``.
    words : str
        The unit after the number (``" per kWh"``, ``" W"``), or ``" (dimensionless)"`` for a pure number.

    Examples
    --------
    >>> input_unit("facility.electricity_usd_per_kwh"), input_unit("systems[1].hardware.accelerator_busy_w")
    (('usd', ' per kWh'), ('num', ' W'))
    """
    field = path.rsplit(".", 1)[-1]
    if path.startswith("uncertainty.throughput_derate."):
        return "factor", "x"
    for suffix, kind, words in _UNIT_SUFFIXES:
        if field.endswith(suffix):
            return kind, words
    return "num", " (dimensionless)"


def input_value(value: float, path: str, words: bool = True) -> str:
    """The value of the input at a YAML path with its unit (:func:`input_unit`).

    ``words=False`` leaves out the words after the number (`` per kWh``), for a table whose label gives the unit;
    a percentage keeps its ``%`` and a factor its ``x``.

    Examples
    --------
    >>> input_value(44948.2, "systems[1].costs.capex_usd_per_rack"), input_value(1.3, "facility.pue")
    ('$44,948 per rack', '1.3 (dimensionless)')
    >>> input_value(0.12, "systems[0].costs.cost_of_capital_fraction")
    '12.0%'
    >>> input_value(0.9, "uncertainty.throughput_derate.vendor")
    '0.9x'
    >>> input_value(0.0707, "facility.electricity_usd_per_kwh", words=False)
    '$0.0707'
    """
    kind, unit = input_unit(path)
    after = unit if words or kind == "factor" else ""
    if kind == "usd":
        return money(value) + after
    if kind == "pct":
        return pct(value) + after
    if unit.startswith((" W", " ms")):
        return whole(value) + after
    return num(value) + after


def per_1k(usd_per_request: float | None) -> float | None:
    """A cost per request as dollars per 1,000 requests (a number, for a dashboard column); None where it is
    undefined (nothing accepted).

    >>> per_1k(0.00181), per_1k(None)
    (1.81, None)
    """
    return None if usd_per_request is None else usd_per_request * REQUESTS_PER_1K


def cost_order(value: float | None) -> tuple[bool, float]:
    """Sort key of a cost that may be undefined (None: nothing accepted): the defined costs from the cheapest, the
    undefined ones last.

    >>> sorted([2.0, None, 1.0], key=cost_order)
    [1.0, 2.0, None]
    """
    return (value is None, 0.0 if value is None else float(value))


def cost_components_per_request(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cost per accepted request of each row of the ``points`` table, split into its cost components.

    Each component's share of ``total_usd_per_hour`` applied to ``usd_per_accepted_request`` (so the parts add up
    to the library's figure exactly).

    Returns
    -------
    list of dict
        Rows with ``system``, ``demand_point``, ``component`` (capital, fixed opex, energy) and
        ``usd_per_accepted_request`` [USD/request]; none for a row whose cost per accepted request is undefined.
    """
    rows = []
    for p in points:
        if p["usd_per_accepted_request"] is None:  # nothing accepted: no cost per request to split (no bar)
            continue
        total = p["total_usd_per_hour"]
        for column, name in COST_COMPONENTS.items():
            if column in ("rent_usd_per_hour", "api_usd_per_hour") and not p.get(column):  # only where paid
                continue
            share = p[column] / total if total else 0.0
            rows.append(
                {
                    "system": p["system"],
                    "demand_point": p["demand_point"],
                    "component": name,
                    "usd_per_accepted_request": share * p["usd_per_accepted_request"],
                }
            )
    return rows


def slo_interactivity_limit(tpot_limit_ms: float) -> float:
    """Interactivity at the TPOT limit, 1000 / TPOT [tokens/s per user]: points at or above it meet the TPOT SLO.

    >>> slo_interactivity_limit(80)
    12.5
    """
    return 1000.0 / tpot_limit_ms
