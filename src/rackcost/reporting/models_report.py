"""The decision report of several models on one fleet (:func:`rackcost.evaluate_models`), in the blocks every report
is rendered from: the answer in a sentence with its key figures, each model's cost per accepted request, the fleet,
the warnings and the document as given.

A models document is not a scenario, so this report is not :func:`rackcost.reporting.content.build_report`'s: it has
no uncertainty, provenance or per-point sections (the document's models are evaluated at their central values, and
each model's figures and sources are its own scenario's, which ``rackcost models`` does not report one by one). The
tables are the ones ``rackcost models`` prints and the dashboard's Several models page shows
(:mod:`rackcost.reporting.models_section`).
"""

from __future__ import annotations

import datetime as dt

from rackcost import display
from rackcost.evaluation.models import ModelsResult
from rackcost.reporting.blocks import Bullets, Code, KeyFigures, Paragraph, Report, Section
from rackcost.reporting.models_section import fleet_rows, fleet_table, model_rows, model_table, models_title

__all__ = ["MODELS_SECTIONS", "models_answer", "models_report_content", "remake_command"]

MODELS_SECTIONS = {
    "summary": "The answer",
    "models": "Each model",
    "fleet": "The fleet",
    "warnings": "Appendix A: Warnings",
    "appendix": "Appendix B: The models document",
}
"""The sections of a models report, id -> heading, in order (the last two are the appendix, on new pages in print)."""

_RULES = {
    "reservation": "the node slots each model holds (on one system type, also its share of the nodes' rated power)",
    "usage": "the facility energy each model's own nodes use over the day",
}
"""How each attribution rule splits the shared racks' cost, in words."""


def remake_command(rule: str | None, placement: str | None, output: str = "report.html") -> str:
    """The command that makes the report again from its appendix saved as ``models.yaml``: ``rackcost report`` where
    the document's own rule and placement were used, else ``rackcost models`` with the rule and placement given.

    Examples
    --------
    >>> remake_command(None, None)
    'rackcost report models.yaml'
    >>> remake_command("usage", None, "out.md")
    'rackcost models models.yaml --rule usage --report out.md'
    """
    if rule is None and placement is None:
        return "rackcost report models.yaml"
    flags = (f" --rule {rule}" if rule else "") + (f" --placement {placement}" if placement else "")
    return f"rackcost models models.yaml{flags} --report {output}"


def models_answer(result: ModelsResult) -> str:
    """The answer in a sentence: the fleet's day and each model's cost per 1,000 accepted requests, attributed and
    alone.

    Examples
    --------
    >>> import rackcost
    >>> models_answer(rackcost.evaluate_models("deepseek-r1-and-gpt-oss-120b-on-gb200"))  # doctest: +ELLIPSIS
    'Serving 2 models on one fleet of GB200 NVL72 (shared racks) costs $50,067 a day: DeepSeek R1 $1.88 per 1,000...'
    """
    models, fleets = model_rows(result), fleet_rows(result)
    systems = ", ".join(str(f["system"]) for f in fleets)
    day = sum(float(f["usd_per_day"]) for f in fleets)
    per_1k = display.usd_per_1k_requests
    each = "; ".join(
        f"{m['model']} {per_1k(m['blended_usd_per_accepted_request'])} per 1,000 accepted requests "
        f"({per_1k(m['blended_usd_per_accepted_request_alone'])} alone)"
        for m in models
    )
    return (
        f"Serving {len(models)} models on one fleet of {systems} ({result.placement} racks) costs "
        f"{display.money(day)} a day: {each}."
    )


def _summary(result: ModelsResult) -> Section:
    models, fleets = model_rows(result), fleet_rows(result)
    day = sum(float(f["usd_per_day"]) for f in fleets)
    apart = sum(float(f["usd_per_day_apart"]) for f in fleets)
    racks, racks_apart = sum(int(f["racks"]) for f in fleets), sum(int(f["racks_apart"]) for f in fleets)
    accepted = sum(float(m["accepted_requests_per_day"]) for m in models)
    blocks: list[Paragraph | KeyFigures] = [
        Paragraph(models_answer(result), strong=True),
        KeyFigures(
            [
                ("fleet cost [USD/day]", display.money(day)),
                ("racks", f"{racks:,}"),
                ("accepted requests [requests/day]", display.num(accepted)),
                *(
                    (
                        f"{m['model']} [$ per 1,000 accepted requests]",
                        display.usd_per_1k_requests(m["blended_usd_per_accepted_request"]),
                    )
                    for m in models
                ),
            ]
        ),
    ]
    if result.placement == "shared" and racks < racks_apart:
        blocks.append(
            Paragraph(
                f"Sharing racks saves {display.money(apart - day)} a day: {racks:,} racks against {racks_apart:,} "
                "with each model's nodes on racks of its own."
            )
        )
    elif result.placement == "shared":
        blocks.append(
            Paragraph(
                f"Sharing racks saves nothing here: the models' nodes fill {racks:,} racks together, as many as apart."
            )
        )
    else:
        blocks.append(Paragraph(f"Each model's nodes are on racks of their own: {racks:,} racks."))
    blocks.append(
        Paragraph(
            f"Each model runs on its own replicas, sized for its own demand and SLO on the system that serves it "
            f"cheapest; the shared racks' cost (racks, their overhead power and operations) is split by "
            f"{result.rule}: {_RULES[result.rule]}."
        )
    )
    return Section("summary", MODELS_SECTIONS["summary"], list(blocks))


def models_report_content(result: ModelsResult, document_text: str, remake: str, date: str | None = None) -> Report:
    """The report of several models on one fleet, ready for :func:`rackcost.reporting.html.render_html` or
    :func:`rackcost.reporting.markdown.render_markdown`.

    Parameters
    ----------
    result
        What :func:`rackcost.evaluate_models` returned, with the rule and placement it was asked for.
    document_text
        The models document as given (its YAML text), for the appendix.
    remake
        The command that makes the report again from the appendix saved as ``models.yaml``
        (:func:`remake_command`).
    date
        The report's date (ISO 8601); default today.
    """
    from rackcost import __version__

    models, fleets = model_rows(result), fleet_rows(result)
    sections = [
        _summary(result),
        Section(
            "models",
            MODELS_SECTIONS["models"],
            [
                Paragraph(
                    "Each model's fleet on the system that serves it cheapest: its replicas and nodes, the share of "
                    "its demand accepted within its SLO over the day, its own cost a day (accelerators, nodes, hosts, "
                    "spares and their energy), its share of the shared racks' and the sum, and its cost per 1,000 "
                    "accepted requests attributed and with racks of its own (alone)."
                ),
                model_table(models),
            ],
        ),
        Section(
            "fleet",
            MODELS_SECTIONS["fleet"],
            [
                Paragraph(
                    "Each system type: the models on it, its nodes, the racks they fill shared and apart, one rack's "
                    "day, and the fleet's day (the models' own, the shared racks', the total, and the models apart)."
                ),
                fleet_table(fleets),
            ],
        ),
        Section(
            "warnings",
            MODELS_SECTIONS["warnings"],
            [Bullets(list(result.warnings))] if result.warnings else [Paragraph("None.")],
        ),
        Section(
            "appendix",
            MODELS_SECTIONS["appendix"],
            [
                Paragraph(
                    f"The models document as given. Saved as models.yaml, it makes this report again with: {remake}"
                ),
                Code(document_text),
            ],
        ),
    ]
    return Report(
        title=result.name,
        subtitle=models_title(result.name, result.placement, result.rule).split(": ", 1)[1].capitalize(),
        sections=sections,
        version=__version__,
        date=date or dt.date.today().isoformat(),
        remake=f"save the appendix as models.yaml and run: {remake}",
    )
