"""Commands of the uncertainty analysis: ``rackcost uncertainty | tornado | breakeven``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from rackcost.cli.common import (
    Destination,
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    SeedOpt,
    console,
    destination,
    emit,
    emit_table,
    error,
    fail,
    load,
    table_console,
)
from rackcost.cli.layout import Field, header_and_format, print_grid, print_records
from rackcost.cli.unserved import print_unserved, quiet_unserved, served_scenario
from rackcost.display import (
    PER_1K_ACCEPTED,
    input_value,
    money,
    pct,
    ratio,
    usd_per_1k_requests,
)
from rackcost.errors import ScenarioError
from rackcost.evaluation.columns import BLENDED, column, column_names
from rackcost.files import csv_text
from rackcost.limits import MAX_CELLS, MAX_SAMPLES
from rackcost.scenario.labels import input_label
from rackcost.scenario.loading import DEFAULT_SCENARIO
from rackcost.scenario.yaml_paths import parse_path

if TYPE_CHECKING:
    from rackcost.analysis.sensitivity import BreakEven
    from rackcost.scenario.schema import Scenario

__all__ = ["COMMANDS", "breakeven", "breakeven_rows", "tornado", "uncertainty"]

BYTES_PER_CELL = 112
"""Memory the Monte Carlo keeps per sample, demand point and system [bytes] (benchmarks/bench_uncertainty_memory.py)."""
SECONDS_PER_CELL = 1e-6
"""Time per sample, demand point and system [s], roughly, on one core of the machine of the benchmarks."""
PROGRESS_CELLS = 100_000
"""Runs of at least this many cells show a progress bar (about a tenth of a second and more) [-]."""
SPINNER_CELLS = 200
"""Tornado and break-even on at least this many demand points x systems show a spinner [-]."""

KEY_COLUMNS = tuple(
    (name, header_and_format(column("points", name))[0])
    for name in ("usd_per_accepted_request", "accepted_rps", "facility_power_kw", "total_usd_per_hour")
)
SYSTEM_KEY_COLUMNS = tuple(
    (name, column("systems", name).header)
    for name in ("blended_usd_per_accepted_request", "provisioned_replicas", "racks", "capex_usd")
)


def _fail_naming(exc: ScenarioError, scenario: Path | None) -> NoReturn:
    """Exit 1 naming the scenario file on problems the library raised without one (tornado, break-even)."""
    name = str(scenario) if scenario is not None else DEFAULT_SCENARIO
    fail(ScenarioError([replace(p, file=name) if p.file == "<scenario>" else p for p in exc.problems]))


def uncertainty(
    scenario: ScenarioArg = None,
    samples: Annotated[
        int, typer.Option("--samples", "-n", min=1, help=f"Monte Carlo samples (at most {MAX_SAMPLES:,}).")
    ] = 10_000,
    seed: SeedOpt = 0,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Threads (default: every core); the result is the same for any number."),
    ] = None,
    max_cells: Annotated[
        int,
        typer.Option(
            "--max-cells",
            min=1,
            help="Refuse a run of more than this many samples x demand points x systems (about 112 bytes and 1 us "
            "each).",
        ),
    ] = MAX_CELLS,
) -> None:
    """Monte Carlo over every distribution in the scenario: P5/P50/P95 and the chance each system is cheaper."""
    dest = destination(output, force, scenario)
    from rich.progress import Progress

    import rackcost
    from rackcost.analysis.montecarlo import cells

    if samples > MAX_SAMPLES:
        error(
            f"-n {samples:,} is more than the maximum of {MAX_SAMPLES:,} samples (P5 and P95 are stable to well "
            "under 1% by 100,000)"
        )
        raise typer.Exit(code=1)
    sc = load(scenario)
    if not sc.distributions:
        _nothing_uncertain(sc, samples, seed, fmt, dest)
        return
    size = cells(sc, samples)
    if size > max_cells:
        error(
            f"{samples:,} samples x {len(sc.demand):,} demand points x {len(sc.systems):,} systems = {size:,} cells "
            f"is more than --max-cells {max_cells:,} (about {size * BYTES_PER_CELL / 1e9:.1f} GB and "
            f"{size * SECONDS_PER_CELL:.0f} s): lower -n, or raise --max-cells"
        )
        raise typer.Exit(code=1)
    try:
        with Progress(console=console(stderr=True), transient=True, disable=size < PROGRESS_CELLS) as bar:
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
        "uncertain_inputs": sorted(served_scenario(sc)[0].distributions),
        "percentiles": result.percentiles,
        "probability_cheaper": result.probability_cheaper,
        "unserved": result.unserved,
    }
    if fmt is OutputFormat.json:
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
    elif fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), result.unserved)
        emit(csv_text(result.percentiles), dest)
    else:
        out = table_console(dest)
        print_unserved(out, result.unserved)
        out.print(
            f"{samples:,} samples, seed {seed}, routing {sc.fleet.routing}; uncertain inputs: "
            f"{escape(', '.join(sorted(sc.distributions)))}",
            highlight=False,
        )
        _print_percentiles(out, result.percentiles)
        fields = [Field("system vs baseline", "name"), Field("demand point", "name"), Field("probability")]
        rows = [
            [escape(f"{r['system']} vs {r['baseline']}"), escape(r["demand_point"]), pct(r["probability_fraction"])]
            for r in result.probability_cheaper
        ]
        title = "Probability that the system costs less per accepted request than the baseline"
        print_records(out, title, fields, rows)
        emit_table(out, dest)


NOTHING_UNCERTAIN = (
    "This scenario has no distributions: nothing is uncertain, so every sample would be the same. "
    "Its figures are those of `rackcost evaluate`; give an input a distribution (docs/uncertainty.md) to see a spread."
)


def _nothing_uncertain(sc: Scenario, samples: int, seed: int, fmt: OutputFormat, output: Destination) -> None:
    """What ``uncertainty`` says of a scenario without distributions: that sentence and the evaluated figures."""
    from rackcost.evaluation.chain import evaluate

    if fmt is OutputFormat.json:
        data = {
            "scenario": sc.name,
            "samples": 0,
            "seed": seed,
            "uncertain_inputs": [],
            "percentiles": [],
            "probability_cheaper": [],
            "message": NOTHING_UNCERTAIN,
        }
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", output)
        return
    if fmt is OutputFormat.csv:
        console(stderr=True).print(escape(NOTHING_UNCERTAIN), highlight=False)
        emit("", output)
        return
    out = table_console(output)
    out.print(f"[yellow]{escape(NOTHING_UNCERTAIN)}[/yellow]", highlight=False)
    try:
        systems = evaluate(sc).records["systems"]
    except ScenarioError:  # the evaluate command reports these with their file
        systems = []
    for row in systems:
        out.print(
            f"  {escape(row['system'])}: blended {usd_per_1k_requests(row['blended_usd_per_accepted_request'])} "
            f"{PER_1K_ACCEPTED[2:]}, capex {money(row['capex_usd'])}",
            highlight=False,
        )
    emit_table(out, output)


def tornado(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Each uncertain input at its P5 and P95, the others central, ranked by the swing in blended cost."""
    dest = destination(output, force, scenario)
    import rackcost

    sc = load(scenario)
    kept, unserved = served_scenario(sc)
    try:
        with _working(f"tornado of {len(kept.distributions)} input(s)", kept), quiet_unserved():
            rows = rackcost.tornado(sc)
    except ScenarioError as exc:
        _fail_naming(exc, scenario)
    rows = [{k: (float(v) if hasattr(v, "item") else v) for k, v in r.items()} for r in rows]
    if fmt is OutputFormat.json:
        emit(
            json.dumps({"scenario": sc.name, "tornado": rows, "unserved": unserved}, indent=2, allow_nan=False) + "\n",
            dest,
        )
        return
    if fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), unserved)
        emit(csv_text(rows), dest)
        return
    out = table_console(dest)
    print_unserved(out, unserved)
    if not rows:
        out.print("[yellow]This scenario has no distributions: nothing to rank.[/yellow]")
        emit_table(out, dest)
        return
    systems = [s.name for s in kept.systems]  # the systems evaluated; the inputs' paths are the file's
    demand = [d.name for d in sc.demand]
    fields = [Field("input", "text"), Field("at", "name"), Field("input's value", "number")]
    fields += [Field(escape(name), whole_header=True) for name in systems]
    if "advantage_low" in rows[0]:
        other = next(n for n in systems if n != kept.baseline_name)
        fields.append(Field(f"advantage vs baseline\n[dim]({escape(kept.baseline_name)} / {escape(other)} cost)[/dim]"))
    table = []
    for r in rows:
        path = r["input"]
        cells = [
            escape(input_label(path, [s.name for s in sc.systems], demand)),
            "P5\nP95",
            f"{input_value(r['low_value'], path, words=False)}\n{input_value(r['high_value'], path, words=False)}",
        ]
        cells += [f"{usd_per_1k_requests(r[f'{n}@low'])}\n{usd_per_1k_requests(r[f'{n}@high'])}" for n in systems]
        if "advantage_low" in r:
            cells.append(f"{ratio(r['advantage_low'])}\n{ratio(r['advantage_high'])}")
        table.append(cells)
    title = f"Tornado: blended {PER_1K_ACCEPTED} with each input at P5 / P95 (routing {sc.fleet.routing})"
    print_records(out, title, fields, table)
    emit_table(out, dest)


def _working(what: str, sc: Scenario):
    """A transient Rich spinner on stderr while a one-call computation runs (only on a terminal, and only for a
    scenario large enough to take a while)."""
    from contextlib import nullcontext

    if len(sc.demand) * len(sc.systems) < SPINNER_CELLS:
        return nullcontext()
    return console(stderr=True).status(f"{what}: {len(sc.systems)} systems x {len(sc.demand):,} demand points")


def breakeven(
    scenario: ScenarioArg = None,
    input_path: Annotated[
        str, typer.Option("--input", help="YAML path of the input, e.g. facility.electricity_usd_per_kwh.")
    ] = "facility.electricity_usd_per_kwh",
    system: Annotated[str | None, typer.Option("--system", help="System compared with the baseline.")] = None,
    point: Annotated[str, typer.Option("--point", help="Demand point name, or blended.")] = BLENDED,
    low: Annotated[float | None, typer.Option("--low", help="Lower end of the search range.")] = None,
    high: Annotated[float | None, typer.Option("--high", help="Upper end of the search range.")] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The value of one input at which a system and the baseline cost the same per accepted request."""
    dest = destination(output, force, scenario)
    import rackcost

    sc = load(scenario)
    unserved = served_scenario(sc)[1]
    try:
        with _working(f"break-even of {input_path}", sc):
            result = rackcost.breakeven(sc, input_path, system=system, demand_point=point, low=low, high=high)
    except ScenarioError as exc:
        _fail_naming(exc, scenario)
    if fmt is OutputFormat.json:
        emit(json.dumps(vars(result) | {"unserved": unserved}, indent=2, allow_nan=False) + "\n", dest)
    elif fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), unserved)
        emit(csv_text(breakeven_rows(result)), dest)
    else:
        out = table_console(dest)
        print_unserved(out, unserved)
        words = input_label(input_path, [s.name for s in sc.systems], [d.name for d in sc.demand])
        message = result.message.replace(result.input, f"{words} ({result.input})", 1)
        out.print(f"{escape(message)} (routing {sc.fleet.routing})", highlight=False)
        emit_table(out, dest)


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
        labels = [escape(label) for _, label in KEY_COLUMNS]
        columns = [
            (escape(p), [_band(index[(system, p, name)], _formatter(name), "\n") for name, _ in KEY_COLUMNS])
            for p in points
        ]
        print_grid(out, f"{escape(system)}: P5 / P50 / P95", labels, columns, corner="P5, P50, P95 per cell")
        for name, label in SYSTEM_KEY_COLUMNS:
            fmt = _formatter(name)
            out.print(f"  {escape(label)}: {_band(index[(system, 'system', name)], fmt)}", highlight=False)


def _formatter(name: str) -> Callable[[Any], str]:
    """The format of a points or systems column, from the registry of columns (as ``rackcost evaluate`` shows it)."""
    table = "points" if name in column_names("points") else "systems"
    return header_and_format(column(table, name))[1]


def _band(r: dict, fmt, sep: str = " / ") -> str:
    """P5 / P50 / P95 (``sep="\\n"``: on three lines, as a table shows them)."""
    return sep.join(fmt(r[q]) for q in ("p5", "p50", "p95"))
