"""``docs/validation.md`` as Markdown: the sections of :mod:`rackcost.analysis.validation` under a header that says
the exact command that wrote the file, a summary of each section's headline, then each section's text, parameters
and tables (GitHub-flavoured Markdown; every table cell escaped so that it shows as written).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rackcost.analysis.validation.sections import SectionTable, SimulationBudget, ValidationSection
from rackcost.reporting.markdown import md_escape

__all__ = ["DEFAULT_OUTPUT", "TITLE", "command_line", "render_validation", "run_line", "table_markdown"]

TITLE = "Validation: how far to trust each number"
"""The file's title."""
DEFAULT_OUTPUT = "docs/validation.md"
"""Where the committed file lives, relative to the repository."""


def command_line(
    quick: bool = False, seed: int = 0, data: str | None = None, output: str | None = DEFAULT_OUTPUT
) -> str:
    """The ``rackcost validation`` command with these options, as the file's header names it.

    Examples
    --------
    >>> command_line()
    'rackcost validation --output docs/validation.md'
    >>> command_line(quick=True, seed=3, data="/data", output=None)
    'rackcost validation --quick --seed 3 --data /data'
    """
    words = ["rackcost validation"]
    if quick:
        words.append("--quick")
    if seed != 0:
        words.append(f"--seed {seed}")
    if data is not None:
        words.append(f"--data {data}")
    if output is not None:
        words.append(f"--output {output}")
    return " ".join(words)


def run_line(budget: SimulationBudget, seed: int, data_label: str) -> str:
    """The header's sentence on what the file was computed with: the simulation budget, the seed, the data folder.

    Examples
    --------
    >>> from rackcost.analysis.validation.sections import QUICK_BUDGET
    >>> line = run_line(QUICK_BUDGET, 0, "absent")
    >>> line.startswith("Simulation budget `quick` (4,000 requests in 4 replications")
    True
    >>> line.endswith("seed 0, shared data folder: absent.")
    True
    """
    return (
        f"Simulation budget `{budget.name}` ({budget.requests:,} requests in {budget.replications} replications per "
        f"system and router), seed {seed}, shared data folder: {data_label}."
    )


def _cell(value: Any, fmt: str | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if fmt is not None and isinstance(value, int | float):
        return fmt.format(value)
    return str(value)


def table_markdown(table: SectionTable) -> list[str]:
    """A section's table as Markdown lines: a caption heading, the header row, one row per record."""
    columns = list(table.frame.columns)
    lines = [
        f"### {table.caption}",
        "",
        "| " + " | ".join(md_escape(table.headers.get(c, c)) for c in columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    for record in table.frame.to_dict("records"):
        cells = [md_escape(_cell(record[c], table.formats.get(str(c)))) for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def render_validation(sections: Sequence[ValidationSection], command: str, parameters: str = "") -> str:
    """The whole file.

    Parameters
    ----------
    sections
        :func:`rackcost.analysis.validation.sections.build_sections`'s sections, in order.
    command
        The command that wrote it (:func:`command_line`).
    parameters
        What it ran with (:func:`run_line`), shown after the command.

    Returns
    -------
    str
        Markdown text, ending with a newline.
    """
    lines = [
        f"# {TITLE}",
        "",
        f"Written by `{command}` (add `--force` to replace the file). Every simulation has a fixed seed, so the same "
        "command on the same inputs writes the same file. " + parameters,
        "",
        "## Summary",
        "",
        "| section | status | headline |",
        "|---|---|---|",
    ]
    lines += [f"| {md_escape(s.title)} | {s.status} | {md_escape(s.headline)} |" for s in sections]
    for s in sections:
        lines += ["", f"## {s.title}", "", s.text]
        if s.parameters:
            shown = ", ".join(f"{k} {v}" for k, v in s.parameters.items())
            lines += ["", f"Parameters: {md_escape(shown)}."]
        for table in s.tables:
            lines += ["", *table_markdown(table)]
    return "\n".join(lines).rstrip() + "\n"
