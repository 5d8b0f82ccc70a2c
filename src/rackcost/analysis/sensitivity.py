"""Sensitivity of the cost per accepted request: a tornado of the uncertain inputs, and break-even values.

Both evaluate many variants of a scenario in one vectorised call of
:func:`rackcost.analysis.montecarlo.evaluate_samples` (each variant a "sample" whose inputs are set rather than drawn).

- :func:`tornado`: each uncertain input at its P5 and P95 with the others central, ranked by the swing.
- :func:`breakeven`: the value of one input at which two systems cost the same per accepted request.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.default_spreads import allowed_range
from rackcost.analysis.montecarlo import evaluate_samples
from rackcost.display import input_unit, input_value, num
from rackcost.errors import Problem, ScenarioError, check_argument, check_count, plain_message, problems_in_its_file
from rackcost.evaluation.chain import evaluation_for
from rackcost.evaluation.columns import BLENDED
from rackcost.evaluation.servable import renumbered_path
from rackcost.scenario.schema import UNCERTAIN_WHERE, Scenario, annotation_at, is_uncertain_path
from rackcost.scenario.yaml_paths import lookup

__all__ = ["BreakEven", "breakeven", "first_root", "tornado"]

BREAKEVEN_DEFAULT_RANGE = (0.25, 4.0)
"""Search range of an input without a distribution, as multiples of its value: from a quarter to four times, wide
enough for any price or power a scenario is likely to be wrong by, narrow enough that a 65-point grid resolves it."""
BREAKEVEN_DEFAULT_QUANTILES = (0.01, 0.99)
"""Search range of an input with a distribution: its P1 to P99."""
BREAKEVEN_WIDENING = (16.0, 256.0, 65_536.0, 1e9)
"""Where the default range holds no root, the search widens to these multiples of the input's value (a range of
``value / F`` to ``value x F``, within the values the input allows), and last to everything it allows: it stops at
the first range with a root, or says that none of the allowed values makes the two costs meet. An input
whose value is 0 starts at ``[allowed low, 1]`` and widens its top by the same multiples [-]."""
BREAKEVEN_GRID = 65
"""Grid points of the first pass, one vectorised call; the first sign change of the cost gap is refined [-]."""
BISECTION_POINTS = 7
"""Interior points per refinement step, one vectorised call: each step narrows the bracket 8x [-]."""
BISECTION_MAX_STEPS = 60
"""Refinement steps at most: 8**60 is far past double precision, so the tolerance always stops it first [-]."""
BISECTION_TOLERANCE_FRACTION = 1e-9
"""The refinement stops when the bracket is this share of the searched range [-]."""


@problems_in_its_file
def tornado(scenario: Scenario, low_q: float = 0.05, high_q: float = 0.95) -> list[dict[str, Any]]:
    """Each uncertain input at its low and high quantile, the others at their central value.

    Returns
    -------
    list of dict
        One row per uncertain input, sorted by ``relative_swing``, the largest swing of any system's blended cost
        per accepted request relative to its central value (largest first): ``input``, ``low_value``,
        ``high_value``, and per system ``blended_usd_per_accepted_request`` at low and high
        (``{system}@low``, ``{system}@high``), the ``swing``
        of each, and ``advantage_low``/``advantage_high``: the advantage of the first other system over the
        baseline, baseline cost / system cost (> 1: the system is cheaper; the direction of every ratio in
        rackcost), and ``advantage_swing`` (for two systems or more).
    """
    check_argument("rackcost.tornado", "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    for name, q in (("low_q", low_q), ("high_q", high_q)):
        check_argument("rackcost.tornado", name, q, (int, float), "a quantile in (0, 1)")
        if not 0 < q < 1:
            raise ValueError(f"rackcost.tornado: {name} must be a quantile in (0, 1), got {q!r}")
    given = scenario
    found = evaluation_for(scenario, "tornado")  # a system it cannot serve with is left out, with a warning
    scenario = found.scenario
    dists = scenario.distributions
    paths = sorted(dists)
    if not paths:
        return []
    m = len(paths)
    values = {}
    for k, path in enumerate(paths):
        central = dists[path].central
        arr = np.full(2 * m, central)
        arr[2 * k] = float(dists[path].ppf(low_q))
        arr[2 * k + 1] = float(dists[path].ppf(high_q))
        values[path] = arr
    result = evaluate_samples(scenario, values, 2 * m, found.chosen)
    base = scenario.baseline_name
    others = [s.name for s in scenario.systems if s.name != base] or [base]
    rows = []
    for k, path in enumerate(paths):
        row: dict[str, Any] = {
            "input": renumbered_path(path, scenario, given),  # in the numbering of the file given
            "low_value": values[path][2 * k],
            "high_value": values[path][2 * k + 1],
            "central_value": dists[path].central,
        }
        # a system that accepts nothing at an end has no cost per accepted request there (NaN from the model,
        # rackcost.model.costs.metrics.per_accepted): None, and so is its swing and an advantage that reads it
        for system, cols in result.items():
            blended = cols["blended_usd_per_accepted_request@system"]
            row[f"{system}@low"] = _defined(blended[2 * k])
            row[f"{system}@high"] = _defined(blended[2 * k + 1])
            row[f"{system}@swing"] = _difference(row[f"{system}@high"], row[f"{system}@low"])
        if len(result) > 1:
            b = result[base]["blended_usd_per_accepted_request@system"]
            a = result[others[0]]["blended_usd_per_accepted_request@system"]
            row["advantage_low"] = _defined(b[2 * k] / a[2 * k])
            row["advantage_high"] = _defined(b[2 * k + 1] / a[2 * k + 1])
            row["advantage_swing"] = _difference(row["advantage_high"], row["advantage_low"])
        rows.append(row)
    # rank by the largest relative swing of any system's blended cost (an input that moves only the baseline's
    # cost, such as its rack price, decides the comparison as much as one that moves the other system's)
    central = evaluate_samples(scenario, {}, 1, found.chosen)
    for row in rows:
        swings = [
            row[f"{system}@swing"] / float(cols["blended_usd_per_accepted_request@system"][0])
            for system, cols in central.items()
            if row[f"{system}@swing"] is not None and cols["blended_usd_per_accepted_request@system"][0] > 0
        ]
        row["relative_swing"] = max(swings, default=0.0)
    rows.sort(key=lambda r: -r["relative_swing"])
    return rows


def _defined(value: float) -> float | None:
    """A figure, or None where it is undefined (NaN: a cost per accepted request of a fleet that accepts nothing)."""
    return None if math.isnan(value) else float(value)


def _difference(high: float | None, low: float | None) -> float | None:
    """``|high - low|``, None where either is undefined."""
    return None if high is None or low is None else abs(high - low)


@dataclass
class BreakEven:
    """Where two systems cost the same per accepted request, or why no value in the range does.

    Attributes
    ----------
    input
        YAML path of the input varied.
    value
        The break-even value, or None.
    low, high
        The range searched.
    message
        One sentence for the reader.
    """

    input: str
    system: str
    baseline: str
    demand_point: str
    value: float | None
    low: float
    high: float
    message: str


@problems_in_its_file
def breakeven(
    scenario: Scenario,
    input_path: str,
    system: str | None = None,
    demand_point: str = BLENDED,
    low: float | None = None,
    high: float | None = None,
    grid: int = BREAKEVEN_GRID,
) -> BreakEven:
    """The value of one input at which ``system`` and the baseline cost the same per accepted request.

    The difference of costs is evaluated on a grid over [low, high] in one vectorised call, the first sign change
    is located, and vectorised bisection refines it to 1e-9 of the range.

    Parameters
    ----------
    scenario
        A validated scenario.
    input_path
        YAML path of a numeric input where a distribution is allowed (e.g. ``facility.electricity_usd_per_kwh``,
        ``systems[1].costs.capex_usd_per_accelerator``, ``uncertainty.throughput_derate.collaborative``).
    system
        The system compared with the baseline; default the first other system.
    demand_point
        A demand point's name, or ``blended``.
    low, high
        Range searched; default the input's distribution P1 to P99, or 0.25x to 4x its value.
    """
    fn = "rackcost.breakeven"
    check_argument(fn, "scenario", scenario, Scenario, "a Scenario (rackcost.load_scenario(path))")
    check_argument(fn, "input_path", input_path, str, "a YAML path such as 'facility.electricity_usd_per_kwh'")
    check_argument(fn, "system", system, (str, type(None)), "a system's name or None")
    check_argument(fn, "demand_point", demand_point, str, "a demand point's name or 'blended'")
    for name, bound in (("low", low), ("high", high)):
        check_argument(fn, name, bound, (int, float, type(None)), "a number or None")
    check_count(fn, "grid", grid, 2, 10_000)
    if not is_uncertain_path(input_path):
        raise ScenarioError(
            [Problem(input_path, f"break-even needs an input where a distribution is allowed; {UNCERTAIN_WHERE}")]
        )
    base = scenario.baseline_name
    system = _compared_system(scenario, input_path, system)
    points = [d.name for d in scenario.demand]
    if demand_point != BLENDED and demand_point not in points:
        raise ScenarioError([Problem("", f"demand point must be one of {points} or 'blended', got {demand_point!r}")])
    central = _central(scenario, input_path)
    widen = low is None and high is None  # a range the user gave is searched as given
    allowed_low, allowed_high = allowed_range(scenario, input_path)
    low, high = _search_range(scenario, input_path, low, high, central)
    problems = _range_problems(scenario, input_path, low, high)
    if problems:
        raise ScenarioError([Problem(input_path, p) for p in problems])
    # the two systems compared must be servable; any other the scenario cannot serve with is left out (it changes
    # neither cost), and the input's path is renumbered to the scenario evaluated
    given_path = input_path
    found = evaluation_for(scenario, "break-even", (system, base), warn=False)
    if found.scenario is not scenario:
        input_path = renumbered_path(input_path, scenario, found.scenario) or input_path
        scenario = found.scenario
    planned = found.chosen

    def gap(x: NDArray[np.float64]) -> NDArray[np.float64]:
        res = evaluate_samples(scenario, {input_path: x}, x.size, planned)
        if demand_point == BLENDED:
            a = res[system]["blended_usd_per_accepted_request@system"]
            b = res[base]["blended_usd_per_accepted_request@system"]
        else:
            j = points.index(demand_point)
            a = res[system]["usd_per_accepted_request"][:, j]
            b = res[base]["usd_per_accepted_request"][:, j]
        return a - b

    where = f"{system} vs {base} at {demand_point}"
    value, gap_low = first_root(gap, low, high, grid)
    widened = False
    for span in _wider_ranges(central, low, high, allowed_low, allowed_high) if widen else ():
        if value is not None:
            break
        low, high = span
        value, gap_low = first_root(gap, low, high, grid)
        widened = True
    shown = f"[{input_value(low, input_path)}, {input_value(high, input_path)}]"
    if value is None:
        cheaper = system if gap_low < 0 else base
        everything = widened and (low, high) == (allowed_low, allowed_high)
        message = (
            f"no value of {given_path} "
            + (f"the scenario allows ({shown})" if everything else f"in {shown}")
            + f" makes {where} cost the same: {cheaper} is cheaper throughout"
        )
    else:
        message = f"{where}: equal cost per accepted request at {given_path} = {_precise(value, input_path)}"
        if widened:
            message += f" (found after widening the search to {shown})"
    return BreakEven(given_path, system, base, demand_point, value, low, high, message)


def _compared_system(scenario: Scenario, input_path: str, system: str | None) -> str:
    """The system compared with the baseline: the one given, else the system the input belongs to, else the first
    other; refused where it is the baseline, unknown, or the input belongs to a third system."""
    base = scenario.baseline_name
    names = [s.name for s in scenario.systems]
    system = system or _system_of_input(input_path, names, base)
    if system is None or system not in names or system == base:
        raise ScenarioError(
            [Problem("", f"break-even needs a system other than the baseline {base!r}; systems: {names}")]
        )
    owner = _input_system_index(input_path)
    if owner is not None and owner < len(names) and names[owner] not in (system, base):
        raise ScenarioError(
            [
                Problem(
                    input_path,
                    f"the input belongs to systems[{owner}] ({names[owner]!r}), which is neither {system!r} nor the "
                    f"baseline {base!r}: it cannot move their comparison; give --system {names[owner]!r}",
                )
            ]
        )
    return system


def _search_range(
    scenario: Scenario, input_path: str, low: float | None, high: float | None, central: float
) -> tuple[float, float]:
    """The range searched: as given, else the input's distribution P1 to P99 (or 0.25x to 4x its value) within
    what the input allows."""
    dist = scenario.distributions.get(input_path)
    q_low, q_high = BREAKEVEN_DEFAULT_QUANTILES
    f_low, f_high = BREAKEVEN_DEFAULT_RANGE
    widen = low is None and high is None  # a range the user gave is searched as given
    allowed_low, allowed_high = allowed_range(scenario, input_path)
    if low is None:
        low = float(dist.ppf(q_low)) if dist is not None else f_low * central
    if high is None:
        high = float(dist.ppf(q_high)) if dist is not None else f_high * central
    if widen and central == 0.0 and dist is None:  # 0.25x to 4x of nothing is no range
        low, high = max(allowed_low, 0.0), min(allowed_high, 1.0)
    if widen:  # the default range, within what the input allows (a PUE of 1.15 has no 0.25x)
        low, high = max(low, allowed_low), min(high, allowed_high)
    return low, high


def _wider_ranges(
    central: float, low: float, high: float, allowed_low: float, allowed_high: float
) -> list[tuple[float, float]]:
    """The ranges a break-even search widens to (:data:`BREAKEVEN_WIDENING`), each wider than the last, ending with
    every allowed value when that is finite."""
    out: list[tuple[float, float]] = []
    for factor in BREAKEVEN_WIDENING:
        if central > 0:
            span = (max(allowed_low, central / factor), min(allowed_high, central * factor))
        else:
            span = (max(allowed_low, min(low, 0.0)), min(allowed_high, max(high, 1.0) * factor))
        if span[0] < span[1] and (span[0] < low or span[1] > high) and span not in out:
            out.append(span)
            low, high = min(low, span[0]), max(high, span[1])
    if math.isfinite(allowed_low) and math.isfinite(allowed_high) and (allowed_low < low or allowed_high > high):
        out.append((allowed_low, allowed_high))
    return out


def _input_system_index(input_path: str) -> int | None:
    """``i`` of an input under ``systems[i]``, else ``None``."""
    m = re.match(r"systems\[(\d+)\]", input_path)
    return int(m.group(1)) if m else None


def _system_of_input(input_path: str, names: list[str], base: str) -> str | None:
    """The system a break-even without ``system`` compares: the one the input belongs to, else the first other.

    An input of ``systems[i]`` compares system ``i`` with the baseline; an input of the baseline itself compares it
    with the one other system, and is refused as ambiguous when there are several. Inputs of no system (facility,
    uncertainty) compare the first other system, as before.
    """
    others = [n for n in names if n != base]
    owner = _input_system_index(input_path)
    if owner is None or owner >= len(names):
        return next(iter(others), None)
    if names[owner] != base:
        return names[owner]
    if len(others) == 1:
        return others[0]
    raise ScenarioError(
        [
            Problem(
                input_path,
                f"the input belongs to the baseline {base!r}, and {len(others)} systems could be compared with it "
                f"({', '.join(repr(n) for n in others)}): say which with --system",
            )
        ]
    )


def first_root(
    gap: Callable[[NDArray[np.float64]], NDArray[np.float64]], low: float, high: float, grid: int = BREAKEVEN_GRID
) -> tuple[float | None, float]:
    """The lowest root of a vectorised function on [low, high]: a grid, then bisection of the first sign change.

    Parameters
    ----------
    gap
        Function evaluated on an array of points at once.
    low, high
        Range searched.
    grid
        Points of the first pass [-].

    Returns
    -------
    root : float or None
        Within :data:`BISECTION_TOLERANCE_FRACTION` of the range, or None when the sign never changes.
    gap_low : float
        ``gap(low)`` (its sign tells which side wins when there is no root).

    Examples
    --------
    >>> root, _ = first_root(lambda x: x**2 - 2.0, 0.0, 2.0)
    >>> round(root, 8)
    1.41421356
    """
    xs = np.linspace(low, high, grid)
    g = gap(xs)
    change = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) <= 0)
    if change.size == 0:
        return None, float(g[0])
    lo, hi = xs[change[0]], xs[change[0] + 1]
    g_lo = g[change[0]]
    for _ in range(BISECTION_MAX_STEPS):
        if hi - lo <= BISECTION_TOLERANCE_FRACTION * max(abs(high - low), 1e-300):
            break
        mids = np.linspace(lo, hi, BISECTION_POINTS + 2)[1:-1]
        gm = gap(mids)
        edges = np.concatenate([[lo], mids, [hi]])
        vals = np.concatenate([[g_lo], gm, [gap(np.array([hi]))[0]]])
        k = int(np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) <= 0)[0])
        lo, hi, g_lo = edges[k], edges[k + 1], vals[k]
    return float(0.5 * (lo + hi)), float(g[0])


def _range_problems(scenario: Scenario, path: str, low: float, high: float) -> list[str]:
    """Why a break-even search range cannot be used: reversed, or outside the input's allowed values."""
    from pydantic import TypeAdapter, ValidationError

    if not low < high:
        return [f"the search range must have low < high, got [{low:g}, {high:g}]"]
    if path.startswith("uncertainty.throughput_derate."):
        cls = path.rsplit(".", 1)[1]
        if all(s.provenance.provenance_class.value != cls for s in scenario.systems):
            return [f"no system has provenance class {cls!r}: its derate changes nothing"]
    annotation = annotation_at(scenario, path)
    if annotation is None:
        return []
    adapter = TypeAdapter(annotation)
    for end in (low, high):
        try:
            adapter.validate_python(end)
        except ValidationError as exc:
            return [
                f"the search range [{low:g}, {high:g}] leaves the input's allowed values at {end:g} "
                f"({plain_message(exc.errors(include_url=False)[0]['msg'])})"
            ]
    return []


def _precise(value: float, path: str) -> str:
    """A break-even value with six significant digits (it is found to 1e-9 of the range) and the input's unit.

    >>> _precise(44948.23, "systems[1].costs.capex_usd_per_rack")
    '$44,948.2 per rack'
    >>> _precise(0.0851234, "facility.electricity_usd_per_kwh")
    '$0.0851234 per kWh'
    """
    kind, words = input_unit(path)
    if kind == "pct":
        return num(100 * value, 4) + "%" + words
    m = abs(value)
    text = f"{value:,.{max(0, 5 - math.floor(math.log10(m)))}f}" if 1000 <= m < 1e15 else num(value, 6)
    return f"${text}{words}" if kind == "usd" else text + words


def _central(scenario: Scenario, path: str) -> float:
    if path in scenario.distributions:
        return float(scenario.distributions[path].central)
    if path.startswith("uncertainty.throughput_derate."):
        from rackcost.scenario.schema import ProvenanceClass

        return float(scenario.uncertainty.throughput_derate.get(ProvenanceClass(path.rsplit(".", 1)[1]), 1.0))
    value = lookup(scenario.model_dump(by_alias=True), path)
    if not isinstance(value, int | float):
        raise ScenarioError([Problem(path, "not a numeric input of this scenario")])
    return float(value)
