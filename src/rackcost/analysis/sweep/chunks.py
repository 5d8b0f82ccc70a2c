"""Sweep chunks: each group's configurations cut into chunks, and one chunk evaluated in vectorised calls.

A chunk is one Dask task (:mod:`rackcost.analysis.sweep.run` schedules them): the configurations of one or more
groups that share a scenario, each group one call of :func:`rackcost.analysis.montecarlo.evaluate_samples` with the
vector axes as its sample axis (times the Monte Carlo draws when the sweep has ``samples``). Its result is the
figures' columns in configuration x system x demand point order (a per-system figure once per configuration x system),
which :mod:`rackcost.analysis.sweep.table` lays out with the rest of each row, known from the chunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.sweep.design import Design, configuration_indices, group_scenario, structural_groups
from rackcost.evaluation.columns import select

if TYPE_CHECKING:
    from rackcost.evaluation.chain import ChosenPoints
    from rackcost.scenario.schema import Scenario

__all__ = [
    "CHUNK_ELEMENTS",
    "MC_SPREAD",
    "POINT_COLUMNS",
    "SYSTEM_COLUMNS",
    "Chunk",
    "axis_key",
    "evaluate_chunk",
    "measure_names",
    "part_rows",
    "per_system",
    "plan_chunks",
]

CHUNK_ELEMENTS = 200_000
"""Elements (configurations x draws x systems x demand points) per chunk by default [-]: large enough that numpy's
per-call overhead is small (a chunk is still one call per group it holds, so the 10^6 sweep of
benchmarks/bench_sweep.py makes its 100 calls whatever the size), small enough that the chunks evaluated at once,
about 500 bytes per element each, leave a streamed sweep below 1 GiB (0.89 GiB at 200,000; 1.17 GiB at 600,000,
measured with ``rackcost sweep -o t.parquet`` on that sweep)."""

POINT_COLUMNS = select(
    "points",
    (
        "offered_rps",
        "accepted_rps",
        "rejected_fraction",
        "utilization_fraction",
        "ttft_p99_ms",
        "tpot_ms",
        "it_power_kw",
        "facility_power_kw",
        "total_usd_per_hour",
        "usd_per_accepted_request",
        "usd_per_million_accepted_output_tokens",
    ),
)
"""Per demand point columns of a sweep row (as :func:`rackcost.evaluate`'s points table)."""
SYSTEM_COLUMNS = select(
    "systems",
    (
        "provisioned_replicas",
        "racks",
        "provisioned_it_kw",
        "capex_usd",
        "blended_usd_per_accepted_request",
        "blended_usd_per_million_accepted_output_tokens",
    ),
)
"""Per system columns, repeated on each of its demand points' rows."""
MC_SPREAD = ("usd_per_accepted_request", "blended_usd_per_accepted_request")
"""Columns given as p5 / p95 besides the mean when the sweep has Monte Carlo draws."""


@dataclass(frozen=True)
class Chunk:
    """One Dask task: configurations of one or more groups, evaluated in one vectorised call per group.

    Attributes
    ----------
    number
        The chunk's number (for messages and task keys).
    parts
        ``(scenario, plan, configurations, vector values, axis values)`` per group: the vector axes' values by
        YAML path, and every axis's value (its index among the axis's values), one per configuration.
    samples
        Monte Carlo draws per configuration, or None.
    seed
        Seed of the draws.
    system_codes, payment_codes
        Code of each system name and payment model in the result (the same in every chunk).
    """

    number: int
    parts: tuple[
        tuple[Scenario, ChosenPoints, NDArray[np.int64], dict[str, NDArray[np.float64]], dict[str, NDArray[Any]]], ...
    ]
    samples: int | None
    seed: int
    system_codes: dict[str, int]
    payment_codes: dict[str, int]

    @property
    def configurations(self) -> int:
        """Configurations in the chunk [-]."""
        return sum(len(p[2]) for p in self.parts)


def plan_chunks(d: Design, chunk_configs: int | None = None) -> tuple[list[Chunk], list[dict[str, Any]]]:
    """Build each group's scenario and plan, and cut the configurations into chunks.

    Returns
    -------
    chunks, skipped
        The chunks in configuration order, and the systems left out of some groups (see :class:`SweepResult`).
    """

    total = d.configurations
    per_config = max(1, len(d.base.systems) * len(d.base.demand) * (d.spec.samples or 1))
    if chunk_configs is not None and chunk_configs < 1:
        raise ValueError(f"chunk_configs must be >= 1, got {chunk_configs}")
    size = chunk_configs or max(1, CHUNK_ELEMENTS // per_config)
    configs = np.arange(total, dtype=np.int64)
    system_codes = {name: k for k, name in enumerate(d.system_names)}
    payment_codes: dict[str, int] = {}
    skipped: dict[tuple[str, str], int] = {}
    parts: list[Any] = []
    vector = d.vector_axes
    for values, members in structural_groups(d, configs):
        group = group_scenario(d, values)
        for system, reason in group.skipped:
            skipped[(system, reason)] = skipped.get((system, reason), 0) + len(members)
        if group.scenario is None:
            continue
        for s in group.scenario.systems:
            payment_codes.setdefault(s.payment.value, len(payment_codes))
        planned = group.planned
        idx = configuration_indices(d, members)
        for start in range(0, len(members), size):
            part = members[start : start + size]
            rows = idx[start : start + size]
            vals = {d.axes[a].name: np.asarray(d.axes[a].labels, float)[rows[:, a]] for a in vector}
            # every axis's value, by its index among the axis's values (the table makes it a category)
            shown = {axis_key(axis.name): rows[:, a].astype(np.int32) for a, axis in enumerate(d.axes)}
            parts.append((group.scenario, planned, part, vals, shown))
    chunks: list[Chunk] = []
    pending: list[Any] = []
    count = 0
    for part in parts:  # small groups share a chunk, up to the chunk size
        if pending and count + len(part[2]) > size:
            chunks.append(Chunk(len(chunks), tuple(pending), d.spec.samples, d.spec.seed, system_codes, payment_codes))
            pending, count = [], 0
        pending.append(part)
        count += len(part[2])
    if pending:
        chunks.append(Chunk(len(chunks), tuple(pending), d.spec.samples, d.spec.seed, system_codes, payment_codes))
    skipped_rows = [{"configurations": n, "system": s, "reason": r} for (s, r), n in skipped.items()]
    return chunks, skipped_rows


def axis_key(name: str) -> str:
    """The key of an axis's values among a chunk's columns: apart from the figures' and the codes' keys, so that
    an axis may be named as anything that is not a column of the table (``point``, ``api``)."""
    return f"axis:{name}"


def measure_names(samples: int | None) -> list[str]:
    """The figures' columns of a chunk's result, in the order :func:`evaluate_chunk` makes them: each of
    :data:`POINT_COLUMNS` and :data:`SYSTEM_COLUMNS` (followed, with draws, by ``_p5`` / ``_p95`` of the
    :data:`MC_SPREAD` ones), then, with draws, the two shares cheapest."""
    names = []
    for name in (*POINT_COLUMNS, *SYSTEM_COLUMNS):
        names.append(name)
        if samples is not None and name in MC_SPREAD:
            names += [f"{name}_p5", f"{name}_p95"]
    if samples is not None:
        names += ["probability_cheapest_fraction", "blended_probability_cheapest_fraction"]
    return names


def per_system(name: str) -> bool:
    """Whether a figure has one value per configuration and system (repeated on its demand points' rows), which a
    chunk's result carries once instead of once per point."""
    base = name.removesuffix("_p5").removesuffix("_p95")
    return base in SYSTEM_COLUMNS or name == "blended_probability_cheapest_fraction"


def part_rows(part: tuple[Any, ...]) -> int:
    """Rows of one part of a chunk: configurations x systems x demand points [-]."""
    scenario, _, configs = part[0], part[1], part[2]
    return len(configs) * len(scenario.systems) * len(scenario.demand)


def evaluate_chunk(chunk: Chunk) -> dict[str, NDArray[Any]]:
    """Evaluate one chunk: its figures as columns, in configuration x system x demand point order.

    Only the figures (:func:`measure_names`) are returned, each part's after the other's: a per-row figure has one
    value per configuration x system x demand point, a :func:`per_system` one a value per configuration x system.
    The rest of a row (configuration, axes' values, system, payment, demand point) is known from the chunk itself
    and laid out by :mod:`rackcost.analysis.sweep.table`: so a distributed worker sends back only what it computed
    (about half the bytes of the whole rows, measured in benchmarks/bench_sweep.py).
    """
    from rackcost.analysis.montecarlo import draw_samples, evaluate_samples

    out: dict[str, list[NDArray[Any]]] = {}
    for scenario, planned, configs, vector, _ in chunk.parts:
        m = len(configs)
        points = len(scenario.demand)
        draws = chunk.samples or 1
        values = {path: np.repeat(v, draws) for path, v in vector.items()}
        if chunk.samples is not None:
            for path, v in draw_samples(scenario, chunk.samples, chunk.seed).items():
                if path not in values:  # an axis's value takes the place of the input's distribution
                    values[path] = np.tile(v, m)
        sampled = chunk.samples is not None  # draws may move the sizing; prices alone never do
        res = evaluate_samples(scenario, values, m * draws, planned, resize=sampled, serve_once=not sampled)
        systems = list(res)
        if systems != [s.name for s in scenario.systems]:  # pragma: no cover - evaluate_samples keeps the order
            raise AssertionError("evaluated systems out of the scenario's order")
        cells: dict[str, list[NDArray[Any]]] = {}  # column -> one (m, points) array per system
        if chunk.samples is not None:  # which system is cheapest in each draw, once for all systems
            cost = np.stack([res[s]["usd_per_accepted_request"].reshape(m, draws, points) for s in systems])
            blended = np.stack([res[s]["blended_usd_per_accepted_request@system"].reshape(m, draws) for s in systems])
            cheapest, cheapest_blended = np.argmin(cost, axis=0), np.argmin(blended, axis=0)
        for k, system in enumerate(systems):
            cols = res[system]
            for name in POINT_COLUMNS:
                _summarise(cells, name, np.asarray(cols[name], dtype=float).reshape(m, draws, points), chunk.samples)
            for name in SYSTEM_COLUMNS:
                source = cols[f"{name}@system"] if f"{name}@system" in cols else cols[name][:, 0]
                one_per_system = np.asarray(source, dtype=float).reshape(m, draws, 1)
                _summarise(cells, name, np.broadcast_to(one_per_system, (m, draws, points)), chunk.samples)
            if chunk.samples is not None:
                cells.setdefault("probability_cheapest_fraction", []).append(np.mean(cheapest == k, axis=1))
                share = np.mean(cheapest_blended == k, axis=1)
                cells.setdefault("blended_probability_cheapest_fraction", []).append(
                    np.broadcast_to(share[:, None], (m, points))
                )
        # configuration-major: (m, systems, points), or (m, systems) for a per-system figure (its points' values
        # are one value: the same arithmetic on a broadcast array)
        for name, per_sys in cells.items():
            if per_system(name):
                out.setdefault(name, []).append(np.stack([a[:, 0] for a in per_sys], axis=1).reshape(-1))
            else:
                out.setdefault(name, []).append(np.stack(per_sys, axis=1).reshape(-1))
    return {name: parts[0] if len(parts) == 1 else np.concatenate(parts) for name, parts in out.items()}


def _summarise(cells: dict[str, list[NDArray[Any]]], name: str, a: NDArray[np.float64], samples: int | None) -> None:
    """Add one system's column ``(m, draws, points)`` as ``(m, points)``: the value, or the mean over the draws
    (and, for the cost columns, p5 and p95)."""
    if samples is None:
        cells.setdefault(name, []).append(a[:, 0, :])
        return
    cells.setdefault(name, []).append(a.mean(axis=1))
    if name in MC_SPREAD:
        p5, p95 = np.percentile(a, [5.0, 95.0], axis=1)
        cells.setdefault(f"{name}_p5", []).append(p5)
        cells.setdefault(f"{name}_p95", []).append(p95)
