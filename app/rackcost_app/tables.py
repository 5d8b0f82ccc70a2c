"""Result tables for display: the library's columns, each with its unit in the header and a readable format."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import streamlit as st

from rackcost import display
from rackcost.evaluation.columns import Column
from rackcost.evaluation.columns import column as registry_column
from rackcost.reporting import breakdowns

# how each registry kind is shown here: a cost per request in dollars per 1,000 requests (``usd_per_1k``, so that it
# never needs a string of zeros), an exact count as an integer (``int``), words and yes/no as text
_SHOWN_KIND = {"usd_per_request": "usd_per_1k", "count": "int", "bool": "text", "by_point": "text"}


def from_columns(found: Iterable[Column]) -> dict[str, tuple[str, str]]:
    """Columns as shown here: name -> (header with unit, kind)."""
    return {c.name: (c.header, _SHOWN_KIND.get(c.kind, c.kind)) for c in found}


def from_registry(table: str, names: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Columns of a result table as shown here: name -> (header with unit, kind), from the registry of columns
    (:mod:`rackcost.evaluation.columns`)."""
    return from_columns(registry_column(table, name) for name in names)


POINT_COLUMNS = from_registry(
    "points",
    (
        "system",
        "demand_point",
        "hours_per_day",
        "usd_per_accepted_request",
        "accepted_rps",
        "rejected_rps",
        "rejected_fraction",
        "utilization_fraction",
        "spare_capacity_fraction",
        "facility_power_kw",
        "capital_usd_per_hour",
        "fixed_opex_usd_per_hour",
        "energy_usd_per_hour",
        "rent_usd_per_hour",
        "total_usd_per_hour",
        "status",
        "offered_rps",
        "capacity_at_slo_rps",
        "ttft_p99_ms",
        "active_replicas",
        "provisioned_replicas",
        "racks",
        "it_power_kw",
        "usd_per_million_accepted_output_tokens",
        "useful_output_tokens_per_s",
        "output_tokens_per_kwh",
    ),
)
"""The points table as the Results page shows it: kind is usd, usd_per_1k, pct, num, int, ratio or text."""

SYSTEM_COLUMNS = from_registry(
    "systems",
    (
        "system",
        "provenance",
        "concurrency",
        "tpot_ms",
        "ttft_ms",
        "interactivity_tokens_per_s",
        "total_tokens_per_s_per_replica",
        "queueing_budget_ms",
        "busy_power_w_per_accelerator",
        "sizing_demand_point",
        "slo_replicas",
        "provisioned_replicas",
        "accelerators",
        "nodes",
        "racks",
        "provisioned_it_kw",
        "mean_it_power_kw_per_rack",
        "peak_it_power_kw_per_rack",
        "rack_power_limit_kw",
        "capex_usd",
        "capital_usd_per_hour",
        "fixed_opex_usd_per_hour",
        "facility_energy_kwh_per_day",
        "usd_per_day",
        "accepted_requests_per_day",
        "blended_usd_per_accepted_request",
        "blended_usd_per_million_accepted_output_tokens",
    ),
)
"""The systems table as the Results page shows it."""


CLASS_COLUMNS = from_columns(breakdowns.CLASS_COLUMNS)
"""Each request class at each demand point and blended (the report's table, :mod:`rackcost.reporting.breakdowns`)."""
MIX_COLUMNS = from_columns(breakdowns.MIX_COLUMNS)
"""The request classes and their SLOs."""
POOL_FLEET_COLUMNS = from_columns(breakdowns.POOL_FLEET_COLUMNS)
"""Each pool of a disaggregated system: its operating point and fleet."""
POOL_POINT_COLUMNS = from_columns(breakdowns.POOL_POINT_COLUMNS)
"""Each pool at each demand point: replicas, utilisation, power and cost."""
YEAR_COLUMNS = from_registry(
    "years",
    (
        "system",
        "year",
        "usd_per_accepted_request",
        "cost_usd",
        "accepted_requests",
        "offered_rps",
        "accepted_rps",
        "utilization_fraction",
        "active_replicas",
        "facility_power_kw",
    ),
)
"""Each system in each year of a demand profile's horizon (the ``years`` table)."""


def column_config(rows: list[dict[str, Any]], columns: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """``st.column_config`` for a table: the header with its unit, a format chosen from the column's values."""
    config: dict[str, Any] = {}
    for column, (header, kind) in columns.items():
        values = [r[column] for r in rows if column in r]
        if kind == "text":
            config[column] = st.column_config.TextColumn(header)
        elif kind in ("usd", "usd_per_1k"):
            config[column] = st.column_config.NumberColumn(header, format=display.usd_column_format(values))
        elif kind == "ratio":
            config[column] = st.column_config.NumberColumn(header, format="%.2fx")
        elif kind == "pct":
            config[column] = st.column_config.NumberColumn(header, format="percent")
        elif kind == "int":
            config[column] = st.column_config.NumberColumn(header, format=display.COUNT_COLUMN_FORMAT)
        else:
            config[column] = st.column_config.NumberColumn(header, format=display.number_column_format(values))
    return config


def shown_rows(rows: list[dict[str, Any]], columns: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """The rows as shown: each ``usd_per_1k`` column in dollars per 1,000 requests (:data:`display.REQUESTS_PER_1K`)."""
    scaled = [c for c, (_, kind) in columns.items() if kind == "usd_per_1k"]
    if not scaled:
        return rows
    return [{**r, **{c: r[c] * display.REQUESTS_PER_1K for c in scaled if r.get(c) is not None}} for r in rows]


def show(rows: list[dict[str, Any]], columns: dict[str, tuple[str, str]]) -> None:
    """A read-only table of result rows with units in the headers."""
    rows = shown_rows(rows, columns)
    frame = pd.DataFrame(rows, columns=list(columns))
    st.dataframe(
        frame,
        column_config=column_config(rows, columns),
        column_order=list(columns),
        hide_index=True,
        width="stretch",
    )
