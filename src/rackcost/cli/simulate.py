"""``rackcost simulate``: the fleet simulator as referee, analytic beside simulated (:func:`rackcost.simulate`)."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

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
from rackcost.cli.layout import Field, print_records
from rackcost.cli.unserved import print_unserved, quiet_unserved, served_scenario
from rackcost.display import num, pct
from rackcost.errors import ScenarioError
from rackcost.files import csv_text
from rackcost.model.queues.routers import router_names, router_of

__all__ = ["COMMANDS", "simulate"]

PROGRESS_FROM_REQUESTS = 100_000
"""Requests from which a progress bar is shown on stderr [-]."""


def _router_name(value: str) -> str:
    """``--routing``'s value checked against the routers registered when the command runs (the built-in ones and any a
    program added with :func:`rackcost.model.queues.routers.register`), so the option is never a fixed list."""
    try:
        return router_of(value).name
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a registered router: one of {', '.join(router_names())}") from None


class Service(StrEnum):
    load_dependent = "load_dependent"
    fixed = "fixed"


class TraceLengths(StrEnum):
    relative = "relative"
    own = "own"
    none = "none"


TRACE_LENGTH_WORDS = {
    "relative": "each request's lengths over the trace's mean, times the workload's",
    "own": "each request's own lengths",
    "none": "arrival times only, lengths drawn",
}
"""A replayed row's ``trace_lengths``, in words."""


def simulate(
    scenario: ScenarioArg = None,
    system: Annotated[str | None, typer.Option("--system", help="Only this system (default: every one).")] = None,
    point: Annotated[str | None, typer.Option("--point", help="Only this demand point (default: every one).")] = None,
    requests: Annotated[
        int,
        typer.Option("--requests", "-n", min=20, max=100_000_000, help="Simulated requests per system and point."),
    ] = 200_000,
    seed: SeedOpt = 0,
    routing: Annotated[
        str | None,
        typer.Option(
            "--routing",
            parser=_router_name,
            metavar="ROUTER",
            help=f"Router: {', '.join(router_names())} or any registered (default: the scenario's fleet.routing, else "
            "least_outstanding).",
        ),
    ] = None,
    replications: Annotated[
        int, typer.Option("--replications", min=2, max=1000, help="Independent replications for the 95% intervals.")
    ] = 5,
    service: Annotated[
        Service,
        typer.Option(
            "--service",
            help="load_dependent: service read from the curve at the replica's occupancy; "
            "fixed: the chosen point's (what M/M/k assumes).",
        ),
    ] = Service.load_dependent,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace",
            help="A trace replacing Poisson arrivals: a CSV of arrival_s,input_tokens,output_tokens, the Azure LLM "
            "inference trace CSV or the Mooncake JSONL (found from the content; rackcost trace --write-trace cuts "
            "and scales one).",
        ),
    ] = None,
    trace_lengths: Annotated[
        TraceLengths | None,
        typer.Option(
            "--trace-lengths",
            help="With --trace: relative (default: each request's input and output over the trace's mean, times the "
            "workload's, so the scenario's mean request is kept), own (as recorded, through the curve), or none "
            "(arrival times only).",
        ),
    ] = None,
    arrival_scv: Annotated[
        float | None,
        typer.Option(
            "--arrival-scv",
            help="Burstiness of arrivals: squared coefficient of variation of the inter-arrival times, 0.05 to 100 "
            "(1 Poisson; above 1 a balanced-means hyperexponential, below 1 a mixed Erlang). Default: the demand "
            "point's arrival_scv, else 1.",
        ),
    ] = None,
    rate_swing: Annotated[
        str | None,
        typer.Option(
            "--rate-swing",
            metavar="AMPLITUDE:PERIOD",
            help="Swing every simulated point's rate, lambda (1 + a sin(2 pi t / T)): e.g. 0.2:60 is +/-20% over 60 s "
            "(a non-homogeneous Poisson process by thinning; the analytic side the same fleet's pointwise stationary "
            "approximation). Default: the demand point's rate_swing, else none. Poisson arrivals only.",
        ),
    ] = None,
    no_admission: Annotated[
        bool,
        typer.Option(
            "--no-admission",
            help="Run without admission control: every offered request is served however long it waits "
            "(accepted = served within the SLO). Default: overload is shed before the queue, as the model assumes.",
        ),
    ] = False,
    capacity: Annotated[
        bool,
        typer.Option(
            "--capacity",
            help="Check each fleet's capacity at SLO instead: simulate at 0.95x and 1.05x the analytic capacity and "
            "say whether the SLO's miss target is crossed between them.",
        ),
    ] = False,
    ramp: Annotated[
        int | None,
        typer.Option(
            "--ramp",
            min=0,
            metavar="HOUR",
            help="With fleet.scaling and a demand profile: simulate the profile's hour HOUR (from 0) minute by minute "
            "through the fleets that scale with the delay and at once, beside the model's accepted shares.",
        ),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Simulate the sized fleets (discrete events) and print the analytic figures beside the simulated ones."""
    dest = destination(output, force, scenario)
    from rich.progress import Progress

    import rackcost

    sc = load(scenario)
    if ramp is not None:
        _ramp(sc, ramp, seed, fmt, dest)
        return
    swing = None
    if rate_swing is not None:
        from rackcost.analysis.referee_swing import parse_rate_swing

        try:
            swing = parse_rate_swing(rate_swing)
        except ValueError as exc:
            error(str(exc))
            raise typer.Exit(code=1) from None
    if capacity and swing is not None:
        error("--rate-swing does not apply to --capacity (which checks the constant-rate capacity at SLO)")
        raise typer.Exit(code=1)
    if trace_lengths is not None and trace is None:
        error("--trace-lengths says how a trace's lengths are replayed: give --trace too")
        raise typer.Exit(code=1)
    if capacity:
        _capacity(sc, system, requests, seed, routing, replications, fmt, dest, arrival_scv)
        return
    unserved = served_scenario(sc)[1]
    try:
        with (
            Progress(console=console(stderr=True), transient=True, disable=requests < PROGRESS_FROM_REQUESTS) as bar,
            quiet_unserved(),
        ):
            task = bar.add_task("simulating", total=None)
            rows = rackcost.simulate(
                sc,
                system=system,
                demand_point=point,
                requests=requests,
                seed=seed,
                routing=routing,
                replications=replications,
                service=service.value,
                trace=trace,
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                arrival_scv=arrival_scv,
                admission=not no_admission,
                rate_swing=swing,
                trace_lengths=None if trace_lengths is None else trace_lengths.value,
            )
    except ScenarioError as exc:
        fail(exc)
    except (ValueError, OSError) as exc:
        error(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        raise typer.Exit(code=1) from None
    if fmt is OutputFormat.json:
        data = {"scenario": sc.name, "rows": rows, "unserved": unserved}
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
    elif fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), unserved)
        emit(csv_text(rows, _columns(rows)), dest)
    else:
        out = table_console(dest)
        print_unserved(out, unserved)
        _print(out, sc.name, rows)
        emit_table(out, dest)


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every row's keys in the order first seen: a disaggregated system's rows add each pool's columns to an
    aggregated one's (blank in the other rows)."""
    return list(dict.fromkeys(key for row in rows for key in row))


def _value(key: str, x: Any) -> str:
    if x is None:
        return "-"
    if key.endswith("_fraction"):
        return pct(x, 2)
    if key.endswith("_ms"):
        return f"{x:,.0f}"
    return num(x)


def _print(out: Console, scenario_name: str, rows: list[dict[str, Any]]) -> None:
    from rackcost.analysis.referee import ADMISSION_WORDS, figure_rows

    if not rows:
        return
    first = rows[0]
    out.print(
        f"{escape(scenario_name)}: routing [bold]{first['routing']}[/bold], service {first['service_model']}, "
        f"{first['requests']:,} requests per system and point in {first['replications']} "
        f"{first['ci_method']}, seed {first['seed']}; simulated values with their 95% half-width",
        highlight=False,
    )
    scv = first["arrival_scv"]
    out.print(
        (
            f"arrivals from the trace, {TRACE_LENGTH_WORDS[first['trace_lengths']]} (--trace-lengths "
            f"{first['trace_lengths']})"
            if scv is None
            else f"arrivals: renewal, SCV {scv:g}{' (Poisson)' if scv == 1 else ''}"
        )
        + (
            ""
            if first.get("rate_swing_amplitude_fraction") is None
            else f", rate swing +/-{100 * first['rate_swing_amplitude_fraction']:.0f}% over "
            f"{first['rate_swing_period_s']:g} s"
        )
        + f"; {ADMISSION_WORDS[bool(first['admission_control'])]}",
        highlight=False,
    )
    fields = [Field("figure", "text"), Field("analytic"), Field("simulated"), Field("± 95%"), Field("relative error")]
    for row in rows:
        which = ""
        if "class" in row:  # a scenario with request classes: the mix's row (class None), then each class's
            which = ", the mix" if row["class"] is None else f", class {escape(row['class'])}"
        fleet = f"{_replicas(row['replicas_serving'])} x {row['slots_per_replica']} slots"
        if row.get("layout") == "disaggregated":  # its two pools, each with its own replicas and batch
            prefill = _replicas(row["prefill_replicas_serving"], "prefill ")
            decode = _replicas(row["decode_replicas_serving"], "decode ")
            fleet = (
                f"{prefill} x {row['prefill_slots_per_replica']} slots, "
                f"{decode} x {row['decode_slots_per_replica']} slots"
            )
        title = (
            f"{escape(row['system'])} at {escape(row['demand_point'])}{which}: {fleet}, {num(row['arrival_rps'])} rps, "
            f"routing {row['routing']}"
        )
        cells = [
            [
                escape(f["figure"]),
                _value(f["key"], f["analytic"]),
                _value(f["key"], f["simulated"]),
                _value(f["key"], f["ci95_halfwidth"]),
                "-" if f["relative_error_fraction"] is None else f"{100 * f['relative_error_fraction']:+.1f}%",
            ]
            for f in figure_rows(row)
        ]
        print_records(out, title, fields, cells)
        if row["note"]:
            out.print(f"[yellow]note:[/yellow] {escape(row['note'])}", highlight=False)
        for warning in filter(None, row["warnings"].split("; ")):
            out.print(f"[bold red]warning:[/bold red] {escape(warning)}", highlight=False)


def _capacity(sc, system, requests, seed, routing, replications, fmt, output, arrival_scv=None) -> None:
    """``rackcost simulate --capacity``: the capacity bracket of :func:`rackcost.analysis.referee.capacity_check`."""
    from rackcost.analysis.referee import capacity_check

    unserved = served_scenario(sc)[1]
    try:
        with console(stderr=True).status("simulating around each fleet's capacity at SLO"), quiet_unserved():
            rows = capacity_check(
                sc,
                system=system,
                requests=requests,
                seed=seed,
                routing=routing,
                replications=replications,
                arrival_scv=arrival_scv,
            )
    except ScenarioError as exc:
        fail(exc)
    except ValueError as exc:
        error(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        raise typer.Exit(code=1) from None
    if fmt is OutputFormat.json:
        data = {"scenario": sc.name, "capacity": rows, "unserved": unserved}
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", output)
        return
    if fmt is OutputFormat.csv:
        print_unserved(console(stderr=True), unserved)
        emit(csv_text(rows, _columns(rows)), output)
        return
    out = table_console(output)
    print_unserved(out, unserved)
    title = f"{escape(sc.name)}: capacity at SLO, analytic against simulated (routing {rows[0]['routing']})"
    fields = [Field("system", "name")] + [
        Field(escape(h))
        for h in (
            "replicas x slots",
            "analytic capacity [requests/s]",
            "miss target",
            "simulated miss at -5%",
            "simulated miss at +5%",
        )
    ]
    fields.append(Field("within 5%", "text"))
    cells = []
    for r in rows:
        below, above = (
            f"{pct(r[f'simulated_miss_fraction_{side}'], 2)} ± "
            f"{pct(r[f'simulated_miss_fraction_{side}_ci95_halfwidth'] or 0, 2)}"
            for side in ("below", "above")
        )
        cells.append(
            [
                escape(r["system"] + (f" ({r['limiting_pool']} pool limits)" if "limiting_pool" in r else "")),
                f"{r['replicas_serving']} x {r['slots_per_replica']}"
                if r.get("layout") != "disaggregated"
                else f"prefill {r['prefill_replicas_serving']} x {r['prefill_slots_per_replica']}, decode "
                f"{r['decode_replicas_serving']} x {r['decode_slots_per_replica']}",
                num(r["analytic_capacity_at_slo_rps"]),
                pct(r["miss_target_fraction"], 2),
                below,
                above,
                "yes" if r["capacity_within_bracket"] else f"[red]no[/red]: {escape(r['verdict'])}",
            ]
        )
    if rows:
        print_records(out, title, fields, cells)
    emit_table(out, output)


COMMANDS = (simulate,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""


def _replicas(count: int, role: str = "") -> str:
    """``1 replica`` or ``N replicas``, with a pool's role before the noun (``2 prefill replicas``)."""
    return f"{count} {role}replica{'' if count == 1 else 's'}"


RAMP_FIELDS = (
    ("model_delayed_fraction", "model, with the delay"),
    ("sim_delayed_fraction", "simulated, with the delay"),
    ("model_instant_fraction", "model, instant (park)"),
    ("sim_instant_fraction", "simulated, instant (park)"),
    ("sim_budget_delayed_fraction", "simulated, with the delay, admitted by the budget"),
)
"""The ramp check's figures and their words, in order."""


def _ramp(sc: Any, hour: int, seed: int, fmt: OutputFormat, dest: Destination) -> None:
    """``rackcost simulate --ramp HOUR``: :func:`rackcost.analysis.referee_scaling.ramp_check` of one hour."""
    from dataclasses import asdict

    from rackcost.analysis.referee_scaling import ramp_check

    try:
        rows = [asdict(c) for c in ramp_check(sc, hour, 1, seed)]
    except ScenarioError as exc:
        fail(exc)
    if fmt is OutputFormat.json:
        emit(json.dumps({"scenario": sc.name, "hour": hour, "seed": seed, "rows": rows}, indent=2) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text(rows, ["system", *(k for k, _ in RAMP_FIELDS)]), dest)
        return
    out = table_console(dest)
    out.print(
        f"{escape(sc.name)}: hour {hour} of the profile, accepted share with fleet.scaling's delay and with instant "
        f"scaling; simulated minute by minute, seed {seed}",
        highlight=False,
    )
    for row in rows:
        cells = [[words, pct(row[key], 2)] for key, words in RAMP_FIELDS]
        print_records(out, escape(row["system"]), [Field("figure", "text"), Field("accepted")], cells)
    emit_table(out, dest)
