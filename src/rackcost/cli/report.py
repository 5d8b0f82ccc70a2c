"""``rackcost report``: the decision report of a scenario, as one HTML file or as Markdown with PNG charts."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from rackcost.cli.common import ScenarioArg, SeedOpt, cli_words, console, error, fail
from rackcost.errors import ScenarioError
from rackcost.limits import MAX_CELLS, MAX_SAMPLES
from rackcost.scenario.loading import (
    DEFAULT_SCENARIO,
    bundled_scenario_path,
    is_models_document_refusal,
    load_scenario,
)

if TYPE_CHECKING:
    from rackcost.reporting.blocks import ReportProgress

__all__ = ["COMMANDS", "report", "report_progress", "write_models_report"]


@contextmanager
def report_progress(err: Console) -> Iterator[ReportProgress | None]:
    """The report's stages as a Rich progress display on ``err`` while the report is made, when ``err`` is a
    terminal: a line per stage begun (evaluating, uncertainty samples, charts, writing) with its bar, count and
    time, all cleared at the end (``wrote PATH`` follows). Not on a terminal (a pipe, a file, a test): None, so that
    nothing is shown and stderr holds only the outcome.
    """
    if not err.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

    columns = (
        SpinnerColumn(),
        TextColumn("{task.description:<20}"),
        BarColumn(bar_width=24),
        TextColumn("{task.completed:>6,.0f} / {task.total:,.0f}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=True, refresh_per_second=5) as bar:
        tasks: dict[str, TaskID] = {}

        def show(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                for task in bar.tasks:  # a stage begun ends the one before it
                    bar.update(task.id, completed=task.total)
                tasks[stage] = bar.add_task(stage, total=max(total, 1))
            bar.update(tasks[stage], completed=done, total=max(total, 1))

        yield show


def report(
    scenario: ScenarioArg = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="The report file: .html (one self-contained file) or .md (Markdown, charts as PNG files in "
            "<name>_files/ beside it). Default: <scenario>-report.html in the current folder.",
        ),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            "-n",
            min=1,
            help=f"Monte Carlo samples for the uncertainty section (at most {MAX_SAMPLES:,}); default 10,000 when "
            "the scenario has distributions.",
        ),
    ] = None,
    seed: SeedOpt = 0,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file if it exists.")] = False,
) -> None:
    """Write a decision report: the answer in a sentence, the tables and charts behind it, every figure's source.

    A models document (several models on one fleet, as rackcost models reads it) gets its own report: the answer,
    each model's cost per accepted request, the fleet, the warnings and the document.
    """
    from rackcost.analysis.montecarlo import cells
    from rackcost.reporting.write import ReportPathError, check_output, default_output, format_of, report

    name = scenario if scenario is not None and scenario.suffix else None
    target = output if output is not None else default_output(name or Path(str(scenario or DEFAULT_SCENARIO)))
    if samples is not None and samples > MAX_SAMPLES:
        error(f"--samples {samples:,} is more than the maximum of {MAX_SAMPLES:,}")
        raise typer.Exit(code=1)
    try:
        sc = load_scenario(scenario if scenario is not None else bundled_scenario_path(DEFAULT_SCENARIO))
    except ScenarioError as exc:  # a bad scenario: the same lines as rackcost validate, nothing written
        if scenario is not None and (is_models_document_refusal(exc) or _bundled_models(scenario)):  # several models
            if samples is not None:
                error("--samples: a models document's report has no Monte Carlo (its models at central values)")
                raise typer.Exit(code=1) from None
            write_models_report(scenario, target, None, None, force)
            return
        fail(exc)
    try:
        check_output(target, force)
    except ReportPathError as exc:
        error(cli_words(str(exc)))
        raise typer.Exit(code=1) from None
    if samples is not None and sc.distributions and cells(sc, samples) > MAX_CELLS:
        error(
            f"{samples:,} samples x {len(sc.demand):,} demand points x {len(sc.systems):,} systems is more than "
            f"{MAX_CELLS:,} cells: lower --samples"
        )
        raise typer.Exit(code=1)
    err = console(stderr=True)
    try:
        with report_progress(err) as progress:
            report(
                sc, samples=samples, seed=seed, format=format_of(target), output=target, force=force, progress=progress
            )
    except ScenarioError as exc:
        fail(exc)
    except (ReportPathError, OSError) as exc:
        error(f"{target}: cannot write: {getattr(exc, 'strerror', None) or exc}")
        raise typer.Exit(code=1) from None
    err.print(f"wrote {escape(str(target))}", highlight=False)


def _bundled_models(name: Path) -> bool:
    """Whether ``name``, not a file, names a bundled models document (as ``rackcost models`` reads it)."""
    from rackcost.scenario.loading import bundled_file
    from rackcost.scenario.models_doc import BUNDLED_KIND

    return not name.exists() and bundled_file(BUNDLED_KIND, str(name), missing_ok=True) is not None


def write_models_report(document: Path, target: Path, rule: str | None, placement: str | None, force: bool) -> None:
    """Write a models document's report to ``target`` (:func:`rackcost.models_report`) and say so on stderr, or end
    the command with its problems (the document's, or the path's) and exit code 1; ``rackcost models --report`` and
    ``rackcost report`` of a models document."""
    from rackcost.reporting.write import ReportPathError, format_of, models_report

    try:
        fmt = format_of(target)
        models_report(document, rule=rule, placement=placement, format=fmt, output=target, force=force)  # type: ignore[arg-type]
    except ScenarioError as exc:
        fail(exc)
    except (ReportPathError, OSError) as exc:
        error(
            cli_words(str(exc))
            if isinstance(exc, ReportPathError)
            else f"{target}: cannot write: {exc.strerror or exc}"
        )
        raise typer.Exit(code=1) from None
    console(stderr=True).print(f"wrote {escape(str(target))}", highlight=False)


COMMANDS = (report,)
"""The commands of this module."""
