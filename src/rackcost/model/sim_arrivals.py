"""Renewal arrivals of a given burstiness for the simulator: inter-arrival times with a given mean and squared
coefficient of variation (SCV, variance / mean^2).

- SCV = 1: exponential (Poisson arrivals), drawn exactly as the simulator always drew them
  (``rng.exponential(mean, size)``), so Poisson runs are unchanged bit for bit.
- SCV > 1: the two-phase hyperexponential with balanced means (each branch carries half the mean:
  ``p1 / mu1 = p2 / mu2``), ``p1 = (1 + sqrt((SCV - 1) / (SCV + 1))) / 2``, ``mu_i = 2 p_i / mean``. W. Whitt,
  "Approximating a point process by a renewal process, I: two basic methods", *Operations Research* 30(1), 1982,
  125-147 (the balanced-means H2 fit of two moments); also H. C. Tijms, *A First Course in Stochastic Models*,
  Wiley 2003, Appendix B.
- SCV < 1: the mixture of Erlang-(k-1) and Erlang-k with a common rate, ``1/k <= SCV <= 1/(k-1)``,
  ``p = (k SCV - sqrt(k (1 + SCV) - k^2 SCV)) / (1 + SCV)`` the weight of Erlang-(k-1) and
  ``mu = (k - p) / mean``: Tijms 2003, Appendix B (the fit also in Tijms, *Stochastic Models: An Algorithmic
  Approach*, 1994, Sec. 1.4).

Both fits match the mean and the SCV exactly; higher moments are the fits' own.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

__all__ = ["ARRIVAL_SCV_RANGE", "check_arrival_scv", "interarrival_s"]

ARRIVAL_SCV_RANGE = (0.05, 100.0)
"""Squared coefficients of variation of inter-arrival times the simulator draws [-]: from a near-deterministic
Erlang-20 to a hyperexponential whose rare branch carries half the mean at 1/200 of the arrivals."""


def check_arrival_scv(arrival_scv: float) -> float:
    """The arrival SCV as a float, or ValueError naming the allowed range."""
    lo, hi = ARRIVAL_SCV_RANGE
    try:
        x = float(arrival_scv)
    except (TypeError, ValueError):
        raise ValueError(f"arrival_scv must be a number from {lo:g} to {hi:g}, got {arrival_scv!r}") from None
    if not (math.isfinite(x) and lo <= x <= hi):
        raise ValueError(
            f"arrival_scv must be from {lo:g} to {hi:g} (1 is Poisson; squared coefficient of variation of the "
            f"inter-arrival times), got {arrival_scv!r}"
        )
    return x


def interarrival_s(rng: np.random.Generator, size: int, mean_s: float, arrival_scv: float = 1.0) -> NDArray[np.float64]:
    """Inter-arrival times of a renewal process with the given mean and SCV (see the module docstring) [s].

    Parameters
    ----------
    rng
        Random generator.
    size
        How many gaps [-].
    mean_s
        Mean gap, 1 / arrival rate [s].
    arrival_scv
        Squared coefficient of variation of the gaps, within :data:`ARRIVAL_SCV_RANGE` [-]; 1 is Poisson.

    Examples
    --------
    >>> g = interarrival_s(np.random.default_rng(0), 400_000, 2.0, 4.0)
    >>> round(float(g.mean()), 1), round(float(g.var() / g.mean() ** 2), 1)
    (2.0, 4.0)
    >>> g = interarrival_s(np.random.default_rng(0), 400_000, 2.0, 0.3)
    >>> round(float(g.mean()), 2), round(float(g.var() / g.mean() ** 2), 2)
    (2.0, 0.3)
    """
    scv = check_arrival_scv(arrival_scv)
    if scv == 1.0:
        return rng.exponential(mean_s, size)
    if scv > 1.0:
        p1 = 0.5 * (1.0 + math.sqrt((scv - 1.0) / (scv + 1.0)))
        branch_one = rng.random(size) < p1
        # balanced means: branch i has mean mean / (2 p_i), so each carries half the mean
        means = np.where(branch_one, mean_s / (2.0 * p1), mean_s / (2.0 * (1.0 - p1)))
        return rng.exponential(1.0, size) * means
    k = math.ceil(1.0 / scv - 1e-12)  # 1/k <= scv <= 1/(k-1), k >= 2
    p = (k * scv - math.sqrt(k * (1.0 + scv) - k * k * scv)) / (1.0 + scv)
    rate = (k - p) / mean_s
    shape = np.where(rng.random(size) < p, k - 1.0, float(k))
    return rng.gamma(shape, 1.0 / rate)
