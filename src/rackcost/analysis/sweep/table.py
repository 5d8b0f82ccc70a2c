"""The sweep's tidy table: one row per configuration x system x demand point, from the chunks' columns.

Pure layout (numpy and pandas, no Dask): :class:`TableBuilder` copies each chunk's figures, as the chunk finishes,
into one float block that becomes the frame without another copy, and lays out the rest of each row (configuration,
axes' values, system, payment model, demand point) from the chunk itself, with the axes' labels, the systems, the
payment models and the demand points as categoricals. :func:`sweep_table` is the whole table; a builder per chunk
gives the pieces that the CLI streams to its output file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.sweep.chunks import (
    MC_SPREAD,
    POINT_COLUMNS,
    SYSTEM_COLUMNS,
    Chunk,
    axis_key,
    measure_names,
    part_rows,
    per_system,
)
from rackcost.analysis.sweep.design import Design
from rackcost.errors import Problem, ScenarioError
from rackcost.evaluation.columns import column
from rackcost.units import MS_PER_S

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "COUNTED",
    "NOT_FOR_API",
    "TABLE_COLUMNS",
    "Layout",
    "TableBuilder",
    "bytes_per_row",
    "check_column_names",
    "code_dtype",
    "configuration_dtype",
    "numeric_axes_as_floats",
    "sweep_table",
    "table_layout",
]

NOT_FOR_API = tuple(
    name
    for name in (*POINT_COLUMNS, "interactivity_tokens_per_s", *SYSTEM_COLUMNS)
    if column("points" if name in POINT_COLUMNS else "systems", name).fleet_only
)
"""Columns an API system has no value for: missing (<NA>) in its rows, as the CLI shows '-'."""


TABLE_COLUMNS = frozenset(
    {
        "configuration",
        "system",
        "payment",
        "demand_point",
        "interactivity_tokens_per_s",
        "probability_cheapest_fraction",
        "blended_probability_cheapest_fraction",
        *POINT_COLUMNS,
        *SYSTEM_COLUMNS,
        *(f"{name}_{p}" for name in MC_SPREAD for p in ("p5", "p95")),
    }
)
"""Every column a sweep table can have besides its axes and system attributes (the Monte Carlo ones included,
with or without draws), which no axis or attribute may be named."""


def check_column_names(d: Design) -> None:
    """Refuse an axis or a ``system_attributes`` column named as a column of the table (:data:`TABLE_COLUMNS`).

    Raises
    ------
    ScenarioError
        Naming the sweep file, the YAML path and the column.
    """
    taken = [(f"axes[{i}].axis", a.name) for i, a in enumerate(d.axes) if a.name in TABLE_COLUMNS]
    taken += [(f"system_attributes.{name}", name) for name in d.spec.system_attributes if name in TABLE_COLUMNS]
    if taken:
        raise ScenarioError(
            [
                Problem(path, f"{name!r} is a column of every sweep table already; give it another name", d.source)
                for path, name in taken
            ]
        )


def bytes_per_row(d: Design) -> int:
    """Bytes of one row of the table, as the chunks carry it: 8 per column [bytes]."""
    fixed = 4  # configuration, system, payment, demand point
    spread = 2 * len(MC_SPREAD) + 2 if d.spec.samples is not None else 0  # p5, p95; the two shares cheapest
    columns = len(POINT_COLUMNS) + len(SYSTEM_COLUMNS) + 1 + len(d.axes) + len(d.spec.system_attributes) + fixed
    return 8 * (columns + spread)


def _insert_categorical(frame: pd.DataFrame, at: int, name: str, values: pd.Categorical[Any]) -> None:
    """``frame.insert`` of a categorical column (kept as it is: no copy into an object column)."""
    frame.insert(at, name, values)  # type: ignore[arg-type]  # pandas-stubs: insert takes an ExtensionArray too


COUNT_DTYPE = np.int32
"""The type of the counted columns (:data:`COUNTED`) when every row has a whole count: 2^31 - 1 replicas or racks
is beyond any fleet, and a count beyond it is an error, never a changed number."""
COUNTED = ("provisioned_replicas", "racks")
"""Counts, set apart from the float block as integers: replacing a column of the block would copy the whole block."""


def code_dtype(categories: int) -> np.dtype[Any]:
    """The integer type pandas keeps the codes of a categorical of this many categories in (int8 below 127, as
    ``pandas.core.dtypes.cast.coerce_indexer_dtype``): codes laid out in it are taken without a copy of another type."""
    for kind in (np.int8, np.int16, np.int32):
        if categories < np.iinfo(kind).max:
            return np.dtype(kind)
    return np.dtype(np.int64)


def configuration_dtype(configurations: int) -> np.dtype[Any]:
    """The type of the ``configuration`` column: int32, or int64 for a sweep of more configurations than int32 holds
    (numbers never change)."""
    return np.dtype(np.int32 if configurations <= np.iinfo(np.int32).max else np.int64)


@dataclass(frozen=True)
class Layout:
    """What every piece of a sweep's table shares, fixed from the plan before any chunk is evaluated: the columns
    and their types, so that the pieces of a streamed table (:class:`TableBuilder` per chunk) have one schema and
    their rows equal the whole table's.

    Attributes
    ----------
    float_names
        The float block's columns (the figures, each a float64 column of the table).
    axis_categories
        The categories of each axis's column: a label axis's labels in the file's order, a numeric axis's distinct
        values (float64) in ascending order (an ordered categorical).
    axis_codes
        The code, among its column's categories, of each of an axis's values (by its index among them).
    payments
        The payment models' names, by code.
    api
        Whether any system of any chunk is an API (its rows then have ``<NA>`` in :data:`NOT_FOR_API`, and those
        columns are nullable floats in every piece).
    attribute_categories
        The categories of each ``system_attributes`` column: the values of the systems the chunks evaluate.
    """

    float_names: tuple[str, ...]
    axis_categories: dict[str, pd.Index[Any]]
    axis_codes: dict[str, NDArray[Any]]
    payments: tuple[str, ...]
    api: bool
    attribute_categories: dict[str, pd.Index[Any]]


def table_layout(d: Design, chunks: list[Chunk]) -> Layout:
    """The :class:`Layout` of a sweep's table from its chunks (before they are evaluated)."""
    import pandas as pd

    measures = [n for n in measure_names(d.spec.samples) if n not in COUNTED]
    at_tpot = measures.index("tpot_ms") + 1
    float_names = (*measures[:at_tpot], "interactivity_tokens_per_s", *measures[at_tpot:])
    axis_categories: dict[str, pd.Index[Any]] = {}
    axis_codes: dict[str, NDArray[Any]] = {}
    for axis in d.axes:
        if axis.labels.dtype == object:
            axis_categories[axis.name] = pd.Index(list(axis.labels))
            axis_codes[axis.name] = np.arange(len(axis.labels))
        else:
            values = np.asarray(axis.labels, dtype=np.float64)
            distinct = np.unique(values)  # sorted; an axis may give a value twice
            axis_categories[axis.name] = pd.Index(distinct, dtype=np.float64)
            axis_codes[axis.name] = np.searchsorted(distinct, values)
    scenarios = [part[0] for c in chunks for part in c.parts]
    codes = chunks[0].system_codes if chunks else {}
    present = sorted({codes[s.name] for scenario in scenarios for s in scenario.systems})
    categories = {
        name: pd.Categorical(np.asarray(values, dtype=object)[present]).categories
        for name, values in d.attributes.items()
    }
    api = any(s.api is not None for scenario in scenarios for s in scenario.systems)
    payments = tuple(chunks[0].payment_codes) if chunks else ()
    return Layout(float_names, axis_categories, axis_codes, payments, api, categories)


class TableBuilder:
    """Chunks' results copied, as they come and in any order, into one float block preallocated for the rows of
    the given chunks; :meth:`frame` makes it the table without another copy.

    One builder for every chunk is the library's table (:func:`sweep_table`): the chunks' results need not be kept
    till the end, so the table is the one copy. One builder per chunk gives that chunk's piece of the table (the CLI
    streams the pieces to the output file): pieces with the same :class:`Layout` are the whole table's rows.
    """

    def __init__(self, d: Design, chunks: list[Chunk], layout: Layout | None = None) -> None:
        self.design = d
        self.layout = layout or table_layout(d, chunks)
        self._chunks = {c.number: c for c in chunks}
        self._starts: dict[int, tuple[int, int]] = {}  # each chunk's first row and rows
        rows = 0
        for c in chunks:
            size = sum(part_rows(part) for part in c.parts)
            self._starts[c.number] = (rows, size)
            rows += size
        self.rows = rows
        layout = self.layout
        self._block = np.empty((len(layout.float_names), rows))
        self._added: set[int] = set()
        # every other column in the type the table keeps it in, so that the frame takes it without a copy
        self.whole = not (layout.api or d.spec.samples is not None)  # a mean over draws need not be whole
        codes = {
            "system": code_dtype(len(d.system_names)),
            "payment": code_dtype(len(layout.payments)),
            "point": code_dtype(len(d.base.demand)),
            **{axis_key(name): code_dtype(len(c)) for name, c in layout.axis_categories.items()},
        }
        self._other: dict[str, NDArray[Any]] = {
            "configuration": np.empty(rows, configuration_dtype(d.configurations)),
            **({"api": np.empty(rows, bool)} if layout.api else {}),
            **{name: np.empty(rows, COUNT_DTYPE if self.whole else np.float64) for name in COUNTED},
            **{key: np.empty(rows, dtype) for key, dtype in codes.items()},
        }

    def add(self, chunk: Chunk, result: dict[str, NDArray[Any]]) -> None:
        """Copy one chunk's result (:func:`~rackcost.analysis.sweep.chunks.evaluate_chunk`) into its rows."""
        d, layout, block, other = self.design, self.layout, self._block, self._other
        start = self._starts[chunk.number][0]
        done = 0  # rows of the chunk's earlier parts
        done_system = 0  # configuration x system pairs of the chunk's earlier parts
        for scenario, _, configs, _, axis_values in chunk.parts:
            m, points = len(configs), len(scenario.demand)
            systems = len(scenario.systems)
            size = m * systems * points
            rows = slice(start + done, start + done + size)
            pairs = slice(done_system, done_system + m * systems)

            def values(name: str, rows: slice = rows, pairs: slice = pairs, points: int = points) -> NDArray[Any]:
                if per_system(name):  # one value per configuration x system: repeated on its points' rows
                    return np.repeat(result[name][pairs], points)
                return result[name][rows.start - start : rows.stop - start]

            for j, key in enumerate(layout.float_names):
                if key == "interactivity_tokens_per_s":
                    with np.errstate(divide="ignore"):
                        np.divide(MS_PER_S, values("tpot_ms"), out=block[j, rows])
                elif per_system(key):
                    block[j, rows].reshape(-1, points)[:] = result[key][pairs, None]
                else:
                    block[j, rows] = values(key)
            for name in COUNTED:  # whole numbers, as integers when every row has one
                counts = result[name][pairs]
                if self.whole and counts.size and not counts.max() <= np.iinfo(COUNT_DTYPE).max:
                    raise OverflowError(f"{name} of {counts.max():.0f} is more than the table's int32 column holds")
                other[name][rows].reshape(-1, points)[:] = counts[:, None]
            other["configuration"][rows] = np.repeat(configs, systems * points)
            for axis in d.axes:  # each axis's value as its category's code
                key = axis_key(axis.name)
                other[key][rows] = np.repeat(layout.axis_codes[axis.name][axis_values[key]], systems * points)
            codes = np.asarray([chunk.system_codes[s.name] for s in scenario.systems])
            other["system"][rows] = np.tile(np.repeat(codes, points), m)
            payments = np.asarray([chunk.payment_codes[s.payment.value] for s in scenario.systems])
            other["payment"][rows] = np.tile(np.repeat(payments, points), m)
            other["point"][rows] = np.tile(np.arange(points), m * systems)
            if "api" in other:
                api = np.asarray([s.api is not None for s in scenario.systems], bool)
                other["api"][rows] = np.tile(np.repeat(api, points), m)
            done += size
            done_system += m * systems
        self._added.add(chunk.number)

    def frame(self) -> pd.DataFrame:
        """The table of the rows added (the rows of chunks never added, which failed, are left out); once only.

        The float block and the integer columns become the frame's columns as they are (no copy); the categoricals'
        codes are copied (pandas does), each let go by the builder as it is, so that one copy is held at a time.
        """
        import pandas as pd

        d, layout = self.design, self.layout
        block, other = self._block, self._other
        self._other = {}
        if self._added != set(self._starts):  # failed chunks: their rows go (the one case that copies the block)
            kept = np.concatenate(
                [np.arange(first, first + size) for c, (first, size) in self._starts.items() if c in self._added]
                or [np.zeros(0, np.int64)]
            )
            block = block[:, kept]
            other = {name: v[kept] for name, v in other.items()}
        config = other["configuration"]
        out = pd.DataFrame(block.T, columns=list(layout.float_names), copy=False)
        if config.size > 1 and not bool(np.all(config[1:] >= config[:-1])):  # pragma: no cover - by numbering
            raise AssertionError("sweep rows out of configuration order")
        out.insert(0, "configuration", pd.Series(config, copy=False))  # a Series is taken as it is
        for a, axis in enumerate(d.axes):
            numeric = axis.labels.dtype != object
            categories = layout.axis_categories[axis.name]
            column = pd.Categorical.from_codes(
                other.pop(axis_key(axis.name)), categories=categories, ordered=numeric, validate=False
            )
            _insert_categorical(out, a + 1, axis.name, column)
        system = other.pop("system")
        at = len(d.axes) + 1
        names = list(d.system_names)
        _insert_categorical(out, at, "system", pd.Categorical.from_codes(system, categories=pd.Index(names)))
        for attribute, values in d.attributes.items():  # read off the names when the sweep was resolved
            at += 1
            categories = layout.attribute_categories[attribute]
            per_system_code = categories.get_indexer(pd.Index(np.asarray(values, dtype=object)))  # missing: -1
            codes = per_system_code.astype(code_dtype(len(categories)))[system]
            _insert_categorical(out, at, attribute, pd.Categorical.from_codes(codes, categories=categories))
        del system
        payment = pd.Categorical.from_codes(other.pop("payment"), categories=pd.Index(list(layout.payments)))
        _insert_categorical(out, at + 1, "payment", payment)
        points = pd.Index([p.name for p in d.base.demand])
        point = pd.Categorical.from_codes(other.pop("point"), categories=points)
        _insert_categorical(out, at + 2, "demand_point", point)
        first_count = out.columns.get_loc("provisioned_it_kw")
        assert isinstance(first_count, int)  # the column names are unique: get_loc gives a position
        for k, name in enumerate(COUNTED):
            out.insert(first_count + k, name, pd.Series(other[name], copy=False))
        if layout.api:
            api = other["api"]
            for name in NOT_FOR_API:
                if name in out:
                    out[name] = pd.array(np.where(api, 0.0, out[name].to_numpy(float)), dtype="Float64")
                    out.loc[api, name] = pd.NA
        return out


def numeric_axes_as_floats(frame: pd.DataFrame) -> pd.DataFrame:
    """The table (or a piece of it) with its numeric axes, ordered categoricals of float64 values in the library's
    table (a byte or two per row instead of 8), as float64 columns: the values the files hold (Parquet ``double``)."""
    numeric = {
        name: "float64"
        for name in frame.columns
        if str(frame[name].dtype) == "category" and frame[name].cat.categories.dtype.kind == "f"
    }
    return frame.astype(numeric) if numeric else frame


def sweep_table(d: Design, chunks: list[Chunk], results: dict[int, dict[str, NDArray[Any]]]) -> pd.DataFrame:
    """The tidy table: rows in order of configuration, system (the base's order) and demand point.

    Configurations are numbered with the structural axes outermost, so each group is a run of consecutive
    configurations and the chunks, in order, hold the rows in order: each chunk's columns are copied once into one
    float block that becomes the frame without another copy (:class:`TableBuilder`; sorting the rows and stacking
    columns took 6 of 8.6 s at 6 x 10^6 rows; measured, benchmarks/bench_sweep.py). Chunks without a result (failed)
    have no rows.
    """
    builder = TableBuilder(d, chunks)
    for c in chunks:
        if c.number in results:
            builder.add(c, results[c.number])
    return builder.frame()
