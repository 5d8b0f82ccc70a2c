"""Wall power of a fleet (DESIGN.md step 7).

Per powered accelerator ``idle + (busy - idle) * u ** exponent`` with ``u`` the slot utilisation; parked
accelerators draw parked power; hosts draw their power per node that is on (parked nodes their parked power); each
rack's switches, fans, CDU and conversion draw a constant overhead. IT power times PUE is facility power. Rated
(nameplate) power is used only for provisioning and rack limits, never for energy.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["accelerator_power_w", "facility_power_kw", "fleet_it_power_w", "provisioned_it_power_w"]


def accelerator_power_w(
    utilization_fraction: ArrayLike, idle_w: ArrayLike, busy_w: ArrayLike, exponent: ArrayLike = 1.0
) -> NDArray[np.float64]:
    """Power of one powered accelerator at a slot utilisation.

    Parameters
    ----------
    utilization_fraction
        Share of the replica's slots in use, in [0, 1] [-].
    idle_w, busy_w
        Power when idle and when every slot is busy [W].
    exponent
        Shape of the rise from idle to busy; 1 is linear [-].

    Returns
    -------
    ndarray
        Power [W].

    Examples
    --------
    >>> float(accelerator_power_w(0.5, 100.0, 500.0))
    300.0
    """
    u = np.clip(np.asarray(utilization_fraction, dtype=float), 0.0, 1.0)
    idle = np.asarray(idle_w, dtype=float)
    exponent = np.asarray(exponent, dtype=float)
    shape = u if np.all(exponent == 1.0) else u**exponent  # u ** 1.0 is exactly u; pow is the costly part
    return idle + (np.asarray(busy_w, dtype=float) - idle) * np.broadcast_to(
        shape, np.broadcast_shapes(u.shape, exponent.shape)
    )


def fleet_it_power_w(
    active_replicas: ArrayLike,
    provisioned_replicas: ArrayLike,
    utilization_fraction: ArrayLike,
    accelerators_per_replica: ArrayLike,
    accelerators_per_node: ArrayLike,
    racks: ArrayLike,
    idle_w: ArrayLike,
    busy_w: ArrayLike,
    parked_w: ArrayLike,
    host_w_per_node: ArrayLike,
    host_parked_w_per_node: ArrayLike,
    rack_overhead_w: ArrayLike,
    exponent: ArrayLike = 1.0,
) -> NDArray[np.float64]:
    """IT power of a fleet: accelerators, hosts and rack overheads.

    Nodes are counted fractionally (``replicas * accelerators_per_replica / accelerators_per_node``) so that a
    node shared by an active and a parked replica is half on.

    Parameters
    ----------
    active_replicas, provisioned_replicas
        Replicas serving and replicas installed [-].
    utilization_fraction
        Slot utilisation of the active replicas [-].
    accelerators_per_replica, accelerators_per_node
        Packaging [-].
    racks
        Racks installed [-].
    idle_w, busy_w, parked_w
        Accelerator power when idle, fully busy and parked [W].
    host_w_per_node, host_parked_w_per_node
        Host power of a node that is on, and of a parked node [W].
    rack_overhead_w
        Overhead of one rack [W].
    exponent
        Utilisation exponent of accelerator power [-].

    Returns
    -------
    ndarray
        IT power [W].

    Examples
    --------
    One one-accelerator replica at half load (300 W between 100 W idle and 500 W busy) and one parked (20 W),
    a node each (200 W on, 50 W parked) and one rack (1,000 W overhead): 320 + 250 + 1,000 W:

    >>> float(fleet_it_power_w(1, 2, 0.5, 1, 1, 1, 100.0, 500.0, 20.0, 200.0, 50.0, 1000.0))
    1570.0
    """
    active = np.asarray(active_replicas, float)
    parked = np.asarray(provisioned_replicas, float) - active
    apr = np.asarray(accelerators_per_replica, float)
    apn = np.asarray(accelerators_per_node, float)
    accelerators = active * apr * accelerator_power_w(utilization_fraction, idle_w, busy_w, exponent)
    accelerators = accelerators + parked * apr * np.asarray(parked_w, float)
    hosts = (
        (active * np.asarray(host_w_per_node, float) + parked * np.asarray(host_parked_w_per_node, float)) * apr / apn
    )
    return accelerators + hosts + np.asarray(racks, float) * np.asarray(rack_overhead_w, float)


def provisioned_it_power_w(
    nodes: ArrayLike,
    racks: ArrayLike,
    accelerators_per_node: ArrayLike,
    accelerator_rated_w: ArrayLike,
    host_rated_w_per_node: ArrayLike,
    rack_overhead_w: ArrayLike,
) -> NDArray[np.float64]:
    """Rated IT power a fleet is provisioned for (rack limits, facility capacity) [W].

    Examples
    --------
    >>> float(provisioned_it_power_w(18, 1, 4, 1400.0, 600.0, 10000.0))
    121600.0
    """
    node_w = np.asarray(accelerators_per_node, float) * np.asarray(accelerator_rated_w, float) + np.asarray(
        host_rated_w_per_node, float
    )
    return np.asarray(nodes, float) * node_w + np.asarray(racks, float) * np.asarray(rack_overhead_w, float)


def facility_power_kw(it_power_w: ArrayLike, pue: ArrayLike) -> NDArray[np.float64]:
    """Facility power: IT power times PUE [kW].

    Examples
    --------
    >>> float(facility_power_kw(100_000.0, 1.2))
    120.0
    """
    return np.asarray(it_power_w, float) * np.asarray(pue, float) / 1000.0
