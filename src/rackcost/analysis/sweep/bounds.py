"""A sweep's size before it runs: rows, evaluations, groups and an estimate of its peak memory, against the bounds.

A sweep's cost is not its number of configurations: a configuration has a row per system and demand point (the
table), each row is evaluated once per Monte Carlo draw, and each *group* (a combination of the structural axes'
values) is built, validated and planned on its own, which is the expensive part (about 10-25 ms and 0.2-0.3 MB
each for the bundled scenarios). :func:`sweep_size` counts all three and estimates the peak memory from them;
:func:`check_size` asks for confirmation (``--yes``, ``confirm=True``) above :data:`CONFIRM_ROWS`,
:data:`CONFIRM_EVALUATIONS`, :data:`CONFIRM_GROUPS` or :data:`CONFIRM_MEMORY_BYTES`, and refuses outright, even
confirmed, a sweep whose estimate exceeds the machine's memory (:func:`rackcost.limits.physical_memory_bytes`,
read through this module's name so that a test can stand in a smaller machine).

The estimate [bytes] (docs/sweeps.md gives the measurements behind each term)::

    PROCESS_BYTES                                   the process with numpy, pandas and Dask loaded
    + groups x bytes per group x copies             each group's scenario and plan (2 x the first one's pickle;
                                                    3 copies on a distributed cluster: client, scheduler, worker)
    + configurations x 8 x 3 x (axes + 1)           their numbers and value indices, while they are grouped
    + TABLE_COPIES x rows x bytes per row           the chunks' columns, the table they are copied into, and the
                                                    summary's group-by over the table
    + evaluations in flight x IN_FLIGHT_BYTES       a chunk's intermediates, times the chunks run at once
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass

import numpy as np

from rackcost.analysis.sweep.chunks import CHUNK_ELEMENTS
from rackcost.analysis.sweep.design import Design, configuration_indices, group_scenario
from rackcost.analysis.sweep.table import bytes_per_row
from rackcost.limits import cpu_count, gigabytes, physical_memory_bytes

__all__ = [
    "CLUSTER_COPIES",
    "CONFIRM_EVALUATIONS",
    "CONFIRM_GROUPS",
    "CONFIRM_MEMORY_BYTES",
    "CONFIRM_ROWS",
    "IN_FLIGHT_BYTES",
    "PROCESS_BYTES",
    "WORKERS_PER_CPU",
    "TABLE_COPIES",
    "SweepError",
    "SweepSize",
    "check_size",
    "check_workers",
    "sweep_size",
]

CONFIRM_ROWS = 10**7
"""Rows of the table (configurations x systems x demand points) above which a sweep needs confirming [-]: about
2 GB of table, 4 GB at the peak."""
CONFIRM_EVALUATIONS = 10**9
"""Evaluations (rows x Monte Carlo draws) above which a sweep needs confirming [-]: about 10 minutes on 2 cores."""
CONFIRM_GROUPS = 10**4
"""Groups (each built, validated and planned) above which a sweep needs confirming [-]: minutes, and gigabytes."""
CONFIRM_MEMORY_BYTES = 4 * 10**9
"""Estimated peak memory above which a sweep needs confirming [bytes]."""
WORKERS_PER_CPU = 2
"""Most ``--workers`` per CPU this process may use [-]: a worker is a single-threaded process, so more than one per
CPU only shares the CPUs; twice leaves room for a worker that waits."""
PROCESS_BYTES = 300 * 10**6
"""Memory of the process before the sweep: Python, numpy, pandas, Dask and the scenario (measured 195 MB) [bytes]."""
IN_FLIGHT_BYTES = 500
"""Memory of one evaluation's intermediates while its chunk runs (measured 180-250 bytes) [bytes]."""
CLUSTER_COPIES = 3
"""Copies of each group's scenario and plan on a distributed cluster: the client's, the scheduler's (its task) and
a worker's [-]."""
TABLE_COPIES = 3
"""Copies of the table's rows at the peak [-]: the chunks' columns, the table they are copied into, and the
summary's group-by. Measured with ``/usr/bin/time -v rackcost sweep`` on a price axis of 2 x 10^6 steps (1.2 x 10^7
rows of 184 bytes): 4.8 GB at the end of the run, 6.8 GB with the summary, about 3 x rows x 184 bytes over the
process."""
_CONFIGURATION_BYTES = 8 * 3
"""Bytes per configuration and axis while configurations are grouped: numbers and value indices (int64), sorted
once."""


class SweepError(RuntimeError):
    """A sweep that cannot run: a scheduler that does not answer, a sweep too large to run unconfirmed or at all,
    more workers than the machine has room for."""


@dataclass(frozen=True)
class SweepSize:
    """What a sweep will cost, counted before it runs.

    Attributes
    ----------
    configurations, rows, evaluations, groups
        Configurations; rows of the table (configurations x systems x demand points); evaluations (rows x draws);
        groups (combinations of the structural axes' values, each planned) [-].
    systems, points, draws
        Systems (all of the base's, imports included), demand points, Monte Carlo draws per configuration [-].
    group_bytes, row_bytes, in_flight, copies
        The estimate's terms: bytes per group and per row, evaluations run at once, copies of each group.
    memory_bytes
        The estimated peak memory (module docstring) [bytes].
    """

    configurations: int
    rows: int
    evaluations: int
    groups: int
    systems: int
    points: int
    draws: int
    axes: int
    group_bytes: int
    row_bytes: int
    in_flight: int
    copies: int
    memory_bytes: int

    def describe(self) -> str:
        """The counts and the estimate, with how it is estimated, in one sentence."""
        copies = f" x {self.copies} copies (a cluster)" if self.copies > 1 else ""
        return (
            f"{self.rows:,} rows ({self.configurations:,} configurations x {self.systems} systems x {self.points} "
            f"demand points), {self.evaluations:,} evaluations (rows x {self.draws} draws), {self.groups:,} groups "
            f"(each built and planned), an estimated peak memory of {self.memory_bytes / 1e9:,.1f} GB (estimated "
            f"as {PROCESS_BYTES / 1e9:g} GB for the process + groups x {self.group_bytes / 1e6:.2f} MB{copies} + "
            f"configurations x {_CONFIGURATION_BYTES * (self.axes + 1)} bytes + {TABLE_COPIES} x rows x "
            f"{self.row_bytes} bytes (the chunks' columns, the table and its summary) + {self.in_flight:,} "
            f"evaluations in flight x {IN_FLIGHT_BYTES} bytes)"
        )


def check_workers(workers: int | None) -> None:
    """Refuse fewer than one worker, or more than :data:`WORKERS_PER_CPU` per usable CPU."""
    if workers is None:
        return
    if workers < 1:
        raise SweepError(f"workers must be >= 1, got {workers}")
    cpus = cpu_count()
    if workers > WORKERS_PER_CPU * cpus:
        raise SweepError(
            f"workers must be at most {WORKERS_PER_CPU * cpus} ({WORKERS_PER_CPU} x the {cpus} CPUs this process "
            f"may use), got {workers:,}"
        )


def sweep_size(
    d: Design,
    *,
    scheduler: str = "threads",
    workers: int | None = None,
    address: str | None = None,
    chunk_configs: int | None = None,
) -> SweepSize:
    """Count a sweep's rows, evaluations and groups and estimate its peak memory (module docstring).

    The bytes of a group are measured on the first: its scenario is built and planned once (as the run would).
    """
    systems, points, draws = len(d.system_names), len(d.base.demand), d.spec.samples or 1
    configurations = d.configurations
    rows = configurations * systems * points
    evaluations = rows * draws
    structural = [k for k, dim in enumerate(d.dims) if any(not d.axes[i].vector for i in dim)]
    groups = math.prod(d.shape[k] for k in structural) if configurations else 0
    per_configuration = max(1, systems * points * draws)
    chunk = chunk_configs * per_configuration if chunk_configs else max(CHUNK_ELEMENTS, per_configuration)
    if workers is not None:
        at_once = workers
    elif address is not None:
        at_once = 0  # the chunks run on the cluster's machines
    else:
        at_once = 1 if scheduler == "synchronous" else cpu_count()
    in_flight = min(evaluations, at_once * chunk)
    copies = 1 if workers is None and address is None else CLUSTER_COPIES
    group = _group_bytes(d) if configurations else 0
    row = bytes_per_row(d)
    memory = (
        PROCESS_BYTES
        + groups * group * copies
        + configurations * _CONFIGURATION_BYTES * (len(d.axes) + 1)
        + TABLE_COPIES * rows * row
        + in_flight * IN_FLIGHT_BYTES
    )
    return SweepSize(
        configurations,
        rows,
        evaluations,
        groups,
        systems,
        points,
        draws,
        len(d.axes),
        group,
        row,
        in_flight,
        copies,
        memory,
    )


def _group_bytes(d: Design) -> int:
    """Bytes of one group's scenario and plan in memory: twice their pickle (measured: 1.1-2.3 times), the first
    group's (kept for the run, which does not plan it again)."""
    first = configuration_indices(d, np.zeros(1, dtype=np.int64))[0]
    group = group_scenario(d, tuple(int(first[a]) for a in d.structural_axes), keep=True)  # the run takes it
    return 2 * len(pickle.dumps((group.scenario or d.base, group.planned), protocol=pickle.HIGHEST_PROTOCOL))


def check_size(size: SweepSize, source: str, confirm: bool) -> None:
    """Refuse a sweep whose estimate exceeds the machine's memory, and one over a bound unless confirmed.

    Raises
    ------
    SweepError
        Naming the counts, the estimate and how it is made, and what to do.
    """
    physical = physical_memory_bytes()
    if size.memory_bytes > physical:
        raise SweepError(
            f"{source}: the sweep needs {size.describe()}: more than this machine's {gigabytes(physical)} of "
            "memory, so it is refused even with --yes; make it smaller (fewer values or demand scales, Monte Carlo "
            "draws, or --workers)"
        )
    over = [
        what
        for what, value, bound in (
            ("rows", size.rows, CONFIRM_ROWS),
            ("evaluations", size.evaluations, CONFIRM_EVALUATIONS),
            ("groups", size.groups, CONFIRM_GROUPS),
            ("GB of estimated memory", size.memory_bytes / 1e9, CONFIRM_MEMORY_BYTES / 1e9),
        )
        if value > bound
    ]
    if over and not confirm:
        bounds = (
            f"{CONFIRM_ROWS:,} rows, {CONFIRM_EVALUATIONS:,} evaluations, {CONFIRM_GROUPS:,} groups, "
            f"{CONFIRM_MEMORY_BYTES / 1e9:g} GB"
        )
        raise SweepError(
            f"{source}: the sweep has {size.describe()}; over the bounds ({bounds}) in {', '.join(over)}. Run it "
            "with --yes (confirm=True) if that is what you mean"
        )
