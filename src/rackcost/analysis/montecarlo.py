"""Monte Carlo over every distribution in a scenario (docs/uncertainty.md); tornado and break-even build on it.

Vectorised: one numpy array per uncertain input, and the steps 4 to 8 of :func:`rackcost.evaluation.chain.run_samples`
run once on all samples (no Python loop per sample). The operating point of each system is chosen once, on central
values (:func:`rackcost.evaluation.chain.choose_points`: it is the operator's serving configuration); its throughput
and power then vary with the samples, and the fleet is sized for each sample.

- :func:`draw_samples`: one array of draws per uncertain input, seeded.
- :func:`evaluate_samples`: every result column of every system for ``n`` samples at once.
- :func:`uncertainty`: percentiles of every result column, probability that each system is cheaper per accepted
  request than the baseline and than each other system (:mod:`rackcost.analysis.pairs`), and the samples; an input
  without a distribution may be drawn from its default spread (:mod:`rackcost.analysis.default_spreads`).

Sensitivity (tornado, break-even) is in :mod:`rackcost.analysis.sensitivity`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.default_spreads import DefaultSpread, spreads_for
from rackcost.analysis.pairs import every_pair, pair_rows
from rackcost.errors import check_argument, check_count, problems_in_its_file
from rackcost.evaluation.api_systems import run_api_samples
from rackcost.evaluation.chain import (
    SCENARIO_OR_EVALUATION,
    ChosenPoints,
    Evaluation,
    choose_points,
    evaluation_for,
    run_samples,
)
from rackcost.evaluation.columns import column as registry_column
from rackcost.evaluation.columns import column_names, select
from rackcost.limits import MAX_CELLS, MAX_SAMPLES
from rackcost.model.costs.api import ApiOutcome
from rackcost.model.outcomes import Metrics
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import Samples

__all__ = [
    "POINT_COLUMNS",
    "SYSTEM_COLUMNS",
    "CHUNK_CELLS",
    "MAX_CELLS",
    "MAX_SAMPLES",
    "UncertaintyResult",
    "cells",
    "default_workers",
    "draw_samples",
    "evaluate_samples",
    "uncertainty",
]

PERCENTILES = (5.0, 50.0, 95.0)
POINT_COLUMNS = select(
    "points",
    (
        "offered_rps",
        "accepted_rps",
        "rejected_rps",
        "rejected_fraction",
        "utilization_fraction",
        "capacity_at_slo_rps",
        "spare_capacity_fraction",
        "ttft_p99_ms",
        "tpot_ms",
        "it_power_kw",
        "facility_power_kw",
        "energy_usd_per_hour",
        "rent_usd_per_hour",
        "api_usd_per_hour",
        "capital_usd_per_hour",
        "fixed_opex_usd_per_hour",
        "total_usd_per_hour",
        "usd_per_accepted_request",
        "usd_per_million_accepted_output_tokens",
        "usd_per_million_accepted_input_tokens",
        "usd_per_million_accepted_total_tokens",
        "output_tokens_per_kwh",
        "provisioned_replicas",
        "racks",
    ),
)
FLEET_COLUMNS = select(
    "systems",
    (
        "provisioned_replicas",
        "racks",
        "provisioned_it_kw",
        "capex_usd",
        "capital_usd_per_hour",
        "fixed_opex_usd_per_hour",
        "slo_point_total_tokens_per_facility_kwh",
    ),
)
"""Per-system figures of the fleet (0 for an API system)."""
BLENDED_COLUMNS = select(
    "systems",
    (
        "blended_usd_per_accepted_request",
        "blended_usd_per_million_accepted_output_tokens",
        "blended_usd_per_million_accepted_input_tokens",
        "blended_usd_per_million_accepted_total_tokens",
    ),
)
"""Per-system figures over the day."""
SYSTEM_COLUMNS = FLEET_COLUMNS + BLENDED_COLUMNS


def draw_samples(
    scenario: Scenario, samples: int, seed: int, defaults: dict[str, DefaultSpread] | None = None
) -> dict[str, NDArray[np.float64]]:
    """One array of ``samples`` draws per uncertain input, reproducible from ``seed``.

    Inputs are drawn in sorted order of their YAML paths, each from its own stream of uniforms put through the
    distribution's quantile function, so adding an input does not change the draws of the others. ``defaults``:
    default spreads of inputs without a distribution (:func:`rackcost.analysis.default_spreads.spreads_for`); the
    scenario's own distribution wins where both name an input.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    root = np.random.SeedSequence(int(seed))
    out = {}
    dists = {**(defaults or {}), **scenario.distributions}
    for path in sorted(dists):
        # a child stream per input, keyed by its path, independent of the other inputs
        key = [int.from_bytes(path.encode()[i : i + 4].ljust(4, b"\0"), "little") for i in range(0, len(path), 4)]
        rng = np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=key))
        out[path] = np.asarray(dists[path].ppf(rng.random(samples)), dtype=float)
    return out


SystemColumns = dict[str, NDArray[np.float64]]


def evaluate_samples(
    scenario: Scenario,
    values: Samples,
    n: int,
    planned: ChosenPoints | None = None,
    resize: bool = True,
    serve_once: bool = False,
) -> dict[str, SystemColumns]:
    """Evaluate every system for ``n`` samples of the inputs at once.

    Parameters
    ----------
    scenario
        A validated scenario.
    values
        YAML path -> array of ``n`` values; inputs not given keep their central value.
    n
        Number of samples [-].
    planned
        The scenario's :func:`rackcost.evaluation.chain.choose_points`, when the caller has it already.
    resize
        Size the fleet per sample (True), or keep each chosen point's replica count (False: only right when the
        sampled inputs leave the sizing unchanged, as prices do; :mod:`rackcost.analysis.sweep.run` uses it so).
    serve_once
        Serve each fleet once and cost it per sample (:func:`rackcost.evaluation.chain.run_samples`); only for prices.

    Returns
    -------
    dict
        System name -> column -> array: the :data:`POINT_COLUMNS` of shape ``(n, points)``, and the
        :data:`SYSTEM_COLUMNS` as ``name@system`` of shape ``(n,)``.
    """
    planned = planned or choose_points(scenario)
    found: dict[str, SystemColumns] = {}
    for api in run_api_samples(scenario, values, n):
        found[scenario.systems[api.index].name] = _api_columns(api.served, api.metrics, n)
    runs = run_samples(scenario, planned, values, n, resize, serve_once)
    for inp, chosen, (fleet, m) in zip(planned.systems, planned.chosen, runs, strict=True):
        d = fleet.demand
        shape = m.total_usd_per_hour.shape
        replicas = np.asarray(fleet.provisioned_replicas, dtype=float)
        racks = np.asarray(fleet.racks, dtype=float)
        # per-system figures repeated at each point are read-only views of one float array, which the percentile
        # step recognises and summarises once (so are the "@system" columns below)
        per_system = {
            "provisioned_replicas": replicas,
            "racks": racks,
            "provisioned_it_kw": fleet.provisioned_it_kw,
            "capex_usd": fleet.capex_usd,
            "capital_usd_per_hour": fleet.capital_usd_per_hour,
            "fixed_opex_usd_per_hour": fleet.fixed_opex_usd_per_hour,
            "slo_point_total_tokens_per_facility_kwh": fleet.slo_point_total_tokens_per_facility_kwh,
        }
        cols: SystemColumns = {
            "offered_rps": d.offered_rps,
            "accepted_rps": d.accepted_rps,
            "rejected_rps": d.rejected_rps,
            "rejected_fraction": d.rejected_fraction,
            "utilization_fraction": d.utilization_fraction,
            "capacity_at_slo_rps": d.capacity_at_slo_rps,
            "spare_capacity_fraction": d.spare_capacity_fraction,
            "ttft_p99_ms": m.ttft_p99_ms,
            # where the load puts the operating point, or the chosen point's when it does not move with load
            "tpot_ms": d.tpot_ms if d.tpot_ms is not None else np.broadcast_to(float(chosen.point.tpot_ms[0]), shape),
            "it_power_kw": fleet.it_power_kw,
            "facility_power_kw": fleet.facility_power_kw,
            "energy_usd_per_hour": fleet.energy_usd_per_hour,
            "rent_usd_per_hour": fleet.rent_usd_per_hour,
            "api_usd_per_hour": np.zeros(shape),
            "capital_usd_per_hour": np.broadcast_to(fleet.capital_usd_per_hour, shape),
            "fixed_opex_usd_per_hour": np.broadcast_to(fleet.fixed_opex_usd_per_hour, shape),
            "total_usd_per_hour": m.total_usd_per_hour,
            "usd_per_accepted_request": m.usd_per_accepted_request,
            "usd_per_million_accepted_output_tokens": m.usd_per_million_accepted_output_tokens,
            "usd_per_million_accepted_input_tokens": m.usd_per_million_accepted_input_tokens,
            "usd_per_million_accepted_total_tokens": m.usd_per_million_accepted_total_tokens,
            "output_tokens_per_kwh": m.output_tokens_per_kwh,
            "provisioned_replicas": np.broadcast_to(replicas, shape),
            "racks": np.broadcast_to(racks, shape),
        }
        for name, column in per_system.items():
            cols[name + "@system"] = np.asarray(column, dtype=float).reshape(n)
        for name in BLENDED_COLUMNS:
            cols[name + "@system"] = getattr(m, name)
        found[inp.name] = cols
    return {s.name: found[s.name] for s in scenario.systems}  # in the scenario's order


def _api_columns(served: ApiOutcome, m: Metrics, n: int) -> SystemColumns:
    """The columns of :func:`evaluate_samples` for an API system: what it serves and costs; 0 for a fleet, power,
    latency or capacity it does not have."""
    shape = m.total_usd_per_hour.shape
    zeros = np.zeros(shape)
    cols: SystemColumns = {
        "offered_rps": served.offered_rps,
        "accepted_rps": served.accepted_rps,
        "rejected_rps": served.rejected_rps,
        "rejected_fraction": served.rejected_rps / served.offered_rps,
        "utilization_fraction": zeros,
        "capacity_at_slo_rps": zeros,
        "spare_capacity_fraction": zeros,
        "ttft_p99_ms": zeros,
        "tpot_ms": zeros,
        "it_power_kw": zeros,
        "facility_power_kw": zeros,
        "energy_usd_per_hour": zeros,
        "rent_usd_per_hour": zeros,
        "api_usd_per_hour": served.api_usd_per_hour,
        "capital_usd_per_hour": zeros,
        "fixed_opex_usd_per_hour": zeros,
        "total_usd_per_hour": m.total_usd_per_hour,
        "usd_per_accepted_request": m.usd_per_accepted_request,
        "usd_per_million_accepted_output_tokens": m.usd_per_million_accepted_output_tokens,
        "usd_per_million_accepted_input_tokens": m.usd_per_million_accepted_input_tokens,
        "usd_per_million_accepted_total_tokens": m.usd_per_million_accepted_total_tokens,
        "output_tokens_per_kwh": zeros,
        "provisioned_replicas": zeros,
        "racks": zeros,
    }
    for name in FLEET_COLUMNS:
        cols[name + "@system"] = np.zeros(n)
    for name in BLENDED_COLUMNS:
        cols[name + "@system"] = getattr(m, name)
    return cols


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
    pairs
        The same blended over the day for every ordered pair of systems: rows with ``system``, ``other``,
        ``demand_point``, ``probability_fraction`` (:func:`rackcost.analysis.pairs.probability_cheaper` gives any
        pair at any demand point).
    samples
        System -> column -> array, as from :func:`evaluate_samples`, plus the drawn inputs under ``"inputs"``.
        A per-system figure repeated at every demand point is a read-only view (copy it to modify it). A run of
        several blocks keeps its float arrays in one buffer (``_allocate``): an array kept alone keeps it all.
    n, seed
        Sample count and seed.
    unserved
        The systems left out because the scenario cannot serve with them, with why (as ``Result.unserved``): the
        samples are of the others.
    distributions, default_spreads
        The inputs drawn from the scenario's distributions (YAML paths), and the rows of those drawn from a default
        spread (:meth:`rackcost.analysis.default_spreads.DefaultSpread.to_dict`: input, value, basis, shape, P5,
        P95, source).
    central
        Each system's blended cost per accepted request at the inputs' central values [USD] (None: undefined).
    """

    percentiles: list[dict[str, Any]]
    probability_cheaper: list[dict[str, Any]]
    samples: dict[str, dict[str, NDArray[np.float64]]]
    n: int
    seed: int
    unserved: list[dict[str, Any]] = field(default_factory=list)
    pairs: list[dict[str, Any]] = field(default_factory=list)
    distributions: list[str] = field(default_factory=list)
    default_spreads: list[dict[str, Any]] = field(default_factory=list)
    central: dict[str, float | None] = field(default_factory=dict)

    @property
    def points(self) -> tuple[str, ...]:
        """The demand points' names, in the order of the points columns."""
        return self._points

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
"""Samples per block when progress is reported [-]."""
CHUNK_CELLS = 1_000_000
"""Samples x demand points x systems per block at most [-]: a large run is always evaluated in blocks of this size,
so that the model's intermediate arrays stay about 0.5 GB whatever the run (the kept samples are the rest)."""
CACHE_CELLS = 150_000
"""Cells per block the evaluation aims at [-]: the model's temporaries are then about 1 MB each, which the allocator
reuses and the caches hold (one block of 600,000 cells, 100,000 samples of the default scenario, took about a
fifth longer than four of 150,000: ``docs/uncertainty.md``). Blocks keep at least :data:`MIN_SAMPLES_PER_BLOCK` samples
whatever it asks, so that a run of many demand points is not cut into blocks that cost more in calls than in
arithmetic; :data:`CHUNK_CELLS` bounds them always."""
MIN_SAMPLES_PER_BLOCK = 10_000
"""Samples per block below which :data:`CACHE_CELLS` does not split a run further [-]."""
MIN_SAMPLES_PER_WORKER = 10_000
Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterator[Any]]  # map, or a thread pool's map


def cells(scenario: Scenario, samples: int) -> int:
    """The size of a Monte Carlo run: samples x demand points x systems [-] (compare with :data:`MAX_CELLS`)."""
    return samples * len(scenario.demand) * len(scenario.systems)


def default_workers() -> int:
    """Threads :func:`uncertainty` uses by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def _block_size(samples: int, per_sample: int, workers: int, progress: Any) -> int:
    """Samples per block: one block per worker, at most :data:`CHUNK_SAMPLES` when reporting progress, at most
    :data:`CACHE_CELLS` cells (``per_sample`` cells per sample) unless that leaves fewer than
    :data:`MIN_SAMPLES_PER_BLOCK` samples, and at most :data:`CHUNK_CELLS` cells always."""
    size = -(-samples // workers)
    if progress is not None:
        size = min(size, CHUNK_SAMPLES)
    per_sample = max(1, per_sample)
    size = min(size, max(CACHE_CELLS // per_sample, MIN_SAMPLES_PER_BLOCK))
    return max(1, min(size, CHUNK_CELLS // per_sample))


def _evaluate_blocks(
    scenario: Scenario,
    values: dict[str, NDArray[np.float64]],
    samples: int,
    planned: ChosenPoints,
    run: Mapper,
    workers: int,
    progress: Any,
) -> dict[str, dict[str, NDArray[np.float64]]]:
    """:func:`evaluate_samples` on contiguous blocks of samples (see :func:`_block_size`), mapped by ``run``
    (``map``, or a thread pool's) and written into arrays of all samples allocated once, so that the peak memory
    is the result plus the blocks in flight (joining kept blocks would hold the result twice)."""
    size = _block_size(samples, cells(scenario, 1), workers, progress)
    bounds = [(start, min(start + size, samples)) for start in range(0, samples, size)]

    def block(bound: tuple[int, int]) -> dict[str, dict[str, NDArray[np.float64]]]:
        start, stop = bound
        return evaluate_samples(scenario, {p: v[start:stop] for p, v in values.items()}, stop - start, planned)

    first = block(bounds[0])
    if progress is not None:
        progress(bounds[0][1])
    if len(bounds) == 1:
        return first
    # a per-system figure repeated at every point (a broadcast view, stride 0 along the points) is stored once per
    # sample and stays a view, so that the percentile step still summarises it once
    repeated = {
        (sy, name) for sy, cols in first.items() for name, a in cols.items() if a.ndim == 2 and not a.strides[1]
    }
    shapes = {
        (sy, name): ((samples, 1) if (sy, name) in repeated else (samples, *a.shape[1:]), a.dtype)
        for sy, cols in first.items()
        for name, a in cols.items()
    }
    out: dict[str, dict[str, NDArray[Any]]] = {sy: {} for sy in first}
    for (sy, name), array in zip(shapes, _allocate(list(shapes.values())), strict=True):
        out[sy][name] = array

    def store(bound: tuple[int, int], result: dict[str, dict[str, NDArray[np.float64]]]) -> int:
        start, stop = bound
        for sy, cols in result.items():
            for name, a in cols.items():
                out[sy][name][start:stop] = a[:, :1] if (sy, name) in repeated else a
        return stop

    def evaluate_and_store(bound: tuple[int, int]) -> int:
        return store(bound, block(bound))

    store(bounds[0], first)
    del first
    for stop in run(evaluate_and_store, bounds[1:]):
        if progress is not None:
            progress(stop)
    for sy, name in repeated:
        base = out[sy][name]
        out[sy][name] = np.broadcast_to(base, (samples, len(scenario.demand)))
    return out


def _allocate(specs: list[tuple[tuple[int, ...], np.dtype[Any]]]) -> list[NDArray[Any]]:
    """Empty arrays of the given shapes and dtypes, those of float64 carved out of one buffer.

    The samples of a run are tens of arrays of a few MB each; written block by block, each new array's pages are
    faulted in one at a time (4 kB each below numpy's 4 MB threshold for huge pages), which took a tenth of a
    100,000-sample run on this machine. One buffer of them all is allocated as huge pages where the system allows,
    so the same writes take a fraction of that. Each array is a view of the buffer (C-contiguous, of its own shape).
    """
    sizes = [math.prod(shape) if dtype == np.float64 else 0 for shape, dtype in specs]
    buffer = np.empty(sum(sizes), dtype=np.float64)
    out, offset = [], 0
    for (shape, dtype), size in zip(specs, sizes, strict=True):
        if dtype != np.float64:
            out.append(np.empty(shape, dtype=dtype))
            continue
        out.append(buffer[offset : offset + size].reshape(shape))
        offset += size
    return out


@problems_in_its_file
def uncertainty(
    scenario: Scenario | Evaluation,
    samples: int = 10_000,
    seed: int = 0,
    progress: Any = None,
    workers: int | None = None,
    default_spreads: bool | None = None,
) -> UncertaintyResult:
    """Monte Carlo over every distribution in the scenario, all samples at once.

    Parameters
    ----------
    scenario
        A validated scenario, or its evaluation (whose chosen operating points it reuses); inputs given as
        distributions are sampled, the rest stay as they are.
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
    default_spreads
        Draw each input without a distribution from its default spread (:mod:`rackcost.analysis.default_spreads`):
        None (default) where the scenario has no distribution at all, True always, False never.

    Returns
    -------
    UncertaintyResult
    """
    fn = "rackcost.uncertainty"
    check_argument(fn, "scenario", scenario, (Scenario, Evaluation), SCENARIO_OR_EVALUATION)
    check_count(fn, "samples", samples, 1)
    check_count(fn, "seed", seed, 0)
    if workers is not None:
        check_count(fn, "workers", workers, 1)
    found = evaluation_for(scenario, "uncertainty", warn=False)  # its result lists the systems left out
    scenario, unserved = found.scenario, found.unserved
    defaults = spreads_for(scenario, default_spreads)
    values = draw_samples(scenario, samples, seed, defaults)
    planned = found.chosen
    workers = max(1, min(workers or default_workers(), samples // MIN_SAMPLES_PER_WORKER))
    with ThreadPoolExecutor(workers) if workers > 1 else nullcontext() as pool:
        run: Mapper = map if pool is None else pool.map
        result = _evaluate_blocks(scenario, values, samples, planned, run, workers, progress)
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
    for i, (row, (_, _, name)) in enumerate(zip(rows, labels, strict=True)):
        # a cost per accepted request undefined in some samples: null, never NaN (_undefined_summary)
        if _per_accepted(name):
            stats = {"p5": p5[i], "p50": p50[i], "p95": p95[i], "mean": mean[i]}
            row.update({k: None for k, v in stats.items() if math.isnan(v)})
    base = scenario.baseline_name
    against_base = pair_rows(result, points, [(name, base) for name in result if name != base])
    cheaper = [{"baseline" if k == "other" else k: v for k, v in r.items()} for r in against_base]
    central = evaluate_samples(scenario, {}, 1, planned)
    result["inputs"] = values
    out = UncertaintyResult(
        percentiles=rows,
        probability_cheaper=cheaper,
        samples=result,
        n=samples,
        seed=seed,
        unserved=[u.to_dict() for u in unserved],
        pairs=pair_rows(result, points, every_pair(list(central)), per_point=False),
        distributions=sorted(scenario.distributions),
        default_spreads=[d.to_dict() for d in defaults.values()],
        central={name: _defined(cols["blended_usd_per_accepted_request@system"][0]) for name, cols in central.items()},
    )
    out._points = tuple(points)
    return out


def _defined(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def _per_accepted(name: str) -> bool:
    """Whether a carried column is a cost per accepted request or token (the registry's, points or systems)."""
    table = "points" if name in column_names("points") else "systems"
    return registry_column(table, name).per_accepted


def _summaries(
    columns: list[NDArray[np.float64]], run: Mapper = map
) -> tuple[list[float], list[float], list[float], list[float]]:
    """P5, P50, P95 (numpy's default linear interpolation) and mean of each column.

    Constant columns (a per-system figure repeated at every point, an input that is not uncertain) skip the partition,
    columns that are views of the same array are summarised once, and ``run`` (a thread pool's ``map``) may run the
    partitions side by side.
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
    """P5, P50, P95 and mean of one column (see :func:`_summaries`).

    The two order statistics each percentile interpolates between are selected (:func:`_order_statistics`), not
    found by a full sort: they are the sorted column's values, bit for bit, and between them the interpolation is
    numpy's default ``linear`` one (numpy writes it from the upper statistic where the fraction is at least 1/2,
    which may round the last bit differently: ``tests/test_montecarlo.py`` checks the two agree to 1e-12 with
    :func:`numpy.percentile`).
    """
    values = np.ascontiguousarray(col)  # a point's column is strided; comparisons run several times faster on a copy
    lo, hi = float(values.min()), float(values.max())
    if lo == hi:
        return lo, lo, lo, lo
    if math.isnan(lo) or math.isnan(hi):
        return _undefined_summary(values)
    pos = np.array(PERCENTILES) / 100.0 * (col.size - 1)
    below = np.floor(pos).astype(np.intp)
    above = np.minimum(below + 1, col.size - 1)
    at_below, at_above = _order_statistics(values, below, above, finite=bool(np.isfinite(lo) and np.isfinite(hi)))
    q = at_below + (pos - below) * (at_above - at_below)
    return float(q[0]), float(q[1]), float(q[2]), float(values.mean())  # (the same sum as col.mean(), contiguous)


def _undefined_summary(values: NDArray[np.float64]) -> tuple[float, float, float, float]:
    """:func:`_summary` of a column with undefined values (NaN: a cost per accepted request of a sample that
    accepts nothing, :func:`rackcost.model.costs.metrics.per_accepted`). Such a sample pays and serves nothing, so its
    cost ranks above every defined one: a percentile that falls among them is undefined (NaN, shown as null), the
    others are the defined values' order statistics; the mean is undefined. (``numpy.nanpercentile`` would leave
    the samples out and report a cost as if they had not been drawn.)"""
    ranked = np.sort(np.where(np.isnan(values), np.inf, values))
    pos = np.array(PERCENTILES) / 100.0 * (values.size - 1)
    below = np.floor(pos).astype(np.intp)
    above = np.minimum(below + 1, values.size - 1)
    lo, hi = ranked[below], ranked[above]
    with np.errstate(invalid="ignore"):
        q = np.where(np.isfinite(hi), lo + (pos - below) * (hi - lo), np.nan)
    return float(q[0]), float(q[1]), float(q[2]), math.nan


SELECT_SAMPLE = 8192
"""Values of a column :func:`_order_statistics` sorts to bracket the ranks it selects [-]."""
SELECT_SPREAD = 4.0
"""Half-width of each bracket, in standard deviations of the sample's rank, plus two values [-]: on independent draws
a bracket misses its ranks (and the column is partitioned whole instead) less than once in 10,000."""


def _order_statistics(
    values: NDArray[np.float64], below: NDArray[np.intp], above: NDArray[np.intp], finite: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The values at ranks ``below[i]`` and ``above[i]`` of the sorted contiguous column ``values``, bit for bit.

    A column of more than ``8 * SELECT_SAMPLE`` finite values is not partitioned whole (1.9 ms for 100,000 values):
    a strided sample of about :data:`SELECT_SAMPLE` values, sorted, gives for each pair of ranks two values
    ``low <= high`` that bracket them with high probability; then with ``m`` values below ``low`` and the values in
    ``[low, high]`` taken out (a few thousand), the rank ``r`` of the column is the rank ``r - m`` of those, found
    by :func:`numpy.partition` (about 0.15 ms a pair). Where the counts show a bracket missed (``m > r``, or fewer
    than ``r - m + 1`` values inside), that pair is found in the whole column instead: the result never depends on
    the sample, only the time does. A column with NaN or an infinity (never a result of the model) is partitioned
    whole, as :func:`numpy.sort` orders it.
    """
    n = values.size
    step = n // SELECT_SAMPLE
    if step < 8 or not finite:
        ordered = np.partition(values, np.concatenate((below, above)))
        return ordered[below], ordered[above]
    sample = np.sort(values[::step])
    last = sample.size - 1
    at_below, at_above = np.empty(below.size), np.empty(below.size)
    whole = []  # the pairs to find in the whole column
    for i, (r0, r1) in enumerate(zip(below.tolist(), above.tolist(), strict=True)):
        f = r0 / (n - 1)
        spread = SELECT_SPREAD * math.sqrt(sample.size * f * (1.0 - f)) + 2.0
        low = sample[max(0, math.floor(r0 / step - spread))]
        high = sample[min(last, math.ceil(r1 / step + spread))]
        at_least = values >= low
        fewer = n - int(np.count_nonzero(at_least))  # values below low (every value compares: no NaN)
        at_least &= values <= high
        taken = int(np.count_nonzero(at_least))
        if fewer <= r0 and r1 < fewer + taken and low == high != 0.0:
            at_below[i] = at_above[i] = low  # a bracket of one value (racks, replicas): its own answer
        elif fewer <= r0 and r1 < fewer + taken and taken <= n // 8:
            # (np.compress, not values[at_least]: the same values in the same order, in a third of the time: 0.07
            # against 0.2 ms for 10,000 of 100,000 values)
            part = np.partition(np.compress(at_least, values), (r0 - fewer, r1 - fewer))
            at_below[i], at_above[i] = part[r0 - fewer], part[r1 - fewer]
        else:
            # the bracket missed (a once-in-thousands draw, or a column in a pattern the sample aliases), or it
            # holds so many values (a column of a few repeated values: racks, replicas) that taking them out costs
            # more than partitioning the column
            whole.append(i)
    if whole:
        ordered = np.partition(values, np.concatenate((below[whole], above[whole])))
        at_below[whole], at_above[whole] = ordered[below[whole]], ordered[above[whole]]
    return at_below, at_above
