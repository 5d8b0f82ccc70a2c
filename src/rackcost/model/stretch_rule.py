"""Sizing and capacity at SLO under the wait stretch that acceptance reads: one rule for all three.

A spread service time stretches the conditional wait (:mod:`rackcost.model.burstiness`). Acceptance at a demand
point reads the stretch at that point's own load, :func:`rackcost.model.burstiness.point_wait_stretch`: the larger of
Kingman's heavy-traffic one and Kimura's M/G/s interpolation at the point's utilisation and servers. Sizing and the
capacity at SLO used to keep Kingman's alone; where the service SCV is below 1 Kimura's is the larger, so a fleet
sized for a demand could accept less than its target at that very demand (a one-class mix of lognormal inputs of cv
3 on a one-point curve: 98.9% against 99%). The two searches here judge every candidate by the same function as
acceptance, the stretch at the candidate's own load.

Both keep the exact vectorised searches of :mod:`rackcost.model.routing` and only narrow their answer: the point
stretch is never below Kingman's, so Kingman's count (capacity) is a lower (upper) bound, and where Kingman's is below
1 the point stretch is at most 1 (Kimura's ratio ``(1 + c^2) / (2 c^2 + (1 - c^2) / q)`` is at most 1 for ``c^2 < 1``
and ``q <= 1``), so the count (capacity) without any stretch is an upper (lower) bound that meets the rule. Between
the two an integer bisection (a bisection on the rate) finds the boundary. Where the stretch is 1 or above (Kingman's
is then the point's, exactly) nothing else is computed and every figure is what the routing's search gives, bit for
bit.

Every argument is in the queue the bursty arrivals make of the fleet (:func:`rackcost.model.burstiness.
arrival_variability`): rates and slots divided by the variability ``v``, which the point stretch needs to read the
utilisation and the servers of the unscaled queue.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model import queueing
from rackcost.model import routing as routes
from rackcost.model.burstiness import point_wait_stretch

__all__ = ["capacity_at_slo", "meets_slo", "replicas_needed", "stretch_at_load"]

_RATE_RTOL = 1e-10
"""Relative width of the rate bracket at which the capacity's bisection stops (as the routing's search) [-]."""
_MAX_HALVINGS = 200
"""Halvings of a bracket at most (a relative 1e-10 of a rate takes about 34; a replica count up to 2^62, 62) [-]."""


def stretch_at_load(
    routing: str,
    stretch: ArrayLike,
    variability: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
) -> NDArray[np.float64]:
    """The wait stretch at a fleet's own load, as acceptance reads it at a demand point [-].

    :func:`rackcost.model.burstiness.point_wait_stretch` at utilisation ``lambda S / (N c)`` on the servers of the
    queue the routing makes (every slot of the fleet for one queue, one replica's under ``random``), unscaled by the
    variability (the arguments are the scaled queue's).

    Examples
    --------
    Kingman's 0.525 (service SCV 0.05, Poisson) on 4 replicas of 16 slots at 94% is Kimura's 0.557:

    >>> round(float(stretch_at_load("pooled", 0.5248, 1.0, 20.0, 3.0, 4, 16.0)), 4)
    0.5574
    """
    one_queue = routes.check_routing(str(routing)).one_queue
    v = np.asarray(variability, dtype=float)
    n = np.asarray(replicas, dtype=float)
    c = np.asarray(slots_per_replica, dtype=float)
    utilization = np.asarray(arrival_rps, dtype=float) * np.asarray(service_s, dtype=float) / (n * c)
    servers = n * c * v if one_queue else c * v
    return point_wait_stretch(stretch, v, utilization, servers)


def meets_slo(
    routing: str,
    replicas: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    stretch: ArrayLike = 1.0,
    variability: ArrayLike = 1.0,
) -> NDArray[np.bool_]:
    """Whether ``N`` replicas keep ``P(W > budget / stretch at the load) <= max_exceedance`` at ``lambda``: the
    acceptance rule of :func:`rackcost.model.demand.serve_at_capacity` at one rate (an unstable queue does not)."""
    n = np.asarray(replicas, dtype=np.int64)
    lam = np.asarray(arrival_rps, dtype=float)
    s = np.asarray(service_s, dtype=float)
    c = np.asarray(slots_per_replica, dtype=float)
    one_queue = routes.check_routing(str(routing)).one_queue
    stable = (n >= 1) & (lam * s < n * c)
    n_safe = np.maximum(n, 1)
    lam_safe = np.where(stable, lam, 0.0)
    point = stretch_at_load(routing, stretch, variability, lam_safe, s, n_safe, c)
    t = np.asarray(budget_s, dtype=float) / point
    if one_queue:
        p = queueing.wait_exceedance(t, n_safe * c, lam_safe, s)
    else:
        p = queueing.wait_exceedance(t, c, lam_safe / n_safe, s)
    return np.asarray(stable & (p <= np.asarray(max_exceedance_fraction, dtype=float)), dtype=np.bool_)


def replicas_needed(
    routing: str,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    stretch: ArrayLike = 1.0,
    variability: ArrayLike = 1.0,
    at_least: ArrayLike = 1,
) -> NDArray[np.int64]:
    """The fewest replicas, at least ``at_least``, that meet the SLO at ``arrival_rps`` under the stretch at their
    own load (:func:`meets_slo`, acceptance's rule) [-].

    ``stretch`` is Kingman's (:func:`rackcost.model.burstiness.wait_stretch`); the budget is the unstretched one.
    With a stretch of 1 or above everywhere it is :func:`rackcost.model.routing.replicas_needed` on ``budget /
    stretch`` (at least ``at_least``: the utilisation ceiling's count, so that the count returned meets both), bit
    for bit.

    Examples
    --------
    20 requests/s holding a slot 3 s, 16 slots a replica, a 1.6 s budget met by 99%, service SCV 0.05: Kingman's
    stretch alone asks 4 replicas, which at their own load (94%) miss 1.1%; the rule asks 5:

    >>> from rackcost.model.burstiness import wait_stretch
    >>> st = wait_stretch(1.0, 0.0496)
    >>> int(routes.replicas_needed("pooled", 20.0, 3.0, 16.0, 1.6 / st, 0.01))
    4
    >>> int(replicas_needed("pooled", 20.0, 3.0, 16.0, 1.6, 0.01, st))
    5
    """
    st = np.asarray(stretch, dtype=float)
    judged = budget_s if bool(np.all(st == 1.0)) else np.asarray(budget_s, dtype=float) / st
    kingman = routes.replicas_needed(
        routing, arrival_rps, service_s, slots_per_replica, judged, max_exceedance_fraction
    )
    floor = np.asarray(at_least, dtype=np.int64)
    if not bool(np.any(st < 1.0)):  # Kingman's is the point's: more replicas only shorten the wait
        return kingman if bool(np.all(floor <= 1)) else np.maximum(kingman, floor)
    args = (arrival_rps, service_s, slots_per_replica, budget_s, max_exceedance_fraction, st, variability)
    lam, s, c, b, m, st_b, v = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in args))
    first = np.broadcast_to(np.maximum(kingman, floor), lam.shape).astype(np.int64)
    ok = meets_slo(routing, first, lam, s, c, b, m, st_b, v)
    if ok.all():
        return first
    # the stretch is at most 1 where Kingman's is below 1: the count without a stretch meets the rule, and so does
    # any larger count (its wait without a stretch is shorter still); (lo, hi] brackets the fewest that meets it
    upper = np.maximum(routes.replicas_needed(routing, lam, s, c, b, m), first).astype(np.int64)
    lo = np.where(ok, first - 1, first)
    hi = np.where(ok, first, upper)
    for _ in range(_MAX_HALVINGS):
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = lo + (hi - lo) // 2
        fine = meets_slo(routing, np.where(open_, mid, hi), lam, s, c, b, m, st_b, v)
        hi = np.where(open_ & fine, mid, hi)
        lo = np.where(open_ & ~fine, mid, lo)
    return np.asarray(hi, dtype=np.int64)


def capacity_at_slo(
    routing: str,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    feasible_rps: ArrayLike | None = None,
    stretch: ArrayLike = 1.0,
    variability: ArrayLike = 1.0,
) -> NDArray[np.float64]:
    """The largest rate ``N`` replicas serve within the SLO under the stretch at that rate's own load
    (:func:`meets_slo`, acceptance's rule) [requests/s].

    ``feasible_rps`` is a rate known to meet the rule (the sizing demand of a fleet sized by
    :func:`replicas_needed`): checked, and the answer is never below it where it holds. With a stretch of 1 or above
    everywhere it is :func:`rackcost.model.routing.capacity_at_slo` on ``budget / stretch``, bit for bit; elsewhere
    the largest rate of a bisection between that (an upper bound) and the capacity without a stretch (a lower bound)
    verified to meet the rule, to a relative 1e-10.

    Examples
    --------
    The four replicas of :func:`replicas_needed`'s example: 20.04 requests/s by Kingman's stretch, 19.97 at the
    stretch of their own load:

    >>> from rackcost.model.burstiness import wait_stretch
    >>> st = wait_stretch(1.0, 0.0496)
    >>> round(float(routes.capacity_at_slo("pooled", 4, 16.0, 3.0, 1.6 / st, 0.01)), 2)
    20.04
    >>> round(float(capacity_at_slo("pooled", 4, 16.0, 3.0, 1.6, 0.01, stretch=st)), 2)
    19.97
    """
    st = np.asarray(stretch, dtype=float)
    judged = budget_s if bool(np.all(st == 1.0)) else np.asarray(budget_s, dtype=float) / st
    kingman = routes.capacity_at_slo(
        routing, replicas, slots_per_replica, service_s, judged, max_exceedance_fraction, feasible_rps
    )
    if not bool(np.any(st < 1.0)):
        return kingman
    args = (replicas, slots_per_replica, service_s, budget_s, max_exceedance_fraction, st, variability, kingman)
    n, c, s, b, m, st_b, v, hi = np.broadcast_arrays(*(np.asarray(a) for a in args))
    n = n.astype(np.int64)
    hi = np.array(hi, dtype=float)
    ok = meets_slo(routing, n, hi, s, c, b, m, st_b, v)
    if ok.all():
        return hi
    lo = np.broadcast_to(routes.capacity_at_slo(routing, n, c, s, b, m), hi.shape).astype(float)
    if feasible_rps is not None:  # the sizing demand, where it meets the rule: the answer is never below it
        hint = np.broadcast_to(np.asarray(feasible_rps, dtype=float), hi.shape)
        hint_ok = (hint > lo) & (hint < hi) & meets_slo(routing, n, hint, s, c, b, m, st_b, v)
        lo = np.where(hint_ok, hint, lo)
    lo = np.where(ok, hi, lo)
    for _ in range(_MAX_HALVINGS):
        open_ = hi - lo > _RATE_RTOL * hi
        if not open_.any():
            break
        mid = 0.5 * (lo + hi)
        fine = meets_slo(routing, n, np.where(open_, mid, lo), s, c, b, m, st_b, v)
        lo = np.where(open_ & fine, mid, lo)
        hi = np.where(open_ & ~fine, mid, hi)
    return np.asarray(lo, dtype=float)
