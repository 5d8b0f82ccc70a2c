"""Estimates of a simulation over replications or batches, with their 95% intervals
(:mod:`rackcost.model.sim.simulation`).

The half-widths are Student t over the replication (or batch) estimates; where SLO misses are too rare for that, the
accepted share's half-width is widened to the rare-miss bound of :mod:`rackcost.model.sim.sim_rare`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
from scipy.special import stdtrit

from rackcost.model.sim.sim_rare import CONFIDENCE_FRACTION, RARE_MISS_UNITS, rare_miss_bound

__all__ = ["Summary", "summarise", "with_rare_bound"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Summary:
    """Estimates over replications (or batches) with 95% half-widths.

    Attributes
    ----------
    estimates
        Name (:data:`ESTIMATES`, plus any extra) -> mean over replications.
    halfwidths
        Name -> 95% confidence half-width, Student t over the replication estimates.
    per_replication
        Name -> the replication estimates.
    method
        ``"independent replications"`` or ``"batch means"``.
    warnings
        Why the intervals may not be trusted, in words (:func:`replicate`); empty when nothing was found.
    start
        How each replication started (:attr:`Run.start`).
    warmup_requests
        Requests left out at the start of each replication (of the trace, for batch means) [-].
    relaxation_s
        Relaxation time of the queue (:func:`queue_relaxation_s`) [s].
    miss_units, miss_units_with_miss
        Independent units of the runs and how many of them hold an SLO miss (:func:`miss_units`) [-].
    miss_upper_bound
        Where fewer than :data:`RARE_MISS_UNITS` units hold a miss: the 95% upper bound of the share of arrivals
        that miss the SLO (:func:`rare_miss_bound`), and the accepted share's half-width is widened to contain
        ``[1 - bound, 1]``; else None [-].
    """

    estimates: dict[str, float]
    halfwidths: dict[str, float]
    per_replication: dict[str, Array]
    method: str
    warnings: tuple[str, ...] = ()
    start: str = "occupancy"
    warmup_requests: int = 0
    relaxation_s: float = 0.0
    miss_units: int = 0
    miss_units_with_miss: int = 0
    miss_upper_bound: float | None = None


def with_rare_bound(summary: Summary, units: int, with_miss: int, crowding: float) -> Summary:
    """The summary with the accepted share's half-width widened to :func:`rare_miss_bound` where misses are rare."""
    if with_miss >= RARE_MISS_UNITS:
        return replace(summary, miss_units=units, miss_units_with_miss=with_miss)
    bound = rare_miss_bound(units, with_miss, crowding)
    missed = 1.0 - summary.estimates["accepted_fraction"]
    half = dict(summary.halfwidths)
    half["accepted_fraction"] = max(half["accepted_fraction"], bound - missed, missed)
    return replace(
        summary,
        halfwidths=half,
        method=summary.method + "; accepted share: rare-miss bound over independent units",
        miss_units=units,
        miss_units_with_miss=with_miss,
        miss_upper_bound=bound,
    )


def summarise(values: list[dict[str, float]], method: str) -> Summary:
    """Means over replications (or batches) and their 95% Student t half-widths."""
    names = list(values[0])
    per = {k: np.array([v[k] for v in values]) for k in names}
    k = len(values)
    t = float(stdtrit(k - 1, 0.5 + CONFIDENCE_FRACTION / 2)) if k > 1 else math.inf
    est = {name: float(a.mean()) for name, a in per.items()}
    half = {name: (t * float(a.std(ddof=1)) / math.sqrt(k) if k > 1 else math.inf) for name, a in per.items()}
    return Summary(est, half, per, method)
