"""A :class:`~rackcost.reporting.content.Report` as one self-contained HTML file.

Charts are inline SVG rendered by ``vl-convert`` from the dashboard's Altair specifications; there is no
``<script>``, no external stylesheet, font or image, so the file opens offline and prints (A4 or Letter, a section per
page). Every text from the scenario is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import re
from html import escape

from rackcost.reporting.blocks import (
    Bullets,
    Chart,
    Code,
    KeyFigures,
    Paragraph,
    Report,
    Section,
    Subheading,
    Table,
)

__all__ = ["CSS", "render_html", "svg_of"]

CSS = """
:root { color-scheme: light; --ink: #1d2430; --muted: #5b6675; --rule: #d5dae1; --accent: #2f5d8a; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff;
       font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 1.25rem; }
header { border-bottom: 3px solid var(--accent); margin-bottom: 1rem; }
h1 { font-size: 1.75rem; line-height: 1.25; margin: 0 0 0.25rem; }
.subtitle { color: var(--muted); margin: 0 0 0.75rem; }
h2 { font-size: 1.35rem; margin: 2rem 0 0.5rem; padding-top: 0.5rem; border-top: 1px solid var(--rule); }
h3 { font-size: 1.1rem; margin: 1.25rem 0 0.4rem; }
p.strong { font-weight: 600; font-size: 1.05rem; }
nav ol { columns: 2; padding-left: 1.25rem; margin: 0.5rem 0 1rem; }
.figures { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 0.75rem 0; padding: 0; list-style: none; }
.figures li { flex: 1 1 14rem; border: 1px solid var(--rule); border-radius: 6px; padding: 0.5rem 0.75rem; }
.figures .label { display: block; color: var(--muted); font-size: 0.85rem; }
.figures .value { display: block; font-size: 1.3rem; font-weight: 600; }
.table-wrap { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: 0.5rem 0 1rem; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--rule); padding: 0.3rem 0.5rem; vertical-align: top; text-align: left; }
th { background: #f1f4f8; font-weight: 600; }
td.number { text-align: right; white-space: nowrap; }
figure { margin: 0.75rem 0 1rem; break-inside: avoid; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { color: var(--muted); font-size: 0.85rem; }
pre { background: #f6f8fa; border: 1px solid var(--rule); padding: 0.75rem; overflow-x: auto; font-size: 0.75rem;
      line-height: 1.35; white-space: pre-wrap; word-break: break-word;
      font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; }
footer { color: var(--muted); font-size: 0.85rem; border-top: 1px solid var(--rule);
         margin-top: 2rem; padding-top: 0.5rem; }
@media (max-width: 40rem) {
  main { padding: 0.75rem; }
  h1 { font-size: 1.4rem; }
  nav ol { columns: 1; }
}
@page { size: auto; margin: 14mm 12mm; }
@media print {
  body { font-size: 10.5pt; }
  main { max-width: none; padding: 0; }
  nav { display: none; }
  section + section { break-before: page; page-break-before: always; }
  h2 { border-top: none; margin-top: 0; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  .table-wrap { overflow: visible; }
  table { font-size: 8pt; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  pre { white-space: pre-wrap; font-size: 7pt; }
}
""".strip()
"""The report's stylesheet: readable on a phone (one column, tables scroll sideways, charts scale), and in print
a section per page on the printer's paper (``size: auto``: A4 or Letter; the content fits the narrower, A4)."""

_ID = re.compile(r'\bid="([^"]+)"')
_NUMBER_CELL = re.compile(r"^[-<>$]*[\d,.]+(?:[KMBT%x]|[KMBT]x)?$|^-$")


def svg_of(chart: Chart, prefix: str) -> str:
    """The chart as inline SVG (``vl-convert``), every ``id`` in it prefixed so that charts on one page never share
    one (a ``url(#clip1)`` of one chart must not resolve to another's clip path).

    Parameters
    ----------
    chart
        The chart block.
    prefix
        Prefix of its ids, unique in the page.
    """
    import vl_convert

    svg = vl_convert.vegalite_to_svg(chart.chart.to_dict())
    ids = set(_ID.findall(svg))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{prefix}-{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"')
        svg = svg.replace(f"url(#{name})", f"url(#{new})")
        svg = svg.replace(f'href="#{name}"', f'href="#{new}"')
    # an accessible name for the drawing: the chart's description
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{escape(chart.description)}" ', 1)
    return svg


def _table(table: Table) -> str:
    head = "".join(f'<th scope="col" data-key="{escape(key)}">{escape(header)}</th>' for key, header in table.columns)
    body = []
    for row in table.rows:
        cells = []
        for i, cell in enumerate(row):
            numeric = i > 0 and _NUMBER_CELL.match(cell) is not None
            attribute = ' class="number"' if numeric else ""
            cells.append(f"<td{attribute}>{escape(cell)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="table-wrap"><table id="table-{escape(table.id)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _block(block: object, section: Section, counter: list[int]) -> str:
    if isinstance(block, Paragraph):
        attribute = ' class="strong"' if block.strong else ""
        return f"<p{attribute}>{escape(block.text)}</p>"
    if isinstance(block, Subheading):
        return f"<h3>{escape(block.text)}</h3>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{escape(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, KeyFigures):
        items = "".join(
            f'<li><span class="label">{escape(label)}</span><span class="value">{escape(value)}</span></li>'
            for label, value in block.figures
        )
        return f'<ul class="figures">{items}</ul>'
    if isinstance(block, Table):
        return _table(block)
    if isinstance(block, Chart):
        counter[0] += 1
        svg = svg_of(block, f"chart{counter[0]}")
        return (
            f'<figure id="figure-{escape(block.name)}">{svg}<figcaption>{escape(block.description)}</figcaption>'
            "</figure>"
        )
    if isinstance(block, Code):
        return f'<pre><code class="language-{escape(block.language)}">{escape(block.text)}</code></pre>'
    raise TypeError(f"no HTML for a block of type {type(block).__name__}")


def render_html(report: Report) -> str:
    """The report as one HTML document (UTF-8 text): no script, nothing fetched from anywhere.

    Parameters
    ----------
    report
        What to show (:func:`rackcost.reporting.content.build_report`).

    Returns
    -------
    str
    """
    counter = [0]
    toc = "".join(f'<li><a href="#{escape(s.id)}">{escape(s.title)}</a></li>' for s in report.sections)
    sections = []
    for section in report.sections:
        inner = "\n".join(_block(b, section, counter) for b in section.blocks)
        sections.append(
            f'<section id="{escape(section.id)}" aria-labelledby="{escape(section.id)}-title">\n'
            f'<h2 id="{escape(section.id)}-title">{escape(section.title)}</h2>\n{inner}\n</section>'
        )
    body = "\n".join(sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="rackcost {escape(report.version)}">
<title>{escape(report.title)}: rackcost report</title>
<style>
{CSS}
</style>
</head>
<body>
<main>
<header>
<h1>{escape(report.title)}</h1>
<p class="subtitle">{escape(report.subtitle)} · rackcost {escape(report.version)} · {escape(report.date)}</p>
</header>
<nav aria-label="Sections"><ol>{toc}</ol></nav>
{body}
<footer><p>{escape(report.colophon)}</p></footer>
</main>
</body>
</html>
"""
