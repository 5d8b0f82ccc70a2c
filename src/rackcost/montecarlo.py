"""Uncertainty, sensitivity and break-even (DESIGN.md section 3).

Monte Carlo over every distribution in a scenario, vectorised: one numpy array per uncertain input, and the fleet,
queueing, power and cost steps of :func:`rackcost.chain.fleet_arrays` run once on all samples (no Python loop per
sample). The operating point of each system is chosen once, on central values (it is the operator's serving
configuration); its throughput and power then vary with the samples, and the fleet is sized for each sample.

- :func:`uncertainty`: percentiles of every result column, probability that each system is cheaper per accepted
  request than the baseline, and the samples.
- :func:`tornado`: each uncertain input at its P5 and P95 with the others central, ranked by the swing.
- :func:`breakeven`: the value of one input at which two systems cost the same per accepted request.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.chain import _choose, feasibility_problems, sizing_demand, system_inputs
from rackcost.errors import Problem, ScenarioError
from rackcost.fleet import fleet_arrays
from rackcost.schema import _UNCERTAIN, UNCERTAIN_WHERE, Scenario, _lookup

__all__ = [
    "BreakEven",
    "UncertaintyResult",
    "breakeven",
    "draw_samples",
    "evaluate_samples",
    "tornado",
    "uncertainty",
]

SECONDS_PER_HOUR = 3600.0
PERCENTILES = (5.0, 50.0, 95.0)
POINT_COLUMNS = (
    "offered_rps",
    "accepted_rps",
    "rejected_rps",
    "rejected_fraction",
    "utilization_fraction",
    "capacity_at_slo_rps",
    "spare_capacity_fraction",
    "ttft_p99_ms",
    "it_power_kw",
    "facility_power_kw",
    "energy_usd_per_hour",
    "capital_usd_per_hour",
    "fixed_opex_usd_per_hour",
    "total_usd_per_hour",
    "usd_per_accepted_request",
    "usd_per_million_accepted_output_tokens",
    "output_tokens_per_kwh",
    "provisioned_replicas",
    "racks",
)
SYSTEM_COLUMNS = (
    "provisioned_replicas",
    "racks",
    "provisioned_it_kw",
    "capex_usd",
    "capital_usd_per_hour",
    "fixed_opex_usd_per_hour",
    "slo_point_total_tokens_per_facility_kwh",
    "blended_usd_per_accepted_request",
    "blended_usd_per_million_accepted_output_tokens",
)


def draw_samples(scenario: Scenario, samples: int, seed: int) -> dict[str, NDArray[np.float64]]:
    """One array of ``samples`` draws per uncertain input, reproducible from ``seed``.

    Inputs are drawn in sorted order of their YAML paths, each from its own stream of uniforms put through the
    distribution's quantile function, so adding an input does not change the draws of the others.
    """
    root = np.random.SeedSequence(seed)
    out = {}
    for path in sorted(scenario.distributions):
        # a child stream per input, keyed by its path, independent of the other inputs
        key = [int.from_bytes(path.encode()[i : i + 4].ljust(4, b"\0"), "little") for i in range(0, len(path), 4)]
        rng = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=key))
        out[path] = np.asarray(scenario.distributions[path].ppf(rng.random(samples)), dtype=float)
    return out


@dataclass
class _Prepared:
    """What is decided once, on central values: each system's inputs, operating point, busy power and budget."""

    systems: list[tuple[Any, Any, float, float]]


def _prepare(scenario: Scenario) -> _Prepared:
    inputs = [system_inputs(scenario, s) for s in scenario.systems]
    problems = feasibility_problems(scenario, inputs)
    if problems:
        raise ScenarioError([Problem(path, message) for _, path, message in problems])
    _, sizing_rps = sizing_demand(scenario)
    prepared = []
    for inp in inputs:
        point, busy_w, budget_s, _ = _choose(inp, scenario, sizing_rps)
        prepared.append((inp, point, busy_w, budget_s))
    return _Prepared(prepared)


def evaluate_samples(
    scenario: Scenario, values: dict[str, NDArray[np.float64]], n: int, prepared: _Prepared | None = None
) -> dict[str, dict[str, NDArray[np.float64]]]:
    """Evaluate every system for ``n`` samples of the inputs at once.

    Parameters
    ----------
    scenario
        A validated scenario.
    values
        YAML path -> array of ``n`` values; inputs not given keep their central value.
    n
        Number of samples [-].

    Returns
    -------
    dict
        System name -> column -> array: point columns of shape ``(n, points)``, system columns of shape ``(n,)``.
    """
    prepared = prepared or _prepare(scenario)
    hours = np.array([d.hours_per_day for d in scenario.demand])
    osl = scenario.workload.output_tokens_per_request
    out = {}
    for inp, point, busy_w, budget_s in prepared.systems:
        a = fleet_arrays(scenario, inp, point, busy_w, budget_s, values, n)
        d = a["demand"]
        total = a["capital_usd_per_hour"] + a["fixed_opex_usd_per_hour"] + a["energy_usd_per_hour"]
        fleet_float = {name: np.asarray(a[name], dtype=float) for name in ("provisioned_replicas", "racks")}
        output_tps = d.accepted_rps * osl
        cols: dict[str, NDArray[np.float64]] = {
            "offered_rps": d.offered_rps,
            "accepted_rps": d.accepted_rps,
            "rejected_rps": d.rejected_rps,
            "rejected_fraction": d.rejected_fraction,
            "utilization_fraction": d.utilization_fraction,
            "capacity_at_slo_rps": d.capacity_at_slo_rps,
            "spare_capacity_fraction": d.spare_capacity_fraction,
            "ttft_p99_ms": float(point.ttft_ms[0]) + d.wait_p99_ms,
            "it_power_kw": a["it_power_kw"],
            "facility_power_kw": a["facility_power_kw"],
            "energy_usd_per_hour": a["energy_usd_per_hour"],
            "capital_usd_per_hour": np.broadcast_to(a["capital_usd_per_hour"], total.shape),
            "fixed_opex_usd_per_hour": np.broadcast_to(a["fixed_opex_usd_per_hour"], total.shape),
            "total_usd_per_hour": total,
            "usd_per_accepted_request": total / (d.accepted_rps * SECONDS_PER_HOUR),
            "usd_per_million_accepted_output_tokens": total / (output_tps * SECONDS_PER_HOUR) * 1e6,
            "output_tokens_per_kwh": output_tps * SECONDS_PER_HOUR / a["facility_power_kw"],
            # per-system figures repeated at each point: read-only views of one float array, which the
            # percentile step recognises and summarises once (so do the "@system" columns below)
            "provisioned_replicas": np.broadcast_to(fleet_float["provisioned_replicas"], total.shape),
            "racks": np.broadcast_to(fleet_float["racks"], total.shape),
        }
        cost_per_day = (total * hours).sum(axis=1)
        accepted_per_day = (d.accepted_rps * hours).sum(axis=1) * SECONDS_PER_HOUR
        for name in SYSTEM_COLUMNS[:-2]:  # the fleet's own figures; the two blended ones follow
            cols[name + "@system"] = fleet_float.get(name, np.asarray(a[name], dtype=float)).reshape(n)
        cols["blended_usd_per_accepted_request@system"] = cost_per_day / accepted_per_day
        cols["blended_usd_per_million_accepted_output_tokens@system"] = cost_per_day / (accepted_per_day * osl) * 1e6
        out[inp.name] = cols
    return out


@dataclass
class UncertaintyResult:
    """What :func:`uncertainty` returns.

    Attributes
    ----------
    percentiles
        Rows (dicts) with ``system``, ``demand_point`` (``"blended"``/``"system"`` for system columns), ``column``,
        ``p5``, ``p50``, ``p95``, ``mean``.
    probability_cheaper
        Rows with ``system``, ``baseline``, ``demand_point`` (and ``blended``), ``probability_fraction``: the share
        of samples in which the system costs less per accepted request than the baseline.
    samples
        System -> column -> array, as from :func:`evaluate_samples`, plus the drawn inputs under ``"inputs"``.
        A per-system figure repeated at every demand point is a read-only view (copy it to modify it).
    n, seed
        Sample count and seed.
    """

    percentiles: list[dict[str, Any]]
    probability_cheaper: list[dict[str, Any]]
    samples: dict[str, dict[str, NDArray[np.float64]]]
    n: int
    seed: int

    def samples_frame(self):
        """The samples as a long pandas DataFrame: sample, system, demand_point, column, value."""
        import pandas as pd

        frames = []
        for system, cols in self.samples.items():
            if system == "inputs":
                continue
            for name, arr in cols.items():
                if arr.ndim == 1:
                    frames.append(
                        pd.DataFrame(
                            {
                                "sample": np.arange(arr.shape[0]),
                                "system": system,
                                "demand_point": "system",
                                "column": name.removesuffix("@system"),
                                "value": arr,
                            }
                        )
                    )
                else:
                    for j, point in enumerate(self._points):
                        frames.append(
                            pd.DataFrame(
                                {
                                    "sample": np.arange(arr.shape[0]),
                                    "system": system,
                                    "demand_point": point,
                                    "column": name,
                                    "value": arr[:, j],
                                }
                            )
                        )
        return pd.concat(frames, ignore_index=True)

    _points: tuple[str, ...] = ()


CHUNK_SAMPLES = 25_000
MIN_SAMPLES_PER_WORKER = 10_000
Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]  # map, or a thread pool's map


def default_workers() -> int:
    """Threads :func:`uncertainty` uses by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def _evaluate_blocks(
    scenario: Scenario,
    values: dict[str, NDArray[np.float64]],
    samples: int,
    prepared: _Prepared,
    run: Mapper,
    workers: int,
    progress: Any,
) -> dict[str, dict[str, NDArray[np.float64]]]:
    """:func:`evaluate_samples` on contiguous blocks of samples (one per worker, or of ``CHUNK_SAMPLES`` to report
    progress), mapped by ``run`` (``map``, or a thread pool's) and joined back in sample order."""
    size = CHUNK_SAMPLES if progress is not None and samples > CHUNK_SAMPLES else -(-samples // workers)
    bounds = [(start, min(start + size, samples)) for start in range(0, samples, size)]
    if len(bounds) == 1:
        result = evaluate_samples(scenario, values, samples, prepared)
        if progress is not None:
            progress(samples)
        return result

    def block(bound: tuple[int, int]) -> dict[str, dict[str, NDArray[np.float64]]]:
        start, stop = bound
        return evaluate_samples(scenario, {p: v[start:stop] for p, v in values.items()}, stop - start, prepared)

    blocks = []
    for (_, stop), done in zip(bounds, run(block, bounds), strict=True):
        blocks.append(done)
        if progress is not None:
            progress(stop)
    return {
        system: {name: _join([b[system][name] for b in blocks]) for name in blocks[0][system]} for system in blocks[0]
    }


def _join(parts: list[NDArray[np.float64]]) -> NDArray[np.float64]:
    """Blocks of one column joined along the sample axis; a per-system figure repeated at every point (a
    broadcast view, stride 0 along the points) stays a view, so the percentile step still summarises it once."""
    if parts[0].ndim == 2 and all(p.strides[1] == 0 for p in parts):
        base = np.concatenate([p[:, :1] for p in parts])
        return np.broadcast_to(base, (base.shape[0], parts[0].shape[1]))
    return np.concatenate(parts)


def uncertainty(
    scenario: Scenario, samples: int = 10_000, seed: int = 0, progress: Any = None, workers: int | None = None
) -> UncertaintyResult:
    """Monte Carlo over every distribution in the scenario, all samples at once.

    Parameters
    ----------
    scenario
        A validated scenario; inputs given as distributions are sampled, the rest stay as they are.
    samples
        Number of samples [-].
    seed
        Seed of the random streams; the same seed gives the same result.
    progress
        Optional callable, called with the number of samples done after each chunk of 25,000 (the draws are made
        up front, so chunking does not change the result).
    workers
        Threads that evaluate contiguous blocks of samples side by side (numpy and scipy release the GIL inside
        their array loops, so blocks run on separate cores). Default :func:`default_workers`; at most one per
        10,000 samples. Every step is elementwise along the sample axis, so the result is bit for bit the same
        for any number of workers and any chunking.

    Returns
    -------
    UncertaintyResult
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    values = draw_samples(scenario, samples, seed)
    prepared = _prepare(scenario)
    workers = max(1, min(workers or default_workers(), samples // MIN_SAMPLES_PER_WORKER))
    with ThreadPoolExecutor(workers) if workers > 1 else nullcontext() as pool:
        run: Mapper = map if pool is None else pool.map
        result = _evaluate_blocks(scenario, values, samples, prepared, run, workers, progress)
        points = [d.name for d in scenario.demand]
        labels, columns = [], []
        for system, cols in result.items():
            for name, arr in cols.items():
                if arr.ndim == 1:
                    labels.append((system, "system", name.removesuffix("@system")))
                    columns.append(arr)
                else:
                    for j, point in enumerate(points):
                        labels.append((system, point, name))
                        columns.append(arr[:, j])
        p5, p50, p95, mean = _summaries(columns, run)
    rows = [
        {"system": sy, "demand_point": pt, "column": col, "p5": p5[i], "p50": p50[i], "p95": p95[i], "mean": mean[i]}
        for i, (sy, pt, col) in enumerate(labels)
    ]
    base = scenario.baseline_name
    cheaper = []
    for system, cols in result.items():
        if system == base:
            continue
        b = result[base]
        for j, point in enumerate(points):
            share = np.mean(cols["usd_per_accepted_request"][:, j] < b["usd_per_accepted_request"][:, j])
            cheaper.append(
                {"system": system, "baseline": base, "demand_point": point, "probability_fraction": float(share)}
            )
        share = np.mean(cols["blended_usd_per_accepted_request@system"] < b["blended_usd_per_accepted_request@system"])
        cheaper.append(
            {"system": system, "baseline": base, "demand_point": "blended", "probability_fraction": float(share)}
        )
    result["inputs"] = values
    out = UncertaintyResult(percentiles=rows, probability_cheaper=cheaper, samples=result, n=samples, seed=seed)
    out._points = tuple(points)
    return out


def _summaries(
    columns: list[NDArray[np.float64]], run: Mapper = map
) -> tuple[list[float], list[float], list[float], list[float]]:
    """P5, P50, P95 (numpy's default linear interpolation) and mean of each column.

    Constant columns (a per-system figure repeated at every point, an input that is not uncertain) skip the sort,
    columns that are views of the same array are summarised once, and ``run`` (a thread pool's ``map``) may run the
    sorts side by side.
    """
    distinct: dict[tuple[int, int, int], NDArray[np.float64]] = {}
    keys = []
    for col in columns:
        key = (col.__array_interface__["data"][0], col.strides[0], col.shape[0])
        distinct.setdefault(key, col)
        keys.append(key)
    stats = dict(zip(distinct, run(_summary, distinct.values()), strict=True))
    p5, p50, p95, mean = zip(*(stats[key] for key in keys), strict=True)
    return list(p5), list(p50), list(p95), list(mean)


def _summary(col: NDArray[np.float64]) -> tuple[float, float, float, float]:
    """P5, P50, P95 and mean of one column (see :func:`_summaries`)."""
    lo, hi = float(col.min()), float(col.max())
    if lo == hi:
        return lo, lo, lo, lo
    ordered = np.sort(col)
    pos = np.array(PERCENTILES) / 100.0 * (col.size - 1)
    below = np.floor(pos).astype(int)
    above = np.minimum(below + 1, col.size - 1)
    q = ordered[below] + (pos - below) * (ordered[above] - ordered[below])
    return float(q[0]), float(q[1]), float(q[2]), float(col.mean())


def tornado(scenario: Scenario, low_q: float = 0.05, high_q: float = 0.95) -> list[dict[str, Any]]:
    """Each uncertain input at its low and high quantile, the others at their central value.

    Returns
    -------
    list of dict
        One row per uncertain input, sorted by ``relative_swing``, the largest swing of any system's blended cost
        per accepted request relative to its central value (largest first): ``input``, ``low_value``,
        ``high_value``, and per system ``blended_usd_per_accepted_request`` at low and high
        (``{system}@low``, ``{system}@high``), the ``swing``
        of each, and ``ratio_low``/``ratio_high``: system cost / baseline cost (for two systems or more).
    """
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
    result = evaluate_samples(scenario, values, 2 * m)
    base = scenario.baseline_name
    others = [s.name for s in scenario.systems if s.name != base] or [base]
    rows = []
    for k, path in enumerate(paths):
        row: dict[str, Any] = {
            "input": path,
            "low_value": values[path][2 * k],
            "high_value": values[path][2 * k + 1],
            "central_value": dists[path].central,
        }
        for system, cols in result.items():
            blended = cols["blended_usd_per_accepted_request@system"]
            row[f"{system}@low"] = float(blended[2 * k])
            row[f"{system}@high"] = float(blended[2 * k + 1])
            row[f"{system}@swing"] = abs(row[f"{system}@high"] - row[f"{system}@low"])
        if len(result) > 1:
            b = result[base]["blended_usd_per_accepted_request@system"]
            a = result[others[0]]["blended_usd_per_accepted_request@system"]
            row["ratio_low"] = float(a[2 * k] / b[2 * k])
            row["ratio_high"] = float(a[2 * k + 1] / b[2 * k + 1])
            row["ratio_swing"] = abs(row["ratio_high"] - row["ratio_low"])
        rows.append(row)
    # rank by the largest relative swing of any system's blended cost (an input that moves only the baseline's
    # cost, such as its rack price, decides the comparison as much as one that moves the other system's)
    central = evaluate_samples(scenario, {}, 1)
    for row in rows:
        row["relative_swing"] = max(
            row[f"{system}@swing"] / float(cols["blended_usd_per_accepted_request@system"][0])
            for system, cols in central.items()
        )
    rows.sort(key=lambda r: -r["relative_swing"])
    return rows


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


def breakeven(
    scenario: Scenario,
    input_path: str,
    system: str | None = None,
    demand_point: str = "blended",
    low: float | None = None,
    high: float | None = None,
    grid: int = 65,
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
    if not _UNCERTAIN.fullmatch(input_path):
        raise ScenarioError(
            [Problem(input_path, f"break-even needs an input where a distribution is allowed; {UNCERTAIN_WHERE}")]
        )
    base = scenario.baseline_name
    names = [s.name for s in scenario.systems]
    system = system or next((s for s in names if s != base), None)
    if system is None or system not in names or system == base:
        raise ScenarioError(
            [Problem("", f"break-even needs a system other than the baseline {base!r}; systems: {names}")]
        )
    points = [d.name for d in scenario.demand]
    if demand_point != "blended" and demand_point not in points:
        raise ScenarioError([Problem("", f"demand point must be one of {points} or 'blended', got {demand_point!r}")])
    central = _central(scenario, input_path)
    dist = scenario.distributions.get(input_path)
    if low is None:
        low = float(dist.ppf(0.01)) if dist is not None else 0.25 * central
    if high is None:
        high = float(dist.ppf(0.99)) if dist is not None else 4.0 * central
    problems = _range_problems(scenario, input_path, low, high)
    if problems:
        raise ScenarioError([Problem(input_path, p) for p in problems])
    prepared = _prepare(scenario)

    def gap(x: NDArray[np.float64]) -> NDArray[np.float64]:
        res = evaluate_samples(scenario, {input_path: x}, x.size, prepared)
        if demand_point == "blended":
            a = res[system]["blended_usd_per_accepted_request@system"]
            b = res[base]["blended_usd_per_accepted_request@system"]
        else:
            j = points.index(demand_point)
            a = res[system]["usd_per_accepted_request"][:, j]
            b = res[base]["usd_per_accepted_request"][:, j]
        return a - b

    xs = np.linspace(low, high, grid)
    g = gap(xs)
    where = f"{system} vs {base} at {demand_point}"
    change = np.flatnonzero(np.sign(g[:-1]) * np.sign(g[1:]) <= 0)
    if change.size == 0:
        cheaper = system if g[0] < 0 else base
        return BreakEven(
            input_path,
            system,
            base,
            demand_point,
            None,
            low,
            high,
            f"no value of {input_path} in [{low:.4g}, {high:.4g}] makes {where} cost the same: "
            f"{cheaper} is cheaper throughout",
        )
    lo, hi = xs[change[0]], xs[change[0] + 1]
    g_lo = g[change[0]]
    for _ in range(60):
        if hi - lo <= 1e-9 * max(abs(high - low), 1e-300):
            break
        mids = np.linspace(lo, hi, 9)[1:-1]  # seven points per step: one vectorised call narrows 8x
        gm = gap(mids)
        edges = np.concatenate([[lo], mids, [hi]])
        vals = np.concatenate([[g_lo], gm, [gap(np.array([hi]))[0]]])
        k = int(np.flatnonzero(np.sign(vals[:-1]) * np.sign(vals[1:]) <= 0)[0])
        lo, hi, g_lo = edges[k], edges[k + 1], vals[k]
    value = float(0.5 * (lo + hi))
    return BreakEven(
        input_path,
        system,
        base,
        demand_point,
        value,
        low,
        high,
        f"{where}: equal cost per accepted request at {input_path} = {value:.6g}",
    )


def _range_problems(scenario: Scenario, path: str, low: float, high: float) -> list[str]:
    """Why a break-even search range cannot be used: reversed, or outside the input's allowed values."""
    from pydantic import TypeAdapter, ValidationError

    from rackcost.schema import _annotation_at

    if not low < high:
        return [f"the search range must have low < high, got [{low:g}, {high:g}]"]
    if path.startswith("uncertainty.throughput_derate."):
        cls = path.rsplit(".", 1)[1]
        if all(s.provenance.provenance_class.value != cls for s in scenario.systems):
            return [f"no system has provenance class {cls!r}: its derate changes nothing"]
    annotation = _annotation_at(scenario, path)
    if annotation is None:
        return []
    adapter = TypeAdapter(annotation)
    for end in (low, high):
        try:
            adapter.validate_python(end)
        except ValidationError as exc:
            return [
                f"the search range [{low:g}, {high:g}] leaves the input's allowed values at {end:g} "
                f"({exc.errors(include_url=False)[0]['msg']})"
            ]
    return []


def _central(scenario: Scenario, path: str) -> float:
    if path in scenario.distributions:
        return float(scenario.distributions[path].central)
    if path.startswith("uncertainty.throughput_derate."):
        from rackcost.schema import ProvenanceClass

        return float(scenario.uncertainty.throughput_derate.get(ProvenanceClass(path.rsplit(".", 1)[1]), 1.0))
    value = _lookup(scenario.model_dump(by_alias=True), path)
    if not isinstance(value, int | float):
        raise ScenarioError([Problem(path, "not a numeric input of this scenario")])
    return float(value)
