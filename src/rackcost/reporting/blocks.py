"""The blocks a decision report is made of (paragraphs, tables, charts), its sections and the report itself, with
the few formatting helpers every section shares. No model here: :mod:`rackcost.reporting.content` runs the model and
the section modules fill these blocks; :mod:`rackcost.reporting.html` and :mod:`rackcost.reporting.markdown` render
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rackcost import display

__all__ = [
    "APPENDIX",
    "CHARTS",
    "EVALUATING",
    "NOT_APPLICABLE",
    "OPTIONAL_SECTIONS",
    "REPORT_CHART_PX",
    "SAMPLING",
    "SECTIONS",
    "STAGES",
    "WRITING",
    "ReportProgress",
    "render_charts",
    "Block",
    "Bullets",
    "Chart",
    "Code",
    "KeyFigures",
    "Paragraph",
    "Report",
    "Section",
    "Subheading",
    "Table",
    "cell",
    "ms",
    "section",
    "width",
]

NOT_APPLICABLE = "-"
"""What a table shows where a figure does not apply (an API system's latency or fleet)."""

# section id -> heading, in the order of the report (the uncertainty section only when there is something to say,
# the pools, classes, mix and plan sections only for a scenario that has them: OPTIONAL_SECTIONS)
SECTIONS = {
    "summary": "The decision",
    "scenario": "The scenario",
    "systems": "Systems: operating point, fleet, racks and wall power",
    "pools": "Prefill and decode pools",
    "cost": "Cost per accepted request at each demand point",
    "years": "Demand and cost over the years",
    "classes": "Request classes",
    "mix": "Hardware mix",
    "cliff": "Latency cliff",
    "claim": "Claim vs decision",
    "plan": "Buying plan",
    "uncertainty": "Uncertainty",
    "warnings": "Appendix A: Warnings",
    "provenance": "Appendix B: Provenance of every figure",
    "appendix": "Appendix C: The scenario file",
}

APPENDIX = ("warnings", "provenance", "appendix")
"""The sections of :data:`SECTIONS` that make the appendix, in order: written for whoever checks the model (the
warnings and provenance name the scenario's YAML paths), printed after the report proper, from a new page."""

OPTIONAL_SECTIONS = {
    "pools": "a disaggregated system (systems[i].pools)",
    "classes": "request classes (workload.classes)",
    "mix": "request classes and two or more systems (workload.classes), the fleet sized by the model",
    "years": "demand as an hourly profile over years (demand: profile)",
    "plan": "a buying plan (plan, with demand as an hourly profile)",
    "uncertainty": "distributions, or samples asked for",
}
"""The sections of :data:`SECTIONS` a report has only when the scenario has (or the call asks for) what they show."""

REPORT_CHART_PX = 560
"""Width of a report chart whose specification leaves it open [px]: fits an A4 or Letter page and scales down on a
phone (the SVG keeps its viewBox)."""

EVALUATING = "evaluating"
"""Stage of making a report: the model, its operating points, fleets and costs, and the sections about them."""
SAMPLING = "uncertainty samples"
"""Stage: the Monte Carlo (its progress counts samples), then the tornado and the break-even values."""
CHARTS = "charts"
"""Stage: each chart drawn by vl-convert (SVG for HTML, PNG for Markdown); its progress counts charts."""
WRITING = "writing"
"""Stage: the file written (atomically)."""
STAGES = (EVALUATING, SAMPLING, CHARTS, WRITING)
"""The stages of :func:`rackcost.report`, in order (:data:`SAMPLING` only when there is a Monte Carlo)."""

ReportProgress = Callable[[str, int, int], None]
"""What a report calls as it goes: ``progress(stage, done, total)``, a stage of :data:`STAGES`, with ``done`` from
0 (begun) to ``total`` (finished)."""


# ---- blocks --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text (escaped by the renderer); ``strong`` for the sentence a reader must not miss."""

    text: str
    strong: bool = False


@dataclass(frozen=True)
class Subheading:
    """A heading inside a section."""

    text: str


@dataclass(frozen=True)
class Bullets:
    """A list of plain-text items."""

    items: list[str]


@dataclass(frozen=True)
class KeyFigures:
    """Figures shown large: ``(label, value)`` pairs, the value formatted with its unit."""

    figures: list[tuple[str, str]]


@dataclass(frozen=True)
class Table:
    """A table of formatted cells.

    Attributes
    ----------
    id
        A name unique in the report (the HTML ``id``, so that a reader or a test can find it).
    columns
        ``(key, header)`` per column: ``key`` names the result column the cells come from (``data-key`` in HTML),
        ``header`` says what it is, with its unit in brackets.
    rows
        Cells as shown, one list per row.
    keys
        How many leading columns name a row (the system; the system and the demand point): a table too wide for a
        printed page is printed in parts of its columns, each part repeating these
        (:data:`rackcost.reporting.html.PRINT_COLUMNS`).
    """

    id: str
    columns: list[tuple[str, str]]
    rows: list[list[str]]
    keys: int = 1


@dataclass(frozen=True)
class Chart:
    """An Altair chart of :mod:`rackcost.reporting.charts`; ``name`` becomes its file name, ``description`` its alt
    text."""

    name: str
    chart: Any
    description: str


@dataclass(frozen=True)
class Code:
    """A block of text shown as written (the scenario YAML)."""

    text: str
    language: str = "yaml"


Block = Paragraph | Subheading | Bullets | KeyFigures | Table | Chart | Code


@dataclass
class Section:
    """One section of the report: an id from :data:`SECTIONS`, its heading and its blocks."""

    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Report:
    """A whole report, ready for a renderer.

    Attributes
    ----------
    title
        The scenario's name.
    subtitle
        What the report answers, in one line.
    sections
        In order.
    version
        rackcost's version.
    date
        The day the report was made (ISO 8601).
    remake
        How to make it again, for the closing line (a scenario's report: from its appendix saved as a file).
    """

    title: str
    subtitle: str
    sections: list[Section]
    version: str
    date: str
    remake: str = "save the appendix as scenario.yaml and run: rackcost report scenario.yaml"

    @property
    def colophon(self) -> str:
        """The closing line: who made the report, when, and how to make it again."""
        return f"Made with rackcost {self.version} on {self.date}. To reproduce it, {self.remake}"


# ---- helpers --------------------------------------------------------------------------------------------------------


def ms(x: float) -> str:
    """Milliseconds for reading: a whole number in full (``2,000``), else as :func:`rackcost.display.num`.

    >>> ms(2000), ms(12.5)
    ('2,000', '12.5')
    """
    return display.count(x) if float(x).is_integer() and abs(x) < 1e15 else display.num(x)


def cell(value: Any, fmt: Callable[[float], str]) -> str:
    """A table cell: ``fmt(value)``, or :data:`NOT_APPLICABLE` where the figure does not apply (None)."""
    return NOT_APPLICABLE if value is None else fmt(value)


def section(key: str, blocks: list[Block]) -> Section:
    """The section ``key`` of :data:`SECTIONS`, with its heading."""
    return Section(key, SECTIONS[key], blocks)


def width(chart: Any) -> Any:
    """A chart at the report's width (:data:`REPORT_CHART_PX`)."""
    return chart.properties(width=REPORT_CHART_PX)


# ---- drawing --------------------------------------------------------------------------------------------------------


def render_charts(
    charts: list[Chart], convert: Callable[[dict[str, Any]], Any], progress: ReportProgress | None = None
) -> list[Any]:
    """Each chart drawn by ``convert`` (a vl-convert function of a Vega-Lite specification), in order, with
    ``progress(CHARTS, done, total)`` before the first and after each.

    One after the other: vl-convert draws on one JavaScript engine, so threads drawing side by side took as long
    (measured on the charts of the bundled scenarios: the same CPU time, a wall time within the noise).
    """
    say = progress or _quiet
    say(CHARTS, 0, len(charts))
    drawn = []
    for done, chart in enumerate(charts, start=1):
        drawn.append(convert(chart.chart.to_dict()))
        say(CHARTS, done, len(charts))
    return drawn


def _quiet(stage: str, done: int, total: int) -> None:
    """A progress that shows nothing."""
