"""Commands on one evaluation of a scenario: ``rackcost evaluate | compare | validate | schema | scenarios``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rackcost.cli.common import (
    Destination,
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    TableName,
    TableOpt,
    console,
    destination,
    emit,
    emit_table,
    fail,
    load,
    print_problems,
    table_console,
)
from rackcost.display import PER_1K_REQUESTS, count, num, pct, ratio, usd_per_1k_requests
from rackcost.errors import ScenarioError
from rackcost.evaluation.columns import column
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
    force: ForceOpt = False,
    table: TableOpt = TableName.points,
) -> None:
    """Evaluate a scenario: each system at each demand point, the fleet, and the claim-vs-decision table."""
    dest = destination(output, force, scenario)
    result = _load_and_evaluate(scenario)
    _emit(result, fmt, dest, table, full=True)


def compare(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Only the claim-vs-decision table: the vendor's headline ratio beside the modelled ratios."""
    dest = destination(output, force, scenario)
    result = _load_and_evaluate(scenario)
    _emit(result, fmt, dest, TableName.comparison, full=False)


def _emit(result: Result, fmt: OutputFormat, output: Destination, table: TableName, full: bool) -> None:
    if fmt is OutputFormat.json:
        data = (
            result.to_dict()
            if full
            else {
                "comparison": result.to_dict()["comparison"],
                "unserved": result.unserved,
                "warnings": result.warnings,
            }
        )
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", output)
    elif fmt is OutputFormat.csv:
        emit(result.to_csv(table.value), output)
    else:
        out = table_console(output)
        out.print(
            f"Routing [bold]{result.routing}[/bold] (fleet.routing): {Routing(result.routing).words}",
            highlight=False,
        )
        _print_unserved(out, result)
        if full:
            _print_points(out, result)
            _print_systems(out, result)
        _print_comparison(out, result)
        _print_warnings(out, result)
        emit_table(out, output)


def _print_unserved(out: Console, result: Result) -> None:
    """Each system left out, first and marked: that it cannot be served is itself an answer (exit status 0)."""
    for u in result.unserved:
        reason = "cannot meet the SLO" if u["limit"] == "slo" else "does not fit the rack power limit"
        out.print(f"[bold red]{escape(u['system'])}: {reason}[/bold red] ({escape(u['path'])}): {escape(u['reason'])}")


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


def _point_row(name: str, fmt: Callable[[Any], str] | None = None) -> tuple[str, Callable[[dict], Any], Any, bool]:
    """A row of the per-system table for one points column: its header, value, format and whether an API has it."""
    c = column("points", name)
    return c.header, lambda r: r[name], fmt or c.format, c.fleet_only


_REJECTED, _ACTIVE = column("points", "rejected_rps"), column("points", "active_replicas")
_COST_LINES = ("capital_usd_per_hour", "fixed_opex_usd_per_hour", "energy_usd_per_hour", "rent_usd_per_hour")

# rows of the per-system table: header, value of a points row, format, and whether an API system has no such figure
_POINT_ROWS: list[tuple[str, Callable[[dict], Any], Any, bool]] = [
    _point_row("offered_rps"),
    _point_row("accepted_rps"),
    (
        f"{_REJECTED.header} (share)",
        lambda r: (r["rejected_rps"], r["rejected_fraction"]),
        lambda v: _rejected(*v),
        False,
    ),
    _point_row("in_service_concurrency"),
    _point_row("utilization_fraction"),
    _point_row("capacity_at_slo_rps"),
    _point_row("spare_capacity_fraction"),
    _point_row("tpot_ms"),
    _point_row("ttft_p99_ms", _ms),
    (
        f"{_ACTIVE.label} / provisioned [{_ACTIVE.unit}]",
        lambda r: (r["active_replicas"], r["provisioned_replicas"]),
        lambda v: _pair(*v),
        True,
    ),
    _point_row("racks"),
    _point_row("it_power_kw"),
    _point_row("facility_power_kw"),
    # an API system pays none of these cost lines: its rows would be all zeros
    *((header, value, fmt, True) for header, value, fmt, _ in map(_point_row, _COST_LINES)),
    _point_row("total_usd_per_hour"),
    _point_row("usd_per_accepted_request"),
    _point_row("usd_per_million_accepted_output_tokens"),
    _point_row("output_tokens_per_kwh"),
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
        for label, value, fmt, fleet_only in _POINT_ROWS:
            if api and fleet_only:  # an API system has no fleet: its rows would be all "-" or 0
                continue
            values = [value(r) for r in rows]
            t.add_row(escape(label), *(_NOT_APPLICABLE if v is None else fmt(v) for v in values))
        if api:
            api_cost = column("points", "api_usd_per_hour")
            t.add_row(escape(api_cost.header), *(api_cost.format(r[api_cost.name]) for r in rows))
        console.print(t)


_NOT_APPLICABLE = "-"
"""What a table shows where a figure does not apply (an API system's latency or fleet)."""


def _print_systems(console: Console, result: Result) -> None:
    t = Table(title="Fleet and SLO operating point per system", title_justify="left")
    names = (
        "system",
        "concurrency",
        "tpot_ms",
        "ttft_ms",
        "total_tokens_per_s_per_replica",
        "provisioned_replicas",
        "accelerators",
        "racks",
        "provisioned_it_kw",
        "capex_usd",
        "blended_usd_per_accepted_request",
    )
    special: dict[str, Callable[[Any], str]] = {"system": escape, "concurrency": count, "ttft_ms": _ms}
    columns = {n: (column("systems", n).header, special.get(n, column("systems", n).format)) for n in names}
    for key, (label, _) in columns.items():
        t.add_column(escape(label), justify="left" if key == "system" else "right")
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
    for warning in result.warnings[len(result.unserved) :]:  # the unserved systems' come first, already printed
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)


def validate(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario YAML files to check.")],
) -> None:
    """Check scenario files; print every problem with its file, YAML path and line. Exit 1 if any fails."""
    failed = False
    out = console()
    for path in scenarios:
        try:
            loaded = load_scenario(path)
        except ScenarioError as exc:
            failed = True
            print_problems(exc)
        else:
            out.print(f"[green]ok[/green] {escape(str(path))}", highlight=False)
            from rackcost.scenario.feasibility import unserved_systems

            for u in unserved_systems(loaded):  # a finding, not an input error: evaluate leaves the system out
                out.print(f"[yellow]note:[/yellow] {escape(u.path)}: {escape(u.reason)}", highlight=False)
    if failed:
        raise typer.Exit(code=1)


def schema(
    output: OutputOpt = None,
    force: ForceOpt = False,
    sweep: Annotated[bool, typer.Option("--sweep", help="The schema of sweep files instead.")] = False,
) -> None:
    """Print the JSON Schema of scenario files, or of sweep files (for editors that validate and complete YAML)."""
    dest = destination(output, force)
    if sweep:
        from rackcost.analysis.sweep.spec import sweep_json_schema

        emit(json.dumps(sweep_json_schema(), indent=2) + "\n", dest)
        return
    from rackcost.scenario.schema import Scenario

    emit(json.dumps(Scenario.model_json_schema(by_alias=True), indent=2) + "\n", dest)


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
