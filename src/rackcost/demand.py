"""One provisioned fleet at each demand point (DESIGN.md step 6).

The fleet's size is fixed; demand varies. With the ``powered`` idle policy every replica is on and serving;
with ``park`` only the replicas the point needs serve and the rest are parked. Offered load above what the serving
replicas carry within the SLO is dropped by admission control; below it, requests that wait longer than the
queueing budget are served late and count as SLO misses. Everything vectorises over demand points.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from rackcost import queueing
from rackcost.outcomes import DemandOutcome
from rackcost.sizing import sized_replicas

__all__ = ["OVERLOAD_TOLERANCE_FRACTION", "TTFT_PERCENTILE_FRACTION", "serve_demand"]

TTFT_PERCENTILE_FRACTION = 0.99
"""The TTFT percentile reported at each demand point (p99) [-]."""
OVERLOAD_TOLERANCE_FRACTION = 1e-12
"""A point is overloaded when its rate exceeds the capacity at SLO by more than this share: a rate equal to the
capacity up to rounding (the sizing demand of a fleet sized exactly for it) is not overload [-]."""


def serve_demand(
    offered_rps: ArrayLike,
    provisioned_replicas: int,
    concurrency: float,
    service_s: float,
    budget_s: float,
    attainment_fraction: float,
    idle_policy: str = "powered",
    max_utilization_fraction: float = 1.0,
    feasible_rps: ArrayLike | None = None,
) -> DemandOutcome:
    """Serve each demand point with the same provisioned fleet.

    Parameters
    ----------
    offered_rps
        Arrival rate at each demand point [requests/s].
    provisioned_replicas
        Replicas installed [-].
    concurrency
        Slots per replica at the operating point [requests].
    service_s
        Slot holding time at the operating point [s].

    The fleet arguments may carry a leading sample axis (shape ``(n, 1)`` against ``offered_rps`` of shape
    ``(n, points)``): everything broadcasts.
    budget_s
        Queueing budget left by the SLO [s].
    attainment_fraction
        SLO attainment target, used for capacity at SLO and, under ``park``, for how many replicas serve [-].
    idle_policy
        ``"powered"`` or ``"park"``.
    max_utilization_fraction
        Utilisation ceiling that ``park`` keeps when deciding how many replicas serve [-].
    feasible_rps
        Optional: a rate the whole fleet is known to serve within the SLO (the demand it was sized for); it
        speeds up the search for the capacity at SLO [requests/s].

    Returns
    -------
    DemandOutcome
    """
    lam = np.atleast_1d(np.asarray(offered_rps, dtype=float))
    miss_target = 1.0 - attainment_fraction
    n_prov = np.asarray(provisioned_replicas, dtype=np.int64)
    service_s = np.asarray(service_s, dtype=float)
    concurrency = np.asarray(concurrency, dtype=float)
    # capacity at SLO of the whole provisioned fleet (one value per sample when the inputs carry a sample axis)
    capacity = queueing.capacity_at_slo(n_prov * concurrency, service_s, budget_s, miss_target, feasible_rps)
    if idle_policy == "powered":
        active = np.broadcast_to(n_prov, lam.shape).astype(np.int64)
        capacity_active = np.broadcast_to(capacity, lam.shape)
    elif idle_policy == "park":
        needed = sized_replicas(
            queueing.replicas_needed(lam, service_s, concurrency, budget_s, miss_target),
            lam,
            service_s,
            concurrency,
            max_utilization_fraction,
        )
        active = np.minimum(needed, n_prov)
        capacity_active = queueing.capacity_at_slo(active * concurrency, service_s, budget_s, miss_target)
    else:
        raise ValueError(f"idle_policy must be 'powered' or 'park', got {idle_policy!r}")
    slots_active = active * concurrency
    admitted = np.minimum(lam, capacity_active)
    miss, wait_p99_s = queueing.wait_tail(budget_s, TTFT_PERCENTILE_FRACTION, slots_active, admitted, service_s)
    accepted = admitted * (1.0 - miss)
    rejected = lam - accepted
    return DemandOutcome(
        offered_rps=lam,
        admitted_rps=admitted,
        accepted_rps=accepted,
        rejected_rps=rejected,
        rejected_fraction=rejected / lam,
        active_replicas=active,
        utilization_fraction=admitted * service_s / slots_active,
        capacity_at_slo_rps=np.broadcast_to(np.asarray(capacity, dtype=float), lam.shape),  # read-only view
        spare_capacity_fraction=(capacity - lam) / capacity,
        wait_p99_ms=np.asarray(wait_p99_s, dtype=float) * 1000.0,
        overloaded=lam > capacity_active * (1 + OVERLOAD_TOLERANCE_FRACTION),
    )
