"""Scenarios larger than a chart shows (issue 19, item 5): many systems, many demand points.

Both are made from the bundled default scenario (two systems, three demand points, uncertain inputs), as
``benchmarks/bench_report.py`` makes them, so that a test and the benchmark speak of the same scenarios.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

import rackcost


def default_data() -> dict[str, Any]:
    """Plain data of the bundled default scenario."""
    return yaml.safe_load(rackcost.bundled_scenario_path().read_text(encoding="utf-8"))


def many_systems_data(n: int, template: int = 1) -> dict[str, Any]:
    """The default scenario with ``n`` systems: copies of system ``template`` named ``<name> #k``, each with its own
    capex (1% dearer per copy, so that they are ranked) and the template's figures' sources."""
    data = default_data()
    systems, figures = data["systems"], data.get("figures") or {}
    prefix = f"systems[{template}]"
    own = {k[len(prefix) :]: v for k, v in figures.items() if k.startswith(prefix)}
    for k in range(len(systems), n):
        copied = copy.deepcopy(systems[template])
        copied["name"] = f"{systems[template]['name']} #{k}"
        costs = copied["costs"]
        capex = costs["capex_usd_per_accelerator"]
        if isinstance(capex, dict):  # a distribution: scale its location, not its spread
            costs["capex_usd_per_accelerator"] = {
                key: value * (1 + 0.01 * k) if key in ("median", "low", "mode", "high", "mean") else value
                for key, value in capex.items()
            }
        else:
            costs["capex_usd_per_accelerator"] = capex * (1 + 0.01 * k)
        systems.append(copied)
        figures.update({f"systems[{k}]{rest}": v for rest, v in own.items()})
    return data


def many_points_data(n: int) -> dict[str, Any]:
    """The default scenario with ``n`` demand points from 5% to 100% of its peak rate, equal hours."""
    data = default_data()
    peak = max(d["arrival_rps"] for d in data["demand"])
    data["demand"] = [
        {"name": f"point {i + 1}", "arrival_rps": peak * (0.05 + 0.95 * i / max(n - 1, 1)), "hours_per_day": 24 / n}
        for i in range(n)
    ]
    data["figures"] = {k: v for k, v in (data.get("figures") or {}).items() if not k.startswith("demand")}
    data.get("fleet", {}).pop("sizing_demand_point", None)
    return data


def many_systems(n: int) -> rackcost.Scenario:
    """:func:`many_systems_data` as a validated scenario."""
    return rackcost.scenario_from_dict(many_systems_data(n), f"{n}-systems")


def many_points(n: int) -> rackcost.Scenario:
    """:func:`many_points_data` as a validated scenario."""
    return rackcost.scenario_from_dict(many_points_data(n), f"{n}-points")
