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

A rate swing (:class:`SwingArrivals`, ``lambda(t) = lambda (1 + a sin(2 pi (t / T + phase)))``, at most a cap where
admission control sheds) is a non-homogeneous Poisson process drawn by thinning (P. A. W. Lewis and G. S. Shedler,
"Simulation of nonhomogeneous Poisson processes by thinning", *Naval Research Logistics Quarterly* 26(3), 403-413,
1979): a homogeneous Poisson stream at the largest rate, each arrival kept with probability ``lambda(t) / max``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ARRIVAL_SCV_RANGE",
    "RenewalArrivals",
    "SwingArrivals",
    "TraceArrivals",
    "check_arrival_scv",
    "interarrival_s",
    "swing_arrival_s",
]

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


@dataclass(frozen=True)
class SwingArrivals:
    """A sinusoidal swing of the arrival rate, ``lambda(t) = lambda (1 + a sin(2 pi t / T + 2 pi phase))``.

    Attributes
    ----------
    amplitude_fraction
        ``a``, 0 to 0.9 [-].
    period_s
        ``T``, > 0 [s].
    cap_rps
        Admission control: the rate admitted is ``min(lambda(t), cap)`` (infinite: nothing shed) [requests/s].
    """

    amplitude_fraction: float
    period_s: float
    cap_rps: float = math.inf

    def __post_init__(self) -> None:
        a, t = self.amplitude_fraction, self.period_s
        if not (math.isfinite(a) and 0.0 <= a <= 0.9):
            raise ValueError(f"a rate swing's amplitude must be from 0 to 0.9 (0.2: +/-20%), got {a!r}")
        if not (math.isfinite(t) and t > 0):
            raise ValueError(f"a rate swing's period must be a positive number of seconds, got {t!r}")
        if not self.cap_rps > 0:
            raise ValueError(f"a rate swing's admission cap must be positive, got {self.cap_rps!r}")

    def rate_rps(self, mean_rps: float, t_s: NDArray[np.float64], phase: float = 0.0) -> NDArray[np.float64]:
        """The admitted intensity at times ``t_s`` [requests/s]."""
        swing = 1.0 + self.amplitude_fraction * np.sin(2.0 * math.pi * (t_s / self.period_s + phase))
        return np.minimum(mean_rps * swing, self.cap_rps)


def swing_arrival_s(
    rng: np.random.Generator, size: int, mean_rps: float, swing: SwingArrivals, phase: float = 0.0
) -> NDArray[np.float64]:
    """The first ``size`` arrival times of the swinging Poisson process, by thinning (module docstring) [s].

    Candidates are drawn in blocks at the largest intensity ``min(lambda (1 + a), cap)``, each kept with
    probability ``intensity(t) / largest``; blocks continue from the last candidate until ``size`` are kept.

    Examples
    --------
    The mean count in a whole number of periods is the integral of the rate, ``lambda x span``:

    >>> t = swing_arrival_s(np.random.default_rng(1), 200_000, 100.0, SwingArrivals(0.5, 10.0))
    >>> round(float(np.sum(t < 1000.0)) / 1000.0, 0)
    100.0
    """
    top = min(mean_rps * (1.0 + swing.amplitude_fraction), swing.cap_rps)
    out: list[NDArray[np.float64]] = []
    kept, start = 0, 0.0
    while kept < size:  # without a cap at least 1 / (1 + a) >= 0.53 of the candidates are kept: about 2 blocks
        block = int(min(max(2.0 * (size - kept), 1024), 5e7))
        t = start + np.cumsum(rng.exponential(1.0 / top, block))
        keep = rng.random(block) * top < swing.rate_rps(mean_rps, t, phase)
        out.append(t[keep])
        kept += int(keep.sum())
        start = float(t[-1])
    return np.concatenate(out)[:size]


@dataclass(frozen=True)
class RenewalArrivals:
    """Generated arrivals: ``requests`` of a renewal process at ``rate_rps`` (Poisson by default; SCV ``scv``,
    :func:`interarrival_s`), or, with ``swing``, a Poisson process whose rate swings around ``rate_rps``, drawn by
    thinning from a phase drawn uniformly (:func:`swing_arrival_s`; Poisson only).

    Attributes
    ----------
    rate_rps, requests
        Mean rate [requests/s] and how many requests to draw [-].
    scv
        Squared coefficient of variation of the inter-arrival times [-] (1 is Poisson).
    swing
        The rate's swing, or None.
    """

    rate_rps: float
    requests: int
    scv: float = 1.0
    swing: SwingArrivals | None = None

    @property
    def poisson(self) -> bool:
        """Poisson arrivals at a constant rate (what a steady start is exact for)."""
        return check_arrival_scv(self.scv) == 1.0 and self.swing is None

    def times_s(self, rng: np.random.Generator) -> NDArray[np.float64]:
        """The arrival times, checked [s].

        Examples
        --------
        Poisson arrivals are the cumulated exponential gaps, drawn as the simulator always drew them:

        >>> t = RenewalArrivals(2.0, 3).times_s(np.random.default_rng(0))
        >>> bool(np.array_equal(t, np.cumsum(np.random.default_rng(0).exponential(0.5, 3))))
        True
        """
        scv = check_arrival_scv(self.scv)
        if self.swing is not None and scv != 1.0:
            raise ValueError(
                "a rate swing is simulated as a non-homogeneous Poisson process: arrival_scv must be 1 with a rate "
                f"swing, got {scv:g} (the analytic model combines them; the simulator does not)"
            )
        if self.rate_rps is None or self.rate_rps <= 0 or self.requests < 1:
            raise ValueError("give a positive arrival_rps and requests >= 1, or arrival_s")
        if self.swing is not None:
            return swing_arrival_s(rng, self.requests, self.rate_rps, self.swing, float(rng.random()))
        return np.cumsum(interarrival_s(rng, self.requests, 1.0 / self.rate_rps, scv))

    def steady_rps(self, arrival_s: NDArray[np.float64]) -> float | None:
        """The rate a steady start is drawn at: the process's own [requests/s]."""
        return self.rate_rps

    def first_s(self, arrival_s: NDArray[np.float64]) -> float:
        """When the requests of a steady start arrive: at time 0 [s]."""
        return 0.0


@dataclass(frozen=True, eq=False)
class TraceArrivals:
    """Given arrivals: a trace's sorted arrival times [s] (batch means over its one run)."""

    arrival_s: ArrayLike
    scv: ClassVar[float] = 1.0
    """Unused for a trace (its own burstiness is in its times)."""
    swing: ClassVar[SwingArrivals | None] = None
    poisson: ClassVar[bool] = False
    """A trace need not be Poisson: a steady start from it is approximate."""

    def times_s(self, rng: np.random.Generator) -> NDArray[np.float64]:
        """The arrival times, checked non-empty and sorted [s]."""
        arrivals = np.asarray(self.arrival_s, dtype=float)
        if arrivals.size == 0 or np.any(np.diff(arrivals) < 0):
            raise ValueError("arrival_s must be a non-empty, sorted array of arrival times")
        return arrivals

    def steady_rps(self, arrival_s: NDArray[np.float64]) -> float | None:
        """The trace's mean rate, a steady start's (an approximate one); None for a trace of one instant."""
        n = arrival_s.size
        if n > 1 and arrival_s[-1] > arrival_s[0]:
            return (n - 1) / float(arrival_s[-1] - arrival_s[0])
        return None

    def first_s(self, arrival_s: NDArray[np.float64]) -> float:
        """When the requests of a steady start arrive: at the trace's first arrival (which may be late) [s]."""
        return float(arrival_s[0])
