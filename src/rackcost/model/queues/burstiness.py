"""Bursty arrivals: the G/G/c queue from the M/M/c one (docs/model.md, Bursty arrivals).

Arrivals are a renewal process whose inter-arrival times have squared coefficient of variation ``c_a^2``
(``demand[i].arrival_scv``; 1 is Poisson). With the variability ``v = (c_a^2 + 1) / 2`` the G/GI/c queue of
``c`` slots at arrival rate ``lambda`` and mean service ``S`` is approximated by the M/M/c queue of ``c / v`` slots
at rate ``lambda / v``, the same ``S``::

    P(W > t) ~= C(c / v, a / v) exp(-(c / S - lambda) t / v)

The conditional wait is the heavy-traffic (Kingman) form: exponential with its M/M/c mean times ``v`` (whose mean is
the Allen-Cunneen approximation), and the probability of waiting is that of the many-server (Halfin-Whitt) regime,
where the G/G/c delay probability is the M/M/c one at the spare-capacity parameter ``beta / sqrt(v)``, ``beta = (c
- a) / sqrt(a)``: ``(c/v - a/v) / sqrt(a/v)`` is exactly that. Erlang C is defined for a non-integer number of
slots, so every wait tail, quantile, replica count and capacity at SLO of the model holds for G/G/c by dividing slots
and rates by ``v`` (a capacity is multiplied back). A service time that is not exponential (squared coefficient
of variation ``c_s^2 != 1``, from the output length's spread) keeps that probability of waiting and stretches the
conditional wait by ``(c_a^2 + c_s^2) / (c_a^2 + 1)`` (:func:`wait_stretch`); Poisson points with
exponential service keep their numbers exactly.

Why this approximation: it is exact for M/M/c, right in both heavy-traffic limits (one server: Kingman; many servers:
Halfin-Whitt, Whitt 2004), keeps the model's exact, vectorised Erlang C machinery, and costs one division per point.
Its error for light traffic and small pools is what ``rackcost simulate --arrival-scv`` measures. For random routing
each replica's stream is a random thinning of the whole (its SCV is ``1 + (c_a^2 - 1) / N``, less bursty); the
model uses the whole stream's ``c_a^2`` for every router, which is conservative there.

References
----------
J. F. C. Kingman, "The single server queue in heavy traffic", *Proc. Cambridge Phil. Soc.* 57, 902-904, 1961.
S. Halfin and W. Whitt, "Heavy-traffic limits for queues with many exponential servers", *Operations Research*
29(3), 567-588, 1981.
W. Whitt, "A diffusion approximation for the G/GI/n/m queue", *Operations Research* 52(6), 922-941, 2004.
W. Whitt, "Approximations for the GI/G/m queue", *Production and Operations Management* 2(2), 114-161, 1993.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "FRAGILITY_DROP_FRACTION",
    "FRAGILITY_SCVS",
    "ArrivalStatistics",
    "arrival_statistics",
    "arrival_variability",
    "point_wait_stretch",
    "wait_stretch",
]

FRAGILITY_SCVS = (2.0, 4.0)
"""Arrival SCVs at which every central evaluation serves each fleet again: moderately and very bursty."""
FRAGILITY_DROP_FRACTION = 0.01
"""A point is fragile where the accepted share at one of :data:`FRAGILITY_SCVS` falls more than this below its own
[-] (one percentage point)."""


def arrival_variability(arrival_scv: ArrayLike, service_scv: ArrayLike = 1.0) -> NDArray[np.float64]:
    """The variability ``v = (c_a^2 + c_s^2) / 2`` that divides the slots and rates of the M/M/c queue (module
    docstring) [-].

    Examples
    --------
    >>> float(arrival_variability(1.0)), float(arrival_variability(4.0)), float(arrival_variability(0.0, 0.0))
    (1.0, 2.5, 0.0)
    """
    # a plain number stays one (its sum is the same IEEE double as numpy's), and each is tested by its least and
    # greatest value (NaN fails the first): the same test as isfinite and >= 0 element by element, in a few calls
    # where that took a dozen (this runs about 15 times an evaluation, on 1-3 elements)
    ca = arrival_scv if type(arrival_scv) is float else np.asarray(arrival_scv, dtype=float)
    cs = service_scv if type(service_scv) is float else np.asarray(service_scv, dtype=float)
    if not (_finite_nonnegative(ca) and _finite_nonnegative(cs)):
        raise ValueError("arrival_scv and service_scv must be finite and >= 0")
    return np.asarray((ca + cs) / 2.0, dtype=float)


def _finite_nonnegative(x: float | NDArray[np.float64]) -> bool:
    """Whether every value of ``x`` is finite and >= 0 (an empty array: True)."""
    if isinstance(x, float):
        return 0.0 <= x < math.inf
    return x.size == 0 or bool(0.0 <= x.min() and x.max() < math.inf)


def wait_stretch(arrival_scv: ArrayLike, service_scv: ArrayLike = 1.0) -> NDArray[np.float64]:
    """How much longer a conditional wait is for service of SCV ``c_s^2`` than for exponential service [-]:
    ``(c_a^2 + c_s^2) / (c_a^2 + 1)``, exactly 1 for exponential service.

    The queue of :func:`arrival_variability` at ``c_s^2 = 1`` (``c / v_a`` slots, ``v_a = (c_a^2 + 1) / 2``) keeps
    its probability of waiting; its conditional wait is stretched by this factor, so that its mean is Kingman's
    ``(c_a^2 + c_s^2) / 2`` times the M/M/c one (the Allen-Cunneen mean). In the model a wait budget ``b`` is judged
    in that queue as ``b / stretch``, and a wait quantile read there is multiplied by it. Why not divide the slots by
    the full ``(c_a^2 + c_s^2) / 2`` as for arrivals: in the many-server regime the probability of waiting is
    nearly insensitive to the service distribution (the occupancy of M/G/infinity is Poisson whatever the
    service), and ``rackcost simulate --capacity`` found the full scaling 5-10% conservative in capacity at output
    CV 2 on the bundled Gaudi fleets, whose queueing budget is a few ms (a miss is then any wait at all).

    Examples
    --------
    >>> float(wait_stretch(1.0)), float(wait_stretch(1.0, 4.0)), float(wait_stretch(4.0, 0.25))
    (1.0, 2.5, 0.85)
    """
    ca = np.asarray(arrival_scv, dtype=float)
    cs = np.asarray(service_scv, dtype=float)
    if np.any(~np.isfinite(ca)) or np.any(ca < 0) or np.any(~np.isfinite(cs)) or np.any(cs < 0):
        raise ValueError("arrival_scv and service_scv must be finite and >= 0")
    return np.asarray((ca + cs) / (ca + 1.0), dtype=float)


def point_wait_stretch(
    stretch: ArrayLike, arrival_variability: ArrayLike, utilization_fraction: ArrayLike, servers: ArrayLike
) -> NDArray[np.float64]:
    """The conditional wait's stretch at a demand point's own load: the larger of the heavy-traffic (Kingman) one of
    :func:`wait_stretch` and Kimura's M/G/s system interpolation [-].

    Kimura (1994) interpolates the M/G/s mean wait between the M/M/s and M/D/s ones by the service SCV,
    ``W_G = (1 + c_s^2) / (2 c_s^2 / W_M + (1 - c_s^2) / W_D)``, with Cosmetatos's M/D/s mean, ``W_D / W_M = r =
    (1 + (1 - rho) (s - 1) (sqrt(4 + 5 s) - 2) / (16 rho s)) / 2`` (at most 1). So ``W_G / W_M = (1 + c_s^2) / (2
    c_s^2 + (1 - c_s^2) / r)``: Kingman's ``(1 + c_s^2) / 2`` in heavy traffic or with one server (``r = 1/2``),
    nearer 1 at a moderate load on many servers. It is written as an effective service SCV ``c^2 = 2 W_G / W_M -
    1`` in :func:`wait_stretch`'s ``(c_a^2 + c^2) / (c_a^2 + 1)`` so that bursty arrivals keep their part.

    **Why the larger of the two.** Below ``c_s^2 = 1`` Kimura's is the larger and agrees with the simulator where
    Kingman's was 8-10% short (gamma outputs of cv 0.5 at 77% utilisation, ``benchmarks/class_agreement.py``).
    Above 1 two moments do not determine the M/G/s wait (M. Gupta, J. Dai, M. Harchol-Balter and B. Zwart, "On the
    inapproximability of M/G/K: why two moments of job size distribution are not enough", *Queueing Systems* 64,
    5-48, 2010), and the simulator says so: at the same fleet and load Kimura's is right for lognormal outputs of
    cv 2 (SCV 5.2, where Kingman's is 35-60% long) and 22-26% short for a bimodal CDF (SCV 1.9, where Kingman's is
    right). Kingman's is kept there: it is never the optimistic one. Exponential service (a stretch of exactly 1)
    keeps 1 exactly.

    Parameters
    ----------
    stretch
        :func:`wait_stretch` of the point's arrivals and service [-].
    arrival_variability
        :func:`arrival_variability` of the arrivals alone, ``(c_a^2 + 1) / 2`` [-].
    utilization_fraction
        The point's load per server, ``rho`` in (0, 1) [-].
    servers
        Servers of the queue the wait is in (slots of the pool; of one replica under random routing) [-].

    References
    ----------
    T. Kimura, "Approximations for multi-server queues: system interpolations", *Queueing Systems* 17, 347-382,
    1994. G. P. Cosmetatos, "Some approximate equilibrium results for the multi-server queue (M/G/r)",
    *Operational Research Quarterly* 27(3), 615-620, 1976.

    Examples
    --------
    Service SCV 0.25 on one server is Kingman's 0.625 at any load; on 40 servers at 77% Kimura's is longer; service
    SCV 4 keeps Kingman's 2.5; exponential service stays 1:

    >>> [round(float(point_wait_stretch(0.625, 1.0, 0.77, s)), 4) for s in (1, 40)]
    [0.625, 0.7243]
    >>> float(point_wait_stretch(2.5, 1.0, 0.77, 40)), float(point_wait_stretch(1.0, 1.0, 0.5, 40))
    (2.5, 1.0)
    """
    st = np.asarray(stretch, dtype=float)
    ca = 2.0 * np.asarray(arrival_variability, dtype=float) - 1.0
    cs = st * (ca + 1.0) - ca
    rho = np.clip(np.asarray(utilization_fraction, dtype=float), 1e-9, 1.0)
    s = np.maximum(np.asarray(servers, dtype=float), 1.0)
    r = 0.5 * (1.0 + (1.0 - rho) * (s - 1.0) * (np.sqrt(4.0 + 5.0 * s) - 2.0) / (16.0 * rho * s))
    r = np.minimum(r, 1.0)  # M/D/s never waits longer than M/M/s (Cosmetatos's form overshoots in light traffic)
    ratio = (1.0 + cs) / (2.0 * cs + (1.0 - cs) / r)
    kimura = (ca + 2.0 * ratio - 1.0) / (ca + 1.0)
    return np.asarray(np.where(st == 1.0, 1.0, np.maximum(kimura, st)), dtype=float)


@dataclass(frozen=True)
class ArrivalStatistics:
    """What a list of arrival times says about the arrival process.

    Attributes
    ----------
    requests
        Arrivals [-].
    span_s
        Time from the first to the last arrival [s].
    arrival_rps
        Mean rate, ``(requests - 1) / span`` [requests/s].
    gap_scv
        Squared coefficient of variation of the gaps between arrivals: ``arrival_scv`` for a demand point [-].
    peak_to_mean
        The busiest of ``windows`` equal windows of the span against the mean rate [-]: above about 1.3 with
        thousands of arrivals per window, the rate itself varies over the trace, and the gap SCV then measures that
        variation as much as burstiness (cut the trace to one demand level first).
    windows
        Windows of the span the peak-to-mean rate is counted in [-].
    """

    requests: int
    span_s: float
    arrival_rps: float
    gap_scv: float
    peak_to_mean: float
    windows: int


def arrival_statistics(arrival_s: ArrayLike, windows: int = 10) -> ArrivalStatistics:
    """The rate and gap SCV of sorted (or unsorted) arrival times (:class:`ArrivalStatistics`).

    Examples
    --------
    Arrivals one second apart are not bursty at all (SCV 0); exponential gaps are Poisson (SCV about 1):

    >>> s = arrival_statistics(np.arange(100.0) + 0.5)
    >>> s.arrival_rps, s.gap_scv, s.peak_to_mean
    (1.0, 0.0, 1.0)
    """
    t = np.sort(np.asarray(arrival_s, dtype=float))
    if t.size < 3 or not np.all(np.isfinite(t)):
        raise ValueError("arrival statistics need at least 3 finite arrival times")
    span = float(t[-1] - t[0])
    if span <= 0:
        raise ValueError("every arrival is at one instant: arrival statistics need a span of time")
    if not np.isfinite(span):
        raise ValueError(f"the arrival times span more than a float holds ({t[0]:g} to {t[-1]:g} s)")
    rate = (t.size - 1) / span
    if not np.isfinite(rate):
        raise ValueError(f"the arrivals span {span:g} s, too short to measure a rate: {t.size - 1} gaps in it")
    # the gaps in units of their mean (the SCV is scale-free): gaps of 1e-300 s, whose mean squared underflows to
    # 0, give the SCV the same arrivals in any other unit give
    gaps = np.diff(t) * rate
    counts = np.histogram((t - t[0]) / span, bins=windows, range=(0.0, 1.0))[0]
    return ArrivalStatistics(
        requests=int(t.size),
        span_s=span,
        arrival_rps=rate,
        gap_scv=float(gaps.var() / gaps.mean() ** 2),
        peak_to_mean=float(counts.max() / counts.mean()),
        windows=windows,
    )
