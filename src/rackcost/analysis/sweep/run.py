"""Sweeps run: every configuration of a sweep file evaluated, in vectorised chunks scheduled by Dask.

:func:`sweep` is the library's entry: a sweep (file, bundled name or :class:`~rackcost.analysis.sweep.spec.SweepSpec`)
in, a tidy :class:`pandas.DataFrame` out, one row per configuration x system x demand point. :func:`run_sweep` returns
the same with what was left out and which chunks failed (:class:`SweepResult`).

How (see :mod:`rackcost.analysis.sweep.design` for the two kinds of axes): configurations are split into groups that
share a scenario (the structural axes' values), and each group's configurations into chunks of at most
``chunk_configs``. A chunk is one call of :func:`rackcost.analysis.montecarlo.evaluate_samples` with the vector axes as
its sample axis (times the Monte Carlo draws when ``samples`` is given). Chunks are Dask tasks:

- by default Dask's local threaded scheduler (numpy and scipy release the GIL in their array loops);
- ``scheduler="processes"`` for Dask's local process pool;
- ``workers=N``: a :class:`distributed.LocalCluster` of N single-threaded worker processes;
- ``address="tcp://host:8786"``: an existing ``distributed`` scheduler.

Every step is elementwise along the sample axis and a configuration's draws never straddle chunks, and the rows
are put in configuration order at the end, so the result is the same bit for bit whatever the chunking and the
scheduler (a test checks the local scheduler against a 2-worker ``LocalCluster``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.sweep.design import Design, configuration_indices, design, group_scenario, structural_groups
from rackcost.analysis.sweep.spec import SweepSpec, load_sweep, sweep_from_dict
from rackcost.units import MS_PER_S

if TYPE_CHECKING:
    import pandas as pd

    from rackcost.evaluation.chain import Plan
    from rackcost.scenario.schema import Scenario

__all__ = [
    "CONFIRM_CONFIGURATIONS",
    "CONNECT_TIMEOUT_S",
    "POINT_COLUMNS",
    "SYSTEM_COLUMNS",
    "SweepError",
    "SweepResult",
    "run_sweep",
    "sweep",
]

CONFIRM_CONFIGURATIONS = 10**8
"""Sweeps with more configurations run only when confirmed (``--yes``, ``confirm=True``) [-]."""
CHUNK_ELEMENTS = 600_000
"""Elements (configurations x draws x systems x demand points) per chunk by default [-]: large enough that numpy's
per-call overhead is small, small enough that a chunk's intermediates stay near 1 GB (measured in
benchmarks/bench_sweep.py)."""
CONNECT_TIMEOUT_S = 5.0
"""How long to wait for a ``distributed`` scheduler to answer [s]."""
RETRIES = 2
"""Times ``distributed`` reruns a chunk whose worker died [-]."""

POINT_COLUMNS = (
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
)
"""Per demand point columns of a sweep row (as :func:`rackcost.evaluate`'s points table)."""
SYSTEM_COLUMNS = (
    "provisioned_replicas",
    "racks",
    "provisioned_it_kw",
    "capex_usd",
    "blended_usd_per_accepted_request",
    "blended_usd_per_million_accepted_output_tokens",
)
"""Per system columns, repeated on each of its demand points' rows."""
NOT_FOR_API = (
    "utilization_fraction",
    "ttft_p99_ms",
    "tpot_ms",
    "interactivity_tokens_per_s",
    "it_power_kw",
    "facility_power_kw",
    "provisioned_replicas",
    "racks",
    "provisioned_it_kw",
    "capex_usd",
)
"""Columns an API system has no value for: missing (<NA>) in its rows, as the CLI shows '-'."""
MC_SPREAD = ("usd_per_accepted_request", "blended_usd_per_accepted_request")
"""Columns given as p5 / p95 besides the mean when the sweep has Monte Carlo draws."""


class SweepError(RuntimeError):
    """A sweep that cannot run: a scheduler that does not answer, a sweep too large to run unconfirmed."""


@dataclass(frozen=True)
class Chunk:
    """One Dask task: configurations of one or more groups, evaluated in one vectorised call per group.

    Attributes
    ----------
    number
        The chunk's number (for messages and task keys).
    parts
        ``(scenario, plan, configurations, vector values, axis values)`` per group: the vector axes' values by
        YAML path, and every axis's value (a label axis's code), one per configuration.
    samples
        Monte Carlo draws per configuration, or None.
    seed
        Seed of the draws.
    system_codes, payment_codes
        Code of each system name and payment model in the result (the same in every chunk).
    """

    number: int
    parts: tuple[tuple[Scenario, Plan, NDArray[np.int64], dict[str, NDArray[np.float64]], dict[str, NDArray[Any]]], ...]
    samples: int | None
    seed: int
    system_codes: dict[str, int]
    payment_codes: dict[str, int]

    @property
    def configurations(self) -> int:
        """Configurations in the chunk [-]."""
        return sum(len(p[2]) for p in self.parts)


@dataclass
class SweepResult:
    """What :func:`run_sweep` returns.

    Attributes
    ----------
    design
        The resolved sweep.
    frame
        One row per configuration x system x demand point (see :func:`sweep`).
    skipped
        Rows ``{configurations, system, reason}``: systems left out of some configurations (their scenario cannot
        evaluate them there), each reason once with the number of configurations.
    failed_chunks
        ``(chunk number, first configuration, last configuration, error)`` of chunks that failed after retries;
        their configurations have no rows.
    """

    design: Design
    frame: pd.DataFrame
    skipped: list[dict[str, Any]] = field(default_factory=list)
    failed_chunks: list[tuple[int, int, int, str]] = field(default_factory=list)


def sweep(
    spec: SweepSpec | str | Path | dict[str, Any],
    *,
    scheduler: str = "threads",
    workers: int | None = None,
    address: str | None = None,
    chunk_configs: int | None = None,
    confirm: bool = False,
) -> pd.DataFrame:
    """Evaluate every configuration of a sweep.

    Parameters
    ----------
    spec
        A sweep file or bundled sweep name, its plain data, or a :class:`SweepSpec`.
    scheduler, workers, address, chunk_configs, confirm
        As :func:`run_sweep`.

    Returns
    -------
    pandas.DataFrame
        One row per configuration x system x demand point, in that order: ``configuration`` (its number), one
        column per axis (its value; the label of a variant or a subset), ``system``, ``payment``,
        ``demand_point``, the :data:`POINT_COLUMNS`, ``interactivity_tokens_per_s`` (tokens per second per user,
        1000 / TPOT) and the :data:`SYSTEM_COLUMNS`. With Monte Carlo draws, each is the mean over the draws,
        with ``_p5`` / ``_p95`` of the cost columns and ``probability_cheapest_fraction``. API systems have
        ``<NA>`` where they have no value (latency, power, fleet).

    Raises
    ------
    ScenarioError
        A sweep or base scenario that does not validate, or an axis that does not fit the scenario.
    SweepError
        A scheduler that does not answer; more than :data:`CONFIRM_CONFIGURATIONS` configurations unconfirmed;
        a chunk that failed.

    Examples
    --------
    >>> import rackcost
    >>> frame = rackcost.sweep({
    ...     "name": "electricity", "scenario": "deepseek-r1-jalapeno-vs-gb300",
    ...     "axes": [{"axis": "facility.electricity_usd_per_kwh", "values": [0.05, 0.10]}]})
    >>> len(frame)  # 2 configurations x 2 systems x 3 demand points
    12
    """
    result = run_sweep(
        spec, scheduler=scheduler, workers=workers, address=address, chunk_configs=chunk_configs, confirm=confirm
    )
    if result.failed_chunks:
        number, first, last, error = result.failed_chunks[0]
        raise SweepError(
            f"{len(result.failed_chunks)} chunk(s) failed; chunk {number} (configurations {first}-{last}): {error}"
        )
    return result.frame


def resolve(spec: SweepSpec | str | Path | dict[str, Any], base: Scenario | None = None) -> Design:
    """The :class:`Design` of a sweep given as a file, bundled name, plain data or :class:`SweepSpec`; ``base``, when
    given, is the base scenario in place of the one the sweep names."""
    if isinstance(spec, SweepSpec):
        return design(spec, base=base)
    if isinstance(spec, dict):
        return design(sweep_from_dict(spec), base=base)
    loaded, folder = load_sweep(spec)
    return design(loaded, folder, str(spec), base)


def run_sweep(
    spec: SweepSpec | str | Path | dict[str, Any] | Design,
    *,
    scheduler: str = "threads",
    workers: int | None = None,
    address: str | None = None,
    chunk_configs: int | None = None,
    confirm: bool = False,
    progress: Callable[[int], None] | None = None,
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]] | None = None,
) -> SweepResult:
    """Evaluate every configuration of a sweep, keeping what a failed chunk did not take with it.

    Parameters
    ----------
    spec
        A sweep (as :func:`sweep`) or its resolved :class:`Design`.
    scheduler
        Dask's local scheduler: ``threads`` (default), ``processes`` or ``synchronous``; ignored with ``workers`` or
        ``address``.
    workers
        Run on a new :class:`distributed.LocalCluster` of this many worker processes (closed afterwards).
    address
        Run on the ``distributed`` scheduler at this address (``tcp://host:8786``).
    chunk_configs
        Configurations per chunk; default about :data:`CHUNK_ELEMENTS` elements per chunk. The result does not
        depend on it.
    confirm
        Run a sweep of more than :data:`CONFIRM_CONFIGURATIONS` configurations.
    progress
        Called with the number of configurations done after each chunk.
    evaluate
        The chunk function (default :func:`evaluate_chunk`; tests pass one that fails).

    Raises
    ------
    ScenarioError, SweepError
        As :func:`sweep` (a failed chunk is reported in the result instead).
    """
    d = spec if isinstance(spec, Design) else resolve(spec)
    total = d.configurations
    if total > CONFIRM_CONFIGURATIONS and not confirm:
        raise SweepError(
            f"{d.source}: the sweep has {total:,} configurations, over {CONFIRM_CONFIGURATIONS:,}; it needs about "
            f"{_bytes_per_configuration(d) * total / 1e9:,.0f} GB for its rows. Run it with --yes "
            "(confirm=True) if that is what you mean"
        )
    if workers is not None and workers < 1:
        raise SweepError(f"workers must be >= 1, got {workers}")
    chunks, skipped = plan_chunks(d, chunk_configs)
    results, failed = _schedule(chunks, evaluate or evaluate_chunk, scheduler, workers, address, progress)
    frame = _frame(d, chunks, results)
    return SweepResult(d, frame, skipped, failed)


def _bytes_per_configuration(d: Design) -> int:
    columns = len(POINT_COLUMNS) + len(SYSTEM_COLUMNS) + len(d.axes) + 6
    return 8 * columns * len(d.base.systems) * len(d.base.demand)


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
        raise SweepError(f"chunk_configs must be >= 1, got {chunk_configs}")
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
            payment_codes.setdefault(s.payment, len(payment_codes))
        planned = group.planned
        idx = configuration_indices(d, members)
        for start in range(0, len(members), size):
            part = members[start : start + size]
            rows = idx[start : start + size]
            vals = {d.axes[a].name: np.asarray(d.axes[a].labels, float)[rows[:, a]] for a in vector}
            # every axis's value (a label axis by its code), repeated on the configuration's rows
            shown = {
                axis.name: rows[:, a].astype(np.int32) if axis.labels.dtype == object else axis.labels[rows[:, a]]
                for a, axis in enumerate(d.axes)
            }
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
    rows = [{"configurations": n, "system": s, "reason": r} for (s, r), n in skipped.items()]
    return chunks, rows


def evaluate_chunk(chunk: Chunk) -> dict[str, NDArray[Any]]:
    """Evaluate one chunk: its rows as columns, in configuration x system x demand point order.

    Columns: ``configuration``; each axis's value (a float, or the code of a label); the codes of ``system``,
    ``payment`` and ``point``; ``api`` (an API system's row); and the figures.
    """
    from rackcost.analysis.montecarlo import draw_samples, evaluate_samples

    out: dict[str, list[NDArray[Any]]] = {}
    for scenario, planned, configs, vector, axis_values in chunk.parts:
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
        per_row = len(systems) * points
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
                per_system = np.asarray(source, dtype=float).reshape(m, draws, 1)
                _summarise(cells, name, np.broadcast_to(per_system, (m, draws, points)), chunk.samples)
            if chunk.samples is not None:
                cells.setdefault("probability_cheapest_fraction", []).append(np.mean(cheapest == k, axis=1))
                share = np.mean(cheapest_blended == k, axis=1)
                cells.setdefault("blended_probability_cheapest_fraction", []).append(
                    np.broadcast_to(share[:, None], (m, points))
                )
        # configuration-major: (m, systems, points)
        for name, per_system in cells.items():
            out.setdefault(name, []).append(np.stack(per_system, axis=1).reshape(-1))
        add = out.setdefault
        add("configuration", []).append(np.repeat(configs, per_row))
        for name, v in axis_values.items():
            add(name, []).append(np.repeat(v, per_row))
        codes = [chunk.system_codes[s] for s in systems]
        add("system", []).append(np.tile(np.repeat(np.asarray(codes, np.int32), points), m))
        payments = [chunk.payment_codes[s.payment] for s in scenario.systems]
        add("payment", []).append(np.tile(np.repeat(np.asarray(payments, np.int32), points), m))
        add("point", []).append(np.tile(np.arange(points, dtype=np.int32), m * len(systems)))
        api = [s.api is not None for s in scenario.systems]
        add("api", []).append(np.tile(np.repeat(np.asarray(api, bool), points), m))
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


def _schedule(
    chunks: list[Chunk],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    scheduler: str,
    workers: int | None,
    address: str | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[int, dict[str, NDArray[Any]]], list[tuple[int, int, int, str]]]:
    """Run the chunks on Dask; the results by chunk number and the chunks that failed."""
    if not chunks:
        return {}, []
    if workers is None and address is None:
        return _run_local(chunks, evaluate, scheduler, progress), []
    return _run_distributed(chunks, evaluate, workers, address, progress)


def _run_local(
    chunks: list[Chunk],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    scheduler: str,
    progress: Callable[[int], None] | None,
) -> dict[int, dict[str, NDArray[Any]]]:
    """Dask's local scheduler: one task per chunk."""
    from dask.callbacks import Callback

    if scheduler not in ("threads", "processes", "synchronous"):
        raise SweepError(f"scheduler must be threads, processes or synchronous, got {scheduler!r}")
    keys = {f"sweep-chunk-{c.number}": c for c in chunks}
    graph = {key: (evaluate, chunk) for key, chunk in keys.items()}
    done = [0]

    class _Progress(Callback):
        def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, id: Any) -> None:  # noqa: A002
            if key in keys and progress is not None:
                done[0] += keys[key].configurations
                progress(done[0])

    from dask.local import get_sync
    from dask.multiprocessing import get as get_processes
    from dask.threaded import get as get_threads

    get = {"threads": get_threads, "processes": get_processes, "synchronous": get_sync}[scheduler]
    with _Progress():
        values = get(graph, list(keys))
    return {c.number: v for c, v in zip(chunks, values, strict=True)}


def _run_distributed(
    chunks: list[Chunk],
    evaluate: Callable[[Chunk], dict[str, NDArray[Any]]],
    workers: int | None,
    address: str | None,
    progress: Callable[[int], None] | None,
) -> tuple[dict[int, dict[str, NDArray[Any]]], list[tuple[int, int, int, str]]]:
    """A ``distributed`` cluster: a new LocalCluster of ``workers`` processes, or the scheduler at ``address``."""
    import logging

    from distributed import Client, LocalCluster, as_completed

    cluster = None
    logging.getLogger("distributed").setLevel(logging.ERROR)
    try:
        if address is not None:
            try:
                client = Client(address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False)
            except (OSError, TimeoutError, ValueError) as exc:
                raise SweepError(
                    f"the Dask scheduler at {address} did not answer within {CONNECT_TIMEOUT_S:g} s ({exc}); "
                    "start it with `dask scheduler` and workers with `dask worker ADDRESS`, or run without "
                    "--scheduler"
                ) from None
        else:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            client = Client(cluster, set_as_default=False)
        try:
            with warnings.catch_warnings():  # each chunk carries its groups' scenarios and plans, by design
                warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
                futures = {
                    client.submit(evaluate, c, key=f"sweep-chunk-{c.number}", retries=RETRIES, pure=False): c
                    for c in chunks
                }
            results: dict[int, dict[str, NDArray[Any]]] = {}
            failed = []
            done = 0
            with client.as_current():  # as_completed finds the client it waits on here
                for future in as_completed(futures):
                    chunk = futures[future]
                    try:
                        results[chunk.number] = future.result()
                    except Exception as exc:  # noqa: BLE001 - any failure of a chunk is reported, the rest kept
                        configs = np.concatenate([p[2] for p in chunk.parts])
                        first, last = int(configs.min()), int(configs.max())
                        failed.append((chunk.number, first, last, f"{type(exc).__name__}: {exc}"))
                    done += chunk.configurations
                    if progress is not None:
                        progress(done)
            return results, sorted(failed)
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _attribute(match: re.Match[str] | None) -> str:
    """A system attribute: the pattern's first group, else the whole match, else empty."""
    if match is None:
        return ""
    return match.group(1) if match.re.groups else match.group(0)


def _frame(d: Design, chunks: list[Chunk], results: dict[int, dict[str, NDArray[Any]]]) -> pd.DataFrame:
    """The tidy table: rows in order of configuration, system (the base's order) and demand point.

    Configurations are numbered with the structural axes outermost, so each group is a run of consecutive
    configurations and the chunks, in order, hold the rows in order: the table is their columns copied once into
    one float block that becomes the frame without another copy (sorting the rows and stacking columns took 6 of
    8.6 s at 6 x 10^6 rows; measured, benchmarks/bench_sweep.py).
    """
    import pandas as pd

    found = [results[c.number] for c in chunks if c.number in results]
    payments = list(chunks[0].payment_codes) if chunks else []
    label_axes = [a for a in d.axes if a.labels.dtype == object]
    float_axes = [a.name for a in d.axes if a.labels.dtype != object]
    fixed = {"configuration", "system", "payment", "point", "api", *(a.name for a in d.axes)}
    measures = [n for n in found[0] if n not in fixed] if found else [*POINT_COLUMNS, *SYSTEM_COLUMNS]
    # counts are set apart, as integers: replacing a column of the float block would copy the whole block
    counted = ("provisioned_replicas", "racks")
    measures = [n for n in measures if n not in counted]
    at_tpot = measures.index("tpot_ms") + 1
    float_names = [*float_axes, *measures[:at_tpot], "interactivity_tokens_per_s", *measures[at_tpot:]]
    sizes = [len(f["configuration"]) for f in found]
    rows = int(sum(sizes))
    block = np.empty((len(float_names), rows))
    other: dict[str, list[NDArray[Any]]] = {}
    start = 0
    for f, size in zip(found, sizes, strict=True):
        stop = start + size
        for j, name in enumerate(float_names):
            if name == "interactivity_tokens_per_s":
                with np.errstate(divide="ignore"):
                    np.divide(MS_PER_S, f["tpot_ms"], out=block[j, start:stop])
            else:
                block[j, start:stop] = f[name]
        for name in ("configuration", "system", "payment", "point", "api", *counted, *(a.name for a in label_axes)):
            other.setdefault(name, []).append(f[name])
        start = stop

    def joined(name: str, dtype: Any) -> NDArray[Any]:
        parts = other.get(name, [])
        return np.concatenate(parts) if parts else np.empty(0, dtype)

    config = joined("configuration", np.int64)
    out = pd.DataFrame(block.T, columns=float_names, copy=False)
    if config.size > 1 and not bool(np.all(config[1:] >= config[:-1])):  # pragma: no cover - numbering guarantees it
        raise AssertionError("sweep rows out of configuration order")
    out.insert(0, "configuration", config)
    for a, axis in enumerate(d.axes):
        if axis.labels.dtype == object:
            codes = joined(axis.name, np.int32)
            out.insert(a + 1, axis.name, pd.Categorical.from_codes(codes, categories=list(axis.labels)))
    system = joined("system", np.int32)
    at = len(d.axes) + 1
    names = list(d.system_names)
    out.insert(at, "system", pd.Categorical.from_codes(system, categories=names))
    for column, pattern in d.spec.system_attributes.items():
        at += 1
        values = [_attribute(re.search(pattern, name)) for name in names]
        out.insert(at, column, pd.Categorical(np.asarray(values, dtype=object)[system]))
    out.insert(at + 1, "payment", pd.Categorical.from_codes(joined("payment", np.int32), categories=payments))
    points = [p.name for p in d.base.demand]
    out.insert(at + 2, "demand_point", pd.Categorical.from_codes(joined("point", np.int32), categories=points))
    api = joined("api", bool)
    at = out.columns.get_loc("provisioned_it_kw")
    for k, name in enumerate(counted):
        column = joined(name, float)
        whole = not (api.any() or d.spec.samples is not None)  # a mean over draws need not be whole
        out.insert(at + k, name, column.astype(np.int64) if whole else column)
    if api.any():
        for name in NOT_FOR_API:
            if name in out:
                out[name] = pd.array(np.where(api, 0.0, out[name].to_numpy(float)), dtype="Float64")
                out.loc[api, name] = pd.NA
    return out
