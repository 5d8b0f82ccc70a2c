"""``rackcost reconcile``: InferenceX's $/M tokens for a system, factor by factor to rackcost's figure.

The work is :func:`rackcost.analysis.reconcile.reconcile`; this module parses the options, prints and writes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    ScenarioArg,
    destination,
    emit,
    emit_table,
    error,
    fail,
    load,
    table_console,
)
from rackcost.cli.layout import print_grid
from rackcost.errors import ScenarioError

if TYPE_CHECKING:
    from rich.console import Console

    from rackcost.analysis.reconcile import Reconciliation

__all__ = ["COMMANDS", "reconcile"]


def reconcile(
    scenario: ScenarioArg = None,
    system: Annotated[str, typer.Option("--system", help="The system to reconcile (its name in the scenario).")] = "",
    tier: Annotated[
        str | None,
        typer.Option(
            "--tier",
            help="InferenceX price tier GPU:TIER, e.g. b200:hyperscaler-owned (tiers: hyperscaler-owned, "
            "neocloud-owned, rental-3-year); a bare TIER when the system's name names the GPU.",
        ),
    ] = None,
    usd_per_gpu_hour: Annotated[
        float | None, typer.Option("--usd-per-gpu-hour", help="A price per GPU-hour instead of a tier [USD/GPU-h].")
    ] = None,
    concurrency: Annotated[
        float | None,
        typer.Option(
            "--concurrency",
            help="Read InferenceX's figure at the measured point nearest this concurrency (default: the one nearest "
            "the chosen operating point).",
        ),
    ] = None,
    output_tokens_per_s_per_gpu: Annotated[
        float | None,
        typer.Option(
            "--output-tokens-per-s-per-gpu",
            help="The benchmark point's measured output tokens/s per GPU (InferenceX's output_tput_per_gpu; per "
            "decode GPU on a disaggregated row); default the point's imported output_throughput_tokens_per_s, else "
            "the nominal ISL/OSL split.",
        ),
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """InferenceX's $/M tokens at a benchmark point, and the factors that take it to rackcost's $/M accepted output
    tokens at each demand point."""
    dest = destination(output, force, scenario)
    from rackcost.analysis.reconcile import reconcile as run

    price = tier if tier is not None else usd_per_gpu_hour
    if price is None or (tier is not None and usd_per_gpu_hour is not None):
        error("give exactly one of --tier NAME and --usd-per-gpu-hour X")
        raise typer.Exit(code=1)
    if not system:
        error("give the system to reconcile: --system NAME")
        raise typer.Exit(code=1)
    sc = load(scenario)
    try:
        result = run(sc, system, price, point=concurrency, output_tokens_per_s_per_gpu=output_tokens_per_s_per_gpu)
    except ScenarioError as exc:
        fail(exc)
    except ValueError as exc:
        error(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        raise typer.Exit(code=1) from None
    if fmt is OutputFormat.json:
        emit(json.dumps(result.to_dict(), indent=2, allow_nan=False) + "\n", dest)
    elif fmt is OutputFormat.csv:
        from rackcost.files import csv_text

        emit(csv_text(result.records()), dest)
    else:
        out = table_console(dest)
        _print(out, result)
        emit_table(out, dest)


def _print(out: Console, r: Reconciliation) -> None:
    from rackcost.evaluation.columns import BLENDED

    out.print(
        f"{escape(r.scenario)}: [bold]{escape(r.system)}[/bold] at {escape(r.price_label)}"
        + (f" ({escape(r.tier.source)}; {r.tier.provenance}, tag {r.tier.tag})" if r.tier is not None else ""),
        highlight=False,
    )
    out.print(
        f"InferenceX at concurrency {r.benchmark_concurrency:g} (100% utilisation): "
        f"${r.inferencex_usd_per_million_total_tokens:.4g} per M total tokens "
        f"({r.total_tokens_per_s_per_gpu:,.4g} tokens/s per GPU), "
        f"${r.inferencex_usd_per_million_output_tokens:.4g} per M output tokens "
        f"({r.output_tokens_per_s_per_gpu:,.4g} per GPU, {escape(r.output_basis)}); "
        f"rackcost's chosen operating point: concurrency {r.chosen_concurrency:g}",
        highlight=False,
    )
    names = list(r.rackcost_usd_per_million_accepted_output_tokens)
    steps: dict[str, dict[str, str]] = {}
    labels: dict[str, str] = {}
    for row in r.rows:
        labels.setdefault(row.step, row.factor)
        cell = (
            f"${row.usd_per_million_output_tokens:.4g}"
            if row.step == "inferencex"
            else f"x{row.multiplier:.4g}  ${row.usd_per_million_output_tokens:.4g}"
        )
        steps.setdefault(row.step, {})[row.demand_point] = cell
    rows = [escape(labels[step]) for step in steps] + ["[bold]rackcost $/M accepted output tokens[/bold]"]
    columns = [
        (
            escape(name) if name != BLENDED else "blended (day)",
            [cells.get(name, "-") for cells in steps.values()]
            + [f"[bold]${r.rackcost_usd_per_million_accepted_output_tokens[name]:.4g}[/bold]"],
        )
        for name in names
    ]
    title = "InferenceX $/M output tokens -> rackcost $/M accepted output tokens: multiplier, then running $/M"
    print_grid(out, title, rows, columns, corner="factor")
    for note in r.notes:
        out.print(f"[yellow]note:[/yellow] {escape(note)}", highlight=False)


COMMANDS = (reconcile,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
