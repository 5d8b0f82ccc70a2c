"""The ``rackcost`` group (rackcost.cli.entry): a command's module loads when that command runs, and ``rackcost
--help`` lists every command without loading any. Checked on ``sys.modules`` of a new interpreter, never by timing
(benchmarks/bench_cold_start.py measures the cold start)."""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
import subprocess
import sys

import click
import typer
from typer.testing import CliRunner

from rackcost.cli import console, entry

NEVER_AT_START = (
    "scipy.optimize",
    "scipy.sparse",
    "scipy.stats",
    "dask",
    "distributed",
    "streamlit",
    "altair",
    "pandas",
)
"""Libraries neither ``import rackcost``, ``rackcost.cli`` nor ``rackcost evaluate`` of a scenario needs (the buying
plan's solver, the sweeps' cluster, the dashboard, data frames)."""


def _modules_after(code: str) -> set[str]:
    """The names in ``sys.modules`` after running ``code`` in a new interpreter (its own output thrown away)."""
    script = (
        "import io, json, sys\n"
        "sys.stdout = io.StringIO()\n"
        f"{code}\n"
        "sys.__stdout__.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m in prefixes or m.startswith(tuple(f"{p}." for p in prefixes)))


def _run_command(args: list[str]) -> str:
    return f"from rackcost.cli.entry import app\napp({args!r}, standalone_mode=False)"


def test_the_package_and_the_cli_load_no_library_they_do_not_use() -> None:
    modules = _modules_after("import rackcost, rackcost.cli\nfrom rackcost.cli import app, main")
    assert _loaded(modules, NEVER_AT_START) == []
    assert _loaded(modules, ("numpy", "scipy", "pydantic", "rackcost.scenario", "rackcost.model")) == []


def test_evaluate_loads_neither_the_optimiser_nor_the_other_commands() -> None:
    """``scipy.optimize`` (the power law's fit, the plan's MILP) and every analysis loaded at start-up made a cold
    ``rackcost evaluate`` about twice the bare imports of its libraries."""
    modules = _modules_after(_run_command(["evaluate"]))
    assert "rackcost.evaluation.chain" in modules  # it did evaluate
    assert _loaded(modules, NEVER_AT_START) == []
    assert _loaded(modules, ("rackcost.analysis", "rackcost.importers")) == []
    # the decision it leads with is worded by the one module every face shares, which loads no chart library
    assert _loaded(modules, ("rackcost.reporting",)) == ["rackcost.reporting", "rackcost.reporting.decision"]
    other_commands = {f"rackcost.cli.{c.target.split(':')[0]}" for c in entry.COMMANDS} - {"rackcost.cli.evaluate"}
    assert sorted(other_commands & modules) == []


def test_the_library_evaluate_loads_no_optimiser() -> None:
    scenario = "rackcost.load_scenario(rackcost.bundled_scenario_path())"
    modules = _modules_after(f"import rackcost\nrackcost.evaluate({scenario})")
    assert _loaded(modules, NEVER_AT_START) == []


def test_help_lists_every_command_without_loading_one() -> None:
    modules = _modules_after(_run_command(["--help"]))
    assert _loaded(modules, ("numpy", "scipy", "pydantic", "rackcost.scenario", "rackcost.model")) == []
    assert sorted(m for m in modules if m.startswith("rackcost.cli.")) == ["rackcost.cli.entry"]


def _group() -> entry.LazyCommands:
    group = typer.main.get_command(entry.app)
    assert isinstance(group, entry.LazyCommands)
    return group


def test_each_summary_is_the_first_paragraph_of_its_commands_help() -> None:
    """:data:`rackcost.cli.entry.COMMANDS` says each command as Typer would from its docstring (or group help)."""
    for command in entry.COMMANDS:
        loaded = entry.load_command(command)
        assert loaded.name == command.name
        assert " ".join(inspect.cleandoc(loaded.help).split("\n\n")[0].split()) == command.summary, command.name
        assert "\n" not in command.summary, command.name  # rackcost --help keeps a break: one line, as Typer joins it


def test_every_command_of_the_modules_is_listed_once() -> None:
    """A command added to a module's ``COMMANDS`` without its line in :data:`rackcost.cli.entry.COMMANDS` fails."""
    listed = [c.target for c in entry.COMMANDS]
    assert len(set(listed)) == len(listed) == len({c.name for c in entry.COMMANDS})
    modules = {target.split(":")[0] for target in listed}
    defined = set()
    for name in modules:
        module = importlib.import_module(f"rackcost.cli.{name}")
        defined |= {f"{name}:{fn.__name__}" for fn in getattr(module, "COMMANDS", ())}
    assert sorted(defined - set(listed)) == []


def test_help_is_the_same_as_with_every_command_registered_at_start_up() -> None:
    """The list of ``rackcost --help`` is the one of the app as it was before the commands loaded lazily: every
    function registered with ``app.command()`` and every group with ``app.add_typer()``, in the same order (each
    command's summary on one line: Typer kept a docstring's line break in the list, where the command's own help
    joins it; the test above checks each summary against its docstring)."""
    eager = typer.Typer(
        name="rackcost", help=entry.app.info.help, no_args_is_help=True, add_completion=False, callback=lambda: None
    )
    for command in entry.COMMANDS:
        module_name, attribute = command.target.split(":")
        target = getattr(importlib.import_module(f"rackcost.cli.{module_name}"), attribute)
        if isinstance(target, typer.Typer):
            eager.add_typer(target, name=command.name)
        else:
            eager.command(command.name, short_help=command.summary)(target)
    runner = CliRunner()
    lazy, loaded = (runner.invoke(app, ["--help"], terminal_width=100) for app in (entry.app, eager))
    assert lazy.exit_code == loaded.exit_code == 0
    assert lazy.output == loaded.output
    group = _group()
    group.load_all()
    assert not any(isinstance(c, entry.Unloaded) for c in group.commands.values())


def test_a_command_runs_and_a_misspelt_one_is_named_with_its_neighbours() -> None:
    runner = CliRunner()
    done = runner.invoke(entry.app, ["scenarios"])
    assert done.exit_code == 0, done.output
    assert ".yaml" in done.output
    wrong = runner.invoke(entry.app, ["evaluat"])
    assert wrong.exit_code == 2
    assert "Did you mean 'evaluate'" in wrong.output
    group = runner.invoke(entry.app, ["import", "--help"])
    assert group.exit_code == 0
    assert "inferencex" in group.output and "csv" in group.output


def test_the_console_script_turns_pydantic_plugins_off_unless_told_otherwise() -> None:
    """pydantic's documented switch: off by default for the command, a value the user set (empty: plugins on) kept;
    the command then skips pydantic's scan of every installed distribution's entry points."""
    environ: dict[str, str] = {}
    console.without_pydantic_plugins(environ)
    assert environ == {"PYDANTIC_DISABLE_PLUGINS": "__all__"}
    kept = {"PYDANTIC_DISABLE_PLUGINS": ""}
    console.without_pydantic_plugins(kept)
    assert kept == {"PYDANTIC_DISABLE_PLUGINS": ""}
    probe = (
        "import sys; import pydantic.plugin._loader as loader; from rackcost.cli import console; "
        "console.without_pydantic_plugins(); from rackcost.scenario.loading import load_scenario, "
        "bundled_scenario_path, DEFAULT_SCENARIO; load_scenario(bundled_scenario_path(DEFAULT_SCENARIO)); "
        "print(loader._plugins is None)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "True"  # pydantic never looked for plugins


def test_a_reader_that_stops_early_leaves_exit_0_and_no_traceback() -> None:
    """``rackcost evaluate | head -1``: the reader closes the pipe before the tables are printed; Rich's console
    (the tables) and the plain writer (JSON) both end quietly with exit 0, so ``set -o pipefail`` sees success, and
    nothing on stderr. The pipe is closed before the command writes (it takes far longer to start), so the first
    write meets it closed."""
    for args in (["evaluate"], ["evaluate", "--format", "json"]):
        script = f"import sys; sys.argv = ['rackcost', *{args!r}]; from rackcost.cli.entry import main; main()"
        proc = subprocess.Popen(
            [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ}
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        with proc.stderr:
            err = proc.stderr.read().decode("utf-8")
        assert proc.wait(timeout=120) == 0, (args, err)
        assert err == "", (args, err)


_BRACKETED = re.compile(r"\[([^\]\[]+)\]")
"""A unit or a note in square brackets (``[ms]``, ``[g CO2e/kWh]``) in a help text (escaped or not)."""


def _every_command() -> list[tuple[list[str], click.Command]]:
    group = _group()
    group.load_all()
    found: list[tuple[list[str], click.Command]] = []
    for name, command in group.commands.items():
        found.append(([name], command))
        if isinstance(command, click.Group):
            found += [([name, sub], c) for sub, c in command.commands.items()]
    return found


def test_every_unit_in_square_brackets_shows_in_the_help() -> None:
    """Typer reads help texts as Rich markup, where ``[ms]``, ``[tokens]`` or ``[kW]`` is a style tag and vanishes
    (``--ttft-ms`` read "The SLO's TTFT limit ."): each bracket a help text writes is escaped, so it shows."""
    runner = CliRunner()
    missing = []
    for words, command in _every_command():
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        wanted = {f"[{m}]" for text in texts for m in _BRACKETED.findall(text)}
        if not wanted:
            continue
        shown = runner.invoke(entry.app, [*words, "--help"], terminal_width=400)
        assert shown.exit_code == 0, shown.output
        flat = " ".join(shown.output.replace("│", " ").split())
        missing += [f"rackcost {' '.join(words)}: {unit}" for unit in sorted(wanted) if unit not in flat]
    assert missing == [], missing
