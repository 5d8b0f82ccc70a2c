"""The report's sections about its inputs: the scenario in words, the provenance of every figure, and the scenario
file itself as an appendix."""

from __future__ import annotations

from typing import Any

from rackcost import display
from rackcost.model.queues.routers import router_of
from rackcost.reporting.blocks import (
    NOT_APPLICABLE,
    Block,
    Bullets,
    Code,
    Paragraph,
    Section,
    Subheading,
    Table,
    ms,
    section,
)
from rackcost.scenario.loading import scenario_to_data, scenario_to_yaml
from rackcost.scenario.scaling_blocks import scaling_words
from rackcost.scenario.schema import Scenario
from rackcost.scenario.yaml_paths import MISSING, lookup
from rackcost.units import SECONDS_PER_HOUR

__all__ = ["appendix_section", "distribution_words", "provenance_section", "scenario_section"]


def scenario_section(scenario: Scenario) -> Section:
    w, slo, f, fleet = scenario.workload, scenario.slo, scenario.facility, scenario.fleet
    blocks: list[Block] = []
    if scenario.description:
        blocks.append(Paragraph(scenario.description.strip()))
    revision = f", revision {w.revision}" if w.revision else ""
    blocks += [
        Subheading("Workload"),
        Paragraph(
            f"{w.model} ({w.precision}{revision}): {display.count(w.input_tokens_per_request)} input tokens and "
            f"{display.count(w.output_tokens_per_request)} output tokens per request."
        ),
        Subheading("Latency SLO"),
        Paragraph(
            "A request is accepted when its time to first token, queueing included, is at most "
            f"{ms(slo.ttft_limit_ms)} ms and its time per output token at most "
            f"{ms(slo.tpot_limit_ms)} ms"
            + (f", and its end-to-end latency at most {ms(slo.e2e_limit_ms)} ms" if slo.e2e_limit_ms else "")
            + f"; the fleet is sized so that {display.pct(slo.attainment_fraction)} of requests are accepted at "
            f"{scenario.sizing_point.name} demand."
        ),
        Subheading("Demand day"),
        Table(
            "demand",
            [
                ("demand_point", "demand point"),
                ("arrival_rps", "arrival rate [requests/s]"),
                ("hours_per_day", "hours [h/day]"),
                ("requests_per_day", "requests [requests/day]"),
            ],
            [
                [
                    d.name,
                    display.num(d.arrival_rps),
                    display.num(d.hours_per_day),
                    display.num(d.arrival_rps * d.hours_per_day * SECONDS_PER_HOUR),
                ]
                for d in scenario.demand
            ],
        ),
        Paragraph(f"The fleet is sized for {scenario.sizing_point.name} demand and serves every demand point."),
        Subheading("Facility and fleet"),
    ]
    site = (
        f"colocation at {display.money(f.colocation_usd_per_kw_month)} per kW-month"
        if f.colocation_usd_per_kw_month
        else f"built at {display.money(f.build_usd_per_kw)} per kW over {display.num(f.build_life_years)} years"
    )
    blocks.append(
        Bullets(
            [
                f"PUE {display.num(f.pue)}; electricity {display.money(f.electricity_usd_per_kwh)} per kWh.",
                f"Racks provisioned up to {display.num(f.rack_power_limit_kw)} kW each (rated power); {site} of "
                "provisioned IT power.",
                f"Replicas {fleet.idle_policy.words}; routing {fleet.routing}: {router_of(fleet.routing).words}.",
                f"Replica availability {display.pct(fleet.replica_availability_fraction)}, "
                f"{display.count(fleet.spare_replicas)} spare replicas, slot utilisation at most "
                f"{display.pct(fleet.max_utilization_fraction)} at the sizing demand.",
                f"Baseline of the comparison: {scenario.baseline_name}.",
            ]
            + (
                [f"The sizing point's rate moves within its hour: {fleet.sub_hour_sizing.words}."]
                if scenario.sizing_point.rate_swing is not None or scenario.sizing_point.sub_hour is not None
                else []
            )
            + ([] if fleet.scaling is None else [scaling_words(fleet.scaling)])
        )
    )
    if scenario.distributions:
        blocks.append(
            Paragraph(
                f"{len(scenario.distributions)} inputs are given as distributions; every figure outside the "
                "Uncertainty section uses their central values."
            )
        )
    return section("scenario", blocks)


def distribution_words(dist: Any) -> str:
    params = dist.model_dump(mode="json", exclude_none=True)
    kind = params.pop("dist")

    def fmt(v: Any) -> str:
        return ", ".join(display.num(x) for x in v) if isinstance(v, list) else display.num(v)

    return f"{kind}: " + ", ".join(f"{k} {fmt(v)}" for k, v in params.items())


def figure_value(data: dict[str, Any], path: str) -> str:
    found = lookup(data, path)
    if found is MISSING:
        return NOT_APPLICABLE
    if isinstance(found, dict) and "dist" in found:
        return distribution_words_from_dict(found)
    if isinstance(found, dict | list):
        return "every figure under this path"
    if isinstance(found, bool) or not isinstance(found, int | float):
        return str(found)
    return display.input_value(float(found), path)


def distribution_words_from_dict(params: dict[str, Any]) -> str:
    params = dict(params)
    kind = params.pop("dist")
    return f"{kind}: " + ", ".join(f"{k} {v}" for k, v in params.items())


def provenance_section(scenario: Scenario) -> Section:
    data = scenario_to_data(scenario)
    systems = Table(
        "system-provenance",
        [
            ("system", "system"),
            ("class", "provenance class"),
            ("reported_by", "reported by"),
            ("date", "date"),
            ("source", "source"),
            ("software_stack", "software stack"),
            ("notes", "notes"),
        ],
        [
            [
                s.name,
                s.provenance.provenance_class.value,
                s.provenance.reported_by or NOT_APPLICABLE,
                s.provenance.date or NOT_APPLICABLE,
                s.provenance.source,
                s.provenance.software_stack or NOT_APPLICABLE,
                (s.provenance.notes or NOT_APPLICABLE).strip(),
            ]
            for s in scenario.systems
        ],
    )
    blocks: list[Block] = [
        Paragraph(
            "Classes: vendor (published by the seller), collaborative (run with the vendor), independent (measured "
            "by a third party), assumption (a value chosen where nothing was published, with the reason)."
        ),
        Subheading("Each system's figures"),
        systems,
    ]
    if scenario.figures:
        blocks += [
            Subheading("Each figure of the scenario"),
            Table(
                "figures",
                [
                    ("path", "YAML path"),
                    ("value", "value [unit from the field name]"),
                    ("class", "provenance class"),
                    ("source", "source"),
                    ("why", "why (assumptions)"),
                ],
                [
                    [
                        path,
                        figure_value(data, path),
                        figure.provenance.value,
                        figure.source,
                        figure.why or NOT_APPLICABLE,
                    ]
                    for path, figure in scenario.figures.items()
                ],
            ),
        ]
    else:
        blocks.append(
            Paragraph("The scenario has no figures: block; each system's provenance above covers its figures.")
        )
    return section("provenance", blocks)


def appendix_section(scenario: Scenario) -> Section:
    return section(
        "appendix",
        [
            Paragraph(
                "The scenario as rackcost read it (every value it sets, distributions in place, every source in "
                "figures:). Saved as a .yaml file it loads back to the same scenario and the same results."
            ),
            Code(scenario_to_yaml(scenario)),
        ],
    )
