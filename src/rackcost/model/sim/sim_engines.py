"""The simulator's engines: how one replica serves by occupancy, the work requests bring, and the two engines that
run a fleet request by request (:mod:`rackcost.model.sim.simulation` runs them and measures the result).

- :func:`fifo_recursion`: load-independent service (every ``S(n)`` equal) with a central FIFO queue (``pooled``) or a
  state-blind router (``random``, ``round_robin``: each replica its own FIFO queue). The exact many-server FIFO
  recursion: a request starts at ``max(arrival, earliest free slot)`` over a heap of slot free times.
- :func:`event_engine`: everything, occupancy-dependent service and state-aware routers included. Each replica keeps
  a virtual time that advances at ``1 / S(n(t))`` and a heap of the virtual finish times of its requests, and one
  global heap holds each replica's next completion, so an event costs O(log) work.

Why a hand-written heap loop rather than SimPy or ciw: :mod:`rackcost.model.sim.simulation` (measured, 65x SimPy).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.queues.routers import EngineView, router_of
from rackcost.model.replica.performance import Curve, interpolate_curve
from rackcost.model.strategies import DEFAULT_ROUTING, Routing
from rackcost.units import MS_PER_S

__all__ = [
    "DEFAULT_OUTPUT_TOKENS_CV_FRACTION",
    "ENGINES",
    "ROUTINGS",
    "MAX_SLOTS_PER_REPLICA",
    "KvLimit",
    "ReplicaModel",
    "RequestWork",
    "RunControls",
    "SimFleet",
    "SimulationTooLarge",
    "check_fleet",
    "draw_work",
    "event_engine",
    "fifo_recursion",
    "fixed_model",
    "initial_in_service",
    "replica_model",
    "residual_work",
    "steady_occupancy",
]

Array = NDArray[np.float64]

DEFAULT_OUTPUT_TOKENS_CV_FRACTION = 1.0
"""Coefficient of variation of the output length when the workload gives none: exponential, what M/M/k assumes [-]."""
MAX_SLOTS_PER_REPLICA = 2_000_000
"""Most request slots of one simulated replica [requests]: its tables take about 88 bytes a slot to build, and a real
replica holds tens of thousands of requests at most (docs/model.md, "The work, estimated before it runs")."""


class SimulationTooLarge(ValueError):
    """A simulation refused before it runs, its estimate in the message."""


def _check_slots(slots: int) -> None:
    if slots < 1:
        raise ValueError(f"slots must be at least 1, got {slots}")
    if slots > MAX_SLOTS_PER_REPLICA:
        raise SimulationTooLarge(
            f"a replica of {slots:,} request slots, over the {MAX_SLOTS_PER_REPLICA:,} the simulator runs (its tables: "
            f"{slots * 88 / 1e9:,.1f} GB); the operating point is far past any replica's: check the curve's figures"
        )


ROUTINGS = tuple(Routing)
"""The built-in routers (:mod:`rackcost.model.queues.routers` holds each one, and any router registered there runs too):
``pooled`` one central FIFO queue over every slot (a free slot anywhere takes the next request; among
replicas with a free slot the least occupied); ``least_outstanding`` join the replica with the fewest requests in
service plus queued; ``power_of_two`` two replicas drawn at random, the one with fewer outstanding;
``round_robin`` replicas in turn; ``random`` a replica drawn uniformly. All but ``pooled`` queue per replica, FIFO."""


@dataclass(frozen=True)
class ReplicaModel:
    """How one replica serves, by occupancy: index ``n`` holds the value with ``n`` requests in service.

    Attributes
    ----------
    slots
        Request slots of the replica (the scheduler limit) [requests].
    service_s
        Mean slot holding time ``S(n)`` at occupancy ``n``, ``n = 0 .. slots`` (entry 0 repeats entry 1) [s].
    ttft_s
        TTFT before queueing of a request that starts at occupancy ``n`` (itself included) [s].
    """

    slots: int
    service_s: Array
    ttft_s: Array

    @property
    def load_independent(self) -> bool:
        """True when neither the service time nor the TTFT depends on occupancy."""
        return bool(np.all(self.service_s == self.service_s[1]) and np.all(self.ttft_s == self.ttft_s[1]))


def replica_model(curve: Curve, slots: int) -> ReplicaModel:
    """A replica's occupancy tables read from its curve, ``S(n) = n / request_rps(n)``.

    Below the lowest measured concurrency the lowest point's service time and TTFT hold; nothing is extrapolated.

    Parameters
    ----------
    curve
        The replica's measured operating points.
    slots
        Request slots [requests], at most the highest measured concurrency.

    Examples
    --------
    >>> from rackcost.model.replica.performance import build_curve
    >>> curve = build_curve([4.0, 8.0], [400.0, 640.0], "output", [10.0, 12.5], [100.0, 150.0], 100.0, 100.0)
    >>> m = replica_model(curve, 8)
    >>> m.service_s[[1, 4, 8]].round(3).tolist()  # 4 / 4 rps held below c = 4; 8 / 6.4 rps at c = 8
    [1.0, 1.0, 1.25]
    """
    _check_slots(slots)
    n = np.arange(1, slots + 1, dtype=float)
    lo, hi = curve.concurrency[0], curve.concurrency[-1]
    points = interpolate_curve(curve, np.clip(n, lo, hi))
    service = points.service_s
    ttft = points.ttft_ms / MS_PER_S
    return ReplicaModel(slots, np.concatenate([service[:1], service]), np.concatenate([ttft[:1], ttft]))


def fixed_model(slots: int, service_s: float, ttft_s: float) -> ReplicaModel:
    """A load-independent replica: the same service time and TTFT at every occupancy (what M/M/k assumes)."""
    _check_slots(slots)
    return ReplicaModel(slots, np.full(slots + 1, float(service_s)), np.full(slots + 1, float(ttft_s)))


def steady_occupancy(model: ReplicaModel, rate_per_replica_rps: float) -> float:
    """Mean requests in service on a replica at a per-replica arrival rate, ignoring queueing: the largest fixed
    point of ``n = rate x S(n)`` below the slot limit (Little's law with the occupancy's own service time) [requests].

    Used to start a replication near steady state; an overloaded replica starts full.

    Examples
    --------
    >>> round(steady_occupancy(fixed_model(10, 2.0, 0.1), 3.0), 6)  # 3 rps x 2 s
    6.0
    """
    grid = np.arange(model.slots + 1, dtype=float)
    n = float(model.slots)
    for _ in range(200):  # monotone from above when S(n) rises with n; converges in a few dozen steps
        nxt = min(float(model.slots), rate_per_replica_rps * float(np.interp(n, grid, model.service_s)))
        if abs(nxt - n) < 1e-9:
            break
        n = nxt
    return n


def draw_work(rng: np.random.Generator, size: int, cv_fraction: float) -> Array:
    """Work of each request, mean 1: gamma with the given coefficient of variation (0: every request 1) [-].

    Examples
    --------
    >>> w = draw_work(np.random.default_rng(1), 200_000, 0.5)
    >>> round(float(w.mean()), 2), round(float(w.std() / w.mean()), 2)
    (1.0, 0.5)
    """
    if cv_fraction < 0:
        raise ValueError(f"cv_fraction must be >= 0, got {cv_fraction}")
    if cv_fraction == 0:
        return np.ones(size)
    shape = 1.0 / cv_fraction**2
    return rng.gamma(shape, cv_fraction**2, size)


def residual_work(rng: np.random.Generator, size: int, cv_fraction: float) -> Array:
    """Remaining work of requests found in service at a random time: the equilibrium (length-biased x uniform)
    distribution of :func:`draw_work`'s law, used to start a replication near steady state [-]."""
    u = rng.random(size)
    if cv_fraction == 0:
        return u
    shape = 1.0 / cv_fraction**2
    return u * rng.gamma(shape + 1.0, cv_fraction**2, size)  # length-biased gamma is gamma(shape + 1)


def check_fleet(replicas: int, routing: str) -> None:
    """A fleet of at least one replica under a known router, else ValueError."""
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {replicas}")
    router_of(routing)  # a ValueError naming the routers for an unknown one


def initial_in_service(replicas: int, slots: int, initial_busy_fraction: float) -> int:
    """Requests in service per replica at time 0 for a warm start at ``initial_busy_fraction`` of the slots."""
    return int(round(min(max(initial_busy_fraction, 0.0), 1.0) * slots))


def fifo_recursion(
    arrival_s: Array,
    work: Array,
    replicas: int,
    model: ReplicaModel,
    routing: str = DEFAULT_ROUTING,
    route: NDArray[np.int64] | None = None,
    initial_work: Array | None = None,
) -> tuple[Array, Array]:
    """Start and finish times under load-independent service: the exact FIFO many-server recursion.

    A request starts at ``max(arrival, earliest free slot)`` and frees its slot ``work x S`` later. ``pooled``
    runs it over every slot of the fleet; ``random`` and ``round_robin`` (``route`` gives each request's replica)
    run it per replica.

    Parameters
    ----------
    arrival_s, work
        Sorted arrival times [s] and each request's work [-].
    replicas, model
        Serving replicas [-] and their (load-independent) model.
    routing
        ``pooled``, ``random`` or ``round_robin``.
    route
        Replica of each request, for the per-replica routers.
    initial_work
        Remaining work of the requests in service at time 0, per replica (``replicas x m``) [-].

    Returns
    -------
    start_s, finish_s : ndarray
        Per request [s].
    """
    # the heap loop is plain Python: heapq.heapreplace costs about 1 us per request (see the module docstring)
    service = float(model.service_s[1])
    hold = (work * service).tolist()
    arrivals = arrival_s.tolist()
    start = [0.0] * len(arrivals)
    busy0 = np.zeros((replicas, 0)) if initial_work is None else initial_work * service
    router = router_of(routing)
    if router.central_queue:
        groups = [(range(len(arrivals)), busy0.ravel().tolist(), replicas * model.slots)]
    elif router.state_blind:
        assert route is not None
        order = np.argsort(route, kind="stable")
        bounds = np.searchsorted(route[order], np.arange(replicas + 1))
        groups = [(order[bounds[r] : bounds[r + 1]].tolist(), busy0[r].tolist(), model.slots) for r in range(replicas)]
    else:
        raise ValueError(f"the FIFO recursion serves a central queue or a state-blind router, not {routing!r}")
    replace = heapq.heapreplace
    for members, busy, slots in groups:
        free = sorted(busy) + [0.0] * (slots - len(busy))
        heapq.heapify(free)
        for i in members:
            a = arrivals[i]
            f = free[0]
            s = a if a > f else f
            start[i] = s
            replace(free, s + hold[i])
    start_s = np.array(start)
    return start_s, start_s + work * service


@dataclass(frozen=True)
class KvLimit:
    """KV-cache memory of each replica for :func:`event_engine`'s KV-limited admission.

    Attributes
    ----------
    free_bytes
        Memory of one replica for the KV cache (HBM less weights less the reserve) [bytes].
    bytes_per_request
        KV bytes each request holds while in service, one entry per request (a request larger than
        ``free_bytes`` is capped at it: served alone) [bytes].
    initial_bytes_per_request
        KV bytes of each request in service at time 0 (the warm start) [bytes].
    """

    free_bytes: float
    bytes_per_request: Array
    initial_bytes_per_request: float


@dataclass(frozen=True)
class SimFleet:
    """The fleet a run simulates.

    Attributes
    ----------
    replicas, model, routing
        Serving replicas [-], their :class:`ReplicaModel`, the router (:data:`ROUTINGS`).
    queue_cap
        Queued requests allowed (the central queue's for ``pooled``, each replica's otherwise) before arrivals are
        dropped; None: unbounded.
    kv
        KV-limited admission (:class:`KvLimit`, one entry per generated request; the requests of a steady start hold
        its ``initial_bytes_per_request``); runs the event engine. None: slots only.
    """

    replicas: int
    model: ReplicaModel
    routing: str
    queue_cap: int | None = None
    kv: KvLimit | None = None


@dataclass(frozen=True, eq=False)
class RequestWork:
    """The work each request brings and its output tokens: gamma work of ``cv_fraction`` (:func:`draw_work`), or
    each request's own, drawn by the caller.

    Attributes
    ----------
    cv_fraction
        Coefficient of variation of the work [-]; 1 is exponential, 0 fixed. Also draws the warm start's residual
        work where ``work`` is given.
    output_tokens
        Mean output tokens per request, OSL [tokens]: a request's tokens are its work times this, unless given.
    work, request_output_tokens
        Each request's work (mean 1) and output tokens, drawn by the caller (request classes,
        :mod:`rackcost.model.sim.sim_classes`; a trace's own lengths, :mod:`rackcost.model.sim.sim_trace`; a tandem's
        decode stage, :mod:`rackcost.model.sim.sim_tandem`) [-, tokens]; None: drawn.
    ttft_ratio
        Each request's TTFT before queueing over the curve's (a trace's own input lengths,
        :func:`rackcost.model.sim.sim_trace.shape_requests`): its TTFT is its wait plus this times the curve's TTFT at
        the occupancy it starts at; None: 1 [-].
    """

    cv_fraction: float = DEFAULT_OUTPUT_TOKENS_CV_FRACTION
    output_tokens: float = 1.0
    work: ArrayLike | None = None
    request_output_tokens: ArrayLike | None = None
    ttft_ratio: ArrayLike | None = None

    def draw(self, rng: np.random.Generator, requests: int) -> tuple[Array, Array]:
        """Each of ``requests`` requests' work [-] and output tokens [tokens].

        Examples
        --------
        >>> RequestWork(0.0, 100.0).draw(np.random.default_rng(0), 2)
        (array([1., 1.]), array([100., 100.]))
        """
        if self.work is None:
            work = draw_work(rng, requests, self.cv_fraction)
            return work, work * self.output_tokens
        work = np.asarray(self.work, dtype=float)
        if work.shape != (requests,):
            raise ValueError(f"request_work must hold one work per request ({requests}), got {work.shape}")
        given = self.request_output_tokens
        return work, work * self.output_tokens if given is None else np.asarray(given, dtype=float)

    def with_ttft_ratio(self, arrival_s: Array, start_s: Array, ttft_s: Array, backlog: int) -> Array:
        """Each request's TTFT with its own prefill (:attr:`ttft_ratio`: its share of the curve's TTFT, not of its
        wait); the ``backlog`` requests of a steady start first keep theirs [s]."""
        if self.ttft_ratio is None:
            return ttft_s
        n = arrival_s.size
        ratio = np.asarray(self.ttft_ratio, dtype=float)
        if ratio.shape != (n - backlog,):
            raise ValueError(f"request_ttft_ratio must hold one ratio per request ({n - backlog}), got {ratio.shape}")
        wait = start_s - arrival_s
        return wait + np.concatenate([np.ones(backlog), ratio]) * (ttft_s - wait)


ENGINES = ("auto", "recursion", "event")
"""How a run is served: ``auto`` (:func:`fifo_recursion` where it applies, else :func:`event_engine`), or either."""


@dataclass(frozen=True)
class RunControls:
    """How a run starts, which engine serves it and what it records.

    Attributes
    ----------
    initial_busy_fraction
        Share of each replica's slots busy at time 0, with equilibrium residual work (a warm start) [-]; None:
        ``random`` and ``round_robin`` routing without a queue cap start in the steady state of their router
        (:func:`rackcost.model.sim.sim_steady.steady_start`: requests in service and queued drawn from each replica's
        stationary law; for a trace, at its mean rate, placed at its first arrival: an approximate start), every
        other run at :func:`steady_occupancy` of the mean arrival rate per replica.
    engine
        One of :data:`ENGINES`.
    record_occupancy
        Record each request's start occupancy (the event engine only).
    """

    initial_busy_fraction: float | None = None
    engine: str = "auto"
    record_occupancy: bool = False


class _MinBuckets:
    """Replicas bucketed by an integer count that moves by one at a time; the least count in O(1)."""

    def __init__(self, counts: list[int]) -> None:
        top = max(counts) + 2
        self.sets: list[set[int]] = [set() for _ in range(top)]
        for r, c in enumerate(counts):
            self.sets[c].add(r)
        self.count = list(counts)
        self.low = min(counts)

    def least(self) -> int:
        return next(iter(self.sets[self.low]))

    def up(self, r: int) -> None:
        c = self.count[r]
        sets = self.sets
        sets[c].discard(r)
        if c + 1 == len(sets):
            sets.append(set())
        sets[c + 1].add(r)
        self.count[r] = c + 1
        if c == self.low and not sets[c]:
            self.low = c + 1

    def down(self, r: int) -> None:
        c = self.count[r]
        self.sets[c].discard(r)
        self.sets[c - 1].add(r)
        self.count[r] = c - 1
        if c - 1 < self.low:
            self.low = c - 1


class _EngineState:
    """The event engine's state over one run: each replica's occupancy, virtual time and heap of virtual finish
    times, the queues, the global heap of completions, and each request's figures as they are set (lists, updated in
    place by the engine's steps: :func:`_begin_step`, :func:`_completion_step`, :func:`_arrival_step`).

    Plain Python over lists: every event touches a few scalars, where numpy's per-call overhead would dominate; each
    step is a closure over the lists it reads (a closure's cells are read as fast as a local, a method's attributes
    about twice as slow: the engine runs a few microseconds a request).
    """

    def __init__(
        self,
        fleet: SimFleet,
        arrival_s: Array,
        work: Array,
        choices: tuple[NDArray[np.int64], NDArray[np.int64]] | None,
        initial_work: Array | None,
        start_occupancy: list[int] | None,
    ) -> None:
        replicas, model, kv = fleet.replicas, fleet.model, fleet.kv
        n_req = len(arrival_s)
        self.arrivals = arrival_s.tolist()
        self.works = work.tolist()
        self.svc = model.service_s.tolist()
        self.ttft0 = model.ttft_s.tolist()
        self.slots = model.slots
        self.replicas = replicas
        self.cap = math.inf if fleet.queue_cap is None else fleet.queue_cap
        nan = math.nan
        self.start = [nan] * n_req
        self.finish = [nan] * n_req
        self.ttft = [nan] * n_req
        self.dropped = [False] * n_req
        self.start_occupancy = start_occupancy
        init_w = np.zeros((replicas, 0)) if initial_work is None else initial_work
        m0 = init_w.shape[1]
        self.n_in = [m0] * replicas  # in service
        self.virtual = [0.0] * replicas  # work done per request in service since time 0 [-]
        self.stamp = [0.0] * replicas  # real time the virtual time was last brought up to date [s]
        self.tags: list[list[tuple[float, int]]] = []
        for r in range(replicas):
            h = [(float(w), -1 - (r * m0 + j)) for j, w in enumerate(init_w[r])]  # negative ids: warm-start requests
            heapq.heapify(h)
            self.tags.append(h)
        self.initial_finish = [nan] * (replicas * m0)
        self.version = [0] * replicas
        self.events: list[tuple[float, int, int]] = []
        for r in range(replicas):
            if self.n_in[r]:
                heapq.heappush(self.events, (self.tags[r][0][0] * self.svc[self.n_in[r]], r, 0))
        router = router_of(fleet.routing)
        self.pooled = router.central_queue
        self.central: deque[int] = deque()
        self.queues: list[deque[int]] = [deque() for _ in range(replicas)]
        # a central queue: buckets by occupancy (least-occupied free replica); else, where the router asks, by in
        # service plus queued
        self.buckets = _MinBuckets(list(self.n_in)) if self.pooled or router.keeps_load_buckets else None
        self.outstanding = list(self.n_in)
        # the pre-drawn replicas (Router.draw_route), read by the router's picker
        first: list[int] = []
        second: list[int] = []
        if choices is not None:
            first = choices[0].tolist()
            second = first if choices[1] is choices[0] else choices[1].tolist()
        self.pick = router.picker(EngineView(self.slots, self.n_in, self.outstanding, self.buckets, first, second))
        self.kv = kv
        self.kv_need = [] if kv is None else np.minimum(kv.bytes_per_request, kv.free_bytes).tolist()
        self.kv_free = math.inf if kv is None else kv.free_bytes
        self.kv_used = [0.0 if kv is None else m0 * kv.initial_bytes_per_request] * replicas

    def room(self) -> Callable[[int, int], bool]:
        """Whether replica ``r`` has a free slot and room for request ``i``'s KV cache: ``room(i, r)``."""
        n_in, slots, kv_used, kv_need, kv_free = self.n_in, self.slots, self.kv_used, self.kv_need, self.kv_free

        def room(i: int, r: int) -> bool:
            return n_in[r] < slots and kv_used[r] + kv_need[i] <= kv_free

        return room


def _begin_step(st: _EngineState) -> Callable[[int, int, float], None]:
    """The step that starts request ``i`` on replica ``r`` at time ``t``: ``begin(i, r, t)``."""
    n_in, virtual, stamp, svc, tags, works = st.n_in, st.virtual, st.stamp, st.svc, st.tags, st.works
    start, ttft, arrivals, ttft0, version, events = st.start, st.ttft, st.arrivals, st.ttft0, st.version, st.events
    kv_used, kv_need, has_kv, recorded = st.kv_used, st.kv_need, st.kv is not None, st.start_occupancy
    push = heapq.heappush

    def begin(i: int, r: int, t: float) -> None:
        # bring replica r's virtual time to t at its old occupancy, then add request i
        n = n_in[r]
        if n:
            virtual[r] += (t - stamp[r]) / svc[n]
        stamp[r] = t
        n += 1
        n_in[r] = n
        if has_kv:
            kv_used[r] += kv_need[i]
        push(tags[r], (virtual[r] + works[i], i))
        start[i] = t
        ttft[i] = t - arrivals[i] + ttft0[n]
        if recorded is not None:
            recorded[i] = n
        version[r] += 1
        push(events, (t + (tags[r][0][0] - virtual[r]) * svc[n], r, version[r]))

    return begin


def _completion_step(st: _EngineState, begin: Callable[[int, int, float], None]) -> Callable[[int, float], None]:
    """The step of a completion on replica ``r`` at ``t``: ``complete(r, t)``. The request of least virtual finish
    time leaves; the head of the queue (the central one, or the replica's own) starts, or under KV-limited admission
    the cache is freed and the queue's heads start while they fit."""
    n_in, virtual, stamp, svc, tags, version, events = (
        st.n_in,
        st.virtual,
        st.stamp,
        st.svc,
        st.tags,
        st.version,
        st.events,
    )
    finish, initial_finish, outstanding, buckets = st.finish, st.initial_finish, st.outstanding, st.buckets
    pooled, central, queues, kv, kv_used, kv_need = st.pooled, st.central, st.queues, st.kv, st.kv_used, st.kv_need
    room = st.room()
    push, pop = heapq.heappush, heapq.heappop

    def complete(r: int, t: float) -> None:
        n = n_in[r]
        virtual[r] += (t - stamp[r]) / svc[n]
        stamp[r] = t
        _, j = pop(tags[r])
        if j >= 0:
            finish[j] = t
        else:
            initial_finish[-1 - j] = t
        n -= 1
        n_in[r] = n
        outstanding[r] -= 1
        queue = central if pooled else queues[r]
        if kv is not None:  # KV-limited: free the cache, then start the queue's heads while they fit
            kv_used[r] -= kv_need[j] if j >= 0 else kv.initial_bytes_per_request
            if buckets is not None:
                buckets.down(r)
            started = False
            while queue and room(queue[0], r):
                k = queue.popleft()
                if pooled:
                    assert buckets is not None
                    buckets.up(r)
                    outstanding[r] += 1
                begin(k, r, t)
                started = True
            if not started:
                version[r] += 1
                if n:
                    push(events, (t + (tags[r][0][0] - virtual[r]) * svc[n], r, version[r]))
            return
        if queue:
            k = queue.popleft()
            if pooled:
                outstanding[r] += 1
            elif buckets is not None:
                buckets.down(r)
            begin(k, r, t)
            return
        if buckets is not None:
            buckets.down(r)
        version[r] += 1
        if n:
            push(events, (t + (tags[r][0][0] - virtual[r]) * svc[n], r, version[r]))

    return complete


def _arrival_step(st: _EngineState, begin: Callable[[int, int, float], None]) -> Callable[[int, float], None]:
    """The step of request ``i`` arriving at ``t``: ``arrive(i, t)``, the router's dispatch. It starts on the replica
    the router picks if that one has a free slot (KV-limited: room; under a central queue any replica with room
    while nothing queues, under per-replica queues only when nothing queues before it), else it joins the central
    queue or that replica's, else (a full queue) it is dropped."""
    pick, buckets, outstanding, dropped, slots, cap = st.pick, st.buckets, st.outstanding, st.dropped, st.slots, st.cap
    kv, central, queues, n_in, replicas = st.kv, st.central, st.queues, st.n_in, st.replicas
    room = st.room()

    def arrive_central(i: int, t: float) -> None:
        assert buckets is not None  # a central queue keeps buckets
        r = pick(i)
        if kv is not None and not central and not room(i, r):  # the least occupied has no room: any with room
            r = next((q for q in range(replicas) if room(i, q)), r)
        if buckets.count[r] < slots and (kv is None or (not central and room(i, r))):
            buckets.up(r)
            outstanding[r] += 1
            begin(i, r, t)
        elif len(central) < cap:
            central.append(i)
        else:
            dropped[i] = True

    def arrive_own(i: int, t: float) -> None:
        r = pick(i)
        if n_in[r] < slots if kv is None else (not queues[r] and room(i, r)):
            outstanding[r] += 1
            if buckets is not None:
                buckets.up(r)
            begin(i, r, t)
        elif len(queues[r]) < cap:
            outstanding[r] += 1
            if buckets is not None:
                buckets.up(r)
            queues[r].append(i)
        else:
            dropped[i] = True

    return arrive_central if st.pooled else arrive_own


def event_engine(
    fleet: SimFleet,
    arrival_s: Array,
    work: Array,
    choices: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None,
    initial_work: Array | None = None,
    start_occupancy: list[int] | None = None,
) -> tuple[Array, Array, Array, NDArray[np.bool_], Array]:
    """The discrete-event engine: occupancy-dependent service, any router, optional queue cap and KV limit.

    Parameters
    ----------
    fleet
        The fleet (:class:`SimFleet`): its replicas, their model, the router (:data:`ROUTINGS`), the queue cap (the
        central queue's for ``pooled``, each replica's otherwise; an arrival that finds it full is dropped) and the
        KV-limited admission (:class:`KvLimit`: a request starts only when its replica has a free slot *and* room
        for its KV cache; queues stay FIFO, so a large request at the head waits for room and those behind it wait
        too; under ``pooled`` routing an arrival takes the least occupied replica with room).
    arrival_s, work
        Sorted arrival times [s] and each request's work [-].
    choices
        Pre-drawn replicas: ``random`` and ``round_robin`` read the first array, ``power_of_two`` both.
    initial_work
        Remaining work of the requests in service at time 0, ``replicas x m`` [-].
    start_occupancy
        A list of one entry per request, filled with the occupancy each request starts at (itself included; 0
        where it is dropped) [requests]; None: not recorded.

    Returns
    -------
    start_s, finish_s, ttft_s, dropped, initial_finish_s
        Per request (NaN where dropped) [s], and the completion times of the warm-start requests [s].
    """
    state = _EngineState(fleet, arrival_s, work, choices, initial_work, start_occupancy)
    begin = _begin_step(state)
    complete, arrive = _completion_step(state, begin), _arrival_step(state, begin)
    events, version, arrivals = state.events, state.version, state.arrivals
    pop = heapq.heappop
    n_req = len(arrivals)
    i = 0
    next_arrival = arrivals[0] if n_req else math.inf
    while True:
        if events and events[0][0] <= next_arrival:
            t, r, v = pop(events)
            if v == version[r]:  # else superseded: the replica's occupancy changed since it was scheduled
                complete(r, t)
            continue
        if i == n_req:
            break
        arrive(i, next_arrival)
        i += 1
        next_arrival = arrivals[i] if i < n_req else math.inf
    return (
        np.array(state.start),
        np.array(state.finish),
        np.array(state.ttft),
        np.array(state.dropped, dtype=bool),
        np.array(state.initial_finish),
    )
