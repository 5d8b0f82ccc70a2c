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
from rackcost.sizing import sized_replicas

__all__ = ["choose_operating_point", "e2e_ms", "feasible", "queueing_budget_s"]


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
