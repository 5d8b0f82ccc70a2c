"""A :class:`~rackcost.reporting.content.Report` as one self-contained HTML file.

Charts are inline SVG rendered by ``vl-convert`` from the dashboard's Altair specifications; there is no
``<script>``, no external stylesheet, font or image, so the file opens offline and prints (A4 or Letter, a section per
page). Every text from the scenario is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import re
from html import escape

from rackcost.reporting.blocks import (
    APPENDIX,
    Bullets,
    Chart,
    Code,
    KeyFigures,
    Paragraph,
    Report,
    ReportProgress,
    Subheading,
    Table,
    render_charts,
)

__all__ = ["CSS", "LONG_WORD_CHARS", "PRINT_COLUMNS", "PRINT_PARTS_ROWS", "column_parts", "render_html", "svg_of"]

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
caption { caption-side: top; text-align: left; color: var(--muted); font-size: 0.8rem; padding-bottom: 0.2rem; }
.print-only { display: none; }
@page { size: auto; margin: 14mm 12mm;
        @bottom-right { content: counter(page) " / " counter(pages); font-size: 8pt; color: #5b6675; } }
@media print {
  body { font-size: 10.5pt; overflow-wrap: break-word; }
  main { max-width: none; padding: 0; }
  nav, .screen-only { display: none; }
  .print-only { display: block; }
  section.new-page { break-before: page; page-break-before: always; }
  section.new-page h2 { border-top: none; margin-top: 0; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
  .figures li { flex-basis: 10rem; break-inside: avoid; page-break-inside: avoid; }
  .table-wrap { overflow: visible; }
  table { font-size: 8pt; max-width: 100%; }
  th, td { padding: 0.2rem 0.3rem; }
  td.long, table.wide th, table.wide td { overflow-wrap: anywhere; }
  table.wide { table-layout: fixed; width: 100%; font-size: 6.5pt; }
  table.wide td.number { white-space: normal; }
  thead { display: table-header-group; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  figure svg { max-width: 100%; height: auto; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; overflow: visible; font-size: 7pt; }
}
""".strip()
"""The report's stylesheet: readable on a phone (one column, tables scroll sideways, charts scale), and in print
the lead on its own pages, the body after it (its sections one after the other, a heading never alone at the foot
of a page), and each part of the appendix from a new page (``section.new-page``), on the printer's paper
(``size: auto``: A4 or Letter; the content fits the narrower, A4, whose text is 186 mm, about 700 CSS px, wide at
these margins), numbered ``page / pages`` at the bottom right. In print, a table of more than :data:`PRINT_COLUMNS`
columns is replaced by its parts (:func:`column_parts`), a cell with a long word (:data:`LONG_WORD_CHARS`) may break
it anywhere, and charts scale to the page's width."""

PRINT_COLUMNS = 8
"""Most columns of a printed table: a wider one is printed as parts of at most this many columns, each repeating
the columns that name a row (:attr:`~rackcost.reporting.blocks.Table.keys`). Eight columns of the report's figures
(at most about ten characters each) in 8 pt fit an A4 page's text width."""
LONG_WORD_CHARS = 20
"""A cell with a word this long or longer (a YAML path, a file name, a link) may break it anywhere in print, so
that it never widens its table past the page; shorter words (a system's name, a header's) break only at spaces."""
PRINT_PARTS_ROWS = 500
"""Most rows of a table that is printed in parts. The parts are a second copy of the table in the file (shown only
in print), so a longer one (printing it would take dozens of pages anyway) is printed whole instead: its columns
fixed to the page's width, in 6.5 pt, its cells wrapped, so that it still fits."""

_ID = re.compile(r'\bid="([^"]+)"')
_LONG_WORD = re.compile(rf"\S{{{LONG_WORD_CHARS},}}")
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

    return _prefixed(vl_convert.vegalite_to_svg(chart.chart.to_dict()), chart, prefix)


def _prefixed(svg: str, chart: Chart, prefix: str) -> str:
    """vl-convert's SVG of ``chart`` with its ids prefixed and its description as its accessible name."""
    ids = set(_ID.findall(svg))
    for name in sorted(ids, key=len, reverse=True):
        new = f"{prefix}-{name}"
        svg = svg.replace(f'id="{name}"', f'id="{new}"')
        svg = svg.replace(f"url(#{name})", f"url(#{new})")
        svg = svg.replace(f'href="#{name}"', f'href="#{new}"')
    # an accessible name for the drawing: the chart's description
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{escape(chart.description)}" ', 1)
    return svg


def column_parts(columns: int, keys: int = 1, limit: int = PRINT_COLUMNS) -> list[list[int]]:
    """The columns of each printed part of a table: all of them when they are at most ``limit``, else the fewest
    parts of at most ``limit`` columns, as even as can be, each starting with the ``keys`` columns that name a row.

    Examples
    --------
    >>> column_parts(5)
    [[0, 1, 2, 3, 4]]
    >>> [len(part) for part in column_parts(14)], column_parts(14)[1][:2]
    ([8, 7], [0, 8])
    >>> [part[:3] for part in column_parts(14, keys=2)]
    [[0, 1, 2], [0, 1, 8]]
    """
    if columns <= limit:
        return [list(range(columns))]
    keys = max(1, min(keys, limit - 1))
    rest = list(range(keys, columns))
    count = -(-len(rest) // (limit - keys))
    size, extra = divmod(len(rest), count)
    parts, start = [], 0
    for i in range(count):
        stop = start + size + (i < extra)
        parts.append(list(range(keys)) + rest[start:stop])
        start = stop
    return parts


def _cells(row: list[str]) -> list[str]:
    """The row's ``<td>`` elements: a figure (not the first column, which names the row) aligned right, a cell with
    a long unbroken word (a YAML path, a file name) marked ``long``, which print breaks anywhere."""
    cells = []
    for i, cell in enumerate(row):
        numeric = i > 0 and _NUMBER_CELL.match(cell) is not None
        attribute = ' class="number"' if numeric else ' class="long"' if _LONG_WORD.search(cell) else ""
        cells.append(f"<td{attribute}>{escape(cell)}</td>")
    return cells


def _table_html(table: Table, rows: list[list[str]], columns: list[int], attributes: str, caption: str = "") -> str:
    head = "".join(
        f'<th scope="col" data-key="{escape(table.columns[i][0])}">{escape(table.columns[i][1])}</th>' for i in columns
    )
    body = "".join(f"<tr>{''.join(row[i] for i in columns)}</tr>" for row in rows)
    caption = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table{attributes}>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _table(table: Table) -> str:
    """The table, and when it is wider than a printed page (:data:`PRINT_COLUMNS`), its parts for print."""
    rows = [_cells(row) for row in table.rows]
    every = list(range(len(table.columns)))
    parts = column_parts(len(table.columns), table.keys)
    wide = len(parts) > 1
    split = wide and len(table.rows) <= PRINT_PARTS_ROWS
    attributes = f' id="table-{escape(table.id)}"' + (' class="wide"' if wide and not split else "")
    whole = (
        f'<div class="table-wrap{" screen-only" if split else ""}">{_table_html(table, rows, every, attributes)}</div>'
    )
    if not split:
        return whole
    named = " and ".join(table.columns[i][1] for i in parts[0] if all(i in part for part in parts))
    printed = "".join(
        '<div class="table-wrap">'
        + _table_html(
            table,
            rows,
            part,
            f' class="part" data-part-of="{escape(table.id)}"',
            f"Part {n} of {len(parts)} of the table, split to fit the page ({named} in each part)",
        )
        + "</div>"
        for n, part in enumerate(parts, start=1)
    )
    return f'{whole}<div class="print-only">{printed}</div>'


def _block(block: object, svgs: dict[int, str]) -> str:
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
        return (
            f'<figure id="figure-{escape(block.name)}">{svgs[id(block)]}'
            f"<figcaption>{escape(block.description)}</figcaption></figure>"
        )
    if isinstance(block, Code):
        return f'<pre><code class="language-{escape(block.language)}">{escape(block.text)}</code></pre>'
    raise TypeError(f"no HTML for a block of type {type(block).__name__}")


def render_html(report: Report, progress: ReportProgress | None = None) -> str:
    """The report as one HTML document (UTF-8 text): no script, nothing fetched from anywhere.

    Parameters
    ----------
    report
        What to show (:func:`rackcost.reporting.content.build_report`).
    progress
        Called as each chart is drawn: ``progress("charts", done, total)``
        (:func:`rackcost.reporting.blocks.render_charts`).

    Returns
    -------
    str
    """
    import vl_convert

    charts = [b for s in report.sections for b in s.blocks if isinstance(b, Chart)]
    drawn = render_charts(charts, vl_convert.vegalite_to_svg, progress)
    # ids numbered in the order of the page: chart1, chart2, ...
    svgs = {id(c): _prefixed(svg, c, f"chart{i}") for i, (c, svg) in enumerate(zip(charts, drawn, strict=True), 1)}
    toc = "".join(f'<li><a href="#{escape(s.id)}">{escape(s.title)}</a></li>' for s in report.sections)
    sections = []
    for number, section in enumerate(report.sections):
        inner = "\n".join(_block(b, svgs) for b in section.blocks)
        # in print, the lead alone on its first pages, the body after it, and each part of the appendix on new pages
        page = ' class="new-page"' if number == 1 or section.id in APPENDIX else ""
        sections.append(
            f'<section id="{escape(section.id)}"{page} aria-labelledby="{escape(section.id)}-title">\n'
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
