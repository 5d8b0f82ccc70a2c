"""How the load balancer spreads requests over replicas, and the queue each router makes of the fleet.

A fleet is ``N`` replicas of ``c`` request slots each, fed by Poisson arrivals at ``lambda`` [requests/s], each
request holding a slot for an exponentially distributed time with mean ``S`` [s] (see
:mod:`rackcost.model.queues.queueing`).
What the fleet can serve within a wait SLO depends on the router in front of it (``fleet.routing``):

``pooled``
    One central queue: any free slot anywhere takes the next request. The fleet is one M/M/k queue over all
    ``k = N c`` slots (the pooled forms of :mod:`rackcost.model.queues.queueing`).
``least_outstanding``
    Each request goes to the replica with the fewest requests in flight (join-the-shortest-queue). No closed form
    exists; the pooled M/M/k is used, which rackcost's discrete-event simulator found within about 2% on capacity at
    SLO for 32 slots or more (docs/model.md, Routing).
``random``
    Each request goes to a replica drawn uniformly at random, independently of the others. Poisson splitting makes
    every replica an independent M/M/c queue at ``lambda / N``: exact, and a pessimistic bound for any router that
    looks at the replicas' load.
``power_of_two``, ``round_robin``
    No closed form, and none calibrated: every function here refuses them with :class:`RoutingNotAnalytic`, which
    points to the simulator (``rackcost simulate --routing ...``).

Each router is an object of :mod:`rackcost.model.queues.routers`, which names the queue solved for it
(:data:`rackcost.model.queues.routers.POOLED` or :data:`rackcost.model.queues.routers.SPLIT`); the functions here ask
it, so a registered router is solved as the queue it names.

Every function takes the routing as its first argument (a plain string) and is vectorised like
:mod:`rackcost.model.queues.queueing`: the numeric arguments broadcast against each other (a leading sample axis, shape
``(n, 1)`` against ``(n, points)``, works), replica counts are int64.

References
----------
.. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, Sec. 3.5 (M/M/m) and Sec. 2.5 (a Poisson
       stream split at random is Poisson).
.. [2] D. R. Smith and W. Whitt, "Resource sharing for efficiency in traffic systems", *Bell System Technical
       Journal* 60(1), 39-55, 1981 (pooled queues need no more servers than separate ones).
.. [3] A. O. Allen, *Probability, Statistics and Queueing Theory with Computer Science Applications*, 2nd ed.,
       Academic Press, 1990, Sec. 6 (the Allen-Cunneen approximation for M/G/k).
"""

from __future__ import annotations

import numpy as np

from rackcost.model.queues.erlang import ArrayLike, FloatArray, IntArray
from rackcost.model.queues.routers import AnalyticQueue, Router, router_names, router_of

__all__ = [
    "RoutingNotAnalytic",
    "analytic_queue",
    "capacity_at_slo",
    "check_routing",
    "replicas_needed",
    "wait_tail",
    "wait_tails",
]


class RoutingNotAnalytic(ValueError):
    """The routing has no analytic form in the model: only the simulator evaluates it.

    Parameters
    ----------
    routing : str
        The routing asked for.
    """

    def __init__(self, routing: str) -> None:
        self.routing = routing
        super().__init__(
            f"routing {routing!r} has no analytic form in the model (no closed-form queue exists for it, and the "
            f"pooled M/M/k would be optimistic); run `rackcost simulate --routing {routing}` to evaluate it, or "
            f"choose one of {', '.join(sorted(router_names(analytic=True)))}"
        )


def check_routing(routing: str | Router) -> Router:
    """Check that a routing is known and has an analytic form.

    Parameters
    ----------
    routing : str or Router
        A registered router (:mod:`rackcost.model.queues.routers`) or its name.

    Returns
    -------
    Router
        The router.

    Raises
    ------
    RoutingNotAnalytic
        For ``power_of_two`` and ``round_robin``.
    ValueError
        For a name that is not a routing.

    Examples
    --------
    >>> check_routing("least_outstanding").name
    'least_outstanding'
    >>> check_routing("round_robin")
    Traceback (most recent call last):
    ...
    rackcost.model.queues.routing.RoutingNotAnalytic: routing 'round_robin' has no analytic form in the model (no \
closed-form queue exists for it, and the pooled M/M/k would be optimistic); run `rackcost simulate --routing \
round_robin` to evaluate it, or choose one of least_outstanding, pooled, random
    """
    router = router_of(routing)
    if router.queue is None:
        raise RoutingNotAnalytic(router.name)
    return router


def analytic_queue(routing: str | Router) -> AnalyticQueue:
    """The queue the model solves under a routing (:attr:`rackcost.model.queues.routers.Router.queue`); refuses a
    routing without one as :func:`check_routing` does.

    Examples
    --------
    Least outstanding is solved as one queue over the fleet's slots, random as one queue per replica:

    >>> analytic_queue("least_outstanding").pooled, analytic_queue("random").pooled
    (True, False)
    """
    queue = check_routing(routing).queue
    assert queue is not None  # check_routing refuses a router without one
    return queue


def _replica_counts(replicas: ArrayLike) -> IntArray:
    """Replica counts as int64, each >= 1 (a fleet with no replica has no queue)."""
    n = np.asarray(replicas)
    # (the dtype's kind, signed or unsigned integer, is np.issubdtype(dtype, np.integer) without its Python-level
    # walk of the type hierarchy; the least count tested by one reduction: this runs 8 times a system)
    if n.dtype.kind not in "iu":
        raise ValueError(f"replicas must be integers, got dtype {n.dtype}")
    if n.size and n.min() < 1:
        raise ValueError(f"replicas must be >= 1, got min {np.min(n)!r}")
    return n.astype(np.int64)


def replicas_needed(
    routing: str,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
) -> IntArray:
    """Smallest number of replicas meeting a wait SLO under a routing.

    Pooled routings (``pooled``, ``least_outstanding``): :func:`rackcost.model.queues.queueing.replicas_needed` on all
    ``N c`` slots. ``random``: every replica sees ``lambda / N``, so the fleet meets the SLO when one replica's
    M/M/c does at ``lambda / N``. That rate falls as ``N`` grows, so ``N`` is ``ceil(lambda / r1)`` with ``r1`` the
    capacity at SLO of one replica (:func:`rackcost.model.queues.queueing.capacity_at_slo`), less one where ``N - 1``
    meets the SLO when checked directly (``r1`` is kept a relative 1e-9 inside the exact root); at least 1. The
    utilisation ceiling and redundancy stay the caller's.

    Parameters
    ----------
    routing : str
        A router with an analytic form (:attr:`rackcost.model.queues.routers.Router.queue`), or its name.
    arrival_rps : array_like
        Arrival rate lambda at the whole fleet, >= 0 [requests/s].
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
    RoutingNotAnalytic
        For ``power_of_two`` and ``round_robin``.
    ValueError
        For an unknown routing, or out-of-range, NaN or infinite inputs.

    References
    ----------
    Kleinrock (1975), Sec. 2.5 (random splitting of a Poisson stream) and Sec. 3.5 (M/M/m waiting time).

    Examples
    --------
    One erlang of load on one-slot replicas, no wait budget, at most half the requests may wait: pooled, two
    replicas give ``C(2, 1) = 1/3``; at random each replica is an M/M/1 that waits with probability ``lambda / N``,
    so ``N = 2`` as well (``rho = 1/2`` exactly); when only 30% may wait, pooled needs three (``C(3, 1) = 1/11``) and
    random four (``rho <= 0.3``):

    >>> int(replicas_needed("pooled", 1.0, 1.0, 1, 0.0, 0.5)), int(replicas_needed("random", 1.0, 1.0, 1, 0.0, 0.5))
    (2, 2)
    >>> int(replicas_needed("pooled", 1.0, 1.0, 1, 0.0, 0.3)), int(replicas_needed("random", 1.0, 1.0, 1, 0.0, 0.3))
    (3, 4)
    """
    queue = analytic_queue(routing)
    return queue.replicas_needed(arrival_rps, service_s, slots_per_replica, budget_s, max_exceedance_fraction)


def capacity_at_slo(
    routing: str,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    feasible_rps: ArrayLike | None = None,
) -> FloatArray:
    """Largest arrival rate a fleet serves within a wait SLO under a routing.

    Pooled routings: :func:`rackcost.model.queues.queueing.capacity_at_slo` on ``N c`` slots. ``random``: ``N`` times
    the capacity at SLO of one replica's M/M/c, exact since every replica sees ``lambda / N`` and meets the SLO
    exactly when each does.

    Parameters
    ----------
    routing : str
        A router with an analytic form (:attr:`rackcost.model.queues.routers.Router.queue`), or its name.
    replicas : array_like of int
        Serving replicas N, >= 1 [replicas].
    slots_per_replica : array_like
        Request slots per replica c, > 0 [slots].
    service_s : array_like
        Mean service time S, > 0 [s].
    budget_s : array_like
        Wait budget t, >= 0 [s].
    max_exceedance_fraction : array_like
        Allowed P(W > t), in (0, 1) [fraction].
    feasible_rps : array_like, optional
        A rate the whole fleet is known to serve within the SLO (e.g. the demand it was sized for); it only
        speeds up the search and is checked [requests/s].

    Returns
    -------
    ndarray
        Sustainable arrival rate at the whole fleet [requests/s].

    Raises
    ------
    RoutingNotAnalytic
        For ``power_of_two`` and ``round_robin``.
    ValueError
        For an unknown routing, replicas < 1 or not integers, or out-of-range, NaN or infinite inputs.

    Examples
    --------
    Two one-slot replicas, S = 1 s, no wait budget, at most half the requests may wait. At random each replica
    is an M/M/1 waiting with probability ``rho``, so each takes 0.5/s and the fleet 1/s; pooled, the M/M/2 waits
    with probability ``C(2, a) = a^2 / (2 + a)``, 1/2 at ``a = (1 + sqrt(17)) / 4``, so about 1.28/s:

    >>> round(float(capacity_at_slo("random", 2, 1, 1.0, 0.0, 0.5)), 6)
    1.0
    >>> round(float(capacity_at_slo("pooled", 2, 1, 1.0, 0.0, 0.5)), 6)
    1.280776
    """
    queue = analytic_queue(routing)
    n = _replica_counts(replicas)
    c = np.asarray(slots_per_replica, dtype=np.float64)
    return queue.capacity_at_slo(n, c, service_s, budget_s, max_exceedance_fraction, feasible_rps)


def wait_tail(
    routing: str,
    t_s: ArrayLike,
    q_fraction: float,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
) -> tuple[FloatArray, FloatArray]:
    """``P(W > t)`` and the ``q``-quantile of the wait of a request, under a routing.

    Pooled routings: :func:`rackcost.model.queues.queueing.wait_tail` on ``N c`` slots. ``random``: one M/M/c at
    ``lambda / N``; every replica is identical, so a request's wait has that distribution whichever replica it
    meets. For stable queues only (``lambda S < N c``).

    Parameters
    ----------
    routing : str
        A router with an analytic form (:attr:`rackcost.model.queues.routers.Router.queue`), or its name.
    t_s : array_like
        Wait budget t, >= 0 [s].
    q_fraction : float
        Quantile level q in [0, 1) [fraction].
    replicas : array_like of int
        Serving replicas N, >= 1 [replicas].
    slots_per_replica : array_like
        Request slots per replica c, > 0 [slots].
    arrival_rps : array_like
        Arrival rate lambda at the whole fleet, >= 0 [requests/s].
    service_s : array_like
        Mean service time S, > 0 [s].

    Returns
    -------
    exceedance : ndarray
        P(W > t) [fraction].
    quantile : ndarray
        The q-quantile of the wait [s].

    Raises
    ------
    RoutingNotAnalytic
        For ``power_of_two`` and ``round_robin``.
    ValueError
        For an unknown routing, replicas < 1 or not integers, or an unstable queue.

    Examples
    --------
    Two one-slot replicas at lambda = 1/s, S = 1 s. At random each is an M/M/1 at 0.5/s:
    ``P(W > 2) = 0.5 / e`` and the p99 wait ``2 ln 50`` s. Pooled, the M/M/2 waits with probability
    ``C(2, 1) = 1/3`` and its wait decays at ``k/S - lambda = 1/s``: ``P(W > 2) = e^-2 / 3``, p99 ``ln(100/3)`` s:

    >>> exceedance, p99 = wait_tail("random", 2.0, 0.99, 2, 1, 1.0, 1.0)
    >>> round(float(exceedance), 12), round(float(p99), 9)
    (0.183939720586, 7.824046011)
    >>> exceedance, p99 = wait_tail("pooled", 2.0, 0.99, 2, 1, 1.0, 1.0)
    >>> round(float(exceedance), 12), round(float(p99), 9)
    (0.045111761079, 3.506557897)
    """
    queue = analytic_queue(routing)
    n = _replica_counts(replicas)
    c = np.asarray(slots_per_replica, dtype=np.float64)
    return queue.wait_tail(t_s, q_fraction, n, c, arrival_rps, service_s)


def wait_tails(
    routing: str,
    t_s: ArrayLike,
    q_fraction: float,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
) -> tuple[FloatArray, FloatArray]:
    """:func:`wait_tail` at several budgets of the same fleet (request classes sharing one queue), from one Erlang
    C evaluation (:func:`rackcost.model.queues.queueing.wait_tails`): ``P(W > t)`` at each budget (the last axis of
    ``t_s``), and the ``q``-quantile.

    Examples
    --------
    The two pooled one-slot replicas of :func:`wait_tail` at budgets of 0 and 2 s: ``C(2, 1) = 1/3``, then
    ``e^-2 / 3``:

    >>> (at_0, at_2), p99 = wait_tails("pooled", [0.0, 2.0], 0.99, 2, 1, 1.0, 1.0)
    >>> round(float(at_0), 12), round(float(at_2), 12)
    (0.333333333333, 0.045111761079)
    """
    queue = analytic_queue(routing)
    n = _replica_counts(replicas)
    c = np.asarray(slots_per_replica, dtype=np.float64)
    return queue.wait_tail(t_s, q_fraction, n, c, arrival_rps, service_s, several=True)
