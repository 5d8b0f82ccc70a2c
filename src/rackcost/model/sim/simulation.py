"""A discrete-event simulation of one serving fleet at one arrival rate: the referee of the analytic queueing model.

``replicas`` serving replicas with ``slots`` request slots each take Poisson arrivals (or a given trace of arrival
times). A router sends each request to a replica (:data:`ROUTINGS`); a request waits in a FIFO queue until a slot
is free, then holds the slot for its prefill and its output tokens.

Service is load-dependent and consistent with the analytic model, whose slot holding time at in-service
concurrency ``n`` is ``S(n) = n / request_rps(n)`` (:class:`ReplicaModel`). Request ``i`` brings work
``w_i = L_i / mean(L)`` (``L_i`` its output length, so the mean work is 1), and every request in service on a
replica advances at ``1 / S(n(t))`` units of work per second, ``n(t)`` the replica's current occupancy. Each replica
keeps a virtual time that advances at that rate and a heap of the virtual finish times of its requests
(processor-sharing bookkeeping: the request with the least finish time completes first), and one global heap holds
each replica's next completion, so an event costs O(log) work. TTFT is the queueing wait plus the curve's TTFT at
the occupancy the request starts at.

Two engines give the same answer where both apply (a test checks it to rounding):

- :func:`fifo_recursion`: load-independent service (every ``S(n)`` equal) with a central FIFO queue (``pooled``) or a
  state-blind router (``random``, ``round_robin``: each replica its own FIFO queue). The exact many-server FIFO
  recursion: a request starts at ``max(arrival, earliest free slot)`` over a heap of slot free times.
- :func:`event_engine`: everything, occupancy-dependent service and state-aware routers included.

Why a hand-written heap loop rather than SimPy or ciw: measured on this project's 2-core machine
(``benchmarks/bench_simulate.py``, pooled M/M/4096 at 95% utilisation), SimPy 4.1 with one process per request and a
``Resource`` runs about 35,000 requests/s (about 28 s for 10^6 requests) and ciw 3.2 about 2,000 requests/s, against
about 2,300,000 requests/s for the recursion below (0.43 s for 10^6, inside the 5 s budget) and about 250,000 to
300,000 for the event engine. Nor can a ``Resource`` express a slot whose speed depends on how many others are busy
without the same virtual-time bookkeeping on top.

Arrivals are a renewal process (:mod:`rackcost.model.sim.sim_arrivals`: Poisson by default, drawn as always;
``arrival_scv`` above 1 a balanced-means hyperexponential, below 1 a mixed Erlang) or a trace.

Where a replication starts (:attr:`Run.start`). Routers that balance load (``pooled``, ``least_outstanding``,
``power_of_two``) relax as the pooled fleet does, in seconds: they start with the fleet at about its expected
occupancy (requests in service with equilibrium residual work, no queue). Under ``random`` and ``round_robin`` each
replica is its own queue, which near saturation relaxes in thousands of seconds (:func:`queue_relaxation_s`), far
longer than a replication: those runs start in the steady state their router implies
(:func:`rackcost.model.sim.sim_steady.steady_start`: the requests on each replica, in service and queued, drawn from its
birth-death law under random routing, from the E_N/M/c law given its arrival phase under round robin), exact with
Poisson arrivals and exponential work, so every moment of the run is stationary.

Statistics (:func:`replicate`): the first :data:`WARMUP_FRACTION` of the requests are discarded (for ``random`` and
``round_robin`` from an approximate start, at least :data:`WARMUP_RELAXATION_TIMES` relaxation times, up to
:data:`MAX_WARMUP_FRACTION`: :func:`warmup_requests`); 95% confidence half-widths come from independent replications
(Student t over the replication estimates) or, for one trace, from batch means. :attr:`Summary.warnings` says when
the interval cannot be trusted: no steady state (the arrivals reach what every slot completes), a run from an
approximate start shorter than the relaxation time, or a drift of the accepted share between the first and second
half of the measured requests. Where SLO misses are rare, the accepted share's interval is widened to a
conservative bound (:mod:`rackcost.model.sim.sim_rare`).

Pure numpy and the standard library (plus :func:`scipy.special.stdtrit` for the t quantile).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
from scipy.special import stdtrit

from rackcost.model.queues.routers import router_of
from rackcost.model.sim.sim_arrivals import (
    ARRIVAL_SCV_RANGE,
    RenewalArrivals,
    SwingArrivals,
    TraceArrivals,
    check_arrival_scv,
    interarrival_s,
)
from rackcost.model.sim.sim_engines import (
    DEFAULT_OUTPUT_TOKENS_CV_FRACTION,
    ENGINES,
    ROUTINGS,
    KvLimit,
    ReplicaModel,
    RequestWork,
    RunControls,
    SimFleet,
    check_fleet,
    draw_work,
    event_engine,
    fifo_recursion,
    fixed_model,
    initial_in_service,
    replica_model,
    residual_work,
    steady_occupancy,
)
from rackcost.model.sim.sim_rare import SEGMENT_RELAXATION_TIMES, miss_units
from rackcost.model.sim.sim_steady import relaxation_time_s, steady_start
from rackcost.model.sim.sim_summary import Summary, summarise, with_rare_bound
from rackcost.model.sim.sim_work import check_fleet_work

__all__ = [
    "ARRIVAL_SCV_RANGE",
    "DEFAULT_OUTPUT_TOKENS_CV_FRACTION",
    "DEFAULT_CONTROLS",
    "ESTIMATES",
    "GAMMA_WORK",
    "SEGMENT_RELAXATION_TIMES",
    "ROUTINGS",
    "WARMUP_FRACTION",
    "Arrivals",
    "KvLimit",
    "RenewalArrivals",
    "ReplicaModel",
    "RequestWork",
    "Run",
    "RunControls",
    "SimFleet",
    "Summary",
    "SwingArrivals",
    "TraceArrivals",
    "check_arrival_scv",
    "draw_work",
    "event_engine",
    "fifo_recursion",
    "fixed_model",
    "interarrival_s",
    "queue_relaxation_s",
    "replica_model",
    "miss_units",
    "replicate",
    "residual_work",
    "run_fleet_once",
    "run_statistics",
    "steady_occupancy",
    "warmup_requests",
]

Array = NDArray[np.float64]

WARMUP_FRACTION = 0.1
"""Share of each replication's first requests left out of the statistics [-]."""
WARMUP_RELAXATION_TIMES = 3.0
"""Relaxation times of the queue (:func:`queue_relaxation_s`) left out when a per-replica router's run does not
start in its steady state (bursty arrivals, non-exponential work), up to :data:`MAX_WARMUP_FRACTION` [-]."""
MAX_WARMUP_FRACTION = 0.5
"""Largest share of a replication left out as warm-up [-]."""
DRIFT_CONFIDENCE_FRACTION = 0.99
"""Confidence at which a difference between the first and second half of the runs flags a drift [-]."""
DRIFT_MIN_FRACTION = 0.002
"""Smallest drift of the accepted share between halves worth a warning [-]."""
ESTIMATES = (
    "accepted_fraction",
    "dropped_fraction",
    "wait_mean_s",
    "ttft_p50_s",
    "ttft_p99_s",
    "utilization_fraction",
    "accepted_rps",
    "accepted_output_tokens_per_s",
)
"""What :func:`run_statistics` estimates, one number each per replication."""


@dataclass(frozen=True)
class Run:
    """One simulated sample path, request by request (NaN where a dropped request has no value).

    Attributes
    ----------
    arrival_s, start_s, finish_s
        Arrival, start of service, completion [s].
    ttft_s
        Queueing wait plus the TTFT at the occupancy the request started at [s].
    output_tokens
        Output tokens of each request [tokens].
    dropped
        True where admission control (a full queue) dropped the request.
    initial_finish_s
        Completion times of the requests on the fleet at time 0 (the warm start) [s].
    total_slots
        Slots of the fleet [requests].
    initial_start_s
        When those requests started service: 0 for those in service at time 0, later for those queued (a steady
        start) [s]; None: all at 0.
    start
        How the run started: ``"steady"`` (the router's steady state, exact: :mod:`rackcost.model.sim.sim_steady`),
        ``"steady, approximate"`` (that law used for bursty arrivals, non-exponential work or merged phases),
        ``"occupancy"`` (busy slots at the expected occupancy, no queue) or ``"given"`` (the caller's busy share).
    replica
        The replica each request went to, under the state-blind routers (``random``, ``round_robin``); None under
        the others.
    start_occupancy
        The occupancy of its replica each request started at, itself included (0 where dropped), when asked for
        (``record_occupancy``) and the event engine ran; None otherwise [requests].
    """

    arrival_s: Array
    start_s: Array
    finish_s: Array
    ttft_s: Array
    output_tokens: Array
    dropped: NDArray[np.bool_]
    initial_finish_s: Array
    total_slots: int
    initial_start_s: Array | None = None
    start: str = "occupancy"
    replica: NDArray[np.int64] | None = None
    start_occupancy: NDArray[np.int64] | None = None

    @property
    def wait_s(self) -> Array:
        """Queueing wait [s]."""
        return self.start_s - self.arrival_s


GAMMA_WORK = RequestWork()
"""Exponential work of mean 1 (:class:`RequestWork`'s defaults)."""
DEFAULT_CONTROLS = RunControls()
"""The default start, engine choice and records (:class:`RunControls`'s defaults)."""
Arrivals = RenewalArrivals | TraceArrivals
"""What a run's arrivals are: generated (:class:`RenewalArrivals`) or a trace's (:class:`TraceArrivals`)."""


@dataclass(frozen=True)
class _Start:
    """How a run starts: the requests on the fleet at time 0 and the replicas drawn for every request.

    ``backlog`` requests of a steady start come first in ``arrival_s`` and ``work`` (arriving at once, placed on
    their replicas by ``first``); an occupancy start has none and its requests in service are ``initial_work``."""

    arrival_s: Array
    work: Array
    initial_work: Array
    first: NDArray[np.int64] | None
    second: NDArray[np.int64] | None
    backlog: int
    kind: str


def _steady_start(
    rng: np.random.Generator, fleet: SimFleet, arrivals: Arrivals, work: RequestWork, times: Array, drawn: Array
) -> _Start | None:
    """A steady start (:func:`rackcost.model.sim.sim_steady.steady_start`) for a state-blind router: every request on a
    replica at time 0 arrives at once, in FIFO order; the first ``min(n, c)`` start at once with equilibrium
    residual work, the rest queue with fresh work. None where the router has no steady law or the replica none."""
    if router_of(fleet.routing).steady_law is None:
        return None
    rate = arrivals.steady_rps(times)
    steady = None if rate is None else steady_start(rng, fleet.model, fleet.replicas, fleet.routing, rate)
    if steady is None:
        return None
    counts, offset, merged = steady
    exact = arrivals.poisson and work.cv_fraction == 1.0 and not merged
    backlog = int(counts.sum())
    owner = np.repeat(np.arange(fleet.replicas), counts)
    position = np.arange(backlog) - np.repeat(np.cumsum(counts) - counts, counts)
    cv = work.cv_fraction
    held = np.where(position < fleet.model.slots, residual_work(rng, backlog, cv), draw_work(rng, backlog, cv))
    route = router_of(fleet.routing).draw_route(rng, times.size, fleet.replicas, offset)
    assert route is not None and route[1] is None  # a steady start is drawn for state-blind routers
    return _Start(
        np.concatenate([np.full(backlog, arrivals.first_s(times)), times]),
        np.concatenate([held, drawn]),
        np.zeros((fleet.replicas, 0)),
        np.concatenate([owner, route[0]]),
        None,
        backlog,
        "steady" if exact else "steady, approximate",
    )


def _occupancy_start(
    rng: np.random.Generator, fleet: SimFleet, work: RequestWork, times: Array, drawn: Array, busy: float | None
) -> _Start:
    """The fleet at time 0 with ``busy`` of each replica's slots in service (None: :func:`steady_occupancy` at the
    mean arrival rate per replica), each with equilibrium residual work; the replicas the router draws."""
    model, replicas = fleet.model, fleet.replicas
    kind = "given" if busy is not None else "occupancy"
    if busy is None:
        n = times.size
        span = float(times[-1] - times[0])
        rate = (n - 1) / span if span > 0 else 0.0
        busy = steady_occupancy(model, rate / replicas) / model.slots
    m0 = initial_in_service(replicas, model.slots, busy)
    initial = residual_work(rng, replicas * m0, work.cv_fraction).reshape(replicas, m0)
    first, second = router_of(fleet.routing).draw_route(rng, times.size, replicas) or (None, None)
    return _Start(times, drawn, initial, first, second, 0, kind)


def _serve(
    fleet: SimFleet, start: _Start, controls: RunControls
) -> tuple[Array, Array, Array, NDArray[np.bool_], Array, NDArray[np.int64] | None]:
    """Serve the requests with the engine that fits (:data:`rackcost.model.sim.sim_engines.ENGINES`): the FIFO
    recursion for load-independent service with a central queue or a state-blind router and neither a queue cap nor
    a KV limit, else the event engine. Returns start, finish, TTFT, dropped, the warm start's finish times and each
    request's start occupancy (where recorded)."""
    model, router, engine = fleet.model, router_of(fleet.routing), controls.engine
    fits = model.load_independent and (router.central_queue or router.state_blind) and fleet.queue_cap is None
    fits = fits and fleet.kv is None
    if engine == "recursion" and not fits:
        raise ValueError("the FIFO recursion needs load-independent service, no queue cap, and a state-blind router")
    if engine not in ENGINES:
        raise ValueError(f"engine must be 'auto', 'recursion' or 'event', got {engine!r}")
    arrivals, first, initial = start.arrival_s, start.first, start.initial_work
    if engine == "recursion" or (engine == "auto" and fits):
        begin, finish = fifo_recursion(arrivals, start.work, fleet.replicas, model, fleet.routing, first, initial)
        dropped = np.zeros(arrivals.size, dtype=bool)
        return begin, finish, begin - arrivals + model.ttft_s[1], dropped, (initial * model.service_s[1]).ravel(), None
    if fleet.kv is not None and start.backlog:  # the requests of the steady start hold the mean request's cache
        held_kv = np.full(start.backlog, fleet.kv.initial_bytes_per_request)
        fleet = replace(
            fleet, kv=replace(fleet.kv, bytes_per_request=np.concatenate([held_kv, fleet.kv.bytes_per_request]))
        )
    choices = None if first is None else (first, first if start.second is None else start.second)
    recorded = [0] * arrivals.size if controls.record_occupancy else None
    out = event_engine(fleet, arrivals, start.work, choices, initial, recorded)
    return (*out, None if recorded is None else np.array(recorded, dtype=np.int64))


def run_fleet_once(
    rng: np.random.Generator,
    fleet: SimFleet,
    arrivals: Arrivals,
    work: RequestWork = GAMMA_WORK,
    controls: RunControls = DEFAULT_CONTROLS,
) -> Run:
    """Simulate one sample path: the fleet's start, its arrivals and each request's work, served by an engine.

    Parameters
    ----------
    rng
        Random generator (arrivals, work, the start, random routers), drawn from in that order.
    fleet
        The fleet (:class:`rackcost.model.sim.sim_engines.SimFleet`: replicas, model, router, queue cap, KV limit).
    arrivals
        Generated (:class:`rackcost.model.sim.sim_arrivals.RenewalArrivals`) or a trace's
        (:class:`rackcost.model.sim.sim_arrivals.TraceArrivals`).
    work
        Each request's work and output tokens (:class:`rackcost.model.sim.sim_engines.RequestWork`).
    controls
        The start, the engine and what is recorded (:class:`rackcost.model.sim.sim_engines.RunControls`): without a
        given busy share, ``random`` and ``round_robin`` routing without a queue cap start in their router's
        steady state (:func:`_steady_start`; for a trace an approximate one, so :func:`warmup_requests` leaves out
        relaxation times), every other run at the expected occupancy (:func:`_occupancy_start`).
    """
    check_fleet(fleet.replicas, fleet.routing)
    times = arrivals.times_s(rng)
    drawn, tokens = work.draw(rng, times.size)
    start = None
    if controls.initial_busy_fraction is None and fleet.queue_cap is None:
        start = _steady_start(rng, fleet, arrivals, work, times, drawn)
    if start is None:
        start = _occupancy_start(rng, fleet, work, times, drawn, controls.initial_busy_fraction)
    begin, finish, ttft, dropped, initial_finish, occupancy = _serve(fleet, start, controls)
    ttft = work.with_ttft_ratio(start.arrival_s, begin, ttft, start.backlog)
    b = start.backlog
    first, cut = start.first, slice(b, None)
    blind = first is not None and start.second is None and router_of(fleet.routing).state_blind
    return Run(
        start.arrival_s[cut],
        begin[cut],
        finish[cut],
        ttft[cut],
        tokens,
        dropped[cut],
        finish[:b] if b else initial_finish,
        fleet.replicas * fleet.model.slots,
        initial_start_s=begin[:b] if b else None,
        start=start.kind,
        replica=first[cut] if blind and first is not None else None,
        start_occupancy=None if occupancy is None else occupancy[cut],
    )


def run_statistics(
    run: Run, budget_s: float, warmup_fraction: float = WARMUP_FRACTION, lo: int | None = None, hi: int | None = None
) -> dict[str, float]:
    """The estimates of :data:`ESTIMATES` from one sample path, over its measured requests.

    Parameters
    ----------
    run
        A simulated path.
    budget_s
        Queueing budget: a request is accepted when it is not dropped and waits at most this long [s].
    warmup_fraction
        Share of the first requests left out [-] (ignored when ``lo`` is given).
    lo, hi
        Measure requests ``lo`` to ``hi - 1`` instead (a batch of batch means).

    Returns
    -------
    dict
        ``accepted_fraction`` and ``dropped_fraction`` of arrivals [-], ``wait_mean_s`` and the TTFT quantiles
        of admitted requests [s], slot ``utilization_fraction`` averaged over the measured span of arrivals [-],
        ``accepted_rps`` [requests/s] and ``accepted_output_tokens_per_s`` [tokens/s].
    """
    n = run.arrival_s.size
    lo = int(math.ceil(warmup_fraction * n)) if lo is None else lo
    hi = n if hi is None else hi
    if hi - lo < 2:
        raise ValueError("too few requests to measure: at least 2 after the warm-up")
    sl = slice(lo, hi)
    t0, t1 = run.arrival_s[lo], run.arrival_s[hi - 1]
    span = t1 - t0
    dropped = run.dropped[sl]
    wait = run.wait_s[sl]
    admitted = ~dropped
    accepted = admitted & (wait <= budget_s)
    ttft = run.ttft_s[sl][admitted]
    admitted_all = ~run.dropped
    initial_start = t0 if run.initial_start_s is None else np.clip(run.initial_start_s, t0, t1)
    busy = np.sum(np.clip(run.finish_s[admitted_all], t0, t1) - np.clip(run.start_s[admitted_all], t0, t1)) + np.sum(
        np.clip(run.initial_finish_s, t0, t1) - initial_start
    )
    return {
        "accepted_fraction": float(accepted.mean()),
        "dropped_fraction": float(dropped.mean()),
        "wait_mean_s": float(wait[admitted].mean()) if admitted.any() else 0.0,
        "ttft_p50_s": float(np.quantile(ttft, 0.5)) if ttft.size else 0.0,
        "ttft_p99_s": float(np.quantile(ttft, 0.99)) if ttft.size else 0.0,
        # at most 1: over a span of a few ulps, rounding of the start and finish times can give 1 + 2e-16
        "utilization_fraction": min(float(busy / (run.total_slots * span)), 1.0) if span > 0 else 0.0,
        "accepted_rps": float(accepted.sum() / span) if span > 0 else 0.0,
        "accepted_output_tokens_per_s": float(run.output_tokens[sl][accepted].sum() / span) if span > 0 else 0.0,
    }


def queue_relaxation_s(
    model: ReplicaModel,
    replicas: int,
    routing: str,
    arrival_rps: float,
    arrival_scv: float = 1.0,
    cv_fraction: float = DEFAULT_OUTPUT_TOKENS_CV_FRACTION,
) -> float:
    """Relaxation time of the fleet's queue (:func:`rackcost.model.sim.sim_steady.relaxation_time_s`) [s].

    ``random`` and ``round_robin`` queue per replica: one replica's ``c`` slots at ``lambda / N``, with the
    variability of the stream it sees (random: the thinned renewal, SCV ``1 + (SCV - 1) / N``; round robin: sums of
    N gaps, ``SCV / N``). The other routers balance load across replicas and relax about as the pooled fleet of
    every slot at ``lambda``. Service at the full replica's holding time ``S(c)``; infinite when that is overloaded.

    Examples
    --------
    >>> round(queue_relaxation_s(fixed_model(1, 1.0, 0.0), 4, "random", 3.24), 6)  # M/M/1 at 0.81 a replica
    100.0
    """
    service = float(model.service_s[model.slots])
    scv = router_of(routing).replica_stream_scv(arrival_scv, replicas)
    if scv is not None:
        return relaxation_time_s(model.slots, service, arrival_rps / replicas, scv, cv_fraction**2)
    return relaxation_time_s(replicas * model.slots, service, arrival_rps, arrival_scv, cv_fraction**2)


def warmup_requests(requests: int, start: str, relaxation_s: float, arrival_rps: float, routing: str) -> int:
    """Requests left out at the start of a replication of ``requests`` [-].

    :data:`WARMUP_FRACTION` of them; when a ``random`` or ``round_robin`` run did not start in its exact steady
    state (``start`` other than ``"steady"``, ``"given"``), at least :data:`WARMUP_RELAXATION_TIMES` relaxation
    times' worth of arrivals, up to :data:`MAX_WARMUP_FRACTION` of the replication.

    Examples
    --------
    >>> warmup_requests(10_000, "steady", 1e6, 1.0, "random")
    1000
    >>> warmup_requests(10_000, "occupancy", 100.0, 10.0, "random")  # 3 relaxation times of 100 s at 10 rps
    3000
    """
    base = int(math.ceil(WARMUP_FRACTION * requests))
    if start in ("steady", "given") or not router_of(routing).state_blind:
        return base
    need = WARMUP_RELAXATION_TIMES * relaxation_s * arrival_rps
    cap = int(MAX_WARMUP_FRACTION * requests)
    return max(base, min(int(math.ceil(need)) if math.isfinite(need) else cap, cap))


def _drift_warning(pairs: list[tuple[float, float]]) -> str | None:
    """A warning when the accepted share differs between the first and second half of the measured requests
    (paired over replications, or batches, Student t at :data:`DRIFT_CONFIDENCE_FRACTION`): the queue was still
    moving, so the interval is not a steady state's."""
    if len(pairs) < 2:
        return None
    first = np.array([a for a, _ in pairs])
    second = np.array([b for _, b in pairs])
    d = second - first
    k = d.size
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    t = float(stdtrit(k - 1, 0.5 + DRIFT_CONFIDENCE_FRACTION / 2))
    if abs(mean) <= DRIFT_MIN_FRACTION or abs(mean) <= t * sd / math.sqrt(k):
        return None
    return (
        f"not at steady state: the accepted share moves from {float(first.mean()):.4f} in the first half of the "
        f"measured requests to {float(second.mean()):.4f} in the second: the interval cannot be trusted "
        "(raise the requests, or the queue has no steady state)"
    )


def _accepted_halves(run: Run, budget_s: float, lo: int, hi: int) -> tuple[float, float]:
    mid = (lo + hi) // 2
    ok = ~run.dropped & (run.wait_s <= budget_s)
    return float(ok[lo:mid].mean()), float(ok[mid:hi].mean())


def replicate(
    replications: int,
    seed: int,
    fleet: SimFleet,
    arrivals: Arrivals,
    budget_s: float,
    work: RequestWork = GAMMA_WORK,
    controls: RunControls = DEFAULT_CONTROLS,
    exceedance_s: tuple[float, ...] = (),
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Independent replications of :func:`run_fleet_once` (or batch means over one trace), summarised.

    Parameters
    ----------
    replications
        Independent replications, each of ``arrivals.requests / replications`` requests with its own warm-up, seeded
        from ``seed`` by :class:`numpy.random.SeedSequence`; with a trace (:class:`TraceArrivals`), the number of
        batches of the batch-means method over the trace after its warm-up.
    seed
        Seed; the same seed gives the same result.
    fleet, arrivals, work, controls
        As :func:`run_fleet_once`; generated arrivals' ``requests`` are over all replications [-].
    budget_s
        Queueing budget: a request is accepted when it is not dropped and waits at most this long [s].
    exceedance_s
        Waits ``t`` at which to also estimate ``P(W > t)`` (keys ``wait_exceedance_<i>``) [s].
    progress
        Called with the number of replications done.

    Raises
    ------
    rackcost.model.sim.sim_work.SimulationTooLarge
        Before any request is drawn, when the requests and the warm starts are beyond
        :func:`rackcost.model.sim.sim_work.check_simulation_work`'s bounds.
    """
    if replications < 2:
        raise ValueError(f"replications must be at least 2 for a confidence interval, got {replications}")

    def extra(run: Run, lo: int, hi: int) -> dict[str, float]:
        wait = run.wait_s[lo:hi][~run.dropped[lo:hi]]
        return {f"wait_exceedance_{j}": float(np.mean(wait > t)) for j, t in enumerate(exceedance_s)}

    children = np.random.SeedSequence(seed).spawn(replications)
    replicas, model, routing = fleet.replicas, fleet.model, fleet.routing
    scv = check_arrival_scv(arrivals.scv)
    cv = float(work.cv_fraction)
    check_fleet_work(fleet, arrivals, replications, controls.initial_busy_fraction)
    if isinstance(arrivals, TraceArrivals):
        run = run_fleet_once(np.random.default_rng(children[0]), fleet, arrivals, work, controls)
        n = run.arrival_s.size
        span = float(run.arrival_s[-1] - run.arrival_s[0])
        rate = (n - 1) / span if span > 0 else 0.0
        relax = queue_relaxation_s(model, replicas, routing, rate, 1.0, cv)
        lo = warmup_requests(n, run.start, relax, rate, routing)
        edges = np.linspace(lo, n, replications + 1).astype(int)
        values = [
            run_statistics(run, budget_s, lo=a, hi=b) | extra(run, a, b) for a, b in zip(edges, edges[1:], strict=False)
        ]
        if progress:
            progress(replications)
        half = replications // 2
        acc = [v["accepted_fraction"] for v in values]
        pairs = list(zip(acc[:half], acc[half : 2 * half], strict=True))
        measured_s = float(run.arrival_s[-1] - run.arrival_s[lo])
        notes = _warnings(pairs, run.start, measured_s, relax, model, replicas, routing, rate, replications, n)
        units, with_miss, crowding = miss_units(run, budget_s, lo, n, relax)
        out = replace(summarise(values, "batch means"), warnings=notes, start=run.start, warmup_requests=lo)
        return with_rare_bound(replace(out, relaxation_s=relax), units, with_miss, crowding)
    per_rep = max(arrivals.requests // replications, 2)
    arrival_rps = arrivals.rate_rps
    each = replace(arrivals, requests=per_rep)
    relax = queue_relaxation_s(model, replicas, routing, arrival_rps, scv, cv)
    values = []
    pairs = []
    start = "occupancy"
    lo = int(math.ceil(WARMUP_FRACTION * per_rep))
    measured_s = 0.0
    # the replicas are independent units of their own only under random routing of Poisson arrivals
    by_replica = replicas if router_of(routing).replicas_independent and scv == 1.0 else 1
    units, with_miss, crowding = 0, 0, 1.0
    for done, child in enumerate(children, start=1):
        run = run_fleet_once(np.random.default_rng(child), fleet, each, work, controls)
        start = run.start
        lo = warmup_requests(per_rep, run.start, relax, arrival_rps, routing)
        if arrivals.swing is not None:  # a swing: the first period too (the start is its mean's)
            period_end = run.arrival_s[0] + arrivals.swing.period_s
            lo = max(lo, min(int(np.searchsorted(run.arrival_s, period_end)), int(MAX_WARMUP_FRACTION * per_rep)))
        values.append(run_statistics(run, budget_s, lo=lo) | extra(run, lo, per_rep))
        pairs.append(_accepted_halves(run, budget_s, lo, per_rep))
        measured_s += float(run.arrival_s[-1] - run.arrival_s[lo]) / replications
        u, m, crowd = miss_units(run, budget_s, lo, per_rep, relax, by_replica)
        units, with_miss, crowding = units + u, with_miss + m, max(crowding, crowd)
        if progress:
            progress(done)
    notes = _warnings(pairs, start, measured_s, relax, model, replicas, routing, arrival_rps, replications, per_rep)
    out = replace(summarise(values, "independent replications"), warnings=notes, start=start, warmup_requests=lo)
    return with_rare_bound(replace(out, relaxation_s=relax), units, with_miss, crowding)


def _warnings(
    pairs: list[tuple[float, float]],
    start: str,
    measured_s: float,
    relaxation_s: float,
    model: ReplicaModel,
    replicas: int,
    routing: str,
    arrival_rps: float,
    replications: int,
    per_rep: int,
) -> tuple[str, ...]:
    """What may make the intervals untrustworthy: no steady state, a run shorter than the queue's relaxation from
    an approximate start, a drift between the halves of the runs (each without "; ", which joins them in a row)."""
    out = []
    if not math.isfinite(relaxation_s):
        full_rps = replicas * model.slots / float(model.service_s[model.slots])
        out.append(
            f"arrivals at {arrival_rps:.4g} rps reach what the fleet completes with every slot busy "
            f"({full_rps:.4g} rps{' over the replicas this router feeds' if router_of(routing).state_blind else ''}):"
            " the queue has no steady state and the figures depend on the run length"
        )
    elif start != "steady" and measured_s < relaxation_s:
        need = int(math.ceil(replications * 2 * WARMUP_RELAXATION_TIMES * relaxation_s * arrival_rps))
        out.append(
            f"each replication measures {measured_s:.3g} s from a start that is not the steady state ({start}), "
            f"shorter than the queue's relaxation time (about {relaxation_s:,.0f} s): the interval may not cover "
            f"(about {need:,} requests would)"
        )
    drift = _drift_warning(pairs)
    if drift:
        out.append(drift)
    return tuple(out)
