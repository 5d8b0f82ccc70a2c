"""The routers: one object per router, holding everything the model and the simulator must know about it.

A router (vidur's one class per scheduler) says

- in words what it does (:attr:`Router.words`, for output headers and the schema);
- for the analytic model, which queue it makes of a fleet of ``N`` replicas of ``c`` slots (:attr:`Router.queue`):
  one M/M/k over every slot (:data:`POOLED`), ``N`` independent M/M/c queues at ``lambda / N`` (:data:`SPLIT`), or
  none (only the simulator evaluates it); and its occupancy law, whether a request that waits waits on its own
  replica (:attr:`Router.waits_on_own_replica`, :func:`rackcost.model.queues.occupancy.waiting_share`);
- for the simulator (:mod:`rackcost.model.sim.sim_engines`), whether one central queue feeds every slot
  (:attr:`Router.central_queue`), whether it chooses without looking at the replicas (:attr:`Router.state_blind`:
  the replicas are drawn before the run, each replica is its own queue fed by its share of the arrivals, and
  :meth:`Router.replica_stream_scv` says how bursty that share is), which steady law its replicas start in
  (:attr:`Router.steady_law`, :mod:`rackcost.model.sim.sim_steady`), what it draws before the run
  (:meth:`Router.draw_route`) and how it picks a replica for an arrival (:meth:`Router.picker`, which every router
  must have);
- for the prefix-cache replay (:mod:`rackcost.model.workload.prefix_cache`), each request's replica when every request
holds
  a slot for a given time (:meth:`Router.replay`: by default its draws, or its picker over the replayed arrivals).

Adding a router is one subclass and one :func:`register` call; the scenario schema (``fleet.routing``), the model,
the simulator, :func:`rackcost.simulate`, ``rackcost simulate --routing`` and the prefix-cache replay find it by its
name (:func:`router_of`). The built-in routers keep
their names in :class:`rackcost.model.strategies.Routing`, whose properties read this registry.
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from rackcost.model.queues import queueing
from rackcost.model.queues.erlang import ArrayLike, FloatArray, IntArray

__all__ = [
    "POOLED",
    "SPLIT",
    "AnalyticQueue",
    "EngineView",
    "LeastOutstanding",
    "Pooled",
    "PowerOfTwo",
    "Random",
    "Replay",
    "RoundRobin",
    "Router",
    "register",
    "router_names",
    "router_of",
    "unregister",
]


class AnalyticQueue(ABC):
    """The queue the model solves for a fleet of ``N`` replicas of ``c`` slots fed at ``lambda`` (vectorised like
    :mod:`rackcost.model.queues.queueing`: the arguments broadcast; replica counts are int64 and at least 1)."""

    pooled: ClassVar[bool]
    """One queue over every slot of the fleet (else one queue per replica)."""

    # servers, rate and replicas_per_queue take and give numbers or arrays alike (typed Any: numpy's operators on
    # ArrayLike do not type-check), broadcasting as numpy does

    @abstractmethod
    def servers(self, replicas: Any, slots_per_replica: Any) -> Any:
        """Slots of the queue [slots]."""
        ...

    @abstractmethod
    def rate(self, arrival_rps: Any, replicas: Any) -> Any:
        """Arrival rate into the queue [requests/s]."""
        ...

    @abstractmethod
    def replicas_per_queue(self, replicas: IntArray) -> IntArray:
        """Replicas that share the queue [-]."""
        ...

    @abstractmethod
    def replicas_needed(
        self, arrival_rps: ArrayLike, service_s: ArrayLike, slots: ArrayLike, budget_s: ArrayLike, eps: ArrayLike
    ) -> IntArray:
        """:func:`rackcost.model.queues.routing.replicas_needed` for this queue."""
        ...

    @abstractmethod
    def capacity_at_slo(
        self,
        replicas: IntArray,
        slots: FloatArray,
        service_s: ArrayLike,
        budget_s: ArrayLike,
        eps: ArrayLike,
        feasible_rps: ArrayLike | None,
    ) -> FloatArray:
        """:func:`rackcost.model.queues.routing.capacity_at_slo` for this queue."""
        ...

    def wait_tail(
        self,
        t_s: ArrayLike,
        q_fraction: float,
        replicas: IntArray,
        slots: FloatArray,
        arrival_rps: ArrayLike,
        service_s: ArrayLike,
        several: bool = False,
    ) -> tuple[FloatArray, FloatArray]:
        """``P(W > t)`` and the ``q``-quantile of the wait (:func:`rackcost.model.queues.queueing.wait_tail`, or
        :func:`rackcost.model.queues.queueing.wait_tails` with ``several``) on this queue."""
        tail = queueing.wait_tails if several else queueing.wait_tail
        return tail(t_s, q_fraction, self.servers(replicas, slots), self.rate(arrival_rps, replicas), service_s)


class _Pooled(AnalyticQueue):
    """One M/M/k over all ``k = N c`` slots, fed at ``lambda``."""

    pooled = True

    def servers(self, replicas: Any, slots_per_replica: Any) -> Any:
        return replicas * slots_per_replica

    def rate(self, arrival_rps: Any, replicas: Any) -> Any:
        return arrival_rps

    def replicas_per_queue(self, replicas: IntArray) -> IntArray:
        return replicas

    def replicas_needed(
        self, arrival_rps: ArrayLike, service_s: ArrayLike, slots: ArrayLike, budget_s: ArrayLike, eps: ArrayLike
    ) -> IntArray:
        return queueing.replicas_needed(arrival_rps, service_s, slots, budget_s, eps)

    def capacity_at_slo(
        self,
        replicas: IntArray,
        slots: FloatArray,
        service_s: ArrayLike,
        budget_s: ArrayLike,
        eps: ArrayLike,
        feasible_rps: ArrayLike | None,
    ) -> FloatArray:
        return queueing.capacity_at_slo(replicas * slots, service_s, budget_s, eps, feasible_rps)


class _Split(AnalyticQueue):
    """``N`` independent M/M/c queues, each at ``lambda / N`` (a Poisson stream split at random is Poisson:
    Kleinrock, *Queueing Systems* 1, 1975, Sec. 2.5)."""

    pooled = False

    def servers(self, replicas: Any, slots_per_replica: Any) -> Any:
        return slots_per_replica

    def rate(self, arrival_rps: Any, replicas: Any) -> Any:
        return np.asarray(arrival_rps, dtype=np.float64) / replicas

    def replicas_per_queue(self, replicas: IntArray) -> IntArray:
        return np.ones_like(replicas)

    def replicas_needed(
        self, arrival_rps: ArrayLike, service_s: ArrayLike, slots: ArrayLike, budget_s: ArrayLike, eps: ArrayLike
    ) -> IntArray:
        lam = np.asarray(arrival_rps, dtype=np.float64)
        if np.any(~(lam >= 0)) or np.any(~np.isfinite(lam)):
            raise ValueError(f"arrival_rps must be finite and >= 0, got min {np.min(lam)!r}")
        # one replica's capacity at SLO depends on neither lambda nor N: computed once per (S, c, t, eps)
        per_replica_rps = queueing.capacity_at_slo(slots, service_s, budget_s, eps)
        if np.any(~(per_replica_rps > 0)):  # pragma: no cover - a positive rate always meets an SLO with eps > 0
            raise ValueError("one replica meets the SLO at no positive rate")
        n = np.maximum(np.ceil(lam / per_replica_rps), 1.0).astype(np.int64)
        # per_replica_rps sits a relative 1e-9 inside the exact root, so where lambda / (N - 1) falls in that sliver
        # N - 1 replicas meet the SLO too: checked directly, so that N is the smallest count, as in queueing
        fewer = np.maximum(n - 1, 1)
        rate_fewer = lam / fewer
        c, s, t, e = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (slots, service_s, budget_s, eps)))
        stable = rate_fewer * s < c
        ok = (n > 1) & stable & (queueing.wait_exceedance(t, c, np.where(stable, rate_fewer, 0.0), s) <= e)
        return np.asarray(np.where(ok, fewer, n), dtype=np.int64)

    def capacity_at_slo(
        self,
        replicas: IntArray,
        slots: FloatArray,
        service_s: ArrayLike,
        budget_s: ArrayLike,
        eps: ArrayLike,
        feasible_rps: ArrayLike | None,
    ) -> FloatArray:
        hint = None if feasible_rps is None else np.asarray(feasible_rps, dtype=np.float64) / replicas
        per_replica_rps = queueing.capacity_at_slo(slots, service_s, budget_s, eps, hint)
        return np.asarray(replicas * per_replica_rps, dtype=np.float64)


POOLED: AnalyticQueue = _Pooled()
"""One M/M/k over every slot of the fleet."""
SPLIT: AnalyticQueue = _Split()
"""``N`` independent M/M/c queues at ``lambda / N``, one per replica."""


class LeastCounts(Protocol):
    """Replicas bucketed by a count (occupancy under a central queue, outstanding requests otherwise)."""

    def least(self) -> int:
        """A replica with the least count."""
        ...


@dataclass(frozen=True)
class EngineView:
    """What a router may read of the event engine's state when it picks a replica (the lists are the engine's own,
    updated in place as the run goes).

    Attributes
    ----------
    slots
        Request slots of each replica [requests].
    in_service
        Requests in service on each replica [requests].
    outstanding
        Requests in service plus queued on each replica [requests].
    buckets
        The replicas by their count, where the engine keeps them: requests in service under a central queue,
        outstanding requests where the router asks (:attr:`Router.keeps_load_buckets`).
    first, second
        The replicas :meth:`Router.draw_route` drew, one per request (empty where it drew none).
    """

    slots: int
    in_service: list[int]
    outstanding: list[int]
    buckets: LeastCounts | None
    first: list[int]
    second: list[int]


Route = tuple[NDArray[np.int64], NDArray[np.int64] | None]


@dataclass(frozen=True)
class Replay:
    """A request sequence routed outside the simulator, each request holding a slot for a given time (the
    prefix-cache replay, :func:`rackcost.model.workload.prefix_cache.route_requests`): what :meth:`Router.replay` reads.

    Attributes
    ----------
    requests
        Requests to route [-].
    replicas
        Replicas of the fleet, at least 1 [-].
    rng
        The random draws' generator.
    arrival_s
        Arrival times, sorted; None where not given (a state-blind router needs none) [s].
    service_s
        Each request's slot holding time; None where not given [s].
    slots_per_replica
        Requests a replica serves at once; None: no limit (a router with a central queue needs it) [-].
    """

    requests: int
    replicas: int
    rng: np.random.Generator
    arrival_s: NDArray[np.float64] | None = None
    service_s: NDArray[np.float64] | None = None
    slots_per_replica: int | None = None


class _LeastOf:
    """The least of a list of counts the replay updates in place (the lowest index on a tie)."""

    def __init__(self, counts: list[int]) -> None:
        self.counts = counts

    def least(self) -> int:
        return self.counts.index(min(self.counts))


class Router(ABC):
    """One router: subclass it, set the class attributes, write its :meth:`picker`, override what else differs, and
    :func:`register` an instance.

    The defaults are a state-aware router with per-replica FIFO queues, no analytic form, starting at the fleet's
    expected occupancy, drawing nothing before the run. :meth:`picker` has no default (an abstract method): every
    router the simulator can be asked to run says how it picks, and a class without one cannot be instantiated
    (``TypeError`` naming the class), so no registered router fails inside a run.
    """

    name: ClassVar[str]
    """How scenarios, tables and the command line name it."""
    words: ClassVar[str]
    """What the router does and how the model treats it, in words."""
    queue: ClassVar[AnalyticQueue | None] = None
    """The queue the analytic model solves (:data:`POOLED`, :data:`SPLIT`); None: only the simulator evaluates it."""
    waits_on_own_replica: ClassVar[bool] = False
    """Occupancy law: a request that finds no free slot waits for its own replica's completions (per-replica queues
    behind a pooled analytic queue), not for the first of the queue's slots."""
    central_queue: ClassVar[bool] = False
    """Simulator: one FIFO queue in front of every slot: an arrival joins the replica :meth:`picker` gives if it has
    a free slot, else the central queue, whose head the next replica to free a slot takes (else each replica queues
    its own requests)."""
    state_blind: ClassVar[bool] = False
    """Simulator: the replica is chosen without looking at the replicas' state (drawn before the run)."""
    keeps_load_buckets: ClassVar[bool] = False
    """Simulator: the engine keeps the replicas bucketed by outstanding requests (:attr:`EngineView.buckets`)."""
    steady_law: ClassVar[Literal["birth_death", "erlang_phase"] | None] = None
    """Simulator: the law of the requests on each replica a state-blind run starts in
    (:func:`rackcost.model.sim.sim_steady.steady_start`); None: the run starts at the expected occupancy."""
    replicas_independent: ClassVar[bool] = False
    """Simulator: with Poisson arrivals the replicas are independent queues (units of the rare-miss bound)."""

    @property
    def analytic(self) -> bool:
        """The model has a closed form for it."""
        return self.queue is not None

    def replica_stream_scv(self, arrival_scv: float, replicas: int) -> float | None:
        """Squared coefficient of variation of the arrivals one replica sees, where each replica is its own queue
        (a state-blind router); None where the router balances load over the fleet [-]."""
        return None

    def draw_route(self, rng: np.random.Generator, requests: int, replicas: int, offset: int = 0) -> Route | None:
        """The replicas drawn before the run, for each of ``requests`` arrivals (``offset``: the replica next in
        turn at the start); None: nothing drawn."""
        return None

    @abstractmethod
    def picker(self, view: EngineView) -> Callable[[int], int]:
        """The function the event engine calls with each arrival's index for the replica it joins (under a central
        queue: the replica it starts on if that one has a free slot)."""

    def replay(self, run: Replay) -> NDArray[np.int64]:
        """Each request's replica, from 0, in a replay where every request holds a slot for its given service time
        (the prefix-cache replay, :func:`rackcost.model.workload.prefix_cache.route_requests`).

        A state-blind router: the first replica :meth:`draw_route` draws for each request (no timing needed).
        Otherwise the arrivals are replayed in order through :meth:`picker`, reading an :class:`EngineView` kept as
        the event engine keeps it: per-replica FIFO queues (a request starts on its replica's earliest free slot),
        or under a central queue the replica picked if it has a free slot, else the earliest slot of the fleet to
        free up (FIFO, so a request's slot is known when it arrives). A request that finishes at an arrival's
        instant is no longer outstanding.

        Raises
        ------
        ValueError
            A router that looks at the replicas without arrival and service times, a central queue without the
            slots per replica, a picker that names no replica of the fleet.
        """
        route = self.draw_route(run.rng, run.requests, run.replicas)
        if self.state_blind:
            assert route is not None  # a state-blind router draws every replica before the run
            return np.asarray(route[0], dtype=np.int64)
        return _replay_picks(self, run, route)

    def __str__(self) -> str:
        return self.name


class Pooled(Router):
    name = "pooled"
    words = "one central queue over every slot of the fleet (M/M/k)"
    queue = POOLED
    central_queue = True

    def picker(self, view: EngineView) -> Callable[[int], int]:
        buckets = view.buckets
        assert buckets is not None  # a central queue keeps them
        least = buckets.least  # the least occupied replica
        return lambda i: least()


class LeastOutstanding(Router):
    name = "least_outstanding"
    words = "each request to the replica with the fewest outstanding requests, modelled as one M/M/k over every slot"
    queue = POOLED
    waits_on_own_replica = True
    keeps_load_buckets = True

    def picker(self, view: EngineView) -> Callable[[int], int]:
        buckets = view.buckets
        assert buckets is not None  # keeps_load_buckets
        least = buckets.least
        return lambda i: least()


class PowerOfTwo(Router):
    name = "power_of_two"
    words = "each request to the less loaded of two replicas drawn at random (simulation only)"

    def draw_route(self, rng: np.random.Generator, requests: int, replicas: int, offset: int = 0) -> Route | None:
        first = rng.integers(replicas, size=requests)
        if replicas == 1:
            return first, first
        return first, (first + 1 + rng.integers(max(replicas - 1, 1), size=requests)) % replicas

    def picker(self, view: EngineView) -> Callable[[int], int]:
        first, second, outstanding = view.first, view.second, view.outstanding

        def pick(i: int) -> int:
            a, b = first[i], second[i]
            return a if outstanding[a] <= outstanding[b] else b

        return pick

    def replay(self, run: Replay) -> NDArray[np.int64]:
        # the prefix-cache replay draws the two replicas independently (they may be the same one), as it always has,
        # where the simulator draws two distinct ones (draw_route): kept, so that a measured hit share stays as it was
        pairs = run.rng.integers(0, run.replicas, size=(run.requests, 2))
        return _replay_picks(self, run, (pairs[:, 0], pairs[:, 1]))


class _Drawn(Router):
    """A state-blind router: the replica of each request is drawn before the run."""

    state_blind = True

    def picker(self, view: EngineView) -> Callable[[int], int]:
        return view.first.__getitem__


class RoundRobin(_Drawn):
    name = "round_robin"
    words = "requests to the replicas in turn (simulation only)"
    steady_law = "erlang_phase"

    def replica_stream_scv(self, arrival_scv: float, replicas: int) -> float | None:
        return arrival_scv / replicas  # sums of N gaps

    def draw_route(self, rng: np.random.Generator, requests: int, replicas: int, offset: int = 0) -> Route | None:
        return (offset + np.arange(requests)) % replicas, None


class Random(_Drawn):
    name = "random"
    words = "each request to a replica drawn at random: independent M/M/c queues at lambda / N (exact)"
    queue = SPLIT
    steady_law = "birth_death"
    replicas_independent = True

    def replica_stream_scv(self, arrival_scv: float, replicas: int) -> float | None:
        return 1.0 + (arrival_scv - 1.0) / replicas  # the thinned renewal stream

    def draw_route(self, rng: np.random.Generator, requests: int, replicas: int, offset: int = 0) -> Route | None:
        return rng.integers(replicas, size=requests), None


def _replay_picks(router: Router, run: Replay, route: Route | None) -> NDArray[np.int64]:
    """:meth:`Router.replay` for a router that looks at the replicas: the arrivals replayed through its picker."""
    if run.arrival_s is None or run.service_s is None:
        raise ValueError(f"{router.name} routing looks at the replicas' state: it needs arrival and service times")
    if router.central_queue and run.slots_per_replica is None:
        raise ValueError(f"{router.name} routing takes the next free slot: it needs the slots per replica")
    n, replicas, slots = run.requests, run.replicas, run.slots_per_replica
    # each replica's slots as a heap of when each frees up [s] (a slot is busy from its first request's start to its
    # last one's end: FIFO, a request starts as the one before it ends)
    free = None if slots is None else [[0.0] * slots for _ in range(replicas)]
    in_service, outstanding = [0] * replicas, [0] * replicas
    ends: list[tuple[float, int]] = []  # (finish, replica) of every outstanding request
    changes: list[tuple[float, int, int]] = []  # (when, +1 a start or -1 an end, replica) of the requests in service
    drawn = ([], []) if route is None else (route[0].tolist(), (route[0] if route[1] is None else route[1]).tolist())
    # a central queue balances by requests in service, per-replica queues by outstanding ones (as the engine's buckets)
    least = _LeastOf(in_service if router.central_queue else outstanding)
    pick = router.picker(EngineView(n + 1 if slots is None else slots, in_service, outstanding, least, *drawn))
    out = np.zeros(n, dtype=np.int64)
    push, pop = heapq.heappush, heapq.heappop
    for i, (t, s) in enumerate(zip(run.arrival_s.tolist(), run.service_s.tolist(), strict=True)):
        while ends and ends[0][0] <= t:
            outstanding[pop(ends)[1]] -= 1
        while changes and changes[0][0] <= t:
            _, step, q = pop(changes)
            in_service[q] += step
        r = int(pick(i))
        if not 0 <= r < replicas:
            raise ValueError(f"the {router.name} router picked replica {r} of a fleet of {replicas}")
        start = t
        if free is not None and slots is not None:
            if router.central_queue and in_service[r] >= slots:  # no free slot on it: the fleet's earliest to free up
                r = min(range(replicas), key=lambda q: free[q][0])  # the lowest index on a tie
            start = max(t, pop(free[r]))
            push(free[r], start + s)
        outstanding[r] += 1
        push(ends, (start + s, r))
        if start > t:
            push(changes, (start, 1, r))
        else:
            in_service[r] += 1
        push(changes, (start + s, -1, r))
        out[i] = r
    return out


_REGISTRY: dict[str, Router] = {}


def register(router: Router) -> Router:
    """Add a router under its name (a name already taken is refused); returns it.

    Examples
    --------
    >>> class Sticky(LeastOutstanding):
    ...     name = "sticky"
    >>> register(Sticky()).name in router_names()
    True
    >>> unregister("sticky")
    """
    if not isinstance(router, Router):
        raise TypeError(f"a router is an instance of a Router subclass, got {router!r}")
    if router.name in _REGISTRY:
        raise ValueError(f"a router named {router.name!r} is registered already")
    _REGISTRY[router.name] = router
    return router


def unregister(name: str) -> None:
    """Remove a router added by :func:`register` (the built-in ones stay)."""
    if name in _BUILT_IN:
        raise ValueError(f"the built-in router {name!r} cannot be removed")
    del _REGISTRY[name]


def router_names(analytic: bool = False) -> tuple[str, ...]:
    """The registered routers' names, in registration order (only those with an analytic form, if asked)."""
    return tuple(name for name, r in _REGISTRY.items() if r.analytic or not analytic)


def router_of(name: str | Router) -> Router:
    """The router of a name (a router is returned as it is).

    Raises
    ------
    ValueError
        For a name no router is registered under; the message lists the names.

    Examples
    --------
    >>> router_of("random").queue is SPLIT
    True
    >>> router_of("sticky")
    Traceback (most recent call last):
    ...
    ValueError: routing must be one of pooled, least_outstanding, power_of_two, round_robin, random; got 'sticky'
    """
    if isinstance(name, Router):
        return name
    found = _REGISTRY.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"routing must be one of {', '.join(_REGISTRY)}; got {name!r}")
    return found


for _router in (Pooled(), LeastOutstanding(), PowerOfTwo(), RoundRobin(), Random()):
    register(_router)
_BUILT_IN = frozenset(_REGISTRY)
