"""``rackcost power check | fit``: the power law of :mod:`rackcost.model.energy.power_law` against measured power CSVs.

``check`` predicts, for each curve of the CSV (model x task x GPU x GPUs), the power at every measured batch from
the GPU's idle power and the curve's top power that fits its points best, with the package's fitted exponent, and
prints the mean absolute percentage error per GPU (and the error of the same law anchored at each curve's largest
batch alone). ``fit`` fits the exponent per GPU and states its spread and its error on
models left out of the fit. Both read the columns of the ML.ENERGY leaderboard's compilation
(:mod:`rackcost.importers.power_csv`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    destination,
    emit,
    emit_table,
    error,
    table_console,
)
from rackcost.cli.layout import Field, print_records
from rackcost.files import csv_text

if TYPE_CHECKING:
    from rackcost.model.energy.power_law import PowerCurve

__all__ = ["power_app"]

power_app = typer.Typer(
    help="The power law (board power against requests in service) against measured power: check or fit it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

CsvArg = Annotated[
    Path,
    typer.Argument(
        help="CSV of measured power against batch: model, task, gpu, num_gpus, avg_batch_size, avg_power_w_all_gpus "
        "(the ML.ENERGY leaderboard's columns)."
    ),
]
IdleOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--idle-w",
        help="Idle power of a GPU, GPU=WATTS (repeatable); default H100=75 and B200=110 (the package's cited figures).",
    ),
]
SplitsOpt = Annotated[
    int, typer.Option("--splits", min=1, max=1000, help="Random halves of the models for the held-out error.")
]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="Seed of the random halves.")]


def _idle(values: list[str] | None) -> dict[str, float]:
    from rackcost.model.energy.power_law import DEFAULT_IDLE_W

    idle = dict(DEFAULT_IDLE_W)
    for item in values or []:
        gpu, sep, watts = item.partition("=")
        try:
            value = float(watts) if sep and gpu.strip() else float("nan")
        except ValueError:
            value = float("nan")
        if not (0.0 <= value <= 1e5):
            error(f"--idle-w {item!r}: expected GPU=WATTS with WATTS from 0 to 100000, e.g. H100=75")
            raise typer.Exit(code=1)
        idle[gpu.strip()] = value
    return idle


def _curves(csv_path: Path, idle: list[str] | None) -> list[PowerCurve]:
    from rackcost.files import InputFileError
    from rackcost.importers.power_csv import read_power_curves

    try:
        return read_power_curves(csv_path, _idle(idle))
    except InputFileError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None


def _by_gpu(curves: list[PowerCurve]) -> dict[str, list[PowerCurve]]:
    groups: dict[str, list[PowerCurve]] = defaultdict(list)
    for c in curves:
        groups[c.accelerator].append(c)
    return dict(sorted(groups.items()))


@power_app.command("check")
def check(
    csv_path: CsvArg,
    idle_w: IdleOpt = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The package's power law against a measured CSV: mean absolute percentage error per GPU."""
    import numpy as np

    from rackcost.model.energy.power_law import curve_errors, fit_for, top_anchored_errors

    dest = destination(output, force, csv_path)
    rows: list[dict[str, Any]] = []
    for gpu, curves in _by_gpu(_curves(csv_path, idle_w)).items():
        law = fit_for(gpu)
        errors = np.concatenate([curve_errors(c, law.exponent) for c in curves])
        top = np.concatenate([top_anchored_errors(c, law.exponent) for c in curves])
        rows.append(
            {
                "gpu": gpu,
                "law": law.family,
                "exponent": law.exponent,
                "idle_w": curves[0].idle_w,
                "curves": len(curves),
                "points": int(errors.size),
                "mape": float(errors.mean()),
                "mape_top_anchored": float(top.mean()),
            }
        )
    if fmt is OutputFormat.json:
        payload = {
            "mape_by_gpu": {r["gpu"]: r["mape"] for r in rows},
            "points_by_gpu": {r["gpu"]: r["points"] for r in rows},
            "mape_top_anchored_by_gpu": {r["gpu"]: r["mape_top_anchored"] for r in rows},
            "exponent_by_gpu": {r["gpu"]: r["exponent"] for r in rows},
        }
        emit(json.dumps(payload, indent=2) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text(rows), dest)
        return
    names = ("GPU", "law", "exponent", "idle W", "curves", "points", "MAPE", "MAPE, top-anchored")
    fields = [Field(n, "name" if n in ("GPU", "law") else "number") for n in names]
    cells = [
        [
            escape(r["gpu"]),
            escape(r["law"]),
            f"{r['exponent']:.3f}",
            f"{r['idle_w']:g}",
            str(r["curves"]),
            str(r["points"]),
            f"{100 * r['mape']:.1f}%",
            f"{100 * r['mape_top_anchored']:.1f}%",
        ]
        for r in rows
    ]
    out = table_console(dest)
    title = "Power law against measured power: predicted from idle and each curve's fitted top power"
    print_records(out, title, fields, cells)
    out.print(
        "MAPE: over every measured batch, each curve anchored at the top power that fits its points best; "
        "top-anchored: anchored at its largest batch's power alone.",
        highlight=False,
    )
    emit_table(out, dest)


@power_app.command("fit")
def fit(
    csv_path: CsvArg,
    idle_w: IdleOpt = None,
    splits: SplitsOpt = 20,
    seed: SeedOpt = 0,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Fit the power law's exponent per GPU, with its spread and its error on models left out of the fit."""
    from dataclasses import asdict

    from rackcost.model.energy.power_law import fit_family

    dest = destination(output, force, csv_path)
    groups = _by_gpu(_curves(csv_path, idle_w))
    everything = [c for curves in groups.values() for c in curves]
    summaries = []
    for name, curves in [*groups.items(), *([("all", everything)] if len(groups) > 1 else [])]:
        if len({c.key[0] for c in curves}) < 2:
            error(f"{csv_path}: GPU {name!r} has curves of one model only; a held-out error needs two or more")
            raise typer.Exit(code=1)
        summaries.append(asdict(fit_family(curves, name, splits=splits, seed=seed)))
    if fmt is OutputFormat.json:
        emit(json.dumps({"fits": summaries, "splits": splits, "seed": seed}, indent=2) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text(summaries), dest)
        return
    names = ["GPU", "exponent", "5th-95th pct", "curves", "points", "MAPE", "held-out MAPE", "worst half"]
    names.append("top-anchored")
    fields = [Field(n, "name" if n == "GPU" else "number") for n in names]
    cells = [
        [
            escape(s["family"]),
            f"{s['exponent']:.3f}",
            f"{s['exponent_low']:.3f}-{s['exponent_high']:.3f}",
            str(s["curves"]),
            str(s["points"]),
            f"{100 * s['mape']:.1f}%",
            f"{100 * s['mape_held_out']:.1f}%",
            f"{100 * s['mape_held_out_max']:.1f}%",
            f"{100 * s['mape_top_anchored']:.1f}%",
        ]
        for s in summaries
    ]
    out = table_console(dest)
    title = f"Power law fitted per GPU (held out: {splits} random halves of the models, seed {seed})"
    print_records(out, title, fields, cells)
    emit_table(out, dest)
