"""The streamed sweep (issue 24, item 5): ``rackcost sweep`` writes each chunk's rows as the chunk finishes and
summarises them as they pass, so the whole table is never held; the file and the summary equal those of the whole
table. Memory itself is measured in benchmarks/bench_sweep.py (a test may not time or weigh a run)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from rackcost.analysis.sweep import summary as summary_module
from rackcost.analysis.sweep import table as table_module
from rackcost.analysis.sweep.chunks import part_rows, plan_chunks
from rackcost.analysis.sweep.design import configuration_indices
from rackcost.analysis.sweep.run import resolve, run_sweep, sweep
from rackcost.analysis.sweep.summary import BLENDED, SummaryStream, pareto_front, winners
from rackcost.cli.entry import app
from rackcost.cli.sweep import _neutralised

runner = CliRunner()
SWEEP = "gaudi-tp-precision-x-demand"  # 27 configurations x 6 systems x 3 demand points, label and float axes


def test_the_command_writes_the_table_chunk_by_chunk_and_never_builds_it_whole(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    built: list[int] = []  # chunks per table builder
    written: list[int] = []  # rows per row group written
    real_init, real_write = table_module.TableBuilder.__init__, pq.ParquetWriter.write_table

    def init(self, d, chunks, layout=None):
        built.append(len(chunks))
        real_init(self, d, chunks, layout)

    def write(self, table, *args, **kwargs):
        written.append(table.num_rows)
        real_write(self, table, *args, **kwargs)

    monkeypatch.setattr(table_module.TableBuilder, "__init__", init)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", write)
    out = tmp_path / "t.parquet"
    result = runner.invoke(app, ["sweep", SWEEP, "-o", str(out), "--chunk-configs", "5"])
    assert result.exit_code == 0, result.output
    chunks, _ = plan_chunks(resolve(SWEEP), 5)
    assert len(chunks) > 3
    assert written == [sum(map(part_rows, c.parts)) for c in chunks]  # one row group per chunk, in order
    assert max(built) == 1 and built.count(1) == len(chunks)  # a piece per chunk; the whole table never
    monkeypatch.undo()
    reference = sweep(SWEEP)
    pd.testing.assert_frame_equal(
        pd.read_parquet(out), table_module.numeric_axes_as_floats(reference), check_exact=True
    )


def test_the_streamed_csv_is_the_whole_tables_csv_byte_for_byte(tmp_path):
    out = tmp_path / "t.csv"
    result = runner.invoke(app, ["sweep", SWEEP, "-o", str(out), "--chunk-configs", "4"])
    assert result.exit_code == 0, result.output
    whole = tmp_path / "whole.csv"
    _neutralised(sweep(SWEEP)).to_csv(whole, index=False)
    assert out.read_bytes() == whole.read_bytes()


def test_the_library_table_is_the_streamed_pieces_in_order():
    pieces: list[pd.DataFrame] = []
    streamed = run_sweep(SWEEP, chunk_configs=4, sink=pieces.append)
    assert streamed.rows == sum(map(len, pieces)) and len(streamed.frame) == 0
    assert list(streamed.frame.columns) == list(pieces[0].columns)
    whole = pd.concat(pieces, ignore_index=True)
    pd.testing.assert_frame_equal(whole, sweep(SWEEP), check_exact=True)


def test_the_tables_columns_are_small_types_holding_the_same_values():
    """Numeric axes are ordered categoricals of their float64 values, counts and configuration int32 (issue 24,
    item 5: the table of the 10^6 sweep from 1.07 to 0.81 GiB): each row's value is the axis's value of its
    configuration, exactly, with an axis that repeats a value and is not sorted."""
    spec = {
        "name": "types",
        "scenario": "deepseek-r1-jalapeno-vs-gb300",
        "axes": [
            {"axis": "demand.scale", "values": [2.0, 0.5, 2.0]},
            {"axis": "facility.electricity_usd_per_kwh", "values": [0.1, 0.05]},
        ],
    }
    d = resolve(spec)
    frame = sweep(spec, chunk_configs=2)
    index = configuration_indices(d, frame["configuration"].to_numpy().astype(np.int64))
    for a, axis in enumerate(d.axes):
        column = frame[axis.name]
        assert column.cat.ordered and list(column.cat.categories) == sorted(set(axis.labels))
        np.testing.assert_array_equal(column.to_numpy(np.float64), axis.labels[index[:, a]])
        assert column.cat.codes.dtype == np.int8
    assert frame["configuration"].dtype == np.int32 and frame["racks"].dtype == np.int32
    assert frame["provisioned_replicas"].dtype == np.int32
    floats = frame.select_dtypes("number").drop(columns=["configuration", "racks", "provisioned_replicas"])
    assert set(floats.dtypes) == {np.dtype(np.float64)}  # every figure stays float64
    assert table_module.numeric_axes_as_floats(frame)["demand.scale"].dtype == np.float64


def test_dask_runs_the_chunks_in_their_order():
    # the keys count down (run.task_keys) so that dask.order runs chunk 0 first: a streamed result then seldom
    # waits in memory for one before it. Recorded by the chunk function, on the one-thread scheduler.
    from rackcost.analysis.sweep.chunks import evaluate_chunk

    started: list[int] = []

    def spy(chunk):
        started.append(chunk.number)
        return evaluate_chunk(chunk)

    run_sweep(SWEEP, chunk_configs=2, scheduler="synchronous", evaluate=spy)
    assert started == list(range(len(plan_chunks(resolve(SWEEP), 2)[0])))


def stream_table(rng: np.random.Generator, configs: int, systems: int, ties: int) -> pd.DataFrame:
    """A sweep-shaped table with many ties: a float axis, a label axis, two demand points, the front's columns."""
    points = 2
    c = np.repeat(np.arange(configs), systems * points)
    n = len(c)
    return pd.DataFrame(
        {
            "configuration": c,
            "x": np.round(rng.uniform(0, 4, configs), 0)[c],
            "v": pd.Categorical.from_codes(rng.integers(0, 3, configs)[c], categories=["b", "a", "=c"]),
            "system": pd.Categorical.from_codes(
                np.tile(np.repeat(np.arange(systems), points), configs), [f"S{k}" for k in range(systems)]
            ),
            "demand_point": pd.Categorical.from_codes(np.tile(np.arange(points), configs * systems), ["peak", "quiet"]),
            "usd_per_accepted_request": rng.integers(1, ties + 1, n) / 7.0,
            "blended_usd_per_accepted_request": np.repeat(rng.integers(1, ties + 1, configs * systems) / 3.0, points),
            "interactivity_tokens_per_s": pd.array(rng.integers(1, ties + 1, n) * 10.0, dtype="Float64"),
            "facility_power_kw": rng.integers(1, ties + 1, n) * 100.0,
        }
    )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    configs=st.integers(1, 40),
    systems=st.integers(1, 3),
    ties=st.integers(1, 5),
    cuts=st.lists(st.integers(1, 39), max_size=5),
    by=st.sampled_from([[], ["x"], ["v"], ["x", "v"], ["v", "x"]]),
    point=st.sampled_from([BLENDED, "quiet"]),
    blocks=st.integers(1, 4),
)
def test_the_streamed_summary_equals_the_whole_tables(seed, configs, systems, ties, cuts, by, point, blocks):
    # pieces cut at configuration boundaries (as chunks are), the winner table made in a few blocks
    frame = stream_table(np.random.default_rng(seed), configs, systems, ties)
    if frame["interactivity_tokens_per_s"].size:
        frame.loc[frame.index[::5], "interactivity_tokens_per_s"] = pd.NA  # an API row has none
    fronts = [("interactivity_tokens_per_s", "peak", True), ("facility_power_kw", "peak", False)]
    stream = SummaryStream(by, point, fronts)
    edges = sorted({0, configs, *(c for c in cuts if c < configs)})
    for low, high in zip(edges, edges[1:], strict=False):
        stream.add(frame[(frame["configuration"] >= low) & (frame["configuration"] < high)])
    saved = summary_module.WINNER_BLOCKS
    summary_module.WINNER_BLOCKS = blocks
    try:
        pd.testing.assert_frame_equal(stream.winners(), winners(frame, by, point), check_exact=True)
    finally:
        summary_module.WINNER_BLOCKS = saved
    for k, (against, at, higher) in enumerate(fronts):
        whole = pareto_front(frame, against, at, higher).reset_index(drop=True)
        pd.testing.assert_frame_equal(stream.front(k).reset_index(drop=True), whole, check_exact=True)
