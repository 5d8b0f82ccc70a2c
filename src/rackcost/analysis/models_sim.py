"""The simulator serves several models on one fleet (docs/model.md, Several models, one fleet).

Each model's replicas serve only that model's requests (replicas are never shared across models; the racks are),
so the fleet's mix is served by simulating each model's fleet as rackcost sized it (:func:`rackcost.simulate` on the
model's scenario, on the system it runs on) and weighting each demand point by its offered requests of the day.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from rackcost.analysis.referee import simulate
from rackcost.evaluation.models import ModelsResult

__all__ = ["simulate_models"]


def simulate_models(result: ModelsResult, requests: int = 40_000, replications: int = 2, seed: int = 0) -> pd.DataFrame:
    """Each model's accepted share of the day, as the model says and as the simulator serves it.

    Parameters
    ----------
    result
        :func:`rackcost.evaluation.models.evaluate_models`'s result.
    requests, replications, seed
        Per model and demand point: simulated requests, independent replications, seed (:func:`rackcost.simulate`).

    Returns
    -------
    DataFrame
        One row per model: ``model``, ``system``, ``analytic_accepted_fraction``, ``simulated_accepted_fraction``,
        ``difference_points`` (simulated - analytic, in percentage points) and ``simulated_ci95_halfwidth`` (the
        day's, from the points' half-widths as if independent).
    """
    rows: list[dict[str, Any]] = []
    for m in result.fleet_models:
        scenario = m.evaluation.scenario
        sim = simulate(scenario, system=m.system, requests=requests, replications=replications, seed=seed)
        by_point = {r["demand_point"]: r for r in sim}
        hours = {d.name: d.hours_per_day for d in scenario.demand}
        weight = np.array([by_point[p]["offered_rps"] * hours[p] for p in by_point])
        analytic = np.array([by_point[p]["analytic_accepted_fraction"] for p in by_point])
        simulated = np.array([by_point[p]["simulated_accepted_fraction"] for p in by_point])
        half = np.array([by_point[p]["simulated_accepted_fraction_ci95_halfwidth"] for p in by_point])
        share = weight / weight.sum()
        a, s = float(share @ analytic), float(share @ simulated)
        rows.append(
            {
                "model": m.name,
                "system": m.system,
                "analytic_accepted_fraction": a,
                "simulated_accepted_fraction": s,
                "difference_points": 100.0 * (s - a),
                "simulated_ci95_halfwidth": float(np.sqrt(np.sum((share * half) ** 2))),
            }
        )
    return pd.DataFrame(rows)
