"""The ``rackcost`` Typer app, with the commands of the modules of this package, and its entry point.

``evaluate`` (evaluate, compare, validate, schema, scenarios), ``uncertainty`` (uncertainty, tornado, breakeven) and
``importing`` (``rackcost import inferencex | csv``) hold the commands; ``common`` holds what they share. User
mistakes (a bad scenario, a missing file) end with exit code 1 and one line per problem on stderr, never a traceback.

A command's module is imported when that command runs, not at start-up (:class:`LazyCommands`): ``rackcost
evaluate`` loads neither the simulator, the sweeps, the buying plan nor the Monte Carlo, and ``rackcost --help``
loads none of the commands (it lists each by the summary in :data:`COMMANDS`).
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperGroup

__all__ = ["COMMANDS", "LazyCommands", "app", "load_command", "main"]


@dataclass(frozen=True)
class Command:
    """One entry of ``rackcost --help``: the words that run it, where it is defined, and its summary.

    Attributes
    ----------
    name
        The word after ``rackcost``.
    target
        ``module:attribute`` in :mod:`rackcost.cli`: a command function (in its module's ``COMMANDS``) or a
        ``typer.Typer`` of sub-commands (``rackcost import csv``).
    summary
        What ``rackcost --help`` says of it: the first paragraph of the function's docstring (of the group's
        ``help``), the same words on one line, as the command's own help joins them (a line break kept here broke
        the line in the list of commands; tests/test_cli_entry.py checks each against the command it names).
    """

    name: str
    target: str
    summary: str


COMMANDS: tuple[Command, ...] = (
    Command(
        "evaluate",
        "evaluate:evaluate",
        "Evaluate a scenario: each system at each demand point, the fleet, and the claim-vs-decision table.",
    ),
    Command(
        "compare",
        "evaluate:compare",
        "Only the claim-vs-decision table: the vendor's headline ratio beside the modelled ratios.",
    ),
    Command(
        "validate",
        "evaluate:validate",
        "Check scenario files and models documents; print every problem with its file, YAML path and line. Exit 1 if "
        "any fails.",
    ),
    Command(
        "schema",
        "evaluate:schema",
        "Print the JSON Schema of scenario files, or of sweep files (for editors that validate and complete YAML).",
    ),
    Command("scenarios", "evaluate:scenarios", "List the bundled scenario, sweep and models files."),
    Command(
        "uncertainty",
        "uncertainty:uncertainty",
        "Monte Carlo over the distributions, else default spreads: how sure, P5/P50/P95 and P(cheaper) by pair.",
    ),
    Command(
        "tornado",
        "uncertainty:tornado",
        "Each uncertain input at its P5 and P95, the others central, ranked by the swing in blended cost.",
    ),
    Command(
        "breakeven",
        "uncertainty:breakeven",
        "The value of one input at which a system and the baseline cost the same per accepted request.",
    ),
    Command(
        "simulate",
        "simulate:simulate",
        "Simulate the sized fleets (discrete events) and print the analytic figures beside the simulated ones.",
    ),
    Command(
        "trace",
        "trace:trace",
        "Measure a trace: its rate and burstiness over time scales, as a demand point's arrival_rps and "
        "arrival_dispersion.",
    ),
    Command(
        "reconcile",
        "reconcile:reconcile",
        "InferenceX's $/M tokens at a benchmark point, and the factors that take it to rackcost's $/M accepted "
        "output tokens at each demand point.",
    ),
    Command(
        "site",
        "site:site",
        "The largest fleet of each system the site's IT power holds (rated power), and what it serves within the SLO.",
    ),
    Command(
        "models",
        "models:models",
        "Several models on one fleet: each model's cost per accepted request, the shared racks' cost split by a rule.",
    ),
    Command(
        "sweep",
        "sweep:sweep",
        "Evaluate every configuration of a sweep: the cheapest system per cell, its margin, and the Pareto fronts.",
    ),
    Command(
        "plan",
        "plan:plan",
        "The cheapest plan over the horizon: owned racks bought per quarter, reservations, on-demand, spot and API, "
        'every hour within the SLO, against the best single source (docs/model.md, "The buying plan").',
    ),
    Command(
        "mix",
        "mix:mix",
        "The cheapest mix of the scenario's systems, each request class routed to the system that serves it cheapest.",
    ),
    Command(
        "report",
        "report:report",
        "Write a decision report: the answer in a sentence, the tables and charts behind it, every figure's source.",
    ),
    Command(
        "validation",
        "validation:validation",
        "The accuracy table (docs/validation.md): interpolation leave-one-out, analytic against simulated, and more.",
    ),
    Command(
        "app", "launch:run_app", "Start the dashboard in your browser (needs the package's app extra, with Streamlit)."
    ),
    Command(
        "catalog",
        "catalog:catalog_command",
        "The catalogue of accelerators and systems: its entries and their sources, or one entry's figures.",
    ),
    Command(
        "new",
        "new:new",
        "Write a scenario from a model, a request shape, an SLO, demand points, catalogue systems and their curves.",
    ),
    Command(
        "import",
        "importing:import_app",
        "Turn benchmark result files into a scenario's performance curves (YAML that pastes into a scenario).",
    ),
    Command(
        "power",
        "power:power_app",
        "The power law (board power against requests in service) against measured power: check or fit it.",
    ),
    Command(
        "profile",
        "profile:profile_app",
        "Demand profiles from published traffic: hourly rates and the windows inside each hour.",
    ),
)
"""Every command, in the order ``rackcost --help`` lists them."""


def _no_options() -> None:
    """A callback without options: Typer then builds a group (:class:`LazyCommands` for the app) whatever its
    commands."""


class Unloaded(typer.core.TyperCommand):
    """A command as ``rackcost --help`` lists it, before its module is imported: its name and summary only."""


def load_command(command: Command) -> Any:
    """The click command (or group) of an entry of :data:`COMMANDS`, its module imported.

    Made as ``app.command()`` (a function) or ``app.add_typer()`` (a ``typer.Typer`` of sub-commands) would make it
    in the ``rackcost`` app: registered so in a Typer of its own, whose group (Typer's public
    ``typer.main.get_command``) then holds it under ``command.name``.
    """
    module_name, attribute = command.target.split(":")
    target = getattr(importlib.import_module(f"rackcost.cli.{module_name}"), attribute)
    holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False, callback=_no_options)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=command.name)
    else:
        holder.command(command.name)(target)
    return typer.main.get_command(holder).commands[command.name]  # type: ignore[attr-defined]


class LazyCommands(TyperGroup):
    """The ``rackcost`` group: each command is a :class:`Unloaded` until it runs, then the command of its module.

    Start-up time (measured, benchmarks/bench_cold_start.py, CPU time against the bare imports of numpy,
    scipy.special, pydantic, PyYAML, Typer and Rich): with every command's module imported at start-up a cold
    ``rackcost --help`` took 2.02x and ``rackcost evaluate`` 1.98x; a command's module (and the simulator, the
    Monte Carlo, the plan's solver behind it) is now imported only to run it (:meth:`resolve_command`) and the list
    of ``rackcost --help`` is read from :data:`COMMANDS`: 0.34x and 1.41x (with the other start-up changes).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entries = {command.name: command for command in COMMANDS}
        for command in COMMANDS:
            self.commands[command.name] = Unloaded(name=command.name, help=command.summary)

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        """The command the arguments name, its module imported (unknown names as Typer says them)."""
        name, command, rest = super().resolve_command(ctx, args)
        if name is not None and isinstance(command, Unloaded):
            command = self.commands[name] = load_command(self.entries[name])
        return name, command, rest

    def load_all(self) -> None:
        """Import every command (for a caller that reads their options, as tests/test_docs.py does)."""
        for name, entry in self.entries.items():
            if isinstance(self.commands[name], Unloaded):
                self.commands[name] = load_command(entry)


app = typer.Typer(
    name="rackcost",
    help="What an inference system really costs per accepted request, at quiet, normal and peak demand.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=LazyCommands,
    callback=_no_options,
)


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
        from rackcost.cli.common import error  # start-up time: common loads the scenario's schema, a full disk rarely

        error(f"cannot write to standard output: {exc.strerror or exc}")  # a full disk behind ``> file``
        code = 1
    finally:
        sys.stderr.flush()
    os._exit(code)


STDOUT_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""The write errors of a full disk (or quota, or file size limit): stdout redirected to a file that cannot grow, a
one-line error. Other errors are a bug and keep their traceback."""
