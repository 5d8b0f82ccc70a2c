"""Commands on one evaluation of a scenario: ``rackcost evaluate | compare | validate | schema | scenarios``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rackcost.cli.common import (
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    TableName,
    TableOpt,
    console,
    emit,
    emit_table,
    fail,
    load,
    print_problems,
    table_console,
)
from rackcost.display import PER_1K_ACCEPTED, PER_1K_REQUESTS, count, money, num, pct, ratio, usd_per_1k_requests
from rackcost.errors import ScenarioError
from rackcost.evaluation.compare import headline_sentences
from rackcost.model.strategies import Routing
from rackcost.scenario.loading import DEFAULT_SCENARIO, SAFE_LOADER, bundled_scenarios, load_scenario

if TYPE_CHECKING:
    from rackcost.evaluation.results import Result

__all__ = ["COMMANDS", "compare", "evaluate", "scenarios", "schema", "validate"]


def _load_and_evaluate(scenario: Path | None) -> Result:
    from rackcost.evaluation.chain import evaluate

    sc = load(scenario)
    try:
        return evaluate(sc)
    except ScenarioError as exc:
        fail(exc)


def evaluate(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    table: TableOpt = TableName.points,
) -> None:
    """Evaluate a scenario: each system at each demand point, the fleet, and the claim-vs-decision table."""
    result = _load_and_evaluate(scenario)
    _emit(result, fmt, output, table, full=True)


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
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", output)
    elif fmt is OutputFormat.csv:
        emit(result.to_csv(table.value), output)
    else:
        out = table_console(output)
        out.print(
            f"Routing [bold]{result.routing}[/bold] (fleet.routing): {Routing(result.routing).words}",
            highlight=False,
        )
        if full:
            _print_points(out, result)
            _print_systems(out, result)
        _print_comparison(out, result)
        _print_warnings(out, result)
        emit_table(out, output)


def _ms(x: float) -> str:
    """Milliseconds: whole ones with separators below a million, else as :func:`num`."""
    return f"{x:,.0f}" if abs(x) < 1e6 else num(x)


def _pair(active: float, provisioned: float) -> str:
    return f"{count(active)} / {count(provisioned)}"


def _rejected(rps: float, share: float) -> str:
    if rps == 0:
        return "0"
    small = rps < 1e-3
    return f"{'<0.001' if small else num(rps)} ({'<0.01%' if share < 1e-4 else pct(share)})"


# rows of the per-system table: label, points column (or a function of the row), formatter
_POINT_ROWS: list[tuple[str, object, object]] = [
    ("offered rps", "offered_rps", num),
    ("accepted rps (within SLO)", "accepted_rps", num),
    ("rejected rps (share)", lambda r: (r["rejected_rps"], r["rejected_fraction"]), lambda v: _rejected(*v)),
    ("requests in service per replica", "in_service_concurrency", num),
    ("slot utilisation", "utilization_fraction", pct),
    ("capacity at SLO rps", "capacity_at_slo_rps", num),
    ("spare capacity", "spare_capacity_fraction", pct),
    ("TPOT ms at this load", "tpot_ms", num),
    ("TTFT p99 with queueing ms", "ttft_p99_ms", lambda x: _ms(x)),
    ("active / provisioned replicas", lambda r: (r["active_replicas"], r["provisioned_replicas"]), lambda v: _pair(*v)),
    ("racks", "racks", count),
    ("IT power kW", "it_power_kw", num),
    ("wall (facility) power kW", "facility_power_kw", num),
    ("capital $/h", "capital_usd_per_hour", money),
    ("fixed opex $/h", "fixed_opex_usd_per_hour", money),
    ("energy $/h", "energy_usd_per_hour", money),
    ("rent $/h", "rent_usd_per_hour", money),
    ("total $/h", "total_usd_per_hour", money),
    (PER_1K_ACCEPTED, "usd_per_accepted_request", usd_per_1k_requests),
    ("$ per million accepted output tokens", "usd_per_million_accepted_output_tokens", money),
    ("accepted output tokens per kWh", "output_tokens_per_kwh", num),
]


def _print_points(console: Console, result: Result) -> None:
    systems: dict[str, list[dict]] = {}
    for row in result.records["points"]:
        systems.setdefault(row["system"], []).append(row)
    for system, rows in systems.items():
        t = Table(
            title=f"{escape(system)}  ({rows[0]['provenance']}, routing {rows[0]['routing']})", title_justify="left"
        )
        t.add_column("")
        for r in rows:
            flag = "\n[red]overloaded[/red]" if r["status"] != "ok" else ""
            t.add_column(f"{escape(r['demand_point'])} ({r['hours_per_day']:g} h/day){flag}", justify="right")
        api = rows[0]["routing"] == "api"
        for label, column, fmt in _POINT_ROWS:
            if api and label in _NOT_FOR_API:  # an API system has no fleet: its rows would be all "-" or 0
                continue
            values = [column(r) if callable(column) else r[column] for r in rows]
            t.add_row(label, *(_NOT_APPLICABLE if v is None else fmt(v) for v in values))
        if api:
            t.add_row("API $/h", *(money(r["api_usd_per_hour"]) for r in rows))
        console.print(t)


_NOT_APPLICABLE = "-"
"""What a table shows where a figure does not apply (an API system's latency or fleet)."""
_NOT_FOR_API = {
    "requests in service per replica",
    "slot utilisation",
    "spare capacity",
    "TPOT ms at this load",
    "TTFT p99 with queueing ms",
    "active / provisioned replicas",
    "racks",
    "IT power kW",
    "wall (facility) power kW",
    "capital $/h",
    "fixed opex $/h",
    "energy $/h",
    "rent $/h",
    "accepted output tokens per kWh",
}


def _print_systems(console: Console, result: Result) -> None:
    t = Table(title="Fleet and SLO operating point per system", title_justify="left")
    columns = {
        "system": ("system", escape),
        "concurrency": ("concurrency", count),
        "tpot_ms": ("TPOT ms", num),
        "ttft_ms": ("TTFT ms", _ms),
        "total_tokens_per_s_per_replica": ("tokens/s per replica", num),
        "provisioned_replicas": ("replicas", count),
        "accelerators": ("accelerators", count),
        "racks": ("racks", count),
        "provisioned_it_kw": ("provisioned kW", num),
        "capex_usd": ("capex", money),
        "blended_usd_per_accepted_request": (f"blended {PER_1K_ACCEPTED}", usd_per_1k_requests),
    }
    for label, _ in columns.values():
        t.add_column(label, justify="left" if label == "system" else "right")
    for row in result.records["systems"]:
        t.add_row(*(_NOT_APPLICABLE if row[key] is None else fmt(row[key]) for key, (_, fmt) in columns.items()))
    console.print(t)


def _print_comparison(console: Console, result: Result) -> None:
    rows = result.records["comparison"]
    if not rows:
        console.print("[dim]One system only: no claim-vs-decision comparison.[/dim]")
        return
    t = Table(title="Claim vs decision (advantage > 1: the system beats the baseline)", title_justify="left")
    for col in ("system vs baseline", "metric", "unit", "system", "baseline", "advantage"):
        t.add_column(col, justify="left" if col in ("system vs baseline", "metric", "unit") else "right")
    for r in rows:
        per_request = r["unit"] == "USD/request"
        fmt = usd_per_1k_requests if per_request else num
        t.add_row(
            escape(f"{r['system']} vs {r['baseline']}"),
            escape(r["metric"])
            + {"claim": " [dim](vendor headline)[/dim]", "derived": " [dim](derived headline)[/dim]"}.get(
                r["kind"], ""
            ),
            PER_1K_REQUESTS if per_request else escape(r["unit"]),
            fmt(r["system_value"]),
            fmt(r["baseline_value"]),
            ratio(r["advantage_ratio"]),
        )
    console.print(t)
    for sentence in headline_sentences(rows):
        console.print(escape(sentence), highlight=False)


def _print_warnings(console: Console, result: Result) -> None:
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)


def validate(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario YAML files to check.")],
) -> None:
    """Check scenario files; print every problem with its file, YAML path and line. Exit 1 if any fails."""
    failed = False
    out = console()
    for path in scenarios:
        try:
            load_scenario(path)
        except ScenarioError as exc:
            failed = True
            print_problems(exc)
        else:
            out.print(f"[green]ok[/green] {escape(str(path))}", highlight=False)
    if failed:
        raise typer.Exit(code=1)


def schema(
    output: OutputOpt = None,
    sweep: Annotated[bool, typer.Option("--sweep", help="The schema of sweep files instead.")] = False,
) -> None:
    """Print the JSON Schema of scenario files, or of sweep files (for editors that validate and complete YAML)."""
    if sweep:
        from rackcost.analysis.sweep.spec import sweep_json_schema

        emit(json.dumps(sweep_json_schema(), indent=2) + "\n", output)
        return
    from rackcost.scenario.schema import Scenario

    emit(json.dumps(Scenario.model_json_schema(by_alias=True), indent=2) + "\n", output)


def scenarios() -> None:
    """List the bundled scenario and sweep files."""
    t = Table(title="Bundled scenarios", title_justify="left")
    t.add_column("file")
    t.add_column("name")
    for path in bundled_scenarios():
        name = _name_of(path)
        default = " (default)" if path.name == DEFAULT_SCENARIO else ""
        t.add_row(escape(path.name + default), escape(name))
    out = console()
    out.print(t)
    out.print(f"folder: {bundled_scenarios()[0].parent}" if bundled_scenarios() else "no bundled scenarios")
    from rackcost.analysis.sweep.spec import bundled_sweeps

    t = Table(title="Bundled sweeps (rackcost sweep NAME)", title_justify="left")
    t.add_column("file")
    t.add_column("name")
    for path in bundled_sweeps():
        t.add_row(escape(path.name), escape(_name_of(path)))
    out.print(t)
    out.print(f"folder: {bundled_sweeps()[0].parent}" if bundled_sweeps() else "no bundled sweeps")


def _name_of(path: Path) -> str:
    """The ``name:`` of a bundled YAML file, or why it cannot be read."""
    import yaml

    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506 - safe loader
        return str(data.get("name", "")) if isinstance(data, dict) else "(not a mapping)"
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return f"(unreadable: {type(exc).__name__}; run rackcost validate on it)"


COMMANDS = (evaluate, compare, validate, schema, scenarios)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
