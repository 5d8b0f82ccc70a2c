"""The simulator as the referee of a buying plan: sampled hours of the plan, each source's fleet simulated at the
load the plan gives it, beside the analytic accepted share (``rackcost plan --check-hours``).

The hours are spread over the horizon's demand: the ``n`` hours at the ``(i + 0.5) / n`` quantiles of the hourly
rates (ties to the earliest hour), so the check sees quiet nights and the last year's peak alike, and is the same on
every run. In each hour every hardware source that carries load is simulated as its own fleet (its units held that
hour, at the rate the plan gives it; :func:`rackcost.simulate`); an API source accepts what it carries (within its
rate limit), as in the model. The hour's accepted share is the load-weighted mean over its sources, its 95%
half-width the root sum of squares of the weighted half-widths (the sources' simulations are independent).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rackcost.analysis.referee import simulate
from rackcost.evaluation.planning import PlanResult

__all__ = ["check_hours", "sampled_hours"]


def sampled_hours(hourly_rps: np.ndarray, n: int) -> list[int]:
    """The ``n`` hours at the ``(i + 0.5) / n`` quantiles of the hourly rates, in time order.

    Examples
    --------
    >>> sampled_hours(np.array([5.0, 1.0, 3.0, 2.0, 4.0]), 2)
    [3, 4]
    """
    order = np.argsort(hourly_rps, kind="stable")
    picks = order[((np.arange(n) + 0.5) / n * order.size).astype(int)]
    return sorted(int(h) for h in dict.fromkeys(picks.tolist()))


def check_hours(
    result: PlanResult, hours: int = 10, requests: int = 100_000, replications: int = 4, seed: int = 0
) -> list[dict[str, Any]]:
    """Simulate ``hours`` sampled hours of a plan: one row per hour, analytic beside simulated accepted share.

    Parameters
    ----------
    result
        A plan (:func:`rackcost.plan`).
    hours
        Hours sampled (:func:`sampled_hours`) [-].
    requests, replications, seed
        Per source and hour, as :func:`rackcost.simulate` takes them.

    Returns
    -------
    list of dict
        ``hour``, ``offered_rps``, ``analytic_accepted_fraction``, ``simulated_accepted_fraction``, its
        ``simulated_accepted_fraction_ci95_halfwidth``, ``difference_points`` (simulated minus analytic, in
        percentage points) and ``sources`` (per source: units, load and both shares).
    """
    r = result.realised
    rows = []
    for h in sampled_hours(result.hourly_rps, hours):
        offered = float(result.hourly_rps[h])
        analytic, simulated, variance, parts = 0.0, 0.0, 0.0, []
        for i, f in enumerate(result.sources):
            load = float(r.served_rps[i, h])
            if load <= 0:
                continue
            a_share = float(r.accepted_rps[i, h]) / load
            if not f.source.kind.has_fleet:
                s_share, half = a_share, 0.0
            else:
                fleet = f.scenario(int(r.units[i, h]), [load])
                row = simulate(fleet, demand_point="p0", requests=requests, replications=replications, seed=seed + h)[0]
                s_share = float(row["simulated_accepted_fraction"])
                half = float(row["simulated_accepted_fraction_ci95_halfwidth"])
            weight = load / offered
            analytic += weight * a_share
            simulated += weight * s_share
            variance += (weight * half) ** 2
            parts.append(
                {
                    "source": f.source.name,
                    "units": float(r.units[i, h]),
                    "load_rps": load,
                    "analytic_accepted_fraction": a_share,
                    "simulated_accepted_fraction": s_share,
                }
            )
        rows.append(
            {
                "hour": h,
                "offered_rps": offered,
                "analytic_accepted_fraction": analytic,
                "simulated_accepted_fraction": simulated,
                "simulated_accepted_fraction_ci95_halfwidth": math.sqrt(variance),
                "difference_points": 100.0 * (simulated - analytic),
                "sources": parts,
            }
        )
    return rows
