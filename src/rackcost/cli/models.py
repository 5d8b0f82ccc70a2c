"""``rackcost models``: several models on one fleet, each model's cost per accepted request with the shared racks'
cost attributed by a named rule (:func:`rackcost.evaluate_models`)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    console,
    destination,
    emit,
    emit_table,
    fail,
    table_console,
)
from rackcost.cli.layout import Field, print_records
from rackcost.display import PER_1K_ACCEPTED, money, num
from rackcost.errors import ScenarioError
from rackcost.evaluation.columns import column
from rackcost.files import csv_text

_PER_REQUEST = column("systems", "blended_usd_per_accepted_request")
"""How a cost per accepted request is shown everywhere: dollars per 1,000 accepted requests."""

__all__ = ["COMMANDS", "models"]


class Rule(StrEnum):
    """The attribution rules of the shared racks' cost."""

    reservation = "reservation"
    usage = "usage"


class Placement(StrEnum):
    """Where the models' nodes go."""

    shared = "shared"
    separate = "separate"


def models(
    document: Annotated[
        Path, typer.Argument(help="Models document (YAML with `workloads`), or the name of a bundled one.")
    ],
    rule: Annotated[
        Rule | None,
        typer.Option(
            "--rule",
            help="Split the shared racks' cost by reservation (node slots) or usage (energy); "
            "default the document's attribution (reservation).",
        ),
    ] = None,
    placement: Annotated[
        Placement | None,
        typer.Option("--placement", help="shared racks or separate racks per model; default the document's."),
    ] = None,
    simulate: Annotated[
        bool, typer.Option("--simulate", help="Also serve each model's fleet in the simulator: its accepted share.")
    ] = False,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Several models on one fleet: each model's cost per accepted request, the shared racks' cost split by a rule."""
    dest = destination(output, force, document)
    from rackcost.evaluation.models import evaluate_models

    try:
        result = evaluate_models(
            document, None if rule is None else rule.value, None if placement is None else placement.value
        )
    except ScenarioError as exc:
        fail(exc)
    model_rows: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in result.models.to_dict("records")]
    if simulate:
        from rackcost.analysis.models_sim import simulate_models

        sim = simulate_models(result).set_index("model")
        for row in model_rows:
            row["simulated_accepted_fraction"] = float(sim.loc[row["model"], "simulated_accepted_fraction"])
    fleet_rows: list[dict[str, Any]] = [{str(k): v for k, v in r.items()} for r in result.fleets.to_dict("records")]
    for w in result.warnings:
        console(stderr=True).print(f"warning: {escape(w)}", highlight=False, soft_wrap=True)
    if fmt is OutputFormat.json:
        data: dict[str, Any] = {"name": result.name, "placement": result.placement, "rule": result.rule}
        data |= {"models": model_rows, "fleets": fleet_rows}
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text(model_rows), dest)
        return
    out = table_console(dest)
    _print(out, result.name, result.placement, result.rule, model_rows, fleet_rows)
    emit_table(out, dest)


def _print(
    out: Any, name: str, placement: str, rule: str, model_rows: list[dict[str, Any]], fleet_rows: list[dict[str, Any]]
) -> None:
    simulated = "simulated_accepted_fraction" in model_rows[0]
    title = f"{escape(name)}: each model's cost per accepted request ({placement} racks, {rule}-based attribution)"
    fields = [
        Field("model", "name"),
        Field("system"),
        Field("replicas"),
        Field("nodes"),
        Field("accepted share"),
        *([Field("accepted share (simulated)")] if simulated else []),
        Field(escape("accepted [requests/day]")),
        Field(escape("own [USD/day]")),
        Field(escape("shared [USD/day]")),
        Field(escape("total [USD/day]")),
        Field(escape(f"cost [{PER_1K_ACCEPTED}]")),
        Field(escape(f"alone [{PER_1K_ACCEPTED}]")),
        Field(escape("carbon, its fleet alone [g CO2e/request]")),
    ]
    cells = [
        [
            escape(r["model"]),
            escape(r["system"]),
            f"{r['provisioned_replicas']:,}",
            f"{r['nodes']:,}",
            f"{r['accepted_fraction']:.2%}",
            *([f"{r['simulated_accepted_fraction']:.2%}"] if simulated else []),
            num(r["accepted_requests_per_day"]),
            money(r["direct_usd_per_day"]),
            money(r["shared_usd_per_day"]),
            money(r["usd_per_day"]),
            _PER_REQUEST.format(r["blended_usd_per_accepted_request"]),
            _PER_REQUEST.format(r["blended_usd_per_accepted_request_alone"]),
            num(r["blended_carbon_g_per_accepted_request_alone"]),
        ]
        for r in model_rows
    ]
    print_records(out, title, fields, cells)
    fleet_fields = [
        Field("system", "name"),
        Field("models"),
        Field("nodes"),
        Field("racks"),
        Field("racks apart"),
        Field(escape("rack [USD/day]")),
        Field(escape("own [USD/day]")),
        Field(escape("shared [USD/day]")),
        Field(escape("fleet [USD/day]")),
        Field(escape("apart [USD/day]")),
    ]
    fleet_cells = [
        [
            escape(r["system"]),
            escape(r["models"]),
            f"{r['nodes']:,}",
            f"{r['racks']:,}",
            f"{r['racks_apart']:,}",
            money(r["rack_usd_per_day"]),
            money(r["direct_usd_per_day"]),
            money(r["shared_usd_per_day"]),
            money(r["usd_per_day"]),
            money(r["usd_per_day_apart"]),
        ]
        for r in fleet_rows
    ]
    print_records(out, "The fleet: each system type's racks, shared or apart", fleet_fields, fleet_cells)


COMMANDS = (models,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
