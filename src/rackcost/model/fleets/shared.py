"""Several models on one pool of racks: packing their nodes together, and who pays for the racks (docs/model.md,
Several models, one fleet).

Replicas are never shared across models (each model's replicas serve only its requests); a node (tray, server)
belongs to one model. What is shared is the rack: its slots, its power limit and its rack-level costs (rack capex,
rack overhead power, operations per rack, colocation and build on the overhead's rated power). Two rules split the
shared racks' cost among the models on them: ``reservation`` by the node slots each model holds (one system type has
one node, so this is also its share of the nodes' rated power), ``usage`` by the energy each model's own nodes use.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["ATTRIBUTION_RULES", "DEFAULT_RULE", "AttributionRule", "attributed_usd", "shared_racks"]

AttributionRule = Literal["reservation", "usage"]
ATTRIBUTION_RULES: tuple[AttributionRule, ...] = ("reservation", "usage")
"""The rules that split shared rack costs: by node slots held, or by the energy the model's nodes use."""
DEFAULT_RULE: AttributionRule = "reservation"
"""Reservation: racks are bought for the nodes provisioned, used or not, so who holds the slots caused the cost."""


def shared_racks(nodes: ArrayLike, nodes_per_rack_effective: ArrayLike) -> NDArray[np.int64]:
    """Racks that hold every model's nodes of one system type together: ``ceil(sum(nodes) / nodes per rack)``.

    ``nodes_per_rack_effective`` is the rack's slot count, or fewer where the rack power limit binds on rated power
    (:func:`rackcost.model.fleets.sizing.nodes_per_rack_allowed`); it is the same for every model, whose nodes are
    the same hardware. Never more than the models' racks apart, ``sum(ceil(nodes / per rack))``.

    Parameters
    ----------
    nodes
        Nodes of each model, last axis the models [-].
    nodes_per_rack_effective
        Nodes one rack holds [-], at least 1.

    Returns
    -------
    ndarray of int
        Racks [-].

    Examples
    --------
    >>> int(shared_racks([10, 10], 18)), int(shared_racks([18, 1], 18))
    (2, 2)
    """
    total = np.sum(np.asarray(nodes, dtype=np.int64), axis=-1)
    per_rack = np.asarray(nodes_per_rack_effective, dtype=np.int64)
    if np.any(per_rack < 1):
        raise ValueError("nodes_per_rack_effective must be at least 1")
    return -(-total // per_rack)


def attributed_usd(direct_usd: ArrayLike, shared_usd: float, weights: ArrayLike) -> NDArray[np.float64]:
    """Each model's cost: its own (direct) cost plus its share of the shared cost, shares in proportion to weights.

    ``direct_i + shared * w_i / sum(w)``; the attributed costs add up to ``sum(direct) + shared``. Where every
    weight is zero (no model used anything) the shared cost is split equally.

    Parameters
    ----------
    direct_usd
        Each model's own cost [USD].
    shared_usd
        The shared cost [USD].
    weights
        Each model's node slots (reservation) or energy (usage), non-negative [-].

    Examples
    --------
    >>> [float(x) for x in attributed_usd([10.0, 20.0], 30.0, [1.0, 2.0])]
    [20.0, 40.0]
    """
    direct = np.asarray(direct_usd, float)
    w = np.asarray(weights, float)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("attribution weights must be finite and non-negative")
    total = float(np.sum(w))
    share = w / total if total > 0 else np.full(w.shape, 1.0 / w.size)
    return direct + float(shared_usd) * share
