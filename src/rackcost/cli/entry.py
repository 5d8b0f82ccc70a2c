"""The ``rackcost`` Typer app, with the commands of the modules of this package, and its entry point.

``evaluate`` (evaluate, compare, validate, schema, scenarios), ``uncertainty`` (uncertainty, tornado, breakeven) and
``importing`` (``rackcost import inferencex | csv``) hold the commands; ``common`` holds what they share. User
mistakes (a bad scenario, a missing file) end with exit code 1 and one line per problem on stderr, never a traceback.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import Any

import typer

from rackcost.cli import (
    evaluate,
    importing,
    plan,
    power,
    profile,
    reconcile,
    report,
    simulate,
    site,
    sweep,
    trace,
    uncertainty,
    validation,
)
from rackcost.cli.common import error
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
for command in trace.COMMANDS:
    app.command()(command)
for command in reconcile.COMMANDS:
    app.command()(command)
for command in site.COMMANDS:
    app.command()(command)
for command in sweep.COMMANDS:
    app.command()(command)
for command in plan.COMMANDS:
    app.command()(command)
for command in report.COMMANDS:
    app.command()(command)
app.add_typer(power.power_app, name="power")
app.add_typer(profile.profile_app, name="profile")
for command in validation.COMMANDS:
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
        try:
            app()
        finally:
            sys.stdout.flush()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BrokenPipeError:  # stdout closed by its reader (``| head``): nothing more to say to anyone
        code = 0
    except OSError as exc:
        if exc.errno not in STDOUT_FULL:
            raise
        error(f"cannot write to standard output: {exc.strerror or exc}")  # a full disk behind ``> file``
        code = 1
    finally:
        sys.stderr.flush()
    os._exit(code)


STDOUT_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""The write errors of a full disk (or quota, or file size limit): stdout redirected to a file that cannot grow, a
one-line error. Other errors are a bug and keep their traceback."""
