"""``rackcost plan``: the cheapest buying plan over a demand profile's horizon (:func:`rackcost.plan`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rackcost import files
from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    SeedOpt,
    check_distinct,
    check_output,
    console,
    destination,
    emit,
    emit_table,
    error,
    fail,
    load,
    table_console,
)
from rackcost.cli.layout import Field, print_records
from rackcost.display import money, num, usd_per_1k_requests
from rackcost.errors import ScenarioError, in_file
from rackcost.files import csv_text
from rackcost.scenario.loading import DEFAULT_SCENARIO

if TYPE_CHECKING:
    from rackcost.evaluation.planning import PlanResult

__all__ = ["COMMANDS", "plan"]


def plan(
    scenario: ScenarioArg = None,
    check_hours: Annotated[
        int,
        typer.Option(
            "--check-hours",
            min=0,
            max=100,
            help="Simulate this many sampled hours of the plan, each source's fleet at its load, beside the analytic "
            "accepted share (0: none).",
        ),
    ] = 0,
    requests: Annotated[
        int,
        typer.Option("--requests", min=1000, max=10_000_000, help="Simulated requests per source and checked hour."),
    ] = 100_000,
    seed: SeedOpt = 0,
    chart: Annotated[
        Path | None,
        typer.Option(
            "--chart",
            help="Also write the chart of capacity held by source against demand over the horizon (.svg or .png).",
        ),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The cheapest plan over the horizon: owned racks bought per quarter, reservations, on-demand, spot and API,
    every hour within the SLO, against the best single source (docs/model.md, "The buying plan")."""
    check_distinct({"--chart": chart, "--output": output})
    dest = destination(output, force, scenario)
    if chart is not None:
        if chart.suffix.lower() not in (".svg", ".png"):
            error(f"--chart {chart}: expected a file ending in .svg or .png")
            raise typer.Exit(code=1)
        check_output(chart, force, (scenario, output))
    from rackcost.analysis.plan_check import check_hours as simulate_hours
    from rackcost.evaluation.planning import plan_scenario

    sc = load(scenario)
    try:
        result = plan_scenario(sc)
    except ScenarioError as exc:
        file = str(scenario) if scenario is not None else DEFAULT_SCENARIO
        fail(in_file(exc, file))
    checked = simulate_hours(result, check_hours, requests, seed=seed) if check_hours else []
    if chart is not None:
        _write_chart(chart, result, force, (scenario, output))
    if fmt is OutputFormat.json:
        data = result.to_json()
        if checked:
            data["checked_hours"] = checked
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text(result.to_json()["periods"]), dest)
        return
    out = table_console(dest)
    _print(out, result, checked)
    emit_table(out, dest)


def _write_chart(path: Path, result: PlanResult, force: bool, inputs: tuple[Path | None, ...]) -> None:
    """The capacity chart (:func:`rackcost.reporting.plan_charts.capacity_chart`) as SVG or PNG, written atomically."""
    import vl_convert

    from rackcost.reporting.plan_charts import capacity_chart

    spec = capacity_chart(result).to_dict()
    data = (
        vl_convert.vegalite_to_png(spec, scale=2) if path.suffix.lower() == ".png" else vl_convert.vegalite_to_svg(spec)
    )
    check_output(path, force, inputs)
    try:
        files.write_atomically(path, data)
    except OSError as exc:
        error(f"{path}: cannot write: {exc.strerror or exc}")
        raise typer.Exit(code=1) from None
    console(stderr=True).print(f"wrote {escape(str(path))}")


def _per_1k(usd_per_request: float | None) -> str:
    """A cost per request per 1,000 requests, or ``-`` where none is defined (no request accepted)."""
    if usd_per_request is None or not math.isfinite(usd_per_request) or usd_per_request <= 0:
        return "-"
    return usd_per_1k_requests(usd_per_request)


def _print(out: Any, result: PlanResult, checked: list[dict[str, Any]]) -> None:
    """The plan's decision, the solver's figures, the plan per quarter and per year, and the hours checked."""
    _print_decision(out, result)
    _print_tables(out, result, checked)


def _print_decision(out: Any, result: PlanResult) -> None:
    """The cheapest plan against the best single source (the decision every face words the same:
    :func:`rackcost.reporting.decision.plan_sentence`), and how sure the solver is of it."""
    from rackcost.reporting.plan_section import plan_sentence

    out.print(f"[bold]{escape(result.scenario)}[/bold]")
    s = result.solution
    out.print(escape(plan_sentence(result)), highlight=False)  # the words rackcost evaluate and the report lead with
    if result.unsolved_sources:
        names = ", ".join(escape(n) for n in result.unsolved_sources)
        out.print(f"Not compared: {names} alone (no plan found within plan.time_limit_s).")
    out.print(
        f"Solver: {s.status}, gap {s.relative_gap:.3%} of its proven bound {money(s.dual_bound_usd)} (its linear "
        f"figures: {money(s.objective_usd)}), {s.solve_s:.1f} s; capacities checked in {result.rounds} round(s)."
    )


def _print_tables(out: Any, result: PlanResult, checked: list[dict[str, Any]]) -> None:
    """The plan per quarter and per year, and the sampled hours simulated."""
    periods = result.periods
    unit_columns = [c for c in periods.columns if c.endswith((": racks", ": most replicas", ": peak rps"))]
    fields = [
        Field("quarter"),
        Field(escape("peak demand [requests/s]")),
        *(Field(escape(c)) for c in unit_columns),
        Field("cost"),
        Field(escape("cost [$ per 1,000 accepted requests]")),
    ]
    cells = [
        [
            f"{int(row['quarter'])} (year {int(row['year'])})",
            num(row["peak_demand_rps"]),
            *(num(row[c]) for c in unit_columns),
            money(row["cost_usd"]),
            _per_1k(row["usd_per_accepted_request"]),
        ]
        for _, row in periods.iterrows()
    ]
    print_records(out, "The plan per quarter (units held at the quarter's busiest)", fields, cells)
    years = result.years
    print_records(
        out,
        "Per year",
        [Field("year"), Field("cost"), Field(escape("accepted requests")), Field(escape("$ per 1,000 accepted"))],
        [
            [
                str(int(r["year"])),
                money(r["cost_usd"]),
                num(r["accepted_requests"]),
                _per_1k(r["usd_per_accepted_request"]),
            ]
            for _, r in years.iterrows()
        ],
    )
    if checked:
        print_records(
            out,
            "Sampled hours simulated (accepted share within the SLO)",
            [
                Field("hour"),
                Field(escape("offered [requests/s]")),
                Field("analytic"),
                Field("simulated"),
                Field("difference [points]"),
            ],
            [
                [
                    str(c["hour"]),
                    num(c["offered_rps"]),
                    f"{c['analytic_accepted_fraction']:.4f}",
                    f"{c['simulated_accepted_fraction']:.4f} ± {c['simulated_accepted_fraction_ci95_halfwidth']:.4f}",
                    f"{c['difference_points']:+.2f}",
                ]
                for c in checked
            ],
        )


COMMANDS = (plan,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
