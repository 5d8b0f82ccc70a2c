"""Result tables: the numbers of the chain as records, and as DataFrames whose column names carry their units.

Column names are listed, with units, in ``docs/glossary.md``. The tables are held as plain records and turned
into pandas DataFrames only when asked for, so that the command line does not pay for importing pandas.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from rackcost.evaluation.burstiness_checks import at_real_traffic, at_scv, fragility_warnings, margin_warnings
from rackcost.evaluation.class_tables import class_revenue, class_rows
from rackcost.evaluation.columns import column_names, in_order, undefined_as_none
from rackcost.evaluation.compare import comparability_warnings, comparison_rows
from rackcost.evaluation.disaggregated import POOLS_TABLE, accelerators, pool_rows, pool_warnings
from rackcost.evaluation.sub_hour_notes import moved_share_warnings, sub_hour_warnings
from rackcost.files import csv_text
from rackcost.model.energy.power import PEAK_TO_MEAN_POWER, rack_power_kw
from rackcost.model.inputs import SloInputs
from rackcost.model.outcomes import ApiSystemOutcome, SystemOutcome
from rackcost.model.replica.memory import gib
from rackcost.model.replica.operating_point import slo_feasible
from rackcost.model.strategies import DEFAULT_ROUTING, Payment
from rackcost.units import DAYS_PER_YEAR, MS_PER_S, SECONDS_PER_HOUR, TOKENS_PER_MILLION, W_PER_KW

if TYPE_CHECKING:
    import pandas as pd

    from rackcost.scenario.schema import Scenario

__all__ = [
    "Result",
    "TABLES",
    "kv_cache_warning",
    "outcome_warnings",
    "point_rows",
    "result_tables",
    "system_rows",
]

TABLES = ("points", "systems", "comparison")
POINT_NAMES = column_names("points", revenue=False, rate_swing=False)
SYSTEM_NAMES = column_names("systems", revenue=False)
OVERLOADED_STATUS = "overloaded: admission control rejects the excess"
NO_CLASSES = "the scenario has no workload.classes, so no classes table (its one shape is the points table)"
NO_PROFILE = "the scenario's demand is named points, not a profile over years, so no years or horizon table"
KNIFE_EDGE_FRACTION = 0.01
"""A chosen point whose queueing budget is under this share of the TTFT limit sits on a knife edge: benchmark
run-to-run noise in TTFT is larger, so a warning says the choice depends on it [-]."""


@dataclass
class Result:
    """What :func:`rackcost.evaluate` returns.

    Attributes
    ----------
    scenario_name
        Name of the scenario evaluated.
    records
        The tables as lists of plain dicts: ``points``, ``systems``, ``comparison``, and ``classes`` for a
        scenario with ``workload.classes`` (only then).
    warnings
        Comparability warnings and named outcomes (overload, rack limits), one sentence each.
    routing
        The router the answer assumes (``fleet.routing``; :mod:`rackcost.model.queues.routing`).
    unserved
        The hardware systems left out because the scenario cannot serve with them, each
        ``{system, path, limit, reason}`` (``limit``: ``slo``, ``kv_cache`` or ``rack_power``; ``reason``: which
        limit, by how much); none of the tables has a row for them (:mod:`rackcost.evaluation.servable`).
    points
        One row per system and demand point (DataFrame).
    systems
        One row per system: chosen operating point, fleet, capital, blended cost (DataFrame).
    comparison
        Each system against the baseline: the vendor's headline ratio beside the modelled ratios (DataFrame).
    pools
        Each disaggregated system's prefill and decode pools at each demand point (DataFrame; ``records["pools"]``
        only in a scenario with one).
    classes
        With request classes: each class at each demand point of each system (DataFrame;
        :mod:`rackcost.evaluation.class_tables`).
    """

    scenario_name: str
    records: dict[str, list[dict[str, Any]]]
    warnings: list[str] = field(default_factory=list)
    routing: str = DEFAULT_ROUTING
    unserved: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for table, rows in self.records.items():
            for row in rows:
                # the sum of a row's floats is finite only where each is (a NaN or an infinity makes it NaN or
                # infinite): one sum of the row, each value looked at again only for a sum that is not (an overflow)
                if math.isfinite(sum([v for v in row.values() if isinstance(v, float)])):
                    continue
                for key, value in row.items():
                    if isinstance(value, float) and not math.isfinite(value):
                        raise ValueError(f"{table}.{key} is not finite ({value}); this is a bug in rackcost")

    def _frame(self, table: str) -> pd.DataFrame:
        import pandas as pd

        columns = list(column_names("comparison")) if table == "comparison" else None
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

    @cached_property
    def pools(self) -> pd.DataFrame:
        """Each disaggregated system's pools at each demand point (empty without one)."""
        import pandas as pd

        return pd.DataFrame(self.records.get(POOLS_TABLE, []), columns=list(column_names(POOLS_TABLE)))

    @cached_property
    def classes(self) -> pd.DataFrame:
        """One row per system, demand point and request class (``system``, ``demand_point``, ``class`` first); empty,
        with its columns, for a scenario without ``workload.classes``."""
        import pandas as pd

        if "classes" not in self.records:
            return pd.DataFrame(columns=list(column_names("classes", revenue=False)))
        return self._frame("classes")

    @cached_property
    def years(self) -> pd.DataFrame:
        """With ``demand`` as a profile: one row per system and year of its horizon (empty, with its columns, else)."""
        import pandas as pd

        return pd.DataFrame(self.records.get("years", []), columns=list(column_names("years")))

    @cached_property
    def horizon(self) -> pd.DataFrame:
        """With ``demand`` as a profile: one row per system over its horizon, with the present value of cost."""
        import pandas as pd

        return pd.DataFrame(self.records.get("horizon", []), columns=list(column_names("horizon")))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dictionary: ``scenario``, ``routing``, the three tables, ``unserved`` and ``warnings``."""
        return {
            "scenario": self.scenario_name,
            "routing": self.routing,
            **self.records,
            "unserved": [dict(u) for u in self.unserved],
            "warnings": list(self.warnings),
        }

    def to_json(self, indent: int | None = 2) -> str:
        """JSON text of :meth:`to_dict` (no NaN or infinity: the chain never produces them)."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_csv(self, table: str = "points") -> str:
        """CSV text of one table (``points``, ``systems``, ``comparison``, ``classes`` for a scenario with
        ``workload.classes``, or ``pools``: its header alone when no system is disaggregated), safe to open in a
        spreadsheet (:func:`rackcost.files.csv_text`).

        Raises
        ------
        ValueError
            For ``classes`` when the scenario has no request classes.
        """
        if table == POOLS_TABLE:
            return csv_text(self.records.get(POOLS_TABLE, []), column_names(POOLS_TABLE))
        if table == "classes" and table not in self.records:
            raise ValueError(NO_CLASSES)
        if table in ("years", "horizon") and table not in self.records:
            raise ValueError(NO_PROFILE)
        return csv_text(self.records[table])


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _rows(columns: dict[str, Any]) -> list[dict[str, Any]]:
    """Records of equal-length columns, numpy scalars turned into plain Python values."""
    lists = {key: np.asarray(values).tolist() for key, values in columns.items()}
    return [dict(zip(lists, values, strict=True)) for values in zip(*lists.values(), strict=True)]


def point_rows(scenario: Scenario, outcomes: list[SystemOutcome], apis: list[ApiSystemOutcome]) -> list[dict[str, Any]]:
    """Rows of the ``points`` table: one per system and demand point, in the scenario's order of systems."""
    names = np.array([p.name for p in scenario.demand], dtype=object)
    hours = [p.hours_per_day for p in scenario.demand]
    n = len(names)
    rows = []
    by_name = {o.inputs.name: o for o in outcomes}
    by_index = {a.index: a for a in apis}
    for index, system in enumerate(scenario.systems):
        if system.api is not None:
            rows += _api_point_rows(scenario, system, by_index[index])
            continue
        o = by_name[system.name]
        d, m = o.demand, o.metrics
        cols = {
            "system": np.full(n, o.inputs.name, dtype=object),
            "demand_point": names,
            "hours_per_day": hours,
            "status": np.where(d.overloaded, OVERLOADED_STATUS, "ok").astype(object),
            "offered_rps": d.offered_rps,
            "admitted_rps": d.admitted_rps,
            "accepted_rps": d.accepted_rps,
            "rejected_rps": d.rejected_rps,
            "rejected_fraction": d.rejected_fraction,
            "arrival_scv": np.array(o.chosen.arrival_scv or [p.arrival_scv for p in scenario.demand]),
            "accepted_fraction_at_scv_2": at_scv(o, 2.0, n),
            "accepted_fraction_at_scv_4": at_scv(o, 4.0, n),
            "accepted_fraction_at_real_traffic": at_real_traffic(scenario, o, n),
            "useful_output_tokens_per_s": m.useful_output_tokens_per_s[0],
            "utilization_fraction": d.utilization_fraction,
            "in_service_concurrency": d.in_service_concurrency,
            "ttft_ms": d.ttft_ms if d.ttft_ms is not None else np.full(n, o.chosen.ttft_ms),
            "tpot_ms": d.tpot_ms if d.tpot_ms is not None else np.full(n, float(o.point.tpot_ms[0])),
            "service_s": d.service_s,
            "active_replicas": d.active_replicas,
            "provisioned_replicas": np.full(n, o.provisioned_replicas),
            "racks": np.full(n, o.racks),
            "capacity_at_slo_rps": d.capacity_at_slo_rps,
            "spare_capacity_fraction": d.spare_capacity_fraction,
            "ttft_p99_ms": m.ttft_p99_ms[0],
            "tpot_p99_ms": d.tpot_p99_ms if d.tpot_p99_ms is not None else np.full(n, float(o.point.tpot_ms[0])),
            "it_power_kw": o.it_power_kw,
            "facility_power_kw": o.facility_power_kw,
            "peak_it_power_kw": o.peak_it_power_kw,
            "peak_facility_power_kw": o.peak_facility_power_kw,
            "it_power_kw_per_rack": o.it_power_kw / o.racks,
            "peak_it_power_kw_per_rack": o.peak_it_power_kw / o.racks,
            "energy_usd_per_hour": o.energy_usd_per_hour,
            "rent_usd_per_hour": o.rent_usd_per_hour,
            "api_usd_per_hour": np.zeros(n),
            "capital_usd_per_hour": np.full(n, o.capital_usd_per_hour),
            "fixed_opex_usd_per_hour": np.full(n, o.fixed_opex_usd_per_hour),
            "total_usd_per_hour": m.total_usd_per_hour[0],
            "usd_per_accepted_request": m.usd_per_accepted_request[0],
            "usd_per_million_accepted_output_tokens": m.usd_per_million_accepted_output_tokens[0],
            "usd_per_million_accepted_input_tokens": m.usd_per_million_accepted_input_tokens[0],
            "usd_per_million_accepted_total_tokens": m.usd_per_million_accepted_total_tokens[0],
            "output_tokens_per_kwh": m.output_tokens_per_kwh[0],
            "carbon_g_per_accepted_request": m.carbon_g_per_accepted_request[0],
            "provenance": np.full(n, system.provenance.provenance_class.value, dtype=object),
            "routing": np.full(n, scenario.fleet.routing, dtype=object),
        }
        rows += _rows(in_order(cols, POINT_NAMES))
    return rows


def system_rows(
    scenario: Scenario, outcomes: list[SystemOutcome], apis: list[ApiSystemOutcome], sizing_demand_point: str
) -> list[dict[str, Any]]:
    """One row per system: chosen operating point, fleet, provisioned power, capital and blended cost."""
    rows = []
    by_name = {o.inputs.name: o for o in outcomes}
    by_index = {a.index: a for a in apis}
    for index, system in enumerate(scenario.systems):
        if system.api is not None:
            rows.append(_api_system_row(system, by_index[index], sizing_demand_point))
            continue
        o = by_name[system.name]
        pt, m = o.point, o.metrics
        hours = [p.hours_per_day for p in scenario.demand]
        mean_rack_kw, peak_rack_kw = rack_power_kw(o.it_power_kw, o.peak_it_power_kw, hours, o.racks)
        row = {
            "system": o.inputs.name,
            "provenance": system.provenance.provenance_class.value,
            "source": system.provenance.source,
            "payment": system.payment.value,
            "concurrency": float(pt.concurrency[0]),
            "tpot_ms": float(pt.tpot_ms[0]),
            "interactivity_tokens_per_s": MS_PER_S / float(pt.tpot_ms[0]),
            "ttft_ms": float(pt.ttft_ms[0]),
            "total_tokens_per_s_per_replica": float(pt.total_tokens_per_s[0]),
            "output_tokens_per_s_per_replica": float(pt.output_tokens_per_s[0]),
            "requests_per_s_per_replica": float(pt.request_rps[0]),
            "service_s": float(pt.service_s[0]),
            "queueing_budget_ms": o.budget_s * MS_PER_S,
            "busy_power_w_per_accelerator": o.busy_w,
            "sizing_demand_point": sizing_demand_point,
            "routing": scenario.fleet.routing,
            "slo_replicas": o.slo_replicas,
            "serving_replicas": o.serving_replicas,
            "provisioned_replicas": o.provisioned_replicas,
            "accelerators": accelerators(o),
            "nodes": o.nodes,
            "racks": o.racks,
            "provisioned_it_kw": o.provisioned_it_kw,
            "mean_it_power_kw_per_rack": mean_rack_kw,
            "peak_it_power_kw_per_rack": peak_rack_kw,
            "rack_power_limit_kw": o.inputs.rack_power_limit_w / W_PER_KW if system.payment.owned else None,
            "capex_usd": o.capex_usd,
            "capital_usd_per_hour": o.capital_usd_per_hour,
            "fixed_opex_usd_per_hour": o.fixed_opex_usd_per_hour,
            "headline_tokens_per_s_per_kw": o.inputs.headline_tokens_per_s_per_kw,
            "headline_power_basis": o.inputs.headline_power_basis,
            "headline_is_vendor_claim": o.inputs.headline_is_claim,
            "slo_point_total_tokens_per_facility_kwh": o.slo_point_total_tokens_per_facility_kwh,
            "accepted_requests_per_day": float(m.accepted_requests_per_day[0]),
            "facility_energy_kwh_per_day": float(m.facility_energy_kwh_per_day[0]),
            "carbon_kg_per_day": float(m.carbon_kg_per_day[0]),
            "blended_carbon_g_per_accepted_request": float(m.blended_carbon_g_per_accepted_request[0]),
            "usd_per_day": float(m.usd_per_day[0]),
            "blended_usd_per_accepted_request": float(m.blended_usd_per_accepted_request[0]),
            "blended_usd_per_million_accepted_output_tokens": float(
                m.blended_usd_per_million_accepted_output_tokens[0]
            ),
            "blended_usd_per_million_accepted_input_tokens": float(m.blended_usd_per_million_accepted_input_tokens[0]),
            "blended_usd_per_million_accepted_total_tokens": float(m.blended_usd_per_million_accepted_total_tokens[0]),
        }
        rows.append(in_order(row, SYSTEM_NAMES))
    return [{key: _plain(value) for key, value in row.items()} for row in rows]


def _api_point_rows(scenario: Scenario, system: Any, api: ApiSystemOutcome) -> list[dict[str, Any]]:
    """Rows of the ``points`` table for an API system: what it is offered, accepts and costs; no fleet (None where
    a figure does not apply, 0 for a fleet it does not have)."""
    served, m = api.served, api.metrics
    names = [p.name for p in scenario.demand]
    n = len(names)
    limit = system.api.rate_limit_rps
    rows = []
    for j in range(n):
        offered, accepted = float(served.offered_rps[0, j]), float(served.accepted_rps[0, j])
        rejected = float(served.rejected_rps[0, j])
        rows.append(
            in_order(
                {
                    "system": system.name,
                    "demand_point": names[j],
                    "hours_per_day": scenario.demand[j].hours_per_day,
                    "status": "rate limited: the API refuses the excess" if rejected > 0 else "ok",
                    "offered_rps": offered,
                    "admitted_rps": accepted,
                    "accepted_rps": accepted,
                    "rejected_rps": rejected,
                    "rejected_fraction": rejected / offered,
                    "arrival_scv": scenario.demand[j].arrival_scv,
                    "accepted_fraction_at_scv_2": None,
                    "accepted_fraction_at_scv_4": None,
                    "accepted_fraction_at_real_traffic": None,
                    "useful_output_tokens_per_s": float(m.useful_output_tokens_per_s[0, j]),
                    "utilization_fraction": None,
                    "in_service_concurrency": None,
                    "ttft_ms": None,
                    "tpot_ms": None,
                    "service_s": None,
                    "active_replicas": 0,
                    "provisioned_replicas": 0,
                    "racks": 0,
                    "capacity_at_slo_rps": limit,
                    "spare_capacity_fraction": None if limit is None else (limit - offered) / limit,
                    "ttft_p99_ms": None,
                    "tpot_p99_ms": None,
                    "it_power_kw": 0.0,
                    "facility_power_kw": 0.0,
                    "peak_it_power_kw": 0.0,
                    "peak_facility_power_kw": 0.0,
                    "it_power_kw_per_rack": 0.0,
                    "peak_it_power_kw_per_rack": 0.0,
                    "energy_usd_per_hour": 0.0,
                    "rent_usd_per_hour": 0.0,
                    "api_usd_per_hour": float(served.api_usd_per_hour[0, j]),
                    "capital_usd_per_hour": 0.0,
                    "fixed_opex_usd_per_hour": 0.0,
                    "total_usd_per_hour": float(m.total_usd_per_hour[0, j]),
                    "usd_per_accepted_request": float(m.usd_per_accepted_request[0, j]),
                    "usd_per_million_accepted_output_tokens": float(m.usd_per_million_accepted_output_tokens[0, j]),
                    "usd_per_million_accepted_input_tokens": float(m.usd_per_million_accepted_input_tokens[0, j]),
                    "usd_per_million_accepted_total_tokens": float(m.usd_per_million_accepted_total_tokens[0, j]),
                    "output_tokens_per_kwh": None,
                    "carbon_g_per_accepted_request": None,
                    "provenance": system.provenance.provenance_class.value,
                    "routing": "api",
                },
                POINT_NAMES,
            )
        )
    return rows


def _api_system_row(system: Any, api: ApiSystemOutcome, sizing_demand_point: str) -> dict[str, Any]:
    """The ``systems`` row of an API system: its cost over the day; no operating point, fleet or power."""
    m = api.metrics
    row = {
        "system": system.name,
        "provenance": system.provenance.provenance_class.value,
        "source": system.provenance.source,
        "payment": system.payment.value,
        "concurrency": None,
        "tpot_ms": None,
        "interactivity_tokens_per_s": None,
        "ttft_ms": None,
        "total_tokens_per_s_per_replica": None,
        "output_tokens_per_s_per_replica": None,
        "requests_per_s_per_replica": None,
        "service_s": None,
        "queueing_budget_ms": None,
        "busy_power_w_per_accelerator": None,
        "sizing_demand_point": sizing_demand_point,
        "routing": "api",
        "slo_replicas": 0,
        "serving_replicas": 0,
        "provisioned_replicas": 0,
        "accelerators": 0,
        "nodes": 0,
        "racks": 0,
        "provisioned_it_kw": 0.0,
        "mean_it_power_kw_per_rack": None,
        "peak_it_power_kw_per_rack": None,
        "rack_power_limit_kw": None,
        "capex_usd": 0.0,
        "capital_usd_per_hour": 0.0,
        "fixed_opex_usd_per_hour": 0.0,
        "headline_tokens_per_s_per_kw": None,
        "headline_power_basis": "api (no hardware)",
        "headline_is_vendor_claim": False,
        "slo_point_total_tokens_per_facility_kwh": None,
        "accepted_requests_per_day": float(m.accepted_requests_per_day[0]),
        "facility_energy_kwh_per_day": 0.0,
        "carbon_kg_per_day": None,
        "blended_carbon_g_per_accepted_request": None,
        "usd_per_day": float(m.usd_per_day[0]),
        "blended_usd_per_accepted_request": float(m.blended_usd_per_accepted_request[0]),
        "blended_usd_per_million_accepted_output_tokens": float(m.blended_usd_per_million_accepted_output_tokens[0]),
        "blended_usd_per_million_accepted_input_tokens": float(m.blended_usd_per_million_accepted_input_tokens[0]),
        "blended_usd_per_million_accepted_total_tokens": float(m.blended_usd_per_million_accepted_total_tokens[0]),
    }
    return in_order(row, SYSTEM_NAMES)


def outcome_warnings(scenario: Scenario, outcomes: list[SystemOutcome]) -> list[str]:
    """Named outcomes that are not errors: overload, too many racks or kW, derived concurrency, edge of the curve,
    an answer fragile to bursty arrivals."""
    from rackcost.scenario.unpack import slo_inputs

    slo = slo_inputs(scenario)
    out = []
    if scenario.facility.hourly is not None and scenario.demand_profile is None:
        out.append(
            "facility.hourly: the demand points have no clock hours (demand is not a profile), so each reads the "
            "hourly grid's mean over its day (or week); give demand as a profile for each point's own hours"
        )
    for o in outcomes:
        share = o.demand.accepted_rps / o.demand.offered_rps
        out += _demand_warnings(scenario, o)
        out += fragility_warnings(scenario, o, share) + margin_warnings(scenario, o, share)
        out += _facility_warnings(scenario, o)
        out += _curve_warnings(scenario, o, slo)
    return out


def _demand_warnings(scenario: Scenario, o: SystemOutcome) -> list[str]:
    """Points where a system accepts no request within the SLO, or where its demand is above its capacity."""
    name, demand, out = o.inputs.name, o.demand, []
    if none := [d.name for i, d in enumerate(scenario.demand) if demand.accepted_rps[i] <= 0.0]:
        out.append(
            f"{name} accepts no request within the SLO at {', '.join(none)}: every one it admits misses the "
            "SLO there, so its cost per accepted request is undefined (shown as -, null in JSON)"
        )
    for i, d in enumerate(scenario.demand):
        if demand.overloaded[i]:
            out.append(
                f"{name} at {d.name}: demand {d.arrival_rps:.4g} rps is above the fleet's capacity at SLO "
                f"({demand.capacity_at_slo_rps[i]:.4g} rps); admission control rejects "
                f"{demand.rejected_rps[i]:.4g} rps (overload is shed by admission control at the SLO)"
            )
    return out


def _facility_warnings(scenario: Scenario, o: SystemOutcome) -> list[str]:
    """A fleet over the facility's racks or IT power, a rack over its power limit or with node slots left empty."""
    name, out = o.inputs.name, []
    if scenario.facility.max_racks is not None and o.racks > scenario.facility.max_racks:
        out.append(
            f"{name}: the fleet needs {o.racks} racks; the facility has {scenario.facility.max_racks} "
            "(facility.max_racks)"
        )
    site_kw = scenario.facility.max_it_power_kw
    peak_kw = o.peak_it_power_kw
    at = int(np.argmax(peak_kw))
    peak = (
        f"its peak IT power is {peak_kw[at]:,.4g} kW at {scenario.demand[at].name} (serving accelerators at their "
        f"peak: mean x {o.inputs.peak_to_mean_power:.3g}"
        f"{'' if o.inputs.peak_to_mean_power == PEAK_TO_MEAN_POWER else ', measured'}, held at rated power)"
    )
    if site_kw is not None and peak_kw[at] > site_kw * (1 + 1e-12):
        out.append(
            f"{name}: the fleet is provisioned for {o.provisioned_it_kw:,.4g} kW of rated IT power and {peak}; "
            f"the site has {site_kw:,.4g} kW (facility.max_it_power_kw); rackcost site gives the largest fleet "
            "that fits"
        )
    elif site_kw is not None and o.provisioned_it_kw > site_kw * (1 + 1e-12):
        out.append(
            f"{name}: the fleet is provisioned for {o.provisioned_it_kw:,.4g} kW of rated IT power, above the "
            f"site's {site_kw:,.4g} kW (facility.max_it_power_kw), though {peak} fits; rackcost site gives the "
            "largest fleet whose rated power fits"
        )
    rack_peak_kw = float(np.max(peak_kw)) / max(o.racks, 1)
    if rack_peak_kw > o.inputs.rack_power_limit_w / W_PER_KW * (1 + 1e-12):
        out.append(
            f"{name}: a rack's peak IT power is {rack_peak_kw:,.4g} kW, above the rack power limit "
            f"({o.inputs.rack_power_limit_w / W_PER_KW:.4g} kW): racks are packed on rated power, and the "
            "measured power is above it"
        )
    if o.nodes_per_rack_effective < o.inputs.nodes_per_rack:
        out.append(
            f"{name}: the rack power limit ({o.inputs.rack_power_limit_w / W_PER_KW:.4g} kW) allows only "
            f"{o.nodes_per_rack_effective} of {o.inputs.nodes_per_rack} node slots per rack on rated power"
        )
    return out


def _curve_warnings(scenario: Scenario, o: SystemOutcome, slo: SloInputs) -> list[str]:
    """Where the curve holds figures: below its lowest concurrency, a point on the TTFT limit's knife edge, KV memory
    that left points out, a derived concurrency, a single point."""
    name, out = o.inputs.name, []
    lowest = float(o.inputs.curve.concurrency[0])
    in_service = o.demand.in_service_concurrency
    held = [d.name for d, c in zip(scenario.demand, in_service, strict=True) if c < lowest]
    if held and len(o.inputs.curve) > 1:
        out.append(
            f"{name} at {', '.join(held)}: the load puts fewer requests in service per replica than the lowest "
            f"measured concurrency ({lowest:.4g}); TTFT, TPOT and service time are held at that point's "
            "(never extrapolated), so they are upper bounds there"
        )
    limit_ms = scenario.slo.ttft_limit_ms
    if o.budget_s * MS_PER_S < KNIFE_EDGE_FRACTION * limit_ms:
        out.append(
            f"{name}: the chosen point's TTFT ({o.chosen.ttft_ms:.5g} ms) is within {KNIFE_EDGE_FRACTION:.0%} "
            f"of the limit ({limit_ms:g} ms), leaving {o.budget_s * MS_PER_S:.3g} ms for queueing; a measurement "
            "error that small in TTFT moves the choice and the fleet"
        )
    capped = kv_cache_warning(scenario, o, slo)
    if capped:
        out.append(capped)
    if o.inputs.concurrency_derived:
        out.append(f"{name}: concurrency not given; derived by Little's law from throughput and latency")
    if len(o.inputs.curve) == 1:
        out.append(
            f"{name}: a single operating point; the curve cannot be interpolated, the SLO is met there "
            "or not at all, and its latencies and service time hold at every load"
        )
    return out


def kv_cache_warning(scenario: Scenario, outcome: SystemOutcome, slo: SloInputs | None = None) -> str | None:
    """That a system's KV-cache memory left out operating points that meet the SLO (which, and why), or None.

    Only where it did: a memory that holds every SLO-feasible point changes nothing, and says nothing.
    """
    memory = outcome.inputs.kv_memory
    if memory is None:
        return None
    if slo is None:
        from rackcost.scenario.unpack import slo_inputs

        slo = slo_inputs(scenario)
    cand = outcome.inputs.coarse
    meets = slo_feasible(slo, cand.ttft_ms, cand.tpot_ms)
    left_out = meets & ~memory.fits(cand.concurrency)
    if not left_out.any():
        return None
    index = next(i for i, s in enumerate(scenario.systems) if s.name == outcome.inputs.name)
    return (
        f"{outcome.inputs.name}: its KV cache holds at most {memory.max_concurrency} requests in flight per replica "
        f"({gib(memory.free_bytes)} GiB free, {gib(memory.kv_bytes_per_request)} GiB per request of "
        f"{memory.context_tokens:,.0f} tokens; systems[{index}].memory): {int(left_out.sum()):,} operating points "
        f"that meet the SLO, concurrency {float(cand.concurrency[left_out].min()):g} to "
        f"{float(cand.concurrency[left_out].max()):g}, are left out"
    )


def add_revenue(
    scenario: Scenario,
    points: list[dict[str, Any]],
    systems: list[dict[str, Any]],
    by_point: dict[tuple[str, str], float] | None = None,
) -> None:
    """Revenue and margin columns, when the scenario states what tokens sell for (``revenue``).

    Per point: ``revenue_usd_per_hour`` = accepted requests x 3,600 x (ISL x p_in + OSL x p_out) / 10^6 (with
    request classes, ``by_point``: the sum over the classes of their own accepted requests and tokens,
    :func:`rackcost.evaluation.class_tables.class_revenue`) and
    ``margin_usd_per_hour`` = revenue - total cost. Per system: revenue and margin per day (hour-weighted) and per
    year (x 365), and for an owned system ``payback_years`` = capex / (yearly revenue - yearly cash cost, i.e. fixed
    opex and energy without the capital charge); None when the cash margin is not positive or nothing was bought.
    """
    r = scenario.revenue
    assert r is not None
    w = scenario.workload
    per_request = (
        w.input_tokens_per_request * r.usd_per_million_input_tokens
        + w.output_tokens_per_request * r.usd_per_million_output_tokens
    ) / TOKENS_PER_MILLION
    by_system: dict[str, dict[str, float]] = {}
    for p in points:
        revenue = (
            p["accepted_rps"] * SECONDS_PER_HOUR * per_request
            if by_point is None
            else by_point[(p["system"], p["demand_point"])]
        )
        p["revenue_usd_per_hour"] = revenue
        p["margin_usd_per_hour"] = revenue - p["total_usd_per_hour"]
        day = by_system.setdefault(p["system"], {"revenue": 0.0, "cash_cost": 0.0})
        day["revenue"] += revenue * p["hours_per_day"]
        cash = p["total_usd_per_hour"] - p["capital_usd_per_hour"]
        day["cash_cost"] += cash * p["hours_per_day"]
    for s in systems:
        day = by_system[s["system"]]
        s["revenue_usd_per_day"] = day["revenue"]
        s["margin_usd_per_day"] = day["revenue"] - s["usd_per_day"]
        s["margin_usd_per_year"] = s["margin_usd_per_day"] * DAYS_PER_YEAR
        cash_margin_per_year = (day["revenue"] - day["cash_cost"]) * DAYS_PER_YEAR
        owned = Payment(s["payment"]).owned and s["capex_usd"] > 0
        s["payback_years"] = s["capex_usd"] / cash_margin_per_year if owned and cash_margin_per_year > 0 else None


def add_rate_swing(scenario: Scenario, row: dict[str, Any]) -> dict[str, Any]:
    """A point row with ``rate_swing_amplitude_fraction`` beside ``arrival_scv`` (the registry's order)."""
    names = [d.name for d in scenario.demand]
    swing = scenario.demand[names.index(row["demand_point"])].rate_swing
    row = row | {"rate_swing_amplitude_fraction": 0.0 if swing is None else swing.amplitude_fraction}
    return in_order(row, column_names("points", revenue=scenario.revenue is not None))


def swing_warnings(scenario: Scenario, outcomes: list[SystemOutcome]) -> list[str]:
    """Where a rate swing moves the accepted share by more than :data:`FRAGILITY_DROP_FRACTION` on the same fleet,
    and where it is too fast for the pointwise stationary approximation (:mod:`rackcost.model.queues.rate_swing`)."""
    out = []
    for o in outcomes:
        steady = o.fleet.demand_without_swing
        for i, d in enumerate(scenario.demand):
            if d.sub_hour is not None:
                out += sub_hour_warnings(o, i, d, steady)
            swing = d.rate_swing
            if swing is None or swing.amplitude_fraction == 0:
                continue
            words = f"+/-{100 * swing.amplitude_fraction:.0f}% rate swing over {swing.period_s:g} s"
            tail = " (a lower bound on the accepted share; rackcost simulate --rate-swing measures it)"
            out += moved_share_warnings(o, i, d, steady, (words, "rate_swing", swing.period_s, False), tail)
    return out


def result_tables(scenario: Scenario, outcomes: list[SystemOutcome], apis: list[ApiSystemOutcome]) -> Result:
    """Tables, comparison and warnings of already evaluated systems: formatting only.

    ``outcomes`` and ``apis`` are the chain's (:func:`rackcost.evaluation.chain.evaluate_systems` and
    :func:`~rackcost.evaluation.chain.evaluate_apis`), so a caller that also needs the raw outcomes (the dashboard's
    charts, the report) evaluates only once.
    """
    sizing_name = scenario.sizing_point.name
    # a cost per accepted request or token where nothing was accepted is undefined: None from here on
    points = undefined_as_none("points", point_rows(scenario, outcomes, apis))
    systems = undefined_as_none("systems", system_rows(scenario, outcomes, apis, sizing_name))
    from rackcost.scenario.unpack import class_mix

    mix = class_mix(scenario)
    classes = None if mix is None else undefined_as_none("classes", class_rows(scenario, mix, outcomes, apis))
    if scenario.revenue is not None:
        add_revenue(scenario, points, systems, None if classes is None else class_revenue(scenario, classes))
    if any(d.rate_swing is not None for d in scenario.demand):
        points = [add_rate_swing(scenario, p) for p in points]
    warnings = comparability_warnings(scenario) + outcome_warnings(scenario, outcomes)
    warnings += swing_warnings(scenario, outcomes)
    comparison = comparison_rows(scenario, systems, points)
    records = {"points": points, "systems": systems, "comparison": comparison}
    if any(s.pools is not None for s in scenario.systems):  # disaggregated systems: each pool's figures
        records[POOLS_TABLE] = undefined_as_none(POOLS_TABLE, pool_rows(scenario, outcomes))
        warnings += pool_warnings(outcomes)
    if classes is not None:
        records["classes"] = classes

    return Result(
        scenario_name=scenario.name,
        records=records,
        warnings=warnings,
        routing=scenario.fleet.routing,
    )
