"""``rackcost profile servegen``: a demand profile, with the rates of the windows inside each hour, from published
client windows (:mod:`rackcost.analysis.servegen_windows`)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from rackcost.cli.common import ForceOpt, OutputOpt, console, destination, emit, error

__all__ = ["profile_app"]

profile_app = typer.Typer(
    help="Demand profiles from published traffic: hourly rates and the windows inside each hour.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class ProfileFormat(StrEnum):
    """What ``rackcost profile`` writes."""

    yaml = "yaml"
    csv = "csv"


@profile_app.command("servegen")
def servegen(
    where: Annotated[
        list[Path],
        typer.Argument(
            help="A folder of ServeGen client files (chunk-N-trace.csv: window start, rate, CV, distribution and "
            "its two parameters, no header), or client files; the fleet's rate is their sum per window."
        ),
    ],
    peak_rps: Annotated[
        float | None,
        typer.Option(
            "--peak-rps",
            min=1e-6,
            max=1e7,
            help="Scale every window so the busiest hour's mean is this rate [requests/s]; default the rates as read.",
        ),
    ] = None,
    fmt: Annotated[
        ProfileFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="yaml: a scenario's demand block (profile, sub_hour and source); csv: hour, arrival_rps and each "
            "window's window_<i>_rps. Default from --output's suffix, else yaml.",
        ),
    ] = None,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """A demand profile from ServeGen's client windows: each hour's mean rate and the rates of its windows.

    The YAML is a scenario's `demand:` block; every named point it makes carries the windows of its nearest hour,
    and sizing, acceptance and cost average over them (docs/model.md, Sub-hour peaks in a profile).
    """
    import yaml

    from rackcost.analysis.servegen_windows import ServeGenError, profile_of_windows, read_servegen_windows
    from rackcost.files import csv_text

    dest = destination(output, force, *where)
    kind = fmt or (ProfileFormat.csv if output is not None and output.suffix.lower() == ".csv" else ProfileFormat.yaml)
    try:
        windows = read_servegen_windows(where[0] if len(where) == 1 else where)
        profile = profile_of_windows(windows, peak_rps)
    except ServeGenError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None
    if kind == ProfileFormat.csv:
        text = csv_text(profile.csv_rows())
    else:
        text = yaml.safe_dump({"demand": profile.demand()}, sort_keys=False, allow_unicode=True, width=120)
    emit(text, dest)
    hourly = profile.hourly_arrival_rps
    busiest = int(hourly.argmax())
    ratio = float(profile.window_rps[busiest].max() / hourly[busiest])
    console(stderr=True).print(
        f"{windows.clients} client file(s), {windows.arrival_rps.size:,} windows of {windows.window_s:g} s: "
        f"{hourly.size:,} hours ({hourly.size // 168} week(s)); busiest hour {busiest} at {hourly[busiest]:.4g} "
        f"requests/s, its busiest window {ratio:.3f}x its mean",
        highlight=False,
        soft_wrap=True,
    )
