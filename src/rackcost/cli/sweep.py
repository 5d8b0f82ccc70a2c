"""``rackcost sweep``: every configuration of a sweep file, on Dask, to Parquet or CSV, with a printed summary."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from rackcost import files
from rackcost.cli.common import check_output, console, error, fail
from rackcost.cli.layout import Field, Kind, print_records
from rackcost.display import count, input_value, num, pct, power_kw, usd_per_1k_requests
from rackcost.errors import ScenarioError
from rackcost.evaluation.columns import column
from rackcost.scenario.labels import input_label

if TYPE_CHECKING:
    import pandas as pd

    from rackcost.analysis.sweep.run import SweepResult

__all__ = ["COMMANDS", "sweep"]

LOCAL_SCHEDULERS = ("threads", "processes", "synchronous")
SUFFIXES = (".parquet", ".csv")
PARETO_ROWS = 12
"""Rows of each Pareto front printed (the whole front is in the output file) [-]."""
WINNER_ROWS = 40
"""Cells of the winner table printed before it is cut (the whole table is in ``--summary``) [-]."""


def sweep(
    sweep_file: Annotated[
        Path, typer.Argument(metavar="SWEEP", help="Sweep YAML file, or the name of a bundled sweep.")
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the table (one row per configuration x system x demand point) to this .parquet or .csv file.",
        ),
    ] = None,
    scheduler: Annotated[
        str,
        typer.Option(
            "--scheduler",
            help="Dask scheduler: threads (default), processes, synchronous, or the address of a distributed "
            "scheduler (tcp://host:8786).",
        ),
    ] = "threads",
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Run on a new local Dask cluster of this many worker processes."),
    ] = None,
    chunk_configs: Annotated[
        int | None,
        typer.Option("--chunk-configs", min=1, help="Configurations per Dask task (the result does not depend on it)."),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Run a sweep over the bounds (10^7 rows, 10^9 evaluations, 10^4 groups or 4 GB of estimated memory); "
            "one over the machine's memory is refused even so.",
        ),
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing --output file.")] = False,
    allow_outside: Annotated[
        bool,
        typer.Option(
            "--allow-outside",
            help="Let the sweep read a scenario or import outside the sweep file's folder (default: only files under "
            "it, or a bundled scenario by name).",
        ),
    ] = False,
) -> None:
    """Evaluate every configuration of a sweep: the cheapest system per cell, its margin, and the Pareto fronts."""
    from rackcost.analysis.sweep.bounds import check_workers
    from rackcost.analysis.sweep.run import SweepError, resolve, run_sweep

    address = scheduler if "://" in scheduler else None
    if address is None and scheduler not in LOCAL_SCHEDULERS:
        error(
            f"--scheduler must be one of {', '.join(LOCAL_SCHEDULERS)} or an address such as tcp://host:8786, "
            f"got {scheduler!r}"
        )
        raise typer.Exit(code=1)
    if address is not None and workers is not None:
        error("give --scheduler ADDRESS or --workers N, not both")
        raise typer.Exit(code=1)
    if output is not None and output.suffix.lower() not in SUFFIXES:
        error(f"{output}: --output must end in .parquet or .csv")
        raise typer.Exit(code=1)
    check_output(output, force)
    try:
        check_workers(workers)  # before the header that names them
    except SweepError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    try:
        d = resolve(sweep_file, allow_outside=allow_outside)
    except ScenarioError as exc:
        fail(exc)
    check_output(output, force, d.inputs)  # the sweep file, its base scenario and imports: never replaced
    out = console(stderr=True)
    where = address or (f"a local Dask cluster of {workers} workers" if workers else f"Dask's {scheduler} scheduler")
    out.print(
        f"{escape(d.spec.name)}: {d.configurations:,} configurations x {len(d.base.systems)} systems x "
        f"{len(d.base.demand)} demand points on {escape(where)}",
        highlight=False,
    )
    from rich.progress import Progress

    started = time.perf_counter()
    try:
        with Progress(console=out, transient=True) as bar:
            task = bar.add_task("configurations", total=d.configurations)
            result = run_sweep(
                d,
                scheduler=scheduler if address is None else "threads",
                workers=workers,
                address=address,
                chunk_configs=chunk_configs,
                confirm=yes,
                progress=lambda done: bar.update(task, completed=done),
            )
    except ScenarioError as exc:
        fail(exc)
    except SweepError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        error("interrupted: no table written (worker processes were stopped)")
        raise typer.Exit(code=130) from None
    elapsed = time.perf_counter() - started
    out.print(
        f"evaluated in {elapsed:.2f} s ({d.configurations / max(elapsed, 1e-9):,.0f} configurations/s)", highlight=False
    )
    if output is not None:  # first: the table is what the run was for, the summary can be printed from it again
        try:
            _write(result.frame, output, force, d.inputs)
        except KeyboardInterrupt:
            error("interrupted: no table written")
            raise typer.Exit(code=130) from None
    try:
        _print_summary(result)
    except KeyboardInterrupt:
        error("interrupted: " + (f"the table is written ({output})" if output is not None else "no table written"))
        raise typer.Exit(code=130) from None
    if result.failed_chunks:
        for number, first, last, message in result.failed_chunks:
            error(f"chunk {number} (configurations {first}-{last}) failed after retries: {message}")
        error(
            f"{len(result.failed_chunks)} chunk(s) failed; the rows of the others are kept"
            + (f" in {output}" if output is not None else "")
        )
        raise typer.Exit(code=1)


def _write(frame: pd.DataFrame, output: Path, force: bool, inputs: tuple[Path, ...]) -> None:
    """Write the table through a temporary file beside ``output``, renamed into place at the end
    (:func:`rackcost.files.atomic_path`): a failure or Ctrl-C removes the temporary and leaves any old file as it
    was. CSV cells that a spreadsheet would run as formulas are written as text
    (:func:`rackcost.files.neutralise_frame`)."""
    check_output(output, force, inputs)  # again: the sweep may have run for a while
    try:
        with files.atomic_path(output) as partial:
            if output.suffix.lower() == ".parquet":
                frame.to_parquet(partial, engine="pyarrow", index=False)
            else:
                _neutralised(frame).to_csv(partial, index=False)
    except OSError as exc:
        error(f"{output}: cannot write: {exc.strerror or exc}")
        raise typer.Exit(code=1) from None
    console(stderr=True).print(f"wrote {escape(str(output))} ({len(frame):,} rows)", highlight=False)


def _neutralised(frame: pd.DataFrame) -> pd.DataFrame:
    """The table as CSV may carry it (:func:`rackcost.files.neutralise_frame`). Two labels of one column that
    become equal once neutralised (``=a`` and ``'=a``) cannot both stay categories: that column is written as text."""
    try:
        return files.neutralise_frame(frame)
    except ValueError:
        categorical = {name: object for name in frame.columns if str(frame[name].dtype) == "category"}
        return files.neutralise_frame(frame.astype(categorical))


def _label(value: Any, axis: str) -> str:
    """An axis value as the CLI shows it: a number in its unit (the axis's title, :func:`_title`, names the unit)."""
    from rackcost.analysis.sweep.spec import DEMAND_SCALE

    if not isinstance(value, float):
        return str(value)
    return f"{num(value)}x" if axis == DEMAND_SCALE else input_value(value, axis, words=False)


def _title(axis: str, systems: list[str], demand: list[str]) -> str:
    """An axis's title in words with its unit, as the dashboard names the input (:func:`input_label`)."""
    from rackcost.analysis.sweep.spec import DEMAND_SCALE

    if axis == DEMAND_SCALE:
        return "demand scale [x]"
    if "." not in axis and "[" not in axis:  # not a YAML path: a systems, SLO or payment axis, by its own name
        return axis
    return input_label(axis, systems, demand)


def _kind(axis: str) -> Kind:
    """How an axis's values are laid out: numbers for an input or the demand scale, names otherwise."""
    from rackcost.analysis.sweep.spec import DEMAND_SCALE

    return "number" if axis == DEMAND_SCALE or "." in axis or "[" in axis else "name"


_COST = column("points", "usd_per_accepted_request")


def _print_summary(result: SweepResult) -> None:
    """The winner of each cell and the Pareto fronts, as tables on stdout that fit its width."""
    from rackcost.analysis.sweep.summary import pareto_front, winners

    d = result.design
    out = console()
    frame = result.frame
    for left_out in result.skipped:
        out.print(
            f"[yellow]note:[/yellow] {escape(left_out['system'])} left out of {left_out['configurations']:,} "
            f"configuration(s): {escape(left_out['reason'])}",
            highlight=False,
        )
    if not len(frame):
        out.print("no configuration could be evaluated")
        return
    systems, demand = [s.name for s in d.base.systems], [p.name for p in d.base.demand]
    by = d.spec.summary.by if d.spec.summary.by is not None else [a.name for a in d.axes if a.kind != "systems"]
    point = d.spec.summary.demand_point
    table = winners(frame, by, point)
    titles = [escape(_title(name, systems, demand)) for name in by]
    fields = [Field(t, _kind(name)) for t, name in zip(titles, by, strict=True)]
    fields += [Field("cheapest", "name"), Field(escape(_COST.header)), Field("runner-up", "name")]
    fields += [Field("margin"), Field("configs")]
    rows = []
    for _, row in table.head(WINNER_ROWS).iterrows():
        margin = row["margin_fraction"]
        rows.append(
            [
                *[escape(_label(row[name], name)) for name in by],
                escape(row["cheapest"]),
                usd_per_1k_requests(row["usd_per_accepted_request"]),
                escape(row["runner_up"] or "-"),
                "-" if margin is None or margin != margin else pct(float(margin)),
                count(row["configurations"]),
            ]
        )
    by_words = ", ".join(_title(name, systems, demand) for name in by) or "the whole sweep"
    print_records(out, f"Cheapest per accepted request ({point}), by {escape(by_words)}", fields, rows)
    if len(table) > WINNER_ROWS:
        out.print(f"... {len(table) - WINNER_ROWS:,} more cells (all rows are in the --output table)")
    shares = table["cheapest"].value_counts()
    out.print("cells won: " + ", ".join(f"{escape(str(k))} {v:,}" for k, v in shares.items()), highlight=False)
    peak = d.base.sizing_point.name
    axes = [a.name for a in d.axes]
    for against, better, against_column in (
        ("interactivity_tokens_per_s", True, column("systems", "interactivity_tokens_per_s")),
        ("facility_power_kw", False, column("points", "facility_power_kw")),
    ):
        front = pareto_front(frame, against, peak, better)
        header, fmt = (against_column.label, power_kw) if against_column.unit == "kW" else (against_column.header, None)
        fields = [Field("configuration"), *(Field(escape(_title(a, systems, demand)), _kind(a)) for a in axes)]
        fields += [Field("system", "name"), Field(escape(_COST.header)), Field(escape(header))]
        rows = [
            [
                str(row["configuration"]),
                *[escape(_label(row[a], a)) for a in axes],
                escape(str(row["system"])),
                usd_per_1k_requests(row["usd_per_accepted_request"]),
                fmt(float(row[against])) if fmt else f"{float(row[against]):,.1f}",
            ]
            for _, row in front.head(PARETO_ROWS).iterrows()
        ]
        title = f"Pareto front at {peak}: cost per accepted request vs {escape(header)}, {len(front):,} rows"
        print_records(out, title, fields, rows)


COMMANDS = (sweep,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
