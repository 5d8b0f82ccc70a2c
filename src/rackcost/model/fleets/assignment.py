"""The cheapest assignment of request classes to systems, from each (system, class subset)'s cost (docs/model.md,
A mix of hardware).

Each system serves the classes assigned to it with one fleet of its own; a fleet's day cost and accepted requests
depend only on its system and on the subset of classes it serves. Given those figures for every (system, subset)
cell (``inf`` cost where the system cannot serve the subset within the SLO), the mix's cost per accepted request is

    R(x) = sum_s C[s, X_s] / sum_s A[s, X_s]

over the assignments ``x`` (each class to one system; ``X_s`` the classes of system ``s``, a system with none
holding no fleet). The numerator and denominator are sums over the blocks of a set partition, so for a fixed
``lambda`` the least ``sum_s (C - lambda A)[s, X_s]`` is found exactly by dynamic programming over class subsets
(:func:`least_partition`: systems in turn, each taking any subset of the classes not yet taken, ``O(S 3^K)``), and
the least *ratio* by Dinkelbach's method (W. Dinkelbach, "On Nonlinear Fractional Programming", Management Science
13(7), 1967): ``lambda`` set to the ratio of the last partition found, until no partition has ``C - lambda A`` below
zero. Every step strictly lowers ``lambda`` and there are finitely many partitions, so it ends, at the least ratio.

:func:`brute_force_assignment` tries all ``S^K`` assignments: the oracle the tests hold the search to.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Assignment", "brute_force_assignment", "cheapest_assignment", "least_partition"]

_MAX_ROUNDS = 1000  # Dinkelbach ends in a few rounds; the cap only guards against a float cycle
_RELATIVE_TOLERANCE = 1e-12  # C - lambda A within this share of C counts as zero (no partition is cheaper)


@dataclass(frozen=True)
class Assignment:
    """The classes each system serves, and what the mix costs.

    Attributes
    ----------
    system_of_class
        Index of the system serving each class [-].
    usd_per_day, accepted_per_day
        The mix's totals over its fleets [USD/day, requests/day].
    """

    system_of_class: tuple[int, ...]
    usd_per_day: float
    accepted_per_day: float

    @property
    def usd_per_accepted(self) -> float:
        """The mix's cost per accepted request [USD]."""
        return self.usd_per_day / self.accepted_per_day

    def subset_of(self, system: int) -> int:
        """The bit mask of the classes ``system`` serves (bit ``k`` for class ``k``) [-]."""
        return sum(1 << k for k, s in enumerate(self.system_of_class) if s == system)


def _cells(cost: ArrayLike, accepted: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """The cell tables as float arrays of shape (systems, 2^K), and K; checked."""
    c = np.asarray(cost, dtype=float)
    a = np.asarray(accepted, dtype=float)
    if c.ndim != 2 or c.shape != a.shape or c.shape[0] < 1 or c.shape[1] < 2:
        raise ValueError(f"cost and accepted must be (systems, 2^classes) tables alike, got {c.shape} and {a.shape}")
    k = int(c.shape[1]).bit_length() - 1
    if 1 << k != c.shape[1]:
        raise ValueError(f"a table has one column per class subset, 2^classes, got {c.shape[1]}")
    if np.isnan(c).any() or np.isnan(a).any() or (c < 0).any() or (a < 0).any() or np.isinf(a).any():
        raise ValueError("costs and accepted requests must be numbers at least 0 (an infeasible cell costs inf)")
    return c, a, k


def _value(c: NDArray[np.float64], a: NDArray[np.float64], system_of_class: tuple[int, ...]) -> tuple[float, float]:
    """Total cost and accepted requests of an assignment; the empty subset of a system costs nothing."""
    usd, acc = 0.0, 0.0
    for s in range(c.shape[0]):
        mask = sum(1 << k for k, owner in enumerate(system_of_class) if owner == s)
        if mask:
            usd += float(c[s, mask])
            acc += float(a[s, mask])
    return usd, acc


def least_partition(weight: ArrayLike) -> tuple[float, tuple[int, ...]]:
    """The assignment of classes to systems of least total weight, each system's classes one block.

    Parameters
    ----------
    weight
        Weight of each (system, class subset) cell, shape (systems, 2^K); bit ``k`` of a column is class ``k``;
        ``inf`` where the system cannot take the subset. Column 0 (no classes) is ignored: it weighs nothing.

    Returns
    -------
    (float, tuple of int)
        The least total weight (``inf`` when no assignment is feasible), and the system of each class.

    Examples
    --------
    Two systems, two classes: system 0 is cheap for class 0, system 1 for class 1; serving both on one system
    costs more than the split:

    >>> least_partition([[0, 1, 5, 7], [0, 5, 1, 7]])
    (2.0, (0, 1))
    """
    w = np.asarray(weight, dtype=float)
    n_systems, n_subsets = w.shape
    full = n_subsets - 1
    # best[m]: least weight of assigning exactly the classes of mask m to the systems considered so far
    best = np.full(n_subsets, math.inf)
    best[0] = 0.0
    choice: list[NDArray[np.int64]] = []
    for s in range(n_systems):
        new = best.copy()
        took = np.zeros(n_subsets, dtype=np.int64)
        for mask in range(1, n_subsets):
            sub = mask
            while sub:  # every nonempty subset of mask as system s's block
                value = best[mask ^ sub] + w[s, sub]
                if value < new[mask]:
                    new[mask], took[mask] = value, sub
                sub = (sub - 1) & mask
        best = new
        choice.append(took)
    if not math.isfinite(best[full]):
        return math.inf, ()
    owner = [0] * full.bit_length()
    mask = full
    for s in range(n_systems - 1, -1, -1):
        sub = int(choice[s][mask])
        for k in range(len(owner)):
            if sub >> k & 1:
                owner[k] = s
        mask ^= sub
    return float(best[full]), tuple(owner)


def cheapest_assignment(cost: ArrayLike, accepted: ArrayLike) -> Assignment | None:
    """The assignment of classes to systems of least cost per accepted request (Dinkelbach over
    :func:`least_partition`; see the module).

    Parameters
    ----------
    cost
        Day cost of each (system, class subset) cell, shape (systems, 2^K); ``inf`` where the system cannot serve
        the subset within the SLO [USD/day].
    accepted
        Accepted requests of each cell, the same shape [requests/day].

    Returns
    -------
    Assignment or None
        None when no assignment serves every class, or every feasible one accepts nothing.
    """
    c, a, _ = _cells(cost, accepted)
    start = _start(c, a)
    if start is None:
        return None
    x = start
    for _ in range(_MAX_ROUNDS):
        ratio = x.usd_per_accepted
        with np.errstate(invalid="ignore"):  # inf - ratio x 0 stays inf; an infeasible cell is never taken
            weight = np.where(np.isfinite(c), c - ratio * a, math.inf)
        least, owner = least_partition(weight)
        usd, acc = _value(c, a, owner)
        if least >= -_RELATIVE_TOLERANCE * x.usd_per_day or acc <= 0.0 or usd / acc >= ratio:
            return x
        x = Assignment(owner, usd, acc)
    return x


def _start(c: NDArray[np.float64], a: NDArray[np.float64]) -> Assignment | None:
    """A feasible assignment that accepts requests, to start from: the least total cost's."""
    least, owner = least_partition(np.where(np.isfinite(c), c, math.inf))
    if not math.isfinite(least):
        return None
    usd, acc = _value(c, a, owner)
    if acc > 0.0:
        return Assignment(owner, usd, acc)
    # every least-cost assignment accepts nothing: any that accepts something will do (brute force, tiny cases)
    found = brute_force_assignment(c, a)
    return found


def brute_force_assignment(cost: ArrayLike, accepted: ArrayLike) -> Assignment | None:
    """Every one of the ``S^K`` assignments tried: the least cost per accepted request (the test oracle of
    :func:`cheapest_assignment`; ties go to the first in ``itertools.product`` order).

    Returns
    -------
    Assignment or None
        As :func:`cheapest_assignment`.
    """
    c, a, k = _cells(cost, accepted)
    found: Assignment | None = None
    for owner in itertools.product(range(c.shape[0]), repeat=k):
        usd, acc = _value(c, a, owner)
        if not math.isfinite(usd) or acc <= 0.0:
            continue
        if found is None or usd / acc < found.usd_per_accepted:
            found = Assignment(tuple(owner), usd, acc)
    return found
