"""The ``rackcost`` Typer app, with the commands of the modules of this package, and its entry point.

``evaluate`` (evaluate, compare, validate, schema, scenarios), ``uncertainty`` (uncertainty, tornado, breakeven) and
``importing`` (``rackcost import inferencex | csv``) hold the commands; ``common`` holds what they share. User
mistakes (a bad scenario, a missing file) end with exit code 1 and one line per problem on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import typer

from rackcost.cli import evaluate, importing, reconcile, report, simulate, site, sweep, uncertainty
from rackcost.cli.launch import run_app

__all__ = ["app", "main"]

app = typer.Typer(
    name="rackcost",
    help="What an inference system really costs per accepted request, at quiet, normal and peak demand.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# in the order ``rackcost --help`` lists them
command: Callable[..., Any]
for command in evaluate.COMMANDS:
    app.command()(command)
app.add_typer(importing.import_app, name="import")
for command in uncertainty.COMMANDS:
    app.command()(command)
for command in simulate.COMMANDS:
    app.command()(command)
for command in reconcile.COMMANDS:
    app.command()(command)
for command in site.COMMANDS:
    app.command()(command)
for command in sweep.COMMANDS:
    app.command()(command)
for command in report.COMMANDS:
    app.command()(command)
app.command("app")(run_app)
del command


def main() -> None:
    """Entry point of the ``rackcost`` command.

    Ends the process with ``os._exit`` once the output is flushed: tearing down numpy, scipy and pydantic at
    interpreter exit costs about 0.2 s on a small machine and does nothing a finished command needs (results are
    written and closed before this point).
    """
    code: int = 0
    try:
        app()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)
