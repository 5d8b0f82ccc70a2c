"""The cheapest assignment of request classes to systems, from each (system, share of the classes)'s cost
(docs/model.md, A mix of hardware).

Each class's load is cut into ``n`` equal slices (``n = 1``: each class whole). Each system serves the slices
assigned to it with one fleet of its own, whose day cost and accepted requests depend only on the system and on how
many slices of each class it serves: a *cell*, indexed by the count vector ``v`` (``0 <= v_k <= n``) written in
base ``n + 1``, ``index(v) = sum_k v_k (n + 1)^k`` (for ``n = 1`` the bit mask of a subset of the classes). Given
every cell's figures (``inf`` cost where the system cannot serve it within the SLO), the mix's cost per accepted
request is

    R(x) = sum_s C[s, v_s] / sum_s A[s, v_s]

over the assignments ``x``, the count vectors ``v_s`` of the systems adding up to ``(n, ..., n)`` (a system with
none holds no fleet). For a fixed ``lambda`` the least ``sum_s (C - lambda A)[s, v_s]`` is found exactly by dynamic
programming over count vectors (:func:`least_partition`: systems in turn, each taking any part of what is not yet
taken; ``O(S 3^K)`` steps for whole classes), and the least *ratio* by Dinkelbach's method (W. Dinkelbach, "On
Nonlinear Fractional Programming", Management Science 13(7), 1967): ``lambda`` set to the ratio of the last
assignment found, until none has ``C - lambda A`` below zero. Every step strictly lowers ``lambda`` and there are
finitely many assignments, so it ends, at the least ratio.

:func:`brute_force_assignment` tries all ``S^(K n)`` assignments of the slices: the oracle the tests hold the search
to.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Assignment", "brute_force_assignment", "cell_counts", "cheapest_assignment", "least_partition"]

_MAX_ROUNDS = 1000  # Dinkelbach ends in a few rounds; the cap only guards against a float cycle
_RELATIVE_TOLERANCE = 1e-12  # C - lambda A within this share of C counts as zero (no assignment is cheaper)


@dataclass(frozen=True)
class Assignment:
    """The cell each system takes, and what the mix costs.

    Attributes
    ----------
    cells
        The cell (the index of its count vector) each system takes; 0: none [-].
    usd_per_day, accepted_per_day
        The mix's totals over its fleets [USD/day, requests/day].
    """

    cells: tuple[int, ...]
    usd_per_day: float
    accepted_per_day: float

    @property
    def usd_per_accepted(self) -> float:
        """The mix's cost per accepted request [USD]."""
        return self.usd_per_day / self.accepted_per_day


@lru_cache(maxsize=32)
def cell_counts(classes: int, slices: int = 1) -> NDArray[np.int64]:
    """The count vector of every cell: shape ((slices + 1)^classes, classes), row ``i`` the slices of each class
    cell ``i`` holds [-].

    Examples
    --------
    >>> cell_counts(2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    radix = slices + 1
    index = np.arange(radix**classes)
    counts = (index[:, None] // radix ** np.arange(classes)[None, :]) % radix
    counts.setflags(write=False)
    return counts


def _cells(cost: ArrayLike, accepted: ArrayLike, slices: int) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """The cell tables as float arrays of shape (systems, (slices + 1)^K), and K; checked."""
    c = np.asarray(cost, dtype=float)
    a = np.asarray(accepted, dtype=float)
    if slices < 1:
        raise ValueError(f"slices must be at least 1, got {slices}")
    if c.ndim != 2 or c.shape != a.shape or c.shape[0] < 1 or c.shape[1] < 2:
        raise ValueError(f"cost and accepted must be (systems, cells) tables alike, got {c.shape} and {a.shape}")
    k = round(math.log(c.shape[1], slices + 1))
    if (slices + 1) ** k != c.shape[1]:
        raise ValueError(f"a table has one column per cell, (slices + 1)^classes, got {c.shape[1]}")
    if np.isnan(c).any() or np.isnan(a).any() or (c < 0).any() or (a < 0).any() or np.isinf(a).any():
        raise ValueError("costs and accepted requests must be numbers at least 0 (an infeasible cell costs inf)")
    return c, a, k


def _value(c: NDArray[np.float64], a: NDArray[np.float64], cells: tuple[int, ...]) -> tuple[float, float]:
    """Total cost and accepted requests of an assignment; a system taking cell 0 costs nothing."""
    usd = math.fsum(float(c[s, m]) for s, m in enumerate(cells) if m)
    acc = math.fsum(float(a[s, m]) for s, m in enumerate(cells) if m)
    return usd, acc


def least_partition(weight: ArrayLike, slices: int = 1) -> tuple[float, tuple[int, ...]]:
    """The assignment of every slice to a system of least total weight, each system's slices one cell.

    Parameters
    ----------
    weight
        Weight of each (system, cell) pair, shape (systems, (slices + 1)^K) (:func:`cell_counts` gives each cell's
        count vector); ``inf`` where the system cannot take the cell. Column 0 (nothing) is ignored: it weighs
        nothing.
    slices
        Slices of each class [-].

    Returns
    -------
    (float, tuple of int)
        The least total weight (``inf`` when no assignment is feasible, then no cells), and each system's cell.

    Examples
    --------
    Two systems, two whole classes: system 0 is cheap for class 0 (cell 1), system 1 for class 1 (cell 2);
    serving both on one system (cell 3) costs more than the split:

    >>> least_partition([[0, 1, 5, 7], [0, 5, 1, 7]])
    (2.0, (1, 2))
    """
    w = np.asarray(weight, dtype=float)
    n_systems, n_cells = w.shape
    k = round(math.log(n_cells, slices + 1))
    counts = cell_counts(k, slices)
    # parts[m]: every cell that fits within cell m (count by count); its rest is m - part (no borrow in base n + 1)
    parts = [np.flatnonzero((counts <= counts[m]).all(axis=1)) for m in range(n_cells)]
    best = np.full(n_cells, math.inf)  # best[m]: least weight of assigning exactly cell m's slices so far
    best[0] = 0.0
    choice: list[NDArray[np.int64]] = []
    for s in range(n_systems):
        row = w[s].copy()
        row[0] = 0.0
        new = np.empty(n_cells)
        took = np.zeros(n_cells, dtype=np.int64)
        for m in range(n_cells):
            values = best[m - parts[m]] + row[parts[m]]
            j = int(np.argmin(values))
            new[m], took[m] = values[j], parts[m][j]
        best = new
        choice.append(took)
    full = n_cells - 1
    if not math.isfinite(best[full]):
        return math.inf, ()
    cells = [0] * n_systems
    m = full
    for s in range(n_systems - 1, -1, -1):
        cells[s] = int(choice[s][m])
        m -= cells[s]
    return float(best[full]), tuple(cells)


def cheapest_assignment(cost: ArrayLike, accepted: ArrayLike, slices: int = 1) -> Assignment | None:
    """The assignment of slices to systems of least cost per accepted request (Dinkelbach over
    :func:`least_partition`; see the module).

    Parameters
    ----------
    cost
        Day cost of each (system, cell) pair, shape (systems, (slices + 1)^K); ``inf`` where the system cannot
        serve the cell within the SLO [USD/day].
    accepted
        Accepted requests of each pair, the same shape [requests/day].
    slices
        Slices of each class's load (1: each class whole) [-].

    Returns
    -------
    Assignment or None
        None when no assignment serves every slice, or every feasible one accepts nothing.
    """
    c, a, _ = _cells(cost, accepted, slices)
    least, cells = least_partition(np.where(np.isfinite(c), c, math.inf), slices)  # start: the least total cost
    if not math.isfinite(least):
        return None
    x = Assignment(cells, *_value(c, a, cells))
    if x.accepted_per_day <= 0.0:  # every least-cost assignment accepts nothing: any that accepts will do
        return brute_force_assignment(c, a, slices)
    for _ in range(_MAX_ROUNDS):
        ratio = x.usd_per_accepted
        with np.errstate(invalid="ignore"):  # inf - ratio x 0 stays inf; an infeasible cell is never taken
            weight = np.where(np.isfinite(c), c - ratio * a, math.inf)
        least, cells = least_partition(weight, slices)
        usd, acc = _value(c, a, cells)
        if least >= -_RELATIVE_TOLERANCE * x.usd_per_day or acc <= 0.0 or usd / acc >= ratio:
            return x
        x = Assignment(cells, usd, acc)
    return x


def brute_force_assignment(cost: ArrayLike, accepted: ArrayLike, slices: int = 1) -> Assignment | None:
    """Every one of the ``S^(K slices)`` assignments of the slices tried: the least cost per accepted request (the
    test oracle of :func:`cheapest_assignment`; ties go to the first in ``itertools.product`` order).

    Returns
    -------
    Assignment or None
        As :func:`cheapest_assignment`.
    """
    c, a, k = _cells(cost, accepted, slices)
    n_systems = c.shape[0]
    place = [(slices + 1) ** (i // slices) for i in range(k * slices)]  # slice i is of class i // slices
    found: Assignment | None = None
    for owner in itertools.product(range(n_systems), repeat=k * slices):
        cells = [0] * n_systems
        for i, s in enumerate(owner):
            cells[s] += place[i]
        usd, acc = _value(c, a, tuple(cells))
        if not math.isfinite(usd) or acc <= 0.0:
            continue
        if found is None or usd / acc < found.usd_per_accepted:
            found = Assignment(tuple(cells), usd, acc)
    return found
