"""A :class:`~rackcost.reporting.content.Report` as Markdown, with its charts as PNG files in a folder beside it.

For wikis and pull requests: GitHub-flavoured Markdown tables, images linked by relative paths, every text from the
scenario escaped so that it shows as written (no link, emphasis or HTML made from a system's name).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from rackcost.reporting.blocks import (
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

__all__ = ["PNG_SCALE", "md_escape", "png_of", "render_markdown"]

PNG_SCALE = 2.0
"""Pixels per CSS pixel of the PNG charts [-]: sharp on a high-density screen, about 50-150 kB a chart."""

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~$])")  # $: GitHub reads $...$ as mathematics


def md_escape(text: str) -> str:
    """Text that Markdown shows as written: its punctuation backslash-escaped, line breaks as spaces.

    Examples
    --------
    >>> print(md_escape("GB300 *NVL72* | [x](y) <b> $0.79"))
    GB300 \\*NVL72\\* \\| \\[x\\](y) \\<b\\> \\$0.79
    """
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def png_of(chart: Chart) -> bytes:
    """The chart as a PNG image (``vl-convert``, :data:`PNG_SCALE`)."""
    return _png(chart.chart.to_dict())


def _png(spec: dict[str, Any]) -> bytes:
    """A Vega-Lite specification as a PNG image (``vl-convert``, :data:`PNG_SCALE`)."""
    import vl_convert

    return bytes(vl_convert.vegalite_to_png(spec, scale=PNG_SCALE))


def _table(table: Table) -> list[str]:
    lines = [
        "| " + " | ".join(md_escape(header) for _, header in table.columns) + " |",
        "|" + "|".join("---" for _ in table.columns) + "|",
    ]
    lines += ["| " + " | ".join(md_escape(cell) for cell in row) + " |" for row in table.rows]
    return lines


def render_markdown(
    report: Report, images_dir: str, progress: ReportProgress | None = None
) -> tuple[str, dict[str, bytes]]:
    """The report as Markdown text and the PNG files its images link to.

    Parameters
    ----------
    report
        What to show (:func:`rackcost.reporting.content.build_report`).
    images_dir
        Folder of the images, relative to the Markdown file (a plain name such as ``report_files``).
    progress
        Called as each chart is drawn: ``progress("charts", done, total)``
        (:func:`rackcost.reporting.blocks.render_charts`).

    Returns
    -------
    text : str
        The Markdown document.
    files : dict of str to bytes
        Relative path (``images_dir/NN-name.png``) -> PNG bytes, for every image the text links to.
    """
    charts = [b for s in report.sections for b in s.blocks if isinstance(b, Chart)]
    pngs = dict(zip(map(id, charts), render_charts(charts, _png, progress), strict=True))
    files: dict[str, bytes] = {}
    out = [
        f"# {md_escape(report.title)}",
        "",
        f"*{md_escape(report.subtitle)}* · rackcost {report.version} · {report.date}",
        "",
    ]
    out += [f"{i}. {md_escape(s.title)}" for i, s in enumerate(report.sections, start=1)] + [""]
    for section in report.sections:
        out += [f"## {md_escape(section.title)}", ""]
        for block in section.blocks:
            if isinstance(block, Paragraph):
                text = md_escape(block.text)
                out += [f"**{text}**" if block.strong else text, ""]
            elif isinstance(block, Subheading):
                out += [f"### {md_escape(block.text)}", ""]
            elif isinstance(block, Bullets):
                out += [f"- {md_escape(item)}" for item in block.items] + [""]
            elif isinstance(block, KeyFigures):
                out += [f"- {md_escape(label)}: **{md_escape(value)}**" for label, value in block.figures] + [""]
            elif isinstance(block, Table):
                out += [*_table(block), ""]
            elif isinstance(block, Chart):
                path = f"{images_dir}/{len(files) + 1:02d}-{block.name}.png"
                files[path] = pngs[id(block)]
                out += [f"![{md_escape(block.description)}]({quote(path)})", ""]
            elif isinstance(block, Code):
                fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", block.text)), default=0))
                out += [f"{fence}{block.language}", block.text.rstrip("\n"), fence, ""]
            else:
                raise TypeError(f"no Markdown for a block of type {type(block).__name__}")
    out += ["---", "", md_escape(report.colophon), ""]
    return "\n".join(out), files
