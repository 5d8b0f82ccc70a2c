"""Command-line face of the importers: ``rackcost import inferencex FILES...``, ``rackcost import csv FILE`` and
``rackcost import mlperf FILES...``.

Each prints a summary (what was read, grouped by curve; what was skipped and why) and writes YAML that pastes
into a scenario. The YAML goes to ``--output`` or to stdout; the summary then goes to stdout or to stderr, so that
``rackcost import inferencex *.json > curves.yaml`` keeps the YAML clean. Exit code 0 when at least one curve was
imported, 1 when none was (or when ``--system`` is given files of several curves); never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from rackcost.cli.common import Destination, ForceOpt, console, destination, error, write, write_stdout
from rackcost.cli.layout import Field, Kind, print_records
from rackcost.scenario.schema import ProvenanceClass, TokenBasis

if TYPE_CHECKING:  # the importers load only when an import command runs, to keep other commands' start fast
    from rackcost.importers.curves import ImportResult
    from rackcost.importers.mlperf import MLPerfImport

__all__ = ["import_app"]

import_app = typer.Typer(
    help="Turn benchmark result files into a scenario's performance curves (YAML that pastes into a scenario).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Percentile(StrEnum):
    p99 = "p99"
    median = "median"
    p95 = "p95"
    p90 = "p90"
    p75 = "p75"


class ThroughputPer(StrEnum):
    replica = "replica"
    accelerator = "accelerator"


SystemOpt = Annotated[
    str | None,
    typer.Option(
        "--system",
        help="Write one whole system entry with this name (hardware and costs left as FILL IN placeholders). "
        "The files must hold one curve; without --system, one entry per curve.",
    ),
]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write the YAML here instead of to stdout.")]
IslOpt = Annotated[
    int | None, typer.Option("--isl", min=1, help="ISL [tokens] for rows whose file and file name do not give it.")
]
OslOpt = Annotated[
    int | None, typer.Option("--osl", min=1, help="OSL [tokens] for rows whose file and file name do not give it.")
]
GpusOpt = Annotated[
    int | None,
    typer.Option(
        "--gpus-per-replica",
        min=1,
        help="GPUs of one replica for files that do not give it (stage A without tpN in the file name).",
    ),
]
OnlyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--only",
        help="Keep only curves with this key value, e.g. --only tp=8 --only precision=fp8 "
        "(keys: hardware, model, precision, framework, tp, ep, isl, osl, spec, gpus).",
    ),
]


@import_app.command("inferencex")
def inferencex(
    files: Annotated[list[Path], typer.Argument(help="InferenceX result JSON files (stage A, B or C), or folders.")],
    system: SystemOpt = None,
    percentile: Annotated[
        Percentile,
        typer.Option(
            "--percentile",
            help="TTFT and TPOT at this percentile (TPOT = 1 / interactivity). p95, p90 or p75 stand in for the "
            "SLO's in files without p99 (agentic aggregates, read only so): provenance and a warning say so.",
        ),
    ] = Percentile.p99,
    output: OutputOpt = None,
    force: ForceOpt = False,
    isl: IslOpt = None,
    osl: OslOpt = None,
    gpus_per_replica: GpusOpt = None,
    provenance_class: Annotated[
        ProvenanceClass,
        typer.Option("--provenance-class", help="provenance.class of the curves (InferenceX is independent)."),
    ] = ProvenanceClass.independent,
    only: OnlyOpt = None,
) -> None:
    """Import InferenceX result files: stage A (raw client, ms), B (aggregate, s, per GPU), C (array of B),
    D (nested metrics/gpu blocks, measured power), E (raw client, s) or F (agentic aggregates, --percentile p95)."""
    from rackcost.importers.inferencex import read_inferencex_paths

    dest = destination(output, force, *files)
    _check_pair(isl, osl)
    _check_folders(files)
    _run(
        lambda: read_inferencex_paths(
            files,
            percentile=percentile.value,
            isl=isl,
            osl=osl,
            gpus_per_replica=gpus_per_replica,
            provenance_class=provenance_class.value,
            only=only,
        ),
        system,
        dest,
        "inferencex",
        files=_count_files(files),
    )


@import_app.command("csv")
def csv_table(
    file: Annotated[Path, typer.Argument(help="CSV table, one operating point per row (see docs/importers.md).")],
    system: SystemOpt = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
    token_basis: Annotated[
        TokenBasis, typer.Option("--token-basis", help="Tokens the throughput counts, where no column says.")
    ] = TokenBasis.total,
    throughput_per: Annotated[
        ThroughputPer, typer.Option("--throughput-per", help="Throughput per replica or per accelerator.")
    ] = ThroughputPer.replica,
    isl: IslOpt = None,
    osl: OslOpt = None,
    gpus_per_replica: Annotated[
        int | None,
        typer.Option("--gpus-per-replica", min=1, help="Accelerators per replica, where no column says."),
    ] = None,
    provenance_class: Annotated[
        ProvenanceClass,
        typer.Option("--provenance-class", help="provenance.class of the curves (default assumption: say who ran it)."),
    ] = ProvenanceClass.assumption,
    only: OnlyOpt = None,
) -> None:
    """Import a CSV table of operating points (columns and units in docs/importers.md)."""
    from rackcost.importers.csv_table import read_csv_table_path

    _check_pair(isl, osl)
    dest = destination(output, force, file)
    _run(
        lambda: read_csv_table_path(
            file,
            token_basis=token_basis.value,
            throughput_per=throughput_per.value,
            isl=isl,
            osl=osl,
            gpus_per_replica=gpus_per_replica,
            provenance_class=provenance_class.value,
            only=only,
        ),
        system,
        dest,
        "csv",
    )


@import_app.command("mlperf")
def mlperf(
    files: Annotated[
        list[Path],
        typer.Argument(help="MLPerf summary_results.json, runs' mlperf_log_summary.txt, or folders holding them."),
    ],
    output: OutputOpt = None,
    force: ForceOpt = False,
    benchmark: Annotated[
        list[str] | None,
        typer.Option("--benchmark", help="Keep only this MLPerf benchmark (llama2-70b, deepseek-r1, ...); repeatable."),
    ] = None,
) -> None:
    """Import MLPerf Inference results: Offline, Server and Interactive as operating points with their SLOs."""
    from rackcost.importers.mlperf import LLM_BENCHMARKS, read_mlperf_paths
    from rackcost.importers.mlperf_out import mlperf_to_yaml

    unknown = [b for b in benchmark or [] if b not in LLM_BENCHMARKS]
    if unknown:
        error(f"--benchmark {unknown[0]}: not an MLPerf LLM benchmark; use one of {', '.join(LLM_BENCHMARKS)}")
        raise typer.Exit(code=1)
    dest = destination(output, force, *files)
    result = read_mlperf_paths(files, benchmarks=benchmark or None)
    summary = console(stderr=dest.path is None)
    _print_mlperf(summary, result)
    if not result.results:
        error("nothing imported: no file gave an MLPerf LLM result (see the skipped table above)")
        raise typer.Exit(code=1)
    text = mlperf_to_yaml(result.results)
    if dest.path is None:
        write_stdout(text)
        return
    write(dest.path, text, report=summary, force=dest.force, inputs=dest.inputs)


def _print_mlperf(console: Console, result: MLPerfImport) -> None:
    """The results read (one row each: rate, p99 latencies against their limits, power) and what was skipped."""

    def ratio(value: float | None, limit: float | None) -> str:
        return "-" if value is None or limit is None else f"{value:,.0f} / {limit:,.0f}"

    if result.results:
        fields = [Field("result", "name"), Field("system", "name"), Field("benchmark", "name")]
        fields += [Field("scenario", "name"), Field("accelerators", "number"), Field("output tokens/s", "number")]
        fields += [Field("p99 TTFT / limit [ms]", "number"), Field("p99 TPOT / limit [ms]", "number")]
        fields += [Field("wall W per accelerator", "number"), Field("precision", "name")]
        cells = []
        for r in result.results:
            slo, log = r.slo, r.log
            cells.append(
                [
                    escape(r.result_id or "-"),
                    escape(f"{r.submitter or '?'} {r.platform or '?'}"),
                    escape(r.benchmark),
                    r.scenario,
                    "-" if r.accelerators is None else str(r.accelerators),
                    f"{r.tokens_per_s:,.1f}",
                    ratio(None if log is None else log.ttft_p99_ms, None if slo is None else slo.ttft_limit_ms),
                    ratio(None if log is None else log.tpot_p99_ms, None if slo is None else slo.tpot_limit_ms),
                    "-" if r.power_w_per_accelerator is None else f"{r.power_w_per_accelerator:,.0f}",
                    escape(r.precision or "-"),
                ]
            )
        print_records(console, f"Imported {len(result.results)} MLPerf result(s)", fields, cells, name=1)
        console.print(
            "throughput: output tokens/s of the whole system; provenance class vendor (the submitter's own run); "
            "power: measured wall power of the whole system over its accelerators (hosts included), not board power.",
            highlight=False,
        )
    if result.skipped:
        fields = [Field("file", "name"), Field("row"), Field("field", "name"), Field("reason", "text")]
        rows = [
            [escape(s.file), "" if s.row is None else str(s.row), escape(s.field or "-"), escape(s.reason)]
            for s in result.skipped
        ]
        print_records(console, f"Skipped {len(result.skipped)} file(s) or row(s)", fields, rows)
    for note in result.notes:
        console.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)


SPINNER_FILES = 20
"""Imports of at least this many files show a spinner on stderr while they are read [-]."""


def _check_folders(files: list[Path]) -> None:
    """End with one line and exit 1 when every path given is a folder without a ``*.json`` file."""
    empty = [p for p in files if p.is_dir() and next(p.glob("*.json"), None) is None]
    if files and len(empty) == len(files):
        where = ", ".join(str(p) for p in empty)
        error(f"{where}: no .json files in {'this folder' if len(empty) == 1 else 'these folders'}: nothing to import")
        raise typer.Exit(code=1)


def _count_files(files: list[Path]) -> int:
    """How many files an import of ``files`` reads (a folder stands for its ``*.json`` files)."""
    return sum(sum(1 for _ in p.glob("*.json")) if p.is_dir() else 1 for p in files)


def _run(
    read: Callable[[], ImportResult], system: str | None, output: Destination, importer: str, files: int = 1
) -> None:
    """Read with the importer, turning a bad option into a one-line error, then report and write the YAML.

    A transient spinner on stderr says how many files are being read when there are :data:`SPINNER_FILES` or more
    (it shows only on a terminal).
    """
    from contextlib import nullcontext

    working = console(stderr=True).status(f"reading {files:,} files") if files >= SPINNER_FILES else nullcontext()
    try:
        with working:
            result = read()
    except ValueError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    _finish(result, system, output, importer)


def _check_pair(isl: int | None, osl: int | None) -> None:
    if (isl is None) != (osl is None):
        error("give both --isl and --osl, or neither")
        raise typer.Exit(code=1)


def _finish(result: ImportResult, system: str | None, output: Destination, importer: str) -> None:
    from rackcost.importers.curves import differing_keys
    from rackcost.importers.yaml_out import curves_to_yaml

    summary = console(stderr=output.path is None)
    print_summary(summary, result, importer)
    if not result.curves:
        error("nothing imported: no file or row gave a usable operating point (see the skipped table above)")
        raise typer.Exit(code=1)
    if system is not None and len(result.curves) > 1:
        differ = "; ".join(f"{k} ({', '.join(v)})" for k, v in differing_keys(result.curves).items())
        error(
            f"--system {system!r}: the files hold {len(result.curves)} curves that differ in {differ}. A system has "
            "one curve: pick the files of one curve (or narrow them with --only, e.g. --only tp=8), or omit "
            "--system to get one entry per curve."
        )
        raise typer.Exit(code=1)
    text = curves_to_yaml(result.curves, system_name=system, command=f"rackcost import {importer}")
    if output.path is None:
        write_stdout(text)
        return
    write(output.path, text, report=summary, force=output.force, inputs=output.inputs)


def print_summary(console: Console, result: ImportResult, importer: str = "inferencex") -> None:
    """Print what was read (one row per curve) and what was skipped (one row per file or row, with the reason)."""
    if result.curves:
        kinds: dict[str, Kind] = {
            "#": "number",
            "curve": "name",  # what a scenario calls the system: whole, the table transposed when it must be
            "stage": "name",
            "points": "number",
            "concurrency": "number",
        }
        kinds |= {"ISL/OSL": "number", "ISL/OSL from": "text", "GPUs per replica": "number", "power": "name"}
        fields = [Field(escape(col), kind) for col, kind in kinds.items()]
        cells = []
        for i, c in enumerate(result.curves, 1):
            rng = c.concurrency_range
            conc = "-" if rng is None else (f"{rng[0]:g}" if rng[0] == rng[1] else f"{rng[0]:g}-{rng[1]:g}")
            k = c.key
            isl_osl = "-" if k.input_tokens is None else f"{k.input_tokens}/{k.output_tokens}"
            gpus = "-" if k.gpus_per_replica is None else str(k.gpus_per_replica)
            cells.append(
                [
                    str(i),
                    escape(c.label),
                    "/".join(c.stages),
                    str(len(c.points)),
                    conc,
                    isl_osl,
                    escape(c.isl_osl_source),
                    gpus,
                    "board (measured)" if c.has_power else "-",
                ]
            )
        print_records(console, f"Imported {len(result.curves)} curve(s)", fields, cells, name=1)
        basis = {(c.key.token_basis, c.key.throughput_per) for c in result.curves}
        pct = {c.percentile for c in result.curves}
        if importer == "inferencex":
            console.print(
                f"TTFT and TPOT at {', '.join(sorted(pct))} (TPOT = 1000 / interactivity); throughput: "
                + ", ".join(f"{b} tokens/s per {p}" for b, p in sorted(basis))
                + f"; provenance class {result.curves[0].provenance['class']}.",
                highlight=False,
            )
        else:
            console.print(
                "throughput: "
                + ", ".join(f"{b} tokens/s per {p}" for b, p in sorted(basis))
                + f"; provenance class {result.curves[0].provenance['class']}.",
                highlight=False,
            )
        if any(c.has_power for c in result.curves):
            console.print(
                "power_w_per_accelerator is measured GPU board power, not wall power: hosts, rack overhead and PUE "
                "come from the scenario.",
                highlight=False,
            )
    if result.filtered:
        console.print(f"{result.filtered} row(s) left out by --only.", highlight=False)
    if result.skipped:
        fields = [Field("file", "name"), Field("row"), Field("field", "name"), Field("reason", "text")]
        cells = [
            [
                escape(PurePath(s.file).name),
                "" if s.row is None else str(s.row),
                escape(s.field or "-"),
                escape(s.reason),
            ]
            for s in result.skipped
        ]
        print_records(console, f"Skipped {len(result.skipped)} file(s) or row(s)", fields, cells)
    for note in result.notes:
        console.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False)
