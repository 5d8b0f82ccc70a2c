"""The ``classes`` table: each request class at each demand point of each system (docs/model.md, Request classes), and
the revenue of a mix of classes.

Only a scenario with ``workload.classes`` has it. A class is admitted as every class is (admission control does not
look at the class), accepted when its wait is within its own budget, and bears the share of the fleet's cost that
its slot time is (:func:`rackcost.model.workload.classes.cost_share_fraction`); an API system's class pays its own
tokens."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from rackcost.evaluation.columns import column_names, in_order
from rackcost.model.outcomes import ApiSystemOutcome, SystemOutcome
from rackcost.model.queues.erlang import broadcast_to_few
from rackcost.model.workload.classes import ClassMix, class_budgets_s, class_ttft_ms, cost_share_fraction, service_split
from rackcost.units import MS_PER_S, SECONDS_PER_HOUR, TOKENS_PER_MILLION

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario

__all__ = ["class_revenue", "class_rows"]


def class_rows(
    scenario: Scenario, mix: ClassMix, outcomes: list[SystemOutcome], apis: list[ApiSystemOutcome]
) -> list[dict[str, Any]]:
    """Rows of the ``classes`` table: one per system, demand point and class, in the scenario's order of systems,
    then of demand points, then of classes."""
    names = column_names("classes", revenue=False)
    assert names[: len(_KEYS)] == _KEYS  # each row starts with them, in the registry's order
    by_name = {o.inputs.name: o for o in outcomes}
    by_index = {a.index: a for a in apis}
    rows: list[dict[str, Any]] = []
    for index, system in enumerate(scenario.systems):
        if system.api is not None:
            columns = _api_columns(mix, by_index[index])
        else:
            columns = _fleet_columns(mix, by_name[system.name])
        # each column as one flat list of plain values, point by point and class by class (indexing a numpy array
        # figure by figure costs more than the rows), checked against the registry once; each row zipped from them
        shape = (len(scenario.demand), len(mix))
        ordered = in_order(dict.fromkeys((*_KEYS, *columns)), names)
        keys = [
            [system.name] * (shape[0] * shape[1]),
            [point.name for point in scenario.demand for _ in mix.names],
            list(mix.names) * shape[0],
        ]
        plain = _plain_columns([columns[key] for key in tuple(ordered)[len(_KEYS) :]], shape)
        rows.extend(dict(zip(ordered, row, strict=True)) for row in zip(*keys, *plain, strict=True))
    return rows


def _plain_columns(values: list[Any], shape: tuple[int, int]) -> list[list[Any]]:
    """Columns of :func:`_fleet_columns` or :func:`_api_columns` as flat lists of plain Python values (each as
    :func:`_plain` makes it: None where a figure is not finite); the float columns in one array, turned into Python
    floats at once."""
    arrays = [np.asarray(v) for v in values]
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    block = np.empty((len(floats), *shape))
    for row, i in enumerate(floats):
        block[row] = arrays[i]
    plain = block.astype(object)  # Python floats
    plain[~np.isfinite(block)] = None
    out: list[list[Any]] = [[] for _ in arrays]
    for row, flat in zip(floats, plain.reshape(len(floats), -1).tolist(), strict=True):
        out[row] = flat
    for i, a in enumerate(arrays):
        if a.dtype.kind != "f":
            out[i] = [_plain(v) for v in broadcast_to_few(a, shape).ravel().tolist()]
    return out


_KEYS = ("system", "demand_point", "class")
"""The columns that name a row of the ``classes`` table, its first."""


def _common(mix: ClassMix, offered: np.ndarray, admitted: np.ndarray, accepted: np.ndarray) -> dict[str, Any]:
    """The columns every system has, ``(points, K)`` each."""
    shape = accepted.shape
    offered_k = offered[:, None] * mix.share_fraction
    rejected = offered_k - accepted
    with np.errstate(invalid="ignore", divide="ignore"):  # a class of share 0 offers nothing: None in the table
        rejected_fraction = rejected / offered_k
    return {
        "share_fraction": broadcast_to_few(mix.share_fraction, shape),
        "input_tokens": broadcast_to_few(mix.input_tokens, shape),
        "output_tokens": broadcast_to_few(mix.output_tokens, shape),
        "prefix_hit_fraction": broadcast_to_few(mix.prefix_hit_fraction, shape),
        "offered_rps": offered_k,
        "admitted_rps": admitted[:, None] * mix.share_fraction,
        "accepted_rps": accepted,
        "rejected_rps": rejected,
        "rejected_fraction": rejected_fraction,
    }


def _costs(mix: ClassMix, total_usd_per_hour: np.ndarray, accepted: np.ndarray) -> dict[str, Any]:
    """A class's cost per hour and per accepted request and output token, ``(points, K)`` each."""
    with np.errstate(invalid="ignore", divide="ignore"):  # a class of share 0 accepts nothing: None in the table
        per_accepted = total_usd_per_hour / (accepted * SECONDS_PER_HOUR)
    return {
        "total_usd_per_hour": total_usd_per_hour,
        "usd_per_accepted_request": per_accepted,
        "usd_per_million_accepted_output_tokens": per_accepted / mix.output_tokens * TOKENS_PER_MILLION,
    }


def _fleet_columns(mix: ClassMix, o: SystemOutcome) -> dict[str, Any]:
    """A hardware system's class columns at each point, ``(points, K)`` each."""
    d = o.demand
    assert d.class_miss_fraction is not None and d.class_ttft_p99_ms is not None  # run with the mix's SLO
    assert d.ttft_ms is not None and d.tpot_ms is not None and d.tpot_p99_ms is not None
    accepted = d.admitted_rps[:, None] * mix.share_fraction * (1.0 - d.class_miss_fraction)
    share = cost_share_fraction(mix, d.ttft_ms, d.tpot_ms)
    total = o.metrics.total_usd_per_hour[0][:, None] * share
    shape = accepted.shape
    return {
        **_common(mix, d.offered_rps, d.admitted_rps, accepted),
        "service_s": d.service_s[:, None] * service_split(mix, d.ttft_ms, d.tpot_ms),
        "slot_time_fraction": share,
        "ttft_ms": class_ttft_ms(mix, d.ttft_ms),
        "queueing_budget_ms": class_budgets_s(mix, d.ttft_ms, d.tpot_ms) * MS_PER_S,
        "ttft_p99_ms": d.class_ttft_p99_ms,
        "tpot_p99_ms": broadcast_to_few(d.tpot_p99_ms[:, None], shape),
        **_costs(mix, total, accepted),
    }


def _api_columns(mix: ClassMix, api: ApiSystemOutcome) -> dict[str, Any]:
    """An API system's class columns: every class accepted alike up to the rate limit, each paying its own tokens;
    no fleet, so no service time or latency (None)."""
    served = api.served
    assert api.class_usd_per_request is not None  # api_inputs prices each class when there are classes
    offered, accepted = served.offered_rps[0], served.accepted_rps[0]
    accepted_k = accepted[:, None] * mix.share_fraction
    total = accepted_k * SECONDS_PER_HOUR * api.class_usd_per_request[0]
    none = np.full(accepted_k.shape, None, dtype=object)
    with np.errstate(invalid="ignore", divide="ignore"):
        spent = total / np.sum(total, axis=1, keepdims=True)
    return {
        **_common(mix, offered, accepted, accepted_k),
        "service_s": none,
        "slot_time_fraction": np.where(np.isfinite(spent), spent, mix.share_fraction),
        "ttft_ms": none,
        "queueing_budget_ms": none,
        "ttft_p99_ms": none,
        "tpot_p99_ms": none,
        **_costs(mix, total, accepted_k),
    }


def _plain(value: Any) -> Any:
    """A plain Python value; None for a figure that is not finite (a class that accepts nothing has no cost per
    accepted request)."""
    if type(value) is float:  # nearly every figure (the columns come as lists): math, not numpy, on one float
        return value if math.isfinite(value) else None
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and not math.isfinite(value) else value


def class_revenue(scenario: Scenario, classes: list[dict[str, Any]]) -> dict[tuple[str, str], float]:
    """Revenue of a mix of classes: each class's accepted requests at its own tokens and the ``revenue`` prices,
    written into its rows (``revenue_usd_per_hour``, the registry's order kept), and their sum per (system, demand
    point), which the points table takes in place of the one-shape figure [USD/h]."""
    r = scenario.revenue
    assert r is not None
    by_point: dict[tuple[str, str], float] = {}
    names = column_names("classes", revenue=True)
    for i, row in enumerate(classes):
        per_request = (
            row["input_tokens"] * r.usd_per_million_input_tokens
            + row["output_tokens"] * r.usd_per_million_output_tokens
        ) / TOKENS_PER_MILLION
        revenue = row["accepted_rps"] * SECONDS_PER_HOUR * per_request
        classes[i] = in_order(row | {"revenue_usd_per_hour": revenue}, names)
        key = (row["system"], row["demand_point"])
        by_point[key] = by_point.get(key, 0.0) + revenue
    return by_point
