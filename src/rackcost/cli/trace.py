"""``rackcost trace``: a request trace read in its published format, cut, scaled by superposition and measured: its
rate, gap SCV, index of dispersion of counts over time scales and effective arrival SCV at a few service times,
with why the gap SCV disagrees where it does; ``--into`` puts the measurement into a scenario's demand point and
``--write-trace`` writes the requests as the CSV ``rackcost simulate --trace`` replays."""

from __future__ import annotations

import json
import math
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
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
    write,
)
from rackcost.cli.layout import print_grid
from rackcost.errors import ScenarioError
from rackcost.files import csv_text

if TYPE_CHECKING:
    from rackcost.analysis.trace_files import Trace
    from rackcost.analysis.trace_measures import TraceMeasures

__all__ = ["COMMANDS", "trace"]


class TraceFormat(StrEnum):
    csv = "csv"
    azure = "azure"
    mooncake = "mooncake"


def trace(
    trace_file: Annotated[
        Path,
        typer.Argument(
            help="A trace: rackcost's CSV (arrival_s[,input_tokens,output_tokens]), the Azure LLM inference trace "
            "CSV (TIMESTAMP,ContextTokens,GeneratedTokens) or the Mooncake JSONL (timestamp \\[ms],input_length,"
            "output_length,hash_ids); the format is found from the content.",
        ),
    ],
    trace_format: Annotated[
        TraceFormat | None,
        typer.Option("--trace-format", help="Read the trace as this format (default: found from its first line)."),
    ] = None,
    start: Annotated[
        float,
        typer.Option("--start", min=0.0, help="Cut the window from this many seconds after the first arrival."),
    ] = 0.0,
    duration: Annotated[
        float | None, typer.Option("--duration", min=0.0, help="Cut a window this many seconds long (default: all).")
    ] = None,
    scale_to: Annotated[
        float | None,
        typer.Option(
            "--scale-to",
            metavar="RPS",
            help="Scale the (cut) trace to this rate by superposing copies, each shifted by its own random offset, "
            "thinned at random to the rate exactly (time scales kept; never by compressing time).",
        ),
    ] = None,
    seed: SeedOpt = 0,
    write_trace: Annotated[
        Path | None,
        typer.Option(
            "--write-trace",
            metavar="OUT.csv",
            help="Also write the (cut, scaled) requests as arrival_s,input_tokens,output_tokens, the CSV "
            "rackcost simulate --trace replays.",
        ),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
    into: Annotated[
        Path | None,
        typer.Option(
            "--into",
            metavar="SCENARIO",
            help="Put the measured rate, index of dispersion and rate within the hour into this scenario's demand "
            "point (--point) as arrival_rps, arrival_dispersion and sub_hour (its arrival_scv and rate_swing "
            "removed) and print (or --output) the scenario, each figure sourced to the trace.",
        ),
    ] = None,
    point: Annotated[str | None, typer.Option(help="The demand point --into sets (default: the sizing point).")] = None,
    keep_rate: Annotated[
        bool,
        typer.Option(
            "--keep-rate", help="With --into: set arrival_dispersion only, keep the point's arrival_rps (no sub_hour)."
        ),
    ] = False,
    hour_window: Annotated[
        float,
        typer.Option(
            "--hour-window",
            metavar="SECONDS",
            min=0.0,
            help="Measure the rate within the hour in windows this long (the span cut into 3600 / SECONDS equal "
            "windows; 60 to 1800, dividing an hour), which --into writes as sub_hour; 0: none.",
        ),
    ] = 600.0,
    cache_tokens: Annotated[
        list[float] | None,
        typer.Option(
            "--cache-tokens",
            min=1.0,
            help="A trace with prefix block hashes (Mooncake's): measure its prefix reuse at this LRU cache size in "
            "tokens (repeat for several; default: unbounded, 1M and 10M).",
        ),
    ] = None,
    prefix: Annotated[
        bool,
        typer.Option(
            "--prefix",
            help="With --into and a trace with prefix block hashes: also write the measured prefix reuse as the "
            "workload's prefix_hit_fraction: the first system's replicas, each with its own cache under the "
            "scenario's router (the replica's KV memory where the system gives it, else unbounded).",
        ),
    ] = False,
) -> None:
    """Measure a trace: its rate and burstiness over time scales, as a demand point's arrival_rps and
    arrival_dispersion."""
    from dataclasses import replace

    from rackcost.analysis.trace_files import FORMATS, read_trace
    from rackcost.analysis.trace_measures import HOUR_WINDOW_S, measure_arrivals
    from rackcost.analysis.trace_scaling import cut_window, superpose, trace_csv_text
    from rackcost.scenario.sub_hour_blocks import MIN_WINDOW_S, windows_per_hour
    from rackcost.units import SECONDS_PER_HOUR

    dest = destination(output, force, trace_file, into)
    check_distinct({"--write-trace": write_trace, "--output": output})
    check_output(write_trace, force, (trace_file, into))
    if into is None and (point is not None or keep_rate or prefix):
        error("--point, --keep-rate and --prefix say where to put the measurement: give --into SCENARIO too")
        raise typer.Exit(code=1)
    if hour_window != 0 and not (
        MIN_WINDOW_S <= hour_window <= SECONDS_PER_HOUR / 2 and windows_per_hour(hour_window) is not None
    ):
        error(
            f"--hour-window: {hour_window:g} s must be 0 or {MIN_WINDOW_S:g} to {SECONDS_PER_HOUR / 2:g} s and divide "
            "an hour into whole windows (600, 300, 900, ...)"
        )
        raise typer.Exit(code=1)
    try:
        named = None if trace_format is None else trace_format.value
        read = read_trace(trace_file, named, tokens=write_trace is not None)
        cut = read if start == 0 and duration is None else cut_window(read, start, duration)
        scaled = None if scale_to is None else superpose(cut, scale_to, seed)
        final = cut if scaled is None else scaled.trace
        measures = measure_arrivals(final.arrival_s, hour_window_s=hour_window or HOUR_WINDOW_S)
        if hour_window == 0:
            measures = replace(measures, hour_ratios=())
        text = None if write_trace is None else trace_csv_text(final)
    except ValueError as exc:
        message = str(exc)
        error(message if str(trace_file) in message else f"{trace_file}: {message}")
        raise typer.Exit(code=1) from None
    window = None if cut is read else {"start_s": start, "duration_s": duration}
    superposition = (
        None
        if scaled is None
        else {"target_rps": scale_to, "copies": scaled.copies, "seed": seed, "kept_fraction": scaled.kept_fraction}
    )
    about = {
        "file": trace_file.name,
        "format": read.source_format,
        "format_name": FORMATS[read.source_format],
        "columns": list(read.columns),
        "read_requests": int(read.arrival_s.size),
        "read_span_s": read.span_s,
        "read_arrival_rps": read.arrival_rps,
    }
    source = _source(trace_file.name, read.source_format, cut, window, scale_to, scaled, seed)
    if text is not None and write_trace is not None:
        write(write_trace, text, force=force, inputs=(trace_file, into))
    sizes: tuple[float | None, ...] = DEFAULT_CACHE_TOKENS if not cache_tokens else tuple(cache_tokens)
    if prefix and final.hash_ids is None:
        error(f"{trace_file}: --prefix needs a trace with prefix block hashes (Mooncake's hash_ids); this one has none")
        raise typer.Exit(code=1)
    try:  # a request's block hashes must fit its input tokens: checked where the blocks are laid out
        if into is not None:
            scenario = _measured_scenario(into, point, measures, source, keep_rate, final if prefix else None, sizes)
            emit(scenario, dest)
            return
        # measured on the trace as read (cut, not superposed): superposed copies are other users, each with their
        # own prefixes, so a shared cache's share falls with the copies; --into --prefix measures what it writes
        reuse = _prefix_reuse(cut, sizes, None)
    except ValueError as exc:
        error(f"{trace_file}: {exc}")
        raise typer.Exit(code=1) from None
    row = _record(about, window, superposition, measures) | ({} if reuse is None else {"prefix_reuse": reuse})
    if fmt is OutputFormat.json:
        emit(json.dumps(row, indent=2, allow_nan=False) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text([_flat(row)]), dest)
        return
    _print_table(dest, trace_file, about, source, measures, reuse)


DEFAULT_CACHE_TOKENS: tuple[float | None, ...] = (None, 1e6, 1e7)
"""Cache sizes prefix reuse is measured at by default: unbounded, 1M and 10M tokens [tokens]."""


def _prefix_reuse(trace: Any, sizes: tuple[float | None, ...], scenario: Any) -> list[dict[str, Any]] | None:
    """The share of input tokens served from cache at each cache size (one cache shared by the fleet), and per
    system of ``scenario`` at its replicas' own caches under its router; None for a trace without block hashes."""
    from rackcost.cli.trace_prefix import prefix_requests_of, prefix_rows, scenario_fleets

    if getattr(trace, "hash_ids", None) is None:
        return None
    requests, arrival_s = prefix_requests_of(trace)
    fleets = () if scenario is None else tuple(scenario_fleets(scenario))
    return prefix_rows(requests, cache_tokens=sizes, fleets=fleets, arrival_s=arrival_s)


def _source(
    name: str, found: str, cut: Trace, window: dict[str, Any] | None, target: float | None, scaled: Any, seed: int
) -> str:
    """Where a measurement came from: ``<file>, <format>[, window ...], <requests> requests over <span> s[,
    superposed xN to R rps, seed S]``."""
    part = f"{name}, {found}"
    if window is not None:
        end = "the end" if window["duration_s"] is None else f"{window['start_s'] + window['duration_s']:g} s"
        part += f", window {window['start_s']:g} s to {end}"
    part += f", {cut.arrival_s.size:,} requests over {cut.span_s:,.4g} s"
    if scaled is not None and target is not None:
        part += f", superposed x{scaled.copies} to {target:g} rps, seed {seed}"
    return part


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _record(
    about: dict[str, Any], window: dict[str, Any] | None, superposition: dict[str, Any] | None, m: TraceMeasures
) -> dict[str, Any]:
    """The figures as a JSON record (None where undefined)."""
    s = m.stats
    return {
        **about,
        "window": window,
        "superposition": superposition,
        "requests": s.requests,
        "span_s": s.span_s,
        "arrival_rps": s.arrival_rps,
        "gap_scv": s.gap_scv,
        "peak_to_mean": s.peak_to_mean,
        "windows": s.windows,
        "index_of_dispersion": [
            {"time_scale_s": w, "windows": k, "index": i}
            for w, k, i in zip(m.time_scales_s, m.windows, m.index, strict=True)
        ],
        "effective_arrival_scv": [
            {"service_s": sv, "arrival_scv": _finite(e)}
            for sv, e in zip(m.service_times_s, m.effective_scv, strict=True)
        ],
        "zero_gap_fraction": m.zero_gap_fraction,
        "tick_s": _finite(m.tick_s),
        "longest_gap_s": m.longest_gap_s,
        "longest_gap_to_mean": m.longest_gap_to_mean,
        "silence_threshold_s": m.silence_threshold_s,
        "silences": m.silences,
        "gap_scv_without_silences": _finite(m.gap_scv_without_silences),
        "last_to_first_tenth": _finite(m.last_to_first_tenth),
        "gap_scv_disagrees": m.disagrees,
        "findings": list(m.findings),
        "hour_window_s": m.hour_window_s if m.hour_ratios else None,
        "hour_rate_ratios": list(m.hour_ratios),
    }


TEXT_COLUMNS = ("file", "format", "format_name", "columns", "findings", "hour_rate_ratios")
"""The CSV output's columns of text (every other cell is a number, or empty where undefined)."""


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    """The JSON record as one CSV row: the tables as a column per time scale or service time."""
    from rackcost.analysis.trace_measures import TIME_SCALES_S

    flat = {k: v for k, v in row.items() if not isinstance(v, list | dict) and k not in ("window", "superposition")}
    flat["columns"] = " ".join(row["columns"])
    window = row["window"] or {}
    flat["window_start_s"] = window.get("start_s")
    flat["window_duration_s"] = window.get("duration_s")
    scaled = row["superposition"] or {}
    for key in ("target_rps", "copies", "seed", "kept_fraction"):
        flat[f"superposed_{key}"] = scaled.get(key)
    measured = {e["time_scale_s"]: e["index"] for e in row["index_of_dispersion"]}
    for w in TIME_SCALES_S:
        flat[f"index_of_dispersion_{w:g}_s"] = measured.get(w)
    for e in row["effective_arrival_scv"]:
        flat[f"effective_arrival_scv_{e['service_s']:g}_s"] = e["arrival_scv"]
    ratios = row["hour_rate_ratios"]
    flat["hour_rate_ratios"] = " ".join(f"{r:.4g}" for r in ratios) if ratios else None
    flat["gap_scv_disagrees"] = int(row["gap_scv_disagrees"])
    flat["findings"] = " | ".join(row["findings"])
    for key in ("tick_s", "gap_scv_without_silences", "last_to_first_tenth"):
        flat.setdefault(key, None)
    return flat


def _print_table(
    dest: Any, trace_file: Path, about: dict[str, Any], source: str, m: TraceMeasures, reuse: list[dict] | None
) -> None:
    from rackcost.model.sim.sim_arrivals import ARRIVAL_SCV_RANGE

    stats = m.stats
    out = table_console(dest)
    out.print(
        f"{escape(str(trace_file))}: {escape(about['format_name'])}; columns {escape(', '.join(about['columns']))}; "
        f"{about['read_requests']:,} requests over {about['read_span_s']:,.4g} s, {about['read_arrival_rps']:,.4g} "
        "requests/s",
        highlight=False,
    )
    out.print(f"measured: {escape(source)}", highlight=False)
    names = ("requests", "span", "arrival rate", "gap SCV", f"busiest of {stats.windows} windows / mean")
    cells = [
        f"{stats.requests:,}",
        f"{stats.span_s:,.4g} s",
        f"{stats.arrival_rps:,.4g} rps",
        f"{stats.gap_scv:.3g}",
        f"{stats.peak_to_mean:.3g}",
    ]
    print_grid(out, f"Arrivals of {escape(str(trace_file))}", names, [("", cells)])
    if m.time_scales_s:
        print_grid(
            out,
            "Index of dispersion of counts: variance / mean of the arrivals in windows of each time scale (1 Poisson)",
            ["windows", "index"],
            [(f"{w:g} s", [f"{k:,}", f"{i:.3g}"]) for w, k, i in zip(m.time_scales_s, m.windows, m.index, strict=True)],
        )
        print_grid(
            out,
            "Effective arrival SCV at a service time: the dispersion against exponential service, as an SCV",
            ["arrival SCV"],
            [
                (f"{s:g} s", ["-" if e is None else f"{e:.3g}"])
                for s, e in zip(m.service_times_s, m.effective_scv, strict=True)
            ],
        )
    else:
        out.print("index of dispersion: fewer than 8 windows of every time scale fit in the span", highlight=False)
    if m.hour_ratios:
        print_grid(
            out,
            f"Rate within the hour: the span in {len(m.hour_ratios)} equal windows (of {m.hour_window_s:g} s in an "
            "hour), each window's rate / the mean; --into writes them as sub_hour, the fleet sized for the busiest",
            ["rate / mean"],
            [(f"window {i + 1}", [f"{r:.3f}"]) for i, r in enumerate(m.hour_ratios)],
        )
    for finding in m.findings:
        out.print(f"- {escape(finding)}", highlight=False)
    if reuse:
        print_grid(
            out,
            "Prefix reuse of the trace as read: share of the input tokens in prefix blocks found in an LRU cache of "
            "that size (shared by the fleet)",
            ["hit share"],
            [
                (
                    "unbounded" if r["cache_tokens"] is None else f"{r['cache_tokens']:,} tokens",
                    [f"{r['hit_fraction']:.3f}"],
                )
                for r in reuse
            ],
        )
    lo, hi = ARRIVAL_SCV_RANGE
    if not lo <= stats.gap_scv <= hi:
        why = f"; the gap SCV {stats.gap_scv:.3g} is outside the {lo:g} to {hi:g} a demand point takes"
    elif m.disagrees:
        why = f"; the gap SCV {stats.gap_scv:.3g} disagrees with the dispersion (above)"
    else:
        why = ""
    out.print(
        f"as a demand point: {{arrival_rps: {stats.arrival_rps:.4g}"
        + (f", arrival_scv: {stats.gap_scv:.3g}}}" if not why else "}" + why)
        + ("; --into SCENARIO writes the index of dispersion as arrival_dispersion" if m.time_scales_s else ""),
        highlight=False,
    )
    emit_table(out, dest)


def _measured_scenario(
    into: Path,
    point: str | None,
    m: TraceMeasures,
    source: str,
    keep_rate: bool,
    prefix_trace: Any = None,
    sizes: tuple[float | None, ...] = DEFAULT_CACHE_TOKENS,
) -> str:
    """The YAML of scenario ``into`` with a demand point measured from a trace, validated (or the command fails);
    with ``prefix_trace``, the workload's prefix hit share measured too (:func:`_with_prefix`)."""
    from rackcost.importers.into_scenario import measured_demand
    from rackcost.scenario.loading import scenario_from_dict, scenario_to_data, scenario_to_yaml

    scenario = load(into)
    name = point if point is not None else scenario.sizing_point.name
    try:
        data = measured_demand(
            scenario_to_data(scenario),
            name,
            m.stats.arrival_rps,
            m.time_scales_s,
            m.index,
            source,
            keep_rate,
            m.hour_window_s,
            m.hour_ratios,
        )
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    try:
        # a ValueError here is the trace's (its blocks do not fit its inputs): the command names the trace file
        if prefix_trace is not None:
            data = _with_prefix(data, scenario, prefix_trace, sizes, source)
        measured = scenario_from_dict(data, str(into))
    except ScenarioError as exc:
        fail(exc)
    if m.stats.peak_to_mean > 1.3:
        console(stderr=True).print(
            "warning: the rate varies over the trace (busiest tenth "
            f"{m.stats.peak_to_mean:.3g}x the mean): cut it to one demand level (--start, --duration), or the index at "
            "long time scales counts that variation too",
            highlight=False,
        )
    return scenario_to_yaml(measured)


def _with_prefix(data: dict[str, Any], scenario: Any, trace: Any, sizes: tuple, source: str) -> dict[str, Any]:
    """``data`` with the workload's prefix hit share measured on ``trace``: the first self-hosted system's row with
    a cache on each of its serving replicas under the scenario's router (an engine's prefix cache is per replica),
    each of the replica's KV memory where the system gives one, else unbounded (the most it can hold); one
    unbounded cache shared by the fleet where no system is self-hosted. Every row is printed to stderr, so another
    can be chosen by hand."""
    from rackcost.cli.trace_prefix import measured_prefix_hits

    rows = _prefix_reuse(trace, sizes, scenario) or []
    own = [r for r in rows if r["system"] is not None and r["cache"] == "per replica"]
    chosen = own[0] if own else next(r for r in rows if r["system"] is None and r["cache_tokens"] is None)
    err = console(stderr=True)
    for r in rows:
        size = "unbounded" if r["cache_tokens"] is None else f"{r['cache_tokens']:,} tokens"
        who = "" if r["system"] is None else f"{r['system']}: "
        mark = " (written)" if r is chosen else ""
        err.print(
            f"prefix reuse: {escape(who)}{r['cache']} cache of {size}, {r['routing']} routing over {r['replicas']} "
            f"replicas: {r['hit_fraction']:.3f}{mark}",
            highlight=False,
        )
    routing = "shared" if chosen["cache"] == "shared" else str(chosen["routing"])
    return measured_prefix_hits(
        data, float(chosen["hit_fraction"]), source, chosen["cache_tokens"], routing, int(chosen["replicas"])
    )


COMMANDS = (trace,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
