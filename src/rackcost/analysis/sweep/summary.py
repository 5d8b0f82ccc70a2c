"""What a sweep's table says: the cheapest system in each cell, its margin, and the Pareto fronts.

Pure functions of the tidy table :func:`rackcost.analysis.sweep.run.sweep` returns (pandas in, pandas out), used by the
CLI's summary and the dashboard's winner map and Pareto chart alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from rackcost.evaluation.columns import BLENDED

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BLENDED", "SummaryStream", "cost_column", "pareto_front", "winners"]

"""The demand point name that stands for the whole day (blended cost per accepted request)."""


def cost_column(demand_point: str) -> str:
    """The cost column a winner is judged by: blended over the day, or at one demand point [USD/request]."""
    return "blended_usd_per_accepted_request" if demand_point == BLENDED else "usd_per_accepted_request"


def _at_point(frame: pd.DataFrame, demand_point: str) -> pd.DataFrame:
    """Rows of one demand point (for ``blended``: the first point's row of each configuration and system, which
    carries the blended figures)."""
    points = list(frame["demand_point"].cat.categories) if "demand_point" in frame else []
    if demand_point != BLENDED and demand_point not in points:
        raise ValueError(f"no demand point named {demand_point!r} (points: {points + [BLENDED]})")
    if not len(frame):
        return frame
    name = points[0] if demand_point == BLENDED else demand_point
    return frame[frame["demand_point"] == name]


def winners(frame: pd.DataFrame, by: list[str], demand_point: str = BLENDED) -> pd.DataFrame:
    """The cheapest system per accepted request in each cell of the ``by`` axes, and its margin over the next.

    A cell holds every configuration with the same values of ``by``; each system's best configuration in the cell
    competes. Ties go to the system listed first.

    Parameters
    ----------
    frame
        A sweep's table.
    by
        Axis columns whose combinations are the cells (none: one cell, the whole sweep).
    demand_point
        A demand point's name, or ``blended`` (cost over the day).

    Returns
    -------
    pandas.DataFrame
        One row per cell: the ``by`` values, ``configurations`` in the cell, ``cheapest``, ``usd_per_accepted_request``
        (its cost), ``runner_up`` and its cost (missing when one system competes), ``margin_fraction`` (runner-up
        / cheapest - 1), ``configuration`` (where the cheapest was found).
    """
    keys = list(by)
    rows = _cell_rows(frame, keys, demand_point)
    best = _best_per_system(rows, keys, cost_column(demand_point))
    return _winner_table(best, _configurations(rows, keys), keys, cost_column(demand_point))


def _cell_rows(frame: pd.DataFrame, keys: list[str], demand_point: str) -> pd.DataFrame:
    """The rows that compete at the demand point: those with every key (a cell with a missing key is no cell, as
    group-by drops it)."""
    rows = _at_point(frame, demand_point)
    return rows.dropna(subset=keys) if keys else rows


def _best_per_system(rows: pd.DataFrame, keys: list[str], cost: str) -> pd.DataFrame:
    """Each system's cheapest configuration in each cell (ties: the first configuration), sorted by cell and
    system. Of rows that are themselves such bests, the same: so the bests of a table's pieces have the table's."""
    order = rows.sort_values([*keys, "system", cost, "configuration"], kind="stable")
    return order.drop_duplicates([*keys, "system"], keep="first")


def _configurations(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Configurations in each cell, as a frame of the keys and ``configurations`` (one row, without keys), sorted
    by cell. A configuration's rows are in one piece of a streamed table, so the pieces' counts add up."""
    import pandas as pd

    if not keys:
        return pd.DataFrame({"configurations": [rows["configuration"].nunique()] if len(rows) else []})
    counted = rows.groupby(keys, observed=True, sort=True)["configuration"].nunique()
    return counted.rename("configurations").reset_index()


def _winner_table(best: pd.DataFrame, configurations: pd.DataFrame, keys: list[str], cost: str) -> pd.DataFrame:
    """The winner table from each system's best per cell (:func:`_best_per_system`) and the configurations per cell
    (:func:`_configurations`): in each cell the systems by cost (ties: the system listed first), the cell's first
    row its winner, the second its runner-up."""
    import pandas as pd

    best = best.sort_values([*keys, cost, "system"], kind="stable")
    if keys:
        grouped = best.groupby(keys, observed=True, sort=True)
        rank = grouped.cumcount().to_numpy()
        cell = grouped.ngroup().to_numpy()
    else:
        rank = np.arange(len(best))
        cell = np.zeros(len(best), dtype=np.int64)
    counts = configurations["configurations"].to_numpy()
    first, second = best[rank == 0], best[rank == 1]
    if not len(first):
        return pd.DataFrame()
    # best is sorted by the keys, and so numbered by ngroup: the winners are in cell order, one per cell
    table = pd.DataFrame({name: _plain(first[name]) for name in keys})
    table["configurations"] = counts.astype(np.int64)
    table["cheapest"] = first["system"].astype(str).to_numpy(dtype=object)
    winner_cost = first[cost].to_numpy(float)
    table["usd_per_accepted_request"] = winner_cost
    has_second = np.zeros(len(first), dtype=bool)
    has_second[cell[rank == 1]] = True
    runner_up = np.full(len(first), None, dtype=object)
    runner_up[has_second] = second["system"].astype(str).to_numpy(dtype=object)
    second_cost = np.full(len(first), np.nan)
    second_cost[has_second] = second[cost].to_numpy(float)
    table["runner_up"] = runner_up
    with np.errstate(divide="ignore", invalid="ignore"):  # a free winner: an infinite margin, not a warning
        margin = second_cost / winner_cost - 1.0
    for name, values in (("runner_up_usd_per_accepted_request", second_cost), ("margin_fraction", margin)):
        column = pd.array(values, dtype="Float64")
        column[~has_second] = pd.NA
        table[name] = column
    table["configuration"] = first["configuration"].to_numpy(np.int64)
    return table


WINNER_BLOCKS = 16
"""Blocks the winner table of a streamed summary is made in, at most (:meth:`SummaryStream.winners`) [-]."""


class SummaryStream:
    """The winner table and the Pareto fronts of a table that comes in pieces (``run_sweep(sink=...)``), equal to
    :func:`winners` and :func:`pareto_front` of the whole table, which is never held.

    Of each piece it keeps each system's best row per cell (the columns the winner table reads), the configurations
    per cell and the piece's fronts; at the end the same functions run on what was kept. Exact: the best of the
    pieces' bests is the whole table's best, with the same ties (cost, then configuration); a configuration's rows
    are in one piece; and a row on the whole table's front is on its piece's front (what beats it in the table
    would beat it in its piece), so the front of the pieces' fronts is the table's.

    Parameters
    ----------
    by, demand_point
        As :func:`winners`.
    fronts
        ``(against, demand_point, higher_is_better)`` of each Pareto front, as :func:`pareto_front`.
    """

    def __init__(self, by: list[str], demand_point: str, fronts: list[tuple[str, str, bool]]) -> None:
        self.by, self.demand_point, self.fronts = list(by), demand_point, list(fronts)
        self.rows = 0
        self._best: list[pd.DataFrame] = []
        self._configurations: list[pd.DataFrame] = []
        self._fronts: list[list[pd.DataFrame]] = [[] for _ in self.fronts]

    def add(self, piece: pd.DataFrame) -> None:
        """Take one piece of the table (rows of whole configurations)."""
        self.rows += len(piece)
        if not len(piece):
            return
        cost = cost_column(self.demand_point)
        rows = _cell_rows(piece, self.by, self.demand_point)
        kept = list(dict.fromkeys([*self.by, "system", cost, "configuration"]))
        self._best.append(_best_per_system(rows, self.by, cost)[kept])
        self._configurations.append(_configurations(rows, self.by))
        for found, (against, point, higher) in zip(self._fronts, self.fronts, strict=True):
            found.append(pareto_front(piece, against, point, higher))

    def winners(self) -> pd.DataFrame:
        """:func:`winners` of the whole table: :meth:`winner_blocks` one after the other."""
        import pandas as pd

        tables = list(self.winner_blocks())
        if not tables:
            return pd.DataFrame()
        return pd.concat(tables, ignore_index=True) if len(tables) > 1 else tables[0]

    def winner_blocks(self) -> Iterator[pd.DataFrame]:
        """The rows of :func:`winners` of the whole table, in up to :data:`WINNER_BLOCKS` blocks, in order.

        Cells with different values of the first ``by`` key are apart, and the table is in cell order: so each block
        is the cells of a range of that key's values, made on its own, which bounds the memory of the sorting and
        grouping to a block's, and a caller that keeps only some rows (the CLI prints 40) never holds the whole
        table (10^6 cells: 0.5 GB sorted at once).
        """
        import pandas as pd

        best = pd.concat(self._best, ignore_index=True) if self._best else pd.DataFrame()
        if not len(best):
            return
        cost = cost_column(self.demand_point)
        counts = pd.concat(self._configurations, ignore_index=True)
        self._best, self._configurations = [best], [counts]
        if not self.by:
            total = pd.DataFrame({"configurations": [int(counts["configurations"].sum())]})
            yield _winner_table(_best_per_system(best, [], cost), total, [], cost)
            return
        first = self.by[0]
        values = np.concatenate([best[first].to_numpy(), counts[first].to_numpy()])
        codes = (
            pd.Categorical(values, categories=best[first].cat.categories).codes
            if isinstance(best[first].dtype, pd.CategoricalDtype)
            else np.unique(values.astype(float), return_inverse=True)[1]
        )
        best_codes, count_codes = codes[: len(best)], codes[len(best) :]
        edges = np.unique(np.quantile(best_codes, np.linspace(0, 1, WINNER_BLOCKS + 1)[1:-1], method="lower"))
        for low, high in zip([-1, *edges], [*edges, codes.max()], strict=True):
            part = best[(best_codes > low) & (best_codes <= high)]
            if not len(part):
                continue
            cells = counts[(count_codes > low) & (count_codes <= high)]
            cells = cells.groupby(self.by, observed=True, sort=True)["configurations"].sum().reset_index()
            yield _winner_table(_best_per_system(part, self.by, cost), cells, self.by, cost)

    def front(self, k: int) -> pd.DataFrame:
        """:func:`pareto_front` of the whole table, for the ``k``-th of ``fronts``."""
        import pandas as pd

        against, point, higher = self.fronts[k]
        if not self._fronts[k]:
            return pd.DataFrame()
        return pareto_front(pd.concat(self._fronts[k], ignore_index=True), against, point, higher)


def _plain(column: pd.Series[Any]) -> Any:
    """A key column as the winner table holds it: a label axis (categorical) as its labels (objects), a numeric
    axis (a categorical of float64 values in the sweep's table) or another number as float64."""
    if str(column.dtype) == "category":
        if column.cat.categories.dtype.kind == "f":
            return column.to_numpy(dtype=np.float64)
        return column.astype(object).to_numpy(dtype=object)
    return column.to_numpy()


def pareto_front(frame: pd.DataFrame, against: str, demand_point: str, higher_is_better: bool) -> pd.DataFrame:
    """Rows no other row beats on both cost per accepted request (lower) and ``against``.

    Parameters
    ----------
    frame
        A sweep's table.
    against
        The other objective: ``interactivity_tokens_per_s`` (higher is better) or ``facility_power_kw`` (lower).
    demand_point
        The demand point compared (each point has its own interactivity and power).
    higher_is_better
        Whether a larger ``against`` is better.

    Returns
    -------
    pandas.DataFrame
        The front's rows, by cost ascending; rows without a value of ``against`` (API systems) are left out.
        Of rows equal on both, the first configuration is kept.

    Raises
    ------
    ValueError
        For ``blended``: interactivity and power belong to a demand point, so the front is drawn at one.
    """
    if demand_point == BLENDED:
        raise ValueError("a Pareto front is drawn at one demand point (interactivity and power are per point)")
    rows = _at_point(frame, demand_point).dropna(subset=[against])
    cost = rows["usd_per_accepted_request"].to_numpy(float)
    other = rows[against].to_numpy(float)
    other = -other if higher_is_better else other
    order = np.lexsort((rows["configuration"].to_numpy(), other, cost))
    # by cost, then the other objective: a row is on the front when it beats every row before it on the other
    ordered = other[order]
    best_before = np.concatenate(([np.inf], np.minimum.accumulate(ordered)[:-1]))
    return rows.iloc[order[ordered < best_before]]
