"""Result tables: the numbers of the chain as DataFrames whose column names carry their units.

Column names are listed, with units, in ``docs/glossary.md``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from rackcost.chain import SystemOutcome
    from rackcost.schema import Scenario

__all__ = ["Result", "point_columns", "system_rows"]

SECONDS_PER_HOUR = 3600.0


@dataclass
class Result:
    """What :func:`rackcost.evaluate` returns.

    Attributes
    ----------
    scenario_name
        Name of the scenario evaluated.
    points
        One row per system and demand point.
    systems
        One row per system: chosen operating point, fleet, capital, blended cost.
    comparison
        Each system against the baseline: the vendor's headline ratio beside the modelled ratios.
    warnings
        Comparability warnings and named outcomes (overload, rack limits), one sentence each.
    """

    scenario_name: str
    points: pd.DataFrame
    systems: pd.DataFrame
    comparison: pd.DataFrame
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dictionary with keys ``scenario``, ``points``, ``systems``, ``comparison``, ``warnings``."""
        return {
            "scenario": self.scenario_name,
            "points": _records(self.points),
            "systems": _records(self.systems),
            "comparison": _records(self.comparison),
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text of :meth:`to_dict` (no NaN or infinity: the chain never produces them)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    rows = []
    for row in frame.to_dict(orient="records"):
        clean = {}
        for key, value in row.items():
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"result column {key!r} is not finite ({value}); this is a bug in rackcost")
            clean[key] = value
        rows.append(clean)
    return rows


def point_columns(scenario: Scenario, outcomes: list[SystemOutcome]) -> dict[str, np.ndarray]:
    """Columns of the ``points`` table (one row per system and demand point) as arrays."""
    osl = scenario.workload.output_tokens_per_request
    frames = []
    for o in outcomes:
        d = o.demand
        n = len(scenario.demand)
        total = o.capital_usd_per_hour + o.fixed_opex_usd_per_hour + o.energy_usd_per_hour
        accepted_per_hour = d.accepted_rps * SECONDS_PER_HOUR
        output_tps = d.accepted_rps * osl
        system = next(s for s in scenario.systems if s.name == o.inputs.name)
        frames.append(
            dict(
                {
                    "system": np.full(n, o.inputs.name, dtype=object),
                    "demand_point": np.array([p.name for p in scenario.demand], dtype=object),
                    "hours_per_day": [p.hours_per_day for p in scenario.demand],
                    "status": np.where(d.overloaded, "overloaded: admission control rejects the excess", "ok").astype(
                        object
                    ),
                    "offered_rps": d.offered_rps,
                    "admitted_rps": d.admitted_rps,
                    "accepted_rps": d.accepted_rps,
                    "rejected_rps": d.rejected_rps,
                    "rejected_fraction": d.rejected_fraction,
                    "useful_output_tokens_per_s": output_tps,
                    "utilization_fraction": d.utilization_fraction,
                    "active_replicas": d.active_replicas,
                    "provisioned_replicas": np.full(n, o.provisioned_replicas),
                    "racks": np.full(n, o.racks),
                    "capacity_at_slo_rps": d.capacity_at_slo_rps,
                    "spare_capacity_fraction": d.spare_capacity_fraction,
                    "ttft_p99_ms": float(o.point.ttft_ms[0]) + d.wait_p99_ms,
                    "it_power_kw": o.it_power_kw,
                    "facility_power_kw": o.facility_power_kw,
                    "energy_usd_per_hour": o.energy_usd_per_hour,
                    "capital_usd_per_hour": np.full(n, o.capital_usd_per_hour),
                    "fixed_opex_usd_per_hour": np.full(n, o.fixed_opex_usd_per_hour),
                    "total_usd_per_hour": total,
                    "usd_per_accepted_request": total / accepted_per_hour,
                    "usd_per_million_accepted_output_tokens": total / (output_tps * SECONDS_PER_HOUR) * 1e6,
                    "output_tokens_per_kwh": output_tps * SECONDS_PER_HOUR / o.facility_power_kw,
                    "provenance": np.full(n, system.provenance.provenance_class.value, dtype=object),
                }
            )
        )
    return {key: np.concatenate([f[key] for f in frames]) for key in frames[0]}


def system_rows(scenario: Scenario, outcomes: list[SystemOutcome], sizing_demand_point: str) -> list[dict[str, Any]]:
    """One row per system: chosen operating point, fleet, provisioned power, capital and blended cost."""
    rows = []
    hours = np.array([d.hours_per_day for d in scenario.demand])
    for o in outcomes:
        total_per_hour = o.capital_usd_per_hour + o.fixed_opex_usd_per_hour + o.energy_usd_per_hour
        cost_per_day = float(np.sum(total_per_hour * hours))
        accepted_per_day = float(np.sum(o.demand.accepted_rps * hours)) * SECONDS_PER_HOUR
        output_per_day = accepted_per_day * scenario.workload.output_tokens_per_request
        energy_kwh_per_day = float(np.sum(o.facility_power_kw * hours))
        system = next(s for s in scenario.systems if s.name == o.inputs.name)
        pt = o.point
        rows.append(
            {
                "system": o.inputs.name,
                "provenance": system.provenance.provenance_class.value,
                "source": system.provenance.source,
                "concurrency": float(pt.concurrency[0]),
                "tpot_ms": float(pt.tpot_ms[0]),
                "interactivity_tokens_per_s": 1000.0 / float(pt.tpot_ms[0]),
                "ttft_ms": float(pt.ttft_ms[0]),
                "total_tokens_per_s_per_replica": float(pt.total_tokens_per_s[0]),
                "output_tokens_per_s_per_replica": float(pt.output_tokens_per_s[0]),
                "requests_per_s_per_replica": float(pt.request_rps[0]),
                "service_s": float(pt.service_s[0]),
                "queueing_budget_ms": o.budget_s * 1000.0,
                "busy_power_w_per_accelerator": o.busy_w,
                "sizing_demand_point": sizing_demand_point,
                "slo_replicas": o.slo_replicas,
                "provisioned_replicas": o.provisioned_replicas,
                "accelerators": o.provisioned_replicas * o.inputs.accelerators_per_replica,
                "nodes": o.nodes,
                "racks": o.racks,
                "provisioned_it_kw": o.provisioned_it_kw,
                "capex_usd": o.capex_usd,
                "capital_usd_per_hour": o.capital_usd_per_hour,
                "fixed_opex_usd_per_hour": o.fixed_opex_usd_per_hour,
                "headline_tokens_per_s_per_kw": o.inputs.headline_tokens_per_s_per_kw,
                "headline_power_basis": o.inputs.headline_power_basis,
                "slo_point_total_tokens_per_facility_kwh": o.slo_point_total_tokens_per_facility_kwh,
                "accepted_requests_per_day": accepted_per_day,
                "facility_energy_kwh_per_day": energy_kwh_per_day,
                "usd_per_day": cost_per_day,
                "blended_usd_per_accepted_request": cost_per_day / accepted_per_day,
                "blended_usd_per_million_accepted_output_tokens": cost_per_day / output_per_day * 1e6,
            }
        )
    return rows
