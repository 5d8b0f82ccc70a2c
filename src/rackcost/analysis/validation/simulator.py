"""Analytic against simulated: for every bundled scenario, every system and every router the simulator has, the
accepted share and p99 TTFT the model gives beside the simulator's, with its 95% interval and whether it covers the
analytic value.

Each scenario is simulated at its sizing point (the demand point its fleet is sized for, where the fleet is most
loaded) through :func:`rackcost.analysis.referee.simulate`: the fleet as sized, service read from the curve at each
replica's occupancy, Poisson arrivals at the rate the model admits. A router with an analytic form (pooled,
least_outstanding, random) is set as the scenario's ``fleet.routing`` first, so the fleet is sized and the analytic
figures computed under that router; one without (round_robin, power_of_two) is simulated on the fleet as sized under
the scenario's own router, and only the simulated value is reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from rackcost.analysis.referee import DEFAULT_ROUTING, simulate
from rackcost.analysis.validation.sections import (
    SectionTable,
    SimulationBudget,
    ValidationContext,
    ValidationSection,
)
from rackcost.errors import ScenarioError
from rackcost.model.sim.simulation import WARMUP_FRACTION
from rackcost.model.strategies import Routing
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario

__all__ = [
    "COLUMNS",
    "RULE_OF_THREE",
    "covers",
    "scenario_rows",
    "share_resolution",
    "simulator_section",
    "with_routing",
]

COLUMNS = [
    "scenario",
    "system",
    "routing",
    "replicas_x_slots",
    "analytic_accepted_fraction",
    "simulated_accepted_fraction",
    "simulated_accepted_fraction_ci95_halfwidth",
    "accepted_covered",
    "analytic_ttft_p99_ms",
    "simulated_ttft_p99_ms",
    "simulated_ttft_p99_ms_ci95_halfwidth",
    "ttft_p99_covered",
    "ttft_p99_relative_error_fraction",
    "seconds_per_replication_s",
    "note",
]
"""The columns of the section's table, one row per scenario, system and router."""


RULE_OF_THREE = 3.0
"""With none of ``n`` measured requests missing, the 95% upper bound on the miss share is about ``3 / n`` (the
rule of three): the accepted share's interval is never narrower than that [-]."""


def share_resolution(requests: int) -> float:
    """The narrowest half-width an accepted share from ``requests`` simulated requests can claim [-]:
    :data:`RULE_OF_THREE` over the requests measured (those after the warm-up).

    Examples
    --------
    >>> round(share_resolution(4_000), 6)
    0.000833
    """
    return RULE_OF_THREE / max(requests * (1.0 - WARMUP_FRACTION), 1.0)


def covers(analytic: float | None, simulated: float, halfwidth: float | None, floor: float = 0.0) -> bool | None:
    """Whether the simulator's 95% interval ``simulated +- max(halfwidth, floor)`` contains the analytic value.

    None when there is no analytic value or no finite interval. Replications that all give the same value (every
    request accepted) have an interval of zero width: ``floor`` (:func:`share_resolution` for a share) keeps it
    from claiming more than the requests can tell.

    Examples
    --------
    >>> covers(0.99, 0.985, 0.01), covers(0.9998, 1.0, 0.0), covers(0.9998, 1.0, 0.0, 1e-3), covers(None, 0.5, 0.1)
    (True, False, True, None)
    """
    if analytic is None or halfwidth is None or not math.isfinite(halfwidth):
        return None
    return abs(simulated - analytic) <= max(halfwidth, floor)


def with_routing(scenario: Scenario, routing: Routing) -> Scenario:
    """The scenario with ``fleet.routing`` set (validated again, so the fleet is sized under that router)."""
    data = scenario_to_data(scenario)
    data.setdefault("fleet", {})["routing"] = routing.value
    return scenario_from_dict(data, f"{scenario.name} (routing {routing.value})")


def scenario_rows(
    file_name: str, scenario: Scenario, budget: SimulationBudget, seed: int, routers: Sequence[Routing] = tuple(Routing)
) -> list[dict[str, Any]]:
    """One scenario's rows (:data:`COLUMNS`): each system at the sizing point under each router.

    Parameters
    ----------
    file_name
        The scenario's file name, for the table.
    scenario
        The scenario.
    budget
        Requests and replications per system and router.
    seed
        The simulator's seed [-].
    routers
        The routers (default: every one).
    """
    own = scenario.fleet.routing if scenario.fleet is not None else DEFAULT_ROUTING
    point = scenario.sizing_point.name
    rows: list[dict[str, Any]] = []
    for router in routers:
        base = {"scenario": file_name, "routing": router.value}
        try:
            target = with_routing(scenario, router) if router.analytic and router != own else scenario
            simulated = simulate(
                target,
                demand_point=point,
                requests=budget.requests,
                seed=seed,
                routing=router.value,
                replications=budget.replications,
            )
        except (ScenarioError, ValueError) as exc:
            rows.append(base | {"system": "(every system)", "note": f"not simulated: {str(exc).splitlines()[0]}"})
            continue
        for r in simulated:
            rows.append(base | _row(r, router, own, budget))
    return rows


def _row(r: dict[str, Any], router: Routing, own: str, budget: SimulationBudget) -> dict[str, Any]:
    analytic = router.analytic
    accepted = r["analytic_accepted_fraction"] if analytic else None
    ttft = r["analytic_ttft_p99_ms"] if analytic else None
    notes = [] if analytic else [f"simulation only (no analytic form); the fleet as sized under {own}"]
    if r["note"]:
        notes.append(r["note"])
    if r.get("warnings"):
        notes.append(f"warning: {r['warnings']}")
    return {
        "system": r["system"],
        "replicas_x_slots": f"{r['replicas_serving']} x {r['slots_per_replica']}",
        "analytic_accepted_fraction": accepted,
        "simulated_accepted_fraction": r["simulated_accepted_fraction"],
        "simulated_accepted_fraction_ci95_halfwidth": r["simulated_accepted_fraction_ci95_halfwidth"],
        "accepted_covered": covers(
            accepted,
            r["simulated_accepted_fraction"],
            r["simulated_accepted_fraction_ci95_halfwidth"],
            share_resolution(r["requests"]),
        ),
        "analytic_ttft_p99_ms": ttft,
        "simulated_ttft_p99_ms": r["simulated_ttft_p99_ms"],
        "simulated_ttft_p99_ms_ci95_halfwidth": r["simulated_ttft_p99_ms_ci95_halfwidth"],
        "ttft_p99_covered": covers(ttft, r["simulated_ttft_p99_ms"], r["simulated_ttft_p99_ms_ci95_halfwidth"]),
        "ttft_p99_relative_error_fraction": r["ttft_p99_relative_error_fraction"] if analytic else None,
        "seconds_per_replication_s": budget.requests_per_replication / r["arrival_rps"] if r["arrival_rps"] else None,
        "note": "; ".join(notes),
    }


_HEADERS = {
    "scenario": "scenario",
    "system": "system",
    "routing": "router",
    "replicas_x_slots": "replicas x slots",
    "analytic_accepted_fraction": "accepted, analytic",
    "simulated_accepted_fraction": "accepted, simulated",
    "simulated_accepted_fraction_ci95_halfwidth": "± 95%",
    "accepted_covered": "covered",
    "analytic_ttft_p99_ms": "p99 TTFT ms, analytic",
    "simulated_ttft_p99_ms": "p99 TTFT ms, simulated",
    "simulated_ttft_p99_ms_ci95_halfwidth": "± 95%",
    "ttft_p99_covered": "covered",
    "ttft_p99_relative_error_fraction": "p99 TTFT error",
    "seconds_per_replication_s": "s per replication",
    "note": "note",
}
_FORMATS = {
    "analytic_accepted_fraction": "{:.4f}",
    "simulated_accepted_fraction": "{:.4f}",
    "simulated_accepted_fraction_ci95_halfwidth": "{:.4f}",
    "analytic_ttft_p99_ms": "{:,.0f}",
    "simulated_ttft_p99_ms": "{:,.0f}",
    "simulated_ttft_p99_ms_ci95_halfwidth": "{:,.0f}",
    "ttft_p99_relative_error_fraction": "{:+.1%}",
    "seconds_per_replication_s": "{:,.1f}",
}
_SUMMARY_HEADERS = {
    "routing": "router",
    "rows": "systems simulated",
    "accepted_covered": "accepted: interval covers analytic",
    "accepted_gap_max_fraction": "accepted: largest |simulated - analytic|",
    "ttft_p99_covered": "p99 TTFT: interval covers analytic",
    "ttft_p99_error_max_fraction": "p99 TTFT: largest |relative error|",
    "simulated_accepted_min_fraction": "lowest simulated accepted",
}
_SUMMARY_FORMATS = {
    "accepted_gap_max_fraction": "{:.4f}",
    "ttft_p99_error_max_fraction": "{:.1%}",
    "simulated_accepted_min_fraction": "{:.4f}",
}


def _count(flags: list[bool | None]) -> str:
    known = [f for f in flags if f is not None]
    return f"{sum(known)} of {len(known)}" if known else "no analytic form"


def _largest(values: list[float | None]) -> float | None:
    known = [abs(v) for v in values if v is not None and math.isfinite(v)]
    return max(known) if known else None


def _summary(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Per router: how often the interval covers the analytic value, the largest gaps, the lowest simulated share."""
    out = []
    for router in Routing:
        part = [r for r in rows if r["routing"] == router.value and r.get("simulated_accepted_fraction") is not None]
        gaps = [
            None
            if r["analytic_accepted_fraction"] is None
            else r["simulated_accepted_fraction"] - r["analytic_accepted_fraction"]
            for r in part
        ]
        lowest = [r["simulated_accepted_fraction"] for r in part]
        out.append(
            {
                "routing": router.value,
                "rows": len(part),
                "accepted_covered": _count([r["accepted_covered"] for r in part]),
                "accepted_gap_max_fraction": _largest(gaps),
                "ttft_p99_covered": _count([r["ttft_p99_covered"] for r in part]),
                "ttft_p99_error_max_fraction": _largest([r["ttft_p99_relative_error_fraction"] for r in part]),
                "simulated_accepted_min_fraction": min(lowest) if lowest else None,
            }
        )
    return pd.DataFrame(out, columns=list(_SUMMARY_HEADERS)).astype(object)


def simulator_section(context: ValidationContext) -> ValidationSection:
    """Analytic against simulated accepted share and p99 TTFT, for every bundled scenario, system and router."""
    budget, seed = context.budget, context.seed
    rows = [r for name, sc in context.scenarios for r in scenario_rows(name, sc, budget, seed)]
    frame = pd.DataFrame(rows, columns=COLUMNS).astype(object)
    summary = _summary(rows)
    judged = [r for r in rows if r.get("accepted_covered") is not None]
    covered = sum(1 for r in judged if r["accepted_covered"])
    headline = f"accepted share: the simulator's 95% interval covers the analytic value for {covered} of {len(judged)}"
    headline += " systems x routers with an analytic form"
    if judged:
        worst = max(judged, key=lambda r: abs(r["simulated_accepted_fraction"] - r["analytic_accepted_fraction"]))
        gap = abs(worst["simulated_accepted_fraction"] - worst["analytic_accepted_fraction"])
        headline += f"; largest gap {gap:.3f} ({worst['system']}, {worst['routing']}, {worst['scenario']})"
    spans = [r["seconds_per_replication_s"] for r in rows if r.get("seconds_per_replication_s") is not None]
    span = f"{min(spans):,.1f} to {max(spans):,.1f} s" if spans else "-"
    text = [
        "Every fleet system of every bundled scenario, at the scenario's sizing point (the demand point its fleet "
        "is sized for), simulated by `rackcost simulate` (discrete events; service read from the curve at each "
        "replica's occupancy; Poisson arrivals at the rate the model admits; the model's acceptance rule: a request "
        "is accepted when its wait fits the queueing budget the SLO leaves) under every router the simulator has. "
        "For pooled, least_outstanding and random the router is set as the scenario's `fleet.routing` first, so "
        "the fleet is sized and the analytic figures computed under that router (random: independent M/M/c "
        "queues, so more replicas). round_robin and power_of_two have no analytic form: they are simulated on the "
        "fleet as sized under the scenario's own router, and only the simulated value is shown.",
        f"Budget `{budget.name}`: {budget.requests:,} simulated requests per system and router in "
        f"{budget.replications} independent replications of {budget.requests_per_replication:,} requests each "
        f"({span} of simulated time per replication, the first 10% of requests discarded as warm-up), seed {seed}. "
        'The interval is the 95% confidence half-width over the replications; "covered" says whether '
        "analytic lies within simulated ± half-width. Where every replication gives the same share (all accepted) "
        "the half-width is 0; the accepted share's is then taken as 3 / n for n measured requests (the rule of "
        f"three: {share_resolution(budget.requests):.2g} here), no narrower than the requests can tell.",
        "Read the disagreement as it is: nothing here is corrected. Under round_robin and random each replica "
        "is its own queue, which near saturation needs thousands of seconds to reach its steady state, far "
        f"longer than a replication ({span} here); those runs start in the steady state of their router "
        "(docs/model.md, Simulation: exact for Poisson arrivals and exponential work), so the figures are the "
        "steady state's however short the run, and a row warns where its interval cannot be trusted. The analytic "
        "random figure is exact for its model (independent M/M/c queues). The p99 TTFT of the model is read over "
        "the occupancy a request starts at (docs/model.md, step 6); at default budgets the "
        "simulated p99's interval is wide near saturation (benchmarks/p99_agreement.py runs 2,000,000 requests).",
    ]
    return ValidationSection(
        "simulator",
        "Analytic against simulated, every bundled scenario and router",
        "measured",
        headline,
        "\n\n".join(text),
        (
            SectionTable("By router, over every scenario and system", summary, _SUMMARY_HEADERS, _SUMMARY_FORMATS),
            SectionTable("Each scenario, system and router at the sizing point", frame, _HEADERS, _FORMATS),
        ),
        {
            "budget": budget.name,
            "requests": f"{budget.requests}",
            "replications": f"{budget.replications}",
            "seed": f"{seed}",
            "service": "load_dependent",
        },
    )
