"""Sizing and capacity at SLO under the wait stretch that acceptance reads: one rule for all three.

A spread service time stretches the conditional wait (:mod:`rackcost.model.queues.burstiness`). Acceptance at a demand
point reads the stretch at that point's own load, :func:`rackcost.model.queues.burstiness.point_wait_stretch`: the
larger of Kingman's heavy-traffic one and Kimura's M/G/s interpolation at the point's utilisation and servers. Sizing
and the capacity at SLO used to keep Kingman's alone; where the service SCV is below 1 Kimura's is the larger, so a
fleet sized for a demand could accept less than its target at that very demand (a one-class mix of lognormal inputs of
cv 3 on a one-point curve: 98.9% against 99%). The two searches here judge every candidate by the same function as
acceptance, the stretch at the candidate's own load.

Both keep the exact vectorised searches of :mod:`rackcost.model.queues.routing` and only narrow their answer: the point
stretch is never below Kingman's, so Kingman's count (capacity) is a lower (upper) bound, and where Kingman's is below
1 the point stretch is at most 1 (Kimura's ratio ``(1 + c^2) / (2 c^2 + (1 - c^2) / q)`` is at most 1 for ``c^2 < 1``
and ``q <= 1``), so the count (capacity) without any stretch is an upper (lower) bound that meets the rule. The
count: Kingman's and the next judged in one evaluation, nearly always the answer, else an integer bisection up to the
count without a stretch. The capacity: a safeguarded Newton iteration on the rule's smooth margin in the rate, from
Kingman's capacity, then one evaluation of the rule at Kingman's capacity and either side of the root (a relative
4e-11), so the rate returned is verified to meet the rule and the next verified to miss it is within a relative
1e-10 above, as a bisection to 1e-10 would leave them (it took about 34 evaluations of the rule; this takes 1 to 5
of the margin and one of the rule). Where the stretch is 1 or above (Kingman's is then the point's, exactly) nothing
else is computed and every figure is what the routing's search gives, bit for bit.

Every argument is in the queue the bursty arrivals make of the fleet (:func:`rackcost.model.queues.burstiness.
arrival_variability`): rates and slots divided by the variability ``v``, which the point stretch needs to read the
utilisation and the servers of the unscaled queue.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.queues import queueing
from rackcost.model.queues import routing as routes
from rackcost.model.queues.burstiness import point_wait_stretch
from rackcost.model.queues.erlang import all_of, any_of, broadcast_few
from rackcost.model.queues.routers import AnalyticQueue

__all__ = ["capacity_at_slo", "meets_slo", "replicas_needed", "stretch_at_load"]

_RATE_RTOL = 1e-10
"""Relative width of the rate bracket the capacity is returned at the bottom of (as the routing's search) [-]."""
_ROOT_RTOL = 1e-12
"""Relative bracket at which the capacity's Newton iteration stops: well inside the straddle below [-]."""
_LAST_STEP = 1e-8
"""Relative Newton step of the capacity taken as its last: the root is then known to about its square [-]."""
_STRADDLE = 4e-11
"""Relative distance either side of the Newton root at which the rule judges the capacity: the two are within
:data:`_RATE_RTOL` of each other [-]."""
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

    :func:`rackcost.model.queues.burstiness.point_wait_stretch` at utilisation ``lambda S / (N c)`` on the servers of
    the queue the routing makes (every slot of the fleet for one queue, one replica's under ``random``), unscaled by the
    variability (the arguments are the scaled queue's).

    Examples
    --------
    Kingman's 0.525 (service SCV 0.05, Poisson) on 4 replicas of 16 slots at 94% is Kimura's 0.557:

    >>> round(float(stretch_at_load("pooled", 0.5248, 1.0, 20.0, 3.0, 4, 16.0)), 4)
    0.5574
    """
    queue = routes.analytic_queue(str(routing))
    return _stretch_at_load(queue, stretch, variability, arrival_rps, service_s, replicas, slots_per_replica)


def _stretch_at_load(
    queue: AnalyticQueue,
    stretch: ArrayLike,
    variability: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
) -> NDArray[np.float64]:
    """:func:`stretch_at_load` for a routing already checked (one queue of every slot, or one a replica)."""
    v = np.asarray(variability, dtype=float)
    n = np.asarray(replicas, dtype=float)
    c = np.asarray(slots_per_replica, dtype=float)
    utilization = np.asarray(arrival_rps, dtype=float) * np.asarray(service_s, dtype=float) / (n * c)
    servers = queue.servers(n, c) * v
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
    acceptance rule of :func:`rackcost.model.fleets.demand.serve_at_capacity` at one rate (an unstable queue does
    not)."""
    queue = routes.analytic_queue(str(routing))
    args = (replicas, arrival_rps, service_s, slots_per_replica, budget_s, stretch, variability)
    return _meets(queue, *args, max_exceedance_fraction, checked=True)


def _meets(
    queue: AnalyticQueue,
    replicas: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    budget_s: ArrayLike,
    stretch: ArrayLike,
    variability: ArrayLike,
    max_exceedance_fraction: ArrayLike,
    checked: bool = False,
) -> NDArray[np.bool_]:
    """:func:`meets_slo` for a routing already checked. With ``checked`` every tail goes through
    :func:`rackcost.model.queues.queueing.wait_exceedance`'s input checks; without, only the budget at the load is
    checked (the searches here have had the other arguments checked by the routing's search) and the tail is
    :func:`rackcost.model.queues.queueing.wait_exceedance_checked`: the same figures, bit for bit, for less a call."""
    n = np.asarray(replicas, dtype=np.int64)
    lam = np.asarray(arrival_rps, dtype=float)
    s = np.asarray(service_s, dtype=float)
    c = np.asarray(slots_per_replica, dtype=float)
    stable = (n >= 1) & (lam * s < n * c)
    n_safe = np.maximum(n, 1)
    lam_safe = np.where(stable, lam, 0.0)
    point = _stretch_at_load(queue, stretch, variability, lam_safe, s, n_safe, c)
    t = np.asarray(budget_s, dtype=float) / point
    k, lam_q = queue.servers(n_safe, c), queue.rate(lam_safe, n_safe)
    if checked or not ((t >= 0.0) & np.isfinite(t)).all():  # (a wrong budget: the checks' own ValueError)
        p = queueing.wait_exceedance(t, k, lam_q, s)
    else:
        p = queueing.wait_exceedance_checked(*broadcast_few(t, np.asarray(k, dtype=float), lam_q, s))
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

    ``stretch`` is Kingman's (:func:`rackcost.model.queues.burstiness.wait_stretch`); the budget is the unstretched one.
    With a stretch of 1 or above everywhere it is :func:`rackcost.model.queues.routing.replicas_needed` on ``budget /
    stretch`` (at least ``at_least``: the utilisation ceiling's count, so that the count returned meets both), bit
    for bit. Elsewhere Kingman's count and the one after it are judged first, in one evaluation (the point stretch
    is close to Kingman's near the count's own load, so one of the two is nearly always the answer), and an integer
    bisection up to the count without a stretch finds the rest.

    Examples
    --------
    20 requests/s holding a slot 3 s, 16 slots a replica, a 1.6 s budget met by 99%, service SCV 0.05: Kingman's
    stretch alone asks 4 replicas, which at their own load (94%) miss 1.1%; the rule asks 5:

    >>> from rackcost.model.queues.burstiness import wait_stretch
    >>> st = wait_stretch(1.0, 0.0496)
    >>> int(routes.replicas_needed("pooled", 20.0, 3.0, 16.0, 1.6 / st, 0.01))
    4
    >>> int(replicas_needed("pooled", 20.0, 3.0, 16.0, 1.6, 0.01, st))
    5
    """
    st = np.asarray(stretch, dtype=float)
    judged = budget_s if all_of(st == 1.0) else np.asarray(budget_s, dtype=float) / st
    kingman = routes.replicas_needed(
        routing, arrival_rps, service_s, slots_per_replica, judged, max_exceedance_fraction
    )
    floor = np.asarray(at_least, dtype=np.int64)
    if not any_of(st < 1.0):  # Kingman's is the point's: more replicas only shorten the wait
        return kingman if all_of(floor <= 1) else np.maximum(kingman, floor)
    queue = routes.analytic_queue(str(routing))
    args = (arrival_rps, service_s, slots_per_replica, budget_s, max_exceedance_fraction, st, variability)
    lam, s, c, b, m, st_b, v = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in args))
    first = np.broadcast_to(np.maximum(kingman, floor), lam.shape).astype(np.int64)
    # Kingman's count (a lower bound: the point stretch is never below Kingman's) and the next, in one evaluation
    # (the routing's search checked every argument but the stretches: _meets checks the budget at the load)
    both = _meets(queue, np.stack([first, first + 1]), lam, s, c, b, st_b, v, m)
    ok, next_ok = both[0], both[1]
    if all_of(ok | next_ok):
        return np.where(ok, first, first + 1)
    # the stretch is at most 1 where Kingman's is below 1: the count without a stretch meets the rule, and so does
    # any larger count (its wait without a stretch is shorter still); (lo, hi] brackets the fewest that meets it
    upper = np.maximum(routes.replicas_needed(routing, lam, s, c, b, m), first + 1).astype(np.int64)
    lo = np.where(ok, first - 1, np.where(next_ok, first, first + 1))
    hi = np.where(ok, first, np.where(next_ok, first + 1, upper))
    for _ in range(_MAX_HALVINGS):
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = lo + (hi - lo) // 2
        fine = _meets(queue, np.where(open_, mid, hi), lam, s, c, b, st_b, v, m)
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
    everywhere it is :func:`rackcost.model.queues.routing.capacity_at_slo` on ``budget / stretch``, bit for bit.
    Elsewhere a safeguarded Newton iteration on the smooth margin ``log P(W > budget / stretch at the load) - log
    max_exceedance`` (:func:`_newton_on_the_rule`) finds the root below that capacity (an upper bound), and the rule
    itself judges the two rates a relative 4e-11 either side of it: the largest verified to meet the rule is
    returned, the next verified to miss it is within a relative 1e-10 above. Where they do not bracket the root so
    (never seen), a bisection on the rule narrows the bracket they leave to a relative 1e-10.

    Examples
    --------
    The four replicas of :func:`replicas_needed`'s example: 20.04 requests/s by Kingman's stretch, 19.97 at the
    stretch of their own load:

    >>> from rackcost.model.queues.burstiness import wait_stretch
    >>> st = wait_stretch(1.0, 0.0496)
    >>> round(float(routes.capacity_at_slo("pooled", 4, 16.0, 3.0, 1.6 / st, 0.01)), 2)
    20.04
    >>> round(float(capacity_at_slo("pooled", 4, 16.0, 3.0, 1.6, 0.01, stretch=st)), 2)
    19.97
    """
    st = np.asarray(stretch, dtype=float)
    judged = budget_s if all_of(st == 1.0) else np.asarray(budget_s, dtype=float) / st
    kingman = routes.capacity_at_slo(
        routing, replicas, slots_per_replica, service_s, judged, max_exceedance_fraction, feasible_rps
    )
    if not any_of(st < 1.0):
        return kingman
    queue = routes.analytic_queue(str(routing))
    args = (replicas, slots_per_replica, service_s, budget_s, max_exceedance_fraction, st, variability, kingman)
    n, c, s, b, m, st_b, v, hi = np.broadcast_arrays(*(np.asarray(a) for a in args))
    n = n.astype(np.int64)
    c, s, b, m, st_b, v = (np.asarray(a, dtype=float) for a in (c, s, b, m, st_b, v))
    hi = np.array(hi, dtype=float)
    root = _newton_on_the_rule(queue, n, c, s, b, m, st_b, v, hi)
    # the rule itself judges Kingman's capacity (kept, bit for bit, where it meets the rule), the rates either side
    # of the root, and the sizing demand where it is below Kingman's, in one evaluation
    below = root * (1.0 - _STRADDLE)
    rates = [hi, below, np.minimum(root * (1.0 + _STRADDLE), hi)]
    if feasible_rps is not None:
        hint = np.broadcast_to(np.asarray(feasible_rps, dtype=float), hi.shape)
        rates.append(np.where(hint < hi, hint, below))
    at = np.stack(rates)
    # (the routing's search checked every argument but the stretches: _meets checks the budget at the load)
    fine = _meets(queue, n, at, s, c, b, st_b, v, m)
    ok = fine[0]
    if all_of(ok):
        return hi
    at, fine = at[1:], fine[1:]
    lo = np.where(fine, at, -np.inf).max(axis=0)  # the largest rate verified to meet the rule
    hi = np.minimum(hi, np.where(~fine & (at > lo), at, np.inf).min(axis=0))  # the next verified to miss it
    lost = ~ok & (lo == -np.inf)
    if lost.any():  # nothing verified to meet it (never seen): the capacity without a stretch meets it
        lo = np.where(lost, np.broadcast_to(routes.capacity_at_slo(routing, n, c, s, b, m), hi.shape), lo)
    lo = np.where(ok, at[1], lo)  # (Kingman's: then lo = hi, nothing to narrow)
    hi = np.where(ok, at[1], hi)
    for _ in range(_MAX_HALVINGS):  # (where the two do not bracket the root within the tolerance: never seen)
        open_ = hi - lo > _RATE_RTOL * hi
        if not open_.any():
            break
        mid = 0.5 * (lo + hi)
        fine_mid = _meets(queue, n, np.where(open_, mid, lo), s, c, b, st_b, v, m)
        lo = np.where(open_ & fine_mid, mid, lo)
        hi = np.where(open_ & ~fine_mid, mid, hi)
    return np.asarray(lo, dtype=float)


def _newton_on_the_rule(
    queue: AnalyticQueue,
    n: NDArray[np.int64],
    c: NDArray[np.float64],
    s: NDArray[np.float64],
    b: NDArray[np.float64],
    m: NDArray[np.float64],
    stretch: NDArray[np.float64],
    variability: NDArray[np.float64],
    hi: NDArray[np.float64],
) -> NDArray[np.float64]:
    """The root in the rate of ``g = log C(k, a) - (k / S - lambda_q) t - log eps`` below ``hi``, ``t`` the budget
    over the stretch at the load (:func:`rackcost.model.queues.burstiness.point_wait_stretch`), to about a relative
    1e-14 (``hi`` where ``g(hi) <= 0``) [requests/s].

    A Newton iteration with the exact slope from ``hi``, safeguarded by the bracket ``[lo, hi]`` (``lo`` the
    closed-form rate that meets the SLO with ``C = 1`` and no stretch; a bisection where a step would leave the
    bracket or the Erlang C is off its fast path). A step below a relative :data:`_LAST_STEP` is taken as the root
    without a further evaluation (Newton's error is then about the step squared). 3 evaluations on the one-class
    lognormal scenario of ``tests/test_stretch_rule.py``, 1 to 5 on 3,000 random queues, where a bisection took about
    34. Why by hand and not
    :func:`scipy.optimize.brentq`: it is scalar, and a Python loop over the elements costs more than this whole
    vectorised search on the few elements of an evaluation.

    The slope: ``dg / dlambda = q (d log C / d lambda_q + t) + (k / S - lambda_q) (t / r) dr / dlambda``
    (``lambda_q = q lambda`` the rate of the queue, ``q`` 1 pooled and ``1 / N`` random; ``t = b / r``); Kimura's
    ``r = (c_a^2 + 2 W - 1) / (c_a^2 + 1)``, ``W = (1 + c_s^2) / D``, ``D = 2 c_s^2 + (1 - c_s^2) / R`` and
    Cosmetatos's ``R = (1 + (1 - rho) K / rho) / 2`` (``K`` the servers' factor) give ``dW / dR = (1 + c_s^2) (1 -
    c_s^2) / (R D)^2`` and ``dR / drho = -K / (2 rho^2)``; ``dr / dlambda`` is 0 where Kingman's stretch is the
    larger or ``R`` is capped at 1.

    Only the root's place matters here, not its bits: the caller judges the rates either side of it by the rule
    itself (:func:`_meets`).
    """
    nf = np.maximum(n, 1).astype(float)
    k = queue.servers(nf, c)  # servers of the Erlang queue
    q = queue.rate(1.0, nf)  # its rate per unit of the fleet's
    k_rate = k / s
    rho_per_rps = s / (nf * c)
    servers = np.maximum(queue.servers(nf, c) * variability, 1.0)
    half_k = 0.25 * (servers - 1.0) * (np.sqrt(4.0 + 5.0 * servers) - 2.0) / (8.0 * servers)  # K / 2
    ca = 2.0 * variability - 1.0
    cs = stretch * (ca + 1.0) - ca
    two_cs, one_less_cs, one_plus_cs = 2.0 * cs, 1.0 - cs, 1.0 + cs
    kimura_base, kimura_per_w = (ca - 1.0) / (ca + 1.0), 2.0 / (ca + 1.0)
    slope_r = -half_k * kimura_per_w * one_plus_cs * one_less_cs * rho_per_rps  # dr/dlambda x (rho R D)^2
    stretch_r = np.where(stretch == 1.0, np.inf, stretch)  # (exponential service: r = 1 whatever the load)
    log_eps = np.log(m)
    log_c = queueing.log_erlang_c_in_rate(*broadcast_few(np.asarray(k, dtype=float), s))
    # C <= 1 and a stretch at most 1: lambda_q <= k / S - log(1 / eps) / b meets the SLO
    safe = np.where(b > 0, k_rate - np.log(1.0 / m) / np.where(b > 0, b, 1.0), 0.0) / q
    lo = np.minimum(np.maximum(safe, 0.0), hi)
    x = hi.copy()
    done = np.zeros(hi.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(_MAX_HALVINGS):
            lam_q = x * q
            log_c_x, log_c_slope = log_c(lam_q)
            rho = np.maximum(x * rho_per_rps, 1e-9)
            big_r = 0.5 + half_k / rho - half_k
            uncapped = big_r < 1.0
            big_r = np.minimum(big_r, 1.0)
            den = two_cs + one_less_cs / big_r
            kimura = kimura_base + kimura_per_w * (one_plus_cs / den)
            by_kimura = kimura > stretch_r
            r = np.where(stretch_r == np.inf, 1.0, np.maximum(kimura, stretch))
            t = b / r
            decay = k_rate - lam_q
            g = log_c_x - decay * t - log_eps
            meets = g <= 0.0
            if i == 0 and meets.all():  # Kingman's capacity meets it everywhere (the caller checks it)
                return x
            lo = np.where(meets, x, lo)
            hi = np.where(meets, hi, x)
            if log_c_slope is None:
                step = 0.5 * (lo + hi)
            else:
                dr = np.where(by_kimura & uncapped, slope_r / (rho * big_r * den) ** 2, 0.0)
                step = x - g / (q * (log_c_slope + t) + decay * (t / r) * dr)
            inside = np.isfinite(step) & (step >= lo) & (step <= hi)
            last = (inside & (np.abs(step - x) <= _LAST_STEP * hi)) | (hi - lo <= _ROOT_RTOL * hi)
            x = np.where(done, x, np.where(inside, step, 0.5 * (lo + hi)))
            done |= last
            if done.all():
                break
    return x
