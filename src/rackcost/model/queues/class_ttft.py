"""The p99 TTFT of a request class whose input lengths spread (docs/model.md, Request classes). Pure numpy.

A request of class ``k`` with uncached input ``u_i`` waits ``W`` in the shared queue and then prefills for ``X_i =
Y_i rho_k TTFT(n)``, ``Y_i = u_i / E[u]`` its input over its class's mean (mean 1) and ``n`` the occupancy it starts
at (:mod:`rackcost.model.queues.occupancy`). Its TTFT is ``X_i + W``. The queue's wait has an atom at 0 of ``1 - C'``
(``C'`` the share that waits, :func:`rackcost.model.queues.occupancy.waiting_share`) and the model's exponential tail,
``P(W > t) = C' exp(-theta t)`` (``theta`` the conditional wait's decay rate divided by the service's stretch,
:func:`rackcost.model.queues.burstiness.wait_stretch`). A request that waits starts when a slot frees, on a full replica
(occupancy ``c``); one that does not starts at the occupancy it finds. So::

    P(TTFT > t) = (1 - C') sum_j w_j P(Y x_j > t) + C' P(Y x_c + W' > t),   W' ~ Exp(theta)

with ``x_c = rho_k TTFT(c)`` and ``x_j = rho_k TTFT(n_j)``, ``n_j`` the start occupancy of a request that does not
wait at the levels :data:`NO_WAIT_LEVELS` (weights :data:`NO_WAIT_WEIGHTS`: strata of that law, the top one at its
99th percentile). ``Y`` is independent of the queue (a request's length does not choose its slot; its *holding
time* does enter the queue, through the mix's spread).

``Y``'s law is a *stratified* one (:class:`StratifiedLaw`): a list of probability levels and the length at each, the
law uniform between consecutive nodes and a point mass where two nodes share a length. That is exactly how a CDF
table is read (:func:`rackcost.model.workload.classes.cdf_moments`: the first row a point mass, each later increment
uniform), and for a lognormal or gamma law it is its quantile function at the fixed levels :data:`QUANTILE_LEVELS`,
linear between them (the 99th percentile is a node). With it both terms are closed form: ``P(Y x > t)`` is piecewise
linear in ``t``, and the convolution of a uniform stratum ``[a, b]`` with the exponential is

    P(U + W' > t) - P(U > t) = exp(-theta (t - min(b, t))) (1 - exp(-theta (min(b, t) - a))) / (theta (b - a))

for ``a < t`` (0 else). The p99 is the root of ``P(TTFT > t) = 0.01``, found by a safeguarded Newton iteration
(the derivative is closed form too: ``-(1 - C') f_nowait(t) - C' theta E(t)``) inside the bracket ``[0, x_max
y_max + max(ln(C' / 0.01), 0) / theta]``, vectorised over classes, demand points and samples at once.

A class of one input length (``Y = 1``) is not solved here: its p99 is today's closed form, ``rho_k TTFT(L) +
w_99`` (``L`` the p99 start occupancy, ``w_99`` the queue's p99 wait), bit for bit.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaincinv, ndtri

from rackcost.model.queues.erlang import broadcast_few, broadcast_to_few

__all__ = [
    "MIN_SPREAD_CV_FRACTION",
    "NO_WAIT_LEVELS",
    "NO_WAIT_WEIGHTS",
    "QUANTILE_LEVELS",
    "StratifiedLaw",
    "cdf_law",
    "fixed_law",
    "gamma_law",
    "class_and_mixture_quantiles_ms",
    "lognormal_law",
    "mixture_quantile_ms",
    "stack_laws",
    "sum_quantile_ms",
]

Array = NDArray[np.float64]

QUANTILE_LEVELS = np.concatenate([np.linspace(0.0, 0.9, 19), 1.0 - 10.0 ** -np.linspace(1.2, 6.0, 25)])
"""Probability levels at which a lognormal or gamma length law is read [-]: every 5% to 90%, then the tail at
``1 - 10^-x`` for ``x`` from 1.2 to 6 in steps of 0.2 (the 99th percentile is a node); the mass above the last is
spread over the last stratum (the law is closed at level 1 with the last length)."""

MIN_SPREAD_CV_FRACTION = 1e-7
"""Coefficient of variation below which a lognormal or gamma length is one length (:func:`fixed_law`) [-]: the
spread of the longest length a scenario takes (1e7 tokens) is then under a token. A gamma's shape ``1 / cv^2``
overflows below about 1e-154 (a cv of 5.35e-301 was a division by zero, found by the scenario fuzzer)."""

NO_WAIT_LEVELS = np.array([0.1, 0.3, 0.5, 0.7, 0.85, 0.94, 0.99])
"""Levels of the start-occupancy law of a request that does not wait at which its TTFT is read: the midpoints of
strata of mass :data:`NO_WAIT_WEIGHTS`, the top one at the 99th percentile, so that a narrow input law tends to
today's p99 at the p99 occupancy [-]."""
NO_WAIT_WEIGHTS = np.array([0.2, 0.2, 0.2, 0.2, 0.1, 0.08, 0.02])
"""Mass of each stratum of :data:`NO_WAIT_LEVELS` [-]; they add up to 1."""

_NEWTON_STEPS = 100
"""Most iterations of the safeguarded Newton root find (each halves the bracket at worst) [-]."""
_NARROW_AFTER = 6
"""Evaluations of the root find after which an element not yet done has its bracket narrowed by the tail's jumps
(:func:`_root`): the bundled mixes converge in three to five [-]."""
_TOLERANCE = 1e-10
"""The root find stops where ``P(TTFT > t)`` is within this share of ``1 - q``, or the bracket this narrow [-]."""


@dataclass(frozen=True)
class StratifiedLaw:
    """A length law as nodes ``(level, value)``: uniform between consecutive nodes, a point mass where two share a
    value; levels from 0 to 1, values nondecreasing. Shape ``(..., M + 1)`` each (a leading class axis stacks
    laws, :func:`stack_laws`).

    Attributes
    ----------
    level_fraction
        Cumulative probability at each node [-].
    value
        The length at each node, in units of the law's mean [-].
    """

    level_fraction: Array
    value: Array

    @property
    def spread(self) -> NDArray[np.bool_]:
        """Whether the law is not one point (shape ``(...)``)."""
        return np.asarray(self.value[..., -1] > self.value[..., 0])

    @functools.cached_property
    def tables(self) -> _Survival:
        """The law's survival, density and strata as the root find reads them (:class:`_Survival`), built once per
        law: a scenario's stacked law is cached (:func:`rackcost.scenario.unpack.input_law`), so once a process
        rather than once a fleet. A law's arrays are not to be changed once it is made (the cached ones are read
        only)."""
        return _Survival(self)


def _closed(levels: Array, values: Array, mean: float | None = None) -> StratifiedLaw:
    """Nodes closed at level 1 with the last value, divided by the law's mean (the stratified law's own where
    ``mean`` is None: a CDF table's, exactly)."""
    levels = np.concatenate([levels[:-1], [1.0]]) if levels[-1] < 1.0 else levels
    if mean is None:
        mean = float(np.sum(np.diff(levels) * (values[:-1] + values[1:]) / 2.0))
    law = StratifiedLaw(np.array(levels, dtype=float), np.array(values / mean, dtype=float))
    law.level_fraction.flags.writeable = law.value.flags.writeable = False  # a cached law stays as it is
    return law


def fixed_law() -> StratifiedLaw:
    """One length, the mean: a point mass at 1.

    Examples
    --------
    >>> fixed_law().value.tolist(), bool(fixed_law().spread)
    ([1.0, 1.0], False)
    """
    return StratifiedLaw(np.array([0.0, 1.0]), np.array([1.0, 1.0]))


@functools.lru_cache(maxsize=64)
def lognormal_law(cv_fraction: float) -> StratifiedLaw:
    """A lognormal length of coefficient of variation ``cv`` at :data:`QUANTILE_LEVELS`, over its mean.

    Examples
    --------
    The 99th percentile of a lognormal of cv 1 is ``exp(-s^2 / 2 + 2.326 s)``, ``s^2 = ln 2``: 4.90 times the mean.

    >>> law = lognormal_law(1.0)
    >>> round(float(law.value[list(QUANTILE_LEVELS).index(0.99)]), 3)
    4.905
    """
    if cv_fraction < MIN_SPREAD_CV_FRACTION:
        return fixed_law()
    sigma = math.sqrt(math.log1p(cv_fraction**2))
    with np.errstate(divide="ignore"):
        values = np.exp(-(sigma**2) / 2.0 + sigma * ndtri(QUANTILE_LEVELS))
    return _closed(QUANTILE_LEVELS, values, 1.0)  # in units of the mean already: the nodes are exact quantiles


@functools.lru_cache(maxsize=64)
def gamma_law(cv_fraction: float) -> StratifiedLaw:
    """A gamma length of coefficient of variation ``cv`` (shape ``1 / cv^2``) at :data:`QUANTILE_LEVELS`, over its
    mean.

    Examples
    --------
    cv 1 is the exponential: its 99th percentile is ``ln 100`` times the mean.

    >>> round(float(gamma_law(1.0).value[list(QUANTILE_LEVELS).index(0.99)]), 6) == round(math.log(100), 6)
    True
    """
    if cv_fraction < MIN_SPREAD_CV_FRACTION:
        return fixed_law()
    shape = 1.0 / cv_fraction**2
    return _closed(QUANTILE_LEVELS, np.asarray(gammaincinv(shape, QUANTILE_LEVELS) / shape, dtype=float), 1.0)


def cdf_law(tokens: ArrayLike, cumulative_fraction: ArrayLike) -> StratifiedLaw:
    """An empirical CDF table read as :func:`rackcost.model.workload.classes.cdf_moments` reads it: the first row's
    share a point mass at its length, each later increment uniform since the row before; exact, over the table's mean.

    Examples
    --------
    Half at 100 tokens, half uniform on 100 to 300 (mean 150):

    >>> law = cdf_law([100, 300], [0.5, 1.0])
    >>> law.level_fraction.tolist(), (law.value * 150).round(9).tolist()
    ([0.0, 0.5, 1.0], [100.0, 100.0, 300.0])
    """
    t = np.asarray(tokens, dtype=float)
    f = np.asarray(cumulative_fraction, dtype=float)
    f = f / f[-1]
    return _closed(np.concatenate([[0.0], f]), np.concatenate([t[:1], t]))


def stack_laws(laws: list[StratifiedLaw]) -> StratifiedLaw:
    """Laws of several classes as one of shape ``(K, M + 1)``: each padded with its last node (mass 0).

    Examples
    --------
    >>> stack_laws([fixed_law(), cdf_law([100, 300], [0.5, 1.0])]).value.shape
    (2, 3)
    """
    width = max(law.value.size for law in laws)

    def pad(x: Array) -> Array:
        return np.concatenate([x, np.full(width - x.size, x[-1])])

    return StratifiedLaw(
        np.stack([pad(law.level_fraction) for law in laws]), np.stack([pad(law.value) for law in laws])
    )


def sum_quantile_ms(
    law: StratifiedLaw,
    no_wait_ms: ArrayLike,
    wait_start_ms: ArrayLike,
    waiting_fraction: ArrayLike,
    decay_per_ms: ArrayLike,
    q_fraction: float = 0.99,
) -> Array:
    """The ``q``-quantile of ``Y x + W`` (module docstring): a class's TTFT from its input law and the queue's wait
    [ms].

    Parameters
    ----------
    law
        ``Y``, the input over its mean, shape ``(K, M + 1)`` (one law per class).
    no_wait_ms
        ``x_j``, the class's mean TTFT before queueing at the start occupancy of a request that does not wait, at
        each of :data:`NO_WAIT_LEVELS`, shape ``(..., K, J)`` [ms].
    wait_start_ms
        ``x_c``, the same at the occupancy a waiting request starts at, shape ``(..., K)`` [ms].
    waiting_fraction
        ``C'``, the share of requests that wait, shape ``(..., 1)`` or ``(..., K)`` [-].
    decay_per_ms
        ``theta``, the decay rate of a waiting request's wait, same shape [1/ms].
    q_fraction
        Quantile level [-].

    Returns
    -------
    ndarray
        The quantile, shape ``(..., K)`` [ms].

    Examples
    --------
    Exponential input (``Y`` of mean 1, gamma of cv 1) at 100 ms, every request waiting an exponential of mean 100
    ms: the sum is a gamma of shape 2 and scale 100 ms, whose p99 solves ``(1 + t/100) exp(-t/100) = 0.01``,
    663.8 ms (the grid's quantile, linear between its nodes, puts it 0.2% above):

    >>> law = stack_laws([gamma_law(1.0)])
    >>> t = sum_quantile_ms(law, np.full((1, 7), 100.0), np.array([100.0]), np.array([1.0]), np.array([0.01]))
    >>> round(float(t[0]), 1)
    665.1
    """
    tail = 1.0 - q_fraction
    tails = _class_tails(law, no_wait_ms, wait_start_ms, waiting_fraction, decay_per_ms)
    t, high, queued, _ = _class_start(tails, law, q_fraction)
    return _root(tails[0], t, np.zeros_like(t), high, queued, tail)


def _class_start(
    tails: tuple[Any, ...], law: StratifiedLaw, q_fraction: float
) -> tuple[Array, Array, Array, tuple[Array, ...]]:
    """Each class's first guess, upper end of the bracket and whether the wait's tail rules its quantile; and what
    :func:`_mixture_start` reads of them."""
    _, x_j, x_c, c_w, theta, survival = tails
    tail = 1.0 - q_fraction
    waiting = np.maximum(c_w, 1e-300)
    wait_q = np.maximum(np.log(waiting / tail), 0.0) / theta  # the wait's own quantile
    reach = np.maximum(np.max(x_j, axis=-1), x_c) * law.value[..., -1] + wait_q
    high = reach + 1e-9
    # first guess: the input's quantile at a waiting request's prefill plus the wait's quantile where more than
    # 1 - q wait, else at the mean prefill of one that does not wait
    queued = c_w > tail
    no_wait = np.sum(x_j * NO_WAIT_WEIGHTS, axis=-1)
    guess = np.minimum(np.where(queued, x_c, no_wait) * survival.quantile(q_fraction) + wait_q, high)
    return guess, high, queued, (reach, no_wait, waiting)


def _mixture_start(
    tails: tuple[Any, ...], law: StratifiedLaw, share: Array, q_fraction: float, classes: tuple[Array, ...]
) -> tuple[Array, Array, Array]:
    """The mix's first guess, upper end of the bracket and whether the wait's tail rules its quantile, from the
    classes' (the last of :func:`_class_start`)."""
    _, x_j, x_c, c_w, theta, survival = tails
    reach, no_wait, waiting = classes
    tail = 1.0 - q_fraction
    high = np.max(reach, axis=-1) + 1e-9
    # first guess: the class whose tail is the mix's, read at its own level 1 - (1 - q) / p_k (sum_quantile_ms's
    # guess at that level; a class of share below 1 - q has none), the largest over the classes
    level = 1.0 - tail / np.maximum(share, tail)
    own = np.maximum(tail / np.maximum(share, tail), 1e-300)
    wait_own = np.maximum(np.log(waiting / own), 0.0) / theta
    x_guess = np.where(c_w > own, x_c, no_wait)
    guess = np.where(share > tail, x_guess * survival.quantiles(level) + wait_own, 0.0)
    return np.minimum(np.max(guess, axis=-1), high), high, np.all(c_w > tail, axis=-1)


def class_and_mixture_quantiles_ms(
    law: StratifiedLaw,
    no_wait_ms: ArrayLike,
    wait_start_ms: ArrayLike,
    waiting_fraction: ArrayLike,
    decay_per_ms: ArrayLike,
    share_fraction: ArrayLike,
    q_fraction: float = 0.99,
    classes: ArrayLike | None = None,
) -> tuple[Array, Array]:
    """:func:`sum_quantile_ms` of every class (or of the classes where ``classes`` holds; the others' are not solved
    and are returned as their first guess) and :func:`mixture_quantile_ms` of the mix, in one root find (each step
    evaluates every class's tail once at the classes' and the mix's points, stacked): the same roots, for about
    half the work of the two apart.

    Returns
    -------
    (ndarray, ndarray)
        Each class's quantile, shape ``(..., K)``, and the mix's, ``(...)`` [ms].

    Examples
    --------
    >>> law = stack_laws([gamma_law(1.0), fixed_law()])
    >>> args = (law, np.array([[100.0] * 7, [300.0] * 7]), np.array([100.0, 300.0]), np.array([0.2]), np.array([0.01]))
    >>> both, mix = class_and_mixture_quantiles_ms(*args, np.array([0.5, 0.5]))
    >>> bool(np.allclose(both, sum_quantile_ms(*args), rtol=1e-9))
    True
    >>> bool(np.isclose(mix, mixture_quantile_ms(*args, np.array([0.5, 0.5])), rtol=1e-9))
    True
    """
    tail = 1.0 - q_fraction
    share = np.asarray(share_fraction, dtype=float)
    tails = _class_tails(law, no_wait_ms, wait_start_ms, waiting_fraction, decay_per_ms)
    per_class, x_c = tails[0], tails[2]
    k = x_c.shape[-1]
    t_k, high_k, queued_k, read = _class_start(tails, law, q_fraction)
    t_m, high_m, queued_m = _mixture_start(tails, law, share, q_fraction, read)

    at = np.empty((2, *x_c.shape))  # the classes' points, the mix's (every class at it)

    def tail_and_slope(t: Array) -> tuple[Array, Array]:
        at[0], at[1] = t[..., :k], t[..., k:]
        p, slope = per_class(at)
        return (
            np.concatenate([p[0], (p[1] @ share)[..., None]], axis=-1),
            np.concatenate([slope[0], (slope[1] @ share)[..., None]], axis=-1),
        )

    t = np.concatenate([t_k, t_m[..., None]], axis=-1)
    high = np.concatenate([high_k, high_m[..., None]], axis=-1)
    queued = np.concatenate([queued_k, queued_m[..., None]], axis=-1)
    jumps = _mixture_jumps(tails, law)  # the mix's element only: a class of spread inputs has no jump
    narrow = None if jumps is None else functools.partial(_at_jumps, per_class, share, jumps, x_c.shape, tail)
    wanted = np.ones(k, dtype=bool) if classes is None else np.asarray(classes, dtype=bool)
    skip = np.concatenate([~wanted, [False]])
    out = _root(tail_and_slope, t, np.zeros_like(t), high, queued, tail, skip, narrow)
    return out[..., :k], out[..., k]


def _at_jumps(
    per_class: Any,
    share: Array,
    jumps: Array,
    shape: tuple[int, ...],
    tail: float,
    t: Array,
    low: Array,
    high: Array,
    done: Array,
    slope: Array,
) -> tuple[Array, Array, Array, Array] | None:
    """The root find's narrowing of the mix's element (the last) by its jumps (:func:`_root`), where it is not done
    or done on a flat stretch of the tail (no class's density there: any point of it is within the tolerance, and
    the quantile is the stretch's start, a jump): ``t``, the bracket and ``done`` with those elements' bracket
    narrowed to one smooth stretch (:func:`_across_jumps`), or None where there is none."""
    m = t[..., -1]
    flat = done[..., -1] & (slope[..., -1] == 0.0)
    stuck = np.logical_not(done[..., -1]) | flat
    if not stuck.any():
        return None
    # a flat stretch's from 0 up (the loop's lower end is where the tail was at or above the level: there, past the
    # root)
    low_m, high_m, t_m = _across_jumps(
        per_class, share, jumps, shape, m, np.where(flat, 0.0, low[..., -1]), high[..., -1], tail
    )
    t, low, high, done = t.copy(), low.copy(), high.copy(), np.array(done, dtype=bool)
    t[..., -1] = np.where(stuck, t_m, m)
    low[..., -1] = np.where(stuck, low_m, low[..., -1])
    high[..., -1] = np.where(stuck, high_m, high[..., -1])
    done[..., -1] = done[..., -1] & np.logical_not(stuck)
    return t, low, high, done


_SIDE_FRACTION = 1e-12
"""How far either side of a jump its tail is read, relative to the jump [-]: well inside the root find's
tolerance, well outside a float's rounding of the scaled length."""


def _across_jumps(
    per_class: Any,
    share: Array,
    jumps: Array,
    shape: tuple[int, ...],
    guess: Array,
    low: Array,
    high: Array,
    tail: float,
) -> tuple[Array, Array, Array]:
    """The mix's bracket ``[low, high]`` narrowed to one smooth stretch of its tail, from the tail at both sides of
    jumps (``jumps`` of shape ``(..., M)``): the largest side where the tail is still above the level and the
    smallest where it is not. A root at a jump is then bracketed to within ``2e-12`` of it, where the root find stops
    at once; any other lies where Newton converges. First the two jumps next to ``guess`` (one evaluation of every
    class's tail at four points: the root find's point is close by then, so the root is almost always between or at
    them); where a jump is still inside the bracket, every jump's sides (``2 M`` points).

    Returns
    -------
    (ndarray, ndarray, ndarray)
        The bracket's lower and upper ends and ``guess`` moved into it, each of shape ``(...)`` [ms].
    """
    g = guess[..., None]
    below = np.max(np.where(jumps <= g, jumps, 0.0), axis=-1, keepdims=True)
    above = np.min(np.where(jumps >= g, jumps, high[..., None]), axis=-1, keepdims=True)
    low, high = _bracket(per_class, share, np.concatenate([below, above], axis=-1), shape, low, high, tail)
    if ((jumps > low[..., None]) & (jumps < high[..., None])).any():
        low, high = _bracket(per_class, share, jumps, shape, low, high, tail)
    return low, high, np.minimum(np.maximum(guess, low), high)  # where it was, if it still can be


def _bracket(
    per_class: Any, share: Array, jumps: Array, shape: tuple[int, ...], low: Array, high: Array, tail: float
) -> tuple[Array, Array]:
    """``[low, high]`` narrowed by the mix's tail at both sides of each of ``jumps`` (:func:`_across_jumps`)."""
    m = jumps.shape[-1]
    sides = np.concatenate([jumps * (1.0 - _SIDE_FRACTION), jumps * (1.0 + _SIDE_FRACTION)], axis=-1)
    at = np.broadcast_to(np.moveaxis(sides, -1, 0)[..., None], (2 * m, *shape))
    p = np.moveaxis((share * per_class(at)[0]).sum(axis=-1), 0, -1)
    past = p > tail * (1.0 + _TOLERANCE)  # the root lies past a side whose tail is above the level; on a stretch
    low = np.maximum(low, np.max(np.where(past, sides, 0.0), axis=-1))  # level with it (within tolerance), at its
    return low, np.minimum(high, np.min(np.where(past, np.inf, sides), axis=-1))  # first jump


def _mixture_jumps(tails: tuple[Any, ...], law: StratifiedLaw) -> Array | None:
    """The points where the mix's tail jumps, ``(..., M)`` [ms]: each no-wait prefill time of a class of one
    input length (its tail steps there; a waiting request's and a spread class's parts are continuous). None
    without such a class (:func:`_root`)."""
    _, x_j, _, _, _, _ = tails
    point = ~law.spread
    if not point.any():
        return None
    values = x_j[..., point, :] * law.value[point, :1]
    return values.reshape(*values.shape[:-2], -1)


def mixture_quantile_ms(
    law: StratifiedLaw,
    no_wait_ms: ArrayLike,
    wait_start_ms: ArrayLike,
    waiting_fraction: ArrayLike,
    decay_per_ms: ArrayLike,
    share_fraction: ArrayLike,
    q_fraction: float = 0.99,
) -> Array:
    """The ``q``-quantile of the TTFT of a request drawn from the mix: the root of ``sum_k p_k P(Y_k x_k + W > t) =
    1 - q`` over every class (a class of one input length as a point law), the classes waiting in the one queue
    [ms].

    Parameters are :func:`sum_quantile_ms`'s, with ``share_fraction`` each class's share ``p_k`` (shape ``(K,)``,
    summing to 1); returns shape ``(...)``.

    Examples
    --------
    Two classes of one input length, 100 and 1,000 ms of prefill, 90% and 10% of requests, nothing waiting: 10% of
    requests take 1,000 ms, so the p99 is 1,000 ms and the p80 100 ms; one class alone gives its own quantile.

    >>> law = stack_laws([fixed_law(), fixed_law()])
    >>> x = np.array([[100.0] * 7, [1000.0] * 7])
    >>> args = (law, x, np.array([100.0, 1000.0]), np.array([0.0]), np.array([1.0]))
    >>> round(float(mixture_quantile_ms(*args, np.array([0.9, 0.1]), 0.99)), 3)
    1000.0
    >>> round(float(mixture_quantile_ms(*args, np.array([0.9, 0.1]), 0.8)), 3)
    100.0
    """
    k = law.value.shape[0]  # one law per class
    # the joint root find with no class's own root asked for: only the mix's element iterates
    return class_and_mixture_quantiles_ms(
        law, no_wait_ms, wait_start_ms, waiting_fraction, decay_per_ms, share_fraction, q_fraction, np.zeros(k, bool)
    )[1]


def _class_tails(
    law: StratifiedLaw,
    no_wait_ms: ArrayLike,
    wait_start_ms: ArrayLike,
    waiting_fraction: ArrayLike,
    decay_per_ms: ArrayLike,
) -> tuple[Any, Array, Array, Array, Array, _Survival]:
    """Each class's ``P(TTFT > t)`` and its derivative as a function of ``t`` (shape ``(..., K)``), and the
    arrays it reads (module docstring; parameters as :func:`sum_quantile_ms`)."""
    x_j = np.maximum(np.asarray(no_wait_ms, dtype=float), 1e-300)
    x_c = np.maximum(np.asarray(wait_start_ms, dtype=float), 1e-300)
    c_w = np.asarray(waiting_fraction, dtype=float)
    theta = np.maximum(np.asarray(decay_per_ms, dtype=float), 1e-300)
    x_c, c_w, theta = broadcast_few(x_c, c_w, theta)
    survival = law.tables
    # the wait's part: each stratum [a, b] of Y x_c, for the convolution with the exponential wait, in units of the
    # wait's mean (theta a and theta b: the convolution reads only these)
    th = theta[..., None]
    wait_x = (x_c * theta)[..., None]
    a, b = survival.lo * wait_x, survival.hi * wait_x
    # the sign of -expm1 below is taken into the spread strata's mass
    spread_mass = -survival.strata_density / x_c[..., None] / th
    lumped, lump, a_lump = survival.lumped, survival.lump, survival.lump_lo * wait_x
    scale = np.concatenate([x_j, x_c[..., None]], axis=-1)  # the no-wait levels and the waiting request's
    weights = np.concatenate([NO_WAIT_WEIGHTS * (1.0 - c_w[..., None]), c_w[..., None]], axis=-1)
    no_wait_slope = -(weights / scale)[..., :-1]  # d/dt of P(Y x_j > t) is -f(t / x_j) / x_j

    def tail_and_slope(t: Array) -> tuple[Array, Array]:
        """``P(TTFT > t)`` and its derivative in ``t``."""
        above, density = survival(t[..., None] / scale)
        u = t[..., None] * th  # t in units of the wait's mean
        # a uniform stratum [a, b]: exp(-(t - min(b, t))) (1 - exp(-(min(b, t) - a))), 0 for t <= a
        spread = np.exp(np.minimum(b - u, 0.0)) * np.expm1(np.minimum(a - np.minimum(b, u), 0.0))
        convolved = (spread_mass * spread).sum(axis=-1)
        if lumped.size:  # a point mass at a: exp(-(t - a)) for t >= a
            convolved += (lump * ((a_lump <= u) * np.exp(np.minimum(a_lump - u, 0.0)))).sum(axis=-1)
        p = (weights * above).sum(axis=-1) + c_w * convolved
        # the waiting request's density cancels against the convolution's (d/dt of S + E is -theta E)
        return p, (no_wait_slope * density[..., :-1]).sum(axis=-1) - c_w * theta * convolved

    return tail_and_slope, x_j, x_c, c_w, theta, survival


def _root(
    tail_and_slope: Any,
    t: Array,
    low: Array,
    high: Array,
    queued: Any,
    tail: float,
    skip: Any = False,
    narrow: Any = None,
) -> Array:
    """The root of ``P(TTFT > t) = tail`` in ``[low, high]`` from ``t`` (safeguarded Newton, module docstring);
    elements where ``skip`` holds keep ``t`` (not needed: they cost no iterations).

    ``narrow``: where the tail jumps (the mix with a class of one input length: :func:`_at_jumps`), the bracket's
    narrowing to one smooth stretch, once: when every element is done, or after :data:`_NARROW_AFTER` evaluations
    where some is not. A root at a jump is where Newton cannot go (the tail steps over the level) and bisection
    takes about 33 steps to the tolerance; one on a flat stretch is its start. A root elsewhere needs none: the
    narrowing costs an evaluation only where one is stuck, not before every root find.
    """
    done = np.array(broadcast_to_few(skip, t.shape), dtype=bool)
    narrowed = narrow is None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a zero tail's log: the step bisects
        for i in range(_NEWTON_STEPS):
            p, slope = tail_and_slope(t)
            low = np.where(p >= tail, t, low)
            high = np.where(p <= tail, t, high)
            off = p - tail
            done |= (np.abs(off) <= _TOLERANCE * tail) | (high - low <= _TOLERANCE * high)
            if not narrowed and (i + 1 >= _NARROW_AFTER or done.all()):
                narrowed = True
                moved = narrow(t, low, high, done, slope)
                if moved is not None:  # evaluate the moved elements where they now are
                    t, low, high, done = moved
                    continue
            if done.all():
                break
            # Newton on log P where the wait's exponential tail dominates (nearly linear there), on P elsewhere
            # (piecewise linear without a wait); a step that leaves the bracket bisects it
            step = t - np.where(queued, np.log(p / tail) * p, off) / slope
            step = np.where((step > low) & (step < high), step, (low + high) / 2.0)
            t = np.where(done, t, step)
    return np.asarray(t, dtype=float)


class _Survival:
    """``P(Y > y)`` and the density of ``Y`` for each class's stratified law, at ``y`` of shape ``(..., K, L)``
    (``L`` scales of each class), by one sorted search over every class's nodes (each class's shifted into a range
    of its own)."""

    def __init__(self, law: StratifiedLaw) -> None:
        values, levels = law.value, law.level_fraction
        k, nodes = values.shape
        shift = (float(values.max()) + 1.0) * np.arange(k)
        self.first, self.last = values[:, :1], values[:, -1:]
        self.shift = shift[:, None]
        self.first_shifted, self.last_shifted = self.first + self.shift, self.last + self.shift
        self.xp = (values + self.shift).ravel()
        width = np.diff(values, axis=-1)
        inv = np.where(width > 0, 1.0 / np.where(width > 0, width, 1.0), 0.0)
        self.levels = levels.ravel()
        # the density on each stratum (0 past a class's last node)
        self.slope = np.concatenate([np.diff(levels, axis=-1) * inv, np.zeros((k, 1))], axis=-1).ravel()
        self.law = law
        # the strata [lo, hi] for the convolution with the wait: a uniform one's mass over its width, and the point
        # masses only where a class has one (a CDF table's first row, a class of one length; the padding's strata
        # have no mass), so that their terms are a few columns, not every stratum's
        self.lo, self.hi = values[:, :-1], values[:, 1:]
        mass = np.diff(levels, axis=-1)
        point = self.hi <= self.lo
        self.strata_density = mass * np.where(point, 0.0, 1.0 / np.where(point, 1.0, self.hi - self.lo))
        self.lumped = np.flatnonzero((mass * point > 0).any(axis=0))
        self.lump, self.lump_lo = (mass * point)[:, self.lumped], self.lo[:, self.lumped]
        self._quantiles: dict[tuple[float, ...], Array] = {}

    def __call__(self, y: Array) -> tuple[Array, Array]:
        """Survival and density at ``y`` [-]."""
        ys = y + self.shift
        yc = ys.clip(self.first_shifted, self.last_shifted)  # ndarray.clip: np.clip without its dispatch
        # the node at or below each length, within its class's (the shift keeps the classes apart): at the last
        # node, its level 1 and no density
        i = np.searchsorted(self.xp, yc, side="right")
        i -= 1
        density = self.slope[i]
        cdf = self.levels[i] + density * (yc - self.xp[i])
        # below the first node every request is longer (a point mass there is not below it); the density only inside
        survival = np.where(ys < self.first_shifted, 1.0, 1.0 - np.minimum(cdf, 1.0))
        return survival, density * (yc == ys)

    def quantiles(self, q_fraction: Array) -> Array:
        """Each class's quantile of ``Y`` at its own level, ``q_fraction`` of shape ``(K,)`` [-] (kept per set of
        levels: a mix asks the same ones every time)."""
        key = tuple(float(q) for q in q_fraction)
        if key not in self._quantiles:
            law = self.law
            out = np.array([np.interp(q, law.level_fraction[k], law.value[k]) for k, q in enumerate(key)])
            out.flags.writeable = False
            self._quantiles[key] = out
        return self._quantiles[key]

    def quantile(self, q_fraction: float) -> Array:
        """Each class's ``q``-quantile of ``Y`` [-]."""
        return self.quantiles(np.full(self.law.value.shape[0], q_fraction))
