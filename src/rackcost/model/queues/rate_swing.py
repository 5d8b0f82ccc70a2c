"""Short rate swings within a demand point: the pointwise stationary approximation (docs/model.md).

A demand point may say that its rate is not constant over a few minutes but swings periodically around its mean
(``demand[i].rate_swing``, a peak within the peak)::

    lambda(t) = lambda (1 + a sin(2 pi t / T)),   0 <= a <= 0.9

**The approximation.** The pointwise stationary approximation (PSA; Green and Kolesar 1991) takes the queue at each
instant to be the stationary queue of the rate at that instant. The share of requests accepted over the cycle is
then the arrival-weighted average of the stationary accepted share ``s(x)`` at ``x = lambda(t)``::

    share = (1 / T) int_0^T lambda(t) s(lambda(t)) dt / lambda = E[(1 + a U) s(lambda (1 + a U))],  U = sin(theta)

with ``theta`` uniform over the cycle, so ``U`` has the arcsine law on (-1, 1). Gauss-Chebyshev quadrature of the
first kind integrates it: ``m`` nodes ``u_j = cos((2j - 1) pi / (2m))`` with equal weights ``1 / m``, exact for a
polynomial of degree ``2m - 1`` in ``U`` (the midpoint rule on ``2m`` phases, folded: ``sin`` takes each value twice
per cycle). ``lambda x s(x)`` is the accepted rate at ``x``, which the model already computes (admission at the
capacity at SLO of that instant, then the wait tail at the admitted rate), so the cycle is served as
:data:`PHASES` extra "demand points" in one vectorised call of :func:`rackcost.model.fleets.demand.serve_demand`.

Why this one: it needs nothing but the stationary model, which is exact (M/M/k) or the one the rest of rackcost
uses (G/G/c at each phase, :mod:`rackcost.model.queues.burstiness`), so a bursty stream that swings is the G/G/c queue
of its SCV at each phase; it is exact in the limit of a long period, and it is conservative where the swing is fast
(the queue cannot follow a fast swing, so its real excursions are smaller). It is the standard first approximation
for slowly varying demand (Green and Kolesar 1991; Whitt 1991).

**When it is not valid.** The PSA assumes the queue reaches the stationary state of each rate before the rate
moves. With admission control at the SLO the wait is bounded by the queueing budget, so the waiting line relaxes
within about the budget; the busy slots, however, follow the arrivals with the service time's lag: for Poisson
arrivals and exponential service the mean busy slots of the many-server queue solve ``m' = lambda(t) - m / S``,
whose response to the sinusoid has amplitude ``a / sqrt(1 + (2 pi S / T)^2)`` (the infinite-server "modified offered
load" of Jennings, Mandelbaum, Massey and Whitt 1996). PSA uses ``a``: its swing is the truth within 5% only when
``2 pi S / T <= 0.32``, i.e. ``T >= 20 S``: :data:`VALID_PERIOD_SERVICE_TIMES`. Below that the evaluation warns;
the PSA figure then overstates the swing's effect (a lower bound on the accepted share).

**Sizing, capacity.** By default (``fleet.sub_hour_sizing: busiest_window``,
:class:`~rackcost.model.strategies.SubHourSizing`) the fleet is sized so that the top of the swing (the busiest
window), ``lambda (1 + a)``, meets the attainment target, and the capacity at SLO is the stationary capacity over
``1 + a``: a window of minutes above the capacity builds a queue that a stack without SLO-aware shedding carries
into the windows after it, which the PSA (each phase's overload shed) does not see. With ``hour_average`` the fleet
is sized so that the cycle-average accepted share meets the target (:func:`swing_replicas_needed`: integer
bisection between the count for the mean rate and the count for the top of the swing, which meets it at every
instant), and the capacity at SLO is the largest mean rate whose cycle average meets it (:func:`swing_capacity_rps`).
Both are computed at the chosen point's service time and budget, as the model sizes without a swing; the accepted
share is the PSA's cycle average under either.

References
----------
L. Green and P. Kolesar, "The pointwise stationary approximation for queues with nonstationary arrivals",
*Management Science* 37(1), 84-97, 1991.
W. Whitt, "The pointwise stationary approximation for M_t/M_t/s queues is asymptotically correct as the rates
increase", *Management Science* 37(3), 307-314, 1991.
O. B. Jennings, A. Mandelbaum, W. A. Massey and W. Whitt, "Server staffing to meet time-varying demand",
*Management Science* 42(10), 1383-1394, 1996.
M. Abramowitz and I. A. Stegun, *Handbook of Mathematical Functions*, 1964, 25.4.38 (Gauss-Chebyshev quadrature).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.fleets.demand import OVERLOAD_TOLERANCE_FRACTION, DemandSteps, serve_demand
from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.inputs import FleetPolicy, SloInputs
from rackcost.model.outcomes import DemandOutcome
from rackcost.model.queues import routing as routes
from rackcost.model.queues.erlang import any_of
from rackcost.model.replica.performance import LoadCurve
from rackcost.model.strategies import IdlePolicy, Routing, SubHourSizing

__all__ = [
    "MAX_AMPLITUDE_FRACTION",
    "PHASES",
    "VALID_PERIOD_SERVICE_TIMES",
    "RateShape",
    "cycle_accepted_share",
    "cycle_average",
    "phase_nodes",
    "point_amplitudes",
    "point_shapes",
    "serve_with_swing",
    "sizing_amplitude",
    "swing_capacity_rps",
    "swing_replicas_needed",
    "swing_slo_replicas",
    "swing_too_fast",
]

Array = NDArray[np.float64]

PHASES = 32
"""Gauss-Chebyshev nodes over the cycle (the midpoint rule on 64 phases) [-]: a smooth share is integrated to
rounding; the kink where admission control starts to shed costs about 1e-5 of share (tests/test_rate_swing.py, against
:func:`scipy.integrate.quad`)."""
MAX_AMPLITUDE_FRACTION = 0.9
"""Largest amplitude a demand point may give (``demand[i].rate_swing.amplitude_fraction``) [-]."""
VALID_PERIOD_SERVICE_TIMES = 20.0
"""Periods shorter than this many mean service times bring a warning: the busy slots follow a swing of period
``T`` with amplitude ``1 / sqrt(1 + (2 pi S / T)^2)`` of it, 5% short at ``T = 20 S`` (module docstring) [-]."""
MIN_PHASE_RPS = 1e-6
"""The lowest rate a phase is served at, a demand point's floor (``scenario.fields.MIN_RPS``) [requests/s]: an idle
window of an hour is served there, its admitted and accepted rates scaled back to 0."""
_CAPACITY_HALVINGS = 48
"""Bisection steps of :func:`swing_capacity_rps`: from a bracket of ``(1 + a)^2`` to a relative 4e-15 [-]."""


def phase_nodes(phases: int = PHASES) -> Array:
    """The values of ``sin(theta)`` at the Gauss-Chebyshev nodes of the cycle, each of weight ``1 / phases`` [-].

    Examples
    --------
    The mean of ``sin^2`` over a cycle is 1/2, of ``sin^4`` 3/8 (exact for any degree below ``2 phases``):

    >>> u = phase_nodes(4)
    >>> round(float(np.mean(u**2)), 15), round(float(np.mean(u**4)), 15), round(float(np.mean(u)), 15)
    (0.5, 0.375, 0.0)
    """
    j = np.arange(1, phases + 1)
    return np.cos((2 * j - 1) * math.pi / (2 * phases))


_NODES = phase_nodes()
""":func:`phase_nodes` at :data:`PHASES`, computed once (read only; the same values as a call)."""
_NODES.flags.writeable = False


def cycle_average(values: ArrayLike) -> Array:
    """The average over the cycle of values at :func:`phase_nodes`, which lie along the last axis [-]."""
    return np.asarray(np.mean(np.asarray(values, dtype=float), axis=-1), dtype=float)


@dataclass(frozen=True)
class RateShape:
    """How the rate moves within a demand point: the rate at each phase as a multiple of the mean, and the share of
    the point's time at each phase.

    A sinusoidal swing of amplitude ``a`` is ``1 + a u`` at the Gauss-Chebyshev nodes ``u`` (:func:`phase_nodes`),
    of equal weight; the windows of an hour (``demand[i].sub_hour``) are their rates over the hour's mean, each
    window's share of the hour its weight. The pointwise stationary approximation treats both alike: the share
    accepted is ``sum_j w_j m_j s(lambda m_j)`` with ``sum_j w_j m_j = 1``.

    Attributes
    ----------
    multipliers
        Rate over mean at each phase, ``(..., phases)``; > 0 [-].
    weights
        Share of time at each phase, the shape of ``multipliers``, summing to 1 along the last axis; None: equal
        weights (the mean is :func:`numpy.mean`, bit for bit the sinusoid's cycle average) [-].
    active
        Where the rate moves, the shape of ``multipliers`` without its last axis: elsewhere every figure stays the
        constant-rate one.
    top
        The highest rate over the mean, the shape of :attr:`active`: the sizing search's upper count is the one for
        it (a swing's ``1 + a``, the crest of the sinusoid; a window's highest ratio) [-].
    """

    multipliers: Array
    weights: Array | None
    active: NDArray[np.bool_]
    top: Array

    @classmethod
    def of_amplitude(cls, amplitude_fraction: ArrayLike) -> RateShape:
        """The sinusoidal swing of amplitude ``a`` (0: none) at :data:`PHASES` equal phases."""
        a = _check_amplitude(amplitude_fraction)
        return cls(1.0 + a[..., None] * _NODES, None, np.asarray(a > 0), 1.0 + a)

    def average(self, values: ArrayLike) -> Array:
        """The time average of values at the phases, which lie along the last axis [-]."""
        if self.weights is None:
            return cycle_average(values)
        return np.asarray(np.sum(np.asarray(values, dtype=float) * self.weights, axis=-1), dtype=float)

    def at(self, index: NDArray[np.intp]) -> RateShape:
        """The shape of point ``index[i]`` for each row ``i``, ``(rows, 1, phases)`` (the sizing point's)."""
        m = self.multipliers.reshape(self.multipliers.shape[-2:])  # one row: the points' shapes are no samples'
        w = None if self.weights is None else self.weights.reshape(m.shape)[index][:, None, :]
        active = self.active.reshape(-1)[index].reshape(-1, 1)
        return RateShape(m[index][:, None, :], w, active, self.top.reshape(-1)[index].reshape(-1, 1))


def point_shapes(policy: FleetPolicy, points: int) -> RateShape:
    """Each demand point's rate shape, ``(1, points, phases)``: its swing (:func:`point_amplitudes`) or its
    sub-hour windows (``FleetPolicy.sub_hour_rate_ratios``), padded with phases of weight 0 to the most phases.

    Without windows anywhere it is :meth:`RateShape.of_amplitude` of the swings, bit for bit.
    """
    swing = RateShape.of_amplitude(point_amplitudes(policy, points))
    windows = policy.sub_hour_rate_ratios
    if not any(windows):
        return swing
    lengths = np.array([len(r) for r in windows])
    swings = bool(np.any(swing.active))
    phases = max(PHASES if swings else 1, int(lengths.max()))
    m = np.ones((1, points, phases))
    w = np.zeros((1, points, phases))
    if swings:
        m[..., :PHASES] = np.broadcast_to(swing.multipliers, (1, points, PHASES))
        w[..., :PHASES] = 1.0 / PHASES
    else:
        w[..., 0] = 1.0  # a point that does not move: one phase at its mean
    active = np.broadcast_to(swing.active, (1, points)).copy()
    top = np.broadcast_to(swing.top, (1, points)).astype(float)
    for size in np.unique(lengths[lengths > 0]):  # the points of each window count at once (every hour of a horizon)
        j = np.flatnonzero(lengths == size)
        r = np.asarray([windows[k] for k in j], dtype=float)
        r = r / np.mean(r, axis=1, keepdims=True)  # a mean of 1 to rounding, whatever the rounding of the ratios
        m[0, j, :] = 1.0
        w[0, j, :] = 0.0
        m[0, j, :size] = r
        w[0, j, :size] = 1.0 / size
        active[0, j] = np.any(r != r[:, :1], axis=1)
        top[0, j] = r.max(axis=1)
    return RateShape(m, w, active, top)


def point_amplitudes(policy: FleetPolicy, points: int) -> Array:
    """Each demand point's swing amplitude, ``(1, points)`` [-] (0 where the point has none)."""
    a = policy.rate_swing_amplitude_fraction or (0.0,) * points
    return np.asarray(a, dtype=float).reshape(1, -1)


def sizing_amplitude(policy: FleetPolicy, rates: Array) -> Array:
    """The swing amplitude at each sample's sizing point, ``(n, 1)`` [-] (as ``FleetPolicy.sizing_variability``)."""
    a = point_amplitudes(policy, rates.shape[1])
    index = np.argmax(rates, axis=1) if policy.sizing_index is None else np.full(rates.shape[0], policy.sizing_index)
    return np.asarray(a[0, index], dtype=float).reshape(-1, 1)


def _check_amplitude(amplitude: ArrayLike) -> Array:
    a = np.asarray(amplitude, dtype=float)
    # (by the least and greatest value, which NaN fails, as does an infinite one: two reductions for the five
    # numpy calls of testing each element, which cost more than the test on a central evaluation's few points)
    if a.size and not (a.min() >= 0 and a.max() <= MAX_AMPLITUDE_FRACTION):
        raise ValueError(f"a rate swing's amplitude must lie in [0, {MAX_AMPLITUDE_FRACTION}], got {amplitude!r}")
    return a


def cycle_accepted_share(
    routing: Routing | str,
    mean_rps: ArrayLike,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    miss_target_fraction: float,
    amplitude_fraction: ArrayLike | RateShape,
    arrival_variability: ArrayLike = 1.0,
    capacity_rps: ArrayLike | None = None,
) -> Array:
    """Arrival-weighted share of requests accepted over the cycle, at a fixed service time and budget [-].

    At each phase the rate ``x = lambda (1 + a u)`` is admitted up to the stationary capacity at SLO ``C`` and the
    admitted requests wait within the budget with the stationary probability at the admitted rate; the share is
    ``mean over phases of min(x, C) (1 - P(W > t | min(x, C))) / lambda`` (module docstring). Bursty arrivals: the
    G/G/c queue at each phase, slots and rates divided by the variability ``v``.

    Parameters
    ----------
    routing
        The router (:mod:`rackcost.model.queues.routing`).
    mean_rps
        Mean arrival rate over the cycle, > 0 [requests/s].
    replicas, slots_per_replica, service_s, budget_s
        Serving replicas [-], slots per replica [requests], slot holding time [s] and queueing budget [s].
    miss_target_fraction
        Share of requests allowed to miss (``1 - attainment``) [-].
    amplitude_fraction
        Swing amplitude ``a`` [-], or a :class:`RateShape` (a sub-hour window's rate at each phase).
    arrival_variability
        G/G/c variability ``v`` (:func:`rackcost.model.queues.burstiness.arrival_variability`) [-].
    capacity_rps
        The stationary capacity at SLO of the replicas, when known [requests/s].

    Returns
    -------
    ndarray
        Accepted share of the offered requests over the cycle [-].

    Examples
    --------
    One M/M/1 slot (S = 1 s, no budget: a request is accepted when it does not wait, probability ``1 - x``) at a
    mean rate of 0.2/s, capacity at a 50% miss target 0.5/s: without a swing ``1 - 0.2``; with ``a = 0.5`` every
    phase is below capacity and the share is ``E[(1 + a U)(1 - 0.2 (1 + a U))] = 1 - 0.2 (1 + a^2 / 2) = 0.775``:

    >>> round(float(cycle_accepted_share("pooled", 0.2, 1, 1.0, 1.0, 0.0, 0.5, 0.0)), 12)
    0.8
    >>> round(float(cycle_accepted_share("pooled", 0.2, 1, 1.0, 1.0, 0.0, 0.5, 0.5)), 12)
    0.775
    """
    shape = (
        amplitude_fraction if isinstance(amplitude_fraction, RateShape) else RateShape.of_amplitude(amplitude_fraction)
    )
    lam = np.asarray(mean_rps, dtype=float)
    v = np.asarray(arrival_variability, dtype=float)
    slots = np.asarray(slots_per_replica, dtype=float) / v
    n = np.asarray(replicas, dtype=np.int64)
    if capacity_rps is None:
        capacity_rps = v * routes.capacity_at_slo(routing, n, slots, service_s, budget_s, miss_target_fraction)
    cap = np.asarray(capacity_rps, dtype=float)[..., None]
    x = lam[..., None] * shape.multipliers
    admitted = np.minimum(x, cap)
    miss, _ = routes.wait_tail(
        routing,
        np.asarray(budget_s, dtype=float)[..., None],
        0.5,
        n[..., None],
        slots[..., None],
        admitted / v[..., None],
        np.asarray(service_s, dtype=float)[..., None],
    )
    return shape.average(admitted * (1.0 - miss)) / lam


def swing_replicas_needed(
    routing: Routing | str,
    mean_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    budget_s: ArrayLike,
    miss_target_fraction: float,
    amplitude_fraction: ArrayLike | RateShape,
    arrival_variability: ArrayLike = 1.0,
    every_window: bool = False,
) -> NDArray[np.int64]:
    """Fewest replicas whose cycle-average accepted share meets the target under a swing [-]; with
    ``every_window``, whose every phase meets it (the count for the top of the swing).

    Integer bisection between the count for the mean rate (no swing can need fewer: a swing never raises the share
    of a fleet that does not shed, Jensen's inequality on the concave accepted rate) and the count for the top of
    the swing ``lambda (1 + a)`` (of a :class:`RateShape`, its highest phase), which meets the target at every
    phase; the share rises with the replicas, so the
    bisection is exact. Where ``a = 0`` the two counts are one and the result is
    :func:`rackcost.model.queues.routing.replicas_needed`'s, bit for bit.

    Parameters
    ----------
    routing, mean_rps, service_s, slots_per_replica, budget_s, miss_target_fraction, amplitude_fraction,
    arrival_variability
        As :func:`cycle_accepted_share` (``mean_rps`` the sizing demand).
    every_window
        Size for the busiest phase rather than the cycle average
        (:attr:`rackcost.model.strategies.SubHourSizing.every_window`).

    Examples
    --------
    One-slot replicas, S = 1 s, no budget, 1/s pooled: with at most 10% waiting, 3 replicas without a swing
    (``C(3, 1) = 1/11``) and 4 with a +/-20% swing (3 accept 0.874 of the cycle); with at most 30% waiting and a
    +/-90% swing, 3 still suffice on the cycle average (0.767), though the top of the swing alone would need 4:

    >>> cases = ((0.1, 0.0), (0.1, 0.2), (0.3, 0.9))
    >>> [int(swing_replicas_needed("pooled", 1.0, 1.0, 1.0, 0.0, eps, a)) for eps, a in cases]
    [3, 4, 3]
    >>> int(swing_replicas_needed("pooled", 1.0, 1.0, 1.0, 0.0, 0.3, 0.9, every_window=True))
    4
    """
    if isinstance(amplitude_fraction, RateShape):
        a: Array | RateShape = amplitude_fraction
        top: ArrayLike = amplitude_fraction.top
    else:
        a = _check_amplitude(amplitude_fraction)
        top = 1.0 + a
    lam = np.asarray(mean_rps, dtype=float)
    v = np.asarray(arrival_variability, dtype=float)
    slots = np.asarray(slots_per_replica, dtype=float) / v
    lo = routes.replicas_needed(routing, lam / v, service_s, slots, budget_s, miss_target_fraction)
    hi = routes.replicas_needed(routing, lam * top / v, service_s, slots, budget_s, miss_target_fraction)
    if every_window:
        return np.asarray(np.broadcast_to(hi, np.broadcast_shapes(np.shape(lo), np.shape(hi))), dtype=np.int64)
    lo, hi = np.broadcast_arrays(lo, hi)
    lo, hi = lo.copy(), hi.copy()
    target = 1.0 - miss_target_fraction
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        share = cycle_accepted_share(
            routing, lam, mid, slots_per_replica, service_s, budget_s, miss_target_fraction, a, v
        )
        ok = (share >= target) | (lo >= hi)
        hi = np.where(ok & (lo < hi), mid, hi)
        lo = np.where(ok, lo, mid + 1)
    return np.asarray(hi, dtype=np.int64)


def swing_capacity_rps(
    routing: Routing | str,
    replicas: ArrayLike,
    slots_per_replica: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    miss_target_fraction: float,
    amplitude_fraction: ArrayLike | RateShape,
    arrival_variability: ArrayLike = 1.0,
    capacity_rps: ArrayLike | None = None,
    every_window: bool = False,
) -> Array:
    """Capacity at SLO under a swing: the largest mean rate whose cycle-average accepted share meets the target
    [requests/s]; with ``every_window``, whose busiest phase does, the stationary capacity ``C`` over the top of
    the swing.

    The share falls as the mean rate rises (each phase's share does and the phase weights do not move), so
    bisection finds it: from ``C / (1 + a)`` (no phase above the stationary capacity ``C``: feasible) up to a rate
    found infeasible by stepping ``x (1 + a)``; the feasible end is returned. ``a = 0`` gives ``C`` itself.

    Parameters
    ----------
    routing, replicas, slots_per_replica, service_s, budget_s, miss_target_fraction, amplitude_fraction,
    arrival_variability, capacity_rps
        As :func:`cycle_accepted_share`.
    every_window
        As :func:`swing_replicas_needed`.

    Examples
    --------
    One M/M/1 slot, S = 1 s, no budget, half may wait: ``C = 0.5`` (the root less the model's 1e-9 margin). With a
    +/-50% swing the accepted rate at a phase is ``x (1 - x)`` up to ``C`` and ``1/4`` above it; the mean rate whose
    cycle share is 1/2 is 0.460232 (:func:`scipy.integrate.quad` and a root finder agree to 1e-6):

    >>> float(swing_capacity_rps("pooled", 1, 1.0, 1.0, 0.0, 0.5, 0.0))
    0.4999999995
    >>> round(float(swing_capacity_rps("pooled", 1, 1.0, 1.0, 0.0, 0.5, 0.5)), 5)
    0.46023
    >>> round(float(swing_capacity_rps("pooled", 1, 1.0, 1.0, 0.0, 0.5, 0.5, every_window=True)), 5)
    0.33333
    """
    if isinstance(amplitude_fraction, RateShape):
        a: Array | RateShape = amplitude_fraction
        top, moving = amplitude_fraction.top, amplitude_fraction.active
    else:
        a = _check_amplitude(amplitude_fraction)
        top, moving = 1.0 + a, a > 0
    v = np.asarray(arrival_variability, dtype=float)
    n = np.asarray(replicas, dtype=np.int64)
    if capacity_rps is None:
        slots = np.asarray(slots_per_replica, dtype=float) / v
        capacity_rps = v * routes.capacity_at_slo(routing, n, slots, service_s, budget_s, miss_target_fraction)
    cap = np.asarray(capacity_rps, dtype=float)
    if every_window:
        return np.asarray(np.where(moving, cap / np.asarray(top, dtype=float), cap), dtype=float)
    target = 1.0 - miss_target_fraction

    def feasible(rate: Array) -> NDArray[np.bool_]:
        share = cycle_accepted_share(
            routing, rate, n, slots_per_replica, service_s, budget_s, miss_target_fraction, a, v, cap
        )
        return np.asarray(share >= target)

    shape = np.broadcast_shapes(cap.shape, np.shape(top), n.shape, np.shape(v))
    cap_b = np.broadcast_to(cap, shape)
    lo = cap_b / np.broadcast_to(top, shape)
    hi = cap_b.copy()
    for _ in range(200):  # the share falls to 0 as the rate grows: a few steps of (1 + a) reach an infeasible rate
        ok = feasible(hi) & (hi > lo)
        if not np.any(ok):
            break
        lo = np.where(ok, hi, lo)
        hi = np.where(ok, hi * np.broadcast_to(top, shape), hi)
    swinging = np.broadcast_to(moving, shape)
    for _ in range(_CAPACITY_HALVINGS):
        mid = 0.5 * (lo + hi)
        ok = feasible(mid)
        lo = np.where(ok, mid, lo)
        hi = np.where(ok, hi, mid)
    return np.asarray(np.where(swinging, lo, cap_b), dtype=float)


def swing_slo_replicas(
    policy: FleetPolicy,
    rates: Array,
    sizing_rps: Array,
    service_s: Array,
    concurrency: float,
    budget_s: float,
    miss_target_fraction: float,
    max_utilization_fraction: Array,
) -> NDArray[np.int64] | None:
    """Replicas the SLO and the utilisation ceiling need at the sizing demand under its swing (or its sub-hour
    windows), ``(n, 1)``, for its busiest window or its hour's average as ``policy.sub_hour_sizing`` says; None
    where no sample's sizing point moves (the fleet's count is then the constant-rate one, bit for bit).

    The swing count (:func:`swing_replicas_needed`, at the sizing point's G/G/c variability) before the ceiling,
    which stays on the mean rate (utilisation is a mean figure).
    """
    shapes = point_shapes(policy, rates.shape[1])
    if not any_of(shapes.active):  # no point moves: no sample's sizing point does (without a search per sample)
        return None
    index = np.argmax(rates, axis=1) if policy.sizing_index is None else np.full(rates.shape[0], policy.sizing_index)
    amplitude = shapes.at(index)
    if not any_of(amplitude.active):
        return None
    # a spread service time: the budget judged as budget / stretch (rackcost.model.queues.burstiness.wait_stretch)
    budget = budget_s if policy.service_scv == 1.0 else budget_s / policy.sizing_stretch(rates)
    needed = swing_replicas_needed(
        policy.routing,
        sizing_rps,
        service_s,
        concurrency,
        budget,
        miss_target_fraction,
        amplitude,
        policy.sizing_variability(rates),
        policy.sub_hour_sizing.every_window,
    )
    return sized_replicas(needed, sizing_rps, service_s, concurrency, max_utilization_fraction)


def swing_too_fast(period_s: float, service_s: float) -> bool:
    """Whether a swing is too fast for the pointwise stationary approximation: ``T <``
    :data:`VALID_PERIOD_SERVICE_TIMES` ``x S`` (module docstring).

    Examples
    --------
    >>> swing_too_fast(60.0, 10.0), swing_too_fast(600.0, 10.0)
    (True, False)
    """
    return period_s < VALID_PERIOD_SERVICE_TIMES * service_s


def _on_phases(x: ArrayLike, points: int, phases: int = PHASES) -> Array:
    """A per-point (or per-sample) array laid out on the phase columns, ``(rows, points * phases)``."""
    arr = np.asarray(x)
    arr = np.broadcast_to(arr, (arr.shape[0] if arr.ndim == 2 else 1, points))
    return np.repeat(arr, phases, axis=1)


def serve_with_swing(
    stationary: DemandOutcome,
    amplitude_fraction: ArrayLike | RateShape,
    serving_replicas: ArrayLike,
    concurrency: float,
    service_s: ArrayLike,
    budget_s: float,
    slo: SloInputs,
    idle_policy: IdlePolicy | str,
    max_utilization_fraction: ArrayLike,
    load: LoadCurve | None,
    routing: Routing | str,
    arrival_variability: ArrayLike = 1.0,
    wait_stretch: ArrayLike = 1.0,
    sizing: SubHourSizing = SubHourSizing.hour_average,
) -> DemandOutcome:
    """The demand points of ``stationary`` with their rate swings: the pointwise stationary approximation.

    The same active replicas serve the whole cycle (a swing of minutes is too fast to park replicas in and out;
    under ``park`` a point keeps the replicas its swing needs, at most the serving ones). Each phase is served as a
    demand point of its own (:func:`rackcost.model.fleets.demand.serve_demand`, the operating point moving with the
    phase's load), and the cycle averages replace the admitted, accepted and rejected rates; the capacity at SLO
    is :func:`swing_capacity_rps` (for ``sizing``'s rule) and a point is overloaded when its mean rate exceeds
    it. Slot utilisation and the concurrency in service are their time averages over the cycle (so power is read at
    the mean occupancy, as without a swing); the service time, latencies and p99 figures stay those of the mean
    rate. Points without a swing keep every figure bit for bit.

    Why this long: the fleet's inputs flat, as :func:`rackcost.model.fleets.fleet.run_fleet` holds them (the stationary
    outcome, the swing, and the twelve inputs of :func:`rackcost.model.fleets.demand.serve_demand` with its steps); the
    body lays the phases out and serves them through :class:`rackcost.model.fleets.demand.DemandSteps`.

    Parameters
    ----------
    stationary
        The points served at their mean rates (:func:`rackcost.model.fleets.demand.serve_demand`).
    amplitude_fraction
        Each point's swing amplitude, ``(1, points)`` or ``(n, points)`` [-], or each point's
        :class:`RateShape` (``(1, points, phases)``: sub-hour windows; :func:`point_shapes`).
    serving_replicas, concurrency, service_s, budget_s, slo, idle_policy, max_utilization_fraction, load, routing,
    arrival_variability, wait_stretch
        As :func:`rackcost.model.fleets.demand.serve_demand` and :meth:`rackcost.model.fleets.demand.DemandSteps.of`, at
        the chosen point.
    sizing
        What a point that moves needs: its busiest window at the SLO, or its hour's average (the replicas ``park``
        keeps active at it and its capacity at SLO; :class:`~rackcost.model.strategies.SubHourSizing`).
    """
    a = amplitude_fraction if isinstance(amplitude_fraction, RateShape) else RateShape.of_amplitude(amplitude_fraction)
    lam = np.asarray(stationary.offered_rps, dtype=float)
    swinging = np.broadcast_to(a.active, lam.shape)
    if not np.any(swinging):
        return stationary
    phases = a.multipliers.shape[-1]
    rows, points = lam.shape
    v = np.asarray(arrival_variability, dtype=float)
    v = np.broadcast_to(v, (v.shape[0] if v.ndim == 2 else 1, points))
    stretch = np.asarray(wait_stretch, dtype=float)
    stretch = np.broadcast_to(stretch, (stretch.shape[0] if stretch.ndim == 2 else 1, points))
    # the capacity and replica searches judge the budget in the arrival-scaled queue as budget / stretch
    budget_eff = budget_s if np.all(stretch == 1.0) else budget_s / stretch
    fleet = _Swung(a, routing, concurrency, service_s, budget_eff, slo.miss_target_fraction, v, sizing.every_window)
    serving = np.asarray(serving_replicas, dtype=np.int64)
    mean, active, hint = stationary, np.asarray(stationary.active_replicas, dtype=np.int64), None
    fixed = (concurrency, service_s, budget_s, slo.attainment_fraction, IdlePolicy.powered, max_utilization_fraction)
    if IdlePolicy(idle_policy).parks:
        needed = sized_replicas(fleet.replicas_needed(lam), lam, service_s, concurrency, max_utilization_fraction)
        active = np.asarray(np.where(swinging, np.minimum(needed, serving), active), dtype=np.int64)
        # the mean-rate figures of a swinging point on the replicas its swing keeps active
        steps = DemandSteps.of(routing, v, stretch)
        mean = _where(swinging, serve_demand(lam, active, *fixed, load=load, slo=slo, steps=steps), stationary)
    else:  # every serving replica serves: the stationary capacity of the fleet is a known-feasible rate
        hint = _on_phases(stationary.capacity_at_slo_rps / v, points, phases)
    offered = (lam[..., None] * np.broadcast_to(a.multipliers, (*lam.shape, phases))).reshape(rows, -1)
    # an idle window (a rate of 0) is served at the lowest rate a demand point has, its figures scaled back to its
    # own rate (an exact 1 wherever the rate is above it: every figure then as it was)
    phase_rates = np.maximum(offered, MIN_PHASE_RPS)
    own = offered / phase_rates
    steps = DemandSteps.of(routing, _on_phases(v, points, phases), _on_phases(stretch, points, phases))
    phase_active = _on_phases(active, points, phases)
    served = serve_demand(phase_rates, phase_active, *fixed, feasible_rps=hint, load=load, slo=slo, steps=steps)

    def over_cycle(x: Array) -> Array:
        return a.average(np.broadcast_to(x, phase_rates.shape).reshape(rows, points, phases))

    admitted, accepted = over_cycle(served.admitted_rps * own), over_cycle(served.accepted_rps * own)
    capacity_active = fleet.capacity_rps(active)
    same = np.array_equal(np.broadcast_to(active, lam.shape), np.broadcast_to(serving, lam.shape))
    capacity = np.broadcast_to(capacity_active if same else fleet.capacity_rps(serving), lam.shape)
    rejected = lam - accepted
    swung = replace(
        mean,
        admitted_rps=admitted,
        accepted_rps=accepted,
        rejected_rps=rejected,
        rejected_fraction=rejected / lam,
        capacity_at_slo_rps=capacity,
        spare_capacity_fraction=(capacity - lam) / capacity,
        utilization_fraction=over_cycle(served.utilization_fraction),
        in_service_concurrency=over_cycle(served.in_service_concurrency),
        overloaded=lam > np.broadcast_to(capacity_active, lam.shape) * (1 + OVERLOAD_TOLERANCE_FRACTION),
    )
    return _where(swinging, swung, stationary)


@dataclass(frozen=True, slots=True)
class _Swung:
    """A fleet's searches under a swing: its shape, routing, slots, service time, the budget as the searches judge
    it, the miss target, the arrivals' variability and the sizing rule (:class:`SubHourSizing.every_window`)."""

    shape: RateShape
    routing: Routing | str
    concurrency: float
    service_s: ArrayLike
    budget_s: ArrayLike
    miss_target_fraction: float
    variability: ArrayLike
    every_window: bool

    def replicas_needed(self, mean_rps: ArrayLike) -> NDArray[np.int64]:
        """:func:`swing_replicas_needed` at each point's mean rate."""
        queue = (self.routing, mean_rps, self.service_s, self.concurrency, self.budget_s, self.miss_target_fraction)
        return swing_replicas_needed(*queue, self.shape, self.variability, self.every_window)

    def capacity_rps(self, replicas: ArrayLike) -> Array:
        """:func:`swing_capacity_rps` of ``replicas``."""
        queue = (self.routing, replicas, self.concurrency, self.service_s, self.budget_s, self.miss_target_fraction)
        return swing_capacity_rps(*queue, self.shape, self.variability, every_window=self.every_window)


def _where(mask: NDArray[np.bool_], chosen: DemandOutcome, other: DemandOutcome) -> DemandOutcome:
    """Each array figure of ``chosen`` where ``mask`` (a point's column), else of ``other`` (bit for bit)."""
    out = {}
    for f in fields(other):
        x, y = getattr(chosen, f.name), getattr(other, f.name)
        if isinstance(y, np.ndarray) and isinstance(x, np.ndarray):
            out[f.name] = np.asarray(np.where(mask, x, y), dtype=y.dtype)
    return replace(other, **out)
