"""Result tables: the numbers of the chain as records, and as DataFrames whose column names carry their units.

Column names are listed, with units, in ``docs/glossary.md``. The tables are held as plain records and turned
into pandas DataFrames only when asked for, so that the command line does not pay for importing pandas.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from rackcost.chain import SystemOutcome
    from rackcost.schema import Scenario

__all__ = ["Result", "TABLES", "point_rows", "records_to_csv", "system_rows"]

SECONDS_PER_HOUR = 3600.0
TABLES = ("points", "systems", "comparison")


@dataclass
class Result:
    """What :func:`rackcost.evaluate` returns.

    Attributes
    ----------
    scenario_name
        Name of the scenario evaluated.
    records
        The three tables as lists of plain dicts: ``points``, ``systems``, ``comparison``.
    warnings
        Comparability warnings and named outcomes (overload, rack limits), one sentence each.
    points
        One row per system and demand point (DataFrame).
    systems
        One row per system: chosen operating point, fleet, capital, blended cost (DataFrame).
    comparison
        Each system against the baseline: the vendor's headline ratio beside the modelled ratios (DataFrame).
    """

    scenario_name: str
    records: dict[str, list[dict[str, Any]]]
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        for table, rows in self.records.items():
            for row in rows:
                for key, value in row.items():
                    if isinstance(value, float) and not math.isfinite(value):
                        raise ValueError(f"{table}.{key} is not finite ({value}); this is a bug in rackcost")

    def _frame(self, table: str) -> pd.DataFrame:
        import pandas as pd

        from rackcost.compare import COMPARISON_COLUMNS

        columns = COMPARISON_COLUMNS if table == "comparison" else None
        return pd.DataFrame(self.records[table], columns=columns)

    @cached_property
    def points(self) -> pd.DataFrame:
        """One row per system and demand point."""
        return self._frame("points")

    @cached_property
    def systems(self) -> pd.DataFrame:
        """One row per system."""
        return self._frame("systems")

    @cached_property
    def comparison(self) -> pd.DataFrame:
        """Each system against the baseline."""
        return self._frame("comparison")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dictionary with keys ``scenario``, ``points``, ``systems``, ``comparison``, ``warnings``."""
        return {"scenario": self.scenario_name, **self.records, "warnings": list(self.warnings)}

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text of :meth:`to_dict` (no NaN or infinity: the chain never produces them)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_csv(self, table: str = "points") -> str:
        """CSV text of one table (``points``, ``systems`` or ``comparison``)."""
        return records_to_csv(self.records[table])


def records_to_csv(rows: list[dict[str, Any]]) -> str:
    """CSV text of a list of records, the first record's keys as the header ('' for no records)."""
    out = io.StringIO()
    if rows:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return out.getvalue()


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def point_rows(scenario: Scenario, outcomes: list[SystemOutcome]) -> list[dict[str, Any]]:
    """Rows of the ``points`` table: one per system and demand point."""
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
    rows = []
    for frame in frames:
        lists = {key: np.asarray(values).tolist() for key, values in frame.items()}
        rows.extend(dict(zip(lists, values, strict=True)) for values in zip(*lists.values(), strict=True))
    return rows


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
                "headline_is_vendor_claim": o.inputs.headline_is_claim,
                "slo_point_total_tokens_per_facility_kwh": o.slo_point_total_tokens_per_facility_kwh,
                "accepted_requests_per_day": accepted_per_day,
                "facility_energy_kwh_per_day": energy_kwh_per_day,
                "usd_per_day": cost_per_day,
                "blended_usd_per_accepted_request": cost_per_day / accepted_per_day,
                "blended_usd_per_million_accepted_output_tokens": cost_per_day / output_per_day * 1e6,
            }
        )
    return [{key: _plain(value) for key, value in row.items()} for row in rows]
