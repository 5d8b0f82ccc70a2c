"""Fleet sizing on top of the queueing model, and rack packing (docs/model.md, 5. Fleet sizing).

The smallest replica count that meets the SLO at the sizing demand comes from
:func:`rackcost.model.queues.queueing.replicas_needed`; this module adds the utilisation ceiling, redundancy and the
packing of replicas into nodes and racks, limited both by node slots and by the rack power limit on *rated* power.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["nodes_per_rack_allowed", "pack_racks", "provisioned_replicas", "sized_replicas"]


def sized_replicas(
    slo_replicas: ArrayLike,
    arrival_rps: ArrayLike,
    service_s: ArrayLike,
    slots_per_replica: ArrayLike,
    max_utilization_fraction: ArrayLike,
) -> NDArray[np.int64]:
    """Replicas that meet the SLO and keep slot utilisation under its ceiling.

    ``max(slo_replicas, ceil(lambda * S / (c * u_max)))``.

    Parameters
    ----------
    slo_replicas
        Replicas the SLO alone needs [-].
    arrival_rps
        Sizing demand [requests/s].
    service_s
        Slot holding time [s].
    slots_per_replica
        Concurrency per replica [requests].
    max_utilization_fraction
        Utilisation ceiling, above 0 and at most 1 [-].

    Returns
    -------
    ndarray of int
        Replicas [-].

    Examples
    --------
    >>> int(sized_replicas(3, 10.0, 1.0, 4.0, 0.5))
    5
    """
    load = np.asarray(arrival_rps, float) * np.asarray(service_s, float)
    by_ceiling = np.ceil(
        load / (np.asarray(slots_per_replica, float) * np.asarray(max_utilization_fraction, float)) - 1e-9
    )
    return np.maximum(np.asarray(slo_replicas, dtype=np.int64), by_ceiling.astype(np.int64))


def provisioned_replicas(
    serving_replicas: ArrayLike, availability_fraction: ArrayLike = 1.0, spare_replicas: ArrayLike = 0
) -> NDArray[np.int64]:
    """Replicas bought: ``ceil(serving / availability) + spares``.

    Examples
    --------
    >>> int(provisioned_replicas(19, 0.95, 1))
    21
    """
    n = np.ceil(np.asarray(serving_replicas, float) / np.asarray(availability_fraction, float) - 1e-9)
    return n.astype(np.int64) + np.asarray(spare_replicas, dtype=np.int64)


def nodes_per_rack_allowed(
    nodes_per_rack: ArrayLike,
    node_rated_w: ArrayLike,
    rack_overhead_w: ArrayLike,
    rack_power_limit_w: ArrayLike,
) -> NDArray[np.int64]:
    """Nodes one rack may hold: the slot count, or fewer when the rack power limit binds.

    The limit applies to rated power: ``floor((limit - overhead) / node rated power)``; 0 means not even one
    node fits.
    """
    by_power = np.floor(
        (np.asarray(rack_power_limit_w, float) - np.asarray(rack_overhead_w, float)) / np.asarray(node_rated_w, float)
        + 1e-9
    )
    return np.clip(np.minimum(np.asarray(nodes_per_rack), by_power), 0, None).astype(np.int64)


def pack_racks(
    replicas: ArrayLike,
    accelerators_per_replica: ArrayLike,
    accelerators_per_node: ArrayLike,
    nodes_per_rack_effective: ArrayLike,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Nodes and racks a fleet needs.

    Racks are the larger of the count by node slots and the count by the rack power limit, which is the count at
    ``nodes_per_rack_effective`` from :func:`nodes_per_rack_allowed`.

    Returns
    -------
    nodes, racks : ndarray of int
        Nodes (trays) and racks [-].

    Examples
    --------
    >>> [int(x) for x in pack_racks(10, 8, 4, 18)]
    [20, 2]
    """
    accelerators = np.asarray(replicas, dtype=np.int64) * np.asarray(accelerators_per_replica, dtype=np.int64)
    nodes = -(-accelerators // np.asarray(accelerators_per_node, dtype=np.int64))
    racks = -(-nodes // np.asarray(nodes_per_rack_effective, dtype=np.int64))
    return nodes, racks
