"""A discrete-event simulation of a pooled fleet whose serving replicas change over time: the referee of the
autoscaling model (:mod:`rackcost.model.fleets.autoscale`; docs/model.md, "Autoscaling with a delay").

Arrivals are Poisson at a rate constant within each step of the scaling grid (each step's count drawn, its times
uniform in the step: a piecewise-constant inhomogeneous Poisson process). At every step the fleet has the
scaling policy's available replicas, each of ``slots`` request slots, behind one FIFO queue (``pooled``: what the
model solves least-outstanding routing as). Service is load-independent, each request holding a slot for an
exponential time of mean ``service_s`` (the chosen operating point's). Admission control, one of two:

- ``admit_rps`` given (the model's assumption, as :mod:`rackcost.analysis.referee_windows` replays it): each step's
  arrivals are thinned to the admitted rate (the capacity at SLO of its serving replicas); every admitted request
  queues and is accepted if it starts within the queueing budget;
- without it (a stack that turns away what it cannot start in time): a request that would wait longer than the
  budget is turned away and takes no slot; one that starts within it is accepted.

When replicas come up, their slots join free at the step's start; when they stop, the slots that free soonest
leave (idle slots first: a scaler stops the replicas with nothing in flight, and the requests in flight on a
stopped slot finish). The loop is the many-server FIFO recursion of
:func:`rackcost.model.sim.sim_engines.fifo_recursion` over a heap of slot free times, about a microsecond a request.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["RampRun", "simulate_ramp"]


@dataclass(frozen=True)
class RampRun:
    """What a simulated ramp accepted, per step and in all.

    Attributes
    ----------
    arrivals, accepted
        Requests that arrived and that started within the budget, per step [requests].
    """

    arrivals: NDArray[np.int64]
    accepted: NDArray[np.int64]

    @property
    def accepted_fraction(self) -> float:
        """Share of every arrival that was accepted [-]."""
        total = int(self.arrivals.sum())
        return float(self.accepted.sum()) / total if total else 1.0


def simulate_ramp(
    step_rps: ArrayLike,
    available_replicas: ArrayLike,
    step_s: float,
    slots: int,
    service_s: float,
    budget_s: float,
    seed: int = 0,
    admit_rps: ArrayLike | None = None,
) -> RampRun:
    """Simulate a pooled fleet through the steps of a ramp, its serving replicas set per step.

    Parameters
    ----------
    step_rps
        Arrival rate of each step [requests/s].
    available_replicas
        Serving replicas in each step (:attr:`rackcost.model.fleets.autoscale.ScaledReplicas.available`) [-].
    step_s
        Length of a step [s].
    slots
        Request slots per replica [-].
    service_s
        Mean slot holding time (exponential) [s].
    budget_s
        Longest wait a request is admitted with [s].
    seed
        Seed of the random draws.
    admit_rps
        Admitted rate of each step (at most its arrival rate): arrivals thinned to it, each admitted one queued;
        None: admission by the budget (see the module docstring) [requests/s].

    Returns
    -------
    RampRun

    Examples
    --------
    A fleet that can never start a request within the budget accepts nothing:

    >>> simulate_ramp([10.0], [0], 60.0, 4, 1.0, 0.5).accepted_fraction
    0.0
    """
    rates = np.asarray(step_rps, dtype=float).reshape(-1)
    replicas = np.asarray(available_replicas, dtype=np.int64).reshape(-1)
    if rates.shape != replicas.shape:
        raise ValueError(f"one replica count per step: {replicas.shape} counts for {rates.shape} steps")
    rng = np.random.default_rng(seed)
    admit = np.ones(rates.size) if admit_rps is None else np.asarray(admit_rps, dtype=float).reshape(-1)
    if admit_rps is not None:
        admit = np.divide(admit, rates, out=np.zeros(rates.size), where=rates > 0).clip(0.0, 1.0)
    queue_all = admit_rps is not None
    counts = rng.poisson(rates * step_s)
    accepted = np.zeros(rates.size, dtype=np.int64)
    free: list[float] = [0.0] * int(replicas[0] * slots)  # the fleet starts settled and idle
    heapq.heapify(free)
    up = int(replicas[0])
    for t in range(rates.size):
        begin = t * step_s
        want = int(replicas[t])
        if want > up:
            for _ in range((want - up) * slots):
                heapq.heappush(free, begin)
        elif want < up:
            free = sorted(free)[(up - want) * slots :]  # the soonest free (idle) slots leave
            heapq.heapify(free)
        up = want
        arrivals = np.sort(rng.uniform(begin, begin + step_s, counts[t])).tolist()
        holds = rng.exponential(service_s, counts[t]).tolist()
        admitted = (rng.random(counts[t]) < admit[t]).tolist()
        taken = 0
        for a, hold, let_in in zip(arrivals, holds, admitted, strict=True):
            if not (free and let_in):
                continue
            f = free[0]
            start = a if a > f else f
            on_time = start - a <= budget_s
            if on_time or queue_all:
                heapq.heapreplace(free, start + hold)
                taken += on_time
        accepted[t] = taken
    return RampRun(counts.astype(np.int64), accepted)
