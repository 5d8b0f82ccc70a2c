"""The steady state a router implies, for the simulator's start and as exact references.

Under ``random`` and ``round_robin`` routing each replica is its own FIFO queue, fed by a thinned stream, and a
replica of ``c`` slots near saturation takes thousands of seconds to reach its steady state (the relaxation time,
:func:`relaxation_time_s`), far longer than a replication. So those runs start *in* the steady state instead:

- ``random`` with Poisson arrivals: each replica is an independent birth-death chain (Poisson(lambda / N) births,
  ``min(n, c) / S(min(n, c))`` deaths; Kleinrock, *Queueing Systems Vol. 1*, 1975, Sec. 3.1, eq. 3.11), exact for
  exponential work (every request in service advances at ``1 / S(n)``, so each completes at rate ``1 / S(n)``).
  :func:`birth_death_law`.
- ``round_robin`` with Poisson arrivals: replica ``r`` gets every N-th arrival, so its inter-arrival times are
  Erlang-N; the replica is a continuous-time Markov chain on (requests, arrival phase), the E_N/M/c queue with the
  same births and deaths, solved numerically (:func:`erlang_phase_law`). The replica next in turn is drawn
  uniformly; the replica ``j`` places after it has ``N - 1 - j`` of its N phases done, and its requests are drawn
  from the chain's law given that phase. Replicas are drawn independently given their phase (in truth they are
  correlated through the common stream), which leaves every replica's law, and so every expectation, exact.

The accepted share of a law (:func:`accepted_fraction`): an arrival that finds ``n >= c`` requests waits for
``n - c + 1`` completions at the full replica's rate ``c / S(c)``, an Erlang wait; one that finds fewer starts at
once. With Poisson arrivals the law an arrival finds is the time-stationary one (PASTA); with Erlang arrivals it is
the law at the end of the last phase.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.optimize import brentq
from scipy.sparse.linalg import spsolve
from scipy.special import gammainc

from rackcost.model.queues.routers import router_of
from rackcost.model.sim.sim_engines import ReplicaModel

__all__ = [
    "MAX_PHASE_STATES",
    "accepted_fraction",
    "birth_death_law",
    "erlang_phase_law",
    "relaxation_time_s",
    "replica_utilization",
    "steady_start",
]

Array = NDArray[np.float64]

TAIL_MASS_FRACTION = 1e-12
"""Probability left beyond the truncated state space [-]."""
MAX_LEVELS = 5_000_000
"""Most requests per replica the laws hold; a replica whose tail needs more is treated as without steady state."""
MAX_PHASE_STATES = 2_000_000
"""Most (requests, phase) states :func:`erlang_phase_law` solves; beyond it the phases are merged (fewer, longer
phases of the same mean: a burstier, approximate start)."""


def _death_rps(model: ReplicaModel, top: int) -> Array:
    """Completion rate with ``n`` requests on the replica, ``n = 0 .. top`` [1/s]."""
    n = np.arange(top + 1)
    busy = np.minimum(n, model.slots)
    rate = np.zeros(top + 1)
    rate[1:] = busy[1:] / model.service_s[busy[1:]]
    return rate


def _full_ratio(model: ReplicaModel, arrival_rps: float) -> float:
    """Arrival rate over the full replica's completion rate, lambda S(c) / c [-]."""
    return arrival_rps * float(model.service_s[model.slots]) / model.slots


def _tail_levels(ratio: float) -> int | None:
    """Levels past ``c`` that hold all but :data:`TAIL_MASS_FRACTION` of a geometric tail of this ratio."""
    if not ratio < 1.0:
        return None
    if ratio <= 0.0:
        return 1
    levels = math.ceil(math.log(TAIL_MASS_FRACTION * (1.0 - ratio)) / math.log(ratio)) + 1
    return levels if levels <= MAX_LEVELS else None


def birth_death_law(model: ReplicaModel, arrival_rps: float) -> Array | None:
    """Stationary law of one replica's requests (in service plus queued) under Poisson arrivals at
    ``arrival_rps``, exponential work; None without a steady state (``lambda S(c) >= c``).

    Returns
    -------
    ndarray or None
        ``pi[n]``, ``n = 0 .. K`` (K where the tail left is below :data:`TAIL_MASS_FRACTION`) [-].

    Examples
    --------
    M/M/1 at rho = 0.5 is geometric: pi(n) = 0.5^(n + 1).

    >>> from rackcost.model.sim.sim_engines import fixed_model
    >>> birth_death_law(fixed_model(1, 1.0, 0.0), 0.5)[:3].round(6).tolist()
    [0.5, 0.25, 0.125]
    """
    if arrival_rps <= 0:
        law = np.zeros(model.slots + 1)
        law[0] = 1.0
        return law
    tail = _tail_levels(_full_ratio(model, arrival_rps))
    if tail is None:
        return None
    top = model.slots + tail
    death = _death_rps(model, top)
    log_pi = np.concatenate([[0.0], np.cumsum(np.log(arrival_rps / death[1:]))])
    pi = np.exp(log_pi - log_pi.max())
    return pi / pi.sum()


def _erlang_tail_ratio(model: ReplicaModel, arrival_rps: float, phases: int) -> float:
    """The GI/M/c root sigma = A*(c mu (1 - sigma)) for Erlang-``phases`` gaps of mean 1 / arrival_rps: the ratio
    of the geometric tail of the requests an arrival finds (Kleinrock 1975, Sec. 6.4) [-]."""
    full = model.slots / float(model.service_s[model.slots])
    rate = phases * arrival_rps

    def gap(sigma: float) -> float:
        return (rate / (rate + full * (1.0 - sigma))) ** phases - sigma

    hi = 1.0 - 1e-12
    if gap(hi) >= 0:  # no root below 1 to this precision: as good as unstable
        return 1.0
    return float(brentq(gap, 0.0, hi, xtol=1e-14))


def erlang_phase_law(model: ReplicaModel, arrival_rps: float, phases: int) -> Array | None:
    """Time-stationary law of one replica under Erlang-``phases`` inter-arrival times of mean 1 / ``arrival_rps``
    (round robin over ``phases`` replicas of a Poisson stream), exponential work; None without a steady state.

    The chain's states are (requests ``n``, arrival phases done ``p``): a phase ends at rate ``phases x
    arrival_rps``, the last one bringing a request; requests complete as in :func:`birth_death_law`. Solved as a
    sparse linear system truncated where the arrival-epoch tail (geometric, :func:`_erlang_tail_ratio`) leaves
    less than :data:`TAIL_MASS_FRACTION`.

    Returns
    -------
    ndarray or None
        ``pi[n, p]``, ``n = 0 .. K``, ``p = 0 .. phases - 1`` [-].

    Examples
    --------
    One phase is the Poisson birth-death chain:

    >>> from rackcost.model.sim.sim_engines import fixed_model
    >>> erlang_phase_law(fixed_model(1, 1.0, 0.0), 0.5, 1)[:3, 0].round(6).tolist()
    [0.5, 0.25, 0.125]
    """
    if phases < 1:
        raise ValueError(f"phases must be at least 1, got {phases}")
    if arrival_rps <= 0:
        return birth_death_law(model, arrival_rps)[:, None].repeat(phases, axis=1) / phases  # type: ignore[index]
    sigma = _erlang_tail_ratio(model, arrival_rps, phases)
    tail = _tail_levels(sigma)
    if tail is None:
        return None
    levels = model.slots + tail + 1
    n_states = levels * phases
    death = _death_rps(model, levels - 1)
    rate = phases * arrival_rps
    idx = np.arange(n_states).reshape(levels, phases)
    rows, cols, vals = [], [], []
    # phase advance within a level; the last phase brings a request (at the top level it is lost, the phase resets)
    if phases > 1:
        rows.append(idx[:, :-1].ravel())
        cols.append(idx[:, 1:].ravel())
        vals.append(np.full(levels * (phases - 1), rate))
    rows.append(idx[:, -1])
    cols.append(np.concatenate([idx[1:, 0], idx[-1:, 0]]))
    vals.append(np.full(levels, rate))
    rows.append(idx[1:, :].ravel())
    cols.append(idx[:-1, :].ravel())
    vals.append(np.repeat(death[1:], phases))
    r, c, v = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    keep = r != c
    r, c, v = r[keep], c[keep], v[keep]
    out = np.bincount(r, weights=v, minlength=n_states)
    # balance pi Q = 0 as Q^T pi = 0; one state pinned to 1 (the likeliest level, phase 0) and its equation dropped
    qt = sparse.coo_matrix(
        (
            np.concatenate([v, -out]),
            (np.concatenate([c, np.arange(n_states)]), np.concatenate([r, np.arange(n_states)])),
        ),
        shape=(n_states, n_states),
    ).tocsc()
    pin_level = min(int(round(min(arrival_rps * float(model.service_s[model.slots]), model.slots))), levels - 1)
    pin = int(idx[pin_level, 0])
    others = np.concatenate([np.arange(pin), np.arange(pin + 1, n_states)])
    a = qt[others][:, others]
    b = -np.asarray(qt[others][:, [pin]].todense()).ravel()
    x = spsolve(a.tocsc(), b)
    pi = np.empty(n_states)
    pi[pin] = 1.0
    pi[others] = x
    pi = np.clip(pi, 0.0, None)
    return (pi / pi.sum()).reshape(levels, phases)


def accepted_fraction(model: ReplicaModel, found: Array, budget_s: float) -> float:
    """Share of arrivals that wait at most ``budget_s``, given the law ``found[n]`` of the requests an arrival finds
    on its replica (exponential work: the wait past a full replica is Erlang at rate ``c / S(c)``) [-].

    Examples
    --------
    M/M/1 at rho = 0.5 with S = 1 s: P(W <= t) = 1 - 0.5 exp(-0.5 t).

    >>> from rackcost.model.sim.sim_engines import fixed_model
    >>> m = fixed_model(1, 1.0, 0.0)
    >>> round(accepted_fraction(m, birth_death_law(m, 0.5), 2.0), 9) == round(1 - 0.5 * math.exp(-1.0), 9)
    True
    """
    c = model.slots
    found = np.asarray(found, dtype=float) / float(np.sum(found))
    head = float(found[:c].sum())
    ahead = np.arange(found.size - c) + 1.0  # completions to wait for
    full = c / float(model.service_s[c])
    return head + float(np.sum(found[c:] * gammainc(ahead, full * budget_s)))


def replica_utilization(model: ReplicaModel, law: Array) -> float:
    """Mean share of a replica's slots busy under the time-stationary law ``law[n]`` [-]."""
    law = np.asarray(law, dtype=float)
    n = np.arange(law.size)
    return float(np.sum(law * np.minimum(n, model.slots)) / (model.slots * law.sum()))


def relaxation_time_s(
    slots: int, service_s: float, arrival_rps: float, arrival_scv: float = 1.0, service_scv: float = 1.0
) -> float:
    """Relaxation time of a ``slots``-server queue: how long the queue takes to forget its start [s].

    ``(ca^2 + cs^2) / 2 x S / (c (1 - sqrt(rho))^2)``: the M/M/1 relaxation time ``1 / (mu (1 - sqrt(rho))^2)``
    (P. M. Morse, "Stochastic properties of waiting lines", *Operations Research* 3(3), 1955, 255-261) with the
    rate of c servers, scaled by the arrivals' and service's variability as heavy-traffic theory scales it
    (W. Whitt, "Planning queueing simulations", *Management Science* 35(11), 1989, 1341-1366). Infinite when
    ``rho >= 1``.

    Examples
    --------
    >>> round(relaxation_time_s(1, 1.0, 0.81), 6)  # 1 / (1 - 0.9)^2
    100.0
    """
    rho = arrival_rps * service_s / slots
    if rho >= 1.0:
        return math.inf
    return 0.5 * (arrival_scv + service_scv) * service_s / (slots * (1.0 - math.sqrt(max(rho, 0.0))) ** 2)


_LAW_CACHE: dict[tuple, Array | None] = {}
_LAW_CACHE_SIZE = 8


def _cached(kind: str, model: ReplicaModel, arrival_rps: float, phases: int) -> Array | None:
    """The law of :func:`birth_death_law` (``kind`` "bd") or :func:`erlang_phase_law` ("phase"), kept for the
    replications of one run (each replication would otherwise solve the same chain again)."""
    key = (kind, model.slots, model.service_s.tobytes(), float(arrival_rps), phases)
    if key not in _LAW_CACHE:
        if len(_LAW_CACHE) >= _LAW_CACHE_SIZE:
            _LAW_CACHE.pop(next(iter(_LAW_CACHE)))
        law = birth_death_law(model, arrival_rps) if kind == "bd" else erlang_phase_law(model, arrival_rps, phases)
        _LAW_CACHE[key] = law
    return _LAW_CACHE[key]


def _draw(rng: np.random.Generator, cdf: Array, size: int) -> NDArray[np.int64]:
    return np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"), cdf.size - 1)


def steady_start(
    rng: np.random.Generator, model: ReplicaModel, replicas: int, routing: str, arrival_rps: float
) -> tuple[NDArray[np.int64], int, bool] | None:
    """Requests on each replica at time 0 drawn from the steady state its router implies (module docstring).

    Parameters
    ----------
    rng
        Random generator.
    model, replicas
        The replica and how many serve.
    routing
        A router with a steady law (:attr:`rackcost.model.queues.routers.Router.steady_law`): ``random`` (each replica's
        birth-death law) or ``round_robin`` (the E_N/M/c law given its phase).
    arrival_rps
        Poisson rate into the fleet [requests/s].

    Returns
    -------
    (requests, offset, merged) or None
        Requests (in service plus queued) per replica; for round robin the replica next in turn (else 0); and
        whether the phases were merged (:data:`MAX_PHASE_STATES`; the start is then approximate). None without a
        steady state (the replica overloaded).
    """
    each = arrival_rps / replicas
    law_kind = router_of(routing).steady_law
    if law_kind == "birth_death":
        law = _cached("bd", model, each, 1)
        if law is None:
            return None
        return _draw(rng, np.cumsum(law), replicas), 0, False
    if law_kind != "erlang_phase":
        raise ValueError(f"a steady start is drawn for state-blind routers (random, round_robin), not {routing!r}")
    phases, merged = replicas, False
    sigma = _erlang_tail_ratio(model, each, phases)
    tail = _tail_levels(sigma)
    if tail is None:
        return None
    if (model.slots + tail + 1) * phases > MAX_PHASE_STATES:
        phases, merged = max(1, MAX_PHASE_STATES // (model.slots + tail + 1)), True
    law = _cached("phase", model, each, phases)
    if law is None:
        return None
    offset = int(rng.integers(replicas))
    # the replica j places after the next in turn has N - 1 - j of its N phases done
    behind = (np.arange(replicas) - offset) % replicas
    done = (replicas - 1 - behind) * phases // replicas
    counts = np.zeros(replicas, dtype=np.int64)
    # the replicas grouped by phase once (a stable sort keeps each group's order, so the draws are those of a loop
    # over the phases with np.flatnonzero(done == p), which was O(replicas x phases): 375,001 replicas with about
    # 100,000 phases ran for minutes)
    order = np.argsort(done, kind="stable")
    phase_of, first = np.unique(done[order], return_index=True)
    cdf = np.cumsum(law, axis=0)
    for p, who in zip(phase_of, np.split(order, first[1:]), strict=True):
        counts[who] = _draw(rng, cdf[:, p], who.size)
    return counts, offset, merged
