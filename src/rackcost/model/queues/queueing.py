"""The M/M/k fleet's waiting time, capacity at SLO and replicas needed, on Erlang C
(:mod:`rackcost.model.queues.erlang`).

The fleet is one M/M/k queue of ``k = N * c`` slots (``N`` replicas of ``c`` slots each; ``k`` may be non-integer)
with Poisson arrivals at ``lambda`` [requests/s] and exponential service of mean ``S`` [s]. The waiting-time tail is
``P(W > t) = C(k, a) * exp(-(k/S - lambda) * t)`` with ``a = lambda * S`` (Kleinrock [1], Sec. 3.5); from it follow
the wait quantile, the largest arrival rate whose tail meets the SLO at a budget (the capacity at SLO: a safeguarded
Newton iteration in the arrival rate, bisection where Newton would leave the bracket) and the fewest replicas that
serve a rate within the SLO (integer bisection after doubling, from a square-root staffing guess [4]).

``erlang_b``, ``erlang_c`` and ``offered_load`` are re-exported from :mod:`rackcost.model.queues.erlang` so that
``rackcost.queueing`` holds every documented queueing function.

All functions are vectorised: every argument broadcasts against the others and the result is a float64 (or int64)
ndarray of the broadcast shape (0-d for scalar input).

References
----------
.. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, Sec. 3.5 (M/M/m, Erlang C and the
       waiting-time distribution).
.. [4] S. Halfin and W. Whitt, "Heavy-traffic limits for queues with many exponential servers", *Operations
       Research* 29(3), 567-588, 1981 (square-root staffing).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from scipy.special import gammaincc

from rackcost.model.queues.erlang import (
    ArrayLike,
    FloatArray,
    IntArray,
    all_of,
    as_float,
    as_float_least,
    broadcast_few,
    broadcast_to_few,
    check_nonnegative,
    check_open_unit,
    check_positive,
    erlang_b,
    erlang_c,
    erlang_c_bounds,
    erlang_c_checked,
    indices_of,
    offered_load,
    stirling_error,
)

__all__ = [
    "capacity_at_slo",
    "erlang_b",
    "erlang_c",
    "offered_load",
    "replicas_needed",
    "log_erlang_c_in_rate",
    "wait_exceedance",
    "wait_exceedance_checked",
    "wait_quantile",
    "wait_tail",
    "wait_tails",
]

_CAPACITY_BISECTION_ITER = 200
"""Cap on the safeguarded Newton/bisection steps of the capacity at SLO: Newton needs 3 or 4, bisection alone reaches
the relative tolerance below in about 35 halvings, so the cap only bounds a pathological case."""
_REPLICA_BISECTION_ITER = 64
"""Cap on the integer bisection of the replica count: 64 halvings span any int64 bracket."""
_CAPACITY_RTOL = 1e-10
"""Relative accuracy of the capacity at SLO; the root is returned this far on the feasible side."""
_MAX_DOUBLINGS = 64
"""Cap on the doublings that bracket the replica count: 2**64 replicas is past any int64."""


def wait_exceedance_checked(t: FloatArray, k: FloatArray, lam: FloatArray, s: FloatArray) -> FloatArray:
    """P(W > t) for validated, broadcast arrays: :func:`wait_exceedance` without its input checks, for a search
    that checks its inputs once and evaluates the tail many times (the same figures, bit for bit).

    Examples
    --------
    M/M/1 at load 0.5: ``C = 0.5`` and ``P(W > 2) = 0.5 exp(-(1 - 0.5) 2) = 0.5 / e``:

    >>> one = np.array([1.0])
    >>> round(float(wait_exceedance_checked(2.0 * one, one, 0.5 * one, one)[0]), 12)
    0.183939720586
    """
    a = lam * s
    stable = a < k
    c = erlang_c_checked(k, a)
    if all_of(stable):  # hot path
        return c * np.exp(-(k / s - lam) * t)
    with np.errstate(under="ignore"):
        decay = np.exp(-np.where(stable, k / s - lam, 0.0) * t)
    return np.where(stable, c * decay, 1.0)


def wait_exceedance(t_s: ArrayLike, k: ArrayLike, arrival_rps: ArrayLike, service_s: ArrayLike) -> FloatArray:
    """Probability that the queueing wait exceeds ``t`` in M/M/k.

    ``P(W > t) = C(k, a) exp(-(k/S - lambda) t)`` with ``a = lambda S``;
    1 where ``a >= k`` (unstable queue).

    Parameters
    ----------
    t_s : array_like
        Wait budget t, >= 0 [s].
    k : array_like
        Number of servers (slots), real and > 0 [slots].
    arrival_rps : array_like
        Arrival rate lambda, >= 0 [requests/s].
    service_s : array_like
        Mean service time S, > 0 [s].

    Returns
    -------
    ndarray
        Exceedance probability P(W > t), from 0 to 1 [fraction].

    Raises
    ------
    ValueError
        On negative, zero (where not allowed), NaN or infinite inputs.

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Sec. 3.5 (waiting-time
    distribution of M/M/m, Eq. (3.43)/(P.60) family).

    Examples
    --------
    M/M/1 with lambda = 0.5/s and S = 1 s: ``P(W > t) = rho exp(-(1/S - lambda) t)``, ``0.5 / e`` at t = 2 s:

    >>> round(float(wait_exceedance(2.0, 1, 0.5, 1.0)), 12)
    0.183939720586
    """
    t = as_float("t_s", t_s)
    k_arr = as_float("k", k)
    lam = as_float("arrival_rps", arrival_rps)
    s = as_float("service_s", service_s)
    check_nonnegative("t_s", t)
    check_positive("k", k_arr)
    check_nonnegative("arrival_rps", lam)
    check_positive("service_s", s)
    t, k_arr, lam, s = broadcast_few(t, k_arr, lam, s)
    return np.asarray(wait_exceedance_checked(t, k_arr, lam, s), dtype=np.float64)


def wait_tail(
    t_s: ArrayLike, q_fraction: float, k: ArrayLike, arrival_rps: ArrayLike, service_s: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """``P(W > t)`` and the ``q``-quantile of the wait together, from one Erlang C evaluation.

    Same as ``(wait_exceedance(t_s, k, arrival_rps, service_s), wait_quantile(q_fraction, k, arrival_rps,
    service_s))``, at half the cost; for stable queues (``a < k``) only.

    Returns
    -------
    exceedance : ndarray
        P(W > t) [fraction].
    quantile : ndarray
        The q-quantile of the wait [s].

    Examples
    --------
    The M/M/1 queue of :func:`wait_exceedance` and :func:`wait_quantile` (lambda = 0.5/s, S = 1 s):

    >>> exceedance, quantile = wait_tail(2.0, 0.99, 1, 0.5, 1.0)
    >>> round(float(exceedance), 12), round(float(quantile), 9)
    (0.183939720586, 7.824046011)
    """
    t = as_float("t_s", t_s)
    k_arr = as_float("k", k)
    lam = as_float("arrival_rps", arrival_rps)
    s = as_float("service_s", service_s)
    t, k_arr, lam, s = broadcast_few(t, k_arr, lam, s)
    a = lam * s
    if not all_of(a < k_arr):
        raise ValueError("wait_tail needs a stable queue everywhere (arrival_rps * service_s < k)")
    c = erlang_c_checked(k_arr, a)
    rate = k_arr / s - lam
    tail = 1.0 - q_fraction
    # every wait is >= 0, so P(W > t) = 1 for a negative budget (an infeasible point), without exp overflowing
    exceedance = np.where(t >= 0, c * np.exp(-rate * np.maximum(t, 0.0)), 1.0)
    quantile = np.where(c > tail, np.log(np.maximum(c, tail) / tail) / rate, 0.0)
    return exceedance, quantile


def wait_tails(
    t_s: ArrayLike, q_fraction: float, k: ArrayLike, arrival_rps: ArrayLike, service_s: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """:func:`wait_tail` at several budgets of the same queue, from one Erlang C evaluation: ``P(W > t)`` at each
    budget of ``t_s``, whose last axis lists the budgets of each queue (each element as :func:`wait_tail` gives it,
    bit for bit; shape ``(..., B)``), and the ``q``-quantile of the wait (shape ``(...)``).

    Examples
    --------
    The M/M/1 queue of :func:`wait_tail` (lambda = 0.5/s, S = 1 s) at budgets of 0 and 2 s: ``rho = 0.5``, then
    ``0.5 / e``:

    >>> (at_0, at_2), quantile = wait_tails([0.0, 2.0], 0.99, 1, 0.5, 1.0)
    >>> round(float(at_0), 12), round(float(at_2), 12), round(float(quantile), 9)
    (0.5, 0.183939720586, 7.824046011)
    """
    k_arr = as_float("k", k)
    lam = as_float("arrival_rps", arrival_rps)
    s = as_float("service_s", service_s)
    k_arr, lam, s = broadcast_few(k_arr, lam, s)
    a = lam * s
    if not all_of(a < k_arr):
        raise ValueError("wait_tails needs a stable queue everywhere (arrival_rps * service_s < k)")
    c = erlang_c_checked(k_arr, a)
    rate = k_arr / s - lam
    tail = 1.0 - q_fraction
    t = as_float("t_s", t_s)
    out = np.where(t >= 0, c[..., None] * np.exp(-rate[..., None] * np.maximum(t, 0.0)), 1.0)
    quantile = np.where(c > tail, np.log(np.maximum(c, tail) / tail) / rate, 0.0)
    return out, quantile


def wait_quantile(q_fraction: ArrayLike, k: ArrayLike, arrival_rps: ArrayLike, service_s: ArrayLike) -> FloatArray:
    """Quantile of the queueing wait W in M/M/k.

    ``w_q = 0`` where ``C <= 1 - q``, else ``S / (k - a) * log(C / (1 - q))``;
    ``inf`` where ``a >= k`` (unstable queue, handled by the caller).

    Parameters
    ----------
    q_fraction : array_like
        Quantile level q in [0, 1) [fraction].
    k : array_like
        Number of servers (slots), real and > 0 [slots].
    arrival_rps : array_like
        Arrival rate lambda, >= 0 [requests/s].
    service_s : array_like
        Mean service time S, > 0 [s].

    Returns
    -------
    ndarray
        The q-quantile of the wait [s].

    Raises
    ------
    ValueError
        On out-of-range, NaN or infinite inputs.

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Sec. 3.5 (inverse of the
    M/M/m waiting-time distribution).

    Examples
    --------
    M/M/1 with lambda = 0.5/s and S = 1 s: ``w_q = S / (1 - a) * log(a / (1 - q))``, ``2 log 50`` s at q = 0.99;
    at q = 0.4 fewer than 60% of the requests wait, so the quantile is no wait at all:

    >>> round(float(wait_quantile(0.99, 1, 0.5, 1.0)), 9)
    7.824046011
    >>> float(wait_quantile(0.4, 1, 0.5, 1.0))
    0.0
    """
    q = as_float("q_fraction", q_fraction)
    if np.any(~((q >= 0) & (q < 1))):
        raise ValueError("q_fraction must lie in [0, 1)")
    k_arr = as_float("k", k)
    lam = as_float("arrival_rps", arrival_rps)
    s = as_float("service_s", service_s)
    check_positive("k", k_arr)
    check_nonnegative("arrival_rps", lam)
    check_positive("service_s", s)
    q, k_arr, lam, s = broadcast_few(q, k_arr, lam, s)
    a = lam * s
    stable = a < k_arr
    c = erlang_c_checked(k_arr, a)
    tail = 1.0 - q
    waits = c > tail
    with np.errstate(divide="ignore", invalid="ignore"):
        w = s / (k_arr - a) * np.log(np.where(waits, c, 1.0) / tail)
    w = np.where(waits, w, 0.0)
    return np.asarray(np.where(stable, w, np.inf), dtype=np.float64)


# --------------------------------------------------------------------------- sizing


def _fixed_slots_exceedance(t: FloatArray, k: FloatArray, s: FloatArray):
    """P(W > t) as a function of the arrival rate alone, for fixed slots: the terms in k are computed once.

    Valid for 0 < lambda < k/S (a stable queue); elsewhere it falls back to the general path.
    """
    minus_stirling = -stirling_error(k)  # negation is exact: the same bits as negating in each call
    half_log = 0.5 * np.log(2.0 * np.pi * k)
    k_plus_1 = k + 1.0
    rate = k / s

    def exceed(lam: FloatArray, with_slope: bool = False):
        """P(W > t), or (log P(W > t), d log P / d lambda) in log space so that tiny tails do not underflow."""
        a = lam * s
        r = a / k
        if r.min(initial=1.0) <= 1e-15 or r.max(initial=0.0) >= 1.0:
            p = wait_exceedance_checked(t, k, lam, s)
            if not with_slope:
                return p
            with np.errstate(divide="ignore"):
                return np.log(p), None
        x = r - 1.0
        log_b = minus_stirling - k * (x - np.log1p(x)) - half_log - np.log(gammaincc(k_plus_1, a))
        b = np.exp(log_b)
        blocked_not = 1.0 - b
        d = 1.0 - r * blocked_not
        if not with_slope:
            return np.minimum(b / d, 1.0) * np.exp(-(rate - lam) * t)
        log_p = np.minimum(log_b - np.log(d), 0.0) - (rate - lam) * t
        # d log P / d lambda = S (B'/B - D'/D) + t with B' = B (k/a - 1 + B) (the Erlang B equation in a) and
        # D = 1 - (a/k)(1 - B), D' = -(1 - B)/k + (a/k) B' (each term computed once, in the same order)
        log_b_slope = k / a - 1.0 + b
        dd = -blocked_not / k + r * (b * log_b_slope)
        return log_p, s * (log_b_slope - dd / d) + t

    return exceed


def log_erlang_c_in_rate(k: FloatArray, s: FloatArray) -> Callable[[FloatArray], tuple[FloatArray, FloatArray | None]]:
    """``log C(k, lambda S)`` and its slope ``d log C / d lambda`` as a function of the arrival rate alone, on
    validated, broadcast arrays of fixed slots ``k`` and service time ``S``: the capacity search's own evaluation
    (the terms in ``k`` computed once), for a caller's root find in the rate [-, s].

    The slope is None for the whole array where any element is off the fast path (a load of at most ``1e-15 k``
    or at least ``k``; ``log C`` is then the general path's, 0 where unstable): bisect there.

    Examples
    --------
    Two slots at one erlang wait with probability 1/3 (:func:`erlang_c`); there ``C = a^2 / (2 + a)``, whose log's
    slope is ``2 / a - 1 / (2 + a)``, 5/3 at ``a = 1``:

    >>> log_c = log_erlang_c_in_rate(np.array([2.0]), np.array([1.0]))
    >>> value, slope = log_c(np.array([1.0]))
    >>> round(float(np.exp(value[0])), 12), round(float(slope[0]), 12)
    (0.333333333333, 1.666666666667)
    """
    exceed = _fixed_slots_exceedance(np.zeros(np.shape(k)), k, s)
    return lambda lam: exceed(lam, with_slope=True)


def capacity_at_slo(
    k: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    feasible_rps: ArrayLike | None = None,
) -> FloatArray:
    """Largest arrival rate meeting a wait SLO on ``k`` slots.

    Returns the largest lambda with ``P(W > budget) <= max_exceedance``.
    ``P(W > t)`` increases with lambda on ``[0, k/S)`` and equals 1 at
    ``k/S``, so the root of ``log P(W > t) - log eps`` in ``[0, k/S]`` is found
    by a vectorised, safeguarded Newton iteration (a step that leaves the
    bracket is replaced by bisection; each element stops once its step or its
    bracket is within a relative 1e-10), started from the closed-form feasible
    end ``k - (S/t) log(1/eps)`` or the caller's feasible rate; the largest
    rate verified to meet the SLO, less a relative 1e-9, is returned.

    Parameters
    ----------
    k : array_like
        Number of servers (slots), real and > 0 [slots].
    service_s : array_like
        Mean service time S, > 0 [s].
    budget_s : array_like
        Wait budget t, >= 0; with 0 the condition is ``C <= max_exceedance`` [s].
    max_exceedance_fraction : array_like
        Allowed P(W > t), in (0, 1) [fraction].
    feasible_rps : array_like, optional
        A rate the caller knows meets the SLO (e.g. the demand the fleet was sized for): a tighter lower end of
        the bracket, so fewer iterations. Checked; ignored where it does not meet the SLO [requests/s].

    Returns
    -------
    ndarray
        Sustainable arrival rate lambda [requests/s].

    Raises
    ------
    ValueError
        On out-of-range, NaN or infinite inputs.

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Sec. 3.5 (M/M/m waiting
    time); bisection: Press et al. (2007), *Numerical Recipes*, Sec. 9.1.

    Examples
    --------
    One slot, S = 1 s, no wait budget: at most half the arrivals may wait, and ``C = a`` on one slot, so the
    capacity is 0.5 requests/s (less a relative margin of 1e-9 that keeps it on the feasible side):

    >>> round(float(capacity_at_slo(1, 1.0, 0.0, 0.5)), 6)
    0.5
    """
    repeated = _repeated_problems(k, service_s, budget_s, max_exceedance_fraction, feasible_rps)
    if repeated is not None:  # many elements, few distinct problems: each solved once (the same figures)
        (k_d, s_d, t_d, eps_d, feasible_d), inverse, shape = repeated
        return _capacity_at_slo(k_d, s_d, t_d, eps_d, feasible_d)[inverse].reshape(shape)
    return _capacity_at_slo(k, service_s, budget_s, max_exceedance_fraction, feasible_rps)


Distinct = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray | None]
"""The distinct problems of :func:`capacity_at_slo`: slots, service time, budget, exceedance, feasible rate."""
_DISTINCT_MIN_ELEMENTS = 1024
"""Elements from which :func:`capacity_at_slo` looks for repeated problems before solving [-]."""
_DISTINCT_PROBE = 256
"""Elements :func:`capacity_at_slo` looks at first for how many distinct problems there are [-]."""
_DISTINCT_MAX = 64
"""Distinct problems up to which :func:`capacity_at_slo` solves each once (more: the elements as given) [-]."""


def _repeated_problems(
    *args: ArrayLike | None,
) -> tuple[Distinct, npt.NDArray[np.intp], tuple[int, ...]] | None:
    """Where :func:`capacity_at_slo`'s arguments broadcast to many elements that are few distinct problems (a
    parked fleet's active replicas over the hours of a year): the distinct problems, the index of each element's,
    and the shape; else None (solve as given).

    The search is elementwise (an element's iterates depend on its own inputs; the one step that depends on the
    whole array, bisecting where any element is off the fast path, sees the same distinct values), so solving the
    distinct problems gives every element the figure it has in the full call, bit for bit.
    """
    present = [np.asarray(a, dtype=np.float64) for a in args if a is not None]
    joint = np.broadcast(*present)  # (the shape and size without np.broadcast_shapes and np.prod, several us each)
    shape, size = joint.shape, joint.size
    if size < _DISTINCT_MIN_ELEMENTS:
        return None
    varying = [j for j, a in enumerate(present) if a.size > 1 and not (a == a.flat[0]).all()]
    if any(np.isnan(present[j]).any() for j in varying):  # NaN (never equal to itself): the checks say so
        return None
    views = [np.broadcast_to(present[j], shape) for j in varying]
    # a probe of evenly spaced elements first: many distinct problems there (Monte Carlo draws) and the call is
    # solved as given, at the cost of the probe only
    probe = np.arange(0, size, max(size // _DISTINCT_PROBE, 1))
    if any(np.unique(v.flat[probe]).size > _DISTINCT_MAX // 2 for v in views):
        return None
    inverse = np.zeros(size, dtype=np.intp)
    index = [0]
    columns = [v.reshape(-1) for v in views]
    if varying:  # the distinct rows of the varying arguments, one pass over the elements each (no sort)
        left = np.ones(size, dtype=bool)
        for count in range(_DISTINCT_MAX):
            first = index[-1]
            same = columns[0] == columns[0][first]
            for a in columns[1:]:
                same &= a == a[first]
            inverse[same] = count
            left &= ~same
            if not left.any():
                break
            index.append(int(np.argmax(left)))
        else:
            return None
    at = dict(zip(varying, (c[index] for c in columns), strict=True))
    k, s, t, eps, *feasible = (at[j] if j in at else np.full(len(index), a.flat[0]) for j, a in enumerate(present))
    return (k, s, t, eps, feasible[0] if feasible else None), inverse, shape


def _capacity_at_slo(
    k: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    feasible_rps: ArrayLike | None = None,
) -> FloatArray:
    """:func:`capacity_at_slo` on its arguments as given."""
    k_arr, k_least = as_float_least("k", k)
    s, s_least = as_float_least("service_s", service_s)
    t, t_least = as_float_least("budget_s", budget_s)
    eps, eps_least = as_float_least("max_exceedance_fraction", max_exceedance_fraction)
    check_positive("k", k_arr, k_least)
    check_positive("service_s", s, s_least)
    check_nonnegative("budget_s", t, t_least)
    check_open_unit("max_exceedance_fraction", eps, eps_least)
    k_arr, s, t, eps = broadcast_few(k_arr, s, t, eps)
    hi = k_arr / s
    # C <= 1, so a <= k - (S/t) log(1/eps) already meets the SLO: a feasible lower end of the bracket
    a_safe = np.where(t > 0, k_arr - s / np.where(t > 0, t, 1.0) * np.log(1.0 / eps), 0.0)
    lo = np.asarray((a_safe / s).clip(0.0, hi))  # (ndarray.clip is np.clip without its dispatch; an array of its own)
    exceed = _fixed_slots_exceedance(t, k_arr, s)
    # Safeguarded Newton on g = log P(W > t) - log eps, increasing in lambda, started from the caller's feasible
    # rate when given (else the closed-form feasible end); [lo, hi] brackets the root (lo feasible) and a step
    # that leaves it is replaced by bisection. The first evaluation checks the start, so a wrong hint only
    # moves hi.
    log_eps = np.log(eps)
    if feasible_rps is None:
        x = lo.copy()
    else:
        x = np.asarray(feasible_rps, dtype=float)
        x = (x if x.shape == lo.shape else broadcast_to_few(x, lo.shape)).clip(lo, hi * (1.0 - 1e-12))
    done = np.zeros(x.shape, dtype=bool)
    # hi only falls from k / S: where that is finite everywhere (k / S overflows only past 1.8e308), a step inside
    # [lo, hi] is finite, so np.isfinite adds nothing to the test and is skipped (the same decisions)
    finite_hi = bool(hi.max(initial=0.0) < np.inf)
    # a Newton step may divide by a zero or infinite slope (the bracket then bisects): no warning; the state is set
    # once around the loop, as setting it costs more than a step
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(_CAPACITY_BISECTION_ITER):
            log_p, slope = exceed(x, with_slope=True)
            g = log_p - log_eps
            feasible_x = g <= 0
            np.maximum(lo, x, out=lo, where=feasible_x)  # (lo's own array: np.where's values, one call fewer)
            hi = np.where(feasible_x, hi, np.minimum(hi, x))
            if slope is None:  # outside the fast path (an element at the edge): bisect this step
                step = 0.5 * (lo + hi)
            else:
                step = x - g / slope
            inside = (step >= lo) & (step <= hi)
            if not finite_hi:
                inside &= np.isfinite(step)
            tol = _CAPACITY_RTOL * hi
            done |= (inside & (np.abs(step - x) <= tol)) | (hi - lo <= tol)
            x = np.where(done, x, np.where(inside, step, 0.5 * (lo + hi)))
            if all_of(done):
                break
    # the root is known to ~1e-12; take the largest rate verified to meet the SLO, with a margin of 1e-9 so that
    # every evaluation path (this fast one, wait_exceedance) agrees that it does
    # (lo was itself verified on the fast path; where Newton converged onto it from the feasible side, as it does
    # where log P is concave, lo less the margin is the answer and needs no further evaluation)
    result = lo * (1.0 - 1e-9)
    check = indices_of(x - lo > 1e-9 * hi)
    if check.size:
        candidate = x.ravel()[check] * (1.0 - 1e-9)
        sub = _fixed_slots_exceedance(t.ravel()[check], k_arr.ravel()[check], s.ravel()[check])
        ok = sub(candidate) <= eps.ravel()[check] * (1.0 - 1e-9)
        # where P(W > t) is linear in the rate near the root (one slot, no budget: C = rho), the two margins of
        # 1e-9 cancel and the candidate fails by an ulp: a second one, 4e-9 below, keeps Newton's answer instead of
        # the bracket's lower end (0 there; found by the property test of accepted <= offered)
        flat = result.reshape(-1)
        if all_of(ok):  # the usual case: the second candidate is not needed (and not evaluated)
            flat[check] = candidate
        else:
            closer = x.ravel()[check] * (1.0 - 4e-9)
            ok_closer = ~ok & (sub(closer) <= eps.ravel()[check] * (1.0 - 1e-9))
            flat[check] = np.where(ok, candidate, np.where(ok_closer, np.maximum(closer, flat[check]), flat[check]))
        result = flat.reshape(result.shape)
    lo = result
    return np.asarray(lo, dtype=np.float64)


def _replicas_feasible(
    n: IntArray, c: FloatArray, lam: FloatArray, s: FloatArray, t: FloatArray, eps: FloatArray
) -> npt.NDArray[np.bool_]:
    """Whether ``n`` replicas of ``c`` slots meet the SLO (n may be 0), for 1-d arrays.

    First from bounds on Erlang C (:func:`rackcost.model.queues.erlang.erlang_c_bounds`): where the tail's upper
    bound is below ``eps`` or its lower bound above it, by a relative margin far wider than the rounding of either
    side, the answer is the one the tail gives; only the rest evaluate it (the same answers, bit for bit, so the
    same count). In the default scenario's Monte Carlo the bounds settle most of the queues of thousands of slots
    well below saturation, whose incomplete gamma costs about 0.76 us each (scipy sums a long series there).
    """
    k = n.astype(np.float64) * c
    a = lam * s
    stable = k > a
    bounded = stable & (a > 1e-15 * k)  # (a negligible load: the exact path, as Erlang B takes it)
    if all_of(bounded):  # the usual case: every element by its bounds first, without gathers and scatters by index
        decay = np.exp(-(k / s - lam) * t)
        lower, upper = erlang_c_bounds(k, a)
        out = upper * decay <= eps * (1.0 - _BOUND_MARGIN)
        rest = indices_of(~out & (lower * decay <= eps * (1.0 + _BOUND_MARGIN)))
        if rest.size:  # (mostly none: the tail on no element still cost about 40 numpy calls)
            out[rest] = wait_exceedance_checked(t[rest], k[rest], lam[rest], s[rest]) <= eps[rest]
        return out
    out = np.zeros(k.shape, dtype=bool)
    some = indices_of(bounded)
    decay = np.exp(-(k[some] / s[some] - lam[some]) * t[some])
    lower, upper = erlang_c_bounds(k[some], a[some])
    out[some] = upper * decay <= eps[some] * (1.0 - _BOUND_MARGIN)
    unsure = np.ones(k.shape, dtype=bool)
    unsure[some] = ~out[some] & (lower * decay <= eps[some] * (1.0 + _BOUND_MARGIN))
    rest = indices_of(unsure & stable)
    if rest.size:
        out[rest] = wait_exceedance_checked(t[rest], k[rest], lam[rest], s[rest]) <= eps[rest]
    return out


_BOUND_MARGIN = 1e-6
"""Relative margin of :func:`_replicas_feasible`'s bounds: a bound this far on one side of the target settles the
comparison: the tail and its bounds share the saddle-point Poisson term, so they differ only by rounding and by
that term's error times the geometric bound, both far below it where a queue is sized (1e-10 at worst)."""


def replicas_needed(
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
) -> IntArray:
    """Smallest number of replicas meeting a wait SLO.

    Finds the smallest integer ``N >= 1`` such that ``k = N * c > a`` and
    ``P(W > budget) <= max_exceedance`` by an integer bisection that stops per
    element once its bracket closes (at most 64 halvings).  The infeasible
    lower end is ``floor(a / c)``; the upper end is the smaller of the bound
    from ``C <= 1``, ``k >= a + (S/t) log(1/eps)`` (sufficient when ``t > 0``),
    and square-root staffing ``k = a + beta sqrt(a)`` with a generous
    ``beta``; a square-root end is verified and doubled until feasible.

    Parameters
    ----------
    arrival_rps : array_like
        Arrival rate lambda, >= 0 [requests/s].
    service_s : array_like
        Mean service time S, > 0 [s].
    slots_per_replica : array_like
        Request slots per replica c, > 0, may be non-integer [slots].
    budget_s : array_like
        Wait budget t, >= 0 [s].
    max_exceedance_fraction : array_like
        Allowed P(W > t), in (0, 1) [fraction].

    Returns
    -------
    ndarray of int64
        Number of replicas N [replicas]; 1 where ``arrival_rps == 0``.

    Raises
    ------
    ValueError
        On out-of-range, NaN or infinite inputs.

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Sec. 3.5 (M/M/m waiting
    time); Halfin and Whitt (1981), Oper. Res. 29, 567-588 (square-root
    staffing, used only for the initial bracket).

    Examples
    --------
    One erlang of load on one-slot replicas, no wait budget: one replica is saturated (a = k); two give
    ``C(2, 1) = 1/3``, enough when half the requests may wait but not when only 30% may; three give ``C = 1/11``:

    >>> int(replicas_needed(1.0, 1.0, 1, 0.0, 0.5))
    2
    >>> int(replicas_needed(1.0, 1.0, 1, 0.0, 0.3))
    3
    """
    lam, lam_least = as_float_least("arrival_rps", arrival_rps)
    s, s_least = as_float_least("service_s", service_s)
    c, c_least = as_float_least("slots_per_replica", slots_per_replica)
    t, t_least = as_float_least("budget_s", budget_s)
    eps, eps_least = as_float_least("max_exceedance_fraction", max_exceedance_fraction)
    check_nonnegative("arrival_rps", lam, lam_least)
    check_positive("service_s", s, s_least)
    check_positive("slots_per_replica", c, c_least)
    check_nonnegative("budget_s", t, t_least)
    check_open_unit("max_exceedance_fraction", eps, eps_least)
    lam, s, c, t, eps = broadcast_few(lam, s, c, t, eps)
    a = lam * s
    log_inv = np.log(1.0 / eps)

    lo = np.floor(a / c).astype(np.int64)
    # Square-root staffing with a generous safety factor (valid for any t >= 0).
    k_sqrt = a + (3.0 + np.sqrt(2.0 * log_inv)) * np.sqrt(a) + log_inv + 10.0
    # (no division by zero: each t <= 0 is replaced by 1 before it divides, so no np.errstate, which cost more than
    # the arithmetic)
    k_budget = np.where(t > 0, a + s / np.where(t > 0, t, 1.0) * log_inv, np.inf)
    k_hi = np.minimum(k_sqrt, k_budget)
    hi = np.maximum(np.ceil(k_hi / c).astype(np.int64) + 1, lo + 1)
    shape = hi.shape
    lo, hi = lo.ravel().copy(), hi.ravel().copy()
    cf, lamf, sf, tf, epsf = (x.ravel() for x in (c, lam, s, t, eps))
    # the budget bound is feasible by construction; only brackets from square-root staffing need checking
    unsure = indices_of(k_hi < k_budget)
    for _ in range(_MAX_DOUBLINGS):
        if unsure.size == 0:
            break
        bad = ~_replicas_feasible(hi[unsure], cf[unsure], lamf[unsure], sf[unsure], tf[unsure], epsf[unsure])
        unsure = unsure[bad]
        hi[unsure] = 2 * hi[unsure] + 1
    else:  # pragma: no cover - the bound above is always feasible in practice
        raise ValueError("could not bracket the number of replicas")

    # bisection on the elements whose bracket is still open only, so converged ones cost nothing
    active = indices_of(hi - lo > 1)
    for _ in range(_REPLICA_BISECTION_ITER):
        if active.size == 0:
            break
        mid = lo[active] + (hi[active] - lo[active]) // 2
        ok = _replicas_feasible(mid, cf[active], lamf[active], sf[active], tf[active], epsf[active])
        hi[active] = np.where(ok, mid, hi[active])
        lo[active] = np.where(ok, lo[active], mid)
        active = active[hi[active] - lo[active] > 1]
    hi = hi.reshape(shape)
    return np.asarray(np.maximum(hi, 1), dtype=np.int64)
