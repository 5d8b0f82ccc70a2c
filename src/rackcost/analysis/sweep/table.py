"""The sweep's tidy table: one row per configuration x system x demand point, from the chunks' columns.

Pure layout (numpy and pandas, no Dask): :func:`sweep_table` copies the chunks' columns, in order, into one float
block that becomes the frame without another copy, with the axes' labels, the systems, the payment models and the
demand points as categoricals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from rackcost.analysis.sweep.chunks import MC_SPREAD, POINT_COLUMNS, SYSTEM_COLUMNS, Chunk, axis_key
from rackcost.analysis.sweep.design import Design
from rackcost.errors import Problem, ScenarioError
from rackcost.evaluation.columns import column
from rackcost.units import MS_PER_S

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NOT_FOR_API", "TABLE_COLUMNS", "bytes_per_row", "check_column_names", "sweep_table"]

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


def sweep_table(d: Design, chunks: list[Chunk], results: dict[int, dict[str, NDArray[Any]]]) -> pd.DataFrame:
    """The tidy table: rows in order of configuration, system (the base's order) and demand point.

    Configurations are numbered with the structural axes outermost, so each group is a run of consecutive
    configurations and the chunks, in order, hold the rows in order: the table is their columns copied once into
    one float block that becomes the frame without another copy (sorting the rows and stacking columns took 6 of
    8.6 s at 6 x 10^6 rows; measured, benchmarks/bench_sweep.py).
    """
    import pandas as pd

    found = [results[c.number] for c in chunks if c.number in results]
    payments = list(chunks[0].payment_codes) if chunks else []
    label_axes = [a for a in d.axes if a.labels.dtype == object]
    float_axes = [a.name for a in d.axes if a.labels.dtype != object]
    fixed = {"configuration", "system", "payment", "point", "api", *(axis_key(a.name) for a in d.axes)}
    measures = [n for n in found[0] if n not in fixed] if found else [*POINT_COLUMNS, *SYSTEM_COLUMNS]
    # counts are set apart, as integers: replacing a column of the float block would copy the whole block
    counted = ("provisioned_replicas", "racks")
    measures = [n for n in measures if n not in counted]
    at_tpot = measures.index("tpot_ms") + 1
    float_names = [*float_axes, *measures[:at_tpot], "interactivity_tokens_per_s", *measures[at_tpot:]]
    float_keys = [*map(axis_key, float_axes), *float_names[len(float_axes) :]]
    sizes = [len(f["configuration"]) for f in found]
    rows = int(sum(sizes))
    block = np.empty((len(float_names), rows))
    other: dict[str, list[NDArray[Any]]] = {}
    start = 0
    for f, size in zip(found, sizes, strict=True):
        stop = start + size
        for j, name in enumerate(float_keys):
            if name == "interactivity_tokens_per_s":
                with np.errstate(divide="ignore"):
                    np.divide(MS_PER_S, f["tpot_ms"], out=block[j, start:stop])
            else:
                block[j, start:stop] = f[name]
        for name in (
            "configuration",
            "system",
            "payment",
            "point",
            "api",
            *counted,
            *(axis_key(a.name) for a in label_axes),
        ):
            other.setdefault(name, []).append(f[name])
        start = stop

    def joined(name: str, dtype: Any) -> NDArray[Any]:
        parts = other.get(name, [])
        return np.concatenate(parts) if parts else np.empty(0, dtype)

    config = joined("configuration", np.int64)
    out = pd.DataFrame(block.T, columns=float_names, copy=False)
    if config.size > 1 and not bool(np.all(config[1:] >= config[:-1])):  # pragma: no cover - numbering guarantees it
        raise AssertionError("sweep rows out of configuration order")
    out.insert(0, "configuration", config)
    for a, axis in enumerate(d.axes):
        if axis.labels.dtype == object:
            labels = pd.Categorical.from_codes(
                joined(axis_key(axis.name), np.int32), categories=pd.Index(list(axis.labels))
            )
            _insert_categorical(out, a + 1, axis.name, labels)
    system = joined("system", np.int32)
    at = len(d.axes) + 1
    names = list(d.system_names)
    _insert_categorical(out, at, "system", pd.Categorical.from_codes(system, categories=pd.Index(names)))
    for attribute, values in d.attributes.items():  # read off the names when the sweep was resolved
        at += 1
        _insert_categorical(out, at, attribute, pd.Categorical(np.asarray(values, dtype=object)[system]))
    payment = pd.Categorical.from_codes(joined("payment", np.int32), categories=pd.Index(payments))
    _insert_categorical(out, at + 1, "payment", payment)
    point = pd.Categorical.from_codes(joined("point", np.int32), categories=pd.Index([p.name for p in d.base.demand]))
    _insert_categorical(out, at + 2, "demand_point", point)
    api = joined("api", bool)
    first_count = out.columns.get_loc("provisioned_it_kw")
    assert isinstance(first_count, int)  # the column names are unique: get_loc gives a position
    for k, name in enumerate(counted):
        column = joined(name, float)
        whole = not (api.any() or d.spec.samples is not None)  # a mean over draws need not be whole
        out.insert(first_count + k, name, column.astype(np.int64) if whole else column)
    if api.any():
        for name in NOT_FOR_API:
            if name in out:
                out[name] = pd.array(np.where(api, 0.0, out[name].to_numpy(float)), dtype="Float64")
                out.loc[api, name] = pd.NA
    return out
