"""What every ``rackcost`` command shares: the console, user errors, scenario loading, output, option types.

A user mistake (a bad scenario, a missing or unwritable file) ends with exit code 1 and one line per problem on
stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TextIO

import typer
from rich.console import Console
from rich.markup import escape

from rackcost import files
from rackcost.errors import ScenarioError
from rackcost.scenario.loading import DEFAULT_SCENARIO, bundled_scenario_path, load_scenario

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario

__all__ = [
    "PIPED_WIDTH",
    "STDOUT",
    "Destination",
    "ForceOpt",
    "FormatOpt",
    "OutputFormat",
    "OutputOpt",
    "ScenarioArg",
    "SeedOpt",
    "TableName",
    "TableOpt",
    "check_distinct",
    "check_output",
    "cli_words",
    "columns_env",
    "console",
    "destination",
    "emit",
    "emit_table",
    "error",
    "fail",
    "load",
    "print_problems",
    "table_console",
    "write",
    "write_stdout",
]

PIPED_WIDTH = 120
"""Width [characters] of the console when not on a terminal (a pipe, a file, ``--output``) and ``COLUMNS`` is not
set: tables laid out as in a 120-column terminal, the widest the tests check."""


def columns_env() -> int | None:
    """The width ``COLUMNS`` asks for [characters], or None when it is not set or not a positive whole number."""
    text = os.environ.get("COLUMNS", "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"


class TableName(StrEnum):
    points = "points"
    systems = "systems"
    comparison = "comparison"
    pools = "pools"
    classes = "classes"
    years = "years"
    horizon = "horizon"


ScenarioArg = Annotated[
    Path | None,
    typer.Argument(help="Scenario YAML file, or the name of a bundled scenario. Default: the bundled default."),
]
FormatOpt = Annotated[OutputFormat, typer.Option("--format", "-f", help="table (Rich), json or csv.")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")]
SeedOpt = Annotated[
    int, typer.Option("--seed", min=0, max=2**63 - 1, help="Seed, 0 to 2^63 - 1; the same seed gives the same result.")
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace an existing --output file (never an input file).")]
TableOpt = Annotated[
    TableName,
    typer.Option(
        "--table",
        help="Which table --format csv writes (classes: a scenario with workload.classes; pools: each pool of a "
        "disaggregated system; years, horizon: demand as a profile).",
    ),
]


class _Console(Console):
    """Rich's console, but a closed pipe (``rackcost evaluate | head``) ends the command quietly with exit 0, as
    :func:`write_stdout` does (Rich's default answer is exit 1, which a shell with ``pipefail`` reads as a
    failure of a command that did everything its reader asked)."""

    def on_broken_pipe(self) -> None:
        _quiet_stdout()
        raise typer.Exit(code=0)


def console(stderr: bool = False, file: TextIO | None = None) -> Console:
    """The Rich console a command prints with, as wide as ``COLUMNS`` says wherever it prints.

    Parameters
    ----------
    stderr
        Print to stderr instead of stdout.
    file
        Print into this file instead (a table rendered for ``--output``); then without colour codes.

    Returns
    -------
    Console
        ``COLUMNS`` characters wide when it is set (on a terminal, a pipe or a file alike: ``COLUMNS=80 rackcost
        evaluate | cat`` fits 80 columns); else as wide as the terminal on a terminal and :data:`PIPED_WIDTH`
        characters otherwise. Emoji codes are left as typed: a name such as ``a:fire:b`` prints as it is
        written, as every name and message is meant to (Rich's emoji table, about 4 ms of a cold start, is then
        never loaded).
    """
    width = columns_env()
    if file is not None:
        return _Console(file=file, width=width or PIPED_WIDTH, force_terminal=False, emoji=False)
    if width is None:
        probe = Console(stderr=stderr)
        width = None if probe.is_terminal else PIPED_WIDTH
    return _Console(stderr=stderr, width=width, emoji=False)


@dataclass(frozen=True)
class Destination:
    """Where a command's result goes: stdout (``path`` None) or an ``--output`` file, with what may be replaced.

    Made by :func:`destination` at the start of a command, so that an output that must not be written is refused
    before any work is done.
    """

    path: Path | None = None
    force: bool = False
    inputs: tuple[Path | None, ...] = ()


def destination(output: Path | None, force: bool = False, *inputs: Path | None) -> Destination:
    """The command's :class:`Destination`, checked now (:func:`check_output`): ``inputs`` are never replaced."""
    check_output(output, force, inputs)
    return Destination(output, force, inputs)


STDOUT = Destination()
"""A command's result on stdout."""


def table_console(output: Destination) -> Console:
    """The console a table goes to: stdout, or a buffer that :func:`emit_table` writes to the output file."""
    return console() if output.path is None else console(file=io.StringIO())


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


def check_output(output: Path | None, force: bool = False, inputs: tuple[Path | None, ...] = ()) -> None:
    """Refuse, before any work, an ``--output`` that exists (without ``--force``), is an input, a folder, or in a
    missing or read-only folder (:func:`rackcost.files.check_output`): one error line and exit code 1."""
    if output is None:
        return
    try:
        files.check_output(output, force, inputs)
    except files.OutputPathError as exc:
        error(cli_words(str(exc)))
        raise typer.Exit(code=1) from None


def check_distinct(outputs: dict[str, Path | None]) -> None:
    """Refuse, before any work, two of a command's outputs (option -> path) that name the same file: the second
    would replace the first, or be refused as existing after the first was written. One error line, exit code 1.

    Two paths are the same file when they resolve to the same path (neither need exist) or name the same existing
    file (:func:`rackcost.files.same_file`: a link or another spelling of it).
    """
    given = [(option, path) for option, path in outputs.items() if path is not None]
    for k, (first, a) in enumerate(given):
        for second, b in given[k + 1 :]:
            if a.resolve() == b.resolve() or files.same_file(a, b):
                error(f"{first} {a} and {second} {b} are the same file; give each its own path")
                raise typer.Exit(code=1)


def cli_words(message: str) -> str:
    """A library message in the CLI's words: ``--force`` where the library says ``force=True``."""
    return message.replace(files.FORCE_WORDS, "--force")


def write(
    output: Path,
    text: str,
    report: Console | None = None,
    force: bool = False,
    inputs: tuple[Path | None, ...] = (),
) -> None:
    """Write ``text`` to ``output`` atomically and say so, or end with exit code 1 and a one-line error.

    Parameters
    ----------
    output
        File to write (UTF-8), through a temporary file and a rename (:func:`rackcost.files.write_atomically`): a
        full disk or Ctrl-C leaves the old file as it was, never a part.
    text
        Its whole content.
    report
        Console that says ``wrote PATH``; default stderr, so that stdout stays clean.
    force, inputs
        As :func:`check_output`, checked again here (the command may have run for a while).
    """
    check_output(output, force, inputs)
    try:
        files.write_atomically(output, text)
    except OSError as exc:
        error(f"{output}: cannot write: {exc.strerror or exc}")
        raise typer.Exit(code=1) from None
    (report or console(stderr=True)).print(f"wrote {escape(str(output))}", highlight=False)


def emit(text: str, output: Destination) -> None:
    """Send a command's result text to stdout, or :func:`write` it to the ``--output`` file."""
    if output.path is None:
        write_stdout(text)
    else:
        write(output.path, text, force=output.force, inputs=output.inputs)


def write_stdout(text: str) -> None:
    """Write to stdout; a closed pipe (``| head``) ends quietly, a full or unwritable stdout with one error line."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        raise typer.Exit(code=0) from None
    except OSError as exc:
        _quiet_stdout()
        error(f"cannot write to standard output: {exc.strerror or exc}")
        raise typer.Exit(code=1) from None


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's own flush at exit does not fail again."""
    # best effort: with no stdout to replace (closed, or not a file), there is nothing left to flush either
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def emit_table(table_out: Console, output: Destination) -> None:
    """Finish what was printed on :func:`table_console`: nothing for stdout, or write the buffer to the file."""
    if output.path is not None:
        buffer = table_out.file
        assert isinstance(buffer, io.StringIO)  # table_console gives a buffer whenever there is an output
        write(output.path, buffer.getvalue(), force=output.force, inputs=output.inputs)
