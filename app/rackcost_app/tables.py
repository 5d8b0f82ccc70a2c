"""Result tables for display: the library's columns, each with its unit in the header and a readable format."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from rackcost import display

# column -> (header with unit, kind): kind is usd, usd_per_1k (a cost per request, shown per 1,000 requests so that
# it never needs a string of zeros), pct, num, int (an exact count), ratio (an advantage) or text
POINT_COLUMNS: dict[str, tuple[str, str]] = {
    "system": ("system", "text"),
    "demand_point": ("demand point", "text"),
    "hours_per_day": ("hours [h/day]", "num"),
    "usd_per_accepted_request": ("cost per 1,000 accepted requests [USD]", "usd_per_1k"),
    "accepted_rps": ("accepted within SLO [requests/s]", "num"),
    "rejected_rps": ("rejected [requests/s]", "num"),
    "rejected_fraction": ("rejected [% of offered]", "pct"),
    "utilization_fraction": ("slot utilisation [%]", "pct"),
    "spare_capacity_fraction": ("spare capacity [% of capacity]", "pct"),
    "facility_power_kw": ("wall power [kW]", "num"),
    "capital_usd_per_hour": ("capital [USD/h]", "usd"),
    "fixed_opex_usd_per_hour": ("fixed opex [USD/h]", "usd"),
    "energy_usd_per_hour": ("energy [USD/h]", "usd"),
    "rent_usd_per_hour": ("rent [USD/h]", "usd"),
    "total_usd_per_hour": ("total [USD/h]", "usd"),
    "status": ("status", "text"),
    "offered_rps": ("offered [requests/s]", "num"),
    "capacity_at_slo_rps": ("capacity at SLO [requests/s]", "num"),
    "ttft_p99_ms": ("p99 TTFT incl. queueing [ms]", "num"),
    "active_replicas": ("active replicas [count]", "int"),
    "provisioned_replicas": ("provisioned replicas [count]", "int"),
    "racks": ("racks [count]", "int"),
    "it_power_kw": ("IT power [kW]", "num"),
    "usd_per_million_accepted_output_tokens": ("cost per M accepted output tokens [USD]", "usd"),
    "useful_output_tokens_per_s": ("accepted output [tokens/s]", "num"),
    "output_tokens_per_kwh": ("accepted output per wall kWh [tokens/kWh]", "num"),
}

SYSTEM_COLUMNS: dict[str, tuple[str, str]] = {
    "system": ("system", "text"),
    "provenance": ("provenance", "text"),
    "concurrency": ("concurrency at SLO point [requests/replica]", "num"),
    "tpot_ms": ("TPOT [ms]", "num"),
    "ttft_ms": ("TTFT at the point [ms]", "num"),
    "interactivity_tokens_per_s": ("interactivity [tokens/s per user]", "num"),
    "total_tokens_per_s_per_replica": ("throughput [tokens/s per replica]", "num"),
    "queueing_budget_ms": ("queueing budget [ms]", "num"),
    "busy_power_w_per_accelerator": ("busy power [W per accelerator]", "num"),
    "sizing_demand_point": ("sized for", "text"),
    "slo_replicas": ("replicas for SLO [count]", "int"),
    "provisioned_replicas": ("provisioned replicas [count]", "int"),
    "accelerators": ("accelerators [count]", "int"),
    "nodes": ("nodes [count]", "int"),
    "racks": ("racks [count]", "int"),
    "provisioned_it_kw": ("provisioned IT power [kW]", "num"),
    "capex_usd": ("capex [USD]", "usd"),
    "capital_usd_per_hour": ("capital [USD/h]", "usd"),
    "fixed_opex_usd_per_hour": ("fixed opex [USD/h]", "usd"),
    "facility_energy_kwh_per_day": ("wall energy [kWh/day]", "num"),
    "usd_per_day": ("cost [USD/day]", "usd"),
    "accepted_requests_per_day": ("accepted [requests/day]", "num"),
    "blended_usd_per_accepted_request": ("blended cost per 1,000 accepted requests [USD]", "usd_per_1k"),
    "blended_usd_per_million_accepted_output_tokens": ("blended cost per M output tokens [USD]", "usd"),
}


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
