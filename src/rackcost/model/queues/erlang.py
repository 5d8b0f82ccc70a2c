"""Erlang B and C in log space: the probability that an arriving request waits in an M/M/k queue.

The fleet is modelled as a single M/M/k queue: ``N`` replicas with ``c`` request slots each give ``k = N * c``
servers (``k`` may be non-integer), each request holds a slot for an exponentially distributed service time with
mean ``S`` seconds, and requests arrive as a Poisson process with rate ``lambda`` [requests/s]. The offered load is
``a = lambda * S`` [erlang]. Erlang B is computed through the regularised upper incomplete gamma function (its
continuous extension in ``k``), in log space, with a proven-exact shortcut where it rounds to 1, so ``k`` of 10^6
neither overflows nor loops; Erlang C follows from B. :mod:`rackcost.model.queues.queueing` builds the waiting-time
tail, capacity at SLO and replicas needed on these. Also the array checks every queueing function shares.

All functions are vectorised: every argument broadcasts against the others and the result is a float64 ndarray of
the broadcast shape (0-d for scalar input).

References
----------
.. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, Sec. 3.6 (M/m/m/m, Erlang B) and Sec. 3.5
       (M/M/m, Erlang C).
.. [2] D. L. Jagerman, "Some properties of the Erlang loss function", *Bell System Technical Journal* 53(3),
       525-551, 1974 (continuous extension of Erlang B through the incomplete gamma function).
.. [3] W. H. Press, S. A. Teukolsky, W. T. Vetterling, B. P. Flannery, *Numerical Recipes*, 3rd ed., Cambridge
       University Press, 2007, Sec. 5.2 (modified Lentz method) and Sec. 6.2 (continued fraction for the incomplete
       gamma function).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.special import gammaincc, gammaln, pdtr

__all__ = [
    "ArrayLike",
    "FloatArray",
    "IntArray",
    "all_of",
    "any_of",
    "as_float",
    "as_float_least",
    "broadcast_few",
    "broadcast_to_few",
    "check_nonnegative",
    "check_open_unit",
    "check_positive",
    "erlang_b",
    "erlang_c",
    "erlang_c_bounds",
    "erlang_c_checked",
    "indices_of",
    "offered_load",
    "poisson_cdf",
    "poisson_pmf",
    "stirling_error",
]

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_CF_MAX_ITER = 10_000
"""Cap on the Lentz iterations of the continued fraction; it converges in O(sqrt(k)) terms near a = k, so a
million slots need a few thousand at most."""
_CF_EPS = 1e-15
"""Relative change of the continued fraction at which Lentz's method stops: about five ulps of a double."""
_FPMIN = 1e-300
"""Lentz's guard against a zero denominator: near the smallest normal double, far below any term's size."""
_Q_IS_ONE_BOUND = 1e-17
"""Below this bound on P(k+1, a), Q(k+1, a) = 1 - P rounds to exactly 1.0 (see _incomplete_gamma_needed)."""


# --------------------------------------------------------------------------- broadcasting few elements

FEW_ELEMENTS = 64
"""Elements up to which :func:`broadcast_few` and :func:`broadcast_to_few` fill a new array rather than make
numpy's view [-]: a central evaluation's arrays (a few demand points, by the central and SCV rows) are far below
it, a Monte Carlo's or a sweep's far above."""


def broadcast_to_few(a: ArrayLike, shape: tuple[int, ...]) -> npt.NDArray[Any]:
    """``np.broadcast_to(a, shape)``'s values, for less on a few elements: ``a`` itself where it has the shape, a
    new array filled with it up to :data:`FEW_ELEMENTS` (numpy's function costs several microseconds a call, more
    than the arithmetic on such arrays), numpy's read-only view above.

    Examples
    --------
    >>> broadcast_to_few(np.array([[1.0], [2.0]]), (2, 3)).tolist()
    [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]
    """
    arr = np.asarray(a)
    if arr.shape == shape:
        return arr
    if math.prod(shape) > FEW_ELEMENTS:
        return np.broadcast_to(arr, shape)
    out = np.empty(shape, dtype=arr.dtype)
    out[...] = arr  # (numpy's ValueError where ``a`` cannot fill the shape)
    return out


def broadcast_few(*arrays: npt.NDArray[Any]) -> list[npt.NDArray[Any]]:
    """``np.broadcast_arrays``'s values, for less on a few elements (:func:`broadcast_to_few`; above
    :data:`FEW_ELEMENTS`, numpy's views).

    Examples
    --------
    >>> [a.tolist() for a in broadcast_few(np.array([1.0, 2.0]), np.array(3.0))]
    [[1.0, 2.0], [3.0, 3.0]]
    """
    joint = np.broadcast(*arrays)
    shape = joint.shape
    if joint.size > FEW_ELEMENTS:
        return list(np.broadcast_arrays(*arrays))
    return [a if a.shape == shape else broadcast_to_few(a, shape) for a in arrays]


# --------------------------------------------------------------------------- validation


# (the checks test an array by its least and greatest value, which NaN fails: the same test as comparing each element
# and isfinite, in two reductions where that took four or five numpy calls, which cost more than the test on the few
# elements of a central evaluation; an empty array passes, as it did)


def as_float(name: str, x: ArrayLike) -> FloatArray:
    return as_float_least(name, x)[0]


def as_float_least(name: str, x: ArrayLike) -> tuple[FloatArray, Any]:
    """:func:`as_float`, and the array's least value (None where it is empty), which a check that follows takes
    rather than reducing the array again."""
    arr = np.asarray(x, dtype=np.float64)
    if not arr.size:
        return arr, None
    least = arr.min()
    if least != least:  # (the least value is NaN where any is: one reduction, no mask)
        raise ValueError(f"{name} must not contain NaN")
    return arr, least


# (the masks of a central evaluation have a few elements, and the searches ask a dozen of these questions a call:
# np.count_nonzero answers them in about 1 us where ndarray.all and .any, numpy reductions, took 3-5 us on this
# shared machine, and ndarray.nonzero about 0.5 us where np.flatnonzero took 3-4 us; the same answers and indices)


def all_of(mask: npt.NDArray[np.bool_]) -> bool:
    """``mask.all()`` of a boolean array (True for an empty one), for less on a few elements.

    Examples
    --------
    >>> all_of(np.array([True, True])), all_of(np.array([True, False])), all_of(np.zeros(0, dtype=bool))
    (True, False, True)
    """
    return bool(np.count_nonzero(mask) == mask.size)


def any_of(mask: npt.NDArray[np.bool_]) -> bool:
    """``mask.any()`` of a boolean array (False for an empty one), for less on a few elements.

    Examples
    --------
    >>> any_of(np.array([False, True])), any_of(np.array([False, False]))
    (True, False)
    """
    return bool(np.count_nonzero(mask))


def indices_of(mask: npt.NDArray[np.bool_]) -> IntArray:
    """``np.flatnonzero(mask)`` of a boolean array: the flat indices of its true elements, for less.

    Examples
    --------
    >>> indices_of(np.array([[True, False], [False, True]])).tolist()
    [0, 3]
    """
    return mask.ravel().nonzero()[0]


# (each check takes the least value where the caller has it from as_float_least: the same test, one reduction fewer)


def check_positive(name: str, x: FloatArray, least: Any = None) -> None:
    if x.size and not (0 < (x.min() if least is None else least) and x.max() < math.inf):
        raise ValueError(f"{name} must be finite and > 0, got min {np.min(x)!r}")


def check_nonnegative(name: str, x: FloatArray, least: Any = None) -> None:
    if x.size and not (0 <= (x.min() if least is None else least) and x.max() < math.inf):
        raise ValueError(f"{name} must be finite and >= 0, got min {np.min(x)!r}")


def check_open_unit(name: str, x: FloatArray, least: Any = None) -> None:
    if x.size and not (0 < (x.min() if least is None else least) and x.max() < 1):
        raise ValueError(f"{name} must lie in the open interval (0, 1)")


# --------------------------------------------------------------------------- core formulas


def offered_load(arrival_rps: ArrayLike, service_s: ArrayLike) -> FloatArray:
    """Offered load of a Poisson stream (Little's law).

    Parameters
    ----------
    arrival_rps : array_like
        Arrival rate lambda, >= 0 [requests/s].
    service_s : array_like
        Mean service time S per request, > 0 [s].

    Returns
    -------
    ndarray
        Offered load ``a = lambda * S`` [erlang].

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Sec. 2.1 (Little's result).

    Examples
    --------
    Two requests per second holding a slot for half a second each keep one slot busy on average:

    >>> float(offered_load(2.0, 0.5))
    1.0
    """
    lam = as_float("arrival_rps", arrival_rps)
    s = as_float("service_s", service_s)
    check_nonnegative("arrival_rps", lam)
    check_positive("service_s", s)
    return np.asarray(lam * s, dtype=np.float64)


def _legendre_cf(s: FloatArray, x: FloatArray) -> FloatArray:
    """Legendre continued fraction of the upper incomplete gamma function.

    ``Gamma(s, x) = exp(-x) * x**s * CF(s, x)`` with
    ``CF = 1/(x+1-s - 1*(1-s)/(x+3-s - 2*(2-s)/(x+5-s - ...)))``, evaluated by
    the modified Lentz method (Numerical Recipes, 3rd ed., Sec. 5.2 and 6.2,
    routine ``gcf``).  Vectorised over 1-d arrays ``s`` and ``x`` (x > 0);
    only unconverged elements keep iterating, up to ``_CF_MAX_ITER`` terms.
    """
    b = x + 1.0 - s
    b = np.where(np.abs(b) < _FPMIN, _FPMIN, b)
    c = np.full_like(x, 1.0 / _FPMIN)
    d = 1.0 / b
    h = d.copy()
    active = np.arange(x.size)
    for i in range(1, _CF_MAX_ITER + 1):
        if active.size == 0:
            break
        si = s[active]
        an = -i * (i - si)
        bi = b[active] + 2.0
        b[active] = bi
        di = an * d[active] + bi
        di = np.where(np.abs(di) < _FPMIN, _FPMIN, di)
        ci = bi + an / c[active]
        ci = np.where(np.abs(ci) < _FPMIN, _FPMIN, ci)
        di = 1.0 / di
        delta = di * ci
        h[active] *= delta
        d[active] = di
        c[active] = ci
        active = active[np.abs(delta - 1.0) >= _CF_EPS]
    return h


def stirling_error(k: FloatArray) -> FloatArray:
    """``log Gamma(k+1) - (k + 1/2) log k + k - log(2 pi)/2`` for k > 0.

    Direct evaluation for k < 15 and the Stirling (de Moivre) series otherwise,
    which avoids the cancellation of the direct form at large k.
    C. Loader, "Fast and accurate computation of binomial probabilities", 2000.

    Examples
    --------
    At k = 1, ``log Gamma(2) = 0``: the error is ``1 - log(2 pi)/2``; at k = 20 the series' first two terms,
    ``1/(12 k) - 1/(360 k^3)``, are within 1e-9 of it (the third is 2.5e-10):

    >>> e = stirling_error(np.array([1.0, 20.0]))
    >>> round(float(e[0]), 10), round(float(1 - np.log(2 * np.pi) / 2), 10)
    (0.0810614668, 0.0810614668)
    >>> abs(float(e[1]) - (1 / 240 - 1 / 2.88e6)) < 1e-9
    True
    """
    if not getattr(k, "shape", ()) and k >= 15.0:  # one value (each step in place below needs arrays)
        inv2 = 1.0 / (k * k)
        return (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0))) / k
    if k.min(initial=np.inf) >= 15.0:  # hot path: the series alone
        # (each step in place, in the order of the expression's: the same values, fewer temporaries)
        inv2 = np.multiply(k, k)
        np.divide(1.0, inv2, out=inv2)
        series = np.divide(inv2, 1680.0)
        np.subtract(1.0 / 1260.0, series, out=series)
        np.multiply(inv2, series, out=series)
        np.subtract(1.0 / 360.0, series, out=series)
        np.multiply(inv2, series, out=series)
        np.subtract(1.0 / 12.0, series, out=series)
        return np.divide(series, k, out=series)
    big = k >= 15.0
    kd = np.where(big, 1.0, k)
    direct = gammaln(kd + 1.0) - (kd + 0.5) * np.log(kd) + kd - 0.5 * np.log(2.0 * np.pi)
    kb = np.where(big, k, 15.0)
    inv2 = 1.0 / (kb * kb)
    series = (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0))) / kb
    return np.where(big, series, direct)


def _log_poisson_pmf(k: FloatArray, a: FloatArray) -> FloatArray:
    """``log(a**k exp(-a) / Gamma(k+1))`` for real k > 0 and a > 0.

    Saddle-point form ``-stirlerr(k) - bd0(k, a) - log(2 pi k)/2`` with
    ``bd0 = k (x - log1p(x))``, ``x = (a - k)/k``, which keeps the relative error
    of the result near machine precision even for k ~ 1e7 (the naive
    ``k log a - a - gammaln(k+1)`` loses ~k * eps).
    Loader (2000), "Fast and accurate computation of binomial probabilities".
    """
    # (in place below: arrays of one shape; the shapes read as attributes, without np.ndim's and np.shape's calls)
    k_shape, a_shape = getattr(k, "shape", ()), getattr(a, "shape", ())
    if not k_shape or k_shape != a_shape:
        x = (a - k) / k
        return -stirling_error(k) - k * (x - np.log1p(x)) - 0.5 * np.log(2.0 * np.pi * k)
    # (each step in place, in the order of the expression -stirlerr - k (x - log1p x) - log(2 pi k) / 2: the same
    # values, fewer temporaries)
    x = np.subtract(a, k)
    np.divide(x, k, out=x)
    bd0 = np.log1p(x)
    np.subtract(x, bd0, out=bd0)
    np.multiply(k, bd0, out=bd0)
    out = np.negative(stirling_error(k))
    np.subtract(out, bd0, out=out)
    half_log = np.multiply(2.0 * np.pi, k, out=x)
    np.log(half_log, out=half_log)
    np.multiply(0.5, half_log, out=half_log)
    return np.subtract(out, half_log, out=out)


def erlang_b(k: ArrayLike, a: ArrayLike) -> FloatArray:
    """Erlang B (loss) probability for a real number of servers.

    Uses the continuous extension through the incomplete gamma function,
    ``B(k, a) = p / Q(k+1, a)`` with ``p = a**k exp(-a) / Gamma(k+1)`` (in
    log space) and ``Q`` the regularised upper incomplete gamma function, for
    ``a <= k + 1 + sqrt(k + 1)``.  Above that, where ``Q`` underflows at large
    ``k`` (e.g. k = 1e6, a = 1.05e6), the exact identity
    ``1/B = a * CF(k+1, a)`` with the Legendre continued fraction of
    ``Gamma(k+1, a)`` is used instead.  (The switch is slightly above ``a = k``
    because the continued fraction converges slowly for ``a`` near ``k`` or
    below 1, where the incomplete-gamma form is still safe.)

    Parameters
    ----------
    k : array_like
        Number of servers (slots), real and > 0 [slots].
    a : array_like
        Offered load, >= 0 [erlang].

    Returns
    -------
    ndarray
        Blocking probability in [0, 1]; 0 where ``a == 0`` [fraction].

    Raises
    ------
    ValueError
        If ``k <= 0``, ``a < 0`` or any input is NaN or infinite.

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Eq. (3.44) (Erlang B);
    Jagerman (1974), Bell Syst. Tech. J. 53, 525-551 (continuous Erlang B);
    Press et al. (2007), *Numerical Recipes* 3rd ed., Sec. 6.2 (continued
    fraction, modified Lentz).

    Examples
    --------
    One server: ``B = a / (1 + a)``; two servers: ``B = (a^2/2) / (1 + a + a^2/2)``, 0.2 at a = 1:

    >>> float(erlang_b(1, 1.0))
    0.5
    >>> round(float(erlang_b(2, 1.0)), 12)
    0.2
    """
    k_arr = as_float("k", k)
    a_arr = as_float("a", a)
    check_positive("k", k_arr)
    check_nonnegative("a", a_arr)
    kb, ab = np.broadcast_arrays(k_arr, a_arr)
    return _erlang_b_core(kb.ravel(), ab.ravel()).reshape(kb.shape)


def _incomplete_gamma_needed(k: FloatArray, a: FloatArray, pmf: FloatArray) -> npt.NDArray[np.bool_]:
    """Where ``Q(k+1, a)`` must be computed for Erlang B, given the Poisson term ``pmf = a**k exp(-a) / Gamma(k+1)``.

    Elsewhere ``Q(k+1, a) = 1 - P(k+1, a)`` is exactly 1.0 in double precision. The series of the lower incomplete
    gamma function, ``P(s, x) = x**s exp(-x) / Gamma(s+1) * sum_n x**n / ((s+1)...(s+n))``, is bounded term by
    term by a geometric series, so for ``x < s + 1``::

        P(k+1, a) <= pmf * a / (k+1) * (k+2) / (k+2-a)

    Where this bound is below 1e-17, less than half the spacing of doubles below 1 (2**-54 = 5.6e-17) with room
    for the rounding of ``pmf``, ``1 - P`` rounds to exactly 1.0, and so does scipy's ``gammaincc`` (a test checks
    this on 300,000 random pairs): skipping it changes no bit of the result. The skipped case is common: a
    pool of thousands of slots a few standard deviations below saturation, where scipy sums a series of hundreds
    of terms per element. Where ``pmf`` underflows to 0, ``B`` is 0 whatever ``Q`` is.
    """
    below = a < k + 1.0
    if all_of(below):  # the usual case: each denominator k + 2 - a > 1, nothing to guard (the same values, fewer calls)
        return (pmf > 0.0) & (pmf * (a / (k + 1.0)) * ((k + 2.0) / (k + 2.0 - a)) >= _Q_IS_ONE_BOUND)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = pmf * (a / (k + 1.0)) * ((k + 2.0) / np.where(below, k + 2.0 - a, 1.0))
    return (pmf > 0.0) & (~below | (bound >= _Q_IS_ONE_BOUND))


def poisson_pmf(k: FloatArray, a: FloatArray) -> FloatArray:
    """The Poisson term ``a**k exp(-a) / Gamma(k + 1)`` for real ``k > 0`` and ``a > 0``, to near machine precision
    even at ``k`` ~ 1e7 (the saddle-point form of :func:`_log_poisson_pmf`).

    Examples
    --------
    >>> round(float(poisson_pmf(np.array(2.0), np.array(3.0))), 12), round(float(4.5 * np.exp(-3.0)), 12)
    (0.224041807655, 0.224041807655)
    """
    return np.asarray(np.exp(_log_poisson_pmf(k, a)), dtype=np.float64)


def poisson_cdf(x: FloatArray, a: FloatArray) -> FloatArray:
    """:func:`scipy.special.pdtr` of 1-d arrays, bit for bit, without its incomplete gamma where that is exactly 1.

    ``P(K <= x)``, ``K`` Poisson of mean ``a``. scipy evaluates ``pdtr(x, a)`` as ``Q(s + 1, a)``, ``s = floor(x)``,
    the regularised upper incomplete gamma function. Where ``a < s + 1`` and the series bound of
    :func:`_incomplete_gamma_needed` on ``P(s + 1, a) = 1 - Q``, from the Poisson term ``a**s exp(-a) / s!``, shows
    that ``Q`` rounds to 1.0 in double precision, the result is 1.0 without the series, which takes hundreds of
    terms for a pool of thousands of slots well below saturation (95% of the ``P(K < k)`` that
    :mod:`rackcost.model.queues.occupancy` asks in the default scenario's Monte Carlo). ``tests/test_queueing.py``
    checks that scipy gives exactly 1.0 there and that the result equals ``pdtr`` on random pairs.

    Examples
    --------
    >>> x, a = np.array([2.0, 5_000.0]), np.array([1.0, 4_000.0])
    >>> bool((poisson_cdf(x, a) == pdtr(x, a)).all()), float(poisson_cdf(x, a)[1])
    (True, 1.0)
    """
    s = np.floor(x)
    out = np.ones(x.shape)
    # (each mask is turned into indices once: gathers and scatters by indices cost less than by a mask)
    candidates = indices_of((s >= 1.0) & (a > 0.0) & (a < s + 1.0))
    sk, ak = s[candidates], a[candidates]
    pmf = np.exp(_log_poisson_pmf(sk, ak))
    need = np.ones(x.shape, dtype=bool)
    need[candidates] = ~(pmf * (ak / (sk + 1.0)) * ((sk + 2.0) / (sk + 2.0 - ak)) < _Q_IS_ONE_BOUND)
    at = indices_of(need)
    if at.size:  # (often none: scipy on no element still cost two gathers, a call and a scatter)
        out[at] = pdtr(x[at], a[at])
    return out


def _erlang_b_core(kf: FloatArray, af: FloatArray) -> FloatArray:
    """Erlang B for validated 1-d float arrays of equal length (no input checks: the hot path).

    Where every ``a / k`` rounds to at most 1 (every stable queue: Erlang C asks nothing else), no load is above
    ``k + 1 + sqrt(k + 1)``: the quotient rounds to 1 or below only for ``a <= k (1 + 2**-53)``, less than
    ``k + 1`` for any ``k`` below ``2**53`` and less than ``k + sqrt(k)`` below ``2**106``; the test of each element
    against that bound (its square root) is then skipped.
    """
    ratio = af / kf
    bounded = ratio.max(initial=0.0) <= 1.0 and kf.max(initial=0.0) < 1e30  # then no element is high (see above)
    high = None if bounded else af > kf + 1.0 + np.sqrt(kf + 1.0)
    if ratio.min(initial=np.inf) > 1e-15 and (high is None or not high.any()):
        # hot path (every load not negligible and at most a little above k): Q(k+1, a) >= ~0.15, no underflow possible
        pmf = np.exp(_log_poisson_pmf(kf, af))
        need = _incomplete_gamma_needed(kf, af, pmf)
        if all_of(need):
            return np.minimum(pmf / gammaincc(kf + 1.0, af), 1.0)
        # elsewhere Q(k+1, a) is exactly 1.0 in double precision, so B = pmf (0 where it underflows): the costly
        # incomplete gamma is skipped for a lightly or moderately loaded pool of many slots
        at = indices_of(need)  # the mask once as indices: three gathers and a scatter by them cost less
        if not at.size:  # no element needs it: B = pmf, a new array already (no copy, no gamma on nothing)
            return pmf
        out = pmf.copy()
        out[at] = np.minimum(pmf[at] / gammaincc(kf[at] + 1.0, af[at]), 1.0)
        return out
    if high is None:
        high = np.zeros(kf.shape, dtype=bool)
    out = np.zeros(kf.shape, dtype=np.float64)
    # The continued fraction converges slowly for a close to (or below) k + 1, where
    # Q(k+1, a) is still of order one; it is only needed far above k, where Q underflows.
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        if not high.any():
            # Q(k+1, a) >= ~0.15 here, so the denominator cannot underflow.
            pos = af > 0
            a_safe = np.where(pos, af, 1.0)
            out = np.where(pos, np.exp(_log_poisson_pmf(kf, a_safe)) / gammaincc(kf + 1.0, a_safe), 0.0)
        else:
            low = (af > 0) & ~high
            kl, al = kf[low], af[low]
            out[low] = np.exp(_log_poisson_pmf(kl, al)) / gammaincc(kl + 1.0, al)
            kh, ah = kf[high], af[high]
            out[high] = 1.0 / (ah * _legendre_cf(kh + 1.0, ah))
    return np.clip(out, 0.0, 1.0)


def erlang_c_checked(k: FloatArray, a: FloatArray) -> FloatArray:
    """Erlang C for already validated, broadcast float arrays (1 where the queue is unstable, ``a >= k``).

    Examples
    --------
    Two servers at one erlang wait with probability 1/3 (:func:`erlang_c`); beside them an unstable pair, 1:

    >>> [round(float(x), 12) for x in erlang_c_checked(np.array([2.0, 2.0]), np.array([1.0, 3.0]))]
    [0.333333333333, 1.0]
    """
    stable = a < k
    if all_of(stable) and k.shape == a.shape:  # hot path: a stable queue everywhere
        b = _erlang_b_core(k.ravel(), a.ravel()).reshape(k.shape)
        return np.minimum(b / (1.0 - (a / k) * (1.0 - b)), 1.0)
    k_safe = np.where(stable, k, np.maximum(a, 1.0) * 2.0)
    shape = np.broadcast_shapes(k_safe.shape, a.shape)
    b = _erlang_b_core(np.broadcast_to(k_safe, shape).ravel(), np.broadcast_to(a, shape).ravel()).reshape(shape)
    rho = a / k_safe
    c = b / (1.0 - rho * (1.0 - b))
    return np.where(stable, np.clip(c, 0.0, 1.0), 1.0)


def erlang_c_bounds(k: FloatArray, a: FloatArray) -> tuple[FloatArray, FloatArray]:
    """A lower and an upper bound on Erlang C for validated 1-d arrays with ``0 < a < k``, without the incomplete
    gamma function: for a search that only asks on which side of a target ``C`` lies, and evaluates it
    (:func:`erlang_c_checked`) only where the bounds do not say.

    ``B = pmf / Q(k+1, a)`` with ``pmf = a**k exp(-a) / Gamma(k+1)`` and ``Q = 1 - P``, ``0 <= P(k+1, a)`` at most
    the geometric bound of :func:`_incomplete_gamma_needed`, so ``pmf <= B <= pmf / (1 - bound)``; ``C = B / (1 -
    (a/k)(1 - B))`` rises with ``B``. Where the bound is 1 or more the upper bound is 1 (the bound says nothing).

    Examples
    --------
    Two servers at one erlang (``C = 1/3``) and 100 servers at 60 erlangs, where the bounds meet:

    >>> k, a = np.array([2.0, 100.0]), np.array([1.0, 60.0])
    >>> lower, upper = erlang_c_bounds(k, a)
    >>> bool(((lower <= erlang_c(k, a)) & (erlang_c(k, a) <= upper)).all()), bool(upper[1] - lower[1] < 1e-9)
    (True, True)
    """
    pmf = poisson_pmf(k, a)
    bound = pmf * (a / (k + 1.0)) * ((k + 2.0) / (k + 2.0 - a))
    blocked = np.minimum(pmf / np.where(bound < 1.0, 1.0 - bound, 1.0), 1.0)
    blocked[bound >= 1.0] = 1.0
    rho = a / k
    return pmf / (1.0 - rho * (1.0 - pmf)), blocked / (1.0 - rho * (1.0 - blocked))


def erlang_c(k: ArrayLike, a: ArrayLike) -> FloatArray:
    """Erlang C: probability that an arriving request has to wait in M/M/k.

    ``C = B / (1 - (a/k) (1 - B))`` with ``B = erlang_b(k, a)`` for ``a < k``;
    exactly 1 where ``a >= k`` (unstable queue).

    Parameters
    ----------
    k : array_like
        Number of servers (slots), real and > 0 [slots].
    a : array_like
        Offered load, >= 0 [erlang].

    Returns
    -------
    ndarray
        Probability of waiting, from 0 to 1 [fraction].

    Raises
    ------
    ValueError
        If ``k <= 0``, ``a < 0`` or any input is NaN or infinite.

    References
    ----------
    Kleinrock (1975), *Queueing Systems Vol. 1*, Eq. (3.40) (Erlang C) and
    the Erlang B/C relation.

    Examples
    --------
    One server (M/M/1): an arrival waits with probability ``a``; two servers at a = 1: ``0.2 / (1 - 0.5 * 0.8)``:

    >>> round(float(erlang_c(1, 0.5)), 12)
    0.5
    >>> round(float(erlang_c(2, 1.0)), 12)
    0.333333333333
    >>> float(erlang_c(2, 2.5))  # a >= k: the queue grows without bound, every arrival waits
    1.0
    """
    k_arr = as_float("k", k)
    a_arr = as_float("a", a)
    check_positive("k", k_arr)
    check_nonnegative("a", a_arr)
    kb, ab = np.broadcast_arrays(k_arr, a_arr)
    return np.asarray(erlang_c_checked(kb, ab), dtype=np.float64)
