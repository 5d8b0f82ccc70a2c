"""The mix broken down: each request class (``workload.classes``) and each pool of a disaggregated system
(``systems[i].pools``), and where a replica's KV-cache memory caps its operating point (docs/report.md).

The rows come from ``Result.classes`` and ``Result.pools`` (:mod:`rackcost.evaluation.class_tables`,
:mod:`rackcost.evaluation.disaggregated`); what a buyer reads beside them and the tables lack is computed here from
those rows and the scenario: each class's accepted share, its own TTFT limit and attainment target
(:func:`rackcost.scenario.unpack.class_mix`), and its figures blended over the day (hour-weighted, as the systems
table blends the mix). The report's sections (:func:`classes_section`, :func:`pools_section`) and the dashboard's
Results page show the same rows with the same headers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackcost import display
from rackcost.evaluation.columns import BLENDED, Column, column
from rackcost.evaluation.results import kv_cache_warning
from rackcost.reporting.blocks import Block, Bullets, Paragraph, Section, Table, ms, section
from rackcost.units import SECONDS_PER_HOUR, TOKENS_PER_MILLION

if TYPE_CHECKING:
    from rackcost.model.outcomes import SystemOutcome
    from rackcost.scenario.schema import Scenario

__all__ = [
    "CLASS_COLUMNS",
    "COST_SHARING",
    "MIX_COLUMNS",
    "POOL_FLEET_COLUMNS",
    "POOL_POINT_COLUMNS",
    "class_view_rows",
    "classes_section",
    "kv_limit_notes",
    "mix_rows",
    "pool_fleet_rows",
    "pools_section",
    "short_of_target",
]


class _MsColumn(Column):
    """A column of milliseconds read as a limit is: from 100 ms a whole number in full (``2,000`` and ``1,550``,
    not ``2K`` and ``1.55K``), so that a p99 and its limit read alike; below it three significant digits."""

    def format(self, value: Any) -> str:
        if value is None:
            return "-"
        x = float(value)
        return display.count(round(x)) if abs(x) >= 100 else ms(x)


def _in_ms(c: Column) -> Column:
    return _MsColumn(c.name, c.table, c.unit, c.label, c.meaning, c.kind, c.when, c.fleet_only)


# the figures the classes table lacks, as columns of the same kind as the registry's (headers and formats alike)
_ACCEPTED = Column(
    "accepted_fraction",
    "classes",
    "fraction of offered",
    "accepted within its SLO",
    "accepted / offered: the class's share that met its own SLO",
    kind="pct",
)
_TARGET = Column(
    "attainment_fraction",
    "classes",
    "fraction of requests",
    "attainment target",
    "the class's own attainment target at the sizing demand (its slo block's, else the scenario's)",
    kind="pct",
)
_TTFT_LIMIT = _MsColumn(
    "ttft_limit_ms", "classes", "ms", "its TTFT limit", "the class's own TTFT limit, queueing included", kind="num"
)
_TPOT_LIMIT = _MsColumn("tpot_limit_ms", "classes", "ms", "its TPOT limit", "the class's own TPOT limit", kind="num")

MIX_COLUMNS: tuple[Column, ...] = (
    column("classes", "class"),
    column("classes", "share_fraction"),
    column("classes", "input_tokens"),
    column("classes", "output_tokens"),
    column("classes", "prefix_hit_fraction"),
    _TTFT_LIMIT,
    _TPOT_LIMIT,
    _TARGET,
)
"""Columns of the table of the mix: one row per class, what it is and its SLO."""

CLASS_COLUMNS: tuple[Column, ...] = (
    column("classes", "system"),
    column("classes", "demand_point"),
    column("classes", "class"),
    column("classes", "share_fraction"),
    _ACCEPTED,
    _TARGET,
    _in_ms(column("classes", "ttft_p99_ms")),
    _TTFT_LIMIT,
    column("classes", "slot_time_fraction"),
    column("classes", "usd_per_accepted_request"),
    column("classes", "usd_per_million_accepted_output_tokens"),
)
"""Columns of the per-class table (system, demand point, class, then the figures a buyer compares)."""

POOL_FLEET_COLUMNS: tuple[Column, ...] = tuple(
    column("pools", name)
    for name in (
        "system",
        "pool",
        "concurrency",
        "prefill_ms",
        "transfer_ms",
        "tpot_ms",
        "provisioned_replicas",
        "accelerators",
        "racks",
        "provisioned_it_kw",
        "capex_usd",
    )
)
"""Columns of the table of each pool's fleet (one row per disaggregated system and pool)."""

POOL_POINT_COLUMNS: tuple[Column, ...] = tuple(
    column("pools", name)
    for name in (
        "system",
        "pool",
        "demand_point",
        "active_replicas",
        "utilization_fraction",
        "met_fraction",
        "facility_power_kw",
        "total_usd_per_hour",
        "usd_per_accepted_request",
        "cost_share_fraction",
    )
)
"""Columns of the table of each pool at each demand point."""

COST_SHARING = (
    "The fleet's cost is shared between the classes by slot time: at each demand point a class bears the fleet's "
    "cost in proportion to its arrivals times the time each of its requests holds a serving slot (its share of "
    "slot time, p_k S_k / sum_j p_j S_j; docs/model.md, Request classes), counted over the admitted requests, late "
    "ones included, since they hold slots too; an API system's class pays its own tokens at the API's prices."
)
"""How a class's cost is found, in words (the report's and the dashboard's)."""


def _ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def mix_rows(scenario: Scenario) -> list[dict[str, Any]]:
    """One row per request class: its share, mean tokens, prefix hits and its own SLO (:data:`MIX_COLUMNS`); empty
    without ``workload.classes``."""
    from rackcost.scenario.unpack import class_mix

    mix = class_mix(scenario)
    if mix is None:
        return []
    return [
        {
            "class": name,
            "share_fraction": float(mix.share_fraction[k]),
            "input_tokens": float(mix.input_tokens[k]),
            "output_tokens": float(mix.output_tokens[k]),
            "prefix_hit_fraction": float(mix.prefix_hit_fraction[k]),
            "ttft_limit_ms": float(mix.ttft_limit_ms[k]),
            "tpot_limit_ms": float(mix.tpot_limit_ms[k]),
            "attainment_fraction": float(mix.attainment_fraction[k]),
        }
        for k, name in enumerate(mix.names)
    ]


def class_view_rows(scenario: Scenario, classes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``Result.records["classes"]`` with the columns of :data:`CLASS_COLUMNS` the table lacks, and after
    each system's, one row per class blended over the day (demand point ``blended``).

    Per demand point: ``accepted_fraction`` = accepted / offered, the class's ``ttft_limit_ms`` and
    ``attainment_fraction``. Blended, hour-weighted as the systems table blends the mix: the share, the accepted
    fraction sum(accepted x h) / sum(offered x h), the share of slot time sum(cost x h) / sum(system cost x h), the
    cost per accepted request sum(cost per hour x h) / (3,600 x sum(accepted x h)) and per million output tokens that
    over the class's output tokens; no p99 (None: a tail does not blend).

    Parameters
    ----------
    scenario
        The scenario evaluated (its classes' SLOs and its demand points' hours).
    classes
        Rows of the ``classes`` table.

    Returns
    -------
    list of dict
        Keyed by the names of :data:`CLASS_COLUMNS`.
    """
    slo = {r["class"]: r for r in mix_rows(scenario)}
    hours = {d.name: d.hours_per_day for d in scenario.demand}
    out: list[dict[str, Any]] = []
    by_system: dict[str, list[dict[str, Any]]] = {}
    for r in classes:
        by_system.setdefault(r["system"], []).append(r)
    for system, rows in by_system.items():
        system_cost = sum(r["total_usd_per_hour"] * hours[r["demand_point"]] for r in rows)
        for r in rows:
            out.append(
                {
                    **{c.name: r.get(c.name) for c in CLASS_COLUMNS},
                    "accepted_fraction": _ratio(r["accepted_rps"], r["offered_rps"]),
                    "attainment_fraction": slo[r["class"]]["attainment_fraction"],
                    "ttft_limit_ms": slo[r["class"]]["ttft_limit_ms"],
                }
            )
        for name, limits in slo.items():
            mine = [r for r in rows if r["class"] == name]
            offered = sum(r["offered_rps"] * hours[r["demand_point"]] for r in mine)
            accepted = sum(r["accepted_rps"] * hours[r["demand_point"]] for r in mine)
            cost = sum(r["total_usd_per_hour"] * hours[r["demand_point"]] for r in mine)
            per_request = _ratio(cost, accepted * SECONDS_PER_HOUR)
            out.append(
                {
                    "system": system,
                    "demand_point": BLENDED,
                    "class": name,
                    "share_fraction": limits["share_fraction"],
                    "accepted_fraction": _ratio(accepted, offered),
                    "attainment_fraction": limits["attainment_fraction"],
                    "ttft_p99_ms": None,
                    "ttft_limit_ms": limits["ttft_limit_ms"],
                    "slot_time_fraction": _ratio(cost, system_cost),
                    "usd_per_accepted_request": per_request,
                    "usd_per_million_accepted_output_tokens": None
                    if per_request is None
                    else per_request / limits["output_tokens"] * TOKENS_PER_MILLION,
                }
            )
    return out


def short_of_target(rows: list[dict[str, Any]]) -> list[str]:
    """Where a class's accepted share at a demand point is below its attainment target, one sentence each (rows of
    :func:`class_view_rows`; the blended rows are left out: the target is a point's)."""
    return [
        f"{r['system']} at {r['demand_point']}: {r['class']} {display.pct(r['accepted_fraction'])} accepted within its "
        f"SLO, below its target of {display.pct(r['attainment_fraction'])}."
        for r in rows
        if r["demand_point"] != BLENDED
        and r["accepted_fraction"] is not None
        and r["accepted_fraction"] < r["attainment_fraction"]
    ]


def _table(table_id: str, columns: tuple[Column, ...], rows: list[dict[str, Any]], keys: int) -> Table:
    return Table(
        table_id,
        [(c.name, c.header) for c in columns],
        [[c.format(r.get(c.name)) for c in columns] for r in rows],
        keys=keys,
    )


def classes_section(scenario: Scenario, result: Any) -> Section | None:
    """The "Request classes" section: the mix and its SLOs, then each class at each demand point of each system and
    blended over the day; None without ``workload.classes``."""
    classes = result.records.get("classes")
    if not classes:
        return None
    rows = class_view_rows(scenario, classes)
    blocks: list[Block] = [
        Paragraph(
            "The workload is a mix of request classes. Each class has its own shape and its own SLO (a limit it does "
            "not give is the scenario's); every class waits in the same queue, admission control admits every class "
            "alike, and a class's request is accepted when it meets the class's own SLO. The other sections give "
            "the mix as a whole."
        ),
        _table("mix", MIX_COLUMNS, mix_rows(scenario), keys=1),
        Paragraph(COST_SHARING),
        _table("classes", CLASS_COLUMNS, rows, keys=3),
        Paragraph(
            "p99 TTFT incl. queueing is the class's TTFT at the p99 occupancy a request starts at plus the shared "
            "queue's p99 wait, beside its own TTFT limit; a class with a target below 99% may pass the limit at its "
            f"p99 and still meet its target. Rows '{BLENDED}' are the day, hour-weighted: the accepted share of the "
            "day's requests, the class's share of the day's cost, and its cost over its accepted requests."
        ),
    ]
    if short := short_of_target(rows):
        blocks += [Paragraph("Below its attainment target:", strong=True), Bullets(short)]
    return section("classes", blocks)


def pool_fleet_rows(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per disaggregated system and pool, from ``Result.records["pools"]`` (what a pool is does not change
    with the demand point: its first point's row)."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for r in pools:
        seen.setdefault((r["system"], r["pool"]), r)
    return [{c.name: r[c.name] for c in POOL_FLEET_COLUMNS} for r in seen.values()]


def _pool_sentence(system: str, rows: list[dict[str, Any]], sizing: str) -> str:
    fleet = {r["pool"]: r for r in pool_fleet_rows(rows)}
    at = {r["pool"]: r for r in rows if r["demand_point"] == sizing}
    parts = [
        f"{display.count(fleet[p]['provisioned_replicas'])} {p} replicas "
        f"({display.count(fleet[p]['accelerators'])} accelerators)"
        for p in fleet
    ]
    shares = ", ".join(f"the {p} pool {display.pct(at[p]['cost_share_fraction'])}" for p in at)
    return f"{system}: {' and '.join(parts)}; at {sizing} demand, of its cost, {shares}."


def pools_section(scenario: Scenario, result: Any) -> Section | None:
    """The "Prefill and decode pools" section: each pool's fleet, and each pool at each demand point (replicas,
    utilisation, wall power, cost and its share of the system's); None without a disaggregated system."""
    pools = result.records.get("pools")
    if not pools:
        return None
    sizing = scenario.sizing_point.name
    systems = list(dict.fromkeys(r["system"] for r in pools))
    blocks: list[Block] = [
        Paragraph(
            "A disaggregated system runs each request's prefill on a replica of its prefill pool, sends the KV cache "
            "of the input over a link, and decodes on a replica of its decode pool. Each pool is sized for its part "
            "of the SLO (the TTFT limit for prefill, the TPOT limit for decode, the allowed misses shared between "
            "them), and powered and costed on its own; the system's figures in the other sections are both pools' "
            "together, and the two pools' costs per accepted request add up to the system's."
        ),
        *[Paragraph(_pool_sentence(s, [r for r in pools if r["system"] == s], sizing)) for s in systems],
        _table("pools", POOL_FLEET_COLUMNS, pool_fleet_rows(pools), keys=2),
        _table("pool-points", POOL_POINT_COLUMNS, pools, keys=3),
        Paragraph(
            "Met its part of the SLO: of the requests the pool admits, the share within its budget (decode: that "
            "found a free slot). Wall power is the pool's IT power times PUE."
        ),
    ]
    return section("pools", blocks)


def kv_limit_notes(scenario: Scenario, outcomes: list[SystemOutcome]) -> list[str]:
    """Where a replica's KV-cache memory left out operating points that meet the SLO (so the operating point is the
    memory's, not the curve's), one sentence per such system
    (:func:`rackcost.evaluation.results.kv_cache_warning`)."""
    return [note for o in outcomes if (note := kv_cache_warning(scenario, o)) is not None]
