"""``rackcost sweep``: every configuration of a sweep file, on Dask, to Parquet or CSV, with a printed summary."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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
    from rich.console import Console

    from rackcost.analysis.sweep.design import Design
    from rackcost.analysis.sweep.run import SweepResult
    from rackcost.analysis.sweep.summary import SummaryStream

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
    from rackcost.analysis.sweep.run import resolve

    address = _checked_options(scheduler, workers, output, force)
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
    result, summary, elapsed = _run(d, out, output, force, scheduler, address, workers, chunk_configs, yes)
    out.print(
        f"evaluated in {elapsed:.2f} s ({d.configurations / max(elapsed, 1e-9):,.0f} configurations/s)", highlight=False
    )
    if output is not None:
        out.print(f"wrote {escape(str(output))} ({result.rows:,} rows)", highlight=False)
    _finish(_Summary(result, summary), output)


def _checked_options(scheduler: str, workers: int | None, output: Path | None, force: bool) -> str | None:
    """The options checked before the sweep file is read (the scheduler, the workers, the output's suffix and
    whether it may be replaced); the scheduler's address, or None for a local scheduler. Exits on a bad one."""
    from rackcost.analysis.sweep.bounds import check_workers
    from rackcost.analysis.sweep.run import SweepError

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
    return address


def _run(
    d: Design,
    out: Console,
    output: Path | None,
    force: bool,
    scheduler: str,
    address: str | None,
    workers: int | None,
    chunk_configs: int | None,
    yes: bool,
) -> tuple[SweepResult, SummaryStream, float]:
    """The sweep run on Dask behind a progress bar, each chunk's rows written to the table's file and added to the
    summary as they come, and the seconds it took to the table's end; a failure exits with its message (Ctrl-C with
    130, nothing written)."""
    from rich.progress import Progress

    from rackcost.analysis.sweep.run import SweepError, run_sweep

    summary = _summary_stream(d)
    started = time.perf_counter()
    try:
        with (
            Progress(console=out, transient=True) as bar,
            _table_file(output, force, d.inputs) as table_file,
        ):
            task = bar.add_task("configurations", total=d.configurations)

            def take(piece: pd.DataFrame) -> None:  # each chunk's rows, in order: to the file and the summary
                table_file.write(piece)
                summary.add(piece)

            result = run_sweep(
                d,
                scheduler=scheduler if address is None else "threads",
                workers=workers,
                address=address,
                chunk_configs=chunk_configs,
                confirm=yes,
                progress=lambda done: bar.update(task, completed=done),
                sink=take,
            )
            table_file.finish(result.frame)
            elapsed = time.perf_counter() - started
    except ScenarioError as exc:
        fail(exc)
    except SweepError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        error("interrupted: no table written (worker processes were stopped)")
        raise typer.Exit(code=130) from None
    except CannotWriteError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    return result, summary, elapsed


def _finish(summary: _Summary, output: Path | None) -> None:
    """The summary printed, then the chunks that failed (exit 1 if any)."""
    result = summary.result
    try:
        _print_summary(summary)
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


class _TableFile:
    """The output table, written piece by piece into the temporary file of :func:`rackcost.files.atomic_path`:
    Parquet by :class:`pyarrow.parquet.ParquetWriter` (a row group per piece, one schema), CSV by appending
    (the header once). Nothing is written without an output."""

    def __init__(self, output: Path | None, partial: Path | None, force: bool, inputs: tuple[Path, ...]) -> None:
        self.output, self.partial, self.force, self.inputs = output, partial, force, inputs
        self.rows = 0
        self._parquet: Any = None
        self._csv = False  # whether the CSV file has been begun

    def write(self, piece: pd.DataFrame) -> None:
        """Append a piece of the table (the table's columns and types)."""
        if self.partial is None or self.output is None:
            return
        from rackcost.analysis.sweep.table import numeric_axes_as_floats

        piece = numeric_axes_as_floats(piece)  # the file holds numbers, the library's table their categoricals
        if self.output.suffix.lower() == ".parquet":
            # pyarrow ships no type information (pyproject.toml): its two imports say so here
            import pyarrow as pa  # type: ignore[import-untyped]
            import pyarrow.parquet as pq  # type: ignore[import-untyped]

            table = pa.Table.from_pandas(piece, preserve_index=False)
            if self._parquet is None:
                self._parquet = pq.ParquetWriter(self.partial, table.schema, compression="snappy")
            self._parquet.write_table(table)
        else:  # appended piece by piece, the header with the first
            first = not self._csv
            _neutralised(piece).to_csv(self.partial, mode="w" if first else "a", header=first, index=False)
            self._csv = True
        self.rows += len(piece)

    def finish(self, empty: pd.DataFrame) -> None:
        """Close the file (a table with no rows is ``empty``'s columns), after checking again that the output may
        be replaced: the sweep may have run for a while."""
        if self.partial is None:
            return
        if self._parquet is None and not self._csv:
            self.write(empty)
        self.close()
        check_output(self.output, self.force, self.inputs)

    def close(self) -> None:
        """Close the writer, if open (the temporary file is then renamed into place or removed)."""
        if self._parquet is not None:
            self._parquet.close()
        self._parquet = None


@contextmanager
def _table_file(output: Path | None, force: bool, inputs: tuple[Path, ...]) -> Iterator[_TableFile]:
    """The table's file for the block (:class:`_TableFile`), written through a temporary file beside ``output``
    that is renamed into place when the block ends (:func:`rackcost.files.atomic_path`): a failure or Ctrl-C
    removes the temporary and leaves any old file as it was. CSV cells that a spreadsheet would run as formulas are
    written as text (:func:`rackcost.files.neutralise_frame`)."""
    if output is None:
        yield _TableFile(None, None, force, inputs)
        return
    try:
        with files.atomic_path(output) as partial:
            table_file = _TableFile(output, partial, force, inputs)
            try:
                yield table_file
            finally:
                table_file.close()
    except OSError as exc:
        raise CannotWriteError(f"{output}: cannot write: {exc.strerror or exc}") from None


class CannotWriteError(Exception):
    """The output table could not be written (the message names the file and why)."""


@dataclass
class _Summary:
    """A run's result and the summary streamed from its pieces
    (:class:`~rackcost.analysis.sweep.summary.SummaryStream`)."""

    result: SweepResult
    stream: SummaryStream


def _summary_stream(d: Design) -> SummaryStream:
    """The summary of the command: the winner table of ``summary.by`` (default every axis but ``systems``) at
    ``summary.demand_point``, and the Pareto fronts of :data:`FRONTS` at the sizing point."""
    from rackcost.analysis.sweep.summary import SummaryStream

    by = d.spec.summary.by if d.spec.summary.by is not None else [a.name for a in d.axes if a.kind != "systems"]
    peak = d.base.sizing_point.name
    return SummaryStream(by, d.spec.summary.demand_point, [(against, peak, better) for against, better in FRONTS])


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


FRONTS = (("interactivity_tokens_per_s", True), ("facility_power_kw", False))
"""The Pareto fronts printed: cost per accepted request against each column, and whether more of it is better."""


def _winner_head(stream: SummaryStream) -> tuple[pd.DataFrame, int, dict[str, int]]:
    """The first :data:`WINNER_ROWS` cells of the winner table, its number of cells and the cells each system won
    (most first; ties in the order the table first names them), read block by block
    (:meth:`~rackcost.analysis.sweep.summary.SummaryStream.winner_blocks`): the whole table is never held."""
    import pandas as pd

    head: list[pd.DataFrame] = []
    kept = cells = 0
    won: dict[str, int] = {}
    for block in stream.winner_blocks():
        if kept < WINNER_ROWS:
            head.append(block.head(WINNER_ROWS - kept))
            kept += len(head[-1])
        cells += len(block)
        for name, n in block["cheapest"].value_counts(sort=False).items():
            won[str(name)] = won.get(str(name), 0) + int(n)
    order = sorted(won, key=lambda name: -won[name])  # stable: ties stay in the order first seen
    table = pd.concat(head, ignore_index=True) if head else pd.DataFrame()
    return table, cells, {name: won[name] for name in order}


def _print_summary(summary: _Summary) -> None:
    """The winner of each cell and the Pareto fronts, as tables on stdout that fit its width."""
    result, stream = summary.result, summary.stream
    d = result.design
    out = console()
    for left_out in result.skipped:
        out.print(
            f"[yellow]note:[/yellow] {escape(left_out['system'])} left out of {left_out['configurations']:,} "
            f"configuration(s): {escape(left_out['reason'])}",
            highlight=False,
        )
    if not result.rows:
        out.print("no configuration could be evaluated")
        return
    systems, demand = [s.name for s in d.base.systems], [p.name for p in d.base.demand]
    by, point = stream.by, stream.demand_point
    table, cells, won = _winner_head(stream)
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
    if cells > WINNER_ROWS:
        out.print(f"... {cells - WINNER_ROWS:,} more cells (all rows are in the --output table)")
    out.print("cells won: " + ", ".join(f"{escape(str(k))} {v:,}" for k, v in won.items()), highlight=False)
    peak = d.base.sizing_point.name
    axes = [a.name for a in d.axes]
    for k, (against, _) in enumerate(FRONTS):
        against_column = column("systems" if against == "interactivity_tokens_per_s" else "points", against)
        front = stream.front(k)
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
