"""A trace cut to a window and scaled by superposition (rackcost.analysis.trace_scaling): n = ceil(target / rate)
copies, each shifted cyclically by its own uniform offset, merged and thinned at random to the target rate."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackcost.analysis.trace_files import Trace, read_trace
from rackcost.analysis.trace_scaling import cut_window, superpose, trace_csv_text
from rackcost.model.queues.dispersion import index_of_dispersion

TRACES = Path(__file__).parent / "data" / "traces"


def _poisson(rate_rps: float, n: int, seed: int) -> Trace:
    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(1.0 / rate_rps, n))
    return Trace(arrival, rng.integers(1, 4000, n).astype(float), rng.integers(1, 900, n).astype(float))


def test_a_window_is_cut_in_seconds_from_the_first_arrival() -> None:
    trace = read_trace(TRACES / "azure_conv_small.csv")
    cut = cut_window(trace, 2.0, 10.0)
    relative = trace.arrival_s - trace.arrival_s[0]
    keep = (relative >= 2.0) & (relative < 12.0)
    assert cut.arrival_s.tolist() == trace.arrival_s[keep].tolist()
    assert cut.output_tokens.tolist() == trace.output_tokens[keep].tolist() and cut.source_format == "azure"
    with pytest.raises(ValueError, match="holds 0 requests; a trace needs at least 20"):
        cut_window(trace, 1e6)
    with pytest.raises(ValueError, match="duration must be a finite number of seconds > 0"):
        cut_window(trace, 0.0, 0.0)


@settings(max_examples=25, deadline=None)
@given(st.floats(1.0, 500.0), st.integers(0, 2**32 - 1))
def test_superposition_reaches_the_target_rate_keeping_every_copys_gaps(target_rps: float, seed: int) -> None:
    """Rate within 1 request/s of the target (``round(target P)`` requests over the period ``P``); every request a
    request of its copy, shifted by that copy's offset modulo ``P`` (the copy's gaps kept); the same seed the same
    trace."""
    trace = _poisson(3.0, 400, 11)
    result = superpose(trace, target_rps, seed)
    relative = trace.arrival_s - trace.arrival_s[0]
    assert result.copies == math.ceil(target_rps / trace.arrival_rps)
    assert abs(result.trace.arrival_rps - target_rps) < 1.0
    assert result.trace.arrival_s.size == round(target_rps * result.period_s)
    assert result.period_s == pytest.approx(relative[-1] * 400 / 399)
    for j in range(result.copies):
        mine = result.trace.arrival_s[result.copy_of == j]
        back = np.sort(np.mod(mine - result.offsets_s[j], result.period_s))
        nearest = np.abs(back[:, None] - relative[None, :]).min(axis=1)
        assert bool(np.all((nearest < 1e-9) | (np.abs(nearest - result.period_s) < 1e-9)))
    again = superpose(trace, target_rps, seed)
    assert again.trace.arrival_s.tolist() == result.trace.arrival_s.tolist()
    assert again.trace.output_tokens.tolist() == result.trace.output_tokens.tolist()


def test_a_different_seed_gives_different_offsets() -> None:
    trace = _poisson(3.0, 400, 11)
    assert superpose(trace, 30.0, 1).offsets_s.tolist() != superpose(trace, 30.0, 2).offsets_s.tolist()


def test_superposed_poisson_copies_stay_poisson_at_every_time_scale() -> None:
    """Independent Poisson streams superpose to a Poisson stream, and a random thinning of one is one: the index of
    dispersion of counts is 1 at every time scale (Cox and Lewis, "The statistical analysis of series of events",
    1966). Its estimate over M windows has standard deviation sqrt(2 / (M - 1)); the shifted copies of one trace add
    cross terms of the same order (each pair's cyclic covariance at a random lag): judged at 5 of those together."""
    trace = _poisson(4.0, 14_400, 5)  # an hour at 4 requests/s
    result = superpose(trace, 60.0, 3)
    assert result.copies == 16 or result.copies == 15
    scales = np.array([0.1, 1.0, 10.0, 60.0])
    windows = np.floor(result.trace.span_s / scales)
    index = index_of_dispersion(result.trace.arrival_s, scales)
    assert np.all(np.abs(index - 1.0) < 5.0 * np.sqrt(4.0 / (windows - 1))), index


def test_a_superposed_mooncake_trace_gives_each_copy_its_own_prefix_blocks() -> None:
    trace = read_trace(TRACES / "mooncake_small.jsonl")
    result = superpose(trace, 3 * trace.arrival_rps, 0)
    stride = 1 + max(int(h.max()) for h in trace.hash_ids or ())
    assert result.trace.hash_ids is not None and result.trace.block_tokens == 512
    for ids, j, tokens in zip(result.trace.hash_ids, result.copy_of, result.trace.input_tokens, strict=True):
        assert bool(np.all(ids // stride == j))  # copy j's ids are the trace's plus j (max id + 1)
        original = [k for k in range(trace.arrival_s.size) if trace.input_tokens[k] == tokens]
        assert any(np.array_equal(ids - j * stride, trace.hash_ids[k]) for k in original)  # type: ignore[index]


def test_superposition_refuses_a_target_it_cannot_reach() -> None:
    trace = _poisson(3.0, 400, 11)
    with pytest.raises(ValueError, match="more than the 100,000,000 a superposed trace may hold"):
        superpose(trace, 1e7)
    with pytest.raises(ValueError, match="the target rate must be from 1e-06 to 1e"):
        superpose(trace, math.inf)
    with pytest.raises(ValueError, match="a trace needs at least 20"):
        superpose(trace, 0.01)


def test_the_written_trace_reads_back_exactly(tmp_path: Path) -> None:
    trace = superpose(read_trace(TRACES / "azure_conv_small.csv"), 7.0, 4).trace
    path = tmp_path / "out.csv"
    path.write_text(trace_csv_text(trace), encoding="utf-8")
    back = read_trace(path)
    assert back.source_format == "csv" and back.arrival_s.tolist() == trace.arrival_s.tolist()
    assert back.input_tokens.tolist() == trace.input_tokens.tolist()
    assert back.output_tokens.tolist() == trace.output_tokens.tolist()
    with pytest.raises(ValueError, match="carries arrival times only"):
        trace_csv_text(Trace(trace.arrival_s, np.zeros(0), np.zeros(0)))


def test_the_written_trace_is_what_the_csv_module_writes_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows are formatted directly, a chunk at a time (a 5e7-request trace took 11 GB through a record per
    row): the text is the csv module's for the same numbers, across a chunk boundary, fractional token counts and a
    negative time (which the record writer had turned into the text "'-1.5")."""
    import csv
    import io

    from rackcost.analysis import trace_scaling

    monkeypatch.setattr(trace_scaling, "CSV_CHUNK_ROWS", 3)
    rng = np.random.default_rng(5)
    times = np.concatenate([[-1.5], np.cumsum(rng.exponential(0.3, 9))])
    inputs = np.concatenate([[12.5], rng.integers(1, 5000, 9).astype(float)])
    outputs = np.concatenate([[1e7], rng.integers(1, 900, 9).astype(float)])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["arrival_s", "input_tokens", "output_tokens"])
    for t, i, o in zip(times, inputs, outputs, strict=True):
        writer.writerow([float(t), int(i) if i.is_integer() else float(i), int(o) if o.is_integer() else float(o)])
    assert trace_csv_text(Trace(times, inputs, outputs)) == out.getvalue()
