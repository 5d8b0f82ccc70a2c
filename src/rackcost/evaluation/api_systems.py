"""The API systems of a scenario: their inputs read, the demand served and the derived figures (payment model api).

An API system has no plan and no fleet: :func:`run_api_samples` is its whole chain, for ``n`` samples at once, used
by the tables (``n = 1``) and the Monte Carlo alike.
"""

from __future__ import annotations

import numpy as np

from rackcost.model.costs.api import serve_api
from rackcost.model.costs.metrics import derive_api
from rackcost.model.outcomes import ApiSystemOutcome
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import Samples, api_inputs

__all__ = ["run_api_samples"]


def run_api_samples(scenario: Scenario, values: Samples, n: int) -> list[ApiSystemOutcome]:
    """Every API system of the scenario for ``n`` samples: its index, what it serves and its derived figures."""
    hours = np.array([d.hours_per_day for d in scenario.demand])
    osl = scenario.workload.output_tokens_per_request
    isl = float(scenario.workload.input_tokens_per_request)
    out = []
    for index, system in enumerate(scenario.systems):
        if system.api is None:
            continue
        offered, price, limit, per_class = api_inputs(scenario, index, values, n)
        served = serve_api(offered, price, limit)
        out.append(ApiSystemOutcome(index, served, derive_api(served, osl, hours, isl), per_class))
    return out
