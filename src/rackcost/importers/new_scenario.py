"""A whole scenario from a model, a request shape, an SLO, demand points, catalogue systems and benchmark curves
(``rackcost new`` and the dashboard's New scenario page), every figure with its source.

Result files are told apart by kind (:func:`file_kind`) and read by that kind's reader (:data:`CURVE_READERS`):
InferenceX JSON, rackcost's CSV table, and MLPerf Inference results (a round's ``summary_results.json`` and runs'
``mlperf_log_summary.txt``: :mod:`rackcost.importers.mlperf_curves`, one point per Server or Interactive run).

Each system is a catalogue entry (:mod:`rackcost.scenario.catalog`) with one curve measured on it: its hardware and
memory figures are the entry's (filled at loading), its GPUs per replica and, where measured, its busy power the
curve's, and it is rented at one of InferenceX's price tiers (which include power and the facility). The plain data
returned is validated by :func:`rackcost.scenario.loading.scenario_from_dict` before anything writes it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rackcost.importers.csv_table import read_csv_table
from rackcost.importers.curves import ImportedCurve, ImportResult, Skipped
from rackcost.importers.inferencex import MAX_FILE_BYTES, read_inferencex
from rackcost.importers.into_scenario import curve_figure, curve_gpus_per_replica
from rackcost.importers.mlperf import LOG_NAME as MLPERF_LOG
from rackcost.importers.mlperf import MAX_TABLE_BYTES as MLPERF_MAX_BYTES
from rackcost.importers.mlperf import TABLE_NAME as MLPERF_TABLE
from rackcost.scenario.catalog import CatalogEntry, catalog, catalog_entry, entry_price_tiers, unknown_entry

__all__ = [
    "CURVE_READERS",
    "DEFAULT_FACILITY",
    "DemandSpec",
    "NewScenarioError",
    "NewScenarioSpec",
    "build_scenario",
    "file_kind",
    "match_curves",
    "model_matches",
    "read_curve_files",
    "read_curve_paths",
    "scenario_text",
]

REQUIRED_HARDWARE = ("accelerators_per_node", "nodes_per_rack", "accelerator_rated_w", "accelerator_idle_w")
"""Hardware figures a system needs from its entry (its busy power may come from the curve instead)."""

GIVEN = "given to rackcost new"
"""Start of the ``source`` of a figure the user gave."""


class NewScenarioError(ValueError):
    """What stops a scenario from being built: one line per problem, each naming the system or option at fault."""

    def __init__(self, problems: Sequence[str]):
        super().__init__("\n".join(problems))
        self.problems = list(problems)


# ---- result files by kind ----------------------------------------------------------------------------------------

CurveReader = Callable[[Sequence[tuple[str, bytes]], str], ImportResult]


def _inferencex(files: Sequence[tuple[str, bytes]], percentile: str) -> ImportResult:
    return read_inferencex(files, percentile=percentile)


def _csv(files: Sequence[tuple[str, bytes]], percentile: str) -> ImportResult:
    out = ImportResult()
    for name, data in files:
        one = read_csv_table(name, data)
        out.curves += one.curves
        out.skipped += one.skipped
        out.notes += one.notes
        out.warnings += one.warnings
    return out


def _mlperf(files: Sequence[tuple[str, bytes]], percentile: str) -> ImportResult:
    from rackcost.importers.mlperf_curves import mlperf_curve_files

    return mlperf_curve_files(files, percentile)


CURVE_READERS: dict[str, CurveReader | None] = {"inferencex": _inferencex, "csv": _csv, "mlperf": _mlperf}
"""Reader of each kind of result file (:func:`file_kind`); None: a kind known but not read yet."""


def file_kind(name: str) -> str | None:
    """The kind of a result file by its name: ``inferencex`` (JSON), ``csv`` (rackcost's CSV table), ``mlperf``
    (``mlperf_log_summary.txt`` or a file named for MLPerf), or None (not a result file rackcost knows).

    Examples
    --------
    >>> [file_kind(n) for n in ("conc16.json", "points.csv", "mlperf_log_summary.txt", "summary_results.json")]
    ['inferencex', 'csv', 'mlperf', 'mlperf']
    >>> file_kind("notes.md") is None
    True
    """
    lowered = Path(name).name.lower()
    if (
        lowered == MLPERF_TABLE
        or lowered.startswith("mlperf")
        or ("mlperf" in lowered and lowered.endswith((".csv", ".txt", ".json")))
    ):
        return "mlperf"
    if lowered.endswith(".json"):
        return "inferencex"
    if lowered.endswith(".csv"):
        return "csv"
    return None


def read_curve_files(files: Sequence[tuple[str, bytes]], percentile: str = "p99") -> ImportResult:
    """Result files of any known kind, each read by its kind's reader, as one :class:`ImportResult`.

    A file of no known kind, or of a kind without a reader yet (MLPerf), is skipped with the reason.
    """
    by_kind: dict[str, list[tuple[str, bytes]]] = {}
    out = ImportResult()
    for name, data in files:
        kind = file_kind(name)
        if kind is None:
            out.skipped.append(
                Skipped(name, None, "", "not a result file rackcost reads (InferenceX JSON, CSV, MLPerf)")
            )
        elif CURVE_READERS.get(kind) is None:
            out.skipped.append(Skipped(name, None, "", f"{kind} results are not read yet"))
        else:
            by_kind.setdefault(kind, []).append((name, data))
    for kind, group in by_kind.items():
        reader = CURVE_READERS[kind]
        assert reader is not None  # kinds without a reader were skipped above
        one = reader(group, percentile)
        out.curves += one.curves
        out.skipped += one.skipped
        out.notes += one.notes
        out.warnings += one.warnings
    return out


def read_curve_paths(paths: Sequence[str | Path], percentile: str = "p99") -> ImportResult:
    """:func:`read_curve_files` on files on disk; a folder stands for the result files in it."""
    from rackcost.files import InputFileError, read_regular_file

    files: list[tuple[str, bytes]] = []
    unreadable: list[Skipped] = []
    for path in map(Path, paths):
        found = sorted(p for p in path.iterdir() if file_kind(p.name)) if path.is_dir() else [path]
        if path.is_dir():  # an MLPerf submission's run logs lie deeper: results/<system>/<model>/<scenario>/...
            found += sorted(q for q in path.rglob(MLPERF_LOG) if "/performance/" in q.as_posix() and q not in found)
        for one in found:
            limit = MLPERF_MAX_BYTES if file_kind(one.name) == "mlperf" else MAX_FILE_BYTES
            try:
                files.append((str(one), read_regular_file(one, limit, "result file")))
            except InputFileError as exc:
                unreadable.append(Skipped(str(one), None, "", str(exc).removeprefix(f"{one}: ")))
    result = read_curve_files(files, percentile)
    result.skipped[:0] = unreadable
    return result


# ---- the scenario ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DemandSpec:
    """One demand point: its name, arrival rate [requests/s] and hours a day."""

    name: str
    arrival_rps: float
    hours_per_day: float


DEFAULT_FACILITY: dict[str, tuple[float, str]] = {
    "pue": (1.3, "SemiAnalysis, InferenceX PowerX defaults (PUE 1.3 air-cooled, 1.1 liquid-cooled), date not recorded"),
    "electricity_usd_per_kwh": (
        0.081,
        "US industrial electricity, 8.1 c/kWh national average (2023), publisher not recorded",
    ),
    "rack_power_limit_kw": (
        40.0,
        "rack density: air-cooled racks reach about 40 kW with assisted cooling (10-15 kW without), publisher not "
        "recorded",
    ),
    "carbon_g_per_kwh": (
        390.0,
        "U.S. Energy Information Administration, FAQ 'How much carbon dioxide is produced per kilowatthour of U.S. "
        "electricity generation?', 2022 data: 1,650 million t CO2 over 4,230,672 million kWh (location-based)",
    ),
}
"""The facility a new scenario assumes unless told otherwise: value and source of each figure."""

RACK_SCALE_KW = (140.0, "GB200/GB300 NVL72 need about 120-140 kW liquid-cooled racks, publisher not recorded")
"""The rack power limit of a rack-scale entry's own facility override, and its source."""


@dataclass(frozen=True)
class NewScenarioSpec:
    """What ``rackcost new`` is told: the workload, its SLO, the demand, the systems and how they are paid for.

    Attributes
    ----------
    model, input_tokens, output_tokens
        The model served and the request shape [tokens].
    ttft_limit_ms, tpot_limit_ms, attainment_fraction
        The SLO [ms], [ms], [-].
    demand
        The demand points; their hours add up to 24.
    systems
        Catalogue entries, one system each (with every curve measured on it: one system per curve).
    name, precision
        The scenario's name (default the model and the systems) and the workload's precision (default the
        curves', when they agree).
    tier
        InferenceX's price tier every system is rented at.
    any_model
        Keep curves measured on another model than ``model`` (each says its model; a note says so).
    facility
        Facility figures the user gives (``pue``, ``electricity_usd_per_kwh``, ``rack_power_limit_kw``,
        ``carbon_g_per_kwh``).
    """

    model: str
    input_tokens: int
    output_tokens: int
    ttft_limit_ms: float
    tpot_limit_ms: float
    demand: tuple[DemandSpec, ...]
    systems: tuple[str, ...]
    name: str | None = None
    precision: str | None = None
    tier: str = "hyperscaler-owned"
    attainment_fraction: float = 0.99
    any_model: bool = False
    facility: Mapping[str, float] = field(default_factory=dict)
    figures: Mapping[str, Mapping[str, float]] = field(default_factory=dict)


OWN_FIGURES = ("hardware.", "rent.usd_per_accelerator_hour")
"""What a buyer may give for an entry (``NewScenarioSpec.figures``): a hardware figure, or the rental price."""


def own_figure_problems(spec: NewScenarioSpec) -> list[str]:
    """The buyer's own figures that name no system asked for, or no figure a system may be given."""
    from rackcost.scenario.hardware_blocks import Hardware

    allowed = [f"hardware.{name}" for name in Hardware.model_fields if name != "source"]
    allowed.append("rent.usd_per_accelerator_hour")
    problems = []
    for entry, given in spec.figures.items():
        if entry.lower() not in spec.systems:
            problems.append(f"--figure {entry}: not one of the systems asked for ({', '.join(spec.systems)})")
        for path in given:
            if path not in allowed:
                close = difflib.get_close_matches(path, allowed, n=1)
                hint = f"did you mean `{close[0]}`?" if close else "a hardware.* field or rent.usd_per_accelerator_hour"
                problems.append(f"--figure {entry}:{path}: not a figure rackcost new takes; {hint}")
    return problems


def _model_words(name: str | None) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", (name or "").rsplit("/", 1)[-1].lower()).strip("-")


def model_matches(curve_model: str | None, model: str) -> bool:
    """Whether a curve's model is the workload's: one name within the other once the organisation and case go
    (``nvidia/DeepSeek-R1-0528-FP4`` is ``deepseek-ai/DeepSeek-R1``); a curve that names no model matches."""
    a, b = _model_words(curve_model), _model_words(model)
    return not a or a in b or b in a


def _assumption(why: str, what: str) -> dict[str, str]:
    return {"provenance": "assumption", "source": f"{GIVEN}: {what}", "why": why}


def match_curves(
    curves: Mapping[str | None, Sequence[ImportedCurve]], spec: NewScenarioSpec
) -> tuple[dict[str, list[ImportedCurve]], list[str]]:
    """The curves of each system, and notes on the curves left out.

    Parameters
    ----------
    curves
        Curves by the entry they were given for, or under None for curves matched by the hardware they name
        (InferenceX's ``hw`` against each entry's ``inferencex_hardware``).
    spec
        The scenario asked for.

    Returns
    -------
    matched, notes
        Entry -> its curves (in the order given), and one note per curve left out (another model, hardware no
        entry asked for, or hardware unnamed).
    """
    entries = {key: catalog_entry(key) for key in spec.systems}
    matched: dict[str, list[ImportedCurve]] = {key: [] for key in spec.systems}
    notes: list[str] = []
    for given, group in curves.items():
        for curve in group:
            hardware = (curve.key.hardware or "").lower()
            if given is not None:
                key: str | None = given
            else:
                key = next((k for k, e in entries.items() if hardware in e.inferencex_hardware), None)
            if key is None:
                why = "names no hardware" if not hardware else f"was measured on {hardware}, which no system names"
                notes.append(f"left out {curve.label}: it {why} (give it as --curves ENTRY=PATH)")
                continue
            if not spec.any_model and not model_matches(curve.key.model, spec.model):
                notes.append(f"left out {curve.label}: measured on {curve.key.model}, not {spec.model} (--any-model)")
                continue
            if not model_matches(curve.key.model, spec.model):
                notes.append(f"{curve.label} was measured on {curve.key.model}, not {spec.model}: kept (--any-model)")
            matched[key].append(curve)
    return matched, notes


def build_scenario(
    spec: NewScenarioSpec, curves: Mapping[str | None, Sequence[ImportedCurve]]
) -> tuple[dict[str, Any], list[str]]:
    """The scenario as plain data (not yet validated), and notes for the user.

    Raises
    ------
    NewScenarioError
        Every problem at once: an unknown entry (with the entry it most likely means), a system without a curve, a
        figure the entry leaves out and the curve does not measure, an entry without the price tier asked for.
    """
    problems = [f"--system {s}: {unknown_entry(s)}" for s in spec.systems if s.lower() not in catalog().entries]
    if problems:
        raise NewScenarioError(problems)
    spec = replace(
        spec,
        systems=tuple(dict.fromkeys(s.lower() for s in spec.systems)),  # each entry once, in the order given
        figures={k.lower(): dict(v) for k, v in spec.figures.items()},
    )
    curves = {None if k is None else k.lower(): v for k, v in curves.items()}
    problems = own_figure_problems(spec) + [
        f"--curves {k}=...: {k} is not one of the systems asked for ({', '.join(spec.systems)})"
        for k in curves
        if k is not None and k not in spec.systems
    ]
    if problems:
        raise NewScenarioError(problems)
    matched, notes = match_curves(curves, spec)
    systems: list[dict[str, Any]] = []
    figures: dict[str, Any] = {
        "workload": _assumption("the request shape the buyer serves", "the model and tokens per request"),
        "slo": _assumption("the latency objective the buyer serves within", "TTFT and TPOT limits at the attainment"),
        "demand": _assumption("the demand the buyer expects at each point of the day", "rates and hours a day"),
    }
    for key in spec.systems:
        entry = catalog_entry(key)
        if not matched[key]:
            problems.append(
                f"--system {key}: no curve of {spec.model} measured on it (InferenceX hardware "
                f"{', '.join(entry.inferencex_hardware)}) among the files"
            )
            continue
        for curve in matched[key]:
            at = f"systems[{len(systems)}]"
            system, system_figures, lacking = _system(key, entry, curve, (spec.tier, spec.figures.get(key, {})), at)
            problems += [f"--system {key} ({curve.label}): {p}" for p in lacking]
            systems.append(system)
            figures.update(system_figures)
    if problems:
        raise NewScenarioError(problems)
    _unique_names(systems)
    facility: dict[str, Any] = {}
    for name, (value, source) in DEFAULT_FACILITY.items():
        if name in spec.facility:
            facility[name] = float(spec.facility[name])
            figures[f"facility.{name}"] = _assumption("the buyer's site", f"facility.{name}")
        else:
            facility[name] = value
            figures[f"facility.{name}"] = {"provenance": "independent", "source": source}
    data: dict[str, Any] = {
        "name": spec.name or f"{spec.model.rsplit('/', 1)[-1]} - {' vs '.join(spec.systems)}",
        "description": f"Written by rackcost new from the catalogue entries {', '.join(spec.systems)} and "
        f"{len(systems)} benchmark curve(s).",
        "workload": {
            "model": spec.model,
            "precision": spec.precision or _precision(systems),
            "input_tokens_per_request": spec.input_tokens,
            "output_tokens_per_request": spec.output_tokens,
        },
        "slo": {
            "ttft_limit_ms": spec.ttft_limit_ms,
            "tpot_limit_ms": spec.tpot_limit_ms,
            "attainment_fraction": spec.attainment_fraction,
        },
        "demand": [
            {"name": d.name, "arrival_rps": d.arrival_rps, "hours_per_day": d.hours_per_day} for d in spec.demand
        ],
        "facility": facility,
        "systems": systems,
        "figures": figures,
    }
    return data, notes


def _system(
    key: str, entry: CatalogEntry, curve: ImportedCurve, payment: tuple[str, Mapping[str, float]], at: str
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """One system of an entry and a curve (``payment``: the price tier and the buyer's own figures for the entry):
    the system, its figures, and what it lacks."""
    tier, own = payment
    source = curve_figure(curve)
    source["source"] = source["source"].replace("imported in the rackcost dashboard", "imported by rackcost new")
    figures: dict[str, Any] = {f"{at}.performance": source}
    hardware: dict[str, Any] = {}
    gpus = curve_gpus_per_replica(curve) or curve.key.gpus_per_replica
    if gpus is not None:
        hardware["accelerators_per_replica"] = gpus
        figures[f"{at}.hardware.accelerators_per_replica"] = {
            **source,
            "source": f"GPUs per replica of the benchmark run ({curve.gpus_source}); {source['source']}",
        }
    else:
        per_node = entry.figures.get("hardware.accelerators_per_node")
        hardware["accelerators_per_replica"] = per_node.value if per_node is not None else 8
        figures[f"{at}.hardware.accelerators_per_replica"] = _assumption(
            "the curve does not say how many GPUs a replica spans: one node", "one node per replica"
        )
    powers = [p["power_w_per_accelerator"] for p in curve.points if "power_w_per_accelerator" in p]
    if powers:
        hardware["accelerator_busy_w"] = round(max(powers), 1)
        figures[f"{at}.hardware.accelerator_busy_w"] = {
            **source,
            "source": f"the curve's highest measured mean board power; {source['source']}",
        }
    for path, value in own.items():  # the buyer's own figures win over the curve's and the catalogue's
        if path.startswith("hardware."):
            hardware[path.removeprefix("hardware.")] = value
        left_out = f"; the catalogue leaves it out: {entry.not_given[path]}" if path in entry.not_given else ""
        figures[f"{at}.{path}"] = _assumption(f"the buyer's own figure for {key}{left_out}", f"--figure {key}:{path}")
    lacking = [
        f"the catalogue gives no hardware.{name} ({entry.not_given.get(f'hardware.{name}', 'not recorded')}); "
        f"give it with --figure {key}:hardware.{name}=VALUE"
        for name in (*REQUIRED_HARDWARE, *(() if powers else ("accelerator_busy_w",)))
        if f"hardware.{name}" not in entry.figures and f"hardware.{name}" not in own
    ]
    prices = {t.tier: t for t in entry_price_tiers(entry)}
    own_price = own.get("rent.usd_per_accelerator_hour")
    if own_price is None and tier not in prices:
        lacking.append(
            f"no InferenceX price tier {tier!r} for it (tiers: {', '.join(prices) or 'none'}); choose another --tier"
        )
    system: dict[str, Any] = {
        "name": " ".join([key, *curve.label.split()[1:]]),  # the entry for the hardware the label starts with
        "catalog": key,
        "provenance": dict(curve.provenance),
        "performance": dict(curve.performance),
        "hardware": hardware,
    }
    if own_price is not None:
        system["rent"] = {"usd_per_accelerator_hour": own_price, "includes_power_and_facility": True}
    elif tier in prices:
        price = prices[tier]
        system["rent"] = {"usd_per_accelerator_hour": price.usd_per_gpu_hour, "includes_power_and_facility": True}
        figures[f"{at}.rent.usd_per_accelerator_hour"] = {
            "provenance": price.provenance,
            "source": f"{price.source}: {price.gpu} {price.tier}, {price.meaning}"
            + (f"; {price.note}" if price.note else ""),
        }
    if entry.form.startswith("rack-scale"):
        system["facility"] = {"rack_power_limit_kw": RACK_SCALE_KW[0]}
        figures[f"{at}.facility.rack_power_limit_kw"] = {"provenance": "independent", "source": RACK_SCALE_KW[1]}
    return system, figures, lacking


def _unique_names(systems: list[dict[str, Any]]) -> None:
    seen: dict[str, int] = {}
    for system in systems:
        name = system["name"]
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            system["name"] = f"{name} ({seen[name]})"


def _precision(systems: list[dict[str, Any]]) -> str:
    found = {s["performance"].get("benchmark_precision") for s in systems} - {None}
    return str(found.pop()) if len(found) == 1 else "unstated"


def scenario_text(data: dict[str, Any], file: str, command: str = "rackcost new") -> str:
    """The scenario's YAML once it validates: a header naming how it was made, then every value it sets and every
    figure's source (the catalogue's figures filled in, so the file reads without the catalogue).

    Raises
    ------
    rackcost.errors.ScenarioError
        The data is not a valid scenario: every problem, with its YAML path, under ``file``.
    """
    from rackcost.scenario.loading import scenario_from_dict, scenario_to_yaml

    scenario = scenario_from_dict(data, file)  # validated before anything is written
    header = f"# Written by {command}\n# Every figure's source is under figures:; the entries: rackcost catalog.\n"
    return header + scenario_to_yaml(scenario)
