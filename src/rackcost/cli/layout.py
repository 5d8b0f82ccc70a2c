"""Tables that fit the console's width without cutting a number or a name.

Rich shrinks a table that is too wide by cutting cells with an ellipsis; a cost that prints as ``$0.…`` is worse
than no table. Every table of the CLI goes through here instead: each column gets a width computed from its cells
(a number or a name at least as wide as its widest cell, never wrapped; words wrapped at spaces, never inside a
word), and a table that cannot fit that way is laid out differently:

- :func:`print_records` prints records (one row each) as a wide table, or, when that does not fit, transposed: one
  column per record and one row per field, in as many groups of records as the width needs;
- :func:`print_grid` prints a table whose first column labels its rows (a figure per demand point, say), its other
  columns split into groups that fit.

Where even one value column beside its labels does not fit, each record is printed as ``label: value`` lines.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rackcost.evaluation.columns import Column

__all__ = ["NOT_APPLICABLE", "Field", "Kind", "fitted_table", "header_and_format", "print_grid", "print_records"]

Kind = Literal["number", "name", "text"]
"""How a column is laid out (:class:`Field`)."""


@dataclass(frozen=True)
class Field:
    """A column of a table.

    Attributes
    ----------
    header
        Its header (Rich markup); wrapped at spaces when the column is narrower (a line break in it is kept).
    kind
        ``number`` (right-aligned, never wrapped), ``name`` (left-aligned, never wrapped: what a user may type, such
        as a system or file name) or ``text`` (left-aligned, wrapped at spaces).
    whole_header
        Never wrap the header either (a system's name as a column's header).
    """

    header: str
    kind: Kind = "number"
    whole_header: bool = False


NOT_APPLICABLE = "-"
"""What a table shows where a figure does not apply (an API system's latency or fleet): never ``None``."""


def header_and_format(c: Column, fmt: Callable[[Any], str] | None = None) -> tuple[str, Callable[[Any], str]]:
    """A result column's header and cell format in a CLI table: as the registry says (:attr:`Column.header`,
    :meth:`Column.format`: a power in kW with its unit in each cell, the header its label alone), unless ``fmt`` is
    given. None is shown as :data:`NOT_APPLICABLE`.
    """
    chosen = fmt or c.format
    return c.header, lambda v: NOT_APPLICABLE if v is None else chosen(v)


_PADDING = 2
"""Characters of padding per column [characters]: one on each side."""


@lru_cache(maxsize=4096)
def _parsed(markup: str) -> Text:
    """The Rich text of a cell's markup, parsed once per process (a label or a header is measured for every group
    :func:`print_grid` tries; a copy of it is what a table holds). Emoji codes are left as typed, as the CLI's
    consoles leave them (:func:`rackcost.cli.common.console`)."""
    return Text.from_markup(markup, emoji=False)


@lru_cache(maxsize=4096)
def _widths(text: str, whole: bool) -> tuple[int, int]:
    """(minimum, natural) width of a cell [characters]: its longest line, or its longest word when it may wrap."""
    lines = _parsed(text).plain.splitlines() or [""]
    natural = max(cell_len(line) for line in lines)
    if whole:
        return natural, natural
    words = [w for line in lines for w in line.split()]
    return (max(cell_len(w) for w in words) if words else 0), natural


def _column_widths(field: Field, cells: Iterable[str], wrap_rows: Collection[int]) -> tuple[int, int]:
    """(minimum, natural) width of a column [characters]: the widest of its header's and its cells'."""
    measured = [_widths(field.header, field.whole_header)]
    measured += [_widths(cell, field.kind != "text" and r not in wrap_rows) for r, cell in enumerate(cells)]
    return max(low for low, _ in measured), max(high for _, high in measured)


def _room(width: int, columns: int) -> int:
    """Characters left for the cells of ``columns`` columns in a table ``width`` wide."""
    return width - (columns * (_PADDING + 1) + 1)  # padding, and the borders: one between columns and one at each edge


def _table(fields: Sequence[Field], widths: Sequence[int], rows: Sequence[Sequence[str]], title: str | None) -> Table:
    """The Rich table of ``rows`` with its columns ``widths`` wide; its cells and headers given to Rich as the text
    their markup parses to (a copy of :func:`_parsed`'s), which Rich would otherwise parse again."""
    table = Table(title=title, title_justify="left")
    for field, w in zip(fields, widths, strict=True):
        table.add_column(
            _parsed(field.header).copy(),
            justify="right" if field.kind == "number" else "left",
            width=w,
            overflow="fold",
        )
    for row in rows:
        table.add_row(*(_parsed(cell).copy() for cell in row))
    return table


def fitted_table(
    width: int,
    fields: Sequence[Field],
    rows: Sequence[Sequence[str]],
    title: str | None = None,
    wrap_rows: Collection[int] = (),
) -> Table | None:
    """A Rich table of ``rows`` with column widths set so that it is at most ``width`` wide, or None if it cannot be.

    Parameters
    ----------
    width
        Width it must fit [characters].
    fields
        Its columns.
    rows
        Cells (Rich markup), one sequence per row, one cell per field.
    title
        Title above it (wrapped to the table's width).
    wrap_rows
        Rows whose every cell may wrap at spaces (words: a transposed text field), whatever its column's kind.

    Returns
    -------
    Table or None
        None when the columns' minimum widths (a number or name whole, a word whole) do not fit.
    """
    measured = [_column_widths(field, (row[i] for row in rows), wrap_rows) for i, field in enumerate(fields)]
    lows, highs = [low for low, _ in measured], [high for _, high in measured]
    room = _room(width, len(fields))
    if sum(lows) > room:
        return None
    return _table(fields, _share(lows, highs, room), rows, title)


def _share(lows: list[int], highs: list[int], room: int) -> list[int]:
    """Column widths from their minimums up towards their natural widths, sharing out ``room`` [characters]."""
    if sum(highs) <= room:
        return list(highs)
    widths = list(lows)
    spare = room - sum(widths)
    while spare > 0:
        wanting = [i for i, (w, h) in enumerate(zip(widths, highs, strict=True)) if w < h]
        if not wanting:
            break
        for i in sorted(wanting, key=lambda i: widths[i] - highs[i])[:spare]:  # the furthest from natural first
            widths[i] += 1
        spare = room - sum(widths)
    return widths


def print_records(
    out: Console, title: str, fields: Sequence[Field], rows: Sequence[Sequence[str]], name: int = 0
) -> None:
    """Print records as a wide table (one row each) when it fits, else transposed, else as ``label: value`` lines.

    Parameters
    ----------
    out
        Console printed on; its width is the width to fit.
    title
        Title of the table.
    fields
        Its columns.
    rows
        One record per row, one cell per field.
    name
        Index of the field that names a record: the header of its column when transposed.
    """
    wide = fitted_table(out.width, fields, rows, title)
    if wide is not None:
        out.print(wide)
        return
    kept = [f for i, f in enumerate(fields) if i != name]
    labels = [f.header.replace("\n", " ") for f in kept]
    columns = [(row[name], [c for i, c in enumerate(row) if i != name]) for row in rows]
    print_grid(out, title, labels, columns, wrap_rows={r for r, f in enumerate(kept) if f.kind == "text"})


def print_grid(
    out: Console,
    title: str,
    labels: Sequence[str],
    columns: Sequence[tuple[str, Sequence[str]]],
    corner: str = "",
    wrap_rows: Collection[int] = (),
) -> None:
    """Print a table of labelled rows and value columns, its columns in as many groups as the width needs.

    Parameters
    ----------
    out
        Console printed on; its width is the width to fit.
    title
        Title of the table (of its first group).
    labels
        The label of each row (wrapped at spaces).
    columns
        (header, values) of each value column, one value per label; a header is never wrapped.
    corner
        Header of the labels' column.
    wrap_rows
        Rows whose values are words, wrapped at spaces (every other value is kept whole).
    """
    # each column is measured once (its widths do not depend on the group it is in) and only the group chosen
    # becomes a Rich table: building a candidate table for every group tried cost about 9 ms of a 1.1 s cold
    # ``rackcost evaluate`` (its four grids), measured with time.process_time around this module's calls
    label_field = Field(corner, "text")
    label_widths = _column_widths(label_field, labels, wrap_rows)
    value_fields = [Field(header, "number", whole_header=True) for header, _ in columns]
    value_widths = [
        _column_widths(field, values, wrap_rows) for field, (_, values) in zip(value_fields, columns, strict=True)
    ]
    start = 0
    first = True
    while start < len(columns):
        end = start
        lows = label_widths[0]
        while end < len(columns) and lows + value_widths[end][0] <= _room(out.width, end - start + 2):
            lows += value_widths[end][0]
            end += 1
        if end == start:  # not even one value column fits beside the labels: label: value lines
            header, values = columns[start]
            if first:
                out.print(title)
            out.print(f"[bold]{header}[/bold]")
            for label, value in zip(labels, values, strict=True):
                out.print(f"  {label}: {value}", highlight=False)
            start += 1
        else:
            group = range(start, end)
            measured = [label_widths, *(value_widths[j] for j in group)]
            widths = _share(
                [low for low, _ in measured], [high for _, high in measured], _room(out.width, len(measured))
            )
            fields = [label_field, *(value_fields[j] for j in group)]
            rows = [[label, *(columns[j][1][r] for j in group)] for r, label in enumerate(labels)]
            out.print(_table(fields, widths, rows, title if first else None))
            start = end
        first = False
