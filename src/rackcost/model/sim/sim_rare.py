"""Rare SLO misses in a simulation: independent units of the runs and a bound on the miss share that does not
depend on how the misses cluster (docs/model.md, Simulation: rare misses).

Misses cluster in the busy periods of the queue, so a Student t interval over a handful of replications that saw a
few of them, or none, understates their spread (a run that saw none reports a zero width). :func:`miss_units` cuts
the runs into independent units and :func:`rare_miss_bound` bounds the miss share from how many of them hold a
miss; :func:`rackcost.model.sim.simulation.replicate` widens the accepted share's interval to it where fewer than
:data:`RARE_MISS_UNITS` units do.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from scipy.special import betaincinv


class MeasuredRun(Protocol):
    """What :func:`miss_units` reads of a :class:`rackcost.model.sim.simulation.Run`."""

    @property
    def arrival_s(self) -> NDArray[np.float64]: ...  # noqa: D102

    @property
    def dropped(self) -> NDArray[np.bool_]: ...  # noqa: D102

    @property
    def replica(self) -> NDArray[np.int64] | None: ...  # noqa: D102

    @property
    def wait_s(self) -> NDArray[np.float64]: ...  # noqa: D102


__all__ = ["CONFIDENCE_FRACTION", "RARE_MISS_UNITS", "SEGMENT_RELAXATION_TIMES", "miss_units", "rare_miss_bound"]

CONFIDENCE_FRACTION = 0.95
"""One-sided confidence of :func:`rare_miss_bound` [-]."""
RARE_MISS_UNITS = 5
"""Fewer independent units of the runs (:func:`miss_units`) with an SLO miss than this, and the accepted share's
interval is the conservative bound of :func:`rare_miss_bound` instead of (or where wider than) Student t [-]."""
SEGMENT_RELAXATION_TIMES = 2.0
"""A replication is cut into stretches at least this many relaxation times long (:func:`queue_relaxation_s`), taken
as independent units by :func:`miss_units` [-]."""


def miss_units(
    run: MeasuredRun, budget_s: float, lo: int, hi: int, relaxation_s: float, replicas: int = 1
) -> tuple[int, int, float]:
    """Cut the measured requests ``lo`` to ``hi - 1`` of a run into independent units and count those with an SLO
    miss (a request dropped or waiting past ``budget_s``).

    The units are stretches of the measured span at least :data:`SEGMENT_RELAXATION_TIMES` relaxation times long
    (one stretch when the span is shorter, and never more stretches than measured requests): a queue forgets its
    state over its relaxation time, so stretches that far apart are nearly independent (the batch-means argument;
    Whitt 1989). With ``replicas > 1`` and the run's
    replica of each request (:attr:`Run.replica`), each replica's stretch is a unit of its own: under random
    routing of Poisson arrivals the replicas are independent queues (Poisson splitting), the caller's condition.

    Returns
    -------
    (units, with_miss, crowding)
        Units [-], units holding at least one miss [-], and the most requests in a unit over the mean [-].

    Examples
    --------
    >>> from rackcost.model.sim.simulation import Run
    >>> t = np.arange(10.0)
    >>> run = Run(t, t + np.r_[0.0, 5.0, np.zeros(8)], t + 1, t, t, np.zeros(10, bool), np.zeros(0), 1)
    >>> miss_units(run, 1.0, 0, 10, 1.0)  # 2-s stretches of a 9-s span: 4 units of 3, 2, 2, 3, the first missed
    (4, 1, 1.2)
    """
    arrival = run.arrival_s[lo:hi]
    t0 = float(arrival[0])
    span = float(arrival[-1]) - t0
    stretches = 1
    if 0 < span < math.inf and math.isfinite(relaxation_s) and relaxation_s > 0:
        # no more stretches than measured requests: a span of 3e9 s at a relaxation time of 0.03 s would otherwise
        # cut 4e10 units, mostly empty (their counts 326 GiB); fewer, longer units only make the bound wider
        stretches = int(max(1.0, min(span / (SEGMENT_RELAXATION_TIMES * relaxation_s), float(arrival.size))))
    seg = np.zeros(arrival.size, dtype=np.int64)
    if stretches > 1:
        seg = np.minimum(((arrival - t0) / span * stretches).astype(np.int64), stretches - 1)
    groups = 1
    if replicas > 1 and run.replica is not None:
        groups = replicas
        seg = run.replica[lo:hi].astype(np.int64) * stretches + seg
    units = groups * stretches
    missed = ~(~run.dropped[lo:hi] & (run.wait_s[lo:hi] <= budget_s))
    counts = np.bincount(seg, minlength=units)
    crowding = float(counts.max() / counts.mean()) if counts.sum() else 1.0
    return units, int(np.unique(seg[missed]).size), crowding


def rare_miss_bound(
    units: int, with_miss: int, crowding: float = 1.0, confidence_fraction: float = CONFIDENCE_FRACTION
) -> float:
    """95% upper confidence bound of the share of requests that miss the SLO, from independent units of a run of
    which ``with_miss`` hold at least one miss [-].

    Misses cluster in the busy periods of the queue, so a run that saw few of them says little about their share,
    and a Student t interval over a handful of replications understates it (a run that saw none reports a zero
    width). A bound that does not depend on the clustering: a unit's miss fraction ``X`` lies in [0, 1] and has
    mean ``p``, the miss share, so it holds a miss with probability ``P(X > 0) >= E[X] = p``. The number of units
    with a miss is binomial in ``P(X > 0)``, whose exact one-sided Clopper-Pearson bound (C. J. Clopper and E. S.
    Pearson, *Biometrika* 26(4), 1934, 404-413) then bounds ``p``: with none of ``n``, ``1 - 0.05^(1/n)``, about
    ``3 / n``, the rule of three (B. D. Jovanovic and P. S. Levy, *The American Statistician* 51(2), 1997, 137-139)
    over independent units rather than over requests. ``E[X] = p`` holds for units of equal requests; ``crowding``,
    the fullest unit's requests over the mean, scales the bound for units that hold more requests than others.

    Examples
    --------
    >>> round(rare_miss_bound(40, 0), 4), round(1 - 0.05 ** (1 / 40), 4)  # none of 40: the rule of three
    (0.0722, 0.0722)
    >>> round(rare_miss_bound(40, 2), 4)
    0.1492
    """
    if with_miss >= units:
        return 1.0
    return min(1.0, float(betaincinv(with_miss + 1, units - with_miss, confidence_fraction)) * max(crowding, 1.0))
