"""The steps a demand point is served through (docs/model.md, 6. Each demand point), one small object per concern.

:func:`rackcost.model.fleets.demand.serve_at_capacity` serves each point of a fleet whose capacity is known through four
steps, each chosen once from the inputs and then called in turn, never switched inside:

1. the operating point at the point's load: :class:`FixedPoint` (the chosen point at every load) or
   :class:`MovingPoint` (the concurrency the load sustains on the replica's curve, and the budget there);
2. the arrivals' burstiness: :class:`PoissonArrivals` or :class:`BurstyArrivals` (the G/G/c queue as M/M/c with slots
   and rates divided by the variability, :mod:`rackcost.model.queues.burstiness`);
3. the service time's spread: :class:`ExponentialService` or :class:`SpreadService` (each budget judged as ``budget /
   stretch`` and each wait stretched, at the stretch of the point's own load);
4. the request classes: :class:`OneClass` or :class:`RequestClasses` (every class accepted within its own budget in
   the one queue, :mod:`rackcost.model.workload.classes`); and the reported percentiles: :class:`StartPercentiles` (the
   p99 TTFT and TPOT at the occupancy a request starts at, :mod:`rackcost.model.queues.occupancy`) or
   :class:`NoPercentiles`.

A Poisson point with exponential service, one class and no percentiles runs none of the extra arithmetic, so its
figures are those of the plain M/M/c queue bit for bit; each other step is its own arithmetic, added where chosen.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.inputs import SloInputs
from rackcost.model.queues import routing as routes
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
from rackcost.model.strategies import Routing
from rackcost.model.workload.classes import ClassMix, class_budgets_s, class_ttft_ms
from rackcost.units import MS_PER_S

__all__ = [
    "TTFT_PERCENTILE_FRACTION",
    "Acceptance",
    "Burstiness",
    "BurstyArrivals",
    "Classes",
    "ExponentialService",
    "FixedPoint",
    "LoadPoint",
    "MovingPoint",
    "NoPercentiles",
    "OneClass",
    "Percentiles",
    "PointFigures",
    "PointQueue",
    "PoissonArrivals",
    "ReportedPercentiles",
    "RequestClasses",
    "ServiceSpread",
    "SpreadService",
    "StartPercentiles",
    "arrivals_of",
    "spread_of",
]

TTFT_PERCENTILE_FRACTION = 0.99
"""The TTFT percentile reported at each demand point (p99) [-]."""

Array = NDArray[np.float64]


# --------------------------------------------------------------------------- the queue every step reads


@dataclass(frozen=True, slots=True)
class PointQueue:
    """The queue of the active replicas at each demand point, as the steps read it.

    Attributes
    ----------
    routing
        How requests are spread over the replicas (:mod:`rackcost.model.queues.routing`).
    active
        Replicas that serve at each point [-].
    concurrency
        Slots per replica [requests].
    admitted_rps
        The rate admission control admits at each point [requests/s].
    service_s
        The chosen point's slot holding time [s].
    arrivals
        The arrivals' step: the queue the model solves has ``arrivals.slots(concurrency)`` slots per replica and
        rate ``arrivals.rate(admitted_rps)``.
    """

    routing: Routing | str
    active: NDArray[np.int64]
    concurrency: Array
    admitted_rps: Array
    service_s: Array
    arrivals: Burstiness


# --------------------------------------------------------------------------- 1. the operating point


@dataclass(frozen=True, slots=True)
class PointFigures:
    """The operating point at each demand point: the concurrency in service per replica [requests], the slot
    holding time [s], the queueing budget [s], and the TTFT and TPOT there (None on a fixed point) [ms]."""

    in_service: Array
    service_s: Array
    budget_s: Array
    ttft_ms: Array | None
    tpot_ms: Array | None


class LoadPoint(ABC):
    """Step 1: where each demand point's load puts the operating point."""

    @abstractmethod
    def at(self, queue: PointQueue, service_s: Array, budget_s: ArrayLike, shape: tuple[int, ...]) -> PointFigures:
        """The figures at each point of ``shape``, from the chosen point's ``service_s`` and ``budget_s``."""


@dataclass(frozen=True, slots=True)
class FixedPoint(LoadPoint):
    """The chosen point at every load (a curve of one point): Little's law gives the concurrency in service."""

    def at(self, queue: PointQueue, service_s: Array, budget_s: ArrayLike, shape: tuple[int, ...]) -> PointFigures:
        """``L = lambda S / N`` in service per replica; the chosen point's service time and budget everywhere."""
        in_service = queue.admitted_rps * service_s / queue.active
        budget = np.broadcast_to(np.asarray(budget_s, dtype=float), shape)
        return PointFigures(in_service, np.broadcast_to(service_s, shape), budget, None, None)


@dataclass(frozen=True, slots=True)
class MovingPoint(LoadPoint):
    """The operating point moves with the load along the replica's curve ``load``; the budget is the SLO's there."""

    load: LoadCurve
    slo: SloInputs

    def at(self, queue: PointQueue, service_s: Array, budget_s: ArrayLike, shape: tuple[int, ...]) -> PointFigures:
        """The fixed point of Little's law on the curve
        (:func:`rackcost.model.replica.performance.in_service_concurrency`),
        the service time, TTFT and TPOT there, and the queueing budget they leave
        (:func:`rackcost.model.replica.operating_point.queueing_budget_s`)."""
        in_service = in_service_concurrency(self.load, queue.admitted_rps / queue.active)
        point_service_s, ttft_ms, tpot_ms = self.load.figures_at(in_service)
        slo = self.slo
        budget = queueing_budget_s(ttft_ms, tpot_ms, slo.output_tokens, slo.ttft_limit_ms, slo.e2e_limit_ms)
        return PointFigures(in_service, point_service_s, budget, ttft_ms, tpot_ms)


# --------------------------------------------------------------------------- 2. the arrivals' burstiness


class Burstiness(ABC):
    """Step 2: the arrivals' burstiness, as the queue the model solves (:mod:`rackcost.model.queues.burstiness`).

    Attributes
    ----------
    variability
        Each point's G/G/c variability ``v = (c_a^2 + 1) / 2`` (ones for Poisson) [-].
    """

    variability: Array

    @abstractmethod
    def slots(self, concurrency: Array) -> Array:
        """Slots per replica of the queue solved [slots]."""

    @abstractmethod
    def rate(self, rps: Array) -> Array:
        """A rate of the arrivals as a rate of the queue solved [requests/s]."""

    @abstractmethod
    def capacity(self, rps: Array) -> Array:
        """A capacity of the queue solved as a rate of the arrivals [requests/s]."""

    @abstractmethod
    def known_feasible(self, rps: ArrayLike | None) -> ArrayLike | None:
        """A rate of the arrivals known to be served within the SLO, as a start of the capacity search in the queue
        solved; None where it says nothing of that queue."""


@dataclass(frozen=True, slots=True)
class PoissonArrivals(Burstiness):
    """Poisson arrivals (``v = 1`` at every point): the M/M/c queue itself; every figure is left as it is."""

    variability: Array

    def slots(self, concurrency: Array) -> Array:
        """The slots themselves."""
        return concurrency

    def rate(self, rps: Array) -> Array:
        """The rate itself."""
        return rps

    def capacity(self, rps: Array) -> Array:
        """The capacity itself."""
        return rps

    def known_feasible(self, rps: ArrayLike | None) -> ArrayLike | None:
        """The rate itself: it is one of the queue solved."""
        return rps


@dataclass(frozen=True, slots=True)
class BurstyArrivals(Burstiness):
    """Renewal arrivals of variability ``v``: the G/G/c queue of ``c`` slots at ``lambda`` as the M/M/c queue of
    ``c / v`` slots at ``lambda / v`` (Whitt 1993; Halfin and Whitt 1981; :mod:`rackcost.model.queues.burstiness`)."""

    variability: Array

    def slots(self, concurrency: Array) -> Array:
        """``c / v``."""
        return concurrency / self.variability

    def rate(self, rps: Array) -> Array:
        """``lambda / v``."""
        return rps / self.variability

    def capacity(self, rps: Array) -> Array:
        """``v`` times the scaled queue's capacity."""
        return self.variability * rps

    def known_feasible(self, rps: ArrayLike | None) -> ArrayLike | None:
        """None: a rate of the unscaled arrivals is no known-feasible rate of the scaled queue (a caller with one of
        the scaled queue passes it as it is)."""
        return None


def arrivals_of(arrival_variability: ArrayLike) -> Burstiness:
    """The arrivals' step for each point's variability: :class:`PoissonArrivals` where every point is Poisson (so
    its figures stay those of M/M/c bit for bit), else :class:`BurstyArrivals`."""
    v = np.asarray(arrival_variability, dtype=float)
    return PoissonArrivals(v) if bool((v == 1.0).all()) else BurstyArrivals(v)


# --------------------------------------------------------------------------- 3. the service time's spread


class ServiceSpread(ABC):
    """Step 3: the service time's spread, which stretches the conditional wait
    (:mod:`rackcost.model.queues.burstiness`).

    Attributes
    ----------
    stretch
        Each point's heavy-traffic (Kingman) stretch :func:`rackcost.model.queues.burstiness.wait_stretch`, which the
        capacity searches judge at the load they search (:mod:`rackcost.model.queues.stretch_rule`) [-].
    """

    stretch: Array

    @abstractmethod
    def at_point(self, queue: PointQueue, utilization_fraction: Array) -> Array:
        """The stretch at each point's own load [-]."""

    @abstractmethod
    def judge(self, budget_s: Array, stretch: Array, axis: bool = False) -> Array:
        """A budget as the exponential-service queue judges it, at the point's ``stretch`` (``axis``: the budgets
        are on a last axis of their own, one per class) [s]."""

    @abstractmethod
    def stretched(self, wait_s: Array, stretch: Array) -> Array:
        """A wait of the exponential-service queue as the spread service's [s]."""


@dataclass(frozen=True, slots=True)
class ExponentialService(ServiceSpread):
    """Exponential service (a stretch of 1 at every point): budgets and waits are left as they are."""

    stretch: Array

    def at_point(self, queue: PointQueue, utilization_fraction: Array) -> Array:
        """The stretch itself (1)."""
        return self.stretch

    def judge(self, budget_s: Array, stretch: Array, axis: bool = False) -> Array:
        """The budget itself."""
        return budget_s

    def stretched(self, wait_s: Array, stretch: Array) -> Array:
        """The wait itself."""
        return wait_s


@dataclass(frozen=True, slots=True)
class SpreadService(ServiceSpread):
    """A spread service time: the conditional wait stretched by ``(c_a^2 + c_s^2) / (c_a^2 + 1)`` (Kingman 1961) in
    heavy traffic, by Kimura's M/G/s interpolation at a moderate load (the larger of the two,
    :func:`rackcost.model.queues.burstiness.point_wait_stretch`); each budget is judged as ``budget / stretch``."""

    stretch: Array

    def at_point(self, queue: PointQueue, utilization_fraction: Array) -> Array:
        """:func:`rackcost.model.queues.burstiness.point_wait_stretch` at the point's utilisation, on the servers of the
        queue the routing makes of the fleet."""
        servers = routes.analytic_queue(str(queue.routing)).servers(queue.active, queue.concurrency)
        return point_wait_stretch(self.stretch, queue.arrivals.variability, utilization_fraction, servers)

    def judge(self, budget_s: Array, stretch: Array, axis: bool = False) -> Array:
        """``budget / stretch``."""
        return budget_s / (stretch[..., None] if axis else stretch)

    def stretched(self, wait_s: Array, stretch: Array) -> Array:
        """``wait * stretch``."""
        return wait_s * stretch


def spread_of(wait_stretch: ArrayLike) -> ServiceSpread:
    """The spread's step for each point's stretch: :class:`ExponentialService` where every stretch is 1 (every
    figure bit for bit), else :class:`SpreadService`."""
    stretch = np.asarray(wait_stretch, dtype=float)
    return ExponentialService(stretch) if bool((stretch == 1.0).all()) else SpreadService(stretch)


# --------------------------------------------------------------------------- 4. classes and percentiles


@dataclass(frozen=True, slots=True)
class Acceptance:
    """What each demand point accepts within the SLO: the rate [requests/s], the p99 wait of the queue before the
    service's stretch [s], and each class's share that misses its budget (None for one class) [-]."""

    accepted_rps: Array
    wait_p99_s: Array
    class_miss_fraction: Array | None


@dataclass(frozen=True, slots=True)
class Occupancy:
    """The queue of the start occupancy (:mod:`rackcost.model.queues.occupancy`): the point's queue with slots and rate
    divided by the occupancy law's ``spread`` too, and what the share that waits reads."""

    queue: PointQueue
    slots: Array
    rate_rps: Array
    service_s: Array
    variability: Array

    def start(
        self, q_fraction: float | Array = TTFT_PERCENTILE_FRACTION, known_delay: Array | None = None
    ) -> tuple[Array, Any]:
        """The occupancy a request starts at (its ``q_fraction``-quantile) and the queue's Erlang C."""
        q = self.queue
        occupancy = (q.routing, q.active, q.concurrency, self.slots, self.rate_rps, self.service_s)
        return _start_occupancy(*occupancy, self.variability, q_fraction, known_delay)

    def delay(self) -> Array:
        """The occupancy queue's Erlang C [fraction]."""
        pool, _, load_erlangs = _occupancy_queue(self.queue.routing, self.queue.active, *self.queue_figures())
        return erlang_c_checked(pool, load_erlangs)

    def queue_figures(self) -> tuple[Array, Array, Array]:
        """Slots, rate and service time of the occupancy queue."""
        return self.slots, self.rate_rps, self.service_s

    def waiting(self, delay: Array) -> tuple[Array, Array]:
        """The share of requests that wait and the decay rate of their wait (:func:`_waiting`)."""
        q = self.queue
        v = q.arrivals.variability
        return _waiting(q.routing, delay, q.active, q.concurrency, q.admitted_rps, q.service_s, v)


@dataclass(frozen=True, slots=True)
class ReportedPercentiles:
    """The reported p99 TTFT and TPOT at each point [ms] and each class's p99 TTFT (None for one class) [ms]."""

    ttft_p99_ms: Array | None
    tpot_p99_ms: Array | None
    class_ttft_p99_ms: Array | None


NO_PERCENTILES = ReportedPercentiles(None, None, None)


class Classes(ABC):
    """Step 4: the request classes: how a point accepts, and where its p99 TTFT starts and what it adds."""

    @abstractmethod
    def accept(self, queue: PointQueue, point: PointFigures, spread: ServiceSpread, stretch: Array) -> Acceptance:
        """What each point accepts within the SLO, every budget judged at the point's ``stretch``."""

    @abstractmethod
    def start(self, occupancy: Occupancy) -> tuple[Array, Array, Array, Any]:
        """The p99 start occupancy, the share that waits and its decay rate, and what :meth:`ttft_p99_ms` reads."""

    @abstractmethod
    def ttft_p99_ms(self, load: LoadCurve, start: tuple[Array, Array, Array, Any], figures: tuple[Array, ...]) -> Any:
        """The reported p99 TTFT and each class's (None for one class) [ms], from ``figures``: the TTFT at the start
        occupancy, the reported p99 wait, the p99 TTFT of one class, the concurrency and the stretch."""


@dataclass(frozen=True, slots=True)
class OneClass(Classes):
    """One class of requests, one budget."""

    def accept(self, queue: PointQueue, point: PointFigures, spread: ServiceSpread, stretch: Array) -> Acceptance:
        """``lambda (1 - P(W > budget))`` and the p99 wait of the routing's queue (:func:`rackcost.model.queues.routing.
        wait_tail`)."""
        a, slots = queue.arrivals, queue.arrivals.slots(queue.concurrency)
        budget = spread.judge(point.budget_s, stretch)
        rate = a.rate(queue.admitted_rps)
        miss, wait = routes.wait_tail(
            queue.routing, budget, TTFT_PERCENTILE_FRACTION, queue.active, slots, rate, point.service_s
        )
        return Acceptance(queue.admitted_rps * (1.0 - miss), wait, None)

    def start(self, occupancy: Occupancy) -> tuple[Array, Array, Array, Any]:
        """The p99 of the occupancy queue."""
        start, delay = occupancy.start()
        waiting, decay = occupancy.waiting(delay)
        return start, waiting, decay, None

    def ttft_p99_ms(self, load: LoadCurve, start: tuple[Array, Array, Array, Any], figures: tuple[Array, ...]) -> Any:
        """The one class's."""
        return figures[2], None


@dataclass(frozen=True, slots=True)
class RequestClasses(Classes):
    """Request classes of their own budgets and TTFTs in one queue (:mod:`rackcost.model.workload.classes`)."""

    mix: ClassMix

    def accept(self, queue: PointQueue, point: PointFigures, spread: ServiceSpread, stretch: Array) -> Acceptance:
        """``lambda sum_i share_i (1 - P(W > budget_i))``, every class's budget from one Erlang C
        (:func:`rackcost.model.queues.routing.wait_tails`)."""
        assert point.ttft_ms is not None and point.tpot_ms is not None  # classes come with a moving point
        budgets = spread.judge(class_budgets_s(self.mix, point.ttft_ms, point.tpot_ms), stretch, axis=True)
        a, slots = queue.arrivals, queue.arrivals.slots(queue.concurrency)
        rate = a.rate(queue.admitted_rps)
        class_miss, wait = routes.wait_tails(
            queue.routing, budgets, TTFT_PERCENTILE_FRACTION, queue.active, slots, rate, point.service_s
        )
        accepted = queue.admitted_rps * np.sum(self.mix.share_fraction * (1.0 - class_miss), axis=-1)
        return Acceptance(accepted, wait, class_miss)

    def start(self, occupancy: Occupancy) -> tuple[Array, Array, Array, Any]:
        """The p99 of the occupancy queue and its quantiles at the no-wait levels of the classes (which depend on
        the share that waits: the queue's Erlang C first, then every level's start occupancy in one call with the
        p99's, the same figures as one call each)."""
        q = occupancy.queue
        delay = occupancy.delay()
        waiting, decay = occupancy.waiting(delay)
        full = np.broadcast(delay, waiting, occupancy.variability, q.active, q.concurrency).shape
        no_wait = NO_WAIT_LEVELS.reshape((-1,) + (1,) * len(full)) * (1.0 - waiting)
        levels = np.concatenate(
            [np.full((1, *full), TTFT_PERCENTILE_FRACTION), broadcast_to_few(no_wait, (no_wait.shape[0], *full))]
        )
        starts, _ = occupancy.start(levels, delay)
        return starts[0], waiting, decay, starts[1:]

    def ttft_p99_ms(self, load: LoadCurve, start: tuple[Array, Array, Array, Any], figures: tuple[Array, ...]) -> Any:
        """Each class's TTFT at the start occupancy plus the same wait, a class whose inputs spread and the mix's
        the p99 of its prefill plus the wait (:func:`_class_and_mix_p99_ms`)."""
        start_ttft_ms, reported_ms, ttft_p99_ms, concurrency, stretch = figures
        _, waiting, decay, starts = start
        class_p99_ms = class_ttft_ms(self.mix, start_ttft_ms) + np.asarray(reported_ms)[..., None]
        prefill = _class_prefill_ms(load, starts, concurrency, decay, stretch, np.shape(ttft_p99_ms))
        class_p99_ms, mix_p99_ms = _class_and_mix_p99_ms(self.mix, class_p99_ms, prefill, waiting)
        return mix_p99_ms, class_p99_ms


class Percentiles(ABC):
    """Step 5: the reported percentiles."""

    @abstractmethod
    def report(self, queue: PointQueue, point: PointFigures, classes: Classes, stretch: Array) -> ReportedPercentiles:
        """The p99 TTFT and TPOT of each point, and each class's p99 TTFT."""


@dataclass(frozen=True, slots=True)
class NoPercentiles(Percentiles):
    """No reported percentiles (a fixed operating point, or a caller that reads none of them)."""

    def report(self, queue: PointQueue, point: PointFigures, classes: Classes, stretch: Array) -> ReportedPercentiles:
        """None of them."""
        return NO_PERCENTILES


@dataclass(frozen=True, slots=True)
class StartPercentiles(Percentiles):
    """The p99 TTFT and TPOT at the occupancy a request starts at (:mod:`rackcost.model.queues.occupancy`), plus the p99
    wait ``ln(C' / 0.01) / r`` of the share ``C'`` that waits; the mean figures stay at the mean occupancy."""

    load: LoadCurve

    def report(self, queue: PointQueue, point: PointFigures, classes: Classes, stretch: Array) -> ReportedPercentiles:
        """The occupancy queue is the point's with slots and rates divided by the spread of a load-dependent service
        (:func:`rackcost.model.queues.occupancy.occupancy_spread`) too; its start occupancy is the classes' step's."""
        a = queue.arrivals
        spread = occupancy_spread(self.load, point.in_service, point.service_s)
        slots, rate = a.slots(queue.concurrency) / spread, a.rate(queue.admitted_rps) / spread
        occupancy = Occupancy(queue, slots, rate, point.service_s, a.variability * spread)
        start = classes.start(occupancy)
        start_ttft_ms, tpot_p99_ms = self.load.latencies_at(start[0])
        reported_ms = _reported_wait_p99_ms(start[1], start[2], stretch)
        ttft_p99_ms = start_ttft_ms + reported_ms
        figures = (start_ttft_ms, reported_ms, ttft_p99_ms, queue.concurrency, stretch)
        ttft_p99_ms, class_p99_ms = classes.ttft_p99_ms(self.load, start, figures)
        return ReportedPercentiles(ttft_p99_ms, tpot_p99_ms, class_p99_ms)


# --------------------------------------------------------------------------- the percentiles' arithmetic


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
