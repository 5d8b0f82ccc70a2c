"""The figures a reader compares, derived in one place from a fleet's outcome (docs/model.md, 8. Cost).

Total cost per hour, cost per accepted request and per million accepted output tokens, output tokens per facility
kWh, p99 TTFT with queueing, and the day's blended figures (demand points weighted by their hours). Both
:func:`rackcost.evaluate` (one sample) and the Monte Carlo (many) take their columns from :func:`derive`, so the
two cannot drift apart.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.model.costs.api import ApiOutcome
from rackcost.model.outcomes import FleetOutcome, Metrics
from rackcost.model.workload.classes import ClassMix
from rackcost.units import GRAMS_PER_KG, SECONDS_PER_HOUR, TOKENS_PER_MILLION

__all__ = ["accepted_tokens_per_request", "derive", "derive_api", "per_accepted"]

Array = NDArray[np.float64]


def derive(
    fleet: FleetOutcome,
    point_ttft_ms: float,
    output_tokens: float,
    hours_per_day: Array,
    input_tokens: float = 0.0,
    classes: ClassMix | None = None,
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
    classes
        The request classes, or None. With them the tokens of an accepted request are the mean over the classes
        of the accepted ones (``DemandOutcome.class_miss_fraction``: a class that misses more is a smaller share
        of what is accepted), at each demand point, in place of ``output_tokens`` and ``input_tokens``.

    Examples
    --------
    The day's blended cost is the hour-weighted cost over the hour-weighted accepted requests:
    at $10/h serving 1 request/s for 6 h and $4/h serving 0.5 request/s for 18 h,
    (60 + 72) / ((6 + 9) x 3600) = $0.0024444 per request.

    >>> import numpy as np
    >>> from rackcost.model.fleets.demand import serve_demand
    >>> from rackcost.model.outcomes import FleetOutcome, Metrics
    >>> d = serve_demand([1.0, 0.5], 10, 1.0, 1.0, 10.0, 0.99)
    >>> one = np.ones((1, 1))
    >>> f = FleetOutcome(one, one, one, one, one, one, one, one, one, one, d, one, one, one, one, one,
    ...                  one, one, np.array([[8.0, 2.0]]), np.zeros((1, 2)), np.zeros((1, 2)), one)
    >>> m = derive(f, 100.0, 1000, np.array([6.0, 18.0]))
    >>> round(float(m.blended_usd_per_accepted_request[0]), 7)
    0.0024444
    """
    d = fleet.demand
    total = fleet.capital_usd_per_hour + fleet.fixed_opex_usd_per_hour + fleet.energy_usd_per_hour
    total = total + fleet.rent_usd_per_hour
    per_output: float | Array = output_tokens
    per_input: float | Array = input_tokens
    if classes is not None and d.class_miss_fraction is not None and not _one_shape(classes):
        per_output, per_input = accepted_tokens_per_request(classes, d.class_miss_fraction)
    output_tps = d.accepted_rps * per_output
    return Metrics(
        **_cost_figures(total, d.accepted_rps, per_output, hours_per_day, per_input),
        output_tokens_per_kwh=output_tps * SECONDS_PER_HOUR / fleet.facility_power_kw,
        ttft_p99_ms=(point_ttft_ms + d.wait_p99_ms) if d.ttft_p99_ms is None else d.ttft_p99_ms,
        facility_energy_kwh_per_day=_point_sum(fleet.facility_power_kw * hours_per_day),
        **carbon_figures(fleet.carbon_g_per_hour, d.accepted_rps, hours_per_day),
    )


def carbon_figures(carbon_g_per_hour: Array, accepted_rps: Array, hours_per_day: Array) -> dict[str, Array]:
    """Carbon per accepted request at each demand point, per day, and blended over the day.

    Examples
    --------
    39 kg/h while 10 requests/s are accepted for 6 h, and 13 kg/h at 2 requests/s for 18 h: 39,000 / 36,000 =
    1.0833 g a request, then 13,000 / 7,200 = 1.8056; the day emits 234 + 234 = 468 kg over 216,000 + 129,600
    requests, 1.3542 g each.

    >>> c = carbon_figures(np.array([[39000.0, 13000.0]]), np.array([[10.0, 2.0]]), np.array([6.0, 18.0]))
    >>> c["carbon_g_per_accepted_request"].round(4).tolist(), c["carbon_kg_per_day"].tolist()
    ([[1.0833, 1.8056]], [468.0])
    >>> round(float(c["blended_carbon_g_per_accepted_request"][0]), 4)
    1.3542
    """
    carbon = np.asarray(carbon_g_per_hour, dtype=float)
    grams_per_day = _point_sum(carbon * hours_per_day)
    accepted_per_day = _point_sum(accepted_rps * hours_per_day) * SECONDS_PER_HOUR
    return {
        "carbon_g_per_accepted_request": per_accepted(carbon, accepted_rps * SECONDS_PER_HOUR),
        "carbon_kg_per_day": grams_per_day / GRAMS_PER_KG,
        "blended_carbon_g_per_accepted_request": per_accepted(grams_per_day, accepted_per_day),
    }


def _point_sum(values: Array) -> Array:
    """``values.sum(axis=-1)``, bit for bit, column by column where the last axis (the demand points) is short.

    numpy sums fewer than 8 values along a contiguous last axis as ``((0 + v0) + v1) + ...`` (its pairwise sum
    starts at 8), but as a reduction along the inner axis: 0.68 ms for 25,000 samples of 3 points on this machine,
    against 0.22 ms for the same additions column by column (a Monte Carlo block sums three such arrays per
    system). Elsewhere (8 points or more, another layout) numpy's own sum.

    Examples
    --------
    >>> v = np.array([[0.1, 0.2, 0.3], [1e16, 1.0, -1e16]])
    >>> bool((_point_sum(v) == v.sum(axis=-1)).all())
    True
    """
    points = values.shape[-1] if values.ndim >= 2 else 0
    if not 0 < points < 8 or not values.flags.c_contiguous:
        return np.asarray(values.sum(axis=-1), dtype=float)
    out = 0.0 + values[..., 0]  # (0 + v0: numpy's first step, which makes a -0.0 alone 0.0)
    for j in range(1, points):
        out += values[..., j]
    return out


def _one_shape(classes: ClassMix) -> bool:
    """Whether every class has the same mean input and output: an accepted request then has those tokens, whichever
    class it is, and the figures are the single shape's (bit for bit)."""
    return bool(np.all(classes.input_tokens == classes.input_tokens[0])) and bool(
        np.all(classes.output_tokens == classes.output_tokens[0])
    )


def accepted_tokens_per_request(classes: ClassMix, class_miss_fraction: Array) -> tuple[Array, Array]:
    """Mean output and input tokens of an accepted request of the class mix, at each demand point [tokens].

    Class ``k`` is ``p_k (1 - miss_k)`` of the admitted requests that are accepted; where none is accepted, the
    offered mix's means.

    Examples
    --------
    Two classes in equal shares, of 100 and 300 output tokens: when the second accepts half its requests, an
    accepted request has (100 + 0.5 x 300) / 1.5 = 166.7 output tokens.

    >>> from dataclasses import replace
    >>> from rackcost.model.workload.classes import _example_mix
    >>> mix = replace(_example_mix(), output_tokens=np.array([100.0, 300.0]))
    >>> out, _ = accepted_tokens_per_request(mix, np.array([[[0.0, 0.5]]]))
    >>> out.round(4).tolist()
    [[166.6667]]
    """
    weight = classes.share_fraction * (1.0 - np.asarray(class_miss_fraction, dtype=float))
    accepted = weight.sum(axis=-1)
    some = accepted > 0
    safe = np.where(some, accepted, 1.0)

    def mean(tokens: Array, fallback: float) -> Array:
        return np.asarray(np.where(some, (weight * tokens).sum(axis=-1) / safe, fallback), dtype=float)

    return (
        mean(classes.output_tokens, classes.mean_output_tokens),
        mean(classes.input_tokens, classes.mean_input_tokens),
    )


def _cost_figures(
    total: Array,
    accepted_rps: Array,
    output_tokens: float | Array,
    hours_per_day: Array,
    input_tokens: float | Array,
) -> dict[str, Array]:
    """The cost figures every system has, whatever it runs on: per hour, per request and token, and blended.

    ``output_tokens`` and ``input_tokens`` are per accepted request: one number, or one per demand point (request
    classes, :func:`accepted_tokens_per_request`), whose day sums the hour-weighted tokens of each point.
    """
    output_tps = accepted_rps * output_tokens
    usd_per_day = _point_sum(total * hours_per_day)
    no_input = bool((np.asarray(input_tokens) <= 0).all())  # (tested once, by the array's own all)

    def per_input(cost: Array, requests: Array) -> Array:
        """Cost per million input tokens of ``requests`` (0 without input tokens) [USD/M tokens]."""
        if no_input:
            return np.zeros_like(cost)
        return per_accepted(cost, requests * input_tokens) * TOKENS_PER_MILLION

    accepted_per_day = _point_sum(accepted_rps * hours_per_day) * SECONDS_PER_HOUR

    def per_day(tokens: float | Array) -> Array:
        """Tokens of the day's accepted requests, ``tokens`` per request [tokens]."""
        if not isinstance(tokens, np.ndarray) or tokens.ndim == 0:  # (np.ndim's test, without its dispatch)
            return accepted_per_day * tokens
        return (accepted_rps * tokens * hours_per_day).sum(axis=-1) * SECONDS_PER_HOUR

    day_input = per_day(input_tokens)
    return {
        "total_usd_per_hour": total,
        "usd_per_accepted_request": per_accepted(total, accepted_rps * SECONDS_PER_HOUR),
        "usd_per_million_accepted_output_tokens": per_accepted(total, output_tps * SECONDS_PER_HOUR)
        * TOKENS_PER_MILLION,
        "usd_per_million_accepted_input_tokens": per_input(total, accepted_rps * SECONDS_PER_HOUR),
        "usd_per_million_accepted_total_tokens": per_accepted(
            total, accepted_rps * (input_tokens + output_tokens) * SECONDS_PER_HOUR
        )
        * TOKENS_PER_MILLION,
        "useful_output_tokens_per_s": output_tps,
        "usd_per_day": usd_per_day,
        "accepted_requests_per_day": accepted_per_day,
        "blended_usd_per_accepted_request": per_accepted(usd_per_day, accepted_per_day),
        "blended_usd_per_million_accepted_output_tokens": per_accepted(usd_per_day, per_day(output_tokens))
        * TOKENS_PER_MILLION,
        "blended_usd_per_million_accepted_input_tokens": np.zeros_like(usd_per_day)
        if no_input
        else per_accepted(usd_per_day, day_input) * TOKENS_PER_MILLION,
        "blended_usd_per_million_accepted_total_tokens": per_accepted(
            usd_per_day, per_day(np.add(input_tokens, output_tokens))
        )
        * TOKENS_PER_MILLION,
    }


def per_accepted(cost: ArrayLike, amount: ArrayLike) -> Array:
    """``cost / amount``, NaN where nothing was accepted (``amount`` 0): a cost per accepted request or token that is
    undefined, which every table shows as null (JSON), an empty cell (CSV) or ``-``
    (:func:`rackcost.evaluation.columns.undefined_as_none`), never an infinity.

    Examples
    --------
    >>> per_accepted([10.0, 10.0], [2.0, 0.0]).tolist()
    [5.0, nan]
    """
    c, a = np.asarray(cost, dtype=float), np.asarray(amount, dtype=float)
    if c.shape != a.shape:  # (np.broadcast_arrays only where needed: it costs more than the division on a few cells)
        c, a = np.broadcast_arrays(c, a)
    out = np.empty(c.shape)  # (np.full's own steps, without its dispatch)
    out.fill(np.nan)
    return np.divide(c, a, out=out, where=a > 0)


def derive_api(out: ApiOutcome, output_tokens: float, hours_per_day: Array, input_tokens: float = 0.0) -> Metrics:
    """The derived figures of an API system: the same definitions as :func:`derive`, with the API's cost per hour.

    Figures an API does not have (p99 TTFT, output tokens per facility kWh, facility energy, carbon: an API
    publishes none of its power) are 0 here; the tables show them as not applicable.
    """
    total = out.api_usd_per_hour
    figures = _cost_figures(total, out.accepted_rps, output_tokens, hours_per_day, input_tokens)
    return Metrics(
        **figures,
        output_tokens_per_kwh=np.zeros_like(total),
        ttft_p99_ms=np.zeros_like(total),
        facility_energy_kwh_per_day=np.zeros_like(figures["usd_per_day"]),
        carbon_g_per_accepted_request=np.zeros_like(total),
        carbon_kg_per_day=np.zeros_like(figures["usd_per_day"]),
        blended_carbon_g_per_accepted_request=np.zeros_like(figures["usd_per_day"]),
    )
