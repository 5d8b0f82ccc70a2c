"""The probability that one system costs less per accepted request than another, for any pair the buyer picks
(docs/uncertainty.md, "Monte Carlo"): not only against the baseline.

Read from the samples of one Monte Carlo run (:func:`rackcost.analysis.montecarlo.uncertainty`): both systems'
costs come from the same draws of every input, so a figure they share (the electricity price, the demand) moves
both in the same sample, as it would in the world.

- :func:`pair_rows`: the share of samples in which each system of each pair is cheaper, per demand point and blended.
- :func:`probability_cheaper`: one pair at one demand point (or blended), from a result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from rackcost.evaluation.columns import BLENDED

__all__ = ["every_pair", "pair_rows", "probability_cheaper"]

COST = "usd_per_accepted_request"
"""The points column compared at a demand point."""
BLENDED_COST = "blended_usd_per_accepted_request@system"
"""The per-system column compared over the day."""

Samples = Mapping[str, Mapping[str, NDArray[np.float64]]]


class _Sampled(Protocol):
    """What :func:`probability_cheaper` reads of a result (an ``UncertaintyResult``)."""

    samples: Any

    @property
    def points(self) -> tuple[str, ...]: ...


def every_pair(systems: Sequence[str]) -> list[tuple[str, str]]:
    """Every ordered pair of distinct systems, in the order given: ``(a, b)`` and ``(b, a)`` both (a tie is neither
    cheaper, so the two shares may add up to less than 1)."""
    return [(a, b) for a in systems for b in systems if a != b]


def pair_rows(
    samples: Samples, points: Sequence[str], pairs: Iterable[tuple[str, str]], per_point: bool = True
) -> list[dict[str, Any]]:
    """The share of samples in which ``system`` costs less per accepted request than ``other``, for each pair.

    Parameters
    ----------
    samples
        System -> column -> array, as ``UncertaintyResult.samples``.
    points
        The demand points' names, in the order of the points columns.
    pairs
        ``(system, other)`` pairs.
    per_point
        Each demand point and blended (True), or blended only.

    Returns
    -------
    list of dict
        ``system``, ``other``, ``demand_point`` (a point's name, or ``blended``), ``probability_fraction``. A sample
        where either cost is undefined (nothing accepted) counts as not cheaper.

    Examples
    --------
    >>> s = {"A": {COST: np.array([[1.0], [3.0]]), BLENDED_COST: np.array([1.0, 3.0])},
    ...      "B": {COST: np.array([[2.0], [2.0]]), BLENDED_COST: np.array([2.0, 2.0])}}
    >>> [r["probability_fraction"] for r in pair_rows(s, ["peak"], [("A", "B")])]
    [0.5, 0.5]
    """
    rows = []
    for system, other in pairs:
        mine, theirs = samples[system], samples[other]
        if per_point:
            cheaper = np.mean(mine[COST] < theirs[COST], axis=0)
            rows += [_row(system, other, point, share) for point, share in zip(points, cheaper, strict=True)]
        rows.append(_row(system, other, BLENDED, np.mean(mine[BLENDED_COST] < theirs[BLENDED_COST])))
    return rows


def _row(system: str, other: str, point: str, share: Any) -> dict[str, Any]:
    return {"system": system, "other": other, "demand_point": point, "probability_fraction": float(share)}


def probability_cheaper(result: _Sampled, system: str, other: str, demand_point: str = BLENDED) -> float:
    """The share of a Monte Carlo run's samples in which ``system`` costs less per accepted request than ``other``.

    Parameters
    ----------
    result
        What :func:`rackcost.uncertainty` returned.
    system, other
        Two systems of the run (the scenario's names).
    demand_point
        A demand point's name, or ``"blended"`` (over the day).

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        Naming the systems or demand points of the run, when one given is not among them, or the two are the same.
    """
    names = [name for name in result.samples if name != "inputs"]
    for given in (system, other):
        if given not in names:
            raise ValueError(f"probability_cheaper: {given!r} is not a system of this run; systems: {names}")
    if system == other:
        raise ValueError(f"probability_cheaper: needs two different systems, got {system!r} twice")
    if demand_point == BLENDED:
        return pair_rows(result.samples, result.points, [(system, other)], per_point=False)[0]["probability_fraction"]
    if demand_point not in result.points:
        raise ValueError(
            f"probability_cheaper: {demand_point!r} is not a demand point of this run; points: "
            f"{[*result.points, BLENDED]}"
        )
    j = result.points.index(demand_point)
    mine, theirs = result.samples[system][COST][:, j], result.samples[other][COST][:, j]
    return float(np.mean(mine < theirs))
