"""Replicas that scale with a delay over a profile's ramp (docs/model.md, "Autoscaling with a delay").

Under ``park`` a point's replicas appear the instant its rate needs them. A serving stack that starts a replica
must first load its weights (minutes for 100s of GB), and holds a replica for a while after its load falls before
stopping it. On a grid of equal steps over the profile (each hour's sub-hour windows, cut finer):

- ``needed[t]``: the replicas ``park`` would run at step ``t``'s rate (the smallest count whose capacity at SLO
  carries it, and the utilisation ceiling), at most the fleet;
- ``requested[t] = max(max(needed[s], min_replicas) for s in [t - down, t])``: a replica is stopped only after
  ``scale_down_delay_s`` of not being needed, and never below ``min_replicas``;
- ``available[t] = min(requested[s] for s in [t - up, t])``: a replica serves only once it has been requested for
  ``scale_up_delay_s`` without a break (the ``k``-th replica serves at ``t`` iff ``requested >= k`` throughout;
  a replica stopped in between loads again from the start);
- ``warming[t] = requested[t] - available[t]``: started and loading; they draw warm-up power and do not serve.

Delays are whole steps (rounded up). Requests beyond the capacity at SLO of the available replicas are lost to the
ramp: ``lost[t] = max(0, min(rate[t], capacity[needed[t]]) - capacity[available[t]])`` (only what ``park`` would
have carried: the fleet's own shortfall is ``park``'s too). With zero delays every figure is ``park``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike, NDArray

from rackcost.units import SECONDS_PER_HOUR

__all__ = ["MAX_STEP_S", "ScaledReplicas", "delay_steps", "scale_replicas", "step_grid"]

Array = NDArray[np.float64]

MAX_STEP_S = 60.0
"""The longest step of the scaling grid: each hour's windows are cut into steps of at most a minute [s]."""


def step_grid(hourly_rps: ArrayLike, window_ratios: ArrayLike | None = None) -> tuple[Array, float]:
    """The rate of every step of the scaling grid and the step's length: each hour's windows (its rate times the
    window's ratio; one window of the hour's rate without ratios) each cut into equal steps of at most
    :data:`MAX_STEP_S` [requests/s, s]."""
    rates = np.asarray(hourly_rps, dtype=float).reshape(-1)
    ratios = np.ones((rates.size, 1)) if window_ratios is None else np.asarray(window_ratios, dtype=float)
    windows = ratios.shape[1]
    window_s = SECONDS_PER_HOUR / windows
    per_window = max(1, math.ceil(window_s / MAX_STEP_S - 1e-9))
    steps = np.repeat(rates[:, None] * ratios, per_window, axis=1).reshape(-1)
    return steps, window_s / per_window


def delay_steps(delay_s: float, step_s: float) -> int:
    """A delay as whole steps of the grid, rounded up (a delay of a step and a bit waits two steps) [-]."""
    return max(0, math.ceil(delay_s / step_s - 1e-9))


def _rolling(values: NDArray[np.int64], steps: int, largest: bool) -> NDArray[np.int64]:
    """The largest (or smallest) of ``values`` over each step and the ``steps`` before it; before the first step
    the first value holds (the fleet starts settled at its first step's count)."""
    if steps <= 0:
        return values
    padded = np.concatenate([np.full(steps, values[0]), values])
    view = sliding_window_view(padded, steps + 1)
    return view.max(axis=1) if largest else view.min(axis=1)


@dataclass(frozen=True)
class ScaledReplicas:
    """The replicas of every step of the grid under a scaling policy (all ``(steps,)``).

    Attributes
    ----------
    needed
        What ``park`` would run at the step's rate, at most the fleet [-].
    requested
        Started or serving: the needed count held for the scale-down delay [-].
    available
        Serving: requested for the scale-up delay without a break [-].
    warming
        Started and still loading: ``requested - available`` [-].
    lost_rps
        Arrivals ``park`` would carry that the available replicas cannot, at SLO [requests/s].
    """

    needed: NDArray[np.int64]
    requested: NDArray[np.int64]
    available: NDArray[np.int64]
    warming: NDArray[np.int64]
    lost_rps: Array

    @property
    def idle_headroom(self) -> NDArray[np.int64]:
        """Serving replicas beyond the needed ones: up and idle, held by the scale-down delay or the minimum [-]."""
        return np.maximum(self.available - self.needed, 0)


def scale_replicas(
    step_rps: ArrayLike,
    capacity_rps: ArrayLike,
    ceiling_replicas: ArrayLike,
    min_replicas: int,
    up_steps: int,
    down_steps: int,
) -> ScaledReplicas:
    """The replicas of every step under a scaling policy, and the arrivals the scale-up delay loses.

    Parameters
    ----------
    step_rps
        Arrival rate of each step of the grid (:func:`step_grid`) [requests/s].
    capacity_rps
        Capacity at SLO of ``n`` serving replicas for ``n = 0 .. fleet``, non-decreasing, ``capacity_rps[0] = 0``
        (the fleet is ``len(capacity_rps) - 1`` replicas) [requests/s].
    ceiling_replicas
        The replicas each step needs to stay within the utilisation ceiling (the ``park`` rule's floor), scalar or
        per step [-].
    min_replicas
        Replicas kept up at all times (at most the fleet) [-].
    up_steps, down_steps
        Scale-up and scale-down delays in steps (:func:`delay_steps`) [-].

    Returns
    -------
    ScaledReplicas

    Examples
    --------
    A step from 2 to 4 replicas' capacity (1 request/s each) with a scale-up delay of 3 steps loses the rise for
    3 steps:

    >>> r = scale_replicas([2, 2, 4, 4, 4, 4, 4], [0, 1, 2, 3, 4], 0, 0, 3, 0)
    >>> r.available.tolist(), r.lost_rps.tolist()
    ([2, 2, 2, 2, 2, 4, 4], [0.0, 0.0, 2.0, 2.0, 2.0, 0.0, 0.0])
    """
    rate = np.asarray(step_rps, dtype=float).reshape(-1)
    capacity = np.asarray(capacity_rps, dtype=float).reshape(-1)
    fleet = capacity.size - 1
    # the smallest count whose capacity carries the rate (a rate above the fleet's: the fleet, as park)
    by_capacity = np.searchsorted(capacity, rate * (1.0 - 1e-12), side="left")
    floor = np.broadcast_to(np.asarray(ceiling_replicas, dtype=np.int64), rate.shape)
    needed = np.clip(np.maximum(by_capacity, floor), 0, fleet).astype(np.int64)
    requested = _rolling(np.maximum(needed, min(min_replicas, fleet)), down_steps, largest=True)
    available = _rolling(requested, up_steps, largest=False)
    carried = np.minimum(rate, capacity[needed])
    lost = np.maximum(carried - capacity[available], 0.0)
    return ScaledReplicas(needed, requested, available, requested - available, lost)
