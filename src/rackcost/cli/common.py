"""What every ``rackcost`` command shares: the console, user errors, scenario loading, output, option types.

A user mistake (a bad scenario, a missing or unwritable file) ends with exit code 1 and one line per problem on
stderr, never a traceback.
"""

from __future__ import annotations

import io
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from rackcost.errors import ScenarioError
from rackcost.scenario.loading import DEFAULT_SCENARIO, bundled_scenario_path, load_scenario

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario

__all__ = [
    "PIPED_WIDTH",
    "FormatOpt",
    "OutputFormat",
    "OutputOpt",
    "ScenarioArg",
    "TableName",
    "TableOpt",
    "console",
    "emit",
    "emit_table",
    "error",
    "fail",
    "load",
    "print_problems",
    "table_console",
    "write",
]

PIPED_WIDTH = 200
"""Width [characters] of the console when not on a terminal, so that piped tables are not squashed to 80 columns."""


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


class TableName(StrEnum):
    points = "points"
    systems = "systems"
    comparison = "comparison"


ScenarioArg = Annotated[
    Path | None,
    typer.Argument(help="Scenario YAML file, or the name of a bundled scenario. Default: the bundled default."),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="table (Rich), json or csv.")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")]
TableOpt = Annotated[TableName, typer.Option("--table", help="Which table --format csv writes.")]


def console(stderr: bool = False, file: TextIO | None = None) -> Console:
    """The Rich console a command prints with.

    Parameters
    ----------
    stderr
        Print to stderr instead of stdout.
    file
        Print into this file instead (a table rendered for ``--output``); then always :data:`PIPED_WIDTH` wide and
        without colour codes.

    Returns
    -------
    Console
        As wide as the terminal on a terminal, :data:`PIPED_WIDTH` characters wide otherwise.
    """
    if file is not None:
        return Console(file=file, width=PIPED_WIDTH, force_terminal=False)
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, width=None if probe.is_terminal else PIPED_WIDTH)


def table_console(output: Path | None) -> Console:
    """The console a table goes to: stdout, or a buffer that :func:`emit_table` writes to ``output``."""
    return console() if output is None else console(file=io.StringIO())


def error(message: str) -> None:
    """Print ``error: message`` on stderr, on one line, the message printed literally (no Rich markup)."""
    console(stderr=True).print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)


def print_problems(exc: ScenarioError) -> None:
    """Print each problem of ``exc`` as one error line (file, YAML path, line and message)."""
    for problem in exc.problems:
        error(str(problem))


def fail(exc: ScenarioError) -> NoReturn:
    """Print the problems of ``exc`` and end the command with exit code 1."""
    print_problems(exc)
    raise typer.Exit(code=1)


def load(scenario: Path | None) -> Scenario:
    """Load and validate a scenario file or bundled scenario (default: the bundled default), or :func:`fail`."""
    try:
        return load_scenario(scenario if scenario is not None else bundled_scenario_path(DEFAULT_SCENARIO))
    except ScenarioError as exc:
        fail(exc)


def write(output: Path, text: str, report: Console | None = None) -> None:
    """Write ``text`` to ``output`` and say so, or end with exit code 1 and a one-line error if it cannot be written.

    Parameters
    ----------
    output
        File to write (UTF-8).
    text
        Its whole content.
    report
        Console that says ``wrote PATH``; default stderr, so that stdout stays clean.
    """
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        error(f"{output}: cannot write: {exc.strerror or exc}")
        raise typer.Exit(code=1) from None
    (report or console(stderr=True)).print(f"wrote {escape(str(output))}", highlight=False)


def emit(text: str, output: Path | None) -> None:
    """Send a command's result text to stdout, or :func:`write` it to ``output`` (the ``--output`` file)."""
    if output is None:
        sys.stdout.write(text)
    else:
        write(output, text)


def emit_table(table_out: Console, output: Path | None) -> None:
    """Finish what was printed on :func:`table_console`: nothing for stdout, or write the buffer to ``output``."""
    if output is not None:
        buffer = table_out.file
        assert isinstance(buffer, io.StringIO)  # table_console gives a buffer whenever there is an output
        write(output, buffer.getvalue())
