"""``rackcost mix``: the cheapest mix of a scenario's systems, each request class on one system, beside each system
alone (:func:`rackcost.hardware_mix`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

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
from rackcost.cli.layout import NOT_APPLICABLE, Field, print_grid, print_records
from rackcost.display import PER_1K_ACCEPTED, count, money, pct, usd_per_1k_requests
from rackcost.errors import ScenarioError, in_file
from rackcost.files import csv_text
from rackcost.reporting.mix_section import classes_text, mix_rows, mix_sentence
from rackcost.scenario.loading import DEFAULT_SCENARIO

if TYPE_CHECKING:
    from rich.console import Console

    from rackcost.analysis.hardware_mix import HardwareMix

__all__ = ["COMMANDS", "mix"]


def mix(
    scenario: ScenarioArg = None,
    slices: Annotated[
        int,
        typer.Option(
            "--slices",
            min=1,
            max=255,
            help="Cut each class's load into N equal slices, each routed on its own (default 1: each class whole; "
            "a workload without classes then goes whole to the best system). Each system is evaluated on "
            "(N + 1)^classes - 1 cells, at most 255.",
        ),
    ] = 1,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The cheapest mix of the scenario's systems, each request class routed to the system that serves it cheapest.

    Every system is evaluated on every subset of the workload's classes (their share of the demand, within the SLO);
    the cheapest assignment is exact (docs/model.md, "A mix of hardware"), and each system alone is shown beside it.
    """
    dest = destination(output, force, scenario)
    from rackcost.analysis.hardware_mix import hardware_mix

    sc = load(scenario)
    try:
        found = hardware_mix(sc, slices)
    except ScenarioError as exc:
        file = str(scenario) if scenario is not None else DEFAULT_SCENARIO
        fail(in_file(exc, file))
    if fmt is OutputFormat.json:
        emit(json.dumps(found.to_dict(), indent=2, allow_nan=False) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        for note in found.notes:
            console(stderr=True).print(f"note: {escape(note)}", highlight=False)
        emit(csv_text(mix_rows(found)), dest)
        return
    out = table_console(dest)
    _print(out, found)
    emit_table(out, dest)


def _print(out: Console, found: HardwareMix) -> None:
    """The mix's fleets and total, each system alone, and each class on each system alone."""
    for note in found.notes:
        out.print(f"note: {escape(note)}", highlight=False)
    per_1k = escape(PER_1K_ACCEPTED)
    fields = [
        Field("system", "name"),
        Field("classes", "text"),
        Field("replicas"),
        Field("racks"),
        Field(escape("cost [USD/day]")),
        Field(escape("accepted [requests/day]")),
        Field(f"cost {per_1k}"),
    ]
    cells = [
        [
            escape(f.system),
            escape(classes_text(f.classes, ", ")),
            count(f.provisioned_replicas),
            count(f.racks),
            money(f.usd_per_day),
            count(round(f.accepted_requests_per_day)),
            usd_per_1k_requests(f.usd_per_accepted_request),
        ]
        for f in found.fleets
    ]
    cells.append(
        [
            "[bold]the mix[/bold]",
            escape(", ".join(found.classes)),
            count(sum(f.provisioned_replicas for f in found.fleets)),
            count(sum(f.racks for f in found.fleets)),
            money(found.usd_per_day),
            count(round(found.accepted_requests_per_day)),
            f"[bold]{usd_per_1k_requests(found.usd_per_accepted_request)}[/bold]",
        ]
    )
    title = f"{escape(found.scenario_name)}: the cheapest mix of hardware, each request class on one system"
    print_records(out, title, fields, cells)
    _print_alone(out, found)
    if len(found.classes) > 1:
        systems = [a.system for a in found.alone]
        columns = [
            (
                escape(system),
                [
                    usd_per_1k_requests(c.usd_per_accepted_request)
                    if c.usd_per_accepted_request is not None
                    else "cannot serve"
                    for c in found.class_costs
                    if c.system == system
                ],
            )
            for system in systems
        ]
        labels = [escape(c) for c in found.classes]
        print_grid(out, f"Each class on each system alone, its own fleet: cost {per_1k}", labels, columns, "class")
    out.print(escape(mix_sentence(found)), highlight=False)


def _print_alone(out: Console, found: HardwareMix) -> None:
    """Each system serving every class alone, or the classes it cannot serve."""
    per_1k = escape(PER_1K_ACCEPTED)
    fields = [
        Field("system", "name"),
        Field(escape("cost [USD/day]")),
        Field(escape("accepted [requests/day]")),
        Field(f"cost {per_1k}"),
        Field("the mix saves"),
        Field("cannot serve", "text"),
    ]
    cells = []
    for a in found.alone:
        usd = a.usd_per_accepted_request
        saving = NOT_APPLICABLE if usd is None or usd <= 0 else pct(1.0 - found.usd_per_accepted_request / usd)
        cells.append(
            [
                escape(a.system),
                NOT_APPLICABLE if a.usd_per_day is None else money(a.usd_per_day),
                NOT_APPLICABLE if a.accepted_requests_per_day is None else count(round(a.accepted_requests_per_day)),
                NOT_APPLICABLE if usd is None else usd_per_1k_requests(usd),
                saving,
                escape("; ".join(f"{c}: {why}" for c, why in a.cannot_serve.items())) or NOT_APPLICABLE,
            ]
        )
    print_records(out, "Each system alone, serving every class", fields, cells)


COMMANDS = (mix,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
