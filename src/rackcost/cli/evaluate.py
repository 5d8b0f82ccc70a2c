"""Commands on one evaluation of a scenario: ``rackcost evaluate | compare | validate | schema | scenarios``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

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
    TableName,
    TableOpt,
    console,
    destination,
    emit,
    emit_table,
    error,
    fail,
    load,
    print_problems,
    table_console,
)
from rackcost.cli.layout import NOT_APPLICABLE, Field, header_and_format, print_grid, print_records
from rackcost.cli.unserved import print_unserved
from rackcost.display import (
    PER_1K_ACCEPTED,
    PER_1K_REQUESTS,
    count,
    num,
    pct,
    ratio,
    usd_per_1k_requests,
    whole,
)
from rackcost.errors import ScenarioError
from rackcost.evaluation.columns import FLEET_SUMMARY, column
from rackcost.evaluation.compare import headline_sentences
from rackcost.model.queues.routers import router_of
from rackcost.scenario.loading import (
    DEFAULT_SCENARIO,
    SAFE_LOADER,
    bundled_files,
    bundled_scenarios,
    is_models_document_refusal,
    load_scenario,
)

if TYPE_CHECKING:
    from rackcost.evaluation.chain import Evaluation
    from rackcost.evaluation.results import Result

__all__ = ["COMMANDS", "compare", "evaluate", "scenarios", "schema", "validate"]


def _load_and_evaluate(scenario: Path | None) -> Result:
    return _load_and_evaluation(scenario).result


def _load_and_evaluation(scenario: Path | None) -> Evaluation:
    """The scenario's one evaluation (:func:`rackcost.evaluation.chain.evaluation`), its tables built."""
    from rackcost.evaluation.chain import evaluation

    sc = load(scenario)
    try:
        found = evaluation(sc)
        found.result  # noqa: B018 - the tables, built here so that their errors are the command's
        return found
    except ScenarioError as exc:
        fail(exc)


def _decision(evaluated: Evaluation) -> list[str]:
    """The lines ``evaluate`` leads with: the scenario's name, then the decision every face leads with
    (:func:`rackcost.reporting.decision.decision`): the buying plan's for a scenario with a ``plan`` block (found
    here, seconds to tens of seconds; the systems alone, the tables' subject, labelled as such after it), else the
    cheapest system's."""
    from rackcost.reporting.decision import answer_sentence, decision

    decided = decision(evaluated)
    lines = [f"[bold]{escape(evaluated.given.name)}[/bold]", f"[bold]{escape(decided.sentence)}[/bold]"]
    if evaluated.given.plan is not None:
        alone = answer_sentence(evaluated.result.records["systems"])
        lines.append(f"Each system alone, without the plan (the tables below): {escape(alone[:1].lower() + alone[1:])}")
    return lines


def evaluate(
    scenario: ScenarioArg = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
    table: TableOpt = TableName.points,
) -> None:
    """Evaluate a scenario: each system at each demand point, the fleet, and the claim-vs-decision table."""
    dest = destination(output, force, scenario)
    evaluated = _load_and_evaluation(scenario)
    result = evaluated.result
    if fmt is OutputFormat.csv and table is TableName.classes and "classes" not in result.records:
        from rackcost.evaluation.results import NO_CLASSES

        error(f"--table classes: {NO_CLASSES}")
        raise typer.Exit(code=1)
    if fmt is OutputFormat.csv and table in (TableName.years, TableName.horizon) and table not in result.records:
        from rackcost.evaluation.results import NO_PROFILE

        error(f"--table {table}: {NO_PROFILE}")
        raise typer.Exit(code=1)
    lead = _decision(evaluated) if fmt is OutputFormat.table else None  # JSON and CSV are the tables alone
    _emit(result, fmt, dest, table, full=True, lead=lead)


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


def _emit(
    result: Result,
    fmt: OutputFormat,
    output: Destination,
    table: TableName,
    full: bool,
    lead: list[str] | None = None,
) -> None:
    """Write the result in the format asked; the table format prints the lines of ``lead`` first (the scenario and
    its decision: :func:`_decision`), then a line on the routing model."""
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
        for line in lead or ():
            out.print(line, highlight=False)
        out.print(
            f"[dim]Routing {result.routing} (fleet.routing): {router_of(result.routing).words}.[/dim]", highlight=False
        )
        _print_unserved(out, result)
        if full:
            _print_points(out, result)
            _print_classes(out, result)
            _print_systems(out, result)
            _print_pools(out, result)
            _print_years(out, result)
        _print_comparison(out, result)
        _print_warnings(out, result)
        emit_table(out, output)


def _print_unserved(out: Console, result: Result) -> None:
    """Each system left out, first and marked (:func:`rackcost.cli.unserved.print_unserved`)."""
    print_unserved(out, result.unserved)


def _ms(x: float) -> str:
    """Milliseconds, as every face shows them (:func:`rackcost.display.whole`)."""
    return whole(x)


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
    header, fmt = header_and_format(c, fmt)
    return header, lambda r: r[name], fmt, c.fleet_only


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
    _point_row("carbon_g_per_accepted_request"),
]


def _value_of(name: str) -> Callable[[dict], Any]:
    """The value of a points column in a row."""
    return lambda r: r[name]


def _print_points(console: Console, result: Result) -> None:
    systems: dict[str, list[dict]] = {}
    for row in result.records["points"]:
        systems.setdefault(row["system"], []).append(row)
    for system, rows in systems.items():
        title = f"{escape(system)}  ({rows[0]['provenance']}, routing {rows[0]['routing']})"
        api = rows[0]["routing"] == "api"
        kept = [(label, value, fmt) for label, value, fmt, fleet_only in _POINT_ROWS if not (api and fleet_only)]
        if api:  # an API system has no fleet: its rows would be all "-" or 0; it pays per token instead
            api_cost = column("points", "api_usd_per_hour")
            kept.append((api_cost.header, _value_of(api_cost.name), api_cost.format))
        labels = [escape(label) for label, _, _ in kept]
        columns = []
        for r in rows:
            flag = "\n[red]overloaded[/red]" if r["status"] != "ok" else ""
            header = f"{escape(r['demand_point'])} ({r['hours_per_day']:g} h/day){flag}"
            cells = [_NOT_APPLICABLE if value(r) is None else fmt(value(r)) for _, value, fmt in kept]
            columns.append((header, cells))
        print_grid(console, title, labels, columns)


_NOT_APPLICABLE = NOT_APPLICABLE
_SYSTEM_COLUMNS = ("system", *FLEET_SUMMARY)
_CLASS_ROWS = (
    (
        "accepted",
        "% of offered",
        lambda r: pct(r["accepted_rps"] / r["offered_rps"]) if r["offered_rps"] else _NOT_APPLICABLE,  # share 0
    ),
    (
        "cost",
        PER_1K_ACCEPTED,
        lambda r: (
            _NOT_APPLICABLE
            if r["usd_per_accepted_request"] is None
            else usd_per_1k_requests(r["usd_per_accepted_request"])
        ),
    ),
    ("p99 TTFT", "ms", lambda r: _NOT_APPLICABLE if r["ttft_p99_ms"] is None else _ms(r["ttft_p99_ms"])),
)


def _print_classes(console: Console, result: Result) -> None:
    """Per system, each request class at each demand point (a scenario of more than one class): its accepted share,
    its cost per accepted request and its p99 TTFT; every column in ``--format json`` and ``--table classes``."""
    rows = result.records.get("classes", [])
    classes = list(dict.fromkeys(r["class"] for r in rows))
    if len(classes) < 2:
        return
    by_system: dict[str, list[dict]] = {}
    for r in rows:
        by_system.setdefault(r["system"], []).append(r)
    for system, mine in by_system.items():
        points = list(dict.fromkeys(r["demand_point"] for r in mine))
        cell = {(r["class"], r["demand_point"]): r for r in mine}
        api = all(r["ttft_p99_ms"] is None for r in mine)
        kept = [row for row in _CLASS_ROWS if not (api and row[0] == "p99 TTFT")]
        labels = [f"{escape(c)}: {what} [dim]\\[{escape(unit)}][/dim]" for c in classes for what, unit, _ in kept]
        columns = [(escape(p), [value(cell[(c, p)]) for c in classes for _, _, value in kept]) for p in points]
        print_grid(console, f"Request classes: {escape(system)}", labels, columns, corner="class: figure [unit]")


def _print_systems(console: Console, result: Result) -> None:
    special: dict[str, Callable[[Any], str]] = {"system": escape, "concurrency": count, "ttft_ms": _ms}
    columns = [header_and_format(column("systems", n), special.get(n)) for n in _SYSTEM_COLUMNS]
    fields = [
        Field(escape(header), "name" if n == "system" else "number")
        for n, (header, _) in zip(_SYSTEM_COLUMNS, columns, strict=True)
    ]
    rows = [
        [
            _NOT_APPLICABLE if row[n] is None else fmt(row[n])
            for n, (_, fmt) in zip(_SYSTEM_COLUMNS, columns, strict=True)
        ]
        for row in result.records["systems"]
    ]
    print_records(console, "Fleet and SLO operating point per system", fields, rows)


_POOL_ROWS = (
    "provisioned_replicas",
    "accelerators",
    "racks",
    "active_replicas",
    "utilization_fraction",
    "met_fraction",
    "it_power_kw",
    "total_usd_per_hour",
    "usd_per_accepted_request",
    "cost_share_fraction",
)


def _print_pools(console: Console, result: Result) -> None:
    """Each disaggregated system's pools at each demand point (the ``pools`` table), where there are any."""
    by_system: dict[str, list[dict]] = {}
    for row in result.records.get("pools", []):
        by_system.setdefault(row["system"], []).append(row)
    kept = [header_and_format(column("pools", n)) for n in _POOL_ROWS]
    labels = [escape(header) for header, _ in kept]
    for system, rows in by_system.items():
        columns = [
            (
                f"{r['pool']} at {escape(r['demand_point'])}",
                [_NOT_APPLICABLE if r[n] is None else fmt(r[n]) for n, (_, fmt) in zip(_POOL_ROWS, kept, strict=True)],
            )
            for r in rows
        ]
        print_grid(console, f"{escape(system)}: prefill and decode pools", labels, columns)


def _print_years(console: Console, result: Result) -> None:
    """With ``demand`` as a profile: each system's cost per accepted request per year and over the horizon."""
    if "years" not in result.records:
        return
    horizon = {r["system"]: r for r in result.records["horizon"]}
    years = sorted({r["year"] for r in result.records["years"]})
    labels = [*(f"year {y}" for y in years), "horizon", "levelised (present value)"]
    columns = []
    for system, row in horizon.items():
        per_year = {r["year"]: r for r in result.records["years"] if r["system"] == system}
        cells = [usd_per_1k_requests(per_year[y]["usd_per_accepted_request"]) for y in years]
        cells += [
            usd_per_1k_requests(row["usd_per_accepted_request"]),
            usd_per_1k_requests(row["levelised_usd_per_accepted_request"]),
        ]
        columns.append((escape(system), cells))
    title = "Cost per 1,000 accepted requests over the horizon (every hour; the fleet sized for the busiest)"
    print_grid(console, title, labels, columns)


_KIND_TAGS = {"claim": " [dim](vendor headline)[/dim]", "derived": " [dim](derived headline)[/dim]"}


def _print_comparison(console: Console, result: Result) -> None:
    rows = result.records["comparison"]
    if not rows:
        console.print("[dim]One system only: no claim-vs-decision comparison.[/dim]")
        return
    pairs: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        pairs.setdefault((r["system"], r["baseline"]), []).append(r)
    for (system, baseline), metrics in pairs.items():
        labels, mine, theirs, advantage = [], [], [], []
        for r in metrics:
            per_request = r["unit"] == "USD/request"
            fmt = usd_per_1k_requests if per_request else num
            unit = PER_1K_REQUESTS if per_request else r["unit"]
            labels.append(f"{escape(r['metric'])}{_KIND_TAGS.get(r['kind'], '')} [dim]\\[{escape(unit)}][/dim]")
            mine.append(fmt(r["system_value"]))
            theirs.append(fmt(r["baseline_value"]))
            advantage.append(ratio(r["advantage_ratio"]))
        title = (
            f"Claim vs decision: {escape(system)} vs {escape(baseline)} "
            f"(advantage > 1: {escape(system)} beats {escape(baseline)})"
        )
        columns = [(escape(system), mine), (escape(baseline), theirs), ("advantage", advantage)]
        print_grid(console, title, labels, columns, corner="metric [unit]")
    for sentence in headline_sentences(rows):
        console.print(escape(sentence), highlight=False)


def _print_warnings(console: Console, result: Result) -> None:
    for warning in result.warnings[len(result.unserved) :]:  # the unserved systems' come first, already printed
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)


def validate(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario YAML files (or models documents) to check.")],
) -> None:
    """Check scenario files and models documents; print every problem with its file, YAML path and line. Exit 1 if
    any fails."""
    failed = False
    out = console()
    for path in scenarios:
        try:
            notes = _checked(path)
        except ScenarioError as exc:
            failed = True
            print_problems(exc)
        else:
            out.print(f"[green]ok[/green] {escape(str(path))}", highlight=False)
            for note in notes:  # a finding, not an input error: evaluate leaves the system out
                out.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)
    if failed:
        raise typer.Exit(code=1)


def _checked(path: Path) -> list[str]:
    """Load a scenario, or a models document (each model's scenario checked by the scenario's rules), and the notes
    on what evaluating it would leave out: systems it cannot serve with, system types no model names.

    Raises
    ------
    ScenarioError
        Every problem of the file, at its YAML path and line.
    """
    from rackcost.scenario.feasibility import unserved_systems

    try:
        return [f"{u.path}: {u.reason}" for u in unserved_systems(load_scenario(path))]
    except ScenarioError as exc:
        if not is_models_document_refusal(exc):
            raise
    from rackcost.scenario.models_doc import load_models, path_in_document, unnamed_systems

    doc, models = load_models(path)
    notes = [
        f"{path_in_document(doc, m, u.path)}: {m.name}: {u.reason}"
        for m in models
        for u in unserved_systems(m.scenario)
    ]
    return notes + unnamed_systems(doc, models)


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
    """List the bundled scenario, sweep and models files."""
    out = console()
    rows = [
        [escape(path.name + (" (default)" if path.name == DEFAULT_SCENARIO else "")), escape(_name_of(path))]
        for path in bundled_scenarios()
    ]
    fields = [Field("file", "name"), Field("name", "text")]  # a file's name is typed: never cut or wrapped
    print_records(out, "Bundled scenarios", fields, rows)
    out.print(f"folder: {bundled_scenarios()[0].parent}" if bundled_scenarios() else "no bundled scenarios")
    from rackcost.analysis.sweep.spec import bundled_sweeps

    rows = [[escape(path.name), escape(_name_of(path))] for path in bundled_sweeps()]
    print_records(out, "Bundled sweeps (rackcost sweep NAME)", fields, rows)
    out.print(f"folder: {bundled_sweeps()[0].parent}" if bundled_sweeps() else "no bundled sweeps")
    from rackcost.scenario.models_doc import BUNDLED_KIND

    documents = bundled_files(BUNDLED_KIND)
    rows = [[escape(path.name), escape(_name_of(path))] for path in documents]
    print_records(out, "Bundled models documents (rackcost models NAME)", fields, rows)
    out.print(f"folder: {documents[0].parent}" if documents else "no bundled models documents")


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
