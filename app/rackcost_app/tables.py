"""Result tables for display: the library's columns, each header with its unit, each cell as the CLI prints it.

Every cell is written by the registry of columns (:meth:`rackcost.evaluation.columns.Column.format`, the CLI's and
the report's format), handed to ``st.dataframe`` as a pandas ``Styler``'s display values: the browser shows that
text while each column keeps its numbers, so a click on a header still sorts by value. Streamlit's own number
formats (printf, ``compact``, ``percent``) cannot say what the CLI says: a column of ``$%.0f`` shows ``$3848``
beside ``$5,722.21`` elsewhere, ``compact`` shows ``2.3K`` in a kW column and ``1.4K`` in a ms one, ``percent``
gives each cell its own decimals (``169.96%``, ``45.6%``), and a missing value reads ``None``.

The first column, when it names the row (a system), is pinned: scrolling a wide table sideways keeps it in view.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import streamlit as st

from rackcost.evaluation.columns import Column
from rackcost.evaluation.columns import column as registry_column
from rackcost.reporting import breakdowns

# the dashboard's own columns (a Monte Carlo percentile, a sweep's margin) are given as (header, kind) with these
# kinds: each is shown as the registry's kind it names
_REGISTRY_KIND = {"usd_per_1k": "usd_per_request", "int": "count"}
PINNED_KINDS = ("text", "enum")
"""A first column of these kinds names its rows: it is pinned (:func:`show`)."""
NUMBER_KINDS = ("num", "count", "usd", "usd_per_request", "pct", "ratio")
"""Kinds of columns of numbers: aligned to the right, also when handed over as text (:func:`styled`)."""
MOST_STYLED_CELLS = 100_000
"""Most cells a table's display values are written for [-]: pandas' Styler refuses more than 262,144 (its
``styler.render.max_elements``); a larger table (a long sweep) is shown as the same text, sorting as text."""

ColumnSpec = Column | tuple[str, str]
"""A column of a table shown here: the registry's, or the dashboard's own ``(header, kind)``."""


def as_column(name: str, spec: ColumnSpec) -> Column:
    """A column of the registry, or the dashboard's own ``(header, kind)`` as one: its header kept as given (a power
    given ``[kW]`` is shown, as the registry's, with its unit in each cell and the label alone)."""
    if isinstance(spec, Column):
        return spec
    header, kind = spec
    kind = _REGISTRY_KIND.get(kind, kind)
    if header.endswith(" [kW]"):
        label = header.removesuffix(" [kW]")
        return Column(name, "dashboard", "kW", label, label, kind)  # type: ignore[arg-type]
    return Column(name, "dashboard", header, header, header, kind)  # type: ignore[arg-type]


def from_columns(found: Iterable[Column]) -> dict[str, Column]:
    """Columns as shown here, by name."""
    return {c.name: c for c in found}


def from_registry(table: str, names: tuple[str, ...]) -> dict[str, Column]:
    """Columns of a result table as shown here, by name, from the registry of columns
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
        "carbon_g_per_accepted_request",
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
        "carbon_kg_per_day",
        "blended_carbon_g_per_accepted_request",
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
        "carbon_kg",
        "carbon_g_per_accepted_request",
    ),
)
"""Each system in each year of a demand profile's horizon (the ``years`` table)."""


CHAR_PX = 8
"""Width of a character of a table's cell [px] (Source Sans at 14 px, digits and "$", with a margin)."""
CELL_PAD_PX = 24
"""Padding of a cell, both sides [px]."""
HEADER_CHARS = 20
"""Characters of a header a column of numbers is widened for [-]: a longer header is cut (its cells never are)."""


def column_config(columns: dict[str, Column], text: pd.DataFrame | None = None) -> dict[str, Any]:
    """``st.column_config`` for a table: the header with its unit, the first column pinned
    when it names the rows (:data:`PINNED_KINDS`). No number format: the cells are the registry's text
    (:func:`shown_text`). A column of numbers is as wide as its widest cell or :data:`HEADER_CHARS` of its header:
    as wide as a long header ("cost [$ per 1,000 accepted requests]"), its right-aligned numbers sat out of view in a
    narrow window, the cells blank."""
    first = next(iter(columns), None)
    config = {}
    for name, c in columns.items():
        width = None
        if text is not None and c.kind not in PINNED_KINDS and len(text):
            cells = max(len(cell) for cell in text[name])
            width = CELL_PAD_PX + CHAR_PX * max(cells, min(len(c.header), HEADER_CHARS))
        # (no help with the header in full: a tooltip is Markdown, and a header may hold a system's name)
        config[name] = st.column_config.Column(
            c.header,
            width=width,
            pinned=name == first and c.kind in PINNED_KINDS,
            # numbers to the right, also where the column is handed over as its text (:func:`styled`)
            alignment="right" if c.kind in NUMBER_KINDS else None,
        )
    return config


def shown_text(frame: pd.DataFrame, columns: dict[str, Column]) -> pd.DataFrame:
    """The table's cells as the browser shows them: each column's values formatted by the registry, ``-`` where a
    value is missing (None, or NaN in a column of numbers)."""
    return pd.DataFrame({name: [c.format(v) for v in frame[name]] for name, c in columns.items()}, index=frame.index)


def with_gaps(frame: pd.DataFrame) -> list[str]:
    """Columns of ``frame`` with a missing value (None, or NaN in a column of numbers)."""
    return [str(name) for name in frame.columns if frame[name].isna().any()]


def styled(rows: list[dict[str, Any]], columns: dict[str, ColumnSpec]) -> tuple[Any, dict[str, Column], pd.DataFrame]:
    """The rows as ``st.dataframe`` shows them: a ``Styler`` whose display values are the registry's text over the
    values themselves (a click on a header sorts by value), or, for a table over :data:`MOST_STYLED_CELLS`, the
    text alone; the columns; and the text (:func:`shown_text`).

    A column with a missing value is handed over as its text: Streamlit draws its own grey "None" over a missing
    cell whatever its display value (a rented system's rack power limit read "None"), so no cell it gets is missing.
    Such a column sorts as text; the others by value."""
    shown = {name: as_column(name, spec) for name, spec in columns.items()}
    frame = pd.DataFrame(rows, columns=list(shown))
    text = shown_text(frame, shown)
    if frame.size > MOST_STYLED_CELLS:
        return text, shown, text
    gaps = with_gaps(frame)
    frame = frame.assign(**{name: text[name] for name in gaps})
    # (na_rep None: the registry's format writes a missing value itself, as ``-``)
    formats = {name: c.format for name, c in shown.items() if name not in gaps}
    return frame.style.format(formats, na_rep=None), shown, text


def show(rows: list[dict[str, Any]], columns: dict[str, ColumnSpec], **kwargs: Any) -> None:
    """A read-only table of result rows: units in the headers, each cell as the CLI prints it, the name column
    pinned. ``kwargs`` go to ``st.dataframe`` (a height, say)."""
    data, shown, text = styled(rows, columns)
    st.dataframe(
        data,
        column_config=column_config(shown, text),
        column_order=list(shown),
        hide_index=True,
        width="stretch",
        **kwargs,
    )
