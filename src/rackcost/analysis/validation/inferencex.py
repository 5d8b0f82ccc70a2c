"""The InferenceX reproduction (docs/model.md, Reconciling with InferenceX): reconcile's $/M output and total tokens on
every point of every shared InferenceX file, against InferenceX's own formula computed from the file's raw fields.

InferenceX prices a benchmark point as ``$/M tokens = $/GPU-hour / (tokens/s per GPU x 3600 / 1e6)``: total tokens
at ``tput_per_gpu``, output tokens at ``output_tput_per_gpu`` (SemiAnalysisAI/InferenceX ``utils/process_result.py``:
a raw client file's deployment-wide throughputs over its GPUs; a disaggregated run's output over its decode GPUs
only). :func:`reference_points` computes those figures from the raw JSON, independently of the importer; each
imported curve is pasted into a copy of a bundled scenario (:func:`pasted_scenario`) and priced at each of its
points by :func:`rackcost.analysis.reconcile.reconcile` (:func:`reconcile_figures`), and :func:`compare_file`
puts the two side by side. The pricing is a parameter, so that a test runs the same comparison through the command
line (``rackcost import inferencex``, ``rackcost reconcile``).
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import pandas as pd

from rackcost.analysis.reconcile import reconcile
from rackcost.analysis.validation.sections import SectionTable, ValidationContext, ValidationSection
from rackcost.analysis.validation.shared_files import InferenceXCurve, InferenceXFile
from rackcost.errors import ScenarioError
from rackcost.scenario.loading import bundled_scenario_path, load_scenario, scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

__all__ = [
    "BASE_SCENARIO",
    "FALLBACK_LENGTHS",
    "GOAL_FRACTION",
    "PASTED_SYSTEM",
    "USD_PER_GPU_HOUR",
    "ComparedPoint",
    "FileComparison",
    "Pricer",
    "RackcostFigures",
    "ReferencePoint",
    "belongs_to",
    "compare_file",
    "inferencex_section",
    "pasted_scenario",
    "reconcile_figures",
    "reference_points",
    "usd_per_million",
    "worst",
]

USD_PER_GPU_HOUR = 2.0
"""The price both figures are computed at [USD/GPU-h]; a relative difference does not depend on it."""
GOAL_FRACTION = 1e-4
"""The project's goal: $/M output tokens within this relative difference of InferenceX's on every point [-]."""
FALLBACK_LENGTHS = (1024, 1024)
"""ISL and OSL [tokens] for rows whose file and file name give none (the Gaudi array, whose rows' ``source_file``
paths say 1k1k); InferenceX's $/M tokens depends on neither, only the pasted scenario needs them."""
BASE_SCENARIO = "deepseek-r1-b200-vs-gb200-inferencex"
"""The bundled scenario an imported curve is pasted into (its first system's hardware and costs)."""
PASTED_SYSTEM = "imported"
"""The pasted system's name."""
OUTPUT_FIELD = "output_tput_per_gpu"
"""An aggregate row's output tokens/s per GPU (per decode GPU on a disaggregated row)."""


def usd_per_million(usd_per_gpu_hour: float, tokens_per_s_per_gpu: float) -> float:
    """InferenceX's formula: $/GPU-hour / (tokens/s per GPU x 3600 / 1e6) [USD/M tokens].

    Written out here rather than taken from :mod:`rackcost.analysis.reconcile`, so that the reference does not
    share the code it checks.

    Examples
    --------
    >>> round(usd_per_million(2.0, 1000.0), 6), round(usd_per_million(2.0, 400.0), 6)
    (0.555556, 1.388889)
    """
    return usd_per_gpu_hour / (tokens_per_s_per_gpu * SECONDS_PER_HOUR / TOKENS_PER_MILLION)


# ---- InferenceX's figures from the raw fields ------------------------------------------------------------------


@dataclass(frozen=True)
class ReferencePoint:
    """One benchmark point as InferenceX counts it.

    Attributes
    ----------
    concurrency
        The point's concurrency [requests].
    total_tokens_per_s_per_gpu
        Input + output tokens/s per GPU (``tput_per_gpu``) [tokens/s].
    output_tokens_per_s_per_gpu
        Output tokens/s per GPU (``output_tput_per_gpu``; per decode GPU on a disaggregated row), or None when
        the file gives none [tokens/s].
    row
        The raw record the point is (an array's row, or the file's object), to match it to a curve.
    missing
        Why there is no output figure ("" when there is one).
    """

    concurrency: float
    total_tokens_per_s_per_gpu: float
    output_tokens_per_s_per_gpu: float | None
    row: Mapping[str, Any]
    missing: str = ""


def reference_points(name: str, raw: Any) -> list[ReferencePoint]:
    """InferenceX's tokens/s per GPU at every point of a file, from its raw fields.

    An aggregate (a stage-B object, or an array of them: stages C and F) gives ``tput_per_gpu`` and
    ``output_tput_per_gpu`` itself; a stage-D file's ``metrics`` throughputs are divided by the GPUs that serve,
    ``tp`` x ``pp`` (InferenceX's convention; ``gpu.n_gpus``, every GPU of the host, only where no ``tp`` is
    given); a raw client file's (stages A and E) by the ``tpN`` of its name.

    Parameters
    ----------
    name
        The file's name (for ``tpN``).
    raw
        Its parsed JSON.

    Returns
    -------
    list of ReferencePoint
        One per row, in file order.

    Raises
    ------
    ValueError
        If the file is none of these shapes or lacks a field its shape needs.

    Examples
    --------
    >>> (p,) = reference_points("x.json", {"conc": 8, "tput_per_gpu": 1000.0, "output_tput_per_gpu": 400.0})
    >>> p.concurrency, p.total_tokens_per_s_per_gpu, p.output_tokens_per_s_per_gpu
    (8.0, 1000.0, 400.0)
    >>> reference_points("raw_tp4.json", {"max_concurrency": 2, "total_token_throughput": 800.0,
    ...                                    "output_throughput": 200.0})[0].output_tokens_per_s_per_gpu
    50.0
    """
    try:
        if isinstance(raw, list):
            return [_aggregate(row) for row in raw]
        if not isinstance(raw, Mapping):
            raise ValueError(f"expected a JSON object or array, found {type(raw).__name__}")
        if isinstance(raw.get("metrics"), Mapping):  # stage D: InferenceX prices the GPUs that serve, tp x pp
            m = raw["metrics"]
            n = float(raw["tp"] * raw.get("pp", 1)) if "tp" in raw else float(raw["gpu"]["n_gpus"])
            return [
                ReferencePoint(
                    float(raw["conc"]), m["total_token_throughput"] / n, m["output_token_throughput"] / n, raw
                )
            ]
        if "tput_per_gpu" in raw:
            return [_aggregate(raw)]
        tp = re.search(r"tp(\d+)", name)
        if tp is None:
            raise ValueError("a raw client file without tpN in its name: its GPUs are unknown")
        n = float(tp.group(1))
        total = raw.get("total_token_throughput") or raw["input_throughput"] + raw["output_throughput"]
        return [ReferencePoint(float(raw["max_concurrency"]), total / n, raw["output_throughput"] / n, raw)]
    except (KeyError, TypeError) as exc:
        raise ValueError(f"InferenceX's figures cannot be read: no field {exc}") from None


def _aggregate(row: Mapping[str, Any]) -> ReferencePoint:
    output = row.get(OUTPUT_FIELD)
    missing = "" if output is not None else f"no {OUTPUT_FIELD} in the row (an older InferenceX aggregate)"
    return ReferencePoint(float(row["conc"]), float(row["tput_per_gpu"]), output, row, missing)


def belongs_to(label: str, row: Mapping[str, Any]) -> bool:
    """Whether an aggregate row is a point of the curve of this label: the same hardware, ``tpN`` (where the row
    has ``tp``), precision and offloading. A raw file's object (no ``hw``) belongs to the one curve of its file.

    Examples
    --------
    >>> row = {"hw": "h100", "tp": 2, "precision": "fp8", "tput_per_gpu": 1.0}
    >>> belongs_to("h100 Llama fp8 vllm tp2 1024/1024", row), belongs_to("h100 Llama fp8 vllm tp4 1024/1024", row)
    (True, False)
    >>> belongs_to("h100 Llama fp8 vllm tp2 1024/1024 offload-lmcache", row)
    False
    """
    if "hw" not in row or "tput_per_gpu" not in row:
        return True
    words = label.split()
    offload = row.get("offloading")
    wanted = "" if offload in (None, "none") else f"offload-{offload}"
    return (
        words[0] == row["hw"]
        and ("tp" not in row or any(w.startswith(f"tp{row['tp']}") for w in words))  # a disaggregated row has none
        and str(row["precision"]).lower() in words
        and next((w for w in words if w.startswith("offload-")), "") == wanted
    )


# ---- rackcost's figures -------------------------------------------------------------------------------------------


class RackcostFigures(NamedTuple):
    """What reconcile prices a benchmark point at (its InferenceX row)."""

    usd_per_million_output_tokens: float
    usd_per_million_total_tokens: float
    output_basis: str


Pricer = Callable[[Scenario, float, float], RackcostFigures]
"""(pasted scenario, concurrency, $/GPU-hour) -> rackcost's figures at that benchmark point."""


@functools.lru_cache(maxsize=1)
def _base() -> Scenario:
    return load_scenario(bundled_scenario_path(BASE_SCENARIO))


def pasted_scenario(curve: InferenceXCurve) -> Scenario:
    """An imported curve pasted into a copy of :data:`BASE_SCENARIO` as its only system, :data:`PASTED_SYSTEM`.

    The SLO is loose and the demand tiny, so that every measured point is feasible; the replica has the curve's
    GPUs, and the rated power and rack limit leave room for any measured power. InferenceX's figures depend on
    none of these: only on the throughputs and GPUs.

    Raises
    ------
    ScenarioError
        If the pasted scenario is not valid.
    """
    data = scenario_to_data(_base())
    data.pop("figures", None)
    data["slo"] = {"ttft_limit_ms": 1e6, "tpot_limit_ms": 1e6, "attainment_fraction": 0.99}
    data["demand"] = [
        {"name": "quiet", "arrival_rps": 0.001, "hours_per_day": 8},
        {"name": "normal", "arrival_rps": 0.002, "hours_per_day": 10},
        {"name": "peak", "arrival_rps": 0.004, "hours_per_day": 6},
    ]
    data["facility"]["rack_power_limit_kw"] = 1e4
    system = data["systems"][0]
    system.update(name=PASTED_SYSTEM, performance=copy.deepcopy(dict(curve.performance)))
    system["provenance"] = copy.deepcopy(dict(curve.provenance))
    # the base system's memory and the workload's architecture describe another model on other GPUs: the curve's
    # own points were measured running, so no KV-cache limit applies to them
    system.pop("memory", None)
    data["workload"].pop("architecture", None)
    gpus = curve.accelerators_per_replica
    system["hardware"].update(accelerators_per_replica=gpus, accelerators_per_node=gpus)
    system["hardware"]["accelerator_rated_w"] = max(system["hardware"]["accelerator_rated_w"], 2000)
    data["systems"] = [system]
    return scenario_from_dict(data, "pasted.yaml")


def reconcile_figures(scenario: Scenario, concurrency: float, usd_per_gpu_hour: float) -> RackcostFigures:
    """The library's :data:`Pricer`: :func:`~rackcost.analysis.reconcile.reconcile` at the measured point of
    this concurrency."""
    r = reconcile(scenario, PASTED_SYSTEM, usd_per_gpu_hour, point=concurrency)
    return RackcostFigures(
        r.inferencex_usd_per_million_output_tokens, r.inferencex_usd_per_million_total_tokens, r.output_basis
    )


# ---- the comparison ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ComparedPoint:
    """One benchmark point priced both ways.

    Attributes
    ----------
    file, curve
        Where it is.
    concurrency
        [requests].
    inferencex_output, inferencex_total
        InferenceX's $/M output tokens (None where the file gives no output throughput) and $/M total tokens
        [USD/M tokens].
    rackcost_output, rackcost_total
        reconcile's [USD/M tokens].
    output_basis
        Where reconcile's output throughput came from.
    missing
        Why there is no InferenceX output figure ("" when there is one).
    """

    file: str
    curve: str
    concurrency: float
    inferencex_output: float | None
    inferencex_total: float
    rackcost_output: float
    rackcost_total: float
    output_basis: str
    missing: str = ""

    @property
    def output_difference(self) -> float:
        """rackcost's over InferenceX's $/M output tokens, minus 1 [-] (NaN without an InferenceX figure)."""
        return math.nan if self.inferencex_output is None else self.rackcost_output / self.inferencex_output - 1

    @property
    def total_difference(self) -> float:
        """rackcost's over InferenceX's $/M total tokens, minus 1 [-]."""
        return self.rackcost_total / self.inferencex_total - 1


@dataclass(frozen=True)
class FileComparison:
    """Every point of one file priced both ways, and what could not be.

    Attributes
    ----------
    file
        Its path relative to ``inferencex/``.
    curves
        Curves imported from it [-].
    points
        The compared points.
    problems
        What the importer skipped, and points that could not be priced or matched, one line each.
    """

    file: str
    curves: int
    points: tuple[ComparedPoint, ...]
    problems: tuple[str, ...] = ()


def compare_file(
    file: InferenceXFile, usd_per_gpu_hour: float = USD_PER_GPU_HOUR, pricer: Pricer = reconcile_figures
) -> FileComparison:
    """Price every point of every curve of a file both ways.

    Parameters
    ----------
    file
        The file's parsed JSON and imported curves.
    usd_per_gpu_hour
        The price [USD/GPU-h].
    pricer
        rackcost's figures at a point (default: the library's reconcile).

    Returns
    -------
    FileComparison
        A point the file's rows do not match, or that the pricer refuses, is a problem line, never an exception.
    """
    problems = list(file.skipped)
    if not file.curves:  # nothing imported: the importer's reasons say why
        return FileComparison(file.name, 0, (), tuple(problems))
    try:
        references = reference_points(file.name, file.raw)
    except ValueError as exc:
        return FileComparison(file.name, len(file.curves), (), (*problems, str(exc)))
    points = []
    for curve in file.curves:
        try:
            scenario = pasted_scenario(curve)
        except ScenarioError as exc:
            problems.append(f"{curve.label}: not a valid scenario when pasted: {exc}")
            continue
        for measured in curve.performance["points"]:
            conc = measured.get("concurrency")
            ref = next((r for r in references if r.concurrency == conc and belongs_to(curve.label, r.row)), None)
            if conc is None or ref is None:
                problems.append(f"{curve.label}: no row of the file at concurrency {conc}")
                continue
            try:
                ours = pricer(scenario, float(conc), usd_per_gpu_hour)
            except (ScenarioError, ValueError) as exc:
                problems.append(f"{curve.label} at concurrency {conc:g}: reconcile refused: {exc}")
                continue
            out = ref.output_tokens_per_s_per_gpu
            points.append(
                ComparedPoint(
                    file.name,
                    curve.label,
                    float(conc),
                    None if out is None else usd_per_million(usd_per_gpu_hour, out),
                    usd_per_million(usd_per_gpu_hour, ref.total_tokens_per_s_per_gpu),
                    *ours,
                    ref.missing,
                )
            )
    return FileComparison(file.name, len(file.curves), tuple(points), tuple(problems))


def worst(values: Sequence[float]) -> float:
    """The largest absolute value, NaN ignored; NaN when there is none [-].

    Examples
    --------
    >>> worst([1e-6, -3e-6, float("nan")]), worst([])
    (3e-06, nan)
    """
    kept = [abs(v) for v in values if not math.isnan(v)]
    return max(kept) if kept else math.nan


# ---- the section ------------------------------------------------------------------------------------------------

_FILE_HEADERS = {
    "file": "file",
    "curves": "curves",
    "points": "points",
    "output_points": "points with an output figure",
    "worst_output": "worst difference, $/M output",
    "worst_total": "worst difference, $/M total",
}
_POINT_HEADERS = {
    "file": "file",
    "curve": "curve",
    "concurrency": "concurrency",
    "inferencex_output": "InferenceX $/M output",
    "rackcost_output": "reconcile $/M output",
    "output_difference": "difference, output",
    "inferencex_total": "InferenceX $/M total",
    "rackcost_total": "reconcile $/M total",
    "total_difference": "difference, total",
    "note": "note",
}
_DIFFERENCE = "{:.1e}"
_USD = "{:.4f}"
_COUNT = "{:.0f}"


def _skipped(context: ValidationContext) -> ValidationSection:
    if context.data_folder is None:
        why = "no shared data folder (the default of --data, beside the repository, does not exist; give --data PATH)"
    else:
        why = "the data folder has no JSON files in `inferencex/`"
    return ValidationSection(
        "inferencex",
        "InferenceX reproduction",
        "skipped",
        f"skipped: {why}",
        f"Skipped: {why}, so there is no InferenceX file to reproduce.",
        parameters={"data folder": context.data_label},
    )


def _file_row(c: FileComparison) -> dict[str, Any]:
    return {
        "file": c.file,
        "curves": c.curves,
        "points": len(c.points),
        "output_points": sum(p.inferencex_output is not None for p in c.points),
        "worst_output": worst([p.output_difference for p in c.points]),
        "worst_total": worst([p.total_difference for p in c.points]),
    }


def _point_row(p: ComparedPoint) -> dict[str, Any]:
    return {
        "file": p.file,
        "curve": p.curve,
        "concurrency": p.concurrency,
        "inferencex_output": p.inferencex_output,
        "rackcost_output": p.rackcost_output if p.inferencex_output is not None else None,
        "output_difference": p.output_difference,
        "inferencex_total": p.inferencex_total,
        "rackcost_total": p.rackcost_total,
        "total_difference": p.total_difference,
        "note": p.missing,
    }


def inferencex_section(context: ValidationContext) -> ValidationSection:
    """reconcile's $/M output and total tokens against InferenceX's formula, on every point of every shared file.

    Parameters
    ----------
    context
        Its ``inferencex_files`` (read and imported by ``rackcost validation``).

    Returns
    -------
    ValidationSection
        ``skipped`` with the reason when there are no files; else a table per file and one per point.
    """
    if not context.inferencex_files:
        return _skipped(context)
    comparisons = [compare_file(f) for f in context.inferencex_files]
    points = [p for c in comparisons for p in c.points]
    with_output = [p for p in points if p.inferencex_output is not None]
    worst_output = worst([p.output_difference for p in points])
    worst_total = worst([p.total_difference for p in points])
    problems = [f"{c.file}: {line}" for c in comparisons for line in c.problems]
    met = "met" if with_output and worst_output <= GOAL_FRACTION else "not met"
    if problems and met == "met":
        met = f"not shown: {len(problems)} not compared"
    headline = (
        f"$/M output tokens: worst relative difference {worst_output:.1e} from InferenceX's formula over "
        f"{len(with_output)} points, $/M total tokens {worst_total:.1e} over {len(points)} (goal "
        f"{GOAL_FRACTION:.0e} on every point: {met})"
    )
    text = _section_text(points, with_output, (worst_output, worst_total), met, problems)
    tables = (
        SectionTable(
            "Each file",
            pd.DataFrame([_file_row(c) for c in comparisons], columns=list(_FILE_HEADERS)),
            _FILE_HEADERS,
            {"curves": _COUNT, "points": _COUNT, "output_points": _COUNT}
            | dict.fromkeys(("worst_output", "worst_total"), _DIFFERENCE),
        ),
        SectionTable(
            "Each point",
            pd.DataFrame([_point_row(p) for p in points], columns=list(_POINT_HEADERS)),
            _POINT_HEADERS,
            {"concurrency": "{:g}"}
            | dict.fromkeys(("inferencex_output", "rackcost_output", "inferencex_total", "rackcost_total"), _USD)
            | dict.fromkeys(("output_difference", "total_difference"), _DIFFERENCE),
        ),
    )
    return ValidationSection(
        "inferencex",
        "InferenceX reproduction",
        "measured",
        headline,
        "\n\n".join(text).replace("$", "\\$"),  # prose is Markdown: no $ opens a formula
        tables,
        {"data folder": context.data_label, "price": f"${USD_PER_GPU_HOUR:.2f}/GPU-hour"},
    )


def _section_text(
    points: list[Any], with_output: list[Any], worsts: tuple[float, float], met: str, problems: list[str]
) -> list[str]:
    """The section's paragraphs: how the figure is computed, what was compared and how close, and what was not."""
    worst_output, worst_total = worsts
    missing = Counter((p.missing, p.file) for p in points if p.missing)
    text = [
        f"InferenceX prices a benchmark point at $/M tokens = $/GPU-hour / (tokens/s per GPU x 3600 / 1e6), at "
        f"100% utilisation: total tokens at `tput_per_gpu`, output tokens at `{OUTPUT_FIELD}`, a raw client file's "
        "deployment-wide throughputs divided by its GPUs and a disaggregated run's output by its decode GPUs only "
        "(SemiAnalysisAI/InferenceX `utils/process_result.py`). That figure is computed here from each file's raw "
        "fields, independently of the importer. Each file is imported alone through the library "
        "(`rackcost.importers.read_inferencex`, as `rackcost import inferencex` does), each curve pasted as the only "
        f"system of a copy of the bundled `{BASE_SCENARIO}` scenario (a loose SLO, a tiny demand, the curve's GPUs "
        "per replica), and `rackcost.analysis.reconcile.reconcile` prices each measured point at the same "
        f"${USD_PER_GPU_HOUR:.2f}/GPU-hour. The difference is reconcile's figure over InferenceX's, minus 1 (the "
        "same at any price); worst is its largest absolute value, and 0 means the two agree to the last digit of "
        "a double.",
        f"Points compared: {len(points)} ($/M total tokens), {len(with_output)} of them with an InferenceX output "
        f"figure ($/M output tokens). Worst difference: {worst_output:.1e} on $/M output tokens, {worst_total:.1e} "
        f"on $/M total tokens; the project's goal is {GOAL_FRACTION:.0e} on $/M output tokens on every point, {met}. "
        "Through the library the imported numbers keep every digit; `rackcost import inferencex` writes six "
        "significant digits to YAML, so the same comparison from the command line differs by up to 5e-6 (a test "
        "runs it).",
    ]
    bases = Counter(p.output_basis for p in with_output)
    if bases:
        shown = "; ".join(f"{basis} at {n}" for basis, n in sorted(bases.items()))
        text.append(f"Where reconcile's output throughput came from, at the points with an output figure: {shown}.")
    if missing:
        text.append(
            "Points without an InferenceX output figure (the total is still compared; reconcile's output figure "
            "there is the nominal ISL/OSL split, which InferenceX does not publish): "
            + "; ".join(f"{n} in {file}: {why}" for (why, file), n in sorted(missing.items(), key=lambda x: x[0][1]))
            + "."
        )
    text.append(
        f"Lengths {FALLBACK_LENGTHS[0]}/{FALLBACK_LENGTHS[1]} are given for rows whose file and file name give "
        "none (the Gaudi array; its rows' `source_file` paths say 1k1k): InferenceX's figures depend on neither. "
        "An agentic file with mean/p75/p90/p95 statistics only is imported with p95 standing in for the SLO's "
        "percentile (`--percentile p95`), which changes no throughput."
    )
    if problems:
        text.append(f"Not compared ({len(problems)}): " + "; ".join(problems) + ".")
    return text
