"""An API system (docs/model.md, 8. Cost: payment models): a price per million tokens, no fleet of one's own.

The provider accepts what it is offered, up to its rate limit when one is stated; there is no queueing model of
its own (its latency is the provider's, not modelled). The cost of a request is its tokens at the prices:
``(ISL x ((1 - f) p_in + f p_cached) + OSL x p_out) / 10^6`` with ``f`` the share of input tokens served from the
prompt cache. Pure functions over numpy arrays with a leading sample axis, like the fleet's steps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

__all__ = ["ApiOutcome", "api_usd_per_request", "serve_api"]


def api_usd_per_request(
    input_tokens: ArrayLike,
    output_tokens: ArrayLike,
    usd_per_million_input_tokens: ArrayLike,
    usd_per_million_output_tokens: ArrayLike,
    usd_per_million_cached_input_tokens: ArrayLike = 0.0,
    cached_input_fraction: ArrayLike = 0.0,
) -> NDArray[np.float64]:
    """What one request costs through an API [USD/request].

    Examples
    --------
    8,192 tokens in at $0.55/M and 1,024 out at $2.19/M: 0.0045056 + 0.00224256 = $0.00674816.

    >>> round(float(api_usd_per_request(8192, 1024, 0.55, 2.19)), 8)
    0.00674816
    """
    f = np.asarray(cached_input_fraction, dtype=float)
    input_price = (1.0 - f) * np.asarray(usd_per_million_input_tokens, dtype=float) + f * np.asarray(
        usd_per_million_cached_input_tokens, dtype=float
    )
    return (
        np.asarray(input_tokens, dtype=float) * input_price
        + np.asarray(output_tokens, dtype=float) * np.asarray(usd_per_million_output_tokens, dtype=float)
    ) / TOKENS_PER_MILLION


@dataclass(frozen=True)
class ApiOutcome:
    """An API system at each demand point (arrays ``(n, points)``).

    Attributes
    ----------
    offered_rps, accepted_rps, rejected_rps
        Arrivals; accepted (up to the rate limit); refused above it [requests/s].
    api_usd_per_hour
        Tokens of the accepted requests at the prices [USD/h].
    """

    offered_rps: NDArray[np.float64]
    accepted_rps: NDArray[np.float64]
    rejected_rps: NDArray[np.float64]
    api_usd_per_hour: NDArray[np.float64]


def serve_api(offered_rps: ArrayLike, usd_per_request: ArrayLike, rate_limit_rps: float | None = None) -> ApiOutcome:
    """Serve each demand point through an API: everything up to the rate limit is accepted and paid for.

    Examples
    --------
    >>> out = serve_api([[1.0, 10.0]], 0.005, rate_limit_rps=4.0)
    >>> out.accepted_rps.tolist(), out.api_usd_per_hour.tolist()
    ([[1.0, 4.0]], [[18.0, 72.0]])
    """
    offered = np.atleast_2d(np.asarray(offered_rps, dtype=float))
    accepted = offered if rate_limit_rps is None else np.minimum(offered, rate_limit_rps)
    return ApiOutcome(
        offered_rps=offered,
        accepted_rps=accepted,
        rejected_rps=offered - accepted,
        api_usd_per_hour=accepted * SECONDS_PER_HOUR * np.asarray(usd_per_request, dtype=float),
    )
