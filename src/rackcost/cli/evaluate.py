"""Command-line face: ``rackcost evaluate | compare | validate | schema | scenarios``.

User mistakes (a bad scenario, a missing file) end with exit code 1 and one line per problem on stderr, never a
traceback.
"""

from __future__ import annotations

import io
import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rackcost.cli_import import import_app
from rackcost.cli_uncertainty import register as register_uncertainty
from rackcost.compare import headline_sentences
from rackcost.display import money as _money
from rackcost.display import num as _num
from rackcost.display import pct as _pct
from rackcost.errors import ScenarioError
from rackcost.launch import run_app
from rackcost.loading import (
    DEFAULT_SCENARIO,
    SAFE_LOADER,
    bundled_scenario_path,
    bundled_scenarios,
    load_scenario,
)

if TYPE_CHECKING:
    from rackcost.results import Result

app = typer.Typer(
    name="rackcost",
    help="What an inference system really costs per accepted request, at quiet, normal and peak demand.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


class TableName(StrEnum):
    points = "points"
    systems = "systems"
    comparison = "comparison"


def _console(stderr: bool = False) -> Console:
    # a wide console when not on a terminal, so that piped tables are not squashed to 80 columns
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, width=None if probe.is_terminal else 200)


def _fail(exc: ScenarioError) -> None:
    err = _console(stderr=True)
    for problem in exc.problems:
        err.print(f"[red]error:[/red] {escape(str(problem))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=1)


def _load_and_evaluate(scenario: Path | None) -> Result:
    from rackcost.chain import evaluate

    path = scenario if scenario is not None else bundled_scenario_path(DEFAULT_SCENARIO)
    try:
        return evaluate(load_scenario(path))
    except ScenarioError as exc:
        _fail(exc)
        raise  # unreachable: _fail exits


ScenarioArg = Annotated[
    Path | None,
    typer.Argument(help="Scenario YAML file, or the name of a bundled scenario. Default: the bundled default."),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="table (Rich), json or csv.")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")]
TableOpt = Annotated[TableName, typer.Option("--table", help="Which table --format csv writes.")]


@app.command()
def evaluate(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    table: TableOpt = TableName.points,
) -> None:
    """Evaluate a scenario: each system at each demand point, the fleet, and the claim-vs-decision table."""
    result = _load_and_evaluate(scenario)
    _emit(result, fmt, output, table, full=True)


@app.command()
def compare(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
) -> None:
    """Only the claim-vs-decision table: the vendor's headline ratio beside the modelled ratios."""
    result = _load_and_evaluate(scenario)
    _emit(result, fmt, output, TableName.comparison, full=False)


def _emit(result: Result, fmt: OutputFormat, output: Path | None, table: TableName, full: bool) -> None:
    if fmt is OutputFormat.json:
        data = result.to_dict() if full else {"comparison": result.to_dict()["comparison"], "warnings": result.warnings}
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    elif fmt is OutputFormat.csv:
        text = result.to_csv(table.value)
    else:
        console = Console(file=io.StringIO(), width=200, force_terminal=False) if output else _console()
        if full:
            _print_points(console, result)
            _print_systems(console, result)
        _print_comparison(console, result)
        _print_warnings(console, result)
        if output is None:
            return
        text = console.file.getvalue()
    if output is None:
        sys.stdout.write(text)
    else:
        _write(output, text)


def _write(output: Path, text: str) -> None:
    """Write a result file, or exit 1 with a one-line error (no traceback) when it cannot be written."""
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        _console(stderr=True).print(f"[red]error:[/red] {escape(str(output))}: cannot write: {escape(reason)}")
        raise typer.Exit(code=1) from None
    _console(stderr=True).print(f"wrote {escape(str(output))}", highlight=False)


def _rejected(rps: float, share: float) -> str:
    if rps == 0:
        return "0"
    small = rps < 1e-3
    return f"{'<0.001' if small else _num(rps)} ({'<0.01%' if share < 1e-4 else _pct(share)})"


# rows of the per-system table: label, points column (or a function of the row), formatter
_POINT_ROWS: list[tuple[str, object, object]] = [
    ("offered rps", "offered_rps", _num),
    ("accepted rps (within SLO)", "accepted_rps", _num),
    ("rejected rps (share)", lambda r: (r["rejected_rps"], r["rejected_fraction"]), lambda v: _rejected(*v)),
    ("slot utilisation", "utilization_fraction", _pct),
    ("capacity at SLO rps", "capacity_at_slo_rps", _num),
    ("spare capacity", "spare_capacity_fraction", _pct),
    ("TTFT p99 with queueing ms", "ttft_p99_ms", lambda x: f"{x:,.0f}"),
    ("active / provisioned replicas", lambda r: f"{r['active_replicas']} / {r['provisioned_replicas']}", str),
    ("racks", "racks", str),
    ("IT power kW", "it_power_kw", _num),
    ("wall (facility) power kW", "facility_power_kw", _num),
    ("capital $/h", "capital_usd_per_hour", _money),
    ("fixed opex $/h", "fixed_opex_usd_per_hour", _money),
    ("energy $/h", "energy_usd_per_hour", _money),
    ("total $/h", "total_usd_per_hour", _money),
    ("$ per accepted request", "usd_per_accepted_request", _money),
    ("$ per million accepted output tokens", "usd_per_million_accepted_output_tokens", _money),
    ("accepted output tokens per kWh", "output_tokens_per_kwh", _num),
]


def _print_points(console: Console, result: Result) -> None:
    systems: dict[str, list[dict]] = {}
    for row in result.records["points"]:
        systems.setdefault(row["system"], []).append(row)
    for system, rows in systems.items():
        t = Table(title=f"{escape(system)}  ({rows[0]['provenance']})", title_justify="left")
        t.add_column("")
        for r in rows:
            flag = "\n[red]overloaded[/red]" if r["status"] != "ok" else ""
            t.add_column(f"{escape(r['demand_point'])} ({r['hours_per_day']:g} h/day){flag}", justify="right")
        for label, column, fmt in _POINT_ROWS:
            values = [column(r) if callable(column) else r[column] for r in rows]
            t.add_row(label, *(fmt(v) for v in values))
        console.print(t)


def _print_systems(console: Console, result: Result) -> None:
    t = Table(title="Fleet and SLO operating point per system", title_justify="left")
    columns = {
        "system": ("system", escape),
        "concurrency": ("concurrency", lambda x: f"{x:.4g}"),
        "tpot_ms": ("TPOT ms", lambda x: f"{x:.3g}"),
        "ttft_ms": ("TTFT ms", lambda x: f"{x:,.0f}"),
        "total_tokens_per_s_per_replica": ("tokens/s per replica", _num),
        "provisioned_replicas": ("replicas", str),
        "accelerators": ("accelerators", str),
        "racks": ("racks", str),
        "provisioned_it_kw": ("provisioned kW", _num),
        "capex_usd": ("capex", lambda x: "$" + _num(x)),
        "blended_usd_per_accepted_request": ("blended $/accepted request", _money),
    }
    for label, _ in columns.values():
        t.add_column(label, justify="left" if label == "system" else "right")
    for row in result.records["systems"]:
        t.add_row(*(fmt(row[key]) for key, (_, fmt) in columns.items()))
    console.print(t)


def _print_comparison(console: Console, result: Result) -> None:
    rows = result.records["comparison"]
    if not rows:
        console.print("[dim]One system only: no claim-vs-decision comparison.[/dim]")
        return
    t = Table(title="Claim vs decision (advantage > 1: the system beats the baseline)", title_justify="left")
    for col in ("system vs baseline", "metric", "system", "baseline", "advantage"):
        t.add_column(col, justify="left" if col in ("system vs baseline", "metric") else "right")
    for r in rows:
        fmt = _money if r["unit"] == "USD/request" else _num
        t.add_row(
            escape(f"{r['system']} vs {r['baseline']}"),
            escape(r["metric"])
            + {"claim": " [dim](vendor headline)[/dim]", "derived": " [dim](derived headline)[/dim]"}.get(
                r["kind"], ""
            ),
            fmt(r["system_value"]),
            fmt(r["baseline_value"]),
            f"{r['advantage_ratio']:.2f}x",
        )
    console.print(t)
    for sentence in headline_sentences(rows):
        console.print(escape(sentence), highlight=False)


def _print_warnings(console: Console, result: Result) -> None:
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)


@app.command()
def validate(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario YAML files to check.")],
) -> None:
    """Check scenario files; print every problem with its file, YAML path and line. Exit 1 if any fails."""
    failed = False
    out = _console()
    for path in scenarios:
        try:
            load_scenario(path)
        except ScenarioError as exc:
            failed = True
            err = _console(stderr=True)
            for problem in exc.problems:
                err.print(f"[red]error:[/red] {escape(str(problem))}", highlight=False, soft_wrap=True)
        else:
            out.print(f"[green]ok[/green] {escape(str(path))}", highlight=False)
    if failed:
        raise typer.Exit(code=1)


@app.command()
def schema(
    output: OutputOpt = None,
) -> None:
    """Print the JSON Schema of scenario files (for editors that validate and complete YAML)."""
    from rackcost.schema import Scenario

    text = json.dumps(Scenario.model_json_schema(by_alias=True), indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        _write(output, text)


@app.command()
def scenarios() -> None:
    """List the bundled scenario files."""
    import yaml

    t = Table(title="Bundled scenarios", title_justify="left")
    t.add_column("file")
    t.add_column("name")
    for path in bundled_scenarios():
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506 - safe loader
            name = str(data.get("name", "")) if isinstance(data, dict) else "(not a scenario mapping)"
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            name = f"(unreadable: {type(exc).__name__}; run rackcost validate on it)"
        default = " (default)" if path.name == DEFAULT_SCENARIO else ""
        t.add_row(escape(path.name + default), escape(name))
    _console().print(t)
    _console().print(f"folder: {bundled_scenarios()[0].parent}" if bundled_scenarios() else "no bundled scenarios")


app.add_typer(import_app, name="import")
register_uncertainty(app)


app.command("app")(run_app)


def main() -> None:
    """Entry point of the ``rackcost`` command.

    Ends the process with ``os._exit`` once the output is flushed: tearing down numpy, scipy and pydantic at
    interpreter exit costs about 0.2 s on a small machine and does nothing a finished command needs (results are
    written and closed before this point).
    """
    code: int = 0
    try:
        app()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
