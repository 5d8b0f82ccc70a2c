"""``rackcost new``: a scenario from a model, a request shape, an SLO, demand points, catalogue systems and their
benchmark curves, validated before it is written (:mod:`rackcost.importers.new_scenario`)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from rackcost.cli.common import ForceOpt, OutputOpt, console, destination, emit, error, fail
from rackcost.cli.importing import Percentile
from rackcost.errors import ScenarioError

__all__ = ["COMMANDS", "new"]

_DEMAND = re.compile(r"^([A-Za-z0-9_.-]+)=([0-9.eE+-]+)@([0-9.eE+-]+)$")


def _demand(items: list[str]) -> list[tuple[str, float, float]]:
    """``NAME=RPS@HOURS`` items as (name, rate, hours), or one error line and exit code 1."""
    out = []
    for item in items:
        found = _DEMAND.match(item.strip())
        try:
            if found is None:
                raise ValueError
            out.append((found.group(1), float(found.group(2)), float(found.group(3))))
        except ValueError:
            error(f"--demand {item}: expected NAME=RPS@HOURS, e.g. peak=40@6 (40 requests/s for 6 hours a day)")
            raise typer.Exit(code=1) from None
    return out


def _curves(items: list[str]) -> dict[str | None, list[Path]]:
    """``[ENTRY=]PATH`` items: paths by the entry they are given for (None: matched by the hardware they name)."""
    out: dict[str | None, list[Path]] = {}
    for item in items:
        entry, sep, path = item.partition("=")
        key, where = (entry.strip().lower(), Path(path)) if sep and not Path(item).exists() else (None, Path(item))
        if not where.exists():
            error(f"--curves {item}: no such file or folder: {where}")
            raise typer.Exit(code=1)
        out.setdefault(key, []).append(where)
    return out


_FIGURE = re.compile(r"^([A-Za-z0-9_-]+):([a-z_.]+)=([0-9.eE+-]+)$")


def _figures(items: list[str]) -> dict[str, dict[str, float]]:
    """``ENTRY:PATH=VALUE`` items by entry, or one error line and exit code 1."""
    out: dict[str, dict[str, float]] = {}
    for item in items:
        found = _FIGURE.match(item.strip())
        try:
            if found is None:
                raise ValueError
            out.setdefault(found.group(1).lower(), {})[found.group(2)] = float(found.group(3))
        except ValueError:
            error(f"--figure {item}: expected ENTRY:PATH=VALUE, e.g. gaudi3:hardware.accelerator_rated_w=900")
            raise typer.Exit(code=1) from None
    return out


def _command_line(ctx: typer.Context) -> str:
    """The command as given, rebuilt from the options' values (every option that is not its default)."""
    words = ["rackcost", "new"]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if value is None or value == param.default or value == [] or not param.opts:
            continue
        flag = param.opts[0]
        if isinstance(value, bool):
            words.append(flag)
            continue
        for one in value if isinstance(value, list | tuple) else [value]:
            words += [flag, str(one.value if hasattr(one, "value") else one)]
    return " ".join(shlex.quote(w) for w in words)


def new(
    ctx: typer.Context,
    model: Annotated[str, typer.Option("--model", help="The model served, e.g. deepseek-ai/DeepSeek-R1.")],
    input_tokens: Annotated[
        int, typer.Option("--input-tokens", min=1, max=10_000_000, help="Input tokens per request \\[tokens].")
    ],
    output_tokens: Annotated[
        int, typer.Option("--output-tokens", min=1, max=10_000_000, help="Output tokens per request \\[tokens].")
    ],
    ttft_ms: Annotated[float, typer.Option("--ttft-ms", min=1e-3, max=1e7, help="The SLO's TTFT limit \\[ms].")],
    tpot_ms: Annotated[float, typer.Option("--tpot-ms", min=1e-3, max=1e7, help="The SLO's TPOT limit \\[ms].")],
    demand: Annotated[
        list[str],
        typer.Option("--demand", help="A demand point NAME=RPS@HOURS (repeat; the hours add up to 24)."),
    ],
    system: Annotated[
        list[str], typer.Option("--system", help="A catalogue entry (repeat): rackcost catalog lists them.")
    ],
    curves: Annotated[
        list[str],
        typer.Option(
            "--curves",
            help="Result files or folders (repeat): InferenceX JSON or rackcost's CSV table; ENTRY=PATH gives them "
            "to one entry, else each curve goes to the entry whose InferenceX hardware it names.",
        ),
    ],
    figure: Annotated[
        list[str] | None,
        typer.Option(
            "--figure",
            help="The buyer's own figure for an entry, ENTRY:PATH=VALUE (repeat), e.g. gaudi3:hardware."
            "accelerator_rated_w=900 or b300:rent.usd_per_accelerator_hour=3.2: a figure the catalogue leaves out, "
            "or one the buyer knows better (labelled an assumption).",
        ),
    ] = None,
    name: Annotated[str | None, typer.Option("--name", help="The scenario's name.")] = None,
    precision: Annotated[
        str | None, typer.Option("--precision", help="The workload's precision; default the curves' if they agree.")
    ] = None,
    tier: Annotated[
        str,
        typer.Option(
            "--tier",
            help="InferenceX's price tier the systems are rented at: hyperscaler-owned, neocloud-owned or "
            "rental-3-year.",
        ),
    ] = "hyperscaler-owned",
    attainment: Annotated[
        float, typer.Option("--attainment", min=0.5, max=1 - 1e-9, help="Share of requests within the SLO.")
    ] = 0.99,
    percentile: Annotated[
        Percentile, typer.Option("--percentile", help="The percentile TTFT and TPOT are read at (as rackcost import).")
    ] = Percentile.p99,
    any_model: Annotated[
        bool, typer.Option("--any-model", help="Keep curves measured on another model (each says its model).")
    ] = False,
    pue: Annotated[float | None, typer.Option("--pue", min=1.0, max=5.0, help="The site's PUE.")] = None,
    electricity: Annotated[
        float | None,
        typer.Option("--electricity-usd-per-kwh", min=0.0, max=10.0, help="The site's electricity price [USD/kWh]."),
    ] = None,
    rack_kw: Annotated[
        float | None,
        typer.Option("--rack-power-limit-kw", min=0.1, max=1e4, help="Power a rack position may draw \\[kW]."),
    ] = None,
    carbon: Annotated[
        float | None,
        typer.Option(
            "--carbon-g-per-kwh",
            min=0.0,
            max=3000.0,
            help="The site's grid carbon intensity \\[g CO2e/kWh]; default the US 2022 average, 390.",
        ),
    ] = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """Write a scenario from a model, a request shape, an SLO, demand points, catalogue systems and their curves.

    Each system is a catalogue entry with a curve measured on it (one system per curve), rented at an InferenceX
    price tier; every figure carries its source. The scenario is validated before it is written (docs/catalog.md).
    """
    from rackcost.importers.new_scenario import (
        DemandSpec,
        NewScenarioError,
        NewScenarioSpec,
        build_scenario,
        read_curve_paths,
        scenario_text,
    )

    dest = destination(output, force)
    points = _demand(demand)
    given = _curves(curves)
    facility = {
        k: v
        for k, v in {
            "pue": pue,
            "electricity_usd_per_kwh": electricity,
            "rack_power_limit_kw": rack_kw,
            "carbon_g_per_kwh": carbon,
        }.items()
        if v is not None
    }
    spec = NewScenarioSpec(
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        ttft_limit_ms=ttft_ms,
        tpot_limit_ms=tpot_ms,
        demand=tuple(DemandSpec(*p) for p in points),
        systems=tuple(system),
        name=name,
        precision=precision,
        tier=tier,
        attainment_fraction=attainment,
        any_model=any_model,
        facility=facility,
        figures=_figures(figure or []),
    )
    say = console(stderr=True)
    read = {entry: read_curve_paths(paths, percentile.value) for entry, paths in given.items()}
    for result in read.values():
        for skipped in result.skipped:
            say.print(f"skipped {escape(str(skipped))}", highlight=False, soft_wrap=True)
    try:
        data, notes = build_scenario(spec, {entry: result.curves for entry, result in read.items()})
    except NewScenarioError as exc:
        for line in exc.problems:
            error(line)
        raise typer.Exit(code=1) from None
    for note in notes:
        say.print(escape(note), highlight=False, soft_wrap=True)
    file = str(output) if output is not None else "<rackcost new>"
    command = _command_line(ctx)
    try:
        text = scenario_text(data, file, command)
    except ScenarioError as exc:
        fail(exc)
    emit(text, dest)
    names = [str(s["name"]) for s in data["systems"]]
    say.print(f"{len(names)} system(s): {escape(', '.join(names))}", highlight=False, soft_wrap=True)


COMMANDS = (new,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
