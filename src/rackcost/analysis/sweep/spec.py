"""Sweep files: a base scenario and the axes to vary, validated like scenarios (``rackcost schema --sweep``).

A sweep file names a base scenario (a path, relative to the sweep file, or a bundled name) and a list of axes.
An axis is either

- a **numeric input by YAML path** (``facility.electricity_usd_per_kwh``, ``systems[1].costs.capex_usd_per_node``),
  with ``values: [...]``, ``range: {from, to, steps, scale: linear|log}`` or ``latin_hypercube: {dist: ...,
  samples: N}`` (every Latin-hypercube axis of a sweep is drawn in one joint design of ``samples`` points);
- **``demand.scale``**, which multiplies every demand point's arrival rate, with the same three forms;
- **``systems``**: which systems take part, as ``subsets: [[name, ...], ...]`` or ``each: true`` (each system on its
  own), optionally with systems added from another file (``import: FILE``, a scenario or the output of
  ``rackcost import``), so that imported curves become alternatives;
- a **variant axis** (``slo``, ``pricing`` or any name that is not a path): ``variants: [{label, set: {YAML path:
  value}, tier: {system, gpu, tier}}]``, each variant a set of edits of the base scenario (``null`` removes a
  block). ``tier`` pays a system by an InferenceX price tier (the rental price of ``rackcost reconcile --tier``).

``mode: grid`` (the default) takes every combination; ``mode: zip`` takes the i-th value of every axis together
(all axes of the same length). ``samples: N`` adds N Monte Carlo draws of the scenario's distributions to every
configuration (the same draws in each: common random numbers). It is resolved by :mod:`rackcost.analysis.sweep.design`
and run by :mod:`rackcost.analysis.sweep.run`.

The files a sweep names (its base scenario, imports) are read here too, each confined to the sweep file's folder
(:func:`confined`), as are the files its scenario imports (:func:`load_base_scenario`), and so are its
``system_attributes``, off each system's name with a time limit.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, overload

import regex
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rackcost import files
from rackcost.errors import Problem, ScenarioError
from rackcost.evaluation.columns import BLENDED
from rackcost.scenario.distributions import NOT_BOOL, Distribution

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario
from rackcost.scenario.loading import (
    bundled_file,
    bundled_files,
    bundled_scenario_path,
    in_file_order,
    load_scenario,
    problems_from_validation,
    read_text_file,
    read_yaml_document,
)

__all__ = [
    "ALLOW_OUTSIDE",
    "DEMAND_SCALE",
    "MAX_AXIS_VALUES",
    "MAX_PATTERN_CHARS",
    "REGEX_TIMEOUT_S",
    "SYSTEMS",
    "Axis",
    "LatinHypercube",
    "Range",
    "SweepSummary",
    "SweepSpec",
    "Tier",
    "Variant",
    "bundled_sweeps",
    "confined",
    "imported_systems",
    "load_base_scenario",
    "load_sweep",
    "sweep_from_dict",
    "sweep_json_schema",
    "system_attributes",
]

DEMAND_SCALE = "demand.scale"
"""The named axis that multiplies every demand point's arrival rate."""
SYSTEMS = "systems"
"""The named axis that chooses which systems take part."""
MAX_AXIS_VALUES = 10_000_000
"""Most values one axis may have [-]: far above a useful grid, low enough that a typo cannot exhaust memory."""

MAX_PATTERN_CHARS = 1_000
"""Longest regular expression of ``system_attributes`` [characters]."""
REGEX_TIMEOUT_S = 1.0
"""Longest a ``system_attributes`` regular expression may take on one system name [s]: a pattern that backtracks
catastrophically (``(\\w|\\w)*$`` on a long name) is stopped and named instead of running for hours."""

ALLOW_OUTSIDE = "run with --allow-outside (allow_outside=True in Python) to read it"
"""How a file outside the sweep's folder is allowed (said in the refusal)."""
RESERVED_COLUMNS = frozenset({"configuration", "system", "payment", "demand_point"})
"""Columns every sweep table has, which no axis or attribute may be named."""
_PATH = re.compile(r"^[A-Za-z_]\w*(\[\d+\])?(\.[A-Za-z_]\w*(\[\d+\])?)*$")
Number = Annotated[float, Field(ge=-1e12, le=1e12, allow_inf_nan=False), NOT_BOOL]
Label = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]*\S[^\x00-\x1f\x7f]*$")]


class _SweepBlock(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Range(_SweepBlock):
    """Evenly spaced values from ``from`` to ``to`` (both included), on a linear or a log scale."""

    start: Number = Field(alias="from", description="First value.")
    stop: Number = Field(alias="to", description="Last value.")
    steps: Annotated[int, Field(ge=1, le=MAX_AXIS_VALUES), NOT_BOOL] = Field(
        description="Number of values, both ends included (1 gives `from` alone)."
    )
    scale: Literal["linear", "log"] = Field(default="linear", description="Spacing: linear, or log (from, to > 0).")

    @model_validator(mode="after")
    def _log_positive(self) -> Range:
        if self.scale == "log" and (self.start <= 0 or self.stop <= 0):
            raise ValueError(f"a log range needs from and to > 0, got from {self.start:g}, to {self.stop:g}")
        if self.steps > 1 and self.start == self.stop:
            raise ValueError(f"from and to are both {self.start:g}: {self.steps} steps would repeat one value")
        return self


class LatinHypercube(_SweepBlock):
    """Values drawn by Latin-hypercube sampling of a distribution (joint with the sweep's other such axes)."""

    dist: Distribution = Field(description="The distribution, as in a scenario: {dist: uniform, low, high}, ...")
    samples: Annotated[int, Field(ge=1, le=MAX_AXIS_VALUES), NOT_BOOL] = Field(description="Number of draws.")


class Tier(_SweepBlock):
    """Pay one system by an InferenceX price tier: rented at the tier's price per GPU-hour, power included."""

    system: Label = Field(description="Name of the system the tier prices.")
    gpu: Label = Field(description="InferenceX GPU key, e.g. b200 (rackcost reconcile lists them).")
    tier: Label = Field(description="Tier name, e.g. hyperscaler-owned, neocloud-owned, rental-3-year.")


class Variant(_SweepBlock):
    """One value of a variant axis: a label and the edits it makes to the base scenario."""

    label: Label = Field(description="The value's name in tables and charts.")
    edits: dict[str, Any] = Field(
        default_factory=dict,
        alias="set",
        description="YAML path -> value (a number, a block, or null to remove the block), applied to the base.",
    )
    tier: Tier | None = Field(default=None, description="Pay a system by an InferenceX price tier.")

    @model_validator(mode="after")
    def _paths(self) -> Variant:
        bad = [key for key in self.edits if not _PATH.match(key)]
        if bad:
            raise ValueError(f"set: keys must be YAML paths such as slo.ttft_ms, got {bad[0]!r}")
        return self


class Axis(_SweepBlock):
    """One axis of a sweep (see the module docstring for the forms)."""

    axis: Label = Field(description="A YAML path of a numeric input, demand.scale, systems, or a variant axis name.")
    values: list[Number] | None = Field(default=None, min_length=1, max_length=MAX_AXIS_VALUES)
    range: Range | None = None
    latin_hypercube: LatinHypercube | None = None
    variants: list[Variant] | None = Field(default=None, min_length=1, max_length=10_000)
    subsets: list[list[Label]] | None = Field(default=None, min_length=1, max_length=10_000)
    each: bool = Field(default=False, description="systems axis: each system on its own.")
    import_file: str | None = Field(
        default=None, alias="import", description="systems axis: a YAML file whose systems are added to the base's."
    )
    provenance: Literal["vendor", "collaborative", "independent", "assumption"] | None = Field(
        default=None, description="Where the axis's values come from (required in bundled sweeps)."
    )
    source: str | None = Field(default=None, description="Publisher, document and date of the values.")
    why: str | None = Field(default=None, description="For an assumption: why these values.")

    @model_validator(mode="after")
    def _one_form(self) -> Axis:
        numeric = [f for f in ("values", "range", "latin_hypercube") if getattr(self, f) is not None]
        if self.axis == SYSTEMS:
            forms = [f for f in ("subsets",) if getattr(self, f) is not None] + (["each"] if self.each else [])
            if len(forms) != 1 or numeric or self.variants is not None:
                raise ValueError("a systems axis takes exactly one of subsets: [[name, ...], ...] or each: true")
            if self.subsets is not None and any(len(s) == 0 for s in self.subsets):
                raise ValueError("subsets: every subset needs at least one system")
            return self
        if self.subsets is not None or self.each or self.import_file is not None:
            raise ValueError("subsets, each and import belong to the systems axis only")
        if self.variants is not None:
            if numeric:
                raise ValueError("a variant axis takes variants only, not values, range or latin_hypercube")
            labels = [v.label for v in self.variants]
            if len(set(labels)) != len(labels):
                raise ValueError(f"variants: labels must differ, got {labels}")
            return self
        if len(numeric) != 1:
            raise ValueError(
                "a numeric axis takes exactly one of values: [...], range: {from, to, steps, scale}, "
                f"latin_hypercube: {{dist, samples}}; got {len(numeric)}"
            )
        if not (self.axis == DEMAND_SCALE or _PATH.match(self.axis)):
            raise ValueError(f"must be a YAML path such as facility.pue, or demand.scale, got {self.axis!r}")
        return self

    @property
    def kind(self) -> Literal["numeric", "systems", "variants"]:
        """Which form the axis takes."""
        if self.axis == SYSTEMS:
            return "systems"
        return "variants" if self.variants is not None else "numeric"


class SweepSummary(_SweepBlock):
    """What the printed summary groups by and compares."""

    by: list[Label] | None = Field(
        default=None, description="Axes whose cells the winner table has (default: every axis but systems)."
    )
    demand_point: Label = Field(
        default=BLENDED,
        description="Demand point the winner is judged at: a point's name, or blended (cost over the day).",
    )


class SweepSpec(_SweepBlock):
    """A sweep: the base scenario, its axes, how they combine, and optional Monte Carlo draws per configuration."""

    name: Label = Field(description="Name of the sweep.")
    description: str | None = None
    scenario: Label = Field(description="Base scenario: a YAML file (relative to the sweep file) or a bundled name.")
    axes: list[Axis] = Field(min_length=1, max_length=32)
    mode: Literal["grid", "zip"] = Field(default="grid", description="grid: every combination; zip: i-th together.")
    samples: Annotated[int, Field(ge=1, le=100_000), NOT_BOOL] | None = Field(
        default=None, description="Monte Carlo draws of the scenario's distributions per configuration."
    )
    seed: Annotated[int, Field(ge=0, le=2**63 - 1), NOT_BOOL] = Field(
        default=0, description="Seed of the Latin hypercube and the Monte Carlo draws."
    )
    summary: SweepSummary = Field(default_factory=SweepSummary)
    system_attributes: dict[
        Annotated[str, Field(pattern=r"^[A-Za-z_]\w*$")], Annotated[str, Field(max_length=MAX_PATTERN_CHARS)]
    ] = Field(
        default_factory=dict,
        description="Column name -> regular expression (Python's syntax, run by the regex package with a time "
        "limit): a column read off each system's name (its first group, else the whole match; empty where it does "
        "not match), e.g. {tp_size: 'TP(\\d+)'}.",
    )

    @model_validator(mode="after")
    def _axes(self) -> SweepSpec:
        names = [a.axis for a in self.axes]
        taken = [n for n in names if n in RESERVED_COLUMNS]
        if taken:
            raise ValueError(
                f"axes: {taken[0]!r} is a column every sweep table has already; name the axis otherwise "
                "(e.g. pricing for payment variants)"
            )
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"axes: each axis once, got {dupes[0]!r} twice")
        sizes = {a.latin_hypercube.samples for a in self.axes if a.latin_hypercube is not None}
        if len(sizes) > 1:
            raise ValueError(
                f"axes: Latin-hypercube axes are drawn together and need the same samples, got {sorted(sizes)}"
            )
        for column, pattern in self.system_attributes.items():
            try:
                regex.compile(pattern)
            except (regex.error, OverflowError, RecursionError) as exc:
                raise ValueError(f"system_attributes.{column}: not a regular expression ({exc})") from None
            if column in names or column in RESERVED_COLUMNS:
                raise ValueError(f"system_attributes.{column}: the table has a column of that name already")
        if self.summary.by is not None:
            unknown = [b for b in self.summary.by if b not in names and b not in self.system_attributes]
            if unknown:
                raise ValueError(f"summary.by: {unknown[0]!r} is not an axis ({names})")
        return self


SWEEP_KEYS = frozenset({"scenario", "axes"})
"""Keys of which a sweep file has at least one; a mapping with neither is not taken for a sweep."""
NOT_A_SWEEP = (
    "not a rackcost sweep: it has neither a scenario: nor an axes: key (a sweep names a base scenario and the axes "
    "to vary; see `rackcost schema --sweep` and docs/sweeps.md)"
)
"""The one problem of a file that is not a sweep (its own keys and content are not repeated)."""


def sweep_json_schema() -> dict[str, Any]:
    """JSON Schema of sweep files (``rackcost schema --sweep``)."""
    schema = SweepSpec.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "rackcost sweep"
    return schema


def sweep_from_dict(data: Any, file: str = "<sweep>", lines: dict | None = None) -> SweepSpec:
    """Validate plain data as a sweep.

    Raises
    ------
    ScenarioError
        Every problem, with the file, YAML path and line.
    """
    if not isinstance(data, dict):
        raise ScenarioError(
            [Problem("", f"expected a mapping (name, scenario, axes), got {type(data).__name__}", file)]
        )
    if not any(isinstance(key, str) and key in SWEEP_KEYS for key in data):
        # not a sweep at all (a scenario, another YAML file, a text file YAML reads as a mapping): say so once, and
        # never echo its keys, which are its content (a password file reads as one key per line)
        raise ScenarioError([Problem("", NOT_A_SWEEP, file)])
    try:
        return SweepSpec.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(in_file_order(problems_from_validation(exc, file, lines, SweepSpec))) from None


def load_sweep(path: str | Path) -> tuple[SweepSpec, Path | None]:
    """Load and validate a sweep file (or a bundled sweep by name).

    Returns
    -------
    spec, folder
        The sweep, and the folder its relative paths (scenario, imports) are read from.

    Raises
    ------
    ScenarioError
        One problem per line, each naming the file, YAML path and line.
    """
    name, text = read_text_file(path, bundled_sweep_path, what="sweep")
    data, lines, problems = read_yaml_document(text, name, what="sweep")
    if problems:
        raise ScenarioError(problems)
    spec = sweep_from_dict(data, name, lines)
    file = Path(path)
    if not file.exists():
        found = bundled_sweep_path(str(path), missing_ok=True)
        file = found if found is not None else file
    return spec, file.resolve().parent


# ---- the files a sweep names, and what it reads off its systems' names ----------------------------------------


def confined(name: str, folder: Path | None, source: str, where: str, allow_outside: bool) -> Path:
    """The file a sweep names at ``where``, resolved (symlinks and ``..``) against the sweep's folder (default the
    current folder), and refused when it lies outside that folder unless ``allow_outside``.

    The refusal comes before the file is opened or even looked for, so that a sweep cannot tell whether a file
    outside exists, let alone read it.
    """
    root = (folder if folder is not None else Path.cwd()).resolve()
    if "\x00" in name:  # no file has such a name, and Path.resolve raises ValueError on it
        raise ScenarioError([Problem(where, f"must be a file name, got {name!r}: it holds a NUL character", source)])
    real = (root / name).resolve()  # an absolute name stays itself; symlinks resolved as far as the path exists
    if not allow_outside and not real.is_relative_to(root):
        raise ScenarioError(
            [
                Problem(
                    where,
                    f"{name!r} is outside the sweep's folder {root}: a sweep reads only files under its own folder "
                    f"(or a bundled scenario by name); {ALLOW_OUTSIDE}",
                    source,
                )
            ]
        )
    return real


def load_base_scenario(
    name: str, folder: Path | None, source: str, allow_outside: bool, inputs: list[Path]
) -> Scenario:
    """The base scenario: a file under the sweep's folder (:func:`confined`), or a bundled scenario by name.

    The files the scenario itself imports (a demand profile's CSV) are confined the same way, by
    :func:`rackcost.files.confined_reads` around the load: under the sweep's folder (a bundled scenario: under its
    own folder), unless ``allow_outside``. Every file read is added to ``inputs`` (an output may not replace it).
    """
    root = (folder if folder is not None else Path.cwd()).resolve()
    path = confined(name, folder, source, "scenario", allow_outside)
    where = "the sweep's folder"
    if not path.exists():
        bundled = bundled_scenario_path(name, missing_ok=True) if Path(name).name == name else None
        if bundled is None:
            raise ScenarioError([Problem("scenario", f"no scenario file or bundled scenario named {name!r}", source)])
        path, root, where = bundled, bundled.resolve().parent, "the bundled scenarios' folder"
    if allow_outside:
        inputs.append(path)
        return load_scenario(path)
    with files.confined_reads(root, where, f"a sweep's scenario reads only files under it; {ALLOW_OUTSIDE}") as read:
        scenario = load_scenario(path)
    inputs += dict.fromkeys([path, *read])  # in order, once each
    return scenario


def imported_systems(file: Path, source: str, path: str) -> list[dict[str, Any]]:
    """The systems of another file (a scenario, or what ``rackcost import`` writes), already confined."""
    shown, text = read_text_file(file, what="systems")
    data, _, problems = read_yaml_document(text, shown, what="systems")
    if problems:
        raise ScenarioError(problems)
    systems = data.get("systems") if isinstance(data, dict) else None
    if not isinstance(systems, list) or not systems or not all(isinstance(s, dict) for s in systems):
        raise ScenarioError([Problem(path, f"{shown} has no systems: list of system blocks", source)])
    return copy.deepcopy(systems)


def system_attributes(spec: SweepSpec, names: tuple[str, ...], source: str) -> dict[str, tuple[str | None, ...]]:
    """Each ``system_attributes`` column's value for each system name: the pattern's first group, else the whole
    match, else '' (None where the first group took no part in the match).

    Read once per system name, before anything runs, by the ``regex`` package with a time limit of
    :data:`REGEX_TIMEOUT_S` per name: a user's pattern can backtrack for hours.

    Raises
    ------
    ScenarioError
        A pattern that took longer on some name, naming the pattern and the name.
    """
    out: dict[str, tuple[str | None, ...]] = {}
    for column, pattern in spec.system_attributes.items():
        compiled = regex.compile(pattern)  # the spec checked that it compiles
        values: list[str | None] = []
        for name in names:
            try:
                match = compiled.search(name, timeout=REGEX_TIMEOUT_S)
            except TimeoutError:
                raise ScenarioError(
                    [
                        Problem(
                            f"system_attributes.{column}",
                            f"the regular expression {pattern!r} took more than {REGEX_TIMEOUT_S:g} s on the system "
                            f"name {name!r} (nested repetition such as (a+)+ or (\\w|\\w)* backtracks without "
                            "end); write it without nested repetition",
                            source,
                        )
                    ]
                ) from None
            values.append("" if match is None else match.group(1) if compiled.groups else match.group(0))
        out[column] = tuple(values)
    return out


def bundled_sweeps() -> list[Path]:
    """Bundled sweep files, sorted by name."""
    return bundled_files("sweeps")


@overload
def bundled_sweep_path(name: str, missing_ok: Literal[False] = False) -> Path: ...


@overload
def bundled_sweep_path(name: str, missing_ok: bool) -> Path | None: ...


def bundled_sweep_path(name: str, missing_ok: bool = False) -> Path | None:
    """Path of a bundled sweep by file name (``.yaml`` may be omitted)."""
    return bundled_file("sweeps", name, missing_ok)
