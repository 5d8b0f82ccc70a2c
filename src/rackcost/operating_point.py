"""SLO-feasible operating point of a replica (DESIGN.md step 3).

Feasible points have TPOT <= the TPOT limit, TTFT < the TTFT limit and, when an end-to-end limit is set,
an end-to-end latency below it. What is left of the TTFT (and end-to-end) limit is the budget a request may
wait in the fleet's queue. Among feasible points the chosen one needs the fewest replicas for the sizing demand;
ties go to the lower power.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost import queueing
from rackcost.inputs import SloInputs, SystemInputs
from rackcost.outcomes import ChosenPoint
from rackcost.performance import Curve, candidate_concurrencies, interpolate_curve
from rackcost.sizing import sized_replicas

__all__ = [
    "COARSE_CANDIDATES",
    "FINE_CANDIDATES",
    "REFINE_GAP_REQUESTS",
    "candidate_curve",
    "choose_operating_point",
    "choose_point",
    "e2e_ms",
    "feasible",
    "queueing_budget_s",
]

COARSE_CANDIDATES = 33
"""Candidate concurrencies over a curve's whole range in the first pass of the search [-]: every integer when the
range holds at most this many (most measured curves), else log-spaced; 33 keeps the pass to one vectorised Erlang
call of a few dozen elements."""
FINE_CANDIDATES = 32
"""Candidates between the best coarse candidate's neighbours in the second pass [-]: with the neighbours' gap at
most a few dozen requests this is every integer there."""
REFINE_GAP_REQUESTS = 2.0
"""The second pass runs only when the best coarse candidate's neighbours are more than this far apart [requests]:
closer neighbours leave no integer concurrency unexamined on either side of the best one."""


def e2e_ms(ttft_ms: ArrayLike, tpot_ms: ArrayLike, output_tokens: ArrayLike) -> NDArray[np.float64]:
    """End-to-end latency of one request without queueing: TTFT + (OSL - 1) * TPOT [ms]."""
    return np.asarray(ttft_ms, float) + (np.asarray(output_tokens, float) - 1.0) * np.asarray(tpot_ms, float)


def feasible(
    ttft_ms: ArrayLike,
    tpot_ms: ArrayLike,
    output_tokens: float,
    ttft_limit_ms: float,
    tpot_limit_ms: float,
    e2e_limit_ms: float | None = None,
) -> NDArray[np.bool_]:
    """Whether each point meets the SLO before any queueing.

    Parameters
    ----------
    ttft_ms, tpot_ms
        Latencies at each point [ms].
    output_tokens
        OSL [tokens].
    ttft_limit_ms, tpot_limit_ms, e2e_limit_ms
        SLO limits [ms]; ``e2e_limit_ms`` None means no end-to-end limit.

    Returns
    -------
    ndarray of bool
        True where TPOT <= limit, TTFT < limit and end-to-end < limit.
    """
    ok = (np.asarray(tpot_ms) <= tpot_limit_ms) & (np.asarray(ttft_ms) < ttft_limit_ms)
    if e2e_limit_ms is not None:
        ok &= e2e_ms(ttft_ms, tpot_ms, output_tokens) < e2e_limit_ms
    return ok


def queueing_budget_s(
    ttft_ms: ArrayLike,
    tpot_ms: ArrayLike,
    output_tokens: float,
    ttft_limit_ms: float,
    e2e_limit_ms: float | None = None,
) -> NDArray[np.float64]:
    """Time a request may wait in the fleet's queue and still be accepted [s].

    ``budget = TTFT limit - TTFT at the point``, or the end-to-end slack when that is smaller. Negative where the
    point is infeasible.
    """
    budget_ms = ttft_limit_ms - np.asarray(ttft_ms, dtype=float)
    if e2e_limit_ms is not None:
        budget_ms = np.minimum(budget_ms, e2e_limit_ms - e2e_ms(ttft_ms, tpot_ms, output_tokens))
    return budget_ms / 1000.0


def choose_operating_point(
    concurrency: NDArray[np.float64],
    service_s: NDArray[np.float64],
    budget_s: NDArray[np.float64],
    is_feasible: NDArray[np.bool_],
    power_w_per_replica_busy: NDArray[np.float64],
    power_w_per_replica_idle: float,
    sizing_rps: float,
    attainment_fraction: float,
    max_utilization_fraction: float = 1.0,
) -> tuple[int, NDArray[np.int64]]:
    """Pick the feasible candidate that needs the fewest replicas for the sizing demand.

    Parameters
    ----------
    concurrency, service_s, budget_s
        Per candidate: slots per replica [requests], slot holding time [s], queueing budget [s].
    is_feasible
        Per candidate: whether it meets the SLO before queueing.
    power_w_per_replica_busy, power_w_per_replica_idle
        Replica power with every slot busy (per candidate) and idle [W], for the tie-break.
    sizing_rps
        Demand the fleet is sized for [requests/s].
    attainment_fraction
        Share of requests that must wait no longer than the budget [-].
    max_utilization_fraction
        Ceiling on slot utilisation at the sizing demand [-].

    Returns
    -------
    index : int
        Index of the chosen candidate.
    replicas : ndarray of int
        Replicas each candidate needs (0 where infeasible).

    Raises
    ------
    ValueError
        If no candidate is feasible (the loader reports this as a scenario problem first).
    """
    idx = np.flatnonzero(is_feasible)
    if idx.size == 0:
        raise ValueError("no operating point meets the SLO")
    n = sized_replicas(
        queueing.replicas_needed(
            sizing_rps, service_s[idx], concurrency[idx], budget_s[idx], 1.0 - attainment_fraction
        ),
        sizing_rps,
        service_s[idx],
        concurrency[idx],
        max_utilization_fraction,
    )
    utilization = sizing_rps * service_s[idx] / (n * concurrency[idx])
    power = n * (power_w_per_replica_idle + (power_w_per_replica_busy[idx] - power_w_per_replica_idle) * utilization)
    best = idx[np.lexsort((-concurrency[idx], power, n))[0]]
    replicas = np.zeros(concurrency.shape, dtype=np.int64)
    replicas[idx] = n
    return int(best), replicas


def candidate_curve(
    curve: Curve, count: int, low: float | None = None, high: float | None = None, extra: float | None = None
) -> Curve:
    """The curve at candidate concurrencies in [low, high] (default: the measured range), measured points included.

    Parameters
    ----------
    curve
        Measured points, sorted by concurrency.
    count
        Candidates wanted (see :func:`rackcost.performance.candidate_concurrencies`) [-].
    low, high
        Range [requests].
    extra
        One more concurrency to include (the best candidate of a previous pass) [requests].
    """
    c = curve.concurrency
    grid = candidate_concurrencies(c[0] if low is None else low, c[-1] if high is None else high, count)
    keep = [grid, c[(c >= grid[0]) & (c <= grid[-1])]] + ([] if extra is None else [[extra]])
    return interpolate_curve(curve, np.unique(np.concatenate(keep)))


def _best_candidate(
    inp: SystemInputs, cand: Curve, slo: SloInputs, sizing_rps: float, max_utilization_fraction: float
) -> tuple[int, NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """Index of the best candidate, replicas each needs, busy power and queueing budget at each."""
    apr = inp.accelerators_per_replica
    host_share_w = inp.host_w_per_replica
    if cand.power_w_per_accelerator is not None:
        busy = cand.power_w_per_accelerator
    else:
        busy = np.full(cand.concurrency.shape, inp.busy_w)
    osl = slo.output_tokens
    ok = feasible(cand.ttft_ms, cand.tpot_ms, osl, slo.ttft_limit_ms, slo.tpot_limit_ms, slo.e2e_limit_ms)
    budget = queueing_budget_s(cand.ttft_ms, cand.tpot_ms, osl, slo.ttft_limit_ms, slo.e2e_limit_ms)
    best, n = choose_operating_point(
        cand.concurrency,
        cand.service_s,
        np.where(ok, budget, 0.0),
        ok,
        apr * busy + host_share_w,
        apr * inp.idle_w + host_share_w,
        sizing_rps,
        slo.attainment_fraction,
        max_utilization_fraction,
    )
    return best, n, busy, budget


def choose_point(inp: SystemInputs, slo: SloInputs, sizing_rps: float, max_utilization_fraction: float) -> ChosenPoint:
    """The SLO-feasible point of a system's curve that needs the fewest replicas for the sizing demand.

    Two passes: :data:`COARSE_CANDIDATES` over the whole measured range (``inp.coarse``), then, when the best
    one's neighbours are more than :data:`REFINE_GAP_REQUESTS` apart, :data:`FINE_CANDIDATES` between them.

    Parameters
    ----------
    inp
        The system's central inputs.
    slo
        The SLO.
    sizing_rps
        Demand the fleet is sized for [requests/s].
    max_utilization_fraction
        Utilisation ceiling at the sizing demand [-].

    Raises
    ------
    ValueError
        If no point meets the SLO (the loader reports this as a scenario problem first).
    """
    cand = inp.coarse
    best, n, busy, budget = _best_candidate(inp, cand, slo, sizing_rps, max_utilization_fraction)
    lo = cand.concurrency[max(best - 1, 0)]
    hi = cand.concurrency[min(best + 1, len(cand) - 1)]
    if hi - lo > REFINE_GAP_REQUESTS:
        cand = candidate_curve(inp.curve, FINE_CANDIDATES, lo, hi, extra=cand.concurrency[best])
        best, n, busy, budget = _best_candidate(inp, cand, slo, sizing_rps, max_utilization_fraction)
    return ChosenPoint(cand.take(np.array([best])), float(busy[best]), float(budget[best]), int(n[best]))
