"""The figures a reader compares, derived in one place from a fleet's outcome (DESIGN.md step 8, last part).

Total cost per hour, cost per accepted request and per million accepted output tokens, output tokens per facility
kWh, p99 TTFT with queueing, and the day's blended figures (demand points weighted by their hours). Both
:func:`rackcost.evaluate` (one sample) and the Monte Carlo (many) take their columns from :func:`derive`, so the
two cannot drift apart.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rackcost.model.api import ApiOutcome
from rackcost.model.outcomes import FleetOutcome, Metrics
from rackcost.units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

__all__ = ["derive", "derive_api"]

Array = NDArray[np.float64]


def derive(
    fleet: FleetOutcome, point_ttft_ms: float, output_tokens: float, hours_per_day: Array, input_tokens: float = 0.0
) -> Metrics:
    """The derived figures of a fleet's outcome (see :class:`rackcost.model.outcomes.Metrics`).

    Parameters
    ----------
    fleet
        Steps 5 to 8 for ``n`` samples.
    point_ttft_ms
        TTFT at the chosen operating point, before queueing [ms].
    output_tokens, input_tokens
        Output and input tokens per request, OSL and ISL [tokens]; without an ISL the per-input-token figures are
        0.
    hours_per_day
        Hours of each demand point [h].

    Examples
    --------
    The day's blended cost is the hour-weighted cost over the hour-weighted accepted requests:
    at $10/h serving 1 request/s for 6 h and $4/h serving 0.5 request/s for 18 h,
    (60 + 72) / ((6 + 9) x 3600) = $0.0024444 per request.

    >>> import numpy as np
    >>> from rackcost.model.demand import serve_demand
    >>> from rackcost.model.outcomes import FleetOutcome, Metrics
    >>> d = serve_demand([1.0, 0.5], 10, 1.0, 1.0, 10.0, 0.99)
    >>> one = np.ones((1, 1))
    >>> f = FleetOutcome(one, one, one, one, one, one, one, one, one, one, d, one, one, one, one, one,
    ...                  one, one, np.array([[8.0, 2.0]]), np.zeros((1, 2)), one)
    >>> m = derive(f, 100.0, 1000, np.array([6.0, 18.0]))
    >>> round(float(m.blended_usd_per_accepted_request[0]), 7)
    0.0024444
    """
    d = fleet.demand
    total = fleet.capital_usd_per_hour + fleet.fixed_opex_usd_per_hour + fleet.energy_usd_per_hour
    total = total + fleet.rent_usd_per_hour
    output_tps = d.accepted_rps * output_tokens
    return Metrics(
        **_cost_figures(total, d.accepted_rps, output_tokens, hours_per_day, input_tokens),
        output_tokens_per_kwh=output_tps * SECONDS_PER_HOUR / fleet.facility_power_kw,
        ttft_p99_ms=(point_ttft_ms + d.wait_p99_ms) if d.ttft_p99_ms is None else d.ttft_p99_ms,
        facility_energy_kwh_per_day=(fleet.facility_power_kw * hours_per_day).sum(axis=-1),
    )


def _cost_figures(
    total: Array, accepted_rps: Array, output_tokens: float, hours_per_day: Array, input_tokens: float
) -> dict[str, Array]:
    """The cost figures every system has, whatever it runs on: per hour, per request and token, and blended."""
    output_tps = accepted_rps * output_tokens
    usd_per_day = (total * hours_per_day).sum(axis=-1)

    def per_input(cost: Array, requests: Array) -> Array:
        """Cost per million input tokens of ``requests`` (0 without input tokens) [USD/M tokens]."""
        if input_tokens <= 0:
            return np.zeros_like(cost)
        return cost / (requests * input_tokens) * TOKENS_PER_MILLION

    accepted_per_day = (accepted_rps * hours_per_day).sum(axis=-1) * SECONDS_PER_HOUR
    return {
        "total_usd_per_hour": total,
        "usd_per_accepted_request": total / (accepted_rps * SECONDS_PER_HOUR),
        "usd_per_million_accepted_output_tokens": total / (output_tps * SECONDS_PER_HOUR) * TOKENS_PER_MILLION,
        "usd_per_million_accepted_input_tokens": per_input(total, accepted_rps * SECONDS_PER_HOUR),
        "usd_per_million_accepted_total_tokens": total
        / (accepted_rps * (input_tokens + output_tokens) * SECONDS_PER_HOUR)
        * TOKENS_PER_MILLION,
        "useful_output_tokens_per_s": output_tps,
        "usd_per_day": usd_per_day,
        "accepted_requests_per_day": accepted_per_day,
        "blended_usd_per_accepted_request": usd_per_day / accepted_per_day,
        "blended_usd_per_million_accepted_output_tokens": usd_per_day
        / (accepted_per_day * output_tokens)
        * TOKENS_PER_MILLION,
        "blended_usd_per_million_accepted_input_tokens": per_input(usd_per_day, accepted_per_day),
        "blended_usd_per_million_accepted_total_tokens": usd_per_day
        / (accepted_per_day * (input_tokens + output_tokens))
        * TOKENS_PER_MILLION,
    }


def derive_api(out: ApiOutcome, output_tokens: float, hours_per_day: Array, input_tokens: float = 0.0) -> Metrics:
    """The derived figures of an API system: the same definitions as :func:`derive`, with the API's cost per hour.

    Figures an API does not have (p99 TTFT, output tokens per facility kWh, facility energy) are 0 here; the
    tables show them as not applicable.
    """
    total = out.api_usd_per_hour
    figures = _cost_figures(total, out.accepted_rps, output_tokens, hours_per_day, input_tokens)
    return Metrics(
        **figures,
        output_tokens_per_kwh=np.zeros_like(total),
        ttft_p99_ms=np.zeros_like(total),
        facility_energy_kwh_per_day=np.zeros_like(figures["usd_per_day"]),
    )
