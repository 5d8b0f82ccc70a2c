"""Latency percentiles that include load variation: the occupancy a request starts at (docs/model.md, step 6).

A replica's TTFT and TPOT depend on how many requests it serves, and that number varies from request to request
around its mean. :mod:`rackcost.model.fleets.demand` reads the mean figures (utilisation, service time, cost,
acceptance) at the mean occupancy; the reported p99 TTFT and TPOT are read here from the distribution of the occupancy a
request starts at, which is what the simulator (:mod:`rackcost.model.sim.simulation`) measures.

The queue is the one the model solves (:mod:`rackcost.model.queues.routing`): a pool of ``k`` slots fed at ``lambda``
with mean service ``S``, ``a = lambda S``. Under ``pooled`` and ``least_outstanding`` the pool is every slot of the
``N`` replicas (``k = N c``) and the router keeps the replicas balanced, so with ``K < k`` slots busy an arrival
starts on the least-occupied replica at occupancy ``floor(K / N) + 1`` (itself included); under ``random`` each
replica is its own pool (``k = c``, ``N = 1`` here, rate ``lambda / N``). By PASTA an arrival finds the stationary
law of the M/M/k queue: ``K < k`` busy slots with probability proportional to ``a^K / K!`` (a Poisson law truncated
at ``k``, of total mass ``1 - C``, ``C`` the Erlang C delay probability), else it waits and starts at ``c``, the
replica that just freed a slot being full again. With TTFT nondecreasing in the occupancy, the ``q``-quantile of
``TTFT(start) + W`` is::

    TTFT(c) + w_q                 where C > 1 - q (w_q the model's wait quantile),
    TTFT(L)                       otherwise, L = ceil((x_q + 1) / N) clipped to 1..c,

``x_q`` the least integer with ``P(K <= x_q) = (1 - C) F(x_q) / F(k - 1) >= q`` (``F`` the Poisson CDF of mean
``a``): ``P(start > L) = P(K >= L N) <= 1 - q``. The TPOT percentile is read at the same level ``L`` (the
simulator does not measure TPOT; it is the occupancy percentile, not a checked figure). With bursty arrivals the
queue is the M/M/k of slots and rates divided by the variability ``v`` (:mod:`rackcost.model.queues.burstiness`), so
``K`` counts slots of that queue and the occupancy is ``K v / N``.

Everything is closed form (:func:`scipy.special.pdtr` and its inverse :func:`scipy.special.pdtrik`), vectorised over
demand points and samples: no loop and no state array, whatever the pool size.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtri, pdtr, pdtrik

from rackcost.model.queues.erlang import (
    all_of,
    any_of,
    broadcast_few,
    broadcast_to_few,
    erlang_c_checked,
    indices_of,
    poisson_cdf,
    poisson_pmf,
)
from rackcost.model.replica.performance import LoadCurve

__all__ = [
    "MAX_SERVICE_ELASTICITY",
    "conditional_wait_rate",
    "occupancy_spread",
    "start_occupancy_quantile",
    "waiting_share",
]

Array = NDArray[np.float64]

MAX_SERVICE_ELASTICITY = 0.9
"""The elasticity ``n S'(n) / S(n)`` of the service time is held below this in :func:`occupancy_spread` (the spread
is then at most 10): at 1 a replica's completion rate stops rising with its occupancy [-]."""


def occupancy_spread(load: LoadCurve, in_service: ArrayLike, service_s: ArrayLike | None = None) -> Array:
    """How much wider the occupancy law is than the M/M/k one when the service time rises with occupancy [-].

    A replica at occupancy ``n`` completes ``mu(n) = n / S(n)`` requests a second. Near the mean occupancy, where
    ``mu`` equals the arrival rate ``lambda``, the birth-death law of the occupancy is about normal with variance
    ``lambda / mu'(n)`` (its diffusion approximation), and ``mu'(n) = (1 - e) / S(n)`` with ``e = n S'(n) / S(n)``
    the service time's elasticity: the variance is the M/M/k one, ``a``, times ``1 / (1 - e)``. The occupancy
    queue is then solved with slots and load divided by that spread, as bursty arrivals are
    (:mod:`rackcost.model.queues.burstiness`). 1 for a flat service time (every one-point curve).

    Parameters
    ----------
    load
        The replica's load curve.
    in_service
        Mean occupancy per replica at each point [requests].
    service_s
        ``load.service_at(in_service)`` where the caller has it (the same figure; saves a search) [s].

    Examples
    --------
    ``S = 1 + n / 10`` at ``n = 10``: ``e = 1 / 2``, the law twice as wide.

    >>> from rackcost.model.replica.performance import LoadCurve
    >>> curve = LoadCurve(np.array([0.0, 20.0]), np.array([[1.0, 3.0]]), np.zeros(2), np.zeros(2), None, 20.0)
    >>> round(float(occupancy_spread(curve, np.array([[10.0]]))[0, 0]), 6)
    2.0
    """
    n = np.asarray(in_service, dtype=float)
    if n.ndim < 2:  # a sample axis first, as the curve's figures have it
        n = n.reshape(1, -1) if n.ndim == 1 else n.reshape(1, 1)
    h = 1e-6 * np.maximum(n, 1.0)
    below = np.maximum(n - h, 0.0)
    # S at both ends of the difference in one search of the curve (each element as two calls would give it); the
    # two ends filled into one new array, np.stack's values without its Python steps, n + h computed once
    above = n + h
    ends = np.empty((2, *n.shape))
    ends[0] = above
    ends[1] = below
    above_s, below_s = load.service_at(ends)
    slope = (above_s - below_s) / (above - below)
    at_s = load.service_at(n) if service_s is None else np.asarray(service_s, dtype=float)
    elasticity = (n * slope / at_s).clip(-MAX_SERVICE_ELASTICITY, MAX_SERVICE_ELASTICITY)
    return np.asarray(1.0 / (1.0 - elasticity), dtype=float)


def conditional_wait_rate(
    one_queue: ArrayLike,
    central_queue: ArrayLike,
    replicas_per_pool: ArrayLike,
    slots_per_replica: ArrayLike,
    arrival_rps: ArrayLike,
    full_service_s: ArrayLike,
    variability: ArrayLike = 1.0,
) -> Array:
    """Decay rate of ``P(W > t | W > 0)``, the wait of a request that finds no free slot [1/s].

    A request waits only where every slot it can use is busy, so the completion rates are those of full replicas,
    ``c / S(c)`` each (``full_service_s`` is ``S(c)``, the chosen point's holding time).

    - A central queue (``pooled``) over ``k = N c`` slots, or one replica under ``random`` (``N = 1``): the
      M/M/k conditional wait, exponential at ``(k / S - lambda) / v`` (:mod:`rackcost.model.queues.burstiness`).
    - ``least_outstanding``: each replica keeps its own FIFO queue and a request joins the least loaded one, so it
      waits for completions on *its* replica, at ``mu = c / S`` each, not on the first of ``k`` slots. With ``Q``
      requests queued over the fleet it finds ``floor(Q / N)`` ahead of it; ``Q`` at an arrival that waits is
      geometric with per-level ratio ``sigma = 1 - (1 - rho) / v`` (the pooled queue's, ``rho = lambda S / k``),
      so the requests it waits for are geometric with ratio ``sigma^N`` and their sum of exponential completions
      is exponential at ``mu (1 - sigma^N)`` (a geometric sum of exponentials; e.g. Ross, *Introduction to
      Probability Models*, 2014, Sec. 5.2.3). One replica (``N = 1``) gives the M/M/c rate back; many give
      ``mu``: a replica's completion rate, far slower than the pool's (DGX B200, 111 replicas of 32 slots at 240
      rps: 2.3/s against the pool's 13/s, what the simulator shows).

    Parameters
    ----------
    one_queue, central_queue
        Whether the routing is solved as one queue over the fleet and whether that queue is central.
    replicas_per_pool
        Replicas ``N`` of that queue (1 under ``random``) [-].
    slots_per_replica
        Slots ``c`` per replica [slots].
    arrival_rps
        Arrival rate into the queue [requests/s].
    full_service_s
        Holding time of a full replica ``S(c)`` [s].
    variability
        The G/G/c variability ``v`` [-].

    Examples
    --------
    Pooled M/M/2 at lambda = 1/s, S = 1 s decays at ``k / S - lambda = 1``; two one-slot replicas under least
    outstanding at ``1 (1 - 0.5^2) = 0.75``:

    >>> [float(conditional_wait_rate(True, central, 2, 1, 1.0, 1.0)) for central in (True, False)]
    [1.0, 0.75]
    """
    args = (replicas_per_pool, slots_per_replica, arrival_rps, full_service_s, variability)
    return _wait_rates(one_queue, central_queue, *args)[1]


def _wait_rates(
    one_queue: ArrayLike,
    central_queue: ArrayLike,
    replicas_per_pool: ArrayLike,
    slots_per_replica: ArrayLike,
    arrival_rps: ArrayLike,
    full_service_s: ArrayLike,
    variability: ArrayLike,
) -> tuple[Array, Array]:
    """:func:`conditional_wait_rate` of a central queue and under the routing, from one set of arrays (what
    :func:`waiting_share` asks; it took two calls, the pooled rate computed in each) [1/s]."""
    n = np.asarray(replicas_per_pool, dtype=float)
    c = np.asarray(slots_per_replica, dtype=float)
    lam = np.asarray(arrival_rps, dtype=float)
    s = np.asarray(full_service_s, dtype=float)
    v = np.asarray(variability, dtype=float)
    k = n * c
    pooled = np.asarray((k / s - lam) / v, dtype=float)
    central = np.asarray(central_queue, dtype=bool) | ~np.asarray(one_queue, dtype=bool)
    if all_of(central):  # a central queue everywhere: the per-replica rate is not read (the same figures, for less)
        shape = np.broadcast(pooled, central).shape  # (np.broadcast_shapes' result, without its Python steps)
        return pooled, pooled if pooled.shape == shape else np.broadcast_to(pooled, shape).copy()
    rho = np.clip(lam * s / k, 0.0, 1.0)
    sigma = np.clip(1.0 - (1.0 - rho) / v, 0.0, 1.0)
    per_replica = c / s * -np.expm1(n * np.log(np.maximum(sigma, np.finfo(float).tiny)))
    return pooled, np.asarray(np.where(central, pooled, per_replica), dtype=float)


def waiting_share(
    delay: ArrayLike,
    one_queue: ArrayLike,
    central_queue: ArrayLike,
    replicas_per_pool: ArrayLike,
    slots_per_replica: ArrayLike,
    arrival_rps: ArrayLike,
    full_service_s: ArrayLike,
    variability: ArrayLike = 1.0,
) -> tuple[Array, Array]:
    """Share of requests that wait, and the decay rate of a waiting request's wait, under the routing
    ([fraction], [1/s]).

    ``delay`` is the delay probability ``C`` of the occupancy queue (Erlang C of the pool, slots and load divided by
    the variability and the spread): exact for a central queue and for ``random`` (one replica's own queue), and
    the wait decays at the pooled rate ``theta`` of :func:`conditional_wait_rate`. Under ``least_outstanding`` the
    queued requests are those of the pooled queue (join-the-shortest-queue collapses onto the pooled queue in heavy
    traffic: P. Eschenfeldt and D. Gamarnik, "Join the shortest queue with many servers. The heavy-traffic
    asymptotics", *Mathematics of Operations Research* 43(3), 2018, 867-886), so by Little's law the mean wait
    ``C / theta`` is the pooled one; but a waiting request waits on its own replica, at the slower rate ``r``
    of :func:`conditional_wait_rate`, while a replica that frees a slot takes the next arrival at once. Fewer
    requests wait, each longer: ``C r / theta`` of them, their wait exponential at ``r`` (DGX B200, 111 replicas of
    32 slots at 240 rps: ``C`` 1.8%, 0.6% waiting, against 0.9 +- 0.7% simulated, their wait decaying at 2.1/s
    against 2.0/s).

    Examples
    --------
    Two one-slot replicas at lambda = 1/s, S = 1 s, with ``C = 1/3``: pooled, a third wait, their wait decaying at
    1/s; under least outstanding a quarter, at 0.75/s.

    >>> [round(float(x), 6) for x in waiting_share(1 / 3, True, True, 2, 1, 1.0, 1.0)]
    [0.333333, 1.0]
    >>> [round(float(x), 6) for x in waiting_share(1 / 3, True, False, 2, 1, 1.0, 1.0)]
    [0.25, 0.75]
    """
    args = (replicas_per_pool, slots_per_replica, arrival_rps, full_service_s, variability)
    theta, rate = _wait_rates(one_queue, central_queue, *args)  # (the central queue's rate, and the routing's)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(theta > 0, np.minimum(rate / np.where(theta > 0, theta, 1.0), 1.0), 1.0)
    return np.asarray(np.asarray(delay, dtype=float) * ratio, dtype=float), rate


def _poisson_quantile(p: Array, a: Array) -> Array:
    """The least integer ``x >= 0`` with ``F(x) >= p``, ``F`` the Poisson CDF of mean ``a`` (vectorised).

    A Cornish-Fisher first guess, ``a + z sqrt(a) + (z^2 - 1) / 6``, moved by whole steps while ``F`` says it is off
    (a step or two at most for the levels used here); the few it does not settle go to :func:`scipy.special.pdtrik`,
    which is exact but several times slower.

    Examples
    --------
    >>> _poisson_quantile(np.array([0.99, 0.5, 0.0]), np.array([5.0, 40.0, 3.0])).tolist()
    [11.0, 40.0, 0.0]
    """
    z = _normal_quantile(p).clip(-40.0, 40.0)  # p = 0 gives -inf (ndarray.clip: np.clip without its dispatch)
    x = np.maximum(np.floor(a + z * np.sqrt(a) + (z * z - 1.0) / 6.0), 0.0)
    shape = x.shape
    x, p, a = x.reshape(-1), broadcast_to_few(p, shape).reshape(-1), broadcast_to_few(a, shape).reshape(-1)
    # Each step checks only the elements the previous one moved (a settled element stays settled). scipy's CDF is
    # the costly part: it is asked once, at the first guess; after that F(x - 1) = F(x) - f(x) and
    # F(x + 1) = F(x) + f(x + 1) (f the Poisson term) give the CDF at the next integers, and a comparison with p is
    # taken from them where they are more than _CDF_MARGIN from p (their errors, below 1e-13 a step, cannot change
    # its side), from scipy's CDF where they are not. So every decision, and the answer, is the one of asking scipy
    # at every step, bit for bit (tests/test_occupancy.py checks it against that search).
    # (the masks are turned into indices once each: the gathers and scatters by them cost less)
    todo = None  # every element, at the first step
    cdf = pdtr(x, a)  # F(x) at the current x of every element still to settle (exact here, estimated after)
    for _ in range(_QUANTILE_STEPS):
        xs, ps, as_ = (x.copy(), p, a) if todo is None else (x[todo], p[todo], a[todo])
        up = _below(cdf, xs, as_, ps)  # too low: F(x) < p
        down = ~up & (xs > 0)
        lower = cdf.copy()
        at = indices_of(down)
        x_at, a_at = xs[at], as_[at]
        lower[at] -= poisson_pmf(x_at, a_at)  # F(x - 1)
        down[at] = ~_below(lower[at], x_at - 1.0, a_at, ps[at])  # too high: F(x - 1) >= p already
        moved = indices_of(up | down)
        if not moved.size:
            return x.reshape(shape)
        if todo is None:
            x[:] = xs + up - down
        else:
            x[todo] = xs + up - down
        # the CDF at the new x of the elements that moved: one term more (up), or the F(x - 1) above (down)
        at = indices_of(up)
        lower[at] += poisson_pmf(xs[at] + 1.0, as_[at])
        cdf = lower[moved]
        todo = moved if todo is None else todo[moved]
    assert todo is not None  # (the loop took at least one step)
    xs, ps, as_ = x[todo], p[todo], a[todo]
    left = (pdtr(xs, as_) < ps) | ((xs > 0) & (pdtr(xs - 1.0, as_) >= ps))
    if left.any():  # pragma: no cover - the first guess is within a few steps for every level a p99 asks
        x[todo[left]] = np.maximum(np.ceil(pdtrik(ps[left], as_[left]) - 1e-9), 0.0)
    return x.reshape(shape)


def _normal_quantile(p: Array) -> Array:
    """:func:`scipy.special.ndtri` of ``p``, bit for bit, evaluated once for the elements equal to the first.

    Most levels :func:`_poisson_quantile` is asked are the same number (the p99 itself, wherever the pool's
    Erlang C is below an ulp of 1 and the Poisson law below its size is whole): 92-96% in the default scenario's
    Monte Carlo. scipy's ``ndtri`` costs about 57 ns an element on this machine (7.3 ms for a block's 128,000), and
    the same argument gives the same result, so it is asked once for that level and for the other elements only.
    """
    flat = np.reshape(p, -1)
    if flat.size < 2:
        return np.asarray(ndtri(p), dtype=float)
    level = flat[0]
    out = np.full(flat.shape, ndtri(level))
    other = indices_of(flat != level)  # (a NaN level is unequal to itself: every element is then asked)
    if other.size:  # (mostly none: scipy on no element still cost a gather, a call and a scatter)
        out[other] = ndtri(flat[other])
    return out.reshape(np.shape(p))


def _below(cdf: Array, x: Array, a: Array, p: Array) -> NDArray[np.bool_]:
    """Whether ``pdtr(x, a) < p``, given ``cdf``, that CDF or an estimate of it within 1e-12, for 1-d arrays.

    Where ``cdf`` is more than :data:`_CDF_MARGIN` from ``p`` its side of ``p`` is scipy's; only the few within the
    margin ask scipy.
    """
    out = cdf < p
    near = np.abs(cdf - p) <= _CDF_MARGIN
    if any_of(near):
        out[near] = pdtr(x[near], a[near]) < p[near]
    return out


_CDF_MARGIN = 1e-9
"""Distance from ``p`` within which :func:`_below` asks scipy for the CDF [-]: the errors of scipy's CDF and of the
Poisson terms (:func:`rackcost.model.queues.erlang.poisson_pmf`) summed over the few steps are below 1e-12; the margin
is 1,000 times that."""

_QUANTILE_STEPS = 4
"""Whole steps :func:`_poisson_quantile` takes from its first guess before it asks the exact inverse [-]."""


def start_occupancy_quantile(
    q_fraction: float | ArrayLike,
    replicas_per_pool: ArrayLike,
    slots_per_replica: ArrayLike,
    pool_slots: ArrayLike,
    offered_load: ArrayLike,
    variability: ArrayLike = 1.0,
    delay_fraction: ArrayLike | None = None,
) -> Array:
    """The ``q``-quantile of the occupancy a request starts at, on its replica (module docstring) [requests].

    Parameters
    ----------
    q_fraction
        Quantile level q in (0, 1), or an array of levels that broadcasts against the other arguments [fraction].
    replicas_per_pool
        Replicas that share one queue: ``N`` for pooled routings, 1 for ``random`` [-].
    slots_per_replica
        Slots per replica ``c`` (the scheduler's limit) [requests].
    pool_slots
        Slots ``k`` of the pool's M/M/k queue (divided by the variability for bursty arrivals) [slots].
    offered_load
        Offered load ``a = lambda S`` of that queue, ``a < k`` [erlangs].
    variability
        The G/G/c variability ``v`` that divided the slots and rates (1 for Poisson) [-].
    delay_fraction
        That queue's Erlang C, ``C(k, a)``, when the caller has it already (it is then not computed again) [fraction].

    Returns
    -------
    ndarray
        The start occupancy ``L``, between 1 and ``c`` [requests].

    Examples
    --------
    One replica of 2 slots at ``a = 1``: an arrival finds 0, 1 or 2+ busy slots with probability 1/3, 1/3, 1/3
    (M/M/2: ``p_0 = p_1 = 1/3``, ``C = 1/3``), so it starts at occupancy 1, 2 or 2: the median is 2, the 30th
    percentile 1.

    >>> float(start_occupancy_quantile(0.5, 1, 2, 2, 1.0)), float(start_occupancy_quantile(0.3, 1, 2, 2, 1.0))
    (2.0, 1.0)
    """
    n = np.asarray(replicas_per_pool, dtype=float)
    c = np.asarray(slots_per_replica, dtype=float)
    k = np.asarray(pool_slots, dtype=float)
    a = np.asarray(offered_load, dtype=float)
    v = np.asarray(variability, dtype=float)
    n, c, k, a, v = broadcast_few(n, c, k, a, v)
    delay = erlang_c_checked(k, a) if delay_fraction is None else broadcast_to_few(delay_fraction, k.shape)
    q = np.asarray(q_fraction, dtype=float)
    if q.ndim:  # several levels (rackcost.model.queues.class_ttft): broadcast against the queue's figures
        q, n, c, k, a, v, delay = broadcast_few(q, n, c, k, a, v, delay)
    # C > 1 - q: the quantile falls among the requests that wait, and they start at c; where nothing is in service
    # every request starts alone. The Poisson quantile is taken only where neither holds (it is the costly part).
    start = np.where(delay > 1.0 - q, c, 1.0)
    # the elements to solve as flat indices, once (a gather by indices costs less than by a mask; each array is
    # read in C order, as the mask reads it)
    solve = indices_of((delay <= 1.0 - q) & (a > 0))
    if solve.size:
        ks, as_, vs, ns = (x.reshape(-1)[solve] for x in (k, a, v, n))
        qs = q.reshape(-1)[solve] if q.ndim else q
        # P(K <= x) = (1 - C) F(x) / F(k - 1) on K < k: the least integer x with it >= q
        below_k = poisson_cdf(ks - 1.0, as_)  # P(K < k): mostly exactly 1, known without the incomplete gamma
        waits = delay.reshape(-1)[solve]
        target = np.minimum(qs * below_k / np.maximum(1.0 - waits, np.finfo(float).tiny), below_k)
        x_q = _poisson_quantile(target.clip(0.0, 1.0 - 1e-15), as_)
        start.reshape(-1)[solve] = np.ceil((x_q + 1.0) * vs / ns - 1e-9)
    return np.asarray(start.clip(1.0, c), dtype=float)
