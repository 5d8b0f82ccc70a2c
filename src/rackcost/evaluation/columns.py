"""The registry of result columns: each column's name, table, unit, label, meaning and display kind, defined once.

Every table the project writes reads its columns here: :mod:`rackcost.evaluation.results` lays out the ``points``,
``systems`` and ``comparison`` tables in this order, the Monte Carlo and the sweeps name the columns they carry by
these names, the CLI, the dashboard and the report take their headers (label and unit) and number formats from
:attr:`Column.header` and :meth:`Column.format`, and ``docs/glossary.md``'s "Result columns" section is written from
:func:`glossary_markdown` (a test keeps the two equal).

Examples
--------
>>> column("points", "accepted_rps").header
'accepted within SLO [requests/s]'
>>> column("points", "usd_per_accepted_request").format(0.000792)
'$0.792'
>>> [c.name for c in columns("comparison")][:3]
['system', 'baseline', 'metric']
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Literal, get_args

from rackcost import display

__all__ = [
    "BLENDED",
    "FLEET_SUMMARY",
    "KINDS",
    "TABLES",
    "Column",
    "column",
    "column_names",
    "columns",
    "glossary_markdown",
    "in_order",
    "select",
    "undefined_as_none",
]

BLENDED = "blended"
"""The demand point of figures blended over the day (hour-weighted), where a table has a demand-point column."""
FLEET_SUMMARY = (
    "concurrency",
    "tpot_ms",
    "ttft_ms",
    "total_tokens_per_s_per_replica",
    "provisioned_replicas",
    "accelerators",
    "racks",
    "provisioned_it_kw",
    "mean_it_power_kw_per_rack",
    "peak_it_power_kw_per_rack",
    "rack_power_limit_kw",
    "capex_usd",
    "blended_usd_per_accepted_request",
    "blended_carbon_g_per_accepted_request",
)
"""The ``systems`` columns of the fleet table the CLI and the report show per system, in order."""

TABLES = ("points", "systems", "comparison", "classes", "site", "pools", "years", "horizon")
"""The tables of results: one row per system and demand point, per system, per system and metric against the
baseline, per system, demand point and request class (a scenario with ``workload.classes``), per system of
``rackcost site``, per disaggregated system, pool and demand point (only in a scenario with one), and, for
``demand`` as a profile, per system and year of the horizon and per system over it."""

Kind = Literal["text", "enum", "bool", "num", "count", "usd", "usd_per_request", "pct", "ratio", "by_point"]
KINDS: tuple[str, ...] = get_args(Kind)
"""How a column is shown: words, one of the model's enumerated values (in words: ``rent on_demand`` is ``rent on
demand``), a yes/no, a number, a whole count, an amount in dollars, a cost per request (per 1,000 requests), a share
as a percentage, an advantage ratio, or one number per demand point. Whatever the kind, a power in kW is shown with
its unit in each cell (:func:`rackcost.display.power_kw`: ``3.53 MW``, not ``3.53K``) and a time in ms in whole
milliseconds from 100 ms (:func:`rackcost.display.whole`: ``1,400``, not ``1.4K``)."""


@dataclass(frozen=True)
class Column:
    """One column of a result table.

    Attributes
    ----------
    name
        The column's name in records, DataFrames, JSON and CSV (its unit in the name, as everywhere).
    table
        One of :data:`TABLES`.
    unit
        Its unit as the glossary writes it (``requests/s``, ``USD/request``; ``-`` for none).
    label
        Words for a header, without the unit.
    meaning
        What it is, in a sentence (the glossary's).
    kind
        How it is shown (:data:`KINDS`).
    when
        ``"revenue"`` for a column only a scenario with a ``revenue`` block has, ``"rate_swing"`` for one only a
        scenario with a demand point's ``rate_swing`` has; else None (always there).
    fleet_only
        An API system has no value for it (it has no fleet, operating point or power): None or a zero in its rows,
        missing in a sweep's.
    """

    name: str
    table: str
    unit: str
    label: str
    meaning: str
    kind: Kind = "num"
    when: str | None = None
    fleet_only: bool = False

    @property
    def per_accepted(self) -> bool:
        """A cost per accepted request or token: undefined (None) where nothing was accepted
        (:func:`undefined_as_none`)."""
        return "_per_accepted_" in self.name or "_per_million_accepted_" in self.name

    @property
    def may_be_undefined(self) -> bool:
        """Undefined (None) at some rows by design: a cost per accepted request where nothing was accepted, or the
        real-traffic check at a point that gives its own measured dispersion (:func:`undefined_as_none`)."""
        return self.per_accepted or self.name == "accepted_fraction_at_real_traffic"

    @property
    def header(self) -> str:
        """The label with the unit the column is shown in: ``accepted within SLO [requests/s]``.

        A share is shown in percent, a cost per request per 1,000 requests, words and yes/no without a unit, and a
        power in kW by its label alone (each cell gives its unit: :meth:`format`).
        """
        if self.kind in ("text", "enum", "bool") or self.unit in (self.label, "kW"):
            return self.label
        if self.kind == "pct":
            return f"{self.label} [%{self.unit.removeprefix('fraction')}]"
        if self.kind == "usd_per_request":
            return f"{self.label} [{display.PER_1K_ACCEPTED}]"
        if self.kind == "ratio":
            return f"{self.label} [x]"
        return f"{self.label} [{self.unit}]"

    def format(self, value: Any) -> str:
        """The value as the CLI, the dashboard and the report show it (:mod:`rackcost.display`); ``-`` for None or
        NaN (pandas' missing value in a column of numbers)."""
        if display.undefined(value):
            return display.UNDEFINED
        if self.kind == "text":
            return str(value)
        if self.kind == "enum":
            return display.words(value)
        if self.kind == "bool":
            return "yes" if value else "no"
        if self.kind == "by_point":
            return ", ".join(f"{point}: {display.num(v)}" for point, v in value.items())
        if self.unit == "kW":
            return display.power_kw(float(value))
        if self.unit == "ms" and self.kind == "num":
            return display.whole(float(value))
        formatter = {
            "num": display.num,
            "count": display.count,
            "usd": display.money,
            "usd_per_request": display.usd_per_1k_requests,
            "pct": display.pct,
            "ratio": display.ratio,
        }[self.kind]
        return formatter(float(value))


def _c(
    table: str,
    name: str,
    unit: str,
    label: str,
    meaning: str,
    kind: Kind = "num",
    when: str | None = None,
    fleet_only: bool = False,
) -> Column:
    return Column(name, table, unit, label, meaning, kind, when, fleet_only)


# fmt: off
_POINTS = [
    _c("points", "system", "-", "system", "which system", kind="text"),
    _c("points", "demand_point", "-", "demand point", "which demand point", kind="text"),
    _c("points", "hours_per_day", "h/day", "hours", "hours a day at this demand point"),
    _c("points", "status", "-", "status",
        "`ok`, or overloaded (admission control rejects the excess), or rate limited (an API)", kind="enum"),
    _c("points", "offered_rps", "requests/s", "offered", "arrivals"),
    _c("points", "admitted_rps", "requests/s", "admitted",
        "admitted by admission control (an API: up to its rate limit)"),
    _c("points", "accepted_rps", "requests/s", "accepted within SLO", "served within the SLO"),
    _c("points", "rejected_rps", "requests/s", "rejected", "offered - accepted"),
    _c("points", "rejected_fraction", "fraction of offered", "rejected", "rejected / offered", kind="pct"),
    _c("points", "arrival_scv", "-", "arrival SCV",
        "squared coefficient of variation of inter-arrival times (1: Poisson)"),
    _c("points", "rate_swing_amplitude_fraction", "fraction of mean rate", "rate swing",
        "with `demand[i].rate_swing`: its amplitude a, the rate lambda (1 + a sin(2 pi t / T)) over the point; sizing, "
        "acceptance and capacity at SLO are averages over its cycle (0: no swing)", kind="pct", when="rate_swing"),
    _c("points", "accepted_fraction_at_scv_2", "fraction of offered", "accepted at SCV 2",
        "the accepted share had the arrivals SCV 2, the same fleet serving: where the answer is fragile",
        kind="pct", fleet_only=True),
    _c("points", "accepted_fraction_at_scv_4", "fraction of offered", "accepted at SCV 4",
        "the same at SCV 4 (very bursty)", kind="pct", fleet_only=True),
    _c("points", "accepted_fraction_at_real_traffic", "fraction of offered", "accepted under real traffic",
        "the same fleet had the arrivals the burstiness of a public production trace (Azure LLM inference trace "
        "2023, conversation) at its own service time; empty where the point gives a measured arrival_dispersion",
        kind="pct", fleet_only=True),
    _c("points", "useful_output_tokens_per_s", "tokens/s", "accepted output", "accepted output tokens per second"),
    _c("points", "utilization_fraction", "fraction of slots", "slot utilisation",
        "busy share of the serving slots: requests in service / the chosen concurrency", kind="pct", fleet_only=True),
    _c("points", "in_service_concurrency", "requests/replica", "requests in service per replica",
        "requests in service per serving replica at this load: where the operating point sits", fleet_only=True),
    _c("points", "ttft_ms", "ms", "TTFT at this load",
        "TTFT before fleet queueing at the in-service concurrency (with request classes, the mix's mean request's)",
        fleet_only=True),
    _c("points", "tpot_ms", "ms", "TPOT at this load", "TPOT at the in-service concurrency", fleet_only=True),
    _c("points", "service_s", "s", "service time", "slot holding time at the in-service concurrency", fleet_only=True),
    _c("points", "active_replicas", "replicas", "active replicas",
        "replicas serving at this point", kind="count", fleet_only=True),
    _c("points", "provisioned_replicas", "replicas", "provisioned replicas",
        "replicas installed", kind="count", fleet_only=True),
    _c("points", "racks", "racks", "racks", "racks installed", kind="count", fleet_only=True),
    _c("points", "capacity_at_slo_rps", "requests/s", "capacity at SLO",
        "the largest arrival rate the serving replicas carry within the SLO (an API: its rate limit)"),
    _c("points", "spare_capacity_fraction", "fraction of capacity", "spare capacity",
        "(capacity - offered) / capacity; negative above capacity", kind="pct"),
    _c("points", "ttft_p99_ms", "ms", "p99 TTFT incl. queueing",
        "p99 of TTFT at the occupancy a request starts at plus its queueing wait (with request classes, of a request "
        "drawn from the mix, each class's TTFT law by its share; each class's in the classes table)", fleet_only=True),
    _c("points", "tpot_p99_ms", "ms", "p99 TPOT",
        "TPOT at the p99 occupancy a request starts at", fleet_only=True),
    _c("points", "it_power_kw", "kW", "IT power", "accelerators, hosts and rack overheads", fleet_only=True),
    _c("points", "facility_power_kw", "kW", "wall power", "IT power x PUE", fleet_only=True),
    _c("points", "peak_it_power_kw", "kW", "peak IT power",
        "IT power with the serving accelerators at their peak (mean x peak-to-mean ratio, held at rated power)",
        fleet_only=True),
    _c("points", "peak_facility_power_kw", "kW", "peak wall power", "peak IT power x PUE: what the site must hold",
        fleet_only=True),
    _c("points", "it_power_kw_per_rack", "kW per rack", "IT power per rack", "IT power / racks", fleet_only=True),
    _c("points", "peak_it_power_kw_per_rack", "kW per rack", "peak IT power per rack",
        "peak IT power / racks: what a rack's power limit must hold", fleet_only=True),
    _c("points", "energy_usd_per_hour", "USD/h", "energy",
        "wall power x the electricity price (0 when rented with power)", kind="usd"),
    _c("points", "rent_usd_per_hour", "USD/h", "rent",
        "what a rented system pays at this point (reserved: the provisioned accelerators; on demand: those the point "
        "needs); 0 when owned", kind="usd"),
    _c("points", "api_usd_per_hour", "USD/h", "API",
        "what an API system pays for the accepted requests' tokens at this point; 0 otherwise", kind="usd"),
    _c("points", "capital_usd_per_hour", "USD/h", "capital", "capex x capital recovery factor / 8,760 h", kind="usd"),
    _c("points", "fixed_opex_usd_per_hour", "USD/h", "fixed opex",
        "maintenance, software, operations and facility per provisioned kW, per hour", kind="usd"),
    _c("points", "total_usd_per_hour", "USD/h", "total", "every cost line per hour", kind="usd"),
    _c("points", "usd_per_accepted_request", "USD/request", "cost",
        "total per hour / accepted requests per hour", kind="usd_per_request"),
    _c("points", "usd_per_million_accepted_output_tokens", "USD/Mtoken", "cost per M accepted output tokens",
        "per million accepted output tokens", kind="usd"),
    _c("points", "usd_per_million_accepted_input_tokens", "USD/Mtoken", "cost per M accepted input tokens",
        "per million accepted input tokens", kind="usd"),
    _c("points", "usd_per_million_accepted_total_tokens", "USD/Mtoken", "cost per M accepted tokens",
        "per million accepted input + output tokens", kind="usd"),
    _c("points", "output_tokens_per_kwh", "tokens/kWh", "accepted output per wall kWh",
        "accepted output tokens per facility kWh", fleet_only=True),
    _c("points", "carbon_g_per_accepted_request", "g CO2e/request", "carbon per accepted request",
        "facility energy per hour x the grid's carbon intensity / accepted requests per hour", fleet_only=True),
    _c("points", "provenance", "-", "provenance class", "the system's provenance class", kind="enum"),
    _c("points", "routing", "-", "routing",
        "the router the answer assumes (`fleet.routing`; `api` for an API system)", kind="enum"),
    _c("points", "revenue_usd_per_hour", "USD/h", "revenue",
        "with `revenue`: the accepted requests' tokens at its prices", kind="usd", when="revenue"),
    _c("points", "margin_usd_per_hour", "USD/h", "margin",
        "with `revenue`: revenue - total cost", kind="usd", when="revenue"),
]
# fmt: on

# fmt: off
_SYSTEMS = [
    _c("systems", "system", "-", "system", "which system", kind="text"),
    _c("systems", "provenance", "-", "provenance class",
        "who measured it: vendor, collaborative, independent or assumption", kind="enum"),
    _c("systems", "source", "-", "source", "where its figures were published", kind="text"),
    _c("systems", "payment", "-", "paid as", "`own`, `rent reserved`, `rent on_demand` or `api`", kind="enum"),
    _c("systems", "concurrency", "requests/replica", "concurrency at the SLO point",
        "at the SLO operating point, per replica: an integer (the scheduler's limit), except a single-point curve's",
        fleet_only=True),
    _c("systems", "tpot_ms", "ms", "TPOT at the SLO point", "TPOT at the SLO operating point", fleet_only=True),
    _c("systems", "interactivity_tokens_per_s", "tokens/s per user", "interactivity", "1000 / TPOT", fleet_only=True),
    _c("systems", "ttft_ms", "ms", "TTFT at the SLO point",
        "TTFT at the SLO operating point, before queueing", fleet_only=True),
    _c("systems", "total_tokens_per_s_per_replica", "tokens/s", "throughput per replica",
        "input + output tokens per second of one replica at the point", fleet_only=True),
    _c("systems", "output_tokens_per_s_per_replica", "tokens/s", "output throughput per replica",
        "output tokens per second of one replica at the point", fleet_only=True),
    _c("systems", "requests_per_s_per_replica", "requests/s", "requests per replica",
        "requests per second of one replica at the point", fleet_only=True),
    _c("systems", "service_s", "s", "service time", "slot holding time at the point (Little's law)", fleet_only=True),
    _c("systems", "queueing_budget_ms", "ms", "queueing budget",
        "the wait the SLO allows after the point's TTFT (with request classes, the shortest of the strictest "
        "attainment target's classes)", fleet_only=True),
    _c("systems", "busy_power_w_per_accelerator", "W", "busy power per accelerator",
        "busy (or measured) power of one accelerator at the point", fleet_only=True),
    _c("systems", "sizing_demand_point", "-", "sized for", "the demand point the fleet is sized for", kind="text"),
    _c("systems", "routing", "-", "routing",
        "the router the answer assumes (`fleet.routing`; `api` for an API system)", kind="enum"),
    _c("systems", "slo_replicas", "replicas", "replicas for the SLO",
        "the SLO and utilisation ceiling, before redundancy", kind="count", fleet_only=True),
    _c("systems", "serving_replicas", "replicas", "serving replicas",
        "replicas that serve: the SLO's; those added for availability and spares stand by",
        kind="count", fleet_only=True),
    _c("systems", "provisioned_replicas", "replicas", "provisioned replicas",
        "the fleet installed", kind="count", fleet_only=True),
    _c("systems", "accelerators", "count", "accelerators", "accelerators installed", kind="count", fleet_only=True),
    _c("systems", "nodes", "count", "nodes", "nodes installed", kind="count", fleet_only=True),
    _c("systems", "racks", "count", "racks", "racks installed", kind="count", fleet_only=True),
    _c("systems", "provisioned_it_kw", "kW", "provisioned IT power", "rated IT power of the fleet", fleet_only=True),
    _c("systems", "mean_it_power_kw_per_rack", "kW per rack", "mean IT power",
        "IT power (not wall power) over the demand day, hour-weighted, / racks; a rented system's racks are the "
        "provider's", fleet_only=True),
    _c("systems", "peak_it_power_kw_per_rack", "kW per rack", "peak IT power",
        "the largest peak IT power of any demand point / racks: what a rack's feed must hold, beside "
        "`rack_power_limit_kw`", fleet_only=True),
    _c("systems", "rack_power_limit_kw", "kW per rack", "rack power limit",
        "the power a rack may be provisioned for (`facility.rack_power_limit_kw` or the system's own); empty for a "
        "rented system (the provider's racks: no limit of the buyer's applies) and an API", fleet_only=True),
    _c("systems", "capex_usd", "USD", "capex", "the fleet's capital expense", kind="usd", fleet_only=True),
    _c("systems", "capital_usd_per_hour", "USD/h", "capital", "capex x capital recovery factor / 8,760 h", kind="usd"),
    _c("systems", "fixed_opex_usd_per_hour", "USD/h", "fixed opex",
        "maintenance, software, operations and facility per provisioned kW, per hour", kind="usd"),
    _c("systems", "headline_tokens_per_s_per_kw", "tokens/s/kW", "headline throughput per kW",
        "the vendor's claim, or derived from the curve", fleet_only=True),
    _c("systems", "headline_power_basis", "-", "headline power basis", "what the headline's kW counts", kind="enum"),
    _c("systems", "headline_is_vendor_claim", "bool", "headline is a vendor claim",
        "claim (true) or derived from the curve (false)", kind="bool"),
    _c("systems", "slo_point_total_tokens_per_facility_kwh", "tokens/kWh", "tokens per wall kWh at the SLO point",
        "one replica flat out at the SLO point, on facility power", fleet_only=True),
    _c("systems", "accepted_requests_per_day", "requests/day", "accepted per day",
        "accepted requests over the demand day"),
    _c("systems", "facility_energy_kwh_per_day", "kWh/day", "wall energy per day",
        "facility energy over the demand day", fleet_only=True),
    _c("systems", "carbon_kg_per_day", "kg CO2e/day", "carbon per day",
        "facility energy over the demand day x the grid's carbon intensity (location-based)", fleet_only=True),
    _c("systems", "blended_carbon_g_per_accepted_request", "g CO2e/request", "carbon per accepted request",
        "carbon over the day / accepted requests over the day", fleet_only=True),
    _c("systems", "usd_per_day", "USD/day", "cost per day", "every cost line over the demand day", kind="usd"),
    _c("systems", "blended_usd_per_accepted_request", "USD/request", "blended cost",
        "cost per accepted request over the day (the demand points weighted by their hours)", kind="usd_per_request"),
    _c("systems", "blended_usd_per_million_accepted_output_tokens", "USD/Mtoken", "blended cost per M output tokens",
        "over the day, per million accepted output tokens", kind="usd"),
    _c("systems", "blended_usd_per_million_accepted_input_tokens", "USD/Mtoken", "blended cost per M input tokens",
        "over the day, per million accepted input tokens", kind="usd"),
    _c("systems", "blended_usd_per_million_accepted_total_tokens", "USD/Mtoken", "blended cost per M tokens",
        "over the day, per million accepted input + output tokens", kind="usd"),
    _c("systems", "revenue_usd_per_day", "USD/day", "revenue per day",
        "with `revenue`: over the day, hour-weighted", kind="usd", when="revenue"),
    _c("systems", "margin_usd_per_day", "USD/day", "margin per day",
        "with `revenue`: revenue - cost over the day", kind="usd", when="revenue"),
    _c("systems", "margin_usd_per_year", "USD/year", "margin per year",
        "with `revenue`: the day's margin x 365", kind="usd", when="revenue"),
    _c("systems", "payback_years", "years", "payback",
        "with `revenue`, owned systems: capex / (yearly revenue - fixed opex and energy); empty when that is not "
        "positive", when="revenue"),
]
# fmt: on

# fmt: off
_COMPARISON = [
    _c("comparison", "system", "-", "system", "the system compared", kind="text"),
    _c("comparison", "baseline", "-", "baseline", "the system it is compared with", kind="text"),
    _c("comparison", "metric", "-", "metric", "what is compared", kind="text"),
    _c("comparison", "unit", "-", "unit", "the unit of the two values", kind="text"),
    _c("comparison", "system_value", "as `unit`", "system", "the system's value"),
    _c("comparison", "baseline_value", "as `unit`", "baseline", "the baseline's value"),
    _c("comparison", "advantage_ratio", "-", "advantage",
        "> 1: the system is better (more tokens or lower cost)", kind="ratio"),
    _c("comparison", "kind", "-", "kind",
        "`claim` (vendor headlines), `derived` (headline from a curve), `modelled`", kind="enum"),
]
# fmt: on

# fmt: off
_CLASSES = [
    _c("classes", "system", "-", "system", "which system", kind="text"),
    _c("classes", "demand_point", "-", "demand point", "which demand point", kind="text"),
    _c("classes", "class", "-", "class", "which request class (`workload.classes[i].name`)", kind="text"),
    _c("classes", "share_fraction", "fraction of arrivals", "share", "the class's share of the arrivals", kind="pct"),
    _c("classes", "input_tokens", "tokens", "input tokens",
        "mean input tokens per request, prefix-cached ones included"),
    _c("classes", "output_tokens", "tokens", "output tokens", "mean output tokens per request"),
    _c("classes", "prefix_hit_fraction", "fraction of input", "prefix hits",
        "share of each request's input served from the prefix cache (no prefill; an API bills it cached)", kind="pct"),
    _c("classes", "offered_rps", "requests/s", "offered", "the class's arrivals: its share of the point's"),
    _c("classes", "admitted_rps", "requests/s", "admitted",
        "admitted by admission control, which admits every class alike"),
    _c("classes", "accepted_rps", "requests/s", "accepted within SLO",
        "served within the class's own SLO: admitted x P(wait <= its budget)"),
    _c("classes", "rejected_rps", "requests/s", "rejected", "offered - accepted"),
    _c("classes", "rejected_fraction", "fraction of offered", "rejected", "rejected / offered", kind="pct"),
    _c("classes", "service_s", "s", "service time",
        "the class's mean slot holding time at the in-service concurrency: S x e_k / e (model.md, Request classes)",
        fleet_only=True),
    _c("classes", "slot_time_fraction", "fraction of slot time", "share of slot time",
        "share_k S_k / sum_j share_j S_j: the share of the fleet's cost the class bears", kind="pct"),
    _c("classes", "ttft_ms", "ms", "TTFT at this load",
        "the class's TTFT before fleet queueing: the mix's x its uncached input over the mix's mean", fleet_only=True),
    _c("classes", "queueing_budget_ms", "ms", "queueing budget",
        "the wait its SLO allows after its TTFT at this load (negative: it misses before queueing)", fleet_only=True),
    _c("classes", "ttft_p99_ms", "ms", "p99 TTFT incl. queueing",
        "its TTFT at the p99 occupancy a request starts at, plus the shared queue's p99 wait", fleet_only=True),
    _c("classes", "tpot_p99_ms", "ms", "p99 TPOT",
        "TPOT at the p99 occupancy (the batch's, the same for every class)", fleet_only=True),
    _c("classes", "total_usd_per_hour", "USD/h", "cost",
        "its share of the fleet's cost per hour (by slot time; an API: its requests at the prices)", kind="usd"),
    _c("classes", "usd_per_accepted_request", "USD/request", "cost per accepted",
        "its cost per hour / its accepted requests per hour", kind="usd_per_request"),
    _c("classes", "usd_per_million_accepted_output_tokens", "USD/Mtoken", "cost per M accepted output tokens",
        "its cost per million of its accepted output tokens", kind="usd"),
    _c("classes", "revenue_usd_per_hour", "USD/h", "revenue",
        "with `revenue`: its accepted requests' tokens at the prices", kind="usd", when="revenue"),
]
# fmt: on

# fmt: off
_SITE = [
    _c("site", "system", "-", "system", "the system", kind="text"),
    _c("site", "max_it_power_kw", "kW", "site IT power", "the site's IT power budget used"),
    _c("site", "max_replicas", "replicas", "replicas that fit",
        "the most replicas whose rated IT power, packed as the fleet is, fits the budget", kind="count"),
    _c("site", "serving_replicas", "replicas", "serving replicas",
        "of those, the replicas that serve once availability and spares hold some back", kind="count"),
    _c("site", "accelerators", "count", "accelerators", "accelerators of that fleet", kind="count"),
    _c("site", "nodes", "count", "nodes", "nodes of that fleet", kind="count"),
    _c("site", "racks", "count", "racks", "racks of that fleet", kind="count"),
    _c("site", "rated_it_kw", "kW", "rated IT power", "its rated (provisioned) IT power, at most the budget"),
    _c("site", "sized_rated_it_kw", "kW", "rated IT power as sized",
        "rated IT power of the fleet `rackcost evaluate` sizes for the demand, for comparison"),
    _c("site", "prefill_replicas", "replicas", "prefill replicas",
        "a disaggregated system: of `max_replicas`, the prefill pool's, in the split of the budget that carries the "
        "most within the SLO (empty for an aggregated system)", kind="count"),
    _c("site", "decode_replicas", "replicas", "decode replicas",
        "a disaggregated system: of `max_replicas`, the decode pool's (empty for an aggregated system)", kind="count"),
    _c("site", "capacity_at_slo_rps", "requests/s", "capacity at SLO",
        "the largest arrival rate the serving replicas carry within the SLO"),
    _c("site", "accepted_rps_per_mw", "requests/s/MW", "capacity per MW", "`capacity_at_slo_rps` per MW of the budget"),
    _c("site", "output_tokens_per_s_per_mw", "tokens/s/MW", "output per MW",
        "the same in output tokens (x output tokens per request)"),
    _c("site", "unserved_rps", "requests/s", "unserved",
        "per demand point (CSV: `unserved_rps[POINT]`): demand above the capacity at SLO", kind="by_point"),
]
# fmt: on

# fmt: off
_POOLS = [
    _c("pools", "system", "-", "system", "the disaggregated system", kind="text"),
    _c("pools", "pool", "-", "pool", "`prefill` or `decode`", kind="enum"),
    _c("pools", "demand_point", "-", "demand point", "which demand point", kind="text"),
    _c("pools", "accelerators_per_replica", "accelerators", "accelerators per replica",
        "accelerators one replica of the pool spans", kind="count"),
    _c("pools", "concurrency", "requests/replica", "concurrency at its SLO point",
        "the pool's chosen operating point: prefills (or requests decoding) in flight per replica"),
    _c("pools", "service_s", "s", "service time",
        "slot holding time at the point: the prefill time, or about OSL x TPOT for decode"),
    _c("pools", "prefill_ms", "ms", "prefill time", "prefill pool: one prefill at the point, before queueing"),
    _c("pools", "transfer_ms", "ms", "KV transfer",
        "prefill pool: the input's KV bytes over the link bandwidth, part of TTFT"),
    _c("pools", "tpot_ms", "ms", "TPOT at its SLO point", "decode pool: TPOT at the point"),
    _c("pools", "queueing_budget_ms", "ms", "queueing budget",
        "the wait the SLO allows in this pool: TTFT limit - prefill - transfer for prefill, 0 for decode"),
    _c("pools", "miss_target_fraction", "fraction of requests", "miss share",
        "the share of requests allowed to miss this pool's part of the SLO (the two add up to 1 - attainment)",
        kind="pct"),
    _c("pools", "slo_replicas", "replicas", "replicas for the SLO",
        "the pool's SLO share and the utilisation ceiling, before redundancy", kind="count"),
    _c("pools", "provisioned_replicas", "replicas", "provisioned replicas", "the pool's replicas installed",
        kind="count"),
    _c("pools", "accelerators", "count", "accelerators", "the pool's accelerators installed", kind="count"),
    _c("pools", "racks", "count", "racks", "the pool's racks", kind="count"),
    _c("pools", "provisioned_it_kw", "kW", "provisioned IT power", "rated IT power of the pool"),
    _c("pools", "capex_usd", "USD", "capex", "the pool's capital expense", kind="usd"),
    _c("pools", "active_replicas", "replicas", "active replicas", "the pool's replicas serving at this point",
        kind="count"),
    _c("pools", "utilization_fraction", "fraction of slots", "slot utilisation",
        "busy share of the pool's serving slots", kind="pct"),
    _c("pools", "met_fraction", "fraction of admitted", "met its part of the SLO",
        "of the requests the pool admits, the share within its budget (decode: that found a free slot)", kind="pct"),
    _c("pools", "capacity_at_slo_rps", "requests/s", "capacity at its SLO share",
        "the largest arrival rate the pool's serving replicas carry within its part of the SLO"),
    _c("pools", "it_power_kw", "kW", "IT power", "the pool's accelerators, hosts and rack overheads"),
    _c("pools", "facility_power_kw", "kW", "wall power", "the pool's IT power x PUE"),
    _c("pools", "capital_usd_per_hour", "USD/h", "capital", "the pool's capex x capital recovery factor / 8,760 h",
        kind="usd"),
    _c("pools", "fixed_opex_usd_per_hour", "USD/h", "fixed opex", "the pool's fixed opex per hour", kind="usd"),
    _c("pools", "energy_usd_per_hour", "USD/h", "energy", "the pool's wall power x the electricity price", kind="usd"),
    _c("pools", "rent_usd_per_hour", "USD/h", "rent", "what the pool's rented accelerators cost at this point",
        kind="usd"),
    _c("pools", "total_usd_per_hour", "USD/h", "total", "every cost line of the pool per hour", kind="usd"),
    _c("pools", "usd_per_accepted_request", "USD/request", "cost",
        "the pool's cost per hour / the system's accepted requests per hour (the two pools add up to the system's)",
        kind="usd_per_request"),
    _c("pools", "cost_share_fraction", "fraction of cost", "share of the system's cost",
        "the pool's total per hour / the system's", kind="pct"),
]
# fmt: on

# fmt: off
_YEARS = [
    _c("years", "system", "-", "system", "which system", kind="text"),
    _c("years", "year", "-", "year", "year of the horizon, from 1", kind="count"),
    _c("years", "hours", "h", "hours", "hours in the year (8,760)", kind="count"),
    _c("years", "cost_usd", "USD", "cost",
        "the year's cost: every hour's capital, fixed opex and energy, or rent, or the API's, of the fleet sized for "
        "the horizon's busiest hour", kind="usd"),
    _c("years", "accepted_requests", "requests", "accepted requests", "requests accepted within the SLO in the year"),
    _c("years", "offered_rps", "requests/s", "offered", "mean arrival rate over the year"),
    _c("years", "accepted_rps", "requests/s", "accepted", "mean accepted rate"),
    _c("years", "rejected_rps", "requests/s", "rejected", "mean rejected rate"),
    _c("years", "utilization_fraction", "-", "utilisation", "mean slot utilisation", kind="pct"),
    _c("years", "active_replicas", "replicas", "active replicas", "mean replicas serving (fewer under `park`)"),
    _c("years", "facility_power_kw", "kW", "wall power", "mean facility power"),
    _c("years", "ramp_lost_rps", "requests/s", "lost to scaling", "mean arrivals lost to `fleet.scaling`'s delay"),
    _c("years", "warm_headroom_replicas", "replicas", "warm headroom", "mean idle replicas held up (delay, minimum)"),
    _c("years", "usd_per_accepted_request", "USD/request", "cost per accepted request",
        "`cost_usd` / `accepted_requests`", kind="usd_per_request"),
    _c("years", "carbon_kg", "kg CO2e", "carbon",
        "every hour's facility energy x that hour's carbon intensity (0 for an API)", fleet_only=True),
    _c("years", "carbon_g_per_accepted_request", "g CO2e/request", "carbon per accepted request",
        "`carbon_kg` x 1,000 / `accepted_requests`", fleet_only=True),
]
_HORIZON = [
    _c("horizon", "system", "-", "system", "which system", kind="text"),
    _c("horizon", "hours", "h", "hours", "hours of the horizon", kind="count"),
    _c("horizon", "cost_usd", "USD", "cost", "the horizon's cost as paid", kind="usd"),
    _c("horizon", "accepted_requests", "requests", "accepted requests", "requests accepted within the SLO"),
    _c("horizon", "usd_per_accepted_request", "USD/request", "cost per accepted request",
        "`cost_usd` / `accepted_requests`", kind="usd_per_request"),
    _c("horizon", "carbon_kg", "kg CO2e", "carbon", "the horizon's carbon (0 for an API)", fleet_only=True),
    _c("horizon", "carbon_g_per_accepted_request", "g CO2e/request", "carbon per accepted request",
        "`carbon_kg` x 1,000 / `accepted_requests`", fleet_only=True),
    _c("horizon", "discount_rate_fraction", "1/year", "discount rate",
        "the first owned system's cost of capital (one rate for every system), else 0", kind="pct"),
    _c("horizon", "npv_cost_usd", "USD", "present value of cost",
        "each hour's cost discounted by `(1 + r)^(-h / 8760)`", kind="usd"),
    _c("horizon", "discounted_accepted_requests", "requests", "discounted accepted requests",
        "each hour's accepted requests discounted the same way"),
    _c("horizon", "levelised_usd_per_accepted_request", "USD/request", "levelised cost per accepted request",
        "`npv_cost_usd` / `discounted_accepted_requests`", kind="usd_per_request"),
]
# fmt: on

_REGISTRY: dict[str, tuple[Column, ...]] = {
    "points": tuple(_POINTS),
    "systems": tuple(_SYSTEMS),
    "comparison": tuple(_COMPARISON),
    "classes": tuple(_CLASSES),
    "site": tuple(_SITE),
    "pools": tuple(_POOLS),
    "years": tuple(_YEARS),
    "horizon": tuple(_HORIZON),
}
_BY_NAME = {(c.table, c.name): c for cols in _REGISTRY.values() for c in cols}
_UNDEFINED_NAMES = {table: frozenset(c.name for c in cols if c.may_be_undefined) for table, cols in _REGISTRY.items()}
"""Each table's :attr:`Column.may_be_undefined` columns, found once (:func:`undefined_as_none` runs on every
evaluation's tables)."""


def columns(table: str, revenue: bool = True, rate_swing: bool = True) -> tuple[Column, ...]:
    """The columns of a table in order (:data:`TABLES`); without the ``revenue`` columns when ``revenue`` is False,
    without the ``rate_swing`` ones when ``rate_swing`` is False (a scenario whose demand points have none).

    Raises
    ------
    KeyError
        For a table that is not one of :data:`TABLES`.
    """
    return tuple(
        c for c in _REGISTRY[table] if (revenue or c.when != "revenue") and (rate_swing or c.when != "rate_swing")
    )


def column_names(table: str, revenue: bool = True, rate_swing: bool = True) -> tuple[str, ...]:
    """The names of :func:`columns`, in order."""
    return tuple(c.name for c in columns(table, revenue, rate_swing))


def in_order(row: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """A row's values in the registry's order (:func:`column_names`): every column, and no other.

    Raises
    ------
    AssertionError
        When the row's columns are not the names given (a bug in the code that made the row).

    Examples
    --------
    >>> in_order({"b": 2, "a": 1}, ("a", "b"))
    {'a': 1, 'b': 2}
    """
    if len(row) == len(names):  # every name found (no KeyError) in a row of as many columns: the same test as
        with contextlib.suppress(KeyError):  # checking each name first, in one pass rather than two (every row)
            return {name: row[name] for name in names}
    extra, missing = sorted(set(row) - set(names)), sorted(set(names) - set(row))
    raise AssertionError(f"a row does not match the registry of columns: extra {extra}, missing {missing}")


def undefined_as_none(table: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with each cost per accepted request or token (:attr:`Column.per_accepted`) that is undefined (NaN:
    nothing was accepted, :func:`rackcost.model.costs.metrics.per_accepted`), and every other
    :attr:`Column.may_be_undefined` value not computed, as None: null in JSON, an empty CSV cell,
    ``-`` in a table. A NaN in any other column is left for :class:`~rackcost.evaluation.results.Result` to refuse
    (a bug).

    Examples
    --------
    >>> undefined_as_none("points", [{"accepted_rps": 0.0, "usd_per_accepted_request": float("nan")}])
    [{'accepted_rps': 0.0, 'usd_per_accepted_request': None}]
    """
    names = _UNDEFINED_NAMES.get(table, frozenset())
    for row in rows:
        for name in names.intersection(row):
            value = row[name]
            if isinstance(value, float) and value != value:  # NaN
                row[name] = None
    return rows


def select(table: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """Column names of a table that a caller carries (a Monte Carlo's, a sweep's), checked against the registry.

    Raises
    ------
    KeyError
        For a name that is not a column of the table.
    """
    for name in names:
        column(table, name)
    return names


def column(table: str, name: str) -> Column:
    """One column of a table.

    Raises
    ------
    KeyError
        Naming the table and the column, for a column the registry does not have.
    """
    try:
        return _BY_NAME[(table, name)]
    except KeyError:
        raise KeyError(f"no column {name!r} in the {table} table (rackcost.evaluation.columns)") from None


_GLOSSARY_HEADINGS = {
    "points": "### `points` (one row per system and demand point)",
    "systems": "### `systems` (one row per system)",
    "comparison": "### `comparison` (one row per system other than the baseline and metric)",
    "classes": "### `classes` (one row per system, demand point and request class; only with `workload.classes`)",
    "site": "### `rackcost site` (one row per system; library: `rackcost.site_budget`)",
    "pools": "### `pools` (one row per disaggregated system, pool and demand point)",
    "years": "### `years` (one row per system and year; only with `demand` as a profile)",
    "horizon": "### `horizon` (one row per system over the horizon; only with `demand` as a profile)",
}


def glossary_markdown() -> str:
    """The "Result columns" section of ``docs/glossary.md``: one table per result table, one row per column."""
    out = [
        "## Result columns",
        "",
        "Written from the registry of result columns, `rackcost.evaluation.columns` (every table, export, header and "
        "chart reads it); `tests/test_docs.py` checks that this section is what `glossary_markdown()` writes.",
        "",
    ]
    for table in TABLES:
        out += [_GLOSSARY_HEADINGS[table], ""]
        if table == "site":
            out += [
                "The largest fleet of each system within `facility.max_it_power_kw` (or `--max-it-power-kw`), at its "
                "chosen operating point (model.md, Site power budget).",
                "",
            ]
        if table == "pools":
            out += [
                "Only in a scenario with a disaggregated system (`systems[i].pools`); each pool sized, powered and "
                "costed on its own (model.md, Disaggregated prefill and decode).",
                "",
            ]
        if table == "years":
            out += [
                "Every hour of the profile's horizon evaluated for the fleet sized for its busiest hour, summed per "
                "year (`rackcost.evaluate_hours` gives the hours, days and months too; model.md, Every hour of the "
                "horizon).",
                "",
            ]
        out += ["| column | unit | meaning |", "|---|---|---|"]
        out += [f"| `{c.name}` | {c.unit} | {c.meaning} |" for c in columns(table)]
        out.append("")
    return "\n".join(out)
