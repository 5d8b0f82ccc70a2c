"""Commands of the uncertainty analysis: ``rackcost uncertainty | tornado | breakeven``."""

from __future__ import annotations

import json
from collections.abc import Callable
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
from rackcost.errors import ScenarioError, in_file
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
    fail(in_file(exc, name))


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
    pair: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--pair",
            metavar="A B",
            help="Two systems: how often A is cheaper than B, at each demand point and blended (default: the "
            "cheapest against the next).",
        ),
    ] = None,
    default_spreads: Annotated[
        bool | None,
        typer.Option(
            "--default-spreads/--no-default-spreads",
            help="Draw each input without a distribution from its default spread (from its provenance and the "
            "model's fitted errors, docs/uncertainty.md). Default: only when the scenario has no distribution.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Monte Carlo over the distributions, else default spreads: how sure, P5/P50/P95 and P(cheaper) by pair."""
    dest = destination(output, force, scenario)
    from rich.progress import Progress

    import rackcost
    from rackcost.analysis.default_spreads import spreads_for
    from rackcost.analysis.montecarlo import cells
    from rackcost.analysis.pairs import pair_rows
    from rackcost.reporting.how_sure import how_sure

    if samples > MAX_SAMPLES:
        error(
            f"-n {samples:,} is more than the maximum of {MAX_SAMPLES:,} samples (P5 and P95 are stable to well "
            "under 1% by 100,000)"
        )
        raise typer.Exit(code=1)
    sc = load(scenario)
    if not sc.distributions and not spreads_for(sc, default_spreads):
        _nothing_uncertain(sc, samples, seed, fmt, dest)
        return
    names = [s.name for s in sc.systems]
    if pair is not None and (unknown := [n for n in pair if n not in names] or (pair[0] == pair[1] and [pair[0]])):
        error(f"--pair {escape(unknown[0])!r}: give two different systems of the scenario ({', '.join(names)})")
        raise typer.Exit(code=1)
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
                sc,
                samples,
                seed,
                progress=lambda done: bar.update(task, completed=done),
                workers=workers,
                default_spreads=default_spreads,
            )
        sentence = how_sure(result, pair)
    except ScenarioError as exc:
        _fail_naming(exc, scenario)
    except ValueError as exc:  # a system of --pair the scenario cannot serve with: left out of the run
        error(f"--pair: {escape(str(exc).removeprefix('probability_cheaper: '))}")
        raise typer.Exit(code=1) from None
    chosen = [] if pair is None else pair_rows(result.samples, result.points, [pair])
    data = {
        "scenario": sc.name,
        "samples": samples,
        "seed": seed,
        "how_sure": sentence,
        "uncertain_inputs": sorted(result.distributions),
        "default_spreads": result.default_spreads,
        "percentiles": result.percentiles,
        "probability_cheaper": result.probability_cheaper,
        "pairs": chosen or result.pairs,
        "unserved": result.unserved,
    }
    if fmt is OutputFormat.json:
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
    elif fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), result.unserved)
        console(stderr=True).print(escape(sentence), highlight=False)
        emit(csv_text(result.percentiles), dest)
    else:
        _print_table(dest, sc, result, sentence, chosen)


def _print_table(dest: Destination, sc: Scenario, result: Any, sentence: str, chosen: list[dict[str, Any]]) -> None:
    """``uncertainty``'s table output: how sure first, the inputs drawn, the percentiles, then P(cheaper)."""
    out = table_console(dest)
    out.print(f"[bold]{escape(sentence)}[/bold]", highlight=False)
    print_unserved(out, result.unserved)
    drawn = f"uncertain inputs: {escape(', '.join(result.distributions))}" if result.distributions else ""
    if result.default_spreads:
        drawn += "; " if drawn else ""
        drawn += f"{len(result.default_spreads)} inputs drawn from their default spreads (below)"
    out.print(f"{result.n:,} samples, seed {result.seed}, routing {sc.fleet.routing}; {drawn}", highlight=False)
    if result.default_spreads:
        _print_default_spreads(out, result.default_spreads, sc)
    _print_percentiles(out, result.percentiles)
    fields = [Field("system vs baseline", "name"), Field("demand point", "name"), Field("probability")]
    rows = [
        [escape(f"{r['system']} vs {r['baseline']}"), escape(r["demand_point"]), pct(r["probability_fraction"])]
        for r in result.probability_cheaper
    ]
    print_records(out, "Probability that the system costs less per accepted request than the baseline", fields, rows)
    if chosen or len(result.central) > 2:
        fields = [Field("system vs other", "name"), Field("demand point", "name"), Field("probability")]
        rows = [
            [escape(f"{r['system']} vs {r['other']}"), escape(r["demand_point"]), pct(r["probability_fraction"])]
            for r in chosen or result.pairs
        ]
        title = "Probability that the system costs less per accepted request than the other" + (
            "" if chosen else ", blended (--pair A B for each demand point)"
        )
        print_records(out, title, fields, rows)
    emit_table(out, dest)


DEFAULT_SPREAD_WHY = {
    "independent": "measured or published by a third party",
    "collaborative": "run with the vendor, not repeated",
    "vendor": "published by the seller",
    "assumption": "chosen where nothing was published (or no provenance given)",
    "interpolation": "+ the curve's leave-one-out interpolation error, 9.89% (docs/validation.md)",
    "power law": "per-curve fits' 5th-95th percentiles of the law's exponent (docs/model.md, step 7)",
    "law residual": "+ the fitted power law's held-out error about its anchor (docs/validation.md)",
}
"""What each basis of a default spread stands for, in the table's last column (docs/uncertainty.md, Default
spreads, gives each width's sources)."""


def _print_default_spreads(out: Console, rows: list[dict[str, Any]], sc: Scenario) -> None:
    """The default spreads drawn, one line per basis and shape: its inputs, P5 / P95 and why (each input's own
    citation is in ``--format json``'s ``default_spreads``)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["basis"], r["shape"]), []).append(r)
    systems, demand = [s.name for s in sc.systems], [d.name for d in sc.demand]
    table = []
    for (basis, shape), members in groups.items():
        labels = [input_label(r["input"], systems, demand) for r in members]
        shown = ", ".join(labels[:3]) + (f" and {len(labels) - 3} more" if len(labels) > 3 else "")
        why = "; ".join(text for key, text in DEFAULT_SPREAD_WHY.items() if key in basis)
        table.append([escape(basis), escape(shape), f"{len(members)}: {escape(shown)}", escape(why)])
    fields = [Field("spread from", "name"), Field("shape", "text"), Field("inputs", "text"), Field("why", "text")]
    print_records(out, "Default spreads (docs/uncertainty.md, Default spreads)", fields, table)


NOTHING_UNCERTAIN = (
    "This scenario has no distributions: nothing is uncertain, so every sample would be the same. "
    "Its figures are those of `rackcost evaluate`; give an input a distribution, or run without "
    "--no-default-spreads (each figure's default spread, docs/uncertainty.md), to see a spread."
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
