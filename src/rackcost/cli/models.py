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
    error,
    fail,
    table_console,
)
from rackcost.cli.layout import Field, print_records
from rackcost.errors import ScenarioError
from rackcost.files import csv_text
from rackcost.reporting import models_section
from rackcost.reporting.models_section import fleet_table, model_table, models_title

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
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Write the decision report instead of the tables: .html (one file) or .md; the rule and placement "
            "as given here. rackcost report DOCUMENT writes it with the document's own.",
        ),
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Several models on one fleet: each model's cost per accepted request, the shared racks' cost split by a rule."""
    if report is not None:
        others = [
            o
            for o, given in (
                ("--simulate", simulate),
                ("--format", fmt is not OutputFormat.table),
                ("--output", output is not None),
            )
            if given
        ]
        if others:
            error(f"--report writes the report alone: {', '.join(others)} cannot go with it")
            raise typer.Exit(code=1)
        from rackcost.cli.report import write_models_report

        write_models_report(
            document,
            report,
            None if rule is None else rule.value,
            None if placement is None else placement.value,
            force,
        )
        return
    dest = destination(output, force, document)
    from rackcost.evaluation.models import evaluate_models

    try:
        result = evaluate_models(
            document, None if rule is None else rule.value, None if placement is None else placement.value
        )
    except ScenarioError as exc:
        fail(exc)
    model_rows = models_section.model_rows(result)
    if simulate:
        from rackcost.analysis.models_sim import simulate_models

        sim = simulate_models(result).set_index("model")
        for row in model_rows:
            row["simulated_accepted_fraction"] = float(sim.loc[row["model"], "simulated_accepted_fraction"])
    fleet_rows = models_section.fleet_rows(result)
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
    """The models' table and the fleet's (:mod:`rackcost.reporting.models_section`, the dashboard's too)."""
    for title, table in (
        (escape(models_title(name, placement, rule)), model_table(model_rows)),
        ("The fleet: each system type's racks, shared or apart", fleet_table(fleet_rows)),
    ):
        fields = [Field(escape(header), "name" if i == 0 else "number") for i, (_, header) in enumerate(table.columns)]
        print_records(out, title, fields, [[escape(cell) for cell in row] for row in table.rows])


COMMANDS = (models,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
