"""``rackcost site``: the largest fleet of each system within the site's IT power (:func:`rackcost.site_budget`)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape

from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    console,
    destination,
    emit,
    emit_table,
    fail,
    load,
    table_console,
)
from rackcost.cli.layout import Field, print_records
from rackcost.cli.unserved import print_unserved, quiet_unserved, served_scenario
from rackcost.display import num, power_kw
from rackcost.errors import ScenarioError, in_file
from rackcost.files import csv_text
from rackcost.scenario.loading import DEFAULT_SCENARIO

__all__ = ["COMMANDS", "flat_rows", "site"]


def flat_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Site rows with each demand point's unserved rate as its own column, ``unserved_rps[POINT]``."""
    out = []
    for row in rows:
        flat = {k: v for k, v in row.items() if k != "unserved_rps"}
        flat.update({f"unserved_rps[{name}]": value for name, value in row["unserved_rps"].items()})
        out.append(flat)
    return out


def site(
    scenario: ScenarioArg = None,
    max_it_power_kw: Annotated[
        float | None,
        typer.Option(
            "--max-it-power-kw",
            min=1.0,
            max=1e7,
            help="The site's IT power budget in kW (default: the scenario's facility.max_it_power_kw).",
        ),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The largest fleet of each system the site's IT power holds (rated power), and what it serves within the SLO."""
    dest = destination(output, force, scenario)
    from rackcost.analysis.site_budget import site_budget

    sc = load(scenario)
    unserved = served_scenario(sc)[1]
    try:
        with quiet_unserved():
            rows = site_budget(sc, max_it_power_kw)
    except ScenarioError as exc:
        file = str(scenario) if scenario is not None else DEFAULT_SCENARIO
        fail(in_file(exc, file))
    if fmt is OutputFormat.json:
        data = {"scenario": sc.name, "site": rows, "unserved": unserved}
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), unserved)
        emit(csv_text(flat_rows(rows)), dest)
        return
    out = table_console(dest)
    print_unserved(out, unserved)
    _print(out, sc.name, rows)
    emit_table(out, dest)


def _print(out: Any, scenario_name: str, rows: list[dict[str, Any]]) -> None:
    site_kw = rows[0]["max_it_power_kw"]
    title = (
        f"{escape(scenario_name)}: the largest fleet within {power_kw(site_kw)} of IT power (rated), "
        "and what it serves within the SLO"
    )
    points = list(rows[0]["unserved_rps"])
    fields = [
        Field("system", "name"),
        Field("replicas (serving)"),
        Field("accelerators"),
        Field("racks"),
        Field("rated IT power"),
        Field(escape("capacity at SLO [requests/s]")),
        Field(escape("accepted [requests/s per MW]")),
        Field(escape("output [tokens/s per MW]")),
        *(Field(escape(f"unserved at {p} [requests/s]")) for p in points),
    ]
    cells = [
        [
            escape(row["system"]),
            f"{row['max_replicas']:,} ({row['serving_replicas']:,})"
            + (
                ""
                if row["prefill_replicas"] is None
                else f": {row['prefill_replicas']:,} prefill + {row['decode_replicas']:,} decode"
            ),
            f"{row['accelerators']:,}",
            f"{row['racks']:,}",
            power_kw(row["rated_it_kw"]),
            num(row["capacity_at_slo_rps"]),
            num(row["accepted_rps_per_mw"]),
            num(row["output_tokens_per_s_per_mw"]),
            *(num(row["unserved_rps"][p]) for p in points),
        ]
        for row in rows
    ]
    print_records(out, title, fields, cells)


COMMANDS = (site,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
