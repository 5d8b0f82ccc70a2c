"""One provisioned fleet at each demand point (docs/model.md, 6. Each demand point).

The fleet's size is fixed; demand varies. With the ``powered`` idle policy every serving replica is on and serving
(replicas held for availability stand by); with ``park`` only the replicas the point needs serve and the rest are
parked. At each point the operating point moves with the load: the batch in service, and so the service time, TTFT
and TPOT, are those of the curve at the concurrency the load sustains. Offered load above what the serving
replicas carry within the SLO is dropped by admission control; below it, requests that wait longer than the
queueing budget are served late and count as SLO misses. Everything vectorises over demand points.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.inputs import SloInputs
from rackcost.model.outcomes import DemandOutcome
from rackcost.model.queues import routing as routes
from rackcost.model.queues import stretch_rule as rule
from rackcost.model.queues.burstiness import point_wait_stretch
from rackcost.model.queues.class_ttft import (
    NO_WAIT_LEVELS,
    StratifiedLaw,
    class_and_mixture_quantiles_ms,
    fixed_law,
    stack_laws,
    sum_quantile_ms,
)
from rackcost.model.queues.erlang import broadcast_few, broadcast_to_few, erlang_c_checked
from rackcost.model.queues.occupancy import occupancy_spread, start_occupancy_quantile, waiting_share
from rackcost.model.replica.operating_point import queueing_budget_s
from rackcost.model.replica.performance import LoadCurve, in_service_concurrency
from rackcost.model.strategies import DEFAULT_ROUTING, IdlePolicy, Routing
from rackcost.model.workload.classes import ClassMix, class_budgets_s, class_ttft_ms
from rackcost.units import MS_PER_S

__all__ = [
    "OVERLOAD_TOLERANCE_FRACTION",
    "TTFT_PERCENTILE_FRACTION",
    "FleetCapacity",
    "fleet_capacity",
    "serve_at_capacity",
    "serve_demand",
]

TTFT_PERCENTILE_FRACTION = 0.99
"""The TTFT percentile reported at each demand point (p99) [-]."""
OVERLOAD_TOLERANCE_FRACTION = 1e-12
"""A point is overloaded when its rate exceeds the capacity at SLO by more than this share: a rate equal to the
capacity up to rounding (the sizing demand of a fleet sized exactly for it) is not overload [-]."""


def serve_demand(
    offered_rps: ArrayLike,
    serving_replicas: ArrayLike,
    concurrency: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    attainment_fraction: float,
    idle_policy: IdlePolicy | str = IdlePolicy.powered,
    max_utilization_fraction: ArrayLike = 1.0,
    feasible_rps: ArrayLike | None = None,
    load: LoadCurve | None = None,
    slo: SloInputs | None = None,
    routing: Routing | str = DEFAULT_ROUTING,
    arrival_variability: ArrayLike = 1.0,
    feasible_rps_scaled: bool = False,
    wait_stretch: ArrayLike = 1.0,
    more_constraints: Sequence[tuple[float, float]] = (),
) -> DemandOutcome:
    """Serve each demand point with the same fleet; the operating point moves with the load (docs/model.md, step 6).

    The fleet's capacity at SLO, and under ``park`` the replicas a point needs, are those of the chosen operating
    point (the scheduler's concurrency limit, where the fleet was sized). At each point the replicas that serve
    admit what the SLO allows; the concurrency in service per replica is the fixed point of Little's law on the
    replica's curve (:func:`rackcost.model.replica.performance.in_service_concurrency`), and the service time, TTFT and
    TPOT are read there; the wait tail, and so acceptance and p99 TTFT, use them.

    Parameters
    ----------
    offered_rps
        Arrival rate at each demand point [requests/s].
    serving_replicas
        Replicas that serve; replicas held for availability stand by [-].
    concurrency
        Slots per replica: the chosen point's concurrency, the scheduler's limit [requests].
    service_s, budget_s
        Slot holding time and queueing budget at the chosen point [s].
    attainment_fraction
        SLO attainment target, used for capacity at SLO and, under ``park``, for how many replicas serve [-].
    idle_policy
        :class:`~rackcost.model.strategies.IdlePolicy` (or its name): under ``park`` only the replicas a point
        needs serve.
    max_utilization_fraction
        Utilisation ceiling that ``park`` keeps when deciding how many replicas serve [-].
    feasible_rps
        Optional: a rate the serving replicas are known to serve within the SLO (the demand they were sized for);
        it speeds up the search for the capacity at SLO [requests/s].
    load, slo
        The replica's load curve and the SLO, to move the operating point with the load; without them the chosen
        point holds at every load (a curve of one point). The output length's spread enters through
        ``wait_stretch``, never here.
    routing
        How requests are spread over the replicas (:mod:`rackcost.model.queues.routing`); ``pooled`` is one M/M/k over
        all slots.
    arrival_variability
        Each point's G/G/c variability (:func:`rackcost.model.queues.burstiness.arrival_variability`; 1 for Poisson):
        its queue is solved as M/M/c with slots and rates divided by it [-].
    feasible_rps_scaled
        ``feasible_rps`` is a rate of that scaled queue (already divided by the variability), so it is used even
        where arrivals are bursty; else it is used only where every point is Poisson.
    wait_stretch
        Each point's stretch of the conditional wait by the service time's spread
        (:func:`rackcost.model.queues.burstiness.wait_stretch`; 1 for exponential service): every budget is judged as
        ``budget / stretch`` in the queue above, and the p99 wait read there is multiplied by it [-].
    more_constraints
        Further (budget [s], miss target [-]) pairs of request classes with other attainment targets
        (``ChosenPoint.more_constraints``): the capacity at SLO meets them all, and under ``park`` the active
        replicas too. With request classes (``slo.classes``) every class is accepted within its own budget.

    The fleet arguments may carry a leading sample axis (shape ``(n, 1)`` against ``offered_rps`` of shape
    ``(n, points)``): everything broadcasts.

    Returns
    -------
    DemandOutcome
    """
    lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
    v = np.asarray(arrival_variability, dtype=float)
    capacity = fleet_capacity(
        lam,
        serving_replicas,
        concurrency,
        service_s,
        budget_s,
        attainment_fraction,
        idle_policy,
        max_utilization_fraction,
        feasible_rps,
        routing,
        v,
        feasible_rps_scaled,
        wait_stretch,
        more_constraints,
    )
    return serve_at_capacity(lam, capacity, concurrency, service_s, budget_s, load, slo, routing, v, wait_stretch)


@dataclass(frozen=True)
class FleetCapacity:
    """What a fleet can carry at each demand point: the first half of :func:`serve_demand`.

    Attributes
    ----------
    capacity_rps
        Capacity at SLO of the serving fleet, per sample (or per point where arrivals are bursty) [requests/s].
    active_replicas
        Replicas that serve at each point [-].
    capacity_active_rps
        Capacity at SLO of the active replicas at each point: what admission control admits up to [requests/s].
    """

    capacity_rps: NDArray[np.float64]
    active_replicas: NDArray[np.int64]
    capacity_active_rps: NDArray[np.float64]

    @staticmethod
    def stack(parts: list[tuple[FleetCapacity, int]], points: int) -> FleetCapacity:
        """Several capacities of one sample's ``points`` demand points, one after another: each ``(capacity, rows)``
        broadcast to ``(rows, points)``."""
        return FleetCapacity(
            *(
                np.concatenate([_shaped(getattr(c, name), (rows, points)) for c, rows in parts])
                for name in ("capacity_rps", "active_replicas", "capacity_active_rps")
            )
        )


_IDLE_POLICIES = tuple(IdlePolicy)


def fleet_capacity(
    offered_rps: ArrayLike,
    serving_replicas: ArrayLike,
    concurrency: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    attainment_fraction: float,
    idle_policy: IdlePolicy | str = IdlePolicy.powered,
    max_utilization_fraction: ArrayLike = 1.0,
    feasible_rps: ArrayLike | None = None,
    routing: Routing | str = DEFAULT_ROUTING,
    arrival_variability: ArrayLike = 1.0,
    feasible_rps_scaled: bool = False,
    wait_stretch: ArrayLike = 1.0,
    more_constraints: Sequence[tuple[float, float]] = (),
) -> FleetCapacity:
    """The capacity at SLO and the replicas that serve at each point: the first half of :func:`serve_demand`
    (same parameters). The second, :func:`serve_at_capacity`, is elementwise in the demand points, so the rows of
    several fleets' capacities can be served in one call (:meth:`FleetCapacity.stack`).

    With ``more_constraints`` (request classes of other attainment targets) the capacity is the smallest over the
    constraints and the replicas a point needs the largest: the fleet meets every class's target."""
    lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
    miss_target = 1.0 - attainment_fraction
    serving = np.asarray(serving_replicas, dtype=np.int64)
    service_s = np.asarray(service_s, dtype=float)
    concurrency = np.asarray(concurrency, dtype=float)
    # bursty arrivals: the G/G/c queue as M/M/c with slots and rates divided by the variability
    # (rackcost.model.queues.burstiness); Poisson points keep every figure bit for bit
    v = np.asarray(arrival_variability, dtype=float)
    poisson = bool((v == 1.0).all())
    slots = concurrency if poisson else concurrency / v
    scale = 1.0 if poisson else v
    # the service time's spread stretches the conditional wait (rackcost.model.queues.burstiness.wait_stretch);
    # exponential
    # service (stretch 1) skips it, so every figure stays bit for bit
    # (model.stretch_rule: each budget judged at the stretch of the searched load, as acceptance judges it)
    stretch = np.asarray(wait_stretch, dtype=float)
    pairs = [(budget_s, miss_target), *more_constraints]
    # capacity at SLO of the serving fleet (one value per sample, or per point where arrivals are bursty); the
    # sizing rate is a known-feasible hint only for Poisson arrivals at every point
    hint = feasible_rps if poisson or feasible_rps_scaled else None
    if idle_policy not in _IDLE_POLICIES:
        raise ValueError(f"idle_policy must be 'powered' or 'park', got {idle_policy!r}")
    if not IdlePolicy(idle_policy).parks:
        capacity = scale * _smallest(
            [rule.capacity_at_slo(routing, serving, slots, service_s, b, m, hint, stretch, v) for b, m in pairs]
        )
        active = broadcast_to_few(serving, lam.shape).astype(np.int64)
        capacity_active = broadcast_to_few(capacity, lam.shape)
        return FleetCapacity(np.asarray(capacity, dtype=float), active, np.asarray(capacity_active, dtype=float))
    ceiling = sized_replicas(1, lam, service_s, concurrency, max_utilization_fraction)
    needed = _largest(
        [rule.replicas_needed(routing, lam / scale, service_s, slots, b, m, stretch, v, ceiling) for b, m in pairs]
    )
    active = np.minimum(needed, serving)
    # the serving fleet's capacity and the active replicas' in one search per constraint (the search is
    # elementwise, so each half is what it is alone; one call rather than two is most of the saving on a few
    # points): the first half with the hint, the second from the closed-form start as before
    shape = np.broadcast_shapes(
        lam.shape,
        np.shape(serving),
        np.shape(slots),
        np.shape(service_s),
        np.shape(scale),
        np.shape(stretch),
        *(np.shape(b) for b, _ in pairs),
    )
    two = _twice(shape)
    start = None if hint is None else np.concatenate([np.broadcast_to(hint, shape), np.zeros(shape)])
    both = _smallest(
        [
            rule.capacity_at_slo(
                routing,
                np.concatenate([np.broadcast_to(serving, shape), np.broadcast_to(active, shape)]),
                two(slots),
                two(service_s),
                two(b),
                two(m),
                start,
                two(stretch),
                two(v),
            )
            for b, m in pairs
        ]
    )
    capacity, capacity_active = scale * both[: shape[0]], scale * both[shape[0] :]
    return FleetCapacity(np.asarray(capacity, dtype=float), active, np.asarray(capacity_active, dtype=float))


def _twice(shape: tuple[int, ...]) -> Callable[[ArrayLike], NDArray[np.float64]]:
    """A function that stacks an argument broadcast to ``shape`` on itself along the first axis (a scalar stays)."""

    def two(x: ArrayLike) -> NDArray[np.float64]:
        a = np.asarray(x, dtype=float)
        if a.ndim == 0:
            return a
        full = np.broadcast_to(a, shape)
        return np.concatenate([full, full])

    return two


def _smallest(values: list[NDArray[np.float64]]) -> NDArray[np.float64]:
    """The elementwise smallest of one or more arrays (the one array itself when there is one: bit for bit)."""
    return values[0] if len(values) == 1 else np.minimum.reduce(np.broadcast_arrays(*values))


def _largest(values: list[NDArray[np.int64]]) -> NDArray[np.int64]:
    """The elementwise largest of one or more arrays (the one array itself when there is one)."""
    return values[0] if len(values) == 1 else np.maximum.reduce(np.broadcast_arrays(*values))


def serve_at_capacity(
    offered_rps: ArrayLike,
    capacity: FleetCapacity,
    concurrency: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    load: LoadCurve | None = None,
    slo: SloInputs | None = None,
    routing: Routing | str = DEFAULT_ROUTING,
    arrival_variability: ArrayLike = 1.0,
    wait_stretch: ArrayLike = 1.0,
    percentiles: bool = True,
) -> DemandOutcome:
    """Each demand point served by the replicas and capacity of :func:`fleet_capacity`: the second half of
    :func:`serve_demand` (same parameters). ``percentiles=False`` leaves out the reported p99 TTFT and TPOT (the
    start occupancy's quantile, most of the cost on many points; ``ttft_p99_ms`` and ``tpot_p99_ms`` are then None)
    for a caller that reads none of them (:func:`rackcost.evaluation.horizon.evaluate_hours`).

    Every figure is elementwise in the demand points (and the sample rows), so stacking rows of different fleets or
    variabilities gives each row the figures it has alone, bit for bit: a variability of 1 divides exactly.
    """
    lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
    service_s = np.asarray(service_s, dtype=float)
    concurrency = np.asarray(concurrency, dtype=float)
    v = np.asarray(arrival_variability, dtype=float)
    poisson = bool((v == 1.0).all())
    slots = concurrency if poisson else concurrency / v
    scale = 1.0 if poisson else v
    # the service time's spread, as in fleet_capacity (a stretch of 1 divides and multiplies exactly)
    stretch = np.asarray(wait_stretch, dtype=float)
    exponential = bool((stretch == 1.0).all())
    active = capacity.active_replicas
    capacity_active = capacity.capacity_active_rps
    slots_active = active * concurrency
    admitted = np.minimum(lam, capacity_active)
    if load is None or slo is None:
        in_service = admitted * service_s / active
        point_service_s = np.broadcast_to(service_s, lam.shape)
        point_budget_s = np.broadcast_to(np.asarray(budget_s, dtype=float), lam.shape)
        ttft_ms = tpot_ms = None
    else:
        in_service = in_service_concurrency(load, admitted / active)
        point_service_s, ttft_ms, tpot_ms = load.figures_at(in_service)
        point_budget_s = queueing_budget_s(ttft_ms, tpot_ms, slo.output_tokens, slo.ttft_limit_ms, slo.e2e_limit_ms)
    if not exponential:
        # at the point's own load the heavy-traffic stretch gives way to the M/G/s interpolation
        # (rackcost.model.queues.burstiness.point_wait_stretch); the capacity searches keep the heavy-traffic one
        servers = routes.analytic_queue(str(routing)).servers(active, concurrency)
        stretch = point_wait_stretch(stretch, v, admitted * point_service_s / slots_active, servers)
        point_budget_s = point_budget_s / stretch
    mix = None if slo is None or load is None else slo.classes
    class_miss = None
    if mix is None:
        miss, wait_p99_s = routes.wait_tail(
            routing, point_budget_s, TTFT_PERCENTILE_FRACTION, active, slots, admitted / scale, point_service_s
        )
    else:  # each class within its own budget, in the one queue (rackcost.model.workload.classes)
        assert ttft_ms is not None and tpot_ms is not None
        budgets = class_budgets_s(mix, ttft_ms, tpot_ms)
        if not exponential:
            budgets = budgets / stretch[..., None]
        class_miss, wait_p99_s = routes.wait_tails(
            routing, budgets, TTFT_PERCENTILE_FRACTION, active, slots, admitted / scale, point_service_s
        )
        miss = 1.0 - np.sum(mix.share_fraction * (1.0 - class_miss), axis=-1)
    if not exponential:
        wait_p99_s = wait_p99_s * stretch
    wait_p99_ms = np.asarray(wait_p99_s, dtype=float) * MS_PER_S
    ttft_p99_ms = tpot_p99_ms = class_ttft_p99_ms = None
    if load is not None and slo is not None and percentiles:
        # the reported percentiles at the occupancy a request starts at (rackcost.model.queues.occupancy); the mean
        # figures above stay at the mean occupancy
        # the occupancy queue: slots and rates divided by the burstiness and by the spread of a load-dependent service
        spread = occupancy_spread(load, in_service, point_service_s)
        occupancy = (routing, active, concurrency, slots / spread, admitted / scale / spread, point_service_s)
        if mix is None:
            start, delay = _start_occupancy(*occupancy, v * spread)
            waiting, decay = _waiting(routing, delay, active, concurrency, admitted, service_s, v)
        else:
            # the classes' no-wait levels depend on the share that waits: the queue's Erlang C first, then every
            # level's start occupancy in one call with the p99's (the same figures as one call each)
            pool, _, load_erlangs = _occupancy_queue(routing, active, *occupancy[3:])
            delay = erlang_c_checked(pool, load_erlangs)
            waiting, decay = _waiting(routing, delay, active, concurrency, admitted, service_s, v)
            full = np.broadcast(delay, waiting, v * spread, active, concurrency).shape
            no_wait = NO_WAIT_LEVELS.reshape((-1,) + (1,) * len(full)) * (1.0 - waiting)
            levels = np.concatenate(
                [np.full((1, *full), TTFT_PERCENTILE_FRACTION), broadcast_to_few(no_wait, (no_wait.shape[0], *full))]
            )
            starts, _ = _start_occupancy(*occupancy, v * spread, levels, delay)
            start = starts[0]
        start_ttft_ms, tpot_p99_ms = load.latencies_at(start)
        reported_ms = _reported_wait_p99_ms(waiting, decay, stretch)
        ttft_p99_ms = start_ttft_ms + reported_ms
        if mix is not None:  # each class's TTFT at that occupancy, the same wait
            class_ttft_p99_ms = class_ttft_ms(mix, start_ttft_ms) + np.asarray(reported_ms)[..., None]
            prefill = _class_prefill_ms(load, starts[1:], concurrency, decay, stretch, np.shape(ttft_p99_ms))
            # the mix's p99: of a request drawn from the mix, every class's TTFT law weighed by its share (one class:
            # its own, which for one input length is the single shape's bit for bit)
            class_ttft_p99_ms, ttft_p99_ms = _class_and_mix_p99_ms(mix, class_ttft_p99_ms, prefill, waiting)
    if class_miss is None:
        accepted = admitted * (1.0 - miss)
    else:
        assert mix is not None
        accepted = admitted * np.sum(mix.share_fraction * (1.0 - class_miss), axis=-1)
    rejected = lam - accepted
    shape = lam.shape
    return DemandOutcome(
        offered_rps=lam,
        admitted_rps=admitted,
        accepted_rps=accepted,
        rejected_rps=rejected,
        rejected_fraction=rejected / lam,
        active_replicas=active,
        utilization_fraction=admitted * point_service_s / slots_active,
        capacity_at_slo_rps=np.broadcast_to(capacity.capacity_rps, shape),  # read-only view
        spare_capacity_fraction=(capacity.capacity_rps - lam) / capacity.capacity_rps,
        wait_p99_ms=wait_p99_ms,
        overloaded=lam > capacity_active * (1 + OVERLOAD_TOLERANCE_FRACTION),
        in_service_concurrency=_shaped(in_service, shape),
        service_s=_shaped(point_service_s, shape),
        ttft_ms=None if ttft_ms is None else _shaped(ttft_ms, shape),
        tpot_ms=None if tpot_ms is None else _shaped(tpot_ms, shape),
        ttft_p99_ms=None if ttft_p99_ms is None else _shaped(ttft_p99_ms, shape),
        tpot_p99_ms=None if tpot_p99_ms is None else _shaped(tpot_p99_ms, shape),
        class_miss_fraction=None if class_miss is None else _shaped(class_miss, (*shape, class_miss.shape[-1])),
        class_ttft_p99_ms=None
        if class_ttft_p99_ms is None
        else _shaped(class_ttft_p99_ms, (*shape, class_ttft_p99_ms.shape[-1])),
    )


def _shaped(a: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    """``a`` broadcast to ``shape``, or ``a`` itself where it has that shape (np.broadcast_to costs more than the
    figures of a central evaluation)."""
    return a if a.shape == shape else np.broadcast_to(a, shape)


def _start_occupancy(
    routing: Routing | str,
    active: NDArray[np.int64],
    concurrency: NDArray[np.float64],
    slots: NDArray[np.float64],
    rate_rps: NDArray[np.float64],
    service_s: NDArray[np.float64],
    variability: NDArray[np.float64],
    q_fraction: float | NDArray[np.float64] = TTFT_PERCENTILE_FRACTION,
    known_delay: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], Any]:
    """The p99 occupancy a request starts at on its replica (or its ``q_fraction``-quantile), for the queue the
    routing makes of the fleet (:func:`rackcost.model.queues.occupancy.start_occupancy_quantile`) [requests], and that
    queue's Erlang C [fraction] (``known_delay`` when the caller has it: not computed again)."""
    pool, per_pool, load_erlangs = _occupancy_queue(routing, active, slots, rate_rps, service_s)
    # once: the quantile and the reported wait both read it
    delay = erlang_c_checked(pool, load_erlangs) if known_delay is None else known_delay
    start = start_occupancy_quantile(q_fraction, per_pool, concurrency, pool, load_erlangs, variability, delay)
    return start, delay


def _occupancy_queue(
    routing: Routing | str,
    active: NDArray[np.int64],
    slots: NDArray[np.float64],
    rate_rps: NDArray[np.float64],
    service_s: NDArray[np.float64],
) -> tuple[NDArray[np.float64], Any, NDArray[np.float64]]:
    """The queue the routing makes of the fleet for the start occupancy: its slots, the replicas that share it and
    its offered load [slots, -, erlangs]."""
    queue = routes.analytic_queue(str(routing))
    pool, per_pool = queue.servers(active, slots), queue.replicas_per_queue(active)
    load_erlangs = queue.rate(rate_rps, active) * service_s
    pool, load_erlangs = broadcast_few(np.asarray(pool, dtype=float), np.asarray(load_erlangs, dtype=float))
    return pool, per_pool, load_erlangs


def _waiting(
    routing: Routing | str,
    delay: NDArray[np.float64],
    active: NDArray[np.int64],
    concurrency: NDArray[np.float64],
    admitted_rps: NDArray[np.float64],
    full_service_s: NDArray[np.float64],
    variability: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The share of requests that wait, ``C'``, and the decay rate of their wait (before the service's stretch)
    under the routing (:func:`rackcost.model.queues.occupancy.waiting_share`, from the occupancy queue's Erlang C
    ``delay``) [fraction, 1/s]."""
    router = routes.check_routing(str(routing))
    queue = routes.analytic_queue(router)
    per_pool, rate = queue.replicas_per_queue(active), queue.rate(admitted_rps, active)
    # the router's occupancy law: a request that waits waits for its own replica, or for the first slot of its queue
    own_replica = router.waits_on_own_replica
    return waiting_share(delay, True, not own_replica, per_pool, concurrency, rate, full_service_s, variability)


def _reported_wait_p99_ms(
    waiting: NDArray[np.float64], decay: NDArray[np.float64], stretch: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The p99 wait that the reported p99 TTFT adds to ``TTFT(c)`` where more than 1% of requests wait [ms]:
    ``ln(C' / 0.01) / r``, ``C'`` the share of requests that wait and ``r`` the decay rate of their wait
    (:func:`_waiting`), stretched by the service time's spread like every wait
    (:func:`rackcost.model.queues.burstiness.wait_stretch`); 0 elsewhere."""
    tail = 1.0 - TTFT_PERCENTILE_FRACTION
    with np.errstate(divide="ignore", invalid="ignore"):
        wait_s = np.where(waiting > tail, np.log(np.maximum(waiting, tail) / tail) / decay, 0.0)
    return np.asarray(wait_s * stretch, dtype=float) * MS_PER_S


def _class_prefill_ms(
    load: LoadCurve,
    starts: NDArray[np.float64],
    concurrency: NDArray[np.float64],
    decay: NDArray[np.float64],
    stretch: NDArray[np.float64],
    shape: tuple[int, ...],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The mean request's TTFT before queueing at the start occupancy of a request that does not wait at each of
    :data:`~rackcost.model.queues.class_ttft.NO_WAIT_LEVELS` (``starts``, ``(J, ...)``: the occupancy queue's quantiles
    at those levels of the requests that do not wait), ``(..., J)``, and at a full replica (``c``) for one that waits,
    ``(...)`` [ms]; and the decay rate of a waiting request's wait, stretched by the service's spread [1/ms]."""
    no_wait_ms = np.moveaxis(load.latencies_at(starts)[0], 0, -1)  # (..., J)
    full_ms = load.latencies_at(broadcast_to_few(concurrency, shape))[0]
    theta = np.asarray(decay / stretch, dtype=float) / MS_PER_S
    return no_wait_ms, full_ms, theta


def _class_and_mix_p99_ms(
    mix: ClassMix,
    fixed_p99_ms: NDArray[np.float64],
    prefill: tuple[NDArray[np.float64], ...],
    waiting: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each class's p99 TTFT and the mix's: a class whose inputs spread the p99 of its own prefill plus the queue's
    wait, a class of one input length ``fixed_p99_ms``; the mix's the p99 of a request drawn from it, each class's
    own prefill (its input law, a point for a class of one length) plus the one queue's wait
    (:func:`rackcost.model.queues.class_ttft.class_and_mixture_quantiles_ms`: both in one root find). One class: its
    own."""
    spread = mix.input_law is not None and bool(mix.input_law.spread.any())
    if len(mix) == 1:
        out = _spread_ttft_p99_ms(mix, fixed_p99_ms, prefill, waiting) if spread else fixed_p99_ms
        return out, out[..., 0]
    no_wait_ms, full_ms, theta = prefill
    law = mix.input_law if mix.input_law is not None else stack_laws([fixed_law()] * len(mix))
    rho = mix.ttft_ratio
    each, mixed = class_and_mixture_quantiles_ms(
        law,
        no_wait_ms[..., None, :] * rho[:, None],
        full_ms[..., None] * rho,
        waiting[..., None],
        theta[..., None],
        mix.share_fraction,
        TTFT_PERCENTILE_FRACTION,
        np.zeros(len(mix), dtype=bool) if mix.input_law is None else mix.input_law.spread,
    )
    out = np.array(broadcast_to_few(fixed_p99_ms, each.shape), dtype=float)
    if spread:
        assert mix.input_law is not None
        out[..., mix.input_law.spread] = each[..., mix.input_law.spread]
    return out, mixed


def _spread_ttft_p99_ms(
    mix: ClassMix,
    fixed_p99_ms: NDArray[np.float64],
    prefill: tuple[NDArray[np.float64], ...],
    waiting: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Each class's p99 TTFT, the classes whose inputs spread as the p99 of their own prefill plus the queue's wait
    (:func:`rackcost.model.queues.class_ttft.sum_quantile_ms`, the prefill of :func:`_class_prefill_ms`); a class of one
    input length keeps ``fixed_p99_ms``."""
    assert mix.input_law is not None
    no_wait_ms, full_ms, theta = prefill
    spread = np.flatnonzero(mix.input_law.spread)
    shape = np.shape(fixed_p99_ms)[:-1]
    rho = mix.ttft_ratio[spread]
    law = StratifiedLaw(mix.input_law.level_fraction[spread], mix.input_law.value[spread])
    p99 = sum_quantile_ms(
        law,
        no_wait_ms[..., None, :] * rho[:, None],
        full_ms[..., None] * rho,
        waiting[..., None],
        theta[..., None],
        TTFT_PERCENTILE_FRACTION,
    )
    out = np.array(np.broadcast_to(fixed_p99_ms, (*shape, len(mix))), dtype=float)
    out[..., spread] = p99
    return out
