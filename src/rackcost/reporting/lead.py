"""The report's first two pages, for a reader who will not read further: the decision (the one wording of
:mod:`rackcost.reporting.decision`), what each system costs per year and over the years that matter, its capex, its
racks and their power per rack beside the rack limit, how sure the answer is, and what would change it. Plain words:
inputs are named by :func:`rackcost.scenario.labels.input_label`, never by their YAML path (the appendix has those).

**Years.** Cost per year is the demand day's cost x 365 (``usd_per_day``). The total is over a demand profile's
horizon where the scenario has one (the library's ``horizon`` table: every hour with the demand's growth, as paid),
else over the longest service life of the owned systems, every system over the same years (a rented system or an
API is paid as used; an owned system's capex is recovered over its own life): the rule of the dashboard's Answer
page.
"""

from __future__ import annotations

import re
from typing import Any

from rackcost import display
from rackcost.analysis.explore import path_in, with_systems
from rackcost.evaluation.columns import BLENDED, column
from rackcost.model.strategies import Payment
from rackcost.reporting.blocks import NOT_APPLICABLE, Block, KeyFigures, Paragraph, Section, Subheading, Table, section
from rackcost.reporting.charts import ChartSubset
from rackcost.reporting.decision import Decision, answer_sentence
from rackcost.scenario.edits import edited_paths
from rackcost.scenario.hardware_blocks import finance_term
from rackcost.scenario.labels import input_label
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.schema import Scenario
from rackcost.units import DAYS_PER_YEAR, HOURS_PER_YEAR

__all__ = ["PAID_AS", "cost_years", "how_sure_paragraph", "lead_section", "what_would_change"]

PAID_AS = {
    Payment.own: "owned",
    Payment.rent_reserved: "rented, reserved",
    Payment.rent_on_demand: "rented on demand",
    Payment.api: "API, per token",
}
"""How each way of paying reads in the lead."""

TOP_INPUTS = 3
"""Inputs of largest swing the lead names (the Uncertainty section's tornado has every one)."""


def cost_years(scenario: Scenario, result: Any) -> tuple[float | None, bool]:
    """The years the lead totals each system's cost over, and whether they are a demand profile's horizon (module
    docstring); None when there is neither a profile nor an owned system."""
    over = result.records.get("horizon") or []
    if over:
        return max(r["hours"] for r in over) / HOURS_PER_YEAR, True
    lives = [
        finance_term(s.costs, scenario.finance, "service_life_years")[0] or 0.0
        for s in scenario.systems
        if s.payment.owned and s.costs is not None
    ]
    return (max(lives) if lives else None), False


def lead_section(
    scenario: Scenario, result: Any, lead: Decision, mc: Any, ranked: list[dict[str, Any]] | None, subset: ChartSubset
) -> Section:
    """The first section of the report (id ``summary``): two printed pages at most for the bundled scenarios.

    Parameters
    ----------
    scenario, result
        The scenario as served and its tables.
    lead
        The decision (:func:`rackcost.reporting.decision.decision`).
    mc
        The Monte Carlo's result, or None.
    ranked
        The tornado's rows (:func:`rackcost.analysis.sensitivity.tornado`), or None without a Monte Carlo.
    subset
        The systems the charts draw: above that many, the answer names those and counts the others.
    """
    every = result.records["systems"]
    drawn = set(subset.systems)
    blocks: list[Block] = []
    if lead.plan is not None:  # the plan's answer is the decision; each system alone is a single-source comparison
        blocks += [
            Paragraph(f"{lead.sentence[:-1]} (section Buying plan).", strong=True),
            Paragraph(f"Each system alone, a single-source comparison: {_lower_first(answer_sentence(every, drawn))}"),
        ]
    else:
        blocks.append(Paragraph(answer_sentence(every, drawn), strong=True))
    blocks += _left_out(scenario, result)
    rows = [r for r in every if r["system"] in drawn]
    years, profile = cost_years(scenario, result)
    blocks += _cost_blocks(rows, result, years, profile, figures=lead.plan is None)
    blocks += _rack_blocks(rows)
    blocks += [Subheading("How sure is it"), how_sure_paragraph(scenario, result, mc)]
    blocks += [Subheading("What would change the answer"), *what_would_change(scenario, result, ranked)]
    if result.warnings:
        n = len(result.warnings)
        blocks.append(
            Paragraph(
                f"{n} warning{'s' if n > 1 else ''} say where the comparison is not like for like (appendix, Warnings)."
            )
        )
    return section("summary", blocks)


def _left_out(scenario: Scenario, result: Any) -> list[Block]:
    """The systems that cannot serve, and the figures edited from the file as published, in plain names."""
    from rackcost.reporting.result_sections import unserved_sentence

    names = [s.name for s in scenario.systems]
    demand = [d.name for d in scenario.demand]
    blocks: list[Block] = [
        # (the YAML path the sentence ends with is for the appendix's reader: left out here)
        Paragraph(f"{u['system']} is not in this report: {unserved_sentence({**u, 'path': ''})[:-4]}.", strong=True)
        for u in getattr(result, "unserved", [])
    ]
    if edited := edited_paths(scenario_to_data(scenario)):
        plain = [input_label(p, names, demand) for p in edited[:8]]
        shown = "; ".join(plain) + (f" and {len(edited) - 8:,} more" if len(edited) > 8 else "")
        blocks.append(
            Paragraph(
                f"This scenario was edited: {len(edited):,} "
                + ("figures differ" if len(edited) != 1 else "figure differs")
                + f" from the file as published ({shown}); each is labelled the user's assumption in the "
                "appendix (Provenance).",
                strong=True,
            )
        )
    return blocks


def _cost_blocks(
    rows: list[dict[str, Any]], result: Any, years: float | None, profile: bool, figures: bool = True
) -> list[Block]:
    """Each system's cost per 1,000 accepted requests, per year, over ``years`` and its capex; the cheapest's large
    (``figures``: not where a buying plan is the decision, whose sentence gives its cost)."""
    over = {r["system"]: r["cost_usd"] for r in result.records.get("horizon") or []}
    span = None if years is None else f"{display.num(years)} year{'' if years == 1 else 's'}"

    def total(r: dict[str, Any]) -> str:
        if years is None:
            return NOT_APPLICABLE
        value = over.get(r["system"]) if profile else r["usd_per_day"] * DAYS_PER_YEAR * years
        return NOT_APPLICABLE if value is None else display.money(value)

    def capex(r: dict[str, Any]) -> str:
        paid = Payment(r["payment"])
        return display.money(r["capex_usd"]) if paid.owned else "none (rented)" if paid.rented else "none (API)"

    per_1k = column("systems", "blended_usd_per_accepted_request")
    columns = [("system", "system"), ("payment", "paid as"), (per_1k.name, per_1k.header)]
    columns += [("usd_per_year", "cost per year [USD/year]")]
    columns += [] if span is None else [("usd_over_years", f"cost over {span} [USD]")]
    columns += [("capex_usd", "capex [USD]")]
    table = Table(
        "lead-cost",
        columns,
        [
            [r["system"], PAID_AS[Payment(r["payment"])], per_1k.format(r[per_1k.name])]
            + [display.money(r["usd_per_day"] * DAYS_PER_YEAR)]
            + ([] if span is None else [total(r)])
            + [capex(r)]
            for r in rows
        ],
    )
    cheapest = min(rows, key=lambda r: display.cost_order(r[per_1k.name]))
    large = [
        (f"{cheapest['system']}: cost per 1,000 accepted requests", per_1k.format(cheapest[per_1k.name])),
        (f"{cheapest['system']}: cost per year", display.money(cheapest["usd_per_day"] * DAYS_PER_YEAR)),
    ]
    if span is not None:
        large.append((f"{cheapest['system']}: cost over {span}", total(cheapest)))
    large.append((f"{cheapest['system']}: capex", capex(cheapest)))
    how = (
        "each system alone over the demand profile's horizon, every hour with the demand's growth, as paid"
        if profile
        else "the cost per year over the longest service life of the owned systems, every system over the same "
        "years (capex is recovered over each system's own life, with its cost of capital)"
    )
    words = "Cost per year: the demand day's cost (capital recovery, fixed opex, energy, rent or API) x 365."
    if span is not None:
        words += f" Over {span}: {how}."
    blocks: list[Block] = [KeyFigures(large)] if figures else []
    return blocks + [Subheading("What each system costs"), table, Paragraph(words)]


def _rack_blocks(rows: list[dict[str, Any]]) -> list[Block]:
    """Racks and IT power per rack beside the rack power limit; a rented system's racks are the provider's."""
    fleet = [r for r in rows if Payment(r["payment"]).has_fleet]
    if not fleet:
        return [Paragraph("No system runs hardware of the buyer's: there are no racks to power.")]
    mean, peak, limit = (
        column("systems", n) for n in ("mean_it_power_kw_per_rack", "peak_it_power_kw_per_rack", "rack_power_limit_kw")
    )

    def racks(r: dict[str, Any]) -> str:
        owned = Payment(r["payment"]).owned
        return display.count(r["racks"]) + ("" if owned else " (the provider's)")

    table = Table(
        "lead-racks",
        [("system", "system"), ("racks", "racks [count]")] + [(c.name, c.header) for c in (mean, peak, limit)],
        [
            [r["system"], racks(r), mean.format(r[mean.name]), peak.format(r[peak.name])]
            + [limit.format(r[limit.name]) if r[limit.name] is not None else "none (the provider's racks)"]
            for r in fleet
        ],
    )
    said = []
    for r in fleet:
        if r[limit.name] is None:
            continue
        over = r[peak.name] > r[limit.name] * (1 + 1e-12)
        said.append(
            f"The racks of {r['system']} draw {display.num(r[mean.name])} kW on average and "
            f"{display.num(r[peak.name])} kW at peak, "
            + (
                f"above the {display.num(r[limit.name])} kW a rack may be provisioned for."
                if over
                else f"within the {display.num(r[limit.name])} kW limit."
            )
        )
    words = (
        "IT power per rack (accelerators, hosts and rack overheads; the wall adds the PUE's share for cooling "
        "outside the rack): the mean over the demand day and the peak of the busiest demand point. "
    )
    return [Subheading("Racks and power per rack"), table, Paragraph(words + " ".join(said))]


def how_sure_paragraph(scenario: Scenario, result: Any, mc: Any) -> Paragraph:
    """How sure the answer is, in words: the one place the report says it.

    The sentence is :func:`rackcost.reporting.how_sure.how_sure`'s (the system cheapest at the central figures
    against the next cheapest, blended over the day, with the likelihood word). With the report's Monte Carlo (the
    scenario's own distributions) it words that run and adds the cheapest system's P5 to P95 cost; without one, it
    draws the model's default spreads (each figure's provenance and the model's fitted errors, docs/uncertainty.md)
    for the sentence alone, so every report says how sure it is and no uncertainty section is added.
    """
    from rackcost.reporting.how_sure import how_sure  # runs the Monte Carlo: loaded when a report is written

    systems = result.records["systems"]
    if len(systems) < 2:
        return Paragraph("One system only: there is nothing to compare it with, so no probability is given.")
    cost = "blended_usd_per_accepted_request"
    cheapest = min(systems, key=lambda r: display.cost_order(r[cost]))["system"]
    if mc is None:
        sentence = how_sure(scenario)
        return Paragraph(
            f"{sentence} The spreads are the model's defaults, as no input of this scenario is given as a "
            "distribution: each figure's width follows its provenance (vendor, collaborative, independent, "
            "assumption) and the model's measured errors; `rackcost uncertainty` lists each with its source."
        )
    text = how_sure(mc) + " "
    by = {(r["system"], r["column"]): r for r in mc.percentiles if r["demand_point"] == "system"}
    spread = by.get((cheapest, cost))
    text += f"{mc.n:,} samples of the {len(scenario.distributions):,} uncertain inputs (section Uncertainty). "
    if spread is not None:
        text += (
            f"{cheapest}'s cost is {display.usd_per_1k_requests(spread['p5'])} to "
            f"{display.usd_per_1k_requests(spread['p95'])} per 1,000 accepted requests in 90% of them (median "
            f"{display.usd_per_1k_requests(spread['p50'])})."
        )
    return Paragraph(text.strip())


def what_would_change(scenario: Scenario, result: Any, ranked: list[dict[str, Any]] | None) -> list[Block]:
    """The inputs that move the cost most (the tornado's first, where there is one) and the price at which the
    cheapest system and the next one against the baseline would cost the same (a break-even), in plain names."""
    from rackcost.analysis.sensitivity import breakeven
    from rackcost.errors import ScenarioError
    from rackcost.reporting.uncertainty_section import own_price_path

    names = [s.name for s in scenario.systems]
    demand = [d.name for d in scenario.demand]
    systems = result.records["systems"]
    cost = "blended_usd_per_accepted_request"
    by_cost = sorted(systems, key=lambda r: display.cost_order(r[cost]))
    blocks: list[Block] = []
    if ranked:
        top = [
            f"{_unitless(input_label(r['input'], names, demand))} ({display.pct(r['relative_swing'], 0)})"
            for r in ranked[:TOP_INPUTS]
        ]
        flips = [
            _unitless(input_label(r["input"], names, demand))
            for r in ranked
            # an advantage is undefined (None) where a system accepts nothing at that end: no turn to report
            if r.get("advantage_low") is not None
            and r.get("advantage_high") is not None
            and (r["advantage_low"] - 1) * (r["advantage_high"] - 1) < 0
        ]
        blocks.append(
            Paragraph(
                "The inputs that move the cost most (by the largest change of a system's cost, each input from its "
                "P5 to its P95, every other at its central value): "
                + "; ".join(top)
                + ". "
                + (
                    "Within its P5 to P95 alone, each of these turns the comparison with the baseline: "
                    + "; ".join(flips)
                    + "."
                    if flips
                    else "No single input, from its P5 to its P95, turns the comparison with the baseline."
                )
            )
        )
    if len(by_cost) < 2 or by_cost[0][cost] is None:
        return blocks or [Paragraph("One system only: there is no other answer to change to.")]
    # the cheapest against the baseline, or, where the baseline is the cheapest, the next one against it
    baseline = scenario.baseline_name
    other = by_cost[0]["system"] if by_cost[0]["system"] != baseline else by_cost[1]["system"]
    path = own_price_path(scenario, other)
    try:  # on the pair alone (the same value, the work of two systems), where the pair is a scenario by itself
        pair, index = with_systems(scenario, [baseline, other])
        there = own_price_path(pair, other)
        assert path_in(there, index) == path
    except ScenarioError:  # e.g. a plan block naming the other systems
        pair, there = scenario, path
    label = _unitless(input_label(path, names, demand))
    try:
        found = breakeven(pair, there, other, BLENDED)
    except (ScenarioError, ValueError, ArithmeticError):  # e.g. a zero price: no range to search
        return blocks
    if found.value is None:
        blocks.append(
            Paragraph(
                f"No {label} from {display.input_value(found.low, path)} to {display.input_value(found.high, path)} "
                f"makes {other} and {baseline} cost the same over the day."
            )
        )
    else:
        central = _central(scenario, path)
        moved = "rises" if found.value > central else "falls"
        blocks.append(
            Paragraph(
                f"{other} and {baseline} would cost the same over the day if the {label.split(': ', 1)[-1]} of "
                f"{other} {moved} to {display.input_value(found.value, path)} (it is "
                f"{display.input_value(central, path)} here)."
            )
        )
    return blocks


def _unitless(label: str) -> str:
    """A label without its unit in brackets (the value beside it says it): ``capex per accelerator``.

    >>> _unitless("Jalapeño: capex per accelerator [USD]")
    'Jalapeño: capex per accelerator'
    """
    return re.sub(r" \[[^\]]*\]$", "", label)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _central(scenario: Scenario, path: str) -> float:
    """An input's value as the model uses it (a distribution's central value, else the number in the file)."""
    from rackcost.reporting.uncertainty_section import central_value
    from rackcost.scenario.yaml_paths import lookup

    return central_value(scenario, path, lookup(scenario_to_data(scenario), path))
