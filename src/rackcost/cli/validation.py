"""``rackcost validation``: the accuracy table the project regenerates (``docs/validation.md``), written to stdout or
``--output``.

The edge of :mod:`rackcost.analysis.validation`: here the bundled scenarios are loaded and the shared InferenceX
files imported (``--data``, default ``../shared/data`` when it exists), the sections computed, and the Markdown
written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rackcost.cli.common import ForceOpt, OutputOpt, SeedOpt, console, destination, emit, error, fail
from rackcost.errors import ScenarioError
from rackcost.files import InputFileError, read_regular_file

if TYPE_CHECKING:
    from rackcost.analysis.validation.shared_files import InferenceXFile
    from rackcost.model.energy.power_law import PowerCurve

__all__ = [
    "COMMANDS",
    "DEFAULT_DATA",
    "DEFAULT_LABEL",
    "MAX_SKIPS_SHOWN",
    "import_shared_curves",
    "read_inferencex_files",
    "read_mlperf_points",
    "reproduction_options",
    "validation",
]

DEFAULT_DATA = Path("..") / "shared" / "data"
"""The shared data folder when ``--data`` is not given, relative to the current directory (beside the repository)."""
DEFAULT_LABEL = "the default of --data, beside the repository"
"""How the file names the default data folder (its path is the build machine's)."""
MAX_SKIPS_SHOWN = 6
"""Items the importer skipped that the section names one by one; the rest are counted [-]."""


def import_shared_curves(data_folder: Path | None) -> tuple[list, str]:
    """The curves of the shared InferenceX files (``DATA/inferencex`` and its subfolders) and a note saying what was
    imported and skipped, or why nothing was.

    Returns
    -------
    (list of NamedCurve, str)
    """
    from rackcost.analysis.validation.interpolation import curve_from_performance
    from rackcost.analysis.validation.sections import NamedCurve
    from rackcost.importers.inferencex import read_inferencex_paths

    if data_folder is None:
        return [], (
            "skipped: no shared data folder (the default of --data, beside the repository, does not exist; give "
            "--data PATH), so only the bundled scenarios' curves are measured."
        )
    folder = data_folder / "inferencex"
    if not folder.is_dir():
        return [], "skipped: the data folder has no `inferencex/`, so only the bundled scenarios' curves are measured."
    folders = [folder, *sorted(p for p in folder.rglob("*") if p.is_dir())]
    result = read_inferencex_paths(folders)
    curves, unusable = [], []
    for imported in result.curves:
        source = ", ".join(sorted({Path(f).name for f in imported.files}))
        try:
            curves.append(NamedCurve(source, imported.label, curve_from_performance(imported.performance)))
        except (KeyError, ValueError) as exc:
            unusable.append(f"{imported.label}: {exc}")
    files = sum(1 for d in folders for _ in d.glob("*.json"))
    note = (
        f"`inferencex/` of the data folder and its subfolders hold {files} JSON files; the importer read "
        f"{len(result.curves)} curves "
        f"({sum(len(c.curve) for c in curves)} points) from them."
    )
    skipped = [str(s).replace(str(folder) + "/", "") for s in result.skipped]
    skipped += unusable
    if skipped:
        shown = "; ".join(_short(s) for s in skipped[:MAX_SKIPS_SHOWN])
        more = f"; and {len(skipped) - MAX_SKIPS_SHOWN} more" if len(skipped) > MAX_SKIPS_SHOWN else ""
        note += f" Not measured ({len(skipped)} items the importer skipped or could not use): {shown}{more}."
    return curves, note


def _power_curves(data_folder: Path | None) -> list[PowerCurve]:
    """The ML.ENERGY curves of the shared folder with the package's idle powers, or none where absent."""
    from rackcost.analysis.validation.power import MEASUREMENTS_FILE
    from rackcost.importers.power_csv import read_power_curves
    from rackcost.model.energy.power_law import DEFAULT_IDLE_W

    path = None if data_folder is None else data_folder / MEASUREMENTS_FILE
    if path is None or not path.is_file():
        return []
    try:
        return read_power_curves(path, DEFAULT_IDLE_W)
    except InputFileError as exc:
        error(str(exc))
        raise typer.Exit(code=1) from None


def reproduction_options(raw: Any) -> dict[str, Any]:
    """The importer's options for a file of the InferenceX reproduction, from its parsed JSON: p95 standing in for
    the SLO's percentile in an agentic file (stage F, no p99), and the fallback lengths
    (:data:`rackcost.analysis.validation.inferencex.FALLBACK_LENGTHS`) for rows whose file and name give none.

    Examples
    --------
    >>> reproduction_options([{"hw": "x", "conc": 1, "tput_per_gpu": 1.0, "p95_ttft": 0.1, "p95_intvty": 9.0}])
    {'percentile': 'p95', 'isl': 1024, 'osl': 1024}
    """
    from rackcost.analysis.validation.inferencex import FALLBACK_LENGTHS
    from rackcost.importers.inferencex_stages import detect_stage

    isl, osl = FALLBACK_LENGTHS
    return {"percentile": "p95" if detect_stage(raw) == "F" else "p99", "isl": isl, "osl": osl}


def read_inferencex_files(data_folder: Path | None) -> list[InferenceXFile]:
    """Every JSON file of ``DATA/inferencex`` and its subfolders, parsed, with the curves the importer reads from it
    alone (:func:`reproduction_options`); none when the folder is absent.

    A file that cannot be read or parsed is kept, without JSON, with the reason in its ``skipped``.
    """
    import json

    from rackcost.analysis.validation.shared_files import InferenceXCurve, InferenceXFile
    from rackcost.importers.inferencex import MAX_FILE_BYTES, read_inferencex

    folder = None if data_folder is None else data_folder / "inferencex"
    if folder is None or not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.rglob("*.json")):
        name = path.relative_to(folder).as_posix()
        try:
            data = read_regular_file(path, MAX_FILE_BYTES, "InferenceX JSON result file")
        except InputFileError as exc:
            out.append(InferenceXFile(name, None, skipped=(_short(_without(path, str(exc))),)))
            continue
        try:
            raw = json.loads(data)
        except ValueError as exc:  # the importer says it too, but the comparison needs the JSON
            out.append(InferenceXFile(name, None, skipped=(_short(f"not JSON: {exc}"),)))
            continue
        options = reproduction_options(raw)
        result = read_inferencex([(str(path), data)], **options)
        curves = tuple(
            InferenceXCurve(c.label, c.performance, c.provenance, c.key.gpus_per_replica)
            for c in result.curves
            if c.key.gpus_per_replica is not None
        )
        skipped = tuple(_short(_without(path, str(s))) for s in result.skipped) + tuple(
            f"{c.label}: GPUs per replica unknown" for c in result.curves if c.key.gpus_per_replica is None
        )
        out.append(InferenceXFile(name, raw, curves, skipped, options["percentile"]))
    return out


def read_mlperf_points(paths: list[Path] | None = None) -> tuple[tuple, str]:
    """The published MLPerf results the MLPerf section reads: the package's table, or the files and folders given
    (``--mlperf``), read by the MLPerf importer; with a note saying where they came from and what was skipped.

    Returns
    -------
    (tuple of MLPerfPoint, str)
    """
    from rackcost.analysis.validation.mlperf import MLPerfPoint
    from rackcost.importers.mlperf import BUNDLED_TABLE, LLM_BENCHMARKS, read_bundled_mlperf, read_mlperf_paths

    result = read_bundled_mlperf() if not paths else read_mlperf_paths(paths)
    where = f"the package's table rackcost/data/{BUNDLED_TABLE}" if not paths else ", ".join(map(str, paths))
    points = []
    for r in result.results:
        if r.accelerators is None or r.accelerator is None or r.benchmark not in LLM_BENCHMARKS:
            continue
        slo, log = r.slo, r.log
        points.append(
            MLPerfPoint(
                r.result_id or "?",
                r.round or "?",
                r.submitter or "?",
                r.platform or "?",
                r.model,
                LLM_BENCHMARKS[r.benchmark],
                r.scenario,
                r.accelerator,
                r.accelerators,
                r.tokens_per_s,
                ttft_p99_ms=None if log is None else log.ttft_p99_ms,
                tpot_p99_ms=None if log is None else log.tpot_p99_ms,
                ttft_limit_ms=None if slo is None else slo.ttft_limit_ms,
                tpot_limit_ms=None if slo is None else slo.tpot_limit_ms,
                power_w=r.power_w,
                url=r.url or "",
                decoding_requests=r.decoding_requests,
            )
        )
    note = f"read from {where}"
    if result.skipped:
        note += f"; {len(result.skipped)} skipped: " + "; ".join(
            _short(str(s)) for s in result.skipped[:MAX_SKIPS_SHOWN]
        )
    return tuple(points), note


SHARED_TRACES = (
    (
        "AzureLLMInferenceTrace_conv.csv",
        "Microsoft Azure, AzurePublicDataset, Azure LLM inference trace 2023, conversation service (2023-11-16, one "
        "hour; Patel et al., Splitwise, ISCA 2024), CC-BY 4.0",
    ),
    (
        "mooncake_conversation_trace.jsonl",
        "Moonshot AI / kvcache-ai, Mooncake, FAST25-release conversation trace (Qin et al., Mooncake, FAST 2025), "
        "Apache-2.0",
    ),
)
"""The shared folder's production traces of single requests (``traces/``) and their sources."""
QUICK_TRACE_S = 900.0
"""With ``--quick``, each trace's first 15 minutes only [s]."""


def read_shared_traces(folder: Path | None, quick: bool = False) -> tuple:
    """The shared production traces of :data:`SHARED_TRACES` that exist under ``folder/traces`` (none without it)."""
    from rackcost.analysis.trace_files import read_trace
    from rackcost.analysis.trace_scaling import cut_window
    from rackcost.analysis.validation.traffic import NamedTrace

    if folder is None:
        return ()
    out = []
    for name, source in SHARED_TRACES:
        path = folder / "traces" / name
        if path.is_file():
            trace = read_trace(path)
            out.append(NamedTrace(name, source, cut_window(trace, 0.0, QUICK_TRACE_S) if quick else trace))
    return tuple(out)


def _without(path: Path, text: str) -> str:
    """A message about one file without its path (the line names the file already): ``[row 3]: ...`` or the rest."""
    return text.replace(f"{path}: ", "").replace(str(path), "")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def validation(
    output: OutputOpt = None,
    force: ForceOpt = False,
    quick: Annotated[
        bool,
        typer.Option(
            "--quick", help="A small simulation budget (seconds, for tests); the committed file uses the full one."
        ),
    ] = False,
    seed: SeedOpt = 0,
    data: Annotated[
        Path | None,
        typer.Option(
            "--data",
            help="The shared data folder with inferencex/ (default: ../shared/data from the current directory, if "
            "it exists; else that part is skipped and says why).",
        ),
    ] = None,
    mlperf: Annotated[
        list[Path] | None,
        typer.Option(
            "--mlperf",
            help="MLPerf summary_results.json or mlperf_log_summary.txt files or folders for the MLPerf section "
            "(default: the package's table of published results).",
        ),
    ] = None,
) -> None:
    """The accuracy table (docs/validation.md): interpolation leave-one-out, analytic against simulated, and more."""
    dest = destination(output, force)
    from rackcost.analysis.validation.registry import build_sections
    from rackcost.analysis.validation.sections import FULL_BUDGET, QUICK_BUDGET, ValidationContext
    from rackcost.reporting.validation import command_line, render_validation, run_line
    from rackcost.scenario.loading import bundled_scenarios, load_scenario

    if data is not None and not data.is_dir():
        error(f"--data {data}: not a folder")
        raise typer.Exit(code=1)
    folder = data if data is not None else (DEFAULT_DATA if DEFAULT_DATA.is_dir() else None)
    budget = QUICK_BUDGET if quick else FULL_BUDGET
    try:
        scenarios = tuple((p.name, load_scenario(p)) for p in bundled_scenarios())
        curves, note = import_shared_curves(folder)
        mlperf_points, mlperf_note = read_mlperf_points(mlperf)
        label = "absent" if folder is None else (DEFAULT_LABEL if data is None else str(data))
        context = ValidationContext(
            scenarios,
            tuple(curves),
            note,
            data_folder=folder,
            data_label=label,
            budget=budget,
            seed=seed,
            power_curves=tuple(_power_curves(folder)),
            inferencex_files=tuple(read_inferencex_files(folder)),
            traces=read_shared_traces(folder, quick),
            mlperf_results=mlperf_points,
            mlperf_note=mlperf_note,
        )
        with console(stderr=True).status("measuring (the simulator runs every bundled scenario and router)"):
            sections = build_sections(context)
    except ScenarioError as exc:
        fail(exc)
    shown_output = None if output is None else str(output)
    parameters = run_line(budget, seed, label)
    text = render_validation(
        sections, command_line(quick, seed, None if data is None else str(data), shown_output), parameters
    )
    emit(text, dest)


COMMANDS = (validation,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
