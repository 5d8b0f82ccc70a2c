"""Commands of the uncertainty analysis: ``rackcost uncertainty | tornado | breakeven``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rackcost.cli.common import (
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    console,
    emit,
    emit_table,
    fail,
    load,
    table_console,
)
from rackcost.display import money, num
from rackcost.errors import ScenarioError
from rackcost.loading import DEFAULT_SCENARIO
from rackcost.results import records_to_csv
from rackcost.yaml_paths import parse_path

if TYPE_CHECKING:
    from rackcost.sensitivity import BreakEven

__all__ = ["COMMANDS", "breakeven", "breakeven_rows", "tornado", "uncertainty"]

KEY_COLUMNS = (
    ("usd_per_accepted_request", "$ / accepted request"),
    ("accepted_rps", "accepted rps"),
    ("facility_power_kw", "wall kW"),
    ("total_usd_per_hour", "total $/h"),
)
SYSTEM_KEY_COLUMNS = (
    ("blended_usd_per_accepted_request", "blended $ / accepted request"),
    ("provisioned_replicas", "replicas"),
    ("racks", "racks"),
    ("capex_usd", "capex $"),
)


def _fail_naming(exc: ScenarioError, scenario: Path | None) -> NoReturn:
    """Exit 1 naming the scenario file on problems the library raised without one (tornado, break-even)."""
    name = str(scenario) if scenario is not None else DEFAULT_SCENARIO
    fail(ScenarioError([replace(p, file=name) if p.file == "<scenario>" else p for p in exc.problems]))


def uncertainty(
    scenario: ScenarioArg = None,
    samples: Annotated[
        int, typer.Option("--samples", "-n", min=1, max=10_000_000, help="Monte Carlo samples.")
    ] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="Seed; the same seed gives the same result.")] = 0,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Threads (default: every core); the result is the same for any number."),
    ] = None,
) -> None:
    """Monte Carlo over every distribution in the scenario: P5/P50/P95 and the chance each system is cheaper."""
    from rich.progress import Progress

    import rackcost

    sc = load(scenario)
    try:
        with Progress(console=console(stderr=True), transient=True, disable=samples < 20_000) as bar:
            task = bar.add_task("sampling", total=samples)
            result = rackcost.uncertainty(
                sc, samples, seed, progress=lambda done: bar.update(task, completed=done), workers=workers
            )
    except ScenarioError as exc:
        _fail_naming(exc, scenario)
    data = {
        "scenario": sc.name,
        "samples": samples,
        "seed": seed,
        "uncertain_inputs": sorted(sc.distributions),
        "percentiles": result.percentiles,
        "probability_cheaper": result.probability_cheaper,
    }
    if fmt is OutputFormat.json:
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", output)
    elif fmt is OutputFormat.csv:
        emit(records_to_csv(result.percentiles), output)
    else:
        out = table_console(output)
        if not sc.distributions:
            out.print("[yellow]This scenario has no distributions: every sample is the same.[/yellow]")
        out.print(
            f"{samples:,} samples, seed {seed}, routing {sc.fleet.routing.value}; uncertain inputs: "
            f"{escape(', '.join(sorted(sc.distributions))) or 'none'}",
            highlight=False,
        )
        _print_percentiles(out, result.percentiles)
        t = Table(
            title="Probability that the system costs less per accepted request than the baseline",
            title_justify="left",
        )
        for col in ("system vs baseline", "demand point", "probability"):
            t.add_column(col, justify="right" if col == "probability" else "left")
        for r in result.probability_cheaper:
            t.add_row(
                escape(f"{r['system']} vs {r['baseline']}"),
                escape(r["demand_point"]),
                f"{100 * r['probability_fraction']:.1f}%",
            )
        out.print(t)
        emit_table(out, output)


def tornado(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """Each uncertain input at its P5 and P95, the others central, ranked by the swing in blended cost."""
    import rackcost

    sc = load(scenario)
    try:
        rows = rackcost.tornado(sc)
    except ScenarioError as exc:
        _fail_naming(exc, scenario)
    rows = [{k: (float(v) if hasattr(v, "item") else v) for k, v in r.items()} for r in rows]
    if fmt is OutputFormat.json:
        emit(json.dumps({"scenario": sc.name, "tornado": rows}, indent=2, allow_nan=False) + "\n", output)
        return
    if fmt is OutputFormat.csv:
        emit(records_to_csv(rows), output)
        return
    out = table_console(output)
    if not rows:
        out.print("[yellow]This scenario has no distributions: nothing to rank.[/yellow]")
        emit_table(out, output)
        return
    systems = [s.name for s in sc.systems]
    t = Table(
        title=f"Tornado: blended $ per accepted request with each input at P5 / P95 (routing {sc.fleet.routing.value})",
        title_justify="left",
    )
    t.add_column("input")
    t.add_column("P5 / P95 value", justify="right")
    for name in systems:
        t.add_column(f"{escape(name)} at P5 / P95", justify="right")
    if "ratio_low" in rows[0]:
        t.add_column("cost ratio vs baseline", justify="right")
    for r in rows:
        cells = [escape(r["input"]), f"{num(r['low_value'])} / {num(r['high_value'])}"]
        cells += [f"{money(r[f'{n}@low'])} / {money(r[f'{n}@high'])}" for n in systems]
        if "ratio_low" in r:
            cells.append(f"{r['ratio_low']:.3f} / {r['ratio_high']:.3f}")
        t.add_row(*cells)
    out.print(t)
    emit_table(out, output)


def breakeven(
    scenario: ScenarioArg = None,
    input_path: Annotated[
        str, typer.Option("--input", help="YAML path of the input, e.g. facility.electricity_usd_per_kwh.")
    ] = "facility.electricity_usd_per_kwh",
    system: Annotated[str | None, typer.Option("--system", help="System compared with the baseline.")] = None,
    point: Annotated[str, typer.Option("--point", help="Demand point name, or blended.")] = "blended",
    low: Annotated[float | None, typer.Option("--low", help="Lower end of the search range.")] = None,
    high: Annotated[float | None, typer.Option("--high", help="Upper end of the search range.")] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """The value of one input at which a system and the baseline cost the same per accepted request."""
    import rackcost

    sc = load(scenario)
    try:
        result = rackcost.breakeven(sc, input_path, system=system, demand_point=point, low=low, high=high)
    except ScenarioError as exc:
        _fail_naming(exc, scenario)
    if fmt is OutputFormat.json:
        emit(json.dumps(vars(result), indent=2, allow_nan=False) + "\n", output)
    elif fmt is OutputFormat.csv:
        emit(records_to_csv(breakeven_rows(result)), output)
    else:
        out = table_console(output)
        out.print(f"{escape(result.message)} (routing {sc.fleet.routing.value})", highlight=False)
        emit_table(out, output)


def breakeven_rows(result: BreakEven) -> list[dict[str, object]]:
    """The CSV records of a break-even result: one row, the input's values in columns named after the input.

    The value, low and high columns carry the input's own name (and so its unit), e.g.
    ``breakeven_electricity_usd_per_kwh``; a name without a unit (``pue``, a throughput derate's provenance class)
    is prefixed by its parent (``breakeven_facility_pue``, ``breakeven_throughput_derate_vendor``). The value is
    empty when no value in the range makes the costs equal.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> result = SimpleNamespace(
    ...     input="facility.pue", system="B", baseline="A", demand_point="blended", value=1.25, low=1.0, high=2.0,
    ...     message="B vs A at blended: equal cost per accepted request at facility.pue = 1.25",
    ... )
    >>> list(breakeven_rows(result)[0])[4:7]
    ['breakeven_facility_pue', 'search_low_facility_pue', 'search_high_facility_pue']
    """
    parts = [part for part in parse_path(result.input) if isinstance(part, str)]
    quantity = parts[-1] if "_" in parts[-1] else "_".join(parts[-2:])
    return [
        {
            "input": result.input,
            "system": result.system,
            "baseline": result.baseline,
            "demand_point": result.demand_point,
            f"breakeven_{quantity}": result.value,
            f"search_low_{quantity}": result.low,
            f"search_high_{quantity}": result.high,
            "message": result.message,
        }
    ]


COMMANDS = (uncertainty, tornado, breakeven)
"""The commands of this module, in the order ``rackcost --help`` lists them."""


def _print_percentiles(out: Console, rows: list[dict]) -> None:
    index = {(r["system"], r["demand_point"], r["column"]): r for r in rows}
    systems = list(dict.fromkeys(r["system"] for r in rows))
    points = [p for p in dict.fromkeys(r["demand_point"] for r in rows) if p != "system"]
    for system in systems:
        t = Table(title=f"{escape(system)}: P5 / P50 / P95", title_justify="left")
        t.add_column("")
        for p in points:
            t.add_column(escape(p), justify="right")
        for column, label in KEY_COLUMNS:
            fmt = money if "usd" in column else num
            t.add_row(label, *(_band(index[(system, p, column)], fmt) for p in points))
        out.print(t)
        for column, label in SYSTEM_KEY_COLUMNS:
            fmt = money if "usd" in column else num
            out.print(f"  {label}: {_band(index[(system, 'system', column)], fmt)}", highlight=False)


def _band(r: dict, fmt) -> str:
    return f"{fmt(r['p5'])} / {fmt(r['p50'])} / {fmt(r['p95'])}"
