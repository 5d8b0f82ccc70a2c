"""The cheapest mix of hardware in words and tables (:func:`rackcost.hardware_mix`), as ``rackcost mix``, the
dashboard's Hardware mix page and the report's Hardware mix section show it: the sentence that leads, the mix's
fleets, each system alone, each class on each system, and the rows of its CSV."""

from __future__ import annotations

from typing import Any

from rackcost import display
from rackcost.analysis.hardware_mix import HardwareMix, hardware_mix
from rackcost.errors import ScenarioError
from rackcost.reporting.blocks import Bullets, Paragraph, Section, Subheading, Table, section
from rackcost.scenario.schema import Scenario

__all__ = [
    "CLASS_JOIN",
    "REPORT_MOST_EVALUATIONS",
    "alone_table",
    "class_table",
    "classes_text",
    "fleet_table",
    "mix_report_section",
    "mix_rows",
    "mix_sentence",
]

CLASS_JOIN = " + "
"""How the classes of one fleet are joined in a CSV cell."""
NONE = "-"
"""A cell with no value (a system that cannot serve every class alone)."""
REPORT_MOST_EVALUATIONS = 200
"""Most evaluations the report's mix runs, systems x (2^classes - 1): a few seconds at the default scenario's speed;
a larger scenario's section says to run ``rackcost mix`` [-]."""


def classes_text(classes: dict[str, float], join: str) -> str:
    """The classes of a fleet, each with the share of its load the fleet serves where it is not all of it.

    >>> classes_text({"chat": 1.0, "code": 0.5}, ", ")
    'chat, code 50.0%'
    """
    return join.join(c if fraction >= 1.0 else f"{c} {display.pct(fraction)}" for c, fraction in classes.items())


def mix_sentence(found: HardwareMix) -> str:
    """One sentence: the mix's cost per accepted request against the best system alone (plain text)."""
    usd = display.usd_per_1k_requests
    mix_text = f"The mix costs {usd(found.usd_per_accepted_request)} per 1,000 accepted requests"
    if found.best_single is None:
        return f"{mix_text}; no system serves every class alone."
    best = next(a for a in found.alone if a.system == found.best_single)
    saving = found.saving_fraction or 0.0
    return (
        f"{mix_text}; the best system alone, {found.best_single}, "
        f"{usd(best.usd_per_accepted_request)}: the mix saves {display.pct(saving)}"
        + (" (the best system alone is the mix)." if saving == 0 else ".")
    )


def fleet_table(found: HardwareMix) -> Table:
    """Each system's fleet in the mix (the classes it serves, its size, cost and accepted requests), then the mix's
    total."""
    columns = [
        ("system", "system"),
        ("classes", "classes"),
        ("provisioned_replicas", "replicas"),
        ("racks", "racks"),
        ("usd_per_day", "cost [USD/day]"),
        ("accepted_requests_per_day", "accepted [requests/day]"),
        ("usd_per_accepted_request", f"cost [{display.PER_1K_ACCEPTED}]"),
    ]
    rows = [
        [
            f.system,
            classes_text(f.classes, ", "),
            display.count(f.provisioned_replicas),
            display.count(f.racks),
            display.money(f.usd_per_day),
            display.count(round(f.accepted_requests_per_day)),
            display.usd_per_1k_requests(f.usd_per_accepted_request),
        ]
        for f in found.fleets
    ]
    rows.append(
        [
            "the mix",
            ", ".join(found.classes),
            display.count(sum(f.provisioned_replicas for f in found.fleets)),
            display.count(sum(f.racks for f in found.fleets)),
            display.money(found.usd_per_day),
            display.count(round(found.accepted_requests_per_day)),
            display.usd_per_1k_requests(found.usd_per_accepted_request),
        ]
    )
    return Table("mix-fleets", columns, rows)


def alone_table(found: HardwareMix) -> Table:
    """Each system serving every class alone: its cost, what the mix saves against it, or the classes it cannot
    serve and why."""
    columns = [
        ("system", "system"),
        ("usd_per_day", "cost [USD/day]"),
        ("accepted_requests_per_day", "accepted [requests/day]"),
        ("usd_per_accepted_request", f"cost [{display.PER_1K_ACCEPTED}]"),
        ("saving_fraction", "the mix saves"),
        ("cannot_serve", "cannot serve"),
    ]
    rows = []
    for a in found.alone:
        usd = a.usd_per_accepted_request
        rows.append(
            [
                a.system,
                NONE if a.usd_per_day is None else display.money(a.usd_per_day),
                NONE if a.accepted_requests_per_day is None else display.count(round(a.accepted_requests_per_day)),
                NONE if usd is None else display.usd_per_1k_requests(usd),
                NONE if usd is None or usd <= 0 else display.pct(1.0 - found.usd_per_accepted_request / usd),
                "; ".join(f"{c}: {why}" for c, why in a.cannot_serve.items()) or NONE,
            ]
        )
    return Table("mix-alone", columns, rows)


def class_table(found: HardwareMix) -> Table | None:
    """Each class (a row) on each system (a column) alone, its own fleet's cost per 1,000 accepted requests or
    "cannot serve"; None for a workload of one class."""
    if len(found.classes) < 2:
        return None
    systems = [a.system for a in found.alone]
    columns = [("class", "class"), *((s, f"{s} [{display.PER_1K_ACCEPTED}]") for s in systems)]
    cost = {(c.request_class, c.system): c.usd_per_accepted_request for c in found.class_costs}
    rows = [
        [
            name,
            *(
                "cannot serve" if (usd := cost.get((name, s))) is None else display.usd_per_1k_requests(usd)
                for s in systems
            ),
        ]
        for name in found.classes
    ]
    return Table("mix-classes", columns, rows)


def mix_rows(found: HardwareMix) -> list[dict[str, Any]]:
    """One row per fleet of the mix (``role`` mix), the mix's total (``role`` total) and each system alone (``role``
    alone): the mix as a CSV table."""
    rows: list[dict[str, Any]] = [
        {
            "role": "mix",
            "system": f.system,
            "classes": classes_text(f.classes, CLASS_JOIN),
            "usd_per_day": f.usd_per_day,
            "accepted_requests_per_day": f.accepted_requests_per_day,
            "usd_per_accepted_request": f.usd_per_accepted_request,
            "provisioned_replicas": f.provisioned_replicas,
            "racks": f.racks,
            "cannot_serve": "",
        }
        for f in found.fleets
    ]
    rows.append(
        {
            "role": "total",
            "system": CLASS_JOIN.join(f.system for f in found.fleets),
            "classes": CLASS_JOIN.join(found.classes),
            "usd_per_day": found.usd_per_day,
            "accepted_requests_per_day": found.accepted_requests_per_day,
            "usd_per_accepted_request": found.usd_per_accepted_request,
            "provisioned_replicas": sum(f.provisioned_replicas for f in found.fleets),
            "racks": sum(f.racks for f in found.fleets),
            "cannot_serve": "",
        }
    )
    rows += [
        {
            "role": "alone",
            "system": a.system,
            "classes": CLASS_JOIN.join(found.classes),
            "usd_per_day": a.usd_per_day,
            "accepted_requests_per_day": a.accepted_requests_per_day,
            "usd_per_accepted_request": a.usd_per_accepted_request,
            "provisioned_replicas": None,
            "racks": None,
            "cannot_serve": CLASS_JOIN.join(a.cannot_serve),
        }
        for a in found.alone
    ]
    return rows


def mix_report_section(scenario: Scenario) -> Section | None:
    """The report's Hardware mix section: for a scenario of two or more systems and two or more request classes, the
    cheapest mix (each class whole on one system) beside each system alone; None for any other scenario, or one whose
    fleet is given by count (the mix sizes each fleet).

    Parameters
    ----------
    scenario
        The scenario as served (its unserved systems left out).
    """
    classes = scenario.workload.classes or []
    if len(classes) < 2 or len(scenario.systems) < 2 or scenario.fleet.replicas is not None:
        return None
    evaluations = len(scenario.systems) * (2 ** len(classes) - 1)
    if evaluations > REPORT_MOST_EVALUATIONS:
        return section(
            "mix",
            [
                Paragraph(
                    f"The cheapest mix of these {len(scenario.systems)} systems over {len(classes)} request classes "
                    f"takes {evaluations:,} evaluations, more than a report runs ({REPORT_MOST_EVALUATIONS}): "
                    "rackcost mix finds it."
                )
            ],
        )
    try:
        found = hardware_mix(scenario)
    except ScenarioError as exc:
        problems = [f"{p.path}: {p.message}" if p.path else p.message for p in exc.problems]
        return section(
            "mix", [Paragraph("No hardware mix: the search refused the scenario.", strong=True), Bullets(problems)]
        )
    blocks: list[Any] = [
        Paragraph(mix_sentence(found), strong=True),
        Paragraph(
            "Each request class goes whole to the system that serves it cheapest, each system with a fleet of its own "
            "sized for its classes at the SLO; the assignment is exact over every subset of the classes "
            "(rackcost mix gives the same; its --slices option splits a class's load between systems)."
        ),
        *(Paragraph(f"Note: {note}.") for note in found.notes),
        Subheading("The mix"),
        fleet_table(found),
        Subheading("Each system alone, serving every class"),
        alone_table(found),
    ]
    if (per_class := class_table(found)) is not None:
        blocks += [Subheading("Each class on each system alone, its own fleet"), per_class]
    return section("mix", blocks)
