"""One provisioned fleet at each demand point (docs/model.md, 6. Each demand point).

The fleet's size is fixed; demand varies. With the ``powered`` idle policy every serving replica is on and serving
(replicas held for availability stand by); with ``park`` only the replicas the point needs serve and the rest are
parked. At each point the operating point moves with the load: the batch in service, and so the service time, TTFT
and TPOT, are those of the curve at the concurrency the load sustains. Offered load above what the serving
replicas carry within the SLO is dropped by admission control; below it, requests that wait longer than the
queueing budget are served late and count as SLO misses. Everything vectorises over demand points.

Serving is two halves: the capacity searches (:func:`capacity_with_steps`) and the points served at that capacity
(:meth:`Serving.serve`, elementwise in the points). How the queue is judged, :class:`DemandSteps`, is chosen once
from the inputs: the routing, the arrivals' burstiness, the service time's spread and the further attainment
targets of request classes; the steps of serving a point live in :mod:`rackcost.model.fleets.demand_steps`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.fleets.demand_steps import (
    TTFT_PERCENTILE_FRACTION,
    Acceptance,
    Burstiness,
    Classes,
    FixedPoint,
    LoadPoint,
    MovingPoint,
    NoPercentiles,
    OneClass,
    Percentiles,
    PointFigures,
    PointQueue,
    ReportedPercentiles,
    RequestClasses,
    ServiceSpread,
    StartPercentiles,
    arrivals_of,
    spread_of,
)
from rackcost.model.fleets.sizing import sized_replicas
from rackcost.model.inputs import SloInputs
from rackcost.model.outcomes import DemandOutcome
from rackcost.model.queues import stretch_rule as rule
from rackcost.model.queues.erlang import broadcast_to_few
from rackcost.model.replica.performance import LoadCurve
from rackcost.model.strategies import DEFAULT_ROUTING, IdlePolicy, Routing
from rackcost.units import MS_PER_S

__all__ = [
    "OVERLOAD_TOLERANCE_FRACTION",
    "TTFT_PERCENTILE_FRACTION",
    "DemandSteps",
    "FleetCapacity",
    "Serving",
    "capacity_with_steps",
    "serve_at_capacity",
    "serve_demand",
]

OVERLOAD_TOLERANCE_FRACTION = 1e-12
"""A point is overloaded when its rate exceeds the capacity at SLO by more than this share: a rate equal to the
capacity up to rounding (the sizing demand of a fleet sized exactly for it) is not overload [-]."""


_FIXED_POINT, _ONE_CLASS, _NO_PERCENTILES = FixedPoint(), OneClass(), NoPercentiles()
"""The steps that hold nothing, made once."""


@dataclass(frozen=True, slots=True)
class DemandSteps:
    """How a fleet's queue is judged at every demand point, chosen once from the inputs (:meth:`of`).

    Attributes
    ----------
    routing
        How requests are spread over the replicas (:mod:`rackcost.model.queues.routing`); ``pooled`` is one M/M/k over
        all slots.
    arrivals
        The arrivals' burstiness (:func:`rackcost.model.fleets.demand_steps.arrivals_of`).
    spread
        The service time's spread (:func:`rackcost.model.fleets.demand_steps.spread_of`).
    more_constraints
        Further (budget [s], miss target [-]) pairs of request classes with other attainment targets
        (``ChosenPoint.more_constraints``): the capacity at SLO meets them all, and under ``park`` the active
        replicas too.
    """

    routing: Routing | str
    arrivals: Burstiness
    spread: ServiceSpread
    more_constraints: tuple[tuple[float, float], ...] = ()

    @staticmethod
    def of(
        routing: Routing | str = DEFAULT_ROUTING,
        arrival_variability: ArrayLike = 1.0,
        wait_stretch: ArrayLike = 1.0,
        more_constraints: Sequence[tuple[float, float]] = (),
    ) -> DemandSteps:
        """The steps for each point's G/G/c variability (:func:`rackcost.model.queues.burstiness.arrival_variability`; 1
        for Poisson: its queue is solved as M/M/c with slots and rates divided by it) and stretch of the conditional
        wait by the service time's spread (:func:`rackcost.model.queues.burstiness.wait_stretch`; 1 for exponential
        service: every budget judged as ``budget / stretch`` and every wait multiplied by it, at the point's own
        load)."""
        arrivals, spread = arrivals_of(arrival_variability), spread_of(wait_stretch)
        return DemandSteps(routing, arrivals, spread, tuple(more_constraints))

    def serving(self, load: LoadCurve | None, slo: SloInputs | None, percentiles: bool = True) -> Serving:
        """The steps a point is served through: without ``load`` and ``slo`` the chosen point at every load, one
        class and no reported percentiles; with them the point moving with the load, the SLO's request classes
        (``slo.classes``) and, with ``percentiles``, the reported p99 TTFT and TPOT."""
        if load is None or slo is None:
            return Serving(self, _FIXED_POINT, _ONE_CLASS, _NO_PERCENTILES)
        classes: Classes = _ONE_CLASS if slo.classes is None else RequestClasses(slo.classes)
        reported: Percentiles = StartPercentiles(load) if percentiles else _NO_PERCENTILES
        return Serving(self, MovingPoint(load, slo), classes, reported)


POISSON_EXPONENTIAL = DemandSteps.of()
"""Poisson arrivals, exponential service, one class, the default routing."""


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
    steps: DemandSteps = POISSON_EXPONENTIAL,
) -> DemandOutcome:
    """Serve each demand point with the same fleet; the operating point moves with the load (docs/model.md, step 6).

    The fleet's capacity at SLO, and under ``park`` the replicas a point needs, are those of the chosen operating
    point (the scheduler's concurrency limit, where the fleet was sized). At each point the replicas that serve
    admit what the SLO allows; the concurrency in service per replica is the fixed point of Little's law on the
    replica's curve (:func:`rackcost.model.replica.performance.in_service_concurrency`), and the service time, TTFT and
    TPOT are read there; the wait tail, and so acceptance and p99 TTFT, use them. It is :func:`capacity_with_steps`,
    then :meth:`Serving.serve`.

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
        Optional: a rate the serving replicas are known to serve within the SLO, in the queue the arrivals make of
        the fleet (divided by the variability; for Poisson arrivals the rate itself); it speeds up the search for
        the capacity at SLO [requests/s].
    load, slo
        The replica's load curve and the SLO, to move the operating point with the load; without them the chosen
        point holds at every load (a curve of one point). The output length's spread enters through ``steps``,
        never here. With request classes (``slo.classes``) every class is accepted within its own budget.
    steps
        How the queue is judged (:meth:`DemandSteps.of`): routing, burstiness, the service's spread and the further
        attainment targets.

    The fleet arguments may carry a leading sample axis (shape ``(n, 1)`` against ``offered_rps`` of shape
    ``(n, points)``): everything broadcasts.

    Returns
    -------
    DemandOutcome
    """
    lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
    fleet = (serving_replicas, concurrency, service_s, budget_s, attainment_fraction, idle_policy)
    capacity = capacity_with_steps(lam, *fleet, max_utilization_fraction, feasible_rps, steps)
    return steps.serving(load, slo).serve(lam, capacity, concurrency, service_s, budget_s)


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


def capacity_with_steps(
    offered_rps: ArrayLike,
    serving_replicas: ArrayLike,
    concurrency: ArrayLike,
    service_s: ArrayLike,
    budget_s: ArrayLike,
    attainment_fraction: float,
    idle_policy: IdlePolicy | str,
    max_utilization_fraction: ArrayLike,
    feasible_rps: ArrayLike | None,
    steps: DemandSteps,
) -> FleetCapacity:
    """The capacity at SLO and the replicas that serve at each point: the first half of :func:`serve_demand`
    (same parameters). The second, :meth:`Serving.serve`, is elementwise in the demand points, so the rows of
    several fleets' capacities can be served in one call (:meth:`FleetCapacity.stack`).

    With ``steps.more_constraints`` (request classes of other attainment targets) the capacity is the smallest over
    the constraints and the replicas a point needs the largest: the fleet meets every class's target. Every search
    is in the queue the arrivals make of the fleet (slots and rates divided by the variability, a capacity multiplied
    back), each budget judged at the stretch of the searched load, as acceptance judges it
    (:mod:`rackcost.model.queues.stretch_rule`)."""
    if idle_policy not in _IDLE_POLICIES:
        raise ValueError(f"idle_policy must be 'powered' or 'park', got {idle_policy!r}")
    lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
    service_s = np.asarray(service_s, dtype=float)
    concurrency = np.asarray(concurrency, dtype=float)
    pairs = [(budget_s, 1.0 - attainment_fraction), *steps.more_constraints]
    fleet = _Searched(steps, np.asarray(serving_replicas, dtype=np.int64), concurrency, service_s, pairs)
    if not IdlePolicy(idle_policy).parks:
        return fleet.powered(lam, feasible_rps)
    return fleet.parked(lam, feasible_rps, max_utilization_fraction)


@dataclass(frozen=True, slots=True)
class _Searched:
    """A fleet's capacity searches under its steps, for every (budget, miss target) pair it must meet."""

    steps: DemandSteps
    serving: NDArray[np.int64]
    concurrency: NDArray[np.float64]
    service_s: NDArray[np.float64]
    pairs: list[tuple[Any, float]]

    def powered(self, lam: NDArray[np.float64], hint: ArrayLike | None) -> FleetCapacity:
        """Every serving replica serves: the serving fleet's capacity at SLO (one value per sample, or per point
        where arrivals are bursty), from the known-feasible ``hint``."""
        steps, a = self.steps, self.steps.arrivals
        slots, stretch, v = a.slots(self.concurrency), steps.spread.stretch, a.variability
        found = [
            rule.capacity_at_slo(steps.routing, self.serving, slots, self.service_s, b, m, hint, stretch, v)
            for b, m in self.pairs
        ]
        capacity = a.capacity(_smallest(found))
        active = broadcast_to_few(self.serving, lam.shape).astype(np.int64)
        capacity_active = broadcast_to_few(capacity, lam.shape)
        return FleetCapacity(np.asarray(capacity, dtype=float), active, np.asarray(capacity_active, dtype=float))

    def parked(self, lam: NDArray[np.float64], hint: ArrayLike | None, max_utilization_fraction: ArrayLike) -> Any:
        """Only the replicas a point needs serve (at most the serving ones, within the utilisation ceiling): the
        serving fleet's capacity and the active replicas' in one search per constraint (the search is elementwise,
        so each half is what it is alone; one call rather than two is most of the saving on a few points), the
        first half from the ``hint``, the second from the closed-form start."""
        steps, a = self.steps, self.steps.arrivals
        slots, stretch, v = a.slots(self.concurrency), steps.spread.stretch, a.variability
        service_s, routing = self.service_s, steps.routing
        ceiling = sized_replicas(1, lam, service_s, self.concurrency, max_utilization_fraction)
        needed = _largest(
            [
                rule.replicas_needed(routing, a.rate(lam), service_s, slots, b, m, stretch, v, ceiling)
                for b, m in self.pairs
            ]
        )
        active = np.minimum(needed, self.serving)
        budgets = (np.shape(b) for b, _ in self.pairs)
        shape = np.broadcast_shapes(
            lam.shape, np.shape(self.serving), np.shape(slots), np.shape(service_s), np.shape(stretch), *budgets
        )
        two = _twice(shape)
        start = None if hint is None else np.concatenate([np.broadcast_to(hint, shape), np.zeros(shape)])
        replicas = np.concatenate([np.broadcast_to(self.serving, shape), np.broadcast_to(active, shape)])
        both = _smallest(
            [
                rule.capacity_at_slo(
                    routing, replicas, two(slots), two(service_s), two(b), two(m), start, two(stretch), two(v)
                )
                for b, m in self.pairs
            ]
        )
        capacity, capacity_active = a.capacity(both[: shape[0]]), a.capacity(both[shape[0] :])
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
    """Each demand point served by the fleet whose capacity is ``capacity`` (of :func:`capacity_with_steps`): the second
    half of :func:`serve_demand`, the steps chosen once (:meth:`DemandSteps.serving`) and run in turn
    (:meth:`Serving.serve`). ``percentiles=False`` leaves out the reported p99 TTFT and TPOT (the start occupancy's
    quantile, most of the cost on many points; ``ttft_p99_ms`` and ``tpot_p99_ms`` are then None) for a caller that
    reads none of them (:func:`rackcost.evaluation.horizon.evaluate_hours`).

    Every figure is elementwise in the demand points (and the sample rows), so stacking rows of different fleets or
    variabilities gives each row the figures it has alone, bit for bit: a variability of 1 divides exactly.
    """
    serving = DemandSteps.of(routing, arrival_variability, wait_stretch).serving(load, slo, percentiles)
    return serving.serve(offered_rps, capacity, concurrency, service_s, budget_s)


@dataclass(frozen=True, slots=True)
class Serving:
    """The steps each demand point is served through, in turn (:mod:`rackcost.model.fleets.demand_steps`): the operating
    point at the point's load, the service's stretch there, what the classes accept, and the reported percentiles.
    Built once by :meth:`DemandSteps.serving`."""

    steps: DemandSteps
    point: LoadPoint
    classes: Classes
    percentiles: Percentiles

    def serve(
        self,
        offered_rps: ArrayLike,
        capacity: FleetCapacity,
        concurrency: ArrayLike,
        service_s: ArrayLike,
        budget_s: ArrayLike,
    ) -> DemandOutcome:
        """Each point admitted up to the active replicas' capacity at SLO, then every step in turn."""
        lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
        service_s = np.asarray(service_s, dtype=float)
        concurrency = np.asarray(concurrency, dtype=float)
        steps, active = self.steps, capacity.active_replicas
        admitted = np.minimum(lam, capacity.capacity_active_rps)
        queue = PointQueue(steps.routing, active, concurrency, admitted, service_s, steps.arrivals)
        point = self.point.at(queue, service_s, budget_s, lam.shape)
        utilization = admitted * point.service_s / (active * concurrency)
        # at the point's own load the heavy-traffic stretch gives way to the M/G/s interpolation; the capacity
        # searches keep the heavy-traffic one
        stretch = steps.spread.at_point(queue, utilization)
        accepted = self.classes.accept(queue, point, steps.spread, stretch)
        wait_p99_ms = np.asarray(steps.spread.stretched(accepted.wait_p99_s, stretch), dtype=float) * MS_PER_S
        reported = self.percentiles.report(queue, point, self.classes, stretch)
        return _outcome(lam, capacity, queue, point, utilization, accepted, wait_p99_ms, reported)


def _outcome(
    lam: NDArray[np.float64],
    capacity: FleetCapacity,
    queue: PointQueue,
    point: PointFigures,
    utilization: NDArray[np.float64],
    accepted: Acceptance,
    wait_p99_ms: NDArray[np.float64],
    reported: ReportedPercentiles,
) -> DemandOutcome:
    """The demand outcome of the steps' figures, each array broadcast to the points' shape."""
    shape = lam.shape
    rejected = lam - accepted.accepted_rps
    class_miss, class_p99 = accepted.class_miss_fraction, reported.class_ttft_p99_ms
    return DemandOutcome(
        offered_rps=lam,
        admitted_rps=queue.admitted_rps,
        accepted_rps=accepted.accepted_rps,
        rejected_rps=rejected,
        rejected_fraction=rejected / lam,
        active_replicas=capacity.active_replicas,
        utilization_fraction=utilization,
        capacity_at_slo_rps=np.broadcast_to(capacity.capacity_rps, shape),  # read-only view
        spare_capacity_fraction=(capacity.capacity_rps - lam) / capacity.capacity_rps,
        wait_p99_ms=wait_p99_ms,
        overloaded=lam > capacity.capacity_active_rps * (1 + OVERLOAD_TOLERANCE_FRACTION),
        in_service_concurrency=_shaped(point.in_service, shape),
        service_s=_shaped(point.service_s, shape),
        ttft_ms=None if point.ttft_ms is None else _shaped(point.ttft_ms, shape),
        tpot_ms=None if point.tpot_ms is None else _shaped(point.tpot_ms, shape),
        ttft_p99_ms=None if reported.ttft_p99_ms is None else _shaped(reported.ttft_p99_ms, shape),
        tpot_p99_ms=None if reported.tpot_p99_ms is None else _shaped(reported.tpot_p99_ms, shape),
        class_miss_fraction=None if class_miss is None else _shaped(class_miss, (*shape, class_miss.shape[-1])),
        class_ttft_p99_ms=None if class_p99 is None else _shaped(class_p99, (*shape, class_p99.shape[-1])),
    )


def _shaped(a: NDArray[Any], shape: tuple[int, ...]) -> NDArray[Any]:
    """``a`` broadcast to ``shape``, or ``a`` itself where it has that shape (np.broadcast_to costs more than the
    figures of a central evaluation)."""
    return a if a.shape == shape else np.broadcast_to(a, shape)
