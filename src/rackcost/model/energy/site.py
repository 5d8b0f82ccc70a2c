"""Site power budget: the largest fleet a site's IT power holds, and what it serves (docs/model.md, Site power budget).

A site is limited by the IT power it is provisioned for, not by the demand. This module answers, over plain
numbers, what the largest fleet of a system is under that limit and what it serves within the SLO:

1. :func:`max_replicas_within_power`: the most replicas whose packing (:func:`rackcost.model.fleets.sizing.pack_racks`)
stays
   within the limit on rated power (:func:`rackcost.model.energy.power.provisioned_it_power_w`), the rule racks are
   provisioned by;
2. :func:`serving_replicas_within`: of those, the replicas that serve once redundancy holds some back (the
   inverse of :func:`rackcost.model.fleets.sizing.provisioned_replicas`);
3. :func:`per_megawatt` and :func:`unserved_rps`: the capacity at SLO of the serving replicas
   (:func:`rackcost.model.queues.routing.capacity_at_slo`) per MW of the site, and the demand above it;
4. :func:`best_pool_split`: for a disaggregated system, the prefill and decode replica counts within the limit
   whose system carries the most within the SLO (every request passes both pools, so the smaller capacity).

The face that reads a scenario is :func:`rackcost.analysis.site_budget.site_budget`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.energy.power import provisioned_it_power_w
from rackcost.model.fleets.sizing import pack_racks, provisioned_replicas

__all__ = [
    "KW_PER_MW",
    "POWER_TOLERANCE_FRACTION",
    "PoolSplit",
    "best_pool_split",
    "fleet_rated_w",
    "max_replicas_within_power",
    "per_megawatt",
    "serving_replicas_within",
    "unserved_rps",
]

KW_PER_MW = 1000.0
"""Kilowatts in a megawatt [kW/MW]."""
POWER_TOLERANCE_FRACTION = 1e-12
"""A fleet whose rated power equals the limit up to rounding fits: the limit is met within this share [-]."""


def fleet_rated_w(
    replicas: ArrayLike,
    accelerators_per_replica: int,
    accelerators_per_node: int,
    nodes_per_rack_effective: int,
    accelerator_rated_w: float,
    host_rated_w_per_node: float,
    rack_overhead_w: float,
) -> NDArray[np.float64]:
    """Rated IT power of ``replicas`` packed into nodes and racks, as a fleet is provisioned [W].

    :func:`rackcost.model.fleets.sizing.pack_racks` then :func:`rackcost.model.energy.power.provisioned_it_power_w`, the
    rule :func:`rackcost.model.fleets.fleet.pack_fleet` applies to the sized fleet.

    Examples
    --------
    Three 8-accelerator replicas on 8-accelerator nodes, 2 nodes a rack: 3 nodes in 2 racks,
    24 x 1,000 W + 3 x 2,000 W + 2 x 5,000 W = 40,000 W.

    >>> float(fleet_rated_w(3, 8, 8, 2, 1000.0, 2000.0, 5000.0))
    40000.0
    """
    n = np.asarray(replicas, dtype=np.int64)
    nodes, racks = pack_racks(n, accelerators_per_replica, accelerators_per_node, nodes_per_rack_effective)
    return provisioned_it_power_w(
        n * accelerators_per_replica, nodes, racks, accelerator_rated_w, host_rated_w_per_node, rack_overhead_w
    )


def max_replicas_within_power(
    limit_w: float,
    accelerators_per_replica: int,
    accelerators_per_node: int,
    nodes_per_rack_effective: int,
    accelerator_rated_w: float,
    host_rated_w_per_node: float,
    rack_overhead_w: float,
) -> int:
    """The most replicas whose rated IT power, packed as the fleet is, stays within a site's limit.

    Rated power is non-decreasing in the replica count (accelerators, nodes and racks each are), so the largest
    count is found by bisection between 0 and the count the accelerators' rated power alone allows.

    Parameters
    ----------
    limit_w
        The site's IT power limit, > 0 [W].
    accelerators_per_replica, accelerators_per_node, nodes_per_rack_effective
        Packaging, each >= 1; nodes per rack under the rack power limit
        (:func:`rackcost.model.fleets.sizing.nodes_per_rack_allowed`) [-].
    accelerator_rated_w, host_rated_w_per_node, rack_overhead_w
        Rated power of an accelerator and a node's host, and a rack's overhead; their sum over one replica > 0 [W].

    Returns
    -------
    int
        Replicas [-]; 0 when not even one replica fits.

    Examples
    --------
    One 8-accelerator replica per node and rack draws 8 x 1,000 + 2,000 + 5,000 = 15,000 W: a 45 kW site holds
    exactly three, and 44.999 kW two.

    >>> max_replicas_within_power(45_000.0, 8, 8, 1, 1000.0, 2000.0, 5000.0)
    3
    >>> max_replicas_within_power(44_999.0, 8, 8, 1, 1000.0, 2000.0, 5000.0)
    2
    """
    args = (
        accelerators_per_replica,
        accelerators_per_node,
        nodes_per_rack_effective,
        accelerator_rated_w,
        host_rated_w_per_node,
        rack_overhead_w,
    )
    if not (np.isfinite(limit_w) and limit_w > 0):
        raise ValueError(f"the site's IT power limit must be a positive finite number of W, got {limit_w}")
    ceiling = limit_w * (1.0 + POWER_TOLERANCE_FRACTION)
    # a lower bound on each replica's share of rated power: nodes >= N a / n_a and racks >= nodes / n_r
    share_w = (
        accelerators_per_replica * accelerator_rated_w
        + accelerators_per_replica / accelerators_per_node * host_rated_w_per_node
        + accelerators_per_replica / (accelerators_per_node * nodes_per_rack_effective) * rack_overhead_w
    )
    if not share_w > 0:
        raise ValueError("a replica's rated power must be positive")
    low, high = 0, int(np.floor(ceiling / share_w)) + 1  # fits(low); high may not fit
    while high - low > 1:
        mid = (low + high) // 2
        if float(fleet_rated_w(mid, *args)) <= ceiling:
            low = mid
        else:
            high = mid
    return high if float(fleet_rated_w(high, *args)) <= ceiling else low


def serving_replicas_within(provisioned: int, availability_fraction: float = 1.0, spare_replicas: int = 0) -> int:
    """The most serving replicas whose provisioned fleet (redundancy added) is at most ``provisioned``.

    The inverse of :func:`rackcost.model.fleets.sizing.provisioned_replicas`: the largest ``s`` with
    ``ceil(s / availability) + spares <= provisioned``; 0 when the spares alone fill it.

    Examples
    --------
    21 replicas at 95% availability with one spare serve 19 (19 / 0.95 = 20, plus the spare):

    >>> serving_replicas_within(21, 0.95, 1)
    19
    """
    room = provisioned - spare_replicas
    if room <= 0:
        return 0
    s = int(np.floor(room * availability_fraction + 1e-9))
    while s > 0 and int(provisioned_replicas(s, availability_fraction, spare_replicas)) > provisioned:
        s -= 1
    while int(provisioned_replicas(s + 1, availability_fraction, spare_replicas)) <= provisioned:
        s += 1
    return s


def per_megawatt(rate: ArrayLike, site_kw: ArrayLike) -> NDArray[np.float64]:
    """A rate per MW of the site's IT power budget [rate / MW].

    Examples
    --------
    >>> float(per_megawatt(30.0, 1500.0))
    20.0
    """
    return np.asarray(rate, dtype=float) / (np.asarray(site_kw, dtype=float) / KW_PER_MW)


def unserved_rps(demand_rps: ArrayLike, capacity_rps: ArrayLike) -> NDArray[np.float64]:
    """Demand above a fleet's capacity at SLO, which admission control turns away [requests/s].

    Examples
    --------
    >>> [float(x) for x in unserved_rps([5.0, 20.0], 12.0)]
    [0.0, 8.0]
    """
    return np.maximum(np.asarray(demand_rps, dtype=float) - np.asarray(capacity_rps, dtype=float), 0.0)


def serving_within_many(
    provisioned: ArrayLike, availability_fraction: float = 1.0, spare_replicas: int = 0
) -> NDArray[np.int64]:
    """:func:`serving_replicas_within` of each of an array of provisioned counts (the same rule, vectorised)."""
    n = np.asarray(provisioned, dtype=np.int64)
    room = n - spare_replicas
    s = np.maximum(np.floor(np.maximum(room, 0) * availability_fraction + 1e-9).astype(np.int64), 0)
    for _ in range(4):  # the floor is within a replica of the answer; each pass moves every element at most one
        over = (s > 0) & (provisioned_replicas(s, availability_fraction, spare_replicas) > n)
        s = s - over
        under = provisioned_replicas(s + 1, availability_fraction, spare_replicas) <= n
        s = s + under
    return np.where(room > 0, s, 0).astype(np.int64)


@dataclass(frozen=True)
class PoolSplit:
    """The best split of a site's power between a disaggregated system's two pools (:func:`best_pool_split`).

    Attributes
    ----------
    prefill_replicas, decode_replicas
        Provisioned replicas of each pool [-].
    prefill_serving, decode_serving
        Of those, the replicas that serve (redundancy held back in each pool) [-].
    rated_w
        Rated IT power of both pools [W].
    capacity_rps
        The system's capacity at SLO, the smaller of the two pools' [requests/s].
    """

    prefill_replicas: int
    decode_replicas: int
    prefill_serving: int
    decode_serving: int
    rated_w: float
    capacity_rps: float


Packing = tuple[int, int, int, float, float, float]
"""A pool's packing for :func:`fleet_rated_w`: accelerators per replica and node, nodes per rack, and the rated
power of an accelerator, a node's host and a rack's overhead."""


def best_pool_split(
    limit_w: float,
    prefill: Packing,
    decode: Packing,
    prefill_capacity_rps: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    decode_capacity_rps: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    availability_fraction: float = 1.0,
    spare_replicas: int = 0,
) -> PoolSplit | None:
    """The prefill and decode replica counts within a site's limit whose system carries the most within the SLO.

    Every request passes both pools, so the system carries the smaller of the two capacities. Each pool is packed
    into racks of its own (as :func:`rackcost.model.fleets.pool_fleet.combine_fleets` adds them) and keeps the fleet's
    redundancy. For every prefill count that leaves room for one decode replica, the decode pool takes the most
    replicas the rest of the power holds (more never lowers its capacity); of these pairs the one with the largest
    capacity wins, then the lower rated power, then fewer prefill replicas. Exhaustive over the prefill counts, in
    one vectorised pass (the counts are at most the limit over one replica's rated power).

    Parameters
    ----------
    limit_w
        The site's IT power limit, > 0 [W].
    prefill, decode
        Each pool's packing (:data:`Packing`).
    prefill_capacity_rps, decode_capacity_rps
        Each pool's capacity at SLO for an array of serving replica counts, each >= 1 [requests/s].
    availability_fraction, spare_replicas
        The fleet's redundancy, applied to each pool [-].

    Returns
    -------
    PoolSplit or None
        None when not even one replica of each pool fits.

    Examples
    --------
    Pools of one-accelerator replicas of 1,000 W (no host or rack power), a 10 kW site: a prefill replica carries
    2 requests/s and a decode replica 3, so 6 prefill and 4 decode replicas carry 12/s each, the most any split of
    10 replicas carries:

    >>> one = (1, 1, 1, 1000.0, 0.0, 0.0)
    >>> split = best_pool_split(10_000.0, one, one, lambda n: 2.0 * n, lambda n: 3.0 * n)
    >>> split.prefill_replicas, split.decode_replicas, split.capacity_rps
    (6, 4, 12.0)
    """
    max_decode = max_replicas_within_power(limit_w, *decode)
    if max_decode == 0:
        return None
    rated_decode = fleet_rated_w(np.arange(max_decode + 1), *decode)
    room_w = limit_w - float(rated_decode[1])
    if room_w <= 0:
        return None
    max_prefill = max_replicas_within_power(room_w, *prefill)
    if max_prefill == 0:
        return None
    n_p = np.arange(1, max_prefill + 1)
    rated_prefill = fleet_rated_w(n_p, *prefill)
    ceiling = limit_w * (1.0 + POWER_TOLERANCE_FRACTION)
    n_d = np.searchsorted(rated_decode, ceiling - rated_prefill, side="right") - 1  # rated power rises with replicas
    n_d = np.clip(n_d, 0, max_decode)
    serving_p = serving_within_many(n_p, availability_fraction, spare_replicas)
    serving_d = serving_within_many(n_d, availability_fraction, spare_replicas)
    both = (serving_p > 0) & (serving_d > 0)
    capacity = np.zeros(n_p.shape)
    if both.any():
        capacity[both] = np.minimum(
            np.asarray(prefill_capacity_rps(serving_p[both]), dtype=float),
            np.asarray(decode_capacity_rps(serving_d[both]), dtype=float),
        )
    rated = rated_prefill + rated_decode[n_d]
    best = int(np.lexsort((n_p, rated, -capacity))[0])
    return PoolSplit(
        prefill_replicas=int(n_p[best]),
        decode_replicas=int(n_d[best]),
        prefill_serving=int(serving_p[best]),
        decode_serving=int(serving_d[best]),
        rated_w=float(rated[best]),
        capacity_rps=float(capacity[best]),
    )
