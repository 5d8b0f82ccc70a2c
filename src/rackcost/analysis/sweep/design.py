"""A sweep's design: the values of every axis, the configurations they make, and the scenario of each.

A configuration is one value of every axis. Its scenario is the base scenario with that configuration's edits.
Axes come in two kinds:

- **vector axes**: a price or facility figure that neither the operating-point choice nor the fleet sizing reads
  (electricity price, PUE, colocation and build cost, every ``costs`` figure, a rental or API price). These are
  evaluated as a sample axis of one vectorised call, as the Monte Carlo evaluates its draws
  (:func:`rackcost.analysis.montecarlo.evaluate_samples`), with each system's replica count kept;
- **structural axes**: everything else (``demand.scale``, SLO and payment variants, system subsets, any other
  path). Each distinct combination of their values is a *group*: its scenario is built, validated and planned
  (operating point, fleet sizing) on its own, exactly as :func:`rackcost.evaluate` would.

So every configuration is evaluated as ``rackcost.evaluate`` evaluates its scenario, and a million configurations
that differ in prices cost one vectorised call, not a million evaluations.
"""

from __future__ import annotations

import copy
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.sweep.spec import (
    DEMAND_SCALE,
    SYSTEMS,
    Axis,
    SweepSpec,
    Tier,
    confined,
    imported_systems,
    load_base_scenario,
    system_attributes,
)
from rackcost.errors import Problem, ScenarioError
from rackcost.evaluation.columns import BLENDED
from rackcost.model.inputs import CostInputs
from rackcost.scenario.edits import subset_systems
from rackcost.scenario.loading import in_file_order, problems_from_validation, scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import FACILITY_FIELDS
from rackcost.scenario.yaml_paths import MISSING, format_path, lookup, parse_path

__all__ = [
    "AxisValues",
    "Design",
    "GroupScenario",
    "configuration_indices",
    "design",
    "group_scenario",
    "structural_groups",
]

_FACILITY = "|".join(FACILITY_FIELDS)
_COSTS = "|".join(CostInputs.__dataclass_fields__)
_API_PRICES = "usd_per_million_input_tokens|usd_per_million_output_tokens|usd_per_million_cached_input_tokens"
VECTOR_PATH = re.compile(
    rf"^(facility\.({_FACILITY})"
    rf"|systems\[\d+\]\.facility\.({_FACILITY})"
    rf"|systems\[\d+\]\.costs\.({_COSTS})"
    r"|systems\[\d+\]\.rent\.usd_per_accelerator_hour"
    rf"|systems\[\d+\]\.api\.({_API_PRICES}|cached_input_fraction))$"
)
"""Paths evaluated as a sample axis: read per sample by :func:`rackcost.scenario.unpack.sampled_inputs` or
:func:`rackcost.scenario.unpack.api_inputs`, and read by neither the operating-point choice nor the fleet sizing."""
_SCALED_FIELDS = ("low", "mode", "high", "mean", "sd", "median", "values")
"""Parameters of a distribution that scale with the variable (a lognormal's sigma and a choice's weights do not)."""


@dataclass(frozen=True)
class AxisValues:
    """One axis, resolved against the base scenario.

    Attributes
    ----------
    name
        The axis as the sweep names it; also its column in the results.
    kind
        ``numeric`` (a YAML path), ``demand_scale``, ``systems`` or ``variants``.
    labels
        The values as shown in the results: floats for numeric axes, strings otherwise.
    vector
        Evaluated as a sample axis (see the module docstring), not per group.
    edits
        Per value of a variant axis, the edits it makes (YAML path -> value); numeric and demand-scale axes compute
        theirs when asked (:meth:`edits_at`), so that an axis of 10^7 values is an array, not 10^7 mappings.
    subsets
        Per value of a systems axis, the systems that take part.
    """

    name: str
    kind: str
    labels: NDArray[Any]
    vector: bool = False
    edits: tuple[dict[str, Any], ...] = ()
    subsets: tuple[tuple[str, ...], ...] = ()

    def __len__(self) -> int:
        return len(self.labels)

    def edits_at(self, value: int, data: dict[str, Any]) -> dict[str, Any]:
        """The edits (YAML path -> value) of the axis's ``value``-th value, on the base scenario's ``data``."""
        if self.kind == "numeric":
            return {self.name: float(self.labels[value])}
        if self.kind == "demand_scale":
            return _demand_scale_edits(data, float(self.labels[value]))
        return self.edits[value]


@dataclass(frozen=True)
class Design:
    """A sweep resolved: the base scenario, the axes and how they combine.

    Attributes
    ----------
    spec
        The sweep.
    base, base_data
        The base scenario (with any imported systems) and its plain data.
    axes
        The axes, in the sweep's order.
    dims
        The grid's dimensions: the axes each one moves (a Latin hypercube's axes move together; in zip mode every
        axis is in the one dimension).
    shape
        Length of each dimension [-].
    source
        Where the sweep came from (for messages).
    system_names
        The systems of the base scenario (imports included), in order: the table's ``system`` categories.
    inputs
        The files the sweep read (its base scenario, bundled or not, and imported files; the sweep file itself
        when :func:`rackcost.analysis.sweep.run.resolve` loaded one): an output never replaces one.
    attributes
        Each ``system_attributes`` column's value for each of ``system_names`` (see :func:`system_attributes`).
    kept_groups
        Groups built ahead of the run (the one the size estimate measures, :func:`group_scenario` with
        ``keep=True``), handed to the run once so that no group is planned twice.
    """

    spec: SweepSpec
    base: Scenario
    base_data: dict[str, Any]
    axes: tuple[AxisValues, ...]
    dims: tuple[tuple[int, ...], ...]
    shape: tuple[int, ...]
    source: str = "<sweep>"
    system_names: tuple[str, ...] = field(default=())
    inputs: tuple[Path, ...] = field(default=())
    attributes: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    kept_groups: dict[tuple[int, ...], GroupScenario] = field(default_factory=dict, compare=False, repr=False)

    @property
    def configurations(self) -> int:
        """Number of configurations [-] (a Python int: it may exceed what an array can hold)."""
        return int(np.prod(self.shape, dtype=object))

    @property
    def structural_axes(self) -> tuple[int, ...]:
        """Indices of the axes evaluated per group."""
        return tuple(i for i, a in enumerate(self.axes) if not a.vector)

    @property
    def vector_axes(self) -> tuple[int, ...]:
        """Indices of the axes evaluated as a sample axis."""
        return tuple(i for i, a in enumerate(self.axes) if a.vector)


def design(
    spec: SweepSpec,
    folder: Path | None = None,
    source: str = "<sweep>",
    base: Scenario | None = None,
    allow_outside: bool = False,
) -> Design:
    """Resolve a sweep against its base scenario: every axis's values, checked.

    Parameters
    ----------
    spec
        A validated sweep.
    folder
        Where relative paths (the scenario, imports) are read from; default the current folder. A file the sweep
        names must be under this folder (after symlinks and ``..`` are resolved), or the scenario a bundled name.
    source
        The sweep's file, for messages.
    base
        The base scenario itself (the dashboard's edited scenario), in place of the one ``spec.scenario`` names.
    allow_outside
        Read files outside ``folder`` too.

    Raises
    ------
    ScenarioError
        A file outside the folder (without ``allow_outside``), an axis path the scenario does not have or that is
        not a number, a value out of the field's range, an unknown system, a variant that does not validate: each
        naming the sweep file and the axis.
    """
    inputs: list[Path] = []
    if base is None:
        base = load_base_scenario(spec.scenario, folder, source, allow_outside, inputs)
    data = scenario_to_data(base)
    problems: list[Problem] = []
    imported = [i for i, a in enumerate(spec.axes) if a.axis == SYSTEMS and a.import_file is not None]
    for i in imported:
        where = f"axes[{i}].import"
        file = confined(spec.axes[i].import_file or "", folder, source, where, allow_outside)
        inputs.append(file)
        data["systems"] += imported_systems(file, source, where)
        try:
            base = _validated(data, source)
        except ScenarioError as exc:
            raise _axis_error(source, i, "the imported systems do not load beside the base scenario's", exc) from None
        data = scenario_to_data(base)
    names = tuple(s.name for s in base.systems)
    lhs = _latin_hypercube(spec)
    axes = []
    for i, axis in enumerate(spec.axes):
        try:
            axes.append(_resolve(axis, i, base, data, names, lhs, source))
        except ScenarioError as exc:
            problems += exc.problems
    if problems:
        raise ScenarioError(problems)
    if spec.mode == "zip":
        lengths = {len(a) for a in axes}
        if len(lengths) > 1:
            raise ScenarioError(
                [
                    Problem(
                        "mode",
                        f"zip takes the i-th value of every axis and needs equal lengths, got "
                        f"{', '.join(f'{a.name}: {len(a)}' for a in axes)}",
                        source,
                    )
                ]
            )
        dims: tuple[tuple[int, ...], ...] = (tuple(range(len(axes))),)
        shape: tuple[int, ...] = (len(axes[0]),)
    else:
        together = tuple(i for i, a in enumerate(spec.axes) if a.latin_hypercube is not None)
        dims = tuple((i,) for i in range(len(axes)) if i not in together) + ((together,) if together else ())
        shape = tuple(len(axes[d[0]]) for d in dims)
    # a vector axis moved together with a structural one (zip, one Latin hypercube) is evaluated per group
    for dim in dims:
        if len(dim) > 1 and any(not axes[i].vector for i in dim):
            for i in dim:
                axes[i] = AxisValues(axes[i].name, axes[i].kind, axes[i].labels, False, axes[i].edits, axes[i].subsets)
    # configurations are numbered with the structural dimensions outermost: each group is then a run of
    # consecutive configurations, and the chunks hold the rows in order (no sort of the table)
    outer = sorted(range(len(dims)), key=lambda k: all(axes[i].vector for i in dims[k]))
    dims = tuple(dims[k] for k in outer)
    shape = tuple(shape[k] for k in outer)
    _check_summary(spec, base, source)
    attributes = system_attributes(spec, names, source)
    return Design(spec, base, data, tuple(axes), dims, shape, source, names, tuple(inputs), attributes)


def _check_summary(spec: SweepSpec, base: Scenario, source: str) -> None:
    """The summary's demand point and cells, checked against the base scenario and the axes before anything runs
    (a typo found by the summary came after the whole run, and the table was lost)."""
    points = [p.name for p in base.demand]
    point = spec.summary.demand_point
    if point != BLENDED and point not in points:
        raise ScenarioError(
            [Problem("summary.demand_point", f"no demand point named {point!r} (points: {[*points, BLENDED]})", source)]
        )
    known = [a.axis for a in spec.axes] + list(spec.system_attributes)
    for k, name in enumerate(spec.summary.by or []):
        if name not in known:
            raise ScenarioError([Problem(f"summary.by[{k}]", f"{name!r} is not an axis ({known})", source)])


def configuration_indices(d: Design, configs: NDArray[np.int64]) -> NDArray[np.int64]:
    """Index of each axis's value in each configuration, shape ``(len(configs), axes)``.

    Configurations are numbered as :func:`itertools.product` orders the dimensions, the last fastest; the
    dimensions of structural axes come first, each kind in the sweep's order.
    """
    multi = np.unravel_index(configs, d.shape) if len(d.shape) > 1 else (configs,)
    out = np.empty((len(configs), len(d.axes)), dtype=np.int64)
    for dim, index in zip(d.dims, multi, strict=True):
        for axis in dim:
            out[:, axis] = index
    return out


def structural_groups(d: Design, configs: NDArray[np.int64]) -> list[tuple[tuple[int, ...], NDArray[np.int64]]]:
    """The configurations of each group (one combination of the structural axes' values), in order.

    Returns
    -------
    list
        ``(value index of each structural axis, configurations)`` per group, the groups in order of their first
        configuration and each group's configurations ascending.
    """
    structural = list(d.structural_axes)
    if not structural:
        return [((), configs)]
    idx = configuration_indices(d, configs)[:, structural]
    keys, inverse = np.unique(idx, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(keys) + 1))
    groups = [(tuple(int(v) for v in keys[g]), configs[order[bounds[g] : bounds[g + 1]]]) for g in range(len(keys))]
    groups.sort(key=lambda g: int(g[1][0]))
    return groups


@dataclass(frozen=True)
class GroupScenario:
    """One group's scenario and the systems it could not evaluate.

    Attributes
    ----------
    scenario
        The base with the group's edits, the systems that cannot be evaluated there left out; None when none can.
    skipped
        ``(system, reason)`` for each system left out.
    planned
        The scenario's :func:`rackcost.evaluation.chain.choose_points` (None with the scenario).
    """

    scenario: Scenario | None
    skipped: tuple[tuple[str, str], ...]
    planned: Any = None


def group_scenario(d: Design, values: tuple[int, ...], keep: bool = False) -> GroupScenario:
    """The scenario of one group: the base with the edits of its structural axes' values, planned.

    A system that cannot be evaluated there (an SLO none of its operating points meets, a node over the rack
    limit) is left out and named with the reason; the others are evaluated as usual. With ``keep``, the group is
    also kept in ``d.kept_groups`` and the next call for the same values returns it (once) instead of building it
    again.

    Raises
    ------
    ScenarioError
        When the edits make a scenario that does not validate (a value out of a field's range, say): the sweep's
        file, the axis and its value, then the scenario's problems.
    """
    kept = d.kept_groups.pop(values, None)
    if kept is not None:
        return kept
    group = _build_group(d, values)
    if keep:
        d.kept_groups[values] = group
    return group


def _build_group(d: Design, values: tuple[int, ...]) -> GroupScenario:
    """:func:`group_scenario`'s work."""
    from rackcost.evaluation.chain import choose_points  # numpy-heavy: only once a sweep runs

    data = copy.deepcopy(d.base_data)
    subset: tuple[str, ...] | None = None
    said = []
    for axis_index, value in zip(d.structural_axes, values, strict=True):
        axis = d.axes[axis_index]
        said.append(f"{axis.name} = {axis.labels[value]}")
        if axis.kind == "systems":
            subset = axis.subsets[value]
        else:
            for path, new in axis.edits_at(value, d.base_data).items():
                _apply(data, path, new)
    where = ", ".join(said) or "the base scenario"
    _prune_figures(data)
    if subset is not None:
        data = subset_systems(data, subset)
    scenario = _validated(data, d.source, where)
    try:
        planned = choose_points(scenario)
    except ScenarioError:  # some system cannot be evaluated here: find which, and keep the others
        planned = None
    if planned is not None:
        return GroupScenario(scenario, (), planned)
    keep, skipped = [], []
    for system in scenario.systems:
        try:
            choose_points(_validated(subset_systems(copy.deepcopy(data), (system.name,)), d.source, where))
            keep.append(system.name)
        except ScenarioError as exc:
            skipped.append((system.name, "; ".join(p.message for p in exc.problems)))
    if not keep:
        return GroupScenario(None, tuple(skipped))
    scenario = _validated(subset_systems(data, tuple(keep)), d.source, where)
    return GroupScenario(scenario, tuple(skipped), choose_points(scenario))


def _validated(data: dict[str, Any], source: str, where: str | None = None) -> Scenario:
    """The scenario of ``data``, its fields validated (whether each system can be evaluated is :func:`plan`'s
    question); problems name the sweep file and, when given, the configuration that made them."""
    from pydantic import ValidationError

    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        problems = in_file_order(problems_from_validation(exc, source))
        if where is not None:
            problems = [Problem(p.path, f"with {where}: {p.message}", source) for p in problems]
        raise ScenarioError(problems) from None


def _axis_error(source: str, index: int, what: str, exc: ScenarioError) -> ScenarioError:
    first = exc.problems[0]
    detail = f"{first.path}: {first.message}" if first.path else first.message
    return ScenarioError([Problem(f"axes[{index}]", f"{what} ({detail})", source)])


def _latin_hypercube(spec: SweepSpec) -> dict[int, NDArray[np.float64]]:
    """Values of the Latin-hypercube axes: one joint design, each column through its distribution's quantiles."""
    from scipy.stats import qmc

    axes = [(i, a.latin_hypercube) for i, a in enumerate(spec.axes) if a.latin_hypercube is not None]
    if not axes:
        return {}
    n = axes[0][1].samples  # the spec checks they agree
    u = qmc.LatinHypercube(d=len(axes), rng=np.random.default_rng(spec.seed)).random(n)
    return {i: np.asarray(lhs.dist.ppf(u[:, k]), dtype=float) for k, (i, lhs) in enumerate(axes)}


def _numeric_values(axis: Axis, lhs: dict[int, NDArray[np.float64]], index: int) -> NDArray[np.float64]:
    if axis.values is not None:
        return np.asarray(axis.values, dtype=float)
    if axis.range is not None:
        r = axis.range
        if r.scale == "log":
            return np.geomspace(r.start, r.stop, r.steps)
        return np.linspace(r.start, r.stop, r.steps)
    return lhs[index]


def _resolve(
    axis: Axis,
    index: int,
    base: Scenario,
    data: dict[str, Any],
    names: tuple[str, ...],
    lhs: dict[int, NDArray[np.float64]],
    source: str,
) -> AxisValues:
    """One axis's values and edits, checked against the base scenario."""
    if axis.kind == "systems":
        return _systems_axis(axis, index, names, source)
    if axis.kind == "variants":
        return _variants_axis(axis, index, base, data, names, source)
    return _numeric_axis(axis, index, data, lhs, source)


def _systems_axis(axis: Axis, index: int, names: tuple[str, ...], source: str) -> AxisValues:
    """A systems axis: each system alone, or the subsets given, every name one of the base scenario's."""
    where = f"axes[{index}]"
    subsets = [(name,) for name in names] if axis.each else [tuple(s) for s in axis.subsets or []]
    for k, subset in enumerate(subsets):
        unknown = [s for s in subset if s not in names]
        if unknown:
            raise ScenarioError(
                [Problem(f"{where}.subsets[{k}]", f"no system named {unknown[0]!r} (systems: {list(names)})", source)]
            )
    labels = np.array([" + ".join(s) for s in subsets], dtype=object)
    return AxisValues(axis.axis, "systems", labels, subsets=tuple(subsets))


def _variants_axis(
    axis: Axis, index: int, base: Scenario, data: dict[str, Any], names: tuple[str, ...], source: str
) -> AxisValues:
    """A variants axis: each variant's edits (a price tier's among them), each making a valid scenario with the
    same systems."""
    where = f"axes[{index}]"
    edits = []
    for k, variant in enumerate(axis.variants or []):
        change = dict(variant.edits)
        if variant.tier is not None:
            change.update(_tier_edits(variant.tier, base, f"{where}.variants[{k}].tier", source))
        for path in change:
            loc = parse_path(path)
            if lookup(data, loc[:-1]) is MISSING and not _creatable(data, loc):
                raise ScenarioError(
                    [
                        Problem(
                            f"{where}.variants[{k}].set",
                            f"the base scenario has no {format_path(loc[:-1])!r} to set {loc[-1]!r} in",
                            source,
                        )
                    ]
                )
        edits.append(change)
    labels = np.array([v.label for v in axis.variants or []], dtype=object)
    axis_values = AxisValues(axis.axis, "variants", labels, edits=tuple(edits))
    for k, change in enumerate(edits):  # each variant must make a valid scenario on its own
        trial = copy.deepcopy(data)
        for path, new in change.items():
            _apply(trial, path, new)
        try:
            made = _validated(_prune_figures(trial), source)
        except ScenarioError as exc:
            raise _axis_error(source, index, f"variant {labels[k]!r} does not make a valid scenario", exc) from None
        made_names = [s.name for s in made.systems]
        if set(made_names) != set(names):  # a row is named by its system: the names are the table's key
            gone = [n for n in names if n not in made_names]
            new_names = [n for n in made_names if n not in names]
            raise ScenarioError(
                [
                    Problem(
                        f"{where}.variants[{k}].set",
                        f"variant {labels[k]!r} changes the systems' names (removes {gone}, adds {new_names}): "
                        "a sweep's rows are named by system, so a variant may change a system's inputs but not "
                        "its name nor which systems there are (use a systems axis to leave systems out)",
                        source,
                    )
                ]
            )
    return axis_values


def _numeric_axis(
    axis: Axis, index: int, data: dict[str, Any], lhs: dict[int, NDArray[np.float64]], source: str
) -> AxisValues:
    """A numeric axis (or the demand's scale): its values, the input it moves, and its ends within the field's range."""
    where = f"axes[{index}]"
    values = _numeric_values(axis, lhs, index)
    if axis.axis == DEMAND_SCALE:
        if np.any(values <= 0):
            raise ScenarioError([Problem(where, f"demand.scale must be > 0, got {values.min():g}", source)])
        return AxisValues(axis.axis, "demand_scale", values)
    central = lookup(data, axis.axis)
    if central is MISSING:
        raise ScenarioError([Problem(f"{where}.axis", f"the scenario has no input at {axis.axis!r}", source)])
    number = isinstance(central, int | float) and not isinstance(central, bool)
    if not (number or (isinstance(central, dict) and "dist" in central)):
        raise ScenarioError(
            [Problem(f"{where}.axis", f"{axis.axis!r} is not a numeric input (it holds {_kind(central)})", source)]
        )
    vector = bool(VECTOR_PATH.match(axis.axis))
    if vector and ".facility." in axis.axis and axis.axis.startswith("systems["):
        vector = number or isinstance(central, dict)  # a system's own facility figure: read per sample where set
    # the field's own range: a vector axis is never validated per configuration, so check its ends here (every
    # field's range is an interval); a structural axis is validated with each group
    for end in {float(values.min()), float(values.max())}:
        trial = copy.deepcopy(data)
        _apply(trial, axis.axis, end)
        try:
            _validated(trial, source)
        except ScenarioError as exc:
            bad = [p for p in exc.problems if p.path == axis.axis] or exc.problems
            raise _axis_error(source, index, f"the value {end:g} is not allowed there", ScenarioError(bad)) from None
    return AxisValues(axis.axis, "numeric", values, vector=vector)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a block"
    if isinstance(value, list):
        return "a list"
    return f"the text {value!r}" if isinstance(value, str) else repr(value)


def _creatable(data: dict[str, Any], loc: tuple[str | int, ...]) -> bool:
    """A variant may set a key in a block the base lacks only one level below an existing block."""
    return len(loc) >= 2 and lookup(data, loc[:-2]) is not MISSING and isinstance(loc[-2], str)


def _apply(data: Any, path: str, value: Any) -> None:
    """Set (or, for None, remove) the value at ``path``, making a missing last block."""
    loc = parse_path(path)
    node = data
    for part, nxt in itertools.pairwise(loc):
        if isinstance(part, str) and (part not in node or node[part] is None):
            node[part] = {} if isinstance(nxt, str) else []
        node = node[part]
    if value is None:
        if isinstance(loc[-1], str):
            node.pop(loc[-1], None)
        return
    node[loc[-1]] = copy.deepcopy(value)


def _prune_figures(data: dict[str, Any]) -> dict[str, Any]:
    """Drop the ``figures:`` entries of values an edit removed (a variant that rents a system drops its costs)."""
    if isinstance(data.get("figures"), dict):
        data["figures"] = {k: v for k, v in data["figures"].items() if lookup(data, k) is not MISSING}
    return data


def _demand_scale_edits(data: dict[str, Any], scale: float) -> dict[str, Any]:
    """Edits that multiply every demand point's arrival rate (a distribution's location and scale with it)."""
    out: dict[str, Any] = {}
    for j, point in enumerate(data["demand"]):
        rate = point["arrival_rps"]
        if isinstance(rate, dict):
            out[f"demand[{j}].arrival_rps"] = {
                k: ([x * scale for x in v] if isinstance(v, list) else v * scale) if k in _SCALED_FIELDS else v
                for k, v in rate.items()
            }
        else:
            out[f"demand[{j}].arrival_rps"] = rate * scale
    return out


def _tier_edits(tier: Tier, base: Scenario, where: str, source: str) -> dict[str, Any]:
    """Edits that rent a system at an InferenceX price tier (reserved, power and facility included)."""
    from rackcost.scenario.price_tiers import price_tiers

    names = [s.name for s in base.systems]
    if tier.system not in names:
        raise ScenarioError([Problem(f"{where}.system", f"no system named {tier.system!r} (systems: {names})", source)])
    tiers = price_tiers()
    key = f"{tier.gpu}:{tier.tier}"
    if key not in tiers:
        raise ScenarioError([Problem(where, f"no InferenceX tier {key!r} (tiers: {sorted(tiers)})", source)])
    i = names.index(tier.system)
    if base.systems[i].api is not None:
        raise ScenarioError([Problem(f"{where}.system", f"{tier.system!r} is an API: it has no GPUs to rent", source)])
    return {
        f"systems[{i}].costs": None,
        f"systems[{i}].rent": {
            "usd_per_accelerator_hour": float(tiers[key].usd_per_gpu_hour),
            "billing": "reserved",
            "includes_power_and_facility": True,
        },
    }
