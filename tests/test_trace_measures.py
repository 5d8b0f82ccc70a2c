"""What a trace's arrivals say (rackcost.analysis.trace_measures): the index of dispersion of counts at the time
scales where 8 windows fit, the effective arrival SCV at a few service times, and the diagnosis of a gap SCV that
disagrees with them: ticks, silences, a rate trend, or correlated arrivals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rackcost.analysis.trace_files import read_trace
from rackcost.analysis.trace_measures import TREND_Z, measure_arrivals

TRACES = Path(__file__).parent / "data" / "traces"


def test_only_the_time_scales_where_eight_windows_fit_are_measured() -> None:
    m = measure_arrivals(np.sort(np.random.default_rng(1).uniform(0.0, 100.0, 2000)))
    span = m.stats.span_s
    assert m.time_scales_s and all(span // w >= 8 for w in m.time_scales_s)
    assert max(m.time_scales_s) <= span / 8 and m.windows == tuple(int(span // w) for w in m.time_scales_s)
    # 100 s fits no 20 s service: no effective SCV resting on an extrapolation past the longest scale (10 s)
    assert m.effective_scv[0] is not None and m.effective_scv[-1] is None


def test_poisson_arrivals_agree_with_their_dispersion_and_raise_nothing() -> None:
    """A Poisson stream: gap SCV 1 and index 1 at every scale (Cox and Lewis, "The statistical analysis of series of
    events", 1966), so the two agree."""
    arrival = np.cumsum(np.random.default_rng(2).exponential(0.2, 20_000))
    m = measure_arrivals(arrival)
    assert not m.disagrees and len(m.findings) == 1 and "agrees with" in m.findings[0]
    # the index over M windows has standard deviation sqrt(2 / (M - 1)) about 1
    assert all(abs(i - 1.0) < 5 * (2 / (k - 1)) ** 0.5 for i, k in zip(m.index, m.windows, strict=True))


def test_ticks_are_found_where_most_gaps_are_zero() -> None:
    """Ten requests on each of six 3-second ticks (as Mooncake's clock records them): 54 of 59 gaps zero."""
    m = measure_arrivals(read_trace(TRACES / "mooncake_ticks.jsonl").arrival_s)
    assert m.zero_gap_fraction == pytest.approx(54 / 59) and m.tick_s == pytest.approx(3.0, abs=0.01)
    assert m.stats.gap_scv > 9 and any(f.startswith("ticks: 92% of the gaps are zero") for f in m.findings)
    assert m.silences == 0  # the tick's gaps are long against the mean gap, not against each other


def test_silences_are_found_and_their_share_of_the_gap_scv_said() -> None:
    """60 requests about 0.5 s apart with silences of 150 s and 170 s: the gap SCV 24 is the two silences'."""
    m = measure_arrivals(read_trace(TRACES / "silences.csv").arrival_s)
    assert m.silences == 2 and m.longest_gap_s == pytest.approx(170.0, abs=1.0)
    assert m.gap_scv_without_silences is not None and m.gap_scv_without_silences < 1.5 < 20 < m.stats.gap_scv
    assert any(f.startswith("silences: 2 gaps longer than") for f in m.findings) and m.disagrees


def test_a_rate_that_doubles_is_a_trend_and_poisson_noise_is_not() -> None:
    rng = np.random.default_rng(3)
    first = np.cumsum(rng.exponential(1.0 / 5.0, 9000))
    second = first[-1] + np.cumsum(rng.exponential(1.0 / 10.0, 18_000))
    m = measure_arrivals(np.concatenate([first, second]))
    assert m.last_to_first_tenth is not None and m.last_to_first_tenth == pytest.approx(2.0, rel=0.1)
    assert any(f.startswith("a rate trend:") for f in m.findings)
    # 40 Poisson arrivals: a busiest tenth of 1.75x the mean is noise (within TREND_Z sd of Poisson counts)
    few = measure_arrivals(read_trace(TRACES / "azure_conv_small.csv").arrival_s)
    assert few.stats.peak_to_mean > 1.3 and not any(f.startswith("a rate trend") for f in few.findings)
    assert TREND_Z == 3.5


def test_correlated_arrivals_without_an_artefact_are_named_so() -> None:
    """A Poisson stream whose rate switches between 2 and 8 requests/s every 60 s (a Markov-modulated one): gap SCV
    near 1.5, but the counts over 10-40 s vary far more than a Poisson stream's."""
    rng = np.random.default_rng(4)
    times: list[np.ndarray] = []
    for k in range(60):
        rate = 2.0 if k % 2 else 8.0
        times.append(60.0 * k + np.sort(rng.uniform(0.0, 60.0, rng.poisson(rate * 60.0))))
    m = measure_arrivals(np.concatenate(times))
    assert m.disagrees and any(f.startswith("correlated arrivals") for f in m.findings)
