"""Wall power of a fleet (docs/model.md, 7. Wall power).

Per serving accelerator ``idle + (busy - idle) * u ** exponent`` with ``u`` the slot utilisation (or the measured
power at the concurrency in service); standby accelerators draw idle power, parked ones parked power; hosts draw their
power per whole node that is on (parked nodes their parked power); each rack's switches, fans, CDU and conversion draw
a constant overhead. IT power times PUE is facility power. Rated
(nameplate) power is used only for provisioning and rack limits, never for energy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import W_PER_KW

__all__ = [
    "PEAK_TO_MEAN_POWER",
    "accelerator_power_w",
    "facility_power_kw",
    "fleet_it_power_at",
    "fleet_it_power_w",
    "peak_accelerator_power_w",
    "provisioned_it_power_w",
    "rack_power_kw",
]

PEAK_TO_MEAN_POWER = 1.45
"""Peak over mean board power of a serving accelerator where the curve does not measure it [-]: the mean of the
ratios SemiAnalysis's InferenceX measured on 8 x B200 serving DeepSeek-R1 FP4 (SGLang, 1k/1k, concurrency 16, 64, 128
and 256: 1.46, 1.49, 1.35, 1.52; InferenceX ``together_runner/baselines/b200/``, 2026-06-12; independent
measurement). A peak is held by the board's power limit: see :func:`peak_accelerator_power_w`."""


def accelerator_power_w(
    utilization_fraction: ArrayLike, idle_w: ArrayLike, busy_w: ArrayLike, exponent: ArrayLike = 1.0
) -> NDArray[np.float64]:
    """Power of one powered accelerator at a slot utilisation.

    Parameters
    ----------
    utilization_fraction
        Share of the replica's slots in use, from 0 to 1 [-].
    idle_w, busy_w
        Power when idle and when every slot is busy [W].
    exponent
        Shape of the rise from idle to busy: 1 is linear, 0 flat at busy power; the fitted laws of
        :mod:`rackcost.model.energy.power_law` are 0.03-0.11 [-].

    Returns
    -------
    ndarray
        Power [W].

    Examples
    --------
    >>> float(accelerator_power_w(0.5, 100.0, 500.0))
    300.0
    >>> round(float(accelerator_power_w(8 / 256, 75.0, 700.0, 0.1113)), 1)  # H100's fitted law: a batch of 8 of 256
    500.0
    """
    u = np.asarray(utilization_fraction, dtype=float).clip(0.0, 1.0)  # (ndarray.clip: np.clip without its dispatch)
    idle = np.asarray(idle_w, dtype=float)
    exponent = np.asarray(exponent, dtype=float)
    shape = u if (exponent == 1.0).all() else u**exponent  # u ** 1.0 is exactly u; pow is the costly part
    joint = np.broadcast(u, exponent).shape  # (np.broadcast: the shape, without np.broadcast_shapes' Python steps)
    if shape.shape != joint:  # (a view only where the exponent widens it: np.broadcast_to costs more than the sum)
        shape = np.broadcast_to(shape, joint)
    return idle + (np.asarray(busy_w, dtype=float) - idle) * shape


def peak_accelerator_power_w(
    mean_w: ArrayLike, rated_w: ArrayLike, peak_to_mean: ArrayLike = PEAK_TO_MEAN_POWER
) -> NDArray[np.float64]:
    """Peak power of one serving accelerator: its mean times the peak-to-mean ratio, held at the rated power.

    The board's power limit holds a sustained peak at the rated (nameplate) power, so the peak is at most the
    larger of the rated power and the mean (a mean above the rating is a measurement to trust over the nameplate).

    Examples
    --------
    >>> float(peak_accelerator_power_w(500.0, 1000.0)), float(peak_accelerator_power_w(800.0, 1000.0))
    (725.0, 1000.0)
    """
    mean = np.asarray(mean_w, dtype=float)
    return np.minimum(mean * np.asarray(peak_to_mean, dtype=float), np.maximum(np.asarray(rated_w, float), mean))


def fleet_it_power_w(
    active_replicas: ArrayLike,
    idle_replicas: ArrayLike,
    parked_replicas: ArrayLike,
    accelerators_per_replica: ArrayLike,
    accelerators_per_node: ArrayLike,
    nodes: ArrayLike,
    racks: ArrayLike,
    active_accelerator_w: ArrayLike,
    idle_w: ArrayLike,
    parked_w: ArrayLike,
    host_w_per_node: ArrayLike,
    host_parked_w_per_node: ArrayLike,
    rack_overhead_w: ArrayLike,
) -> NDArray[np.float64]:
    """IT power of a fleet: accelerators, hosts by whole nodes, and rack overheads.

    Replicas are serving (``active``), powered but idle (standby under the ``powered`` policy) or parked. Powered
    replicas are packed into as few nodes as they fill (a node is on when any of its accelerators is powered), the
    fleet's other nodes are parked; a node's host draws its full power or its parked power, never a fraction.

    Why this long: one formula of thirteen inputs, each an array the Monte Carlo samples (replica counts,
    packaging, powers), named so that a doctest reads as the arithmetic; :func:`fleet_it_power_at` takes all but the
    accelerators' power once and serves any load.

    Parameters
    ----------
    active_replicas, idle_replicas, parked_replicas
        Replicas serving, powered and idle, and parked [-].
    accelerators_per_replica, accelerators_per_node
        Packaging [-].
    nodes, racks
        Nodes and racks installed [-].
    active_accelerator_w
        Power of one serving accelerator at the load (:func:`accelerator_power_w`, or measured power) [W].
    idle_w, parked_w
        Accelerator power when powered and idle, and parked [W].
    host_w_per_node, host_parked_w_per_node
        Host power of a node that is on, and of a parked node [W].
    rack_overhead_w
        Overhead of one rack [W].

    Returns
    -------
    ndarray
        IT power [W].

    Examples
    --------
    One one-accelerator replica serving at 300 W, one parked (20 W), on two-accelerator nodes (200 W on, 50 W
    parked): one node is on, and none is parked, so 300 + 20 + 200 W, plus one rack's 1,000 W:

    >>> float(fleet_it_power_w(1, 0, 1, 1, 2, 1, 1, 300.0, 100.0, 20.0, 200.0, 50.0, 1000.0))
    1520.0
    """
    fleet = (active_replicas, idle_replicas, parked_replicas, accelerators_per_replica, accelerators_per_node)
    at = fleet_it_power_at(
        *fleet, nodes, racks, idle_w, parked_w, host_w_per_node, host_parked_w_per_node, rack_overhead_w
    )
    return at(active_accelerator_w)


def fleet_it_power_at(
    active_replicas: ArrayLike,
    idle_replicas: ArrayLike,
    parked_replicas: ArrayLike,
    accelerators_per_replica: ArrayLike,
    accelerators_per_node: ArrayLike,
    nodes: ArrayLike,
    racks: ArrayLike,
    idle_w: ArrayLike,
    parked_w: ArrayLike,
    host_w_per_node: ArrayLike,
    host_parked_w_per_node: ArrayLike,
    rack_overhead_w: ArrayLike,
) -> Callable[[ArrayLike], NDArray[np.float64]]:
    """:func:`fleet_it_power_w` as a function of the serving accelerator's power alone (same parameters): the idle,
    parked, host and rack terms are computed once, and each call adds them to the serving accelerators' power in
    the same order, so each result is :func:`fleet_it_power_w`'s, bit for bit (the mean and the peak of a fleet).

    Examples
    --------
    The fleet of :func:`fleet_it_power_w`'s example with its serving accelerator at 300 W, then at 450 W:

    >>> at = fleet_it_power_at(1, 0, 1, 1, 2, 1, 1, 100.0, 20.0, 200.0, 50.0, 1000.0)
    >>> float(at(300.0)), float(at(450.0))
    (1520.0, 1670.0)
    """
    active = np.asarray(active_replicas, float)
    idle = np.asarray(idle_replicas, float)
    parked = np.asarray(parked_replicas, float)
    apr = np.asarray(accelerators_per_replica, float)
    apn = np.asarray(accelerators_per_node, float)
    nodes_total = np.asarray(nodes, float)
    serving = active * apr
    idle_term = idle * apr * np.asarray(idle_w, float)
    parked_term = parked * apr * np.asarray(parked_w, float)
    nodes_on = np.minimum(np.ceil((active + idle) * apr / apn), nodes_total)
    hosts = nodes_on * np.asarray(host_w_per_node, float) + (nodes_total - nodes_on) * np.asarray(
        host_parked_w_per_node, float
    )
    rack_term = np.asarray(racks, float) * np.asarray(rack_overhead_w, float)

    def at(active_accelerator_w: ArrayLike) -> NDArray[np.float64]:
        accelerators = serving * np.asarray(active_accelerator_w, float)
        accelerators = accelerators + idle_term + parked_term
        return accelerators + hosts + rack_term

    return at


def provisioned_it_power_w(
    accelerators: ArrayLike,
    nodes: ArrayLike,
    racks: ArrayLike,
    accelerator_rated_w: ArrayLike,
    host_rated_w_per_node: ArrayLike,
    rack_overhead_w: ArrayLike,
) -> NDArray[np.float64]:
    """Rated IT power a fleet is provisioned for (rack limits, facility capacity) [W].

    Installed accelerators at their rated power, every node's host at its rated power, and each rack's overhead;
    an empty accelerator slot of a partly filled node draws nothing.

    Examples
    --------
    A GB-style rack: 72 accelerators x 1,400 W + 18 trays x 600 W + 10 kW overhead = 121,600 W.

    >>> float(provisioned_it_power_w(72, 18, 1, 1400.0, 600.0, 10_000.0))
    121600.0
    """
    return (
        np.asarray(accelerators, float) * np.asarray(accelerator_rated_w, float)
        + np.asarray(nodes, float) * np.asarray(host_rated_w_per_node, float)
        + np.asarray(racks, float) * np.asarray(rack_overhead_w, float)
    )


def facility_power_kw(it_power_w: ArrayLike, pue: ArrayLike) -> NDArray[np.float64]:
    """Facility power: IT power times PUE [kW].

    Examples
    --------
    >>> float(facility_power_kw(100_000.0, 1.2))
    120.0
    """
    return np.asarray(it_power_w, float) * np.asarray(pue, float) / W_PER_KW


def rack_power_kw(
    it_power_kw: ArrayLike, peak_it_power_kw: ArrayLike, hours_per_day: ArrayLike, racks: int
) -> tuple[float, float]:
    """IT power per rack over the demand day, mean and peak, to set beside the rack power limit [kW, kW].

    The mean is the day's hour-weighted mean IT power over the racks, ``sum_j P_j h_j / (sum_j h_j x racks)``: times
    the racks (and 24 h and PUE) it is the day's wall energy. The peak is the largest peak IT power of any demand point
    over the racks, ``max_j peak_j / racks``, what a rack's feed must hold; it is at least the mean, since each point's
    peak is at least its mean. Both are IT power (accelerators, hosts and rack overheads), not wall power: the rack
    limit (``facility.rack_power_limit_kw``) bounds what a rack draws, and cooling is outside the rack.

    Parameters
    ----------
    it_power_kw, peak_it_power_kw
        The fleet's mean and peak IT power at each demand point [kW].
    hours_per_day
        Each demand point's hours [h/day].
    racks
        Racks of the fleet, at least 1 [-].

    Examples
    --------
    >>> rack_power_kw([60.0, 120.0], [90.0, 150.0], [12.0, 12.0], 2)
    (45.0, 75.0)
    """
    hours = np.asarray(hours_per_day, float)
    mean_kw = float(np.dot(np.asarray(it_power_kw, float), hours) / hours.sum())
    return mean_kw / racks, float(np.max(np.asarray(peak_it_power_kw, float))) / racks
