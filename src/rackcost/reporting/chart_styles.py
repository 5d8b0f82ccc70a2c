"""How a chart tells its systems apart: a colour and a line style per system, and which lines lie on one another.

Shared by every chart of :mod:`rackcost.reporting.charts` (the dashboard's and the report's). A system keeps its
colour and its dash in every chart, keyed on its place in the scenario. Two systems can draw the same line: an owned
and a rented copy of one fleet have the same latency cliff and the same operating-point curve. A colour alone then
shows only the one drawn last; a dash per system leaves the line under it visible between the dashes, and
:func:`same_lines` finds such pairs so that a caption can say so.

>>> system_dash(["owned", "rented"]).to_dict()["scale"]["range"]
[[1, 0], [8, 4]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt

__all__ = [
    "LINE_LEGEND",
    "SYSTEM_DASHES",
    "SYSTEM_PALETTE",
    "same_lines",
    "same_lines_note",
    "system_color",
    "system_dash",
]

SYSTEM_PALETTE = (
    "#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b", "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac",
)  # fmt: skip
"""Vega's ``tableau10``: the colour of the n-th system of the scenario (cycled past ten)."""
SYSTEM_DASHES = ([1, 0], [8, 4], [2, 3], [12, 3, 3, 3], [4, 4], [1, 5])
"""Stroke dash of the n-th system's line [px on, px off, ...] (cycled past six): solid, then patterns that leave a
line beneath them visible."""
LINE_LEGEND: dict[str, Any] = {"symbolType": "stroke", "symbolStrokeWidth": 2.5, "symbolSize": 400}
"""A legend of lines shows line segments in their dash, not dots (``alt.Legend(**LINE_LEGEND)``)."""


def _shown(systems: Sequence[str], present: Any) -> tuple[list[str], list[str]]:
    order = list(dict.fromkeys(systems))
    return order, [n for n in order if present is None or n in set(present)]


def system_color(
    systems: Sequence[str] | None, title: str | None = "system", present: Any = None, **kwargs: Any
) -> alt.Color:
    """A colour per system keyed on its name: the n-th system of ``systems`` (the scenario's order) always gets the
    n-th colour of :data:`SYSTEM_PALETTE`, whichever systems a chart draws and however the scenario is edited.

    Parameters
    ----------
    systems
        The systems drawn, in the scenario's order (:attr:`~rackcost.reporting.charts.ChartSubset.systems`); None:
        Vega's default, by the data.
    title
        The legend's title.
    present
        The systems the chart's data have (an API has no curve or cliff): only they are in the legend, each in its
        colour of ``systems``. None: all of ``systems``.
    kwargs
        More arguments of ``alt.Color`` (a legend, say).
    """
    if systems is None:
        return alt.Color("system:N", title=title, **kwargs)
    order, names = _shown(systems, present)
    palette = [SYSTEM_PALETTE[order.index(n) % len(SYSTEM_PALETTE)] for n in names]
    return alt.Color("system:N", title=title, sort=names, scale=alt.Scale(domain=names, range=palette), **kwargs)


def system_dash(
    systems: Sequence[str], title: str | None = "system", present: Any = None, **kwargs: Any
) -> alt.StrokeDash:
    """A line style per system, keyed as :func:`system_color` keys its colour (the n-th of :data:`SYSTEM_DASHES`).

    With the same field and title as the colour, Vega-Lite draws one legend of both: each system's line segment in
    its colour and dash (:data:`LINE_LEGEND`).
    """
    order, names = _shown(systems, present)
    dashes = [SYSTEM_DASHES[order.index(n) % len(SYSTEM_DASHES)] for n in names]
    return alt.StrokeDash("system:N", title=title, sort=names, scale=alt.Scale(domain=names, range=dashes), **kwargs)


def same_lines(rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> list[tuple[str, str]]:
    """Systems whose line is another's: ``(system, first system with the same points)`` for each system whose rows
    have, in order, the same ``fields`` as an earlier system's (equal to 1 part in 10^9).

    Examples
    --------
    >>> rows = [{"system": s, "x": x, "y": 2 * x} for s in ("own", "rent", "other") for x in (1, 2)]
    >>> rows[-1]["y"] = 5
    >>> same_lines(rows, ("x", "y"))
    [('rent', 'own')]
    """
    lines: dict[str, list[tuple[float, ...]]] = {}
    for r in rows:
        lines.setdefault(r["system"], []).append(tuple(float("nan" if r[f] is None else r[f]) for f in fields))
    found: list[tuple[str, str]] = []
    seen: list[str] = []
    for system, points in lines.items():
        twin = next((s for s in seen if _same(lines[s], points)), None)
        if twin is None:
            seen.append(system)
        else:
            found.append((system, twin))
    return found


def _same(a: list[tuple[float, ...]], b: list[tuple[float, ...]]) -> bool:
    return len(a) == len(b) and all(
        abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300) or x == y
        for p, q in zip(a, b, strict=True)
        for x, y in zip(p, q, strict=True)
    )


def same_lines_note(pairs: Sequence[tuple[str, str]]) -> str:
    """A caption's sentence for :func:`same_lines` (empty when there is none).

    >>> same_lines_note([("GB200 (rented)", "GB200")])
    'GB200 (rented) draws the same line as GB200 (the same fleet): its dashes over the line of GB200.'
    """
    return " ".join(
        f"{a} draws the same line as {b} (the same fleet): its dashes over the line of {b}." for a, b in pairs
    )
