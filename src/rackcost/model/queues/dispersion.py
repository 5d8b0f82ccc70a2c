"""Burstiness at the fleet's own time scale: the index of dispersion of counts and the peakedness it implies.

A request holds a slot for ``S`` seconds (10-40 s on the bundled fleets), so what loads a fleet is how arrivals
bunch over seconds to minutes, not how irregular consecutive gaps are. Real traffic is not a renewal process: in
the Azure LLM inference trace 2023 (conversation service, one hour) the index of dispersion of counts, the variance
over the mean of the arrivals in windows of ``w`` seconds, is about 1.1 at 0.1-1 s, 4 at 10 s, 16 at 60 s and 100 at
600 s, while the squared coefficient of variation of its gaps reads 1.2.

**The figure the model uses: peakedness.** Feed the arrivals to an infinite pool of servers whose service is
exponential with the fleet's mean ``S``; the variance over the mean of the number busy is the stream's peakedness
``z(S)`` (A. E. Eckberg, "Generalized peakedness of teletraffic processes", 10th International Teletraffic
Congress, 1983). For a stationary stream of rate ``lambda`` whose counts have variance ``V(t) = lambda t I(t)`` in
a window of ``t`` seconds (``I`` the index of dispersion), two integrations by parts of the infinite-server
variance give::

    z(S) = (1 + E[I(T)]) / 2,    T ~ Gamma(2, S)  (density t e^(-t/S) / S^2)

so the effective arrival SCV ``c^2 = 2 z - 1 = E[I(T)]`` is the index of dispersion averaged over time scales near
twice the service time. It is 1 for Poisson arrivals at every ``S``; for a renewal stream ``I(t)`` tends to its gap
SCV ``c_a^2`` as ``t`` grows, so for service long against the gaps ``c^2`` is the gap SCV and the model's
``v = (c_a^2 + 1) / 2`` is exactly ``z``. Hayward's approximation (A. A. Fredericks, "Congestion in blocking
systems: a simple approximation technique", *Bell System Technical Journal* 59(6), 1980) serves a stream of
peakedness ``z`` on ``c`` servers as the Poisson stream on ``c / z`` servers at load ``a / z``: exactly the
``k / v`` transformation :mod:`rackcost.model.queues.burstiness` already applies, with ``v = z``. So a measured
dispersion curve enters every figure (sizing, acceptance, capacity at SLO, p99) through ``arrival_scv = E[I(T)]``,
resolved per system at its own service time.

Why peakedness and not the modified offered load (Jennings, Mandelbaum, Massey and Whitt 1996): the MOL follows a
known rate function ``lambda(t)``; a trace gives counts, not a rate, and its fluctuations are random, which is what
peakedness measures; the two agree for slow deterministic swings (a swing is then the demand point's
``rate_swing``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "DEFAULT_TIME_SCALES_S",
    "MIN_WINDOWS",
    "REAL_TRAFFIC_INDEX",
    "REAL_TRAFFIC_SOURCE",
    "REAL_TRAFFIC_TIME_SCALES_S",
    "effective_arrival_scv",
    "index_of_dispersion",
    "real_traffic_scv",
]

DEFAULT_TIME_SCALES_S = (
    0.1,
    0.2,
    0.5,
    1.0,
    2.0,
    5.0,
    10.0,
    20.0,
    30.0,
    60.0,
    120.0,
    300.0,
    600.0,
    1200.0,
    1800.0,
    3600.0,
)
"""Time scales the index of dispersion is measured at by default, 0.1 s to an hour [s]."""
MIN_WINDOWS = 8
"""Fewest whole windows a time scale needs for its index of dispersion to be measured [-]."""

REAL_TRAFFIC_TIME_SCALES_S = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0)
"""Time scales of :data:`REAL_TRAFFIC_INDEX` [s]."""
REAL_TRAFFIC_INDEX = (1.059, 1.096, 1.203, 1.385, 1.695, 2.539, 3.857, 6.589, 8.874, 16.128, 29.543, 56.095)
"""The index of dispersion of counts of a public production LLM trace at :data:`REAL_TRAFFIC_TIME_SCALES_S`, the
default "real traffic" a demand point without a measured dispersion is checked against (:data:`REAL_TRAFFIC_SOURCE`;
measured by :func:`index_of_dispersion` on the file as published, 19,366 requests over 3,502 s; 600 s and longer
fit fewer than 8 windows). It reads an SCV of 6.6 at a 10 s service time, 8.6 at 14 s, 18 at 35 s. Why this trace:
it is the longest public record of single LLM requests with sub-second times, and its rate climbs through the hour
as daytime traffic does, so it carries the minute-scale swings a fleet's margin must absorb."""
REAL_TRAFFIC_SOURCE = (
    "Microsoft Azure, AzurePublicDataset, Azure LLM inference trace 2023, conversation service "
    "(AzureLLMInferenceTrace_conv.csv, 2023-11-16, one hour; Patel et al., Splitwise, ISCA 2024), CC-BY 4.0"
)
"""Where :data:`REAL_TRAFFIC_INDEX` was measured."""

_LOG_X = np.linspace(np.log(1e-7), np.log(80.0), 4001)
"""Grid of ``ln(t / S)`` the Gamma(2, S) average is taken on: the weight ``x^2 e^-x`` per unit of ``ln x`` holds
under 1e-13 of its mass outside it."""
_WEIGHT = np.exp(2.0 * _LOG_X - np.exp(_LOG_X))
_LOG_DX = np.diff(_LOG_X)
"""The steps of :data:`_LOG_X` (computed once: each call took it again, a 4,000-element difference)."""
_WEIGHT_SUM = float(np.sum((_WEIGHT[1:] + _WEIGHT[:-1]) * _LOG_DX) / 2.0)
_REAL_LOG_SCALES = np.log(np.asarray(REAL_TRAFFIC_TIME_SCALES_S, dtype=float))
_REAL_INDEX = np.asarray(REAL_TRAFFIC_INDEX, dtype=float)


def index_of_dispersion(arrival_s: ArrayLike, time_scales_s: ArrayLike = DEFAULT_TIME_SCALES_S) -> NDArray[np.float64]:
    """The index of dispersion of counts at each time scale: the variance over the mean of the number of arrivals
    in consecutive windows of that length, from the first arrival [-]; nan where fewer than :data:`MIN_WINDOWS`
    whole windows fit in the span.

    Parameters
    ----------
    arrival_s
        Arrival times, in any order [s].
    time_scales_s
        Window lengths, each > 0 [s].

    Examples
    --------
    Equally spaced arrivals put the same count in every window (an index of 0); a window longer than an eighth of
    the span is not measured:

    >>> index_of_dispersion(np.arange(1000.0), (10.0, 500.0)).tolist()
    [0.0, nan]
    """
    t = np.sort(np.asarray(arrival_s, dtype=float))
    scales = np.atleast_1d(np.asarray(time_scales_s, dtype=float))
    if t.size < 2 or not np.isfinite(t).all():
        raise ValueError("index_of_dispersion needs at least 2 finite arrival times")
    if not (np.isfinite(scales).all() and (scales > 0).all()):
        raise ValueError("time_scales_s must be finite and > 0")
    rel = t - t[0]
    span = float(rel[-1])
    out = np.full(scales.shape, np.nan)
    for i, w in enumerate(scales):
        windows = int(span // w)
        if windows < MIN_WINDOWS:
            continue
        inside = rel[rel < windows * w]
        counts = np.bincount((inside // w).astype(np.int64), minlength=windows)[:windows]
        mean = counts.mean()
        out[i] = counts.var() / mean if mean > 0 else np.nan
    return out


def effective_arrival_scv(
    time_scales_s: ArrayLike, index: ArrayLike, service_s: ArrayLike
) -> NDArray[np.float64] | float:
    """The arrival SCV a stream of this dispersion loads a fleet with at mean service time ``service_s``: its
    index of dispersion averaged under a Gamma(2, ``service_s``) weight, ``2 z - 1`` for its peakedness ``z``
    against exponential service of that mean (module docstring) [-].

    The index is interpolated linearly in ``ln t`` between the measured scales and held at its first and last
    values outside them (no extrapolation); the average is a trapezoid rule on 4,001 points of ``ln(t / S)``
    (within 1e-9 of the exact integral of the interpolant on the test cases).

    Parameters
    ----------
    time_scales_s
        Strictly increasing window lengths [s].
    index
        Index of dispersion of counts at each, finite and >= 0 [-].
    service_s
        Mean service time(s), > 0 [s]; an array gives an array.

    Examples
    --------
    Poisson arrivals (an index of 1 at every scale) have SCV 1 at any service time; an index that is 1 up to 1 s
    and 9 from 100 s loads a fleet of 1-second requests as an SCV of about 2 and one of 10-minute requests as
    about 9:

    >>> float(effective_arrival_scv((0.1, 1000.0), (1.0, 1.0), 14.0))
    1.0
    >>> [round(float(effective_arrival_scv((1.0, 100.0), (1.0, 9.0), s)), 2) for s in (1.0, 600.0)]
    [2.02, 8.99]
    """
    scales = np.asarray(time_scales_s, dtype=float).ravel()
    values = np.asarray(index, dtype=float).ravel()
    s = np.asarray(service_s, dtype=float)
    if scales.size == 0 or scales.shape != values.shape:
        raise ValueError("time_scales_s and index must be non-empty and of one length")
    if not (np.isfinite(scales).all() and (scales > 0).all() and (np.diff(scales) > 0).all()):
        raise ValueError("time_scales_s must be finite, > 0 and strictly increasing")
    if not (np.isfinite(values).all() and (values >= 0).all()):
        raise ValueError("index must be finite and >= 0")
    if not (np.isfinite(s).all() and (s > 0).all()):
        raise ValueError("service_s must be finite and > 0")
    return _gamma_average(np.log(scales), values, s)


def _gamma_average(
    log_scales: NDArray[np.float64], values: NDArray[np.float64], s: NDArray[np.float64]
) -> NDArray[np.float64] | float:
    """:func:`effective_arrival_scv` on checked arrays, ``log_scales`` the log of the time scales.

    (Each step on the 4,001-point grid in place where the expression allows, in its order: the same values, two
    grid-sized temporaries fewer.)
    """
    log_t = np.log(s)[..., None] + _LOG_X  # (..., grid)
    f = np.interp(log_t, log_scales, values)
    np.multiply(f, _WEIGHT, out=f)
    terms = np.add(f[..., 1:], f[..., :-1])
    np.multiply(terms, _LOG_DX, out=terms)
    out = np.sum(terms, axis=-1) / 2.0 / _WEIGHT_SUM
    return float(out) if out.ndim == 0 else np.asarray(out, dtype=float)


def real_traffic_scv(service_s: ArrayLike) -> NDArray[np.float64] | float:
    """The arrival SCV of :data:`REAL_TRAFFIC_INDEX` (a public production trace) at mean service time(s)
    ``service_s`` [-]: what the fragility check serves a fleet at where its point gives no measured dispersion.

    Examples
    --------
    >>> round(float(real_traffic_scv(14.0)), 2)
    8.57
    """
    s = np.asarray(service_s, dtype=float)
    if not (np.isfinite(s).all() and (s > 0).all()):
        raise ValueError("service_s must be finite and > 0")
    # (the trace's scales and index are checked constants: effective_arrival_scv's checks of them are skipped)
    return _gamma_average(_REAL_LOG_SCALES, _REAL_INDEX, s)
