"""How much a simulation is before it runs, and the bounds beyond which it is refused with that estimate.

A replication simulates the requests asked for and, before them, its warm start: the requests each replica holds at
time 0 (:func:`rackcost.model.sim.simulation.run_fleet_once`). That start grows with the fleet, not with ``requests``:
a disaggregated system at 20,000 requests/s under random routing holds hundreds of thousands of requests on its
decode replicas, so ``--requests 3000`` simulated millions (1 min 42 s). :func:`simulation_work` estimates both
parts from the fleet (replicas, slots, arrival rate, router) before any request is drawn, and
:func:`check_simulation_work` refuses:

- more than :data:`MAX_SIMULATED_REQUESTS` simulated requests in all (the most ``--requests`` asks for);
- a fleet that outweighs the requests asked, once the whole is above :data:`START_WORK_FLOOR` (a second or so of
  work): its warm starts and its replicas (each with its own state and queue, about a request's work) would take
  most of the work, on requests never measured; the message says how many requests to ask for;
- more memory for one replication than the machine has (:data:`BYTES_PER_SIMULATED_REQUEST` a request,
  :data:`BYTES_PER_REPLICA` a replica).

The start estimate is the mean of what the run draws: under ``random`` routing the birth-death law of one replica
(:func:`rackcost.model.sim.sim_steady.birth_death_law`, in service and queued) times the replicas; under ``round_robin``
the same law, an overestimate (Erlang gaps queue less than Poisson ones) that spares solving the phase law twice;
under every other router (and without a steady state) the busy slots of the occupancy start
(:func:`rackcost.model.sim.sim_engines.steady_occupancy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rackcost import limits
from rackcost.model.queues.routers import router_of
from rackcost.model.sim.sim_arrivals import RenewalArrivals, TraceArrivals
from rackcost.model.sim.sim_engines import (  # SimulationTooLarge: defined with the replica's bound, named here
    ReplicaModel,
    SimFleet,
    SimulationTooLarge,
    initial_in_service,
    steady_occupancy,
)
from rackcost.model.sim.sim_steady import birth_death_law

__all__ = [
    "BYTES_PER_REPLICA",
    "BYTES_PER_SIMULATED_REQUEST",
    "BYTES_PER_SLOT",
    "MAX_SIMULATED_REQUESTS",
    "MEMORY_SHARE",
    "START_WORK_FLOOR",
    "SimulationTooLarge",
    "Stage",
    "Work",
    "check_fleet_work",
    "check_simulation_work",
    "simulation_work",
    "start_requests",
]

MAX_SIMULATED_REQUESTS = 100_000_000
"""Most requests one system and demand point may simulate over all its replications, warm starts included [-]: the
most ``rackcost simulate --requests`` asks for (about 45 s in the FIFO recursion, several minutes in the event
engine, ``benchmarks/bench_simulate.py``)."""
START_WORK_FLOOR = 200_000
"""Simulated requests in all below which a warm start larger than the requests asked is let run [-]: about a second
in the event engine (250,000 to 300,000 requests/s, ``benchmarks/bench_simulate.py``), a few on a busy machine."""
BYTES_PER_SIMULATED_REQUEST = 300
"""Peak memory of the simulator per simulated request [bytes]: measured 133 (``/usr/bin/time -v rackcost simulate
--requests 1e6`` against ``4e6``, one system and point), doubled for the event engine's lists and for margin."""
MEMORY_SHARE = 0.8
"""Share of the machine's available memory a simulation may plan to use [-]."""
BYTES_PER_SLOT = 16
"""Memory of the simulator per request slot of the fleet [bytes]: the central queue's list of slot free times, 8 bytes
a slot (a shared 0.0 until the slot is used), doubled."""
BYTES_PER_REPLICA = 2000
"""Peak memory of the simulator per simulated replica [bytes]: measured 963 (tracemalloc, 20 requests on 375,001
replicas under least_outstanding routing: the event engine's lists and queue of each replica), doubled."""


@dataclass(frozen=True)
class Stage:
    """One fleet a replication runs: its serving replicas, their model and the rate into it.

    Attributes
    ----------
    replicas
        Serving replicas [-].
    model
        Their :class:`rackcost.model.sim.sim_engines.ReplicaModel` (slots and service by occupancy).
    arrival_rps
        Mean arrival rate into the fleet [requests/s].
    role
        ``"prefill"`` or ``"decode"`` for a pool of a disaggregated system, else empty.
    """

    replicas: int
    model: ReplicaModel
    arrival_rps: float
    role: str = ""

    def describe(self) -> str:
        """``4,482 decode replicas x 128 slots``."""
        noun = "replica" if self.replicas == 1 else "replicas"
        role = f"{self.role} " if self.role else ""
        return f"{self.replicas:,} {role}{noun} x {self.model.slots} slots"


def start_requests(
    stage: Stage, routing: str, queue_cap: int | None = None, initial_busy_fraction: float | None = None
) -> float:
    """Requests on the fleet at time 0 of a replication, the mean of what its warm start draws (module docstring)
    [requests].

    Examples
    --------
    Four replicas of one slot of 1 s at 0.75 requests/s each: M/M/1 at 0.75 holds rho / (1 - rho) = 3 requests
    under random routing (L. Kleinrock, *Queueing Systems* 1, 1975, Sec. 3.2); the occupancy start of the balancing
    routers has its one slot busy (0.75 rounded):

    >>> from rackcost.model.sim.sim_engines import fixed_model
    >>> round(start_requests(Stage(4, fixed_model(1, 1.0, 0.0), 3.0), "random"), 6)
    12.0
    >>> start_requests(Stage(4, fixed_model(1, 1.0, 0.0), 3.0), "least_outstanding")
    4.0
    """
    model, replicas = stage.model, stage.replicas
    each = stage.arrival_rps / replicas
    if initial_busy_fraction is None and queue_cap is None and router_of(routing).steady_law is not None:
        law = birth_death_law(model, each)
        if law is not None:
            return replicas * float(np.arange(law.size) @ law)
    busy = steady_occupancy(model, each) / model.slots if initial_busy_fraction is None else initial_busy_fraction
    return float(replicas * initial_in_service(replicas, model.slots, busy))


@dataclass(frozen=True)
class Work:
    """The estimate of one simulation (one system at one demand point).

    Attributes
    ----------
    asked
        Requests simulated because they were asked for, over all replications [-].
    start
        Requests of the warm starts, over all replications [-].
    replications
        Replications (1 for a trace) [-].
    stages
        The fleets each replication runs.
    central_queue
        Whether the router holds one queue over every slot of the fleet (its free times, a slot each).
    """

    asked: int
    start: float
    replications: int
    stages: tuple[Stage, ...]
    central_queue: bool = False

    @property
    def replicas(self) -> int:
        """Replicas set up over all replications, each about a request's work (its state, its queue) [-]."""
        return self.replications * sum(s.replicas for s in self.stages)

    @property
    def fleet(self) -> float:
        """The work of the fleet rather than of the requests asked: its warm starts and its replicas [-]."""
        return self.start + self.replicas

    @property
    def total(self) -> float:
        """Requests simulated in all, a replica counted as one [-]."""
        return self.asked + self.fleet

    @property
    def per_replication_bytes(self) -> float:
        """Memory of one replication [bytes]: :data:`BYTES_PER_SIMULATED_REQUEST` a request, :data:`BYTES_PER_REPLICA`
        a replica, and under a central queue :data:`BYTES_PER_SLOT` a request slot of the fleet (its free times)."""
        requests = (self.asked + self.start) / self.replications
        slots = sum(s.replicas * s.model.slots for s in self.stages) if self.central_queue else 0
        per_replica = self.replicas / self.replications * BYTES_PER_REPLICA
        return requests * BYTES_PER_SIMULATED_REQUEST + per_replica + slots * BYTES_PER_SLOT

    def describe(self) -> str:
        """The estimate in words, for a refusal."""
        fleets = " and ".join(s.describe() for s in self.stages)
        each = "" if self.replications == 1 else f", in each of {self.replications} replications"
        return (
            f"about {self.total:,.0f} simulated requests: the {self.asked:,} asked, about {self.start:,.0f} on the "
            f"fleet at the start and its {self.replicas:,} replicas counted as one each ({fleets} at their steady "
            f"occupancy{each})"
        )


def simulation_work(
    stages: Sequence[Stage],
    routing: str,
    requests_per_replication: int,
    replications: int,
    queue_cap: int | None = None,
    initial_busy_fraction: float | None = None,
) -> Work:
    """Estimate a simulation (:class:`Work`) before it runs.

    Parameters
    ----------
    stages
        The fleets each replication runs (two for a disaggregated system: each request passes both).
    routing
        The router of every stage.
    requests_per_replication, replications
        Requests each replication draws (a trace's arrivals, in one run) [-].
    queue_cap, initial_busy_fraction
        As :func:`rackcost.model.sim.simulation.run_fleet_once`: either makes the start the occupancy one.
    """
    start = sum(start_requests(s, routing, queue_cap, initial_busy_fraction) for s in stages)
    central = router_of(routing).central_queue
    return Work(requests_per_replication * replications, start * replications, replications, tuple(stages), central)


def check_simulation_work(work: Work) -> None:
    """Refuse a simulation beyond the bounds of the module docstring, with its estimate.

    Raises
    ------
    SimulationTooLarge
        Saying the estimate, the bound it passes and what to ask for instead.

    Examples
    --------
    >>> from rackcost.model.sim.sim_engines import fixed_model
    >>> check_simulation_work(simulation_work([Stage(4, fixed_model(1, 1.0, 0.0), 2.0)], "random", 1000, 5))
    """
    if work.total > MAX_SIMULATED_REQUESTS:
        advice = (
            "ask for fewer requests or replications"
            if work.fleet * 2 <= MAX_SIMULATED_REQUESTS
            else "the fleet alone is about that much (its replicas' steady queues at this rate): simulate another "
            "router (--routing) or demand point"
        )
        raise SimulationTooLarge(
            f"{work.describe()}; more than the {MAX_SIMULATED_REQUESTS:,} a simulation may run: {advice}"
        )
    if work.fleet > work.asked and work.total > START_WORK_FLOOR:
        need = int(np.ceil(work.fleet / 1000.0)) * 1000
        more = (
            f"a trace of at least {need:,} arrivals"
            if work.replications == 1
            else f"at least {need:,} requests (--requests), or fewer replications"
        )
        raise SimulationTooLarge(
            f"{work.describe()}; most of the work would be the fleet, not the requests measured: ask for {more} "
            f"(above {START_WORK_FLOOR:,} simulated requests, the requests must outnumber the fleet's start and "
            "replicas)"
        )
    have = MEMORY_SHARE * limits.available_memory_bytes()
    if work.per_replication_bytes > have:
        raise SimulationTooLarge(
            f"{work.describe()}; one replication needs about {limits.gigabytes(work.per_replication_bytes)} of "
            f"memory ({BYTES_PER_SIMULATED_REQUEST} bytes a request, {BYTES_PER_REPLICA:,} a replica"
            f"{f', {BYTES_PER_SLOT} a slot of the central queue' if work.central_queue else ''}), this machine has "
            f"{limits.gigabytes(have / MEMORY_SHARE)} available"
        )


def check_fleet_work(
    fleet: SimFleet,
    arrivals: RenewalArrivals | TraceArrivals,
    replications: int,
    initial_busy_fraction: float | None = None,
) -> None:
    """:func:`check_simulation_work` for :func:`rackcost.model.sim.simulation.replicate`'s arguments: one fleet, the
    requests asked over the replications or a trace's arrivals in one run, the start as the fleet's queue cap and
    ``initial_busy_fraction`` make it.

    Raises
    ------
    SimulationTooLarge
        As :func:`check_simulation_work`.
    """
    if isinstance(arrivals, TraceArrivals):
        given = np.asarray(arrivals.arrival_s, dtype=float)
        span = float(given[-1] - given[0]) if given.size > 1 else 0.0
        rate, per_rep, runs = ((given.size - 1) / span if span > 0 else 0.0), given.size, 1
    else:
        rate, per_rep, runs = float(arrivals.rate_rps or 0.0), max(arrivals.requests // replications, 2), replications
    stage = Stage(fleet.replicas, fleet.model, rate)
    start = fleet.queue_cap, initial_busy_fraction
    check_simulation_work(simulation_work([stage], fleet.routing, per_rep, runs, *start))
