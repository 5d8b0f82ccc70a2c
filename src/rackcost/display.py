"""Numbers for reading, and result records reshaped for charts: shared by the dashboard (and usable by the CLI).

Pure functions on plain values and records; nothing here computes a new quantity of the model. Formatting
follows one rule everywhere: large numbers as k / M / G, dollars with the decimals their size needs
(``$1,234`` / ``$12.30`` / ``$0.00181``), shares as percentages.

>>> num(1_413_691.4)
'1.41M'
>>> money(0.0018099)
'$0.00181'
>>> pct(0.2117)
'21.2%'
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

__all__ = [
    "COST_COMPONENTS",
    "cost_components_per_request",
    "money",
    "num",
    "number_column_format",
    "pct",
    "ratio",
    "slo_interactivity_limit",
    "usd_column_format",
]

# cost components of the points table: column -> name shown on charts
COST_COMPONENTS = {
    "capital_usd_per_hour": "capital",
    "fixed_opex_usd_per_hour": "fixed opex",
    "energy_usd_per_hour": "energy",
}


def money(x: float) -> str:
    """US dollars with sensible decimals: ``$1,234`` / ``$12.30`` / ``$0.00181`` (three significant digits).

    >>> money(43_505_000), money(12.3), money(0)
    ('$43,505,000', '$12.30', '$0')
    """
    if x == 0:
        return "$0"
    sign = "-" if x < 0 else ""
    x = abs(x)
    if x >= 1000:
        return f"{sign}${x:,.0f}"
    if x >= 1:
        return f"{sign}${x:,.2f}"
    return f"{sign}${x:#.3g}"


def num(x: float, digits: int = 3) -> str:
    """Large numbers as k / M / G with ``digits`` significant digits.

    >>> num(1200), num(64_800_000), num(0.5)
    ('1.2k', '64.8M', '0.5')
    """
    for bound, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= bound:
            return f"{x / bound:.{digits}g}{suffix}"
    return f"{x:.{digits}g}"


def pct(x: float, decimals: int = 1) -> str:
    """A share in [0, 1] as a percentage.

    >>> pct(0.97)
    '97.0%'
    """
    return f"{100 * x:.{decimals}f}%"


def ratio(x: float) -> str:
    """A ratio as ``1.67x``."""
    return f"{x:.2f}x"


def _decimals_for(values: Iterable[float], significant: int) -> int:
    """Decimals that show the smallest non-zero magnitude of ``values`` with ``significant`` digits (0 to 8)."""
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v)) and v != 0]
    if not finite:
        return 0
    smallest = min(finite)
    return max(0, min(8, significant - 1 - math.floor(math.log10(smallest))))


def usd_column_format(values: Iterable[float], significant: int = 3) -> str:
    """printf format for a column of dollar amounts: enough decimals for its smallest non-zero value.

    >>> usd_column_format([0.0018, 0.0011]), usd_column_format([12.3, 48.07]), usd_column_format([1243.8, 48.07])
    ('$%.5f', '$%.2f', '$%.0f')
    """
    values = list(values)
    decimals = _decimals_for(values, significant)
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    if finite and min(finite) >= 1:
        decimals = 2 if max(finite) < 1000 else 0
    return f"$%.{decimals}f"


def number_column_format(values: Iterable[float], significant: int = 3) -> str:
    """Column format for quantities: ``compact`` (1.2k, 3.4M) for large ones, else a printf format.

    >>> number_column_format([300, 1200]), number_column_format([0.35, 4.2]), number_column_format([8, 10, 6])
    ('compact', '%.3f', '%.0f')
    """
    values = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if values and max(abs(v) for v in values) >= 1000:
        return "compact"
    if all(v.is_integer() for v in values):
        return "%.0f"
    return f"%.{_decimals_for(values, significant) if values and min(abs(v) for v in values) < 10 else 0}f"


def cost_components_per_request(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cost per accepted request of each row of the ``points`` table, split into its cost components.

    Each component's share of ``total_usd_per_hour`` applied to ``usd_per_accepted_request`` (so the parts add up
    to the library's figure exactly).

    Returns
    -------
    list of dict
        Rows with ``system``, ``demand_point``, ``component`` (capital, fixed opex, energy) and
        ``usd_per_accepted_request`` [USD/request].
    """
    rows = []
    for p in points:
        total = p["total_usd_per_hour"]
        for column, name in COST_COMPONENTS.items():
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
