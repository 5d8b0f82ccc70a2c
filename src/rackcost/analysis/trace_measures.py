"""What a trace's arrivals say about the load they put on a fleet: the rate and gap SCV, the index of dispersion of
counts over time scales from 0.1 s to an hour, the effective arrival SCV at a few service times, and why the gap SCV
disagrees with the dispersion where it does (``rackcost trace``).

The gap SCV describes a renewal stream; real traffic is not one (its counts bunch over seconds to an hour), and
what loads a fleet whose requests hold a slot for ``S`` seconds is the dispersion of counts near ``S``
(:func:`rackcost.model.queues.dispersion.effective_arrival_scv`). Where the two disagree (by more than
:data:`DISAGREEMENT_RATIO` either way at any of :data:`SERVICE_TIMES_S`), the gap SCV is usually reading one of:

- **ticks**: a clock of coarse resolution records many requests at one instant, so most gaps are zero and the few
  others long (Mooncake's 3-second ticks make about 90% of its gaps zero and its gap SCV 9): the SCV measures the
  recording. Flagged where at least :data:`TICK_ZERO_SHARE` of the gaps are zero.
- **silences**: a few gaps of minutes among gaps of a second dominate the gaps' second moment (a trace with a few
  silences of 2-3 minutes had a gap SCV of 173). A gap is a silence where it passes what the longest gap of a
  Poisson stream of as many requests passes once in :data:`SILENCE_ODDS` traces (the longest of ``N`` exponential
  gaps exceeds ``x`` mean gaps with probability ``1 - (1 - e^-x)^N ~= N e^-x``, so ``x = ln N + ln(SILENCE_ODDS)``);
  they are flagged where the gap SCV without them is less than the whole's by :data:`DISAGREEMENT_RATIO`. On ticks
  the test is against the positive gaps (their mean and count), which the tick makes long.
- **a rate trend**: the rate climbs or falls over the trace (its last tenth against its first, or its busiest tenth
  against the mean, beyond :data:`TREND_RATIO`, and by more than :data:`TREND_Z` standard deviations of Poisson
  counts, so that a trace of a few dozen requests is not read as trending): the index at long time scales counts
  the trend; cut the trace to one demand level.

Otherwise the arrivals are correlated: counts bunch over time scales longer than a gap, which a gap SCV cannot see.

**The rate within the hour.** The index is a stationary variance: a hump of half an hour a few percent above the
hour's mean reads as a little more dispersion at long time scales, which a fleet whose requests hold a slot for
seconds hardly weighs, yet a fleet sized at 96% of its slots cannot carry it (a queue builds for as long as it
lasts). So the trace's span is also cut into the equal windows of an hour (:data:`HOUR_WINDOW_S`, ten minutes: six
windows), each window's rate over the span's mean (:func:`hour_windows`); ``--into`` writes them as the point's
``sub_hour`` windows, and the fleet is sized for the busiest (``fleet.sub_hour_sizing``). On Poisson arrivals alone a
window's count varies by ``1 / sqrt(rate x window)`` (4% at 1 request/s, under 0.5% above 100), so the ratios are
shrunk towards 1 by the share of their spread that counting noise does not explain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rackcost.model.queues.burstiness import ArrivalStatistics, arrival_statistics
from rackcost.model.queues.dispersion import (
    DEFAULT_TIME_SCALES_S,
    MIN_WINDOWS,
    effective_arrival_scv,
    index_of_dispersion,
)
from rackcost.scenario.sub_hour_blocks import MIN_WINDOW_S, windows_per_hour

__all__ = [
    "DISAGREEMENT_RATIO",
    "SERVICE_TIMES_S",
    "SILENCE_ODDS",
    "TICK_ZERO_SHARE",
    "TIME_SCALES_S",
    "TREND_RATIO",
    "TREND_Z",
    "TraceMeasures",
    "hour_windows",
    "measure_arrivals",
]

TIME_SCALES_S = DEFAULT_TIME_SCALES_S
"""Time scales the index of dispersion of counts is measured at, 0.1 s to an hour [s] (those where at least 8
windows fit: :data:`rackcost.model.queues.dispersion.MIN_WINDOWS`)."""
SERVICE_TIMES_S = (5.0, 10.0, 20.0, 40.0)
"""Service times the effective arrival SCV is read at [s]: what an LLM request holds a slot for (seconds of decode)."""
DISAGREEMENT_RATIO = 1.5
"""The gap SCV disagrees with the dispersion where it is more than this factor above or below the effective SCV."""
TICK_ZERO_SHARE = 0.2
"""Share of zero gaps from which the arrivals are read as falling on a clock's ticks [-]."""
SILENCE_ODDS = 1000.0
"""A gap is a silence where a Poisson stream of as many requests has its longest gap that long once in this many
traces [-]."""
TREND_Z = 3.5
"""Standard deviations of Poisson counts a tenth's count must differ by to be a trend (``|b - a| > z sqrt(a + b)``
for two tenths; ``peak - mean > z sqrt(mean)`` for the busiest of ten: about 1 in 4,000 per window) [-]."""
TREND_RATIO = 1.3
"""The last tenth's rate against the first's (or the busiest tenth's against the mean) beyond which the rate
trends [-] (the threshold ``rackcost trace`` used for the busiest tenth before)."""
HOUR_WINDOW_S = 600.0
"""Length of the windows a trace's rate within the hour is measured in [s]: ServeGen's published resolution (ten
minutes), long against an LLM request's slot time (the pointwise stationary approximation asks for 20 service
times, :data:`rackcost.scenario.sub_hour_blocks.MIN_WINDOW_S`) and short against a hump of half an hour."""


@dataclass(frozen=True)
class TraceMeasures:
    """The figures ``rackcost trace`` prints (module docstring); None where a figure is undefined.

    Attributes
    ----------
    stats
        Requests, span, mean rate, gap SCV and the busiest of ten windows against the mean.
    time_scales_s, index, windows
        The time scales where at least 8 windows fit [s], the index of dispersion of counts at each [-] and the
        windows counted [-].
    service_times_s, effective_scv
        Service times [s] and the effective arrival SCV at each [-]: None where the longest time scale measured is
        shorter than the service time (the figure would rest on an extrapolation).
    zero_gap_fraction
        Share of gaps that are zero [-].
    tick_s
        The median positive gap: the clock's tick where the arrivals fall on ticks (None if every gap is zero) [s].
    longest_gap_s, longest_gap_to_mean
        The longest gap [s], and in mean gaps [-].
    silence_threshold_s, silences, gap_scv_without_silences
        The gap from which a gap is a silence [s], how many gaps are, and the gap SCV without them (None if none).
    last_to_first_tenth
        Requests in the last tenth of the span against the first tenth (None if the first is empty) [-].
    disagrees
        Whether the gap SCV is more than :data:`DISAGREEMENT_RATIO` from the effective SCV at a service time.
    findings
        The diagnosis in words, one sentence each.
    hour_window_s, hour_ratios
        The nominal window of an hour [s] and each window's rate over the mean (:func:`hour_windows`; empty where
        a window would be shorter than the shortest a scenario takes) [-].
    """

    stats: ArrivalStatistics
    time_scales_s: tuple[float, ...]
    index: tuple[float, ...]
    windows: tuple[int, ...]
    service_times_s: tuple[float, ...]
    effective_scv: tuple[float | None, ...]
    zero_gap_fraction: float
    tick_s: float | None
    longest_gap_s: float
    longest_gap_to_mean: float
    silence_threshold_s: float
    silences: int
    gap_scv_without_silences: float | None
    last_to_first_tenth: float | None
    disagrees: bool
    findings: tuple[str, ...]
    hour_window_s: float = HOUR_WINDOW_S
    hour_ratios: tuple[float, ...] = ()


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def hour_windows(arrival_s: ArrayLike, window_s: float = HOUR_WINDOW_S) -> tuple[float, ...]:
    """The rate within the hour: the arrivals' span cut into the ``3600 / window_s`` equal windows of an hour (each
    ``span / count`` long: a trace of 58 minutes stands for its hour), each window's rate over their mean, less the
    counting noise [-].

    A window of ``m`` arrivals on average counts them with a Poisson spread of at least ``1 / m`` in its ratio's
    variance even at a constant rate, which a fleet sized for the busiest window would buy (3% at 5 requests/s in
    ten-minute windows). So the ratios are shrunk towards 1 by ``k = max(0, 1 - (1 / m) / s^2)``, ``s^2`` their
    sample variance (``ddof = 1``): the share of their variance that the noise does not explain (the method-of-moments
    estimate of a random effect; Searle, Casella and McCulloch, *Variance Components*, 1992, ch. 3). ``k`` is
    0.99 on the Azure hour superposed to 240 or 1,200 requests/s (windows 0.97 to 1.03 of the mean) and 0.12 on
    Mooncake's (windows within 0.6% of it); a Poisson hour's windows come out near 1, or empty where the noise
    explains all of their spread.

    Empty where a window would be shorter than :data:`rackcost.scenario.sub_hour_blocks.MIN_WINDOW_S` (the
    pointwise stationary approximation's floor), the arrivals have no span, or their spread is all noise.

    Raises
    ------
    ValueError
        If ``window_s`` does not divide an hour into whole windows.

    Examples
    --------
    Six windows of a 3,600-second trace: twice the rate in the second half hour (300 arrivals a window on average,
    ratios 2/3 and 4/3 shrunk by ``k = 1 - (1/300) / (2/15) = 0.975``):

    >>> t = np.concatenate([np.linspace(0, 1800, 600, endpoint=False), np.linspace(1800, 3600, 1200)])
    >>> [round(r, 3) for r in hour_windows(t, 600.0)]
    [0.675, 0.675, 0.675, 1.325, 1.325, 1.325]
    """
    count = windows_per_hour(window_s)
    if count is None:
        raise ValueError(f"a window of {window_s:g} s does not divide an hour into whole windows (600, 300, 900, ...)")
    t = np.asarray(arrival_s, dtype=float)
    span = float(t.max() - t.min()) if t.size else 0.0
    if not (math.isfinite(span) and span / count >= MIN_WINDOW_S):
        return ()
    counts = np.histogram(t - t.min(), bins=count, range=(0.0, span))[0].astype(float)
    ratios = counts / counts.mean()
    spread = float(np.var(ratios, ddof=1))
    kept = max(0.0, 1.0 - (1.0 / float(counts.mean())) / spread) if spread > 0 else 0.0
    if kept == 0.0:
        return ()
    return tuple(float(1.0 + kept * (r - 1.0)) for r in ratios)


def measure_arrivals(
    arrival_s: ArrayLike,
    time_scales_s: tuple[float, ...] = TIME_SCALES_S,
    service_times_s: tuple[float, ...] = SERVICE_TIMES_S,
    hour_window_s: float = HOUR_WINDOW_S,
) -> TraceMeasures:
    """Measure arrival times (module docstring).

    Raises
    ------
    ValueError
        As :func:`rackcost.model.queues.burstiness.arrival_statistics` (fewer than 3 arrivals, no span, a span a float
        does not hold or one too short to measure a rate); as :func:`hour_windows`.

    Examples
    --------
    Arrivals on 3-second ticks, ten at a time: the gap SCV (9) reads the clock; the counts over 60 s do not vary:

    >>> m = measure_arrivals(np.repeat(np.arange(0.0, 3600.0, 3.0), 10))
    >>> round(m.stats.gap_scv, 1), round(m.zero_gap_fraction, 2), m.findings[1][:6]
    (9.0, 0.9, 'ticks:')
    """
    t = np.sort(np.asarray(arrival_s, dtype=float))
    stats = arrival_statistics(t)
    t = t - t[0]
    scales = np.asarray(time_scales_s, dtype=float)
    fit = np.floor(stats.span_s / scales).astype(np.int64)
    measured = fit >= MIN_WINDOWS
    index = index_of_dispersion(t, scales[measured]) if measured.any() else np.zeros(0)
    keep = np.isfinite(index)
    used_scales = scales[measured][keep]
    used_index = index[keep]
    effective: list[float | None] = []
    for service in service_times_s:
        covered = used_index.size and used_scales[-1] >= service
        effective.append(_finite(float(effective_arrival_scv(used_scales, used_index, service))) if covered else None)
    gaps = _gap_shape(t, stats.arrival_rps)
    tenth = stats.span_s / 10.0
    first, last = int(np.sum(t < tenth)), int(np.sum(t >= stats.span_s - tenth))
    trend = last / first if first > 0 else None
    disagrees = any(
        max(stats.gap_scv, e) > DISAGREEMENT_RATIO * min(stats.gap_scv, e) for e in effective if e is not None
    )
    shown = [(s, e) for s, e in zip(service_times_s, effective, strict=True) if e is not None]
    findings = _findings(stats, t.size, shown, disagrees, gaps, (first, last, trend))
    rate = stats.arrival_rps
    return TraceMeasures(
        stats=stats,
        time_scales_s=tuple(float(s) for s in used_scales),
        index=tuple(float(i) for i in used_index),
        windows=tuple(int(w) for w in fit[measured][keep]),
        service_times_s=tuple(service_times_s),
        effective_scv=tuple(effective),
        zero_gap_fraction=gaps.zero_share,
        tick_s=_finite(gaps.tick_s) if gaps.tick_s is not None else None,
        longest_gap_s=gaps.longest_units / rate,
        longest_gap_to_mean=gaps.longest_units,
        silence_threshold_s=gaps.threshold_units / rate,
        silences=int(gaps.silent.sum()),
        gap_scv_without_silences=gaps.without,
        last_to_first_tenth=trend,
        disagrees=disagrees,
        findings=tuple(findings),
        hour_window_s=float(hour_window_s),
        hour_ratios=hour_windows(t, hour_window_s),
    )


@dataclass(frozen=True)
class _Gaps:
    """The gaps between arrivals in units of their mean gap, and what they show (module docstring)."""

    units: np.ndarray
    zero_share: float
    tick_s: float | None
    longest_units: float
    ticks: bool
    threshold_units: float
    silent: np.ndarray
    without: float | None


def _gap_shape(t: np.ndarray, rate: float) -> _Gaps:
    """Zero gaps, the clock's tick, the longest gap and the silences of sorted arrival times ``t`` at ``rate``."""
    # the gaps in units of their mean (scale-free, as the gap SCV): a trace of 1e-300 s gaps stays finite
    gaps = np.diff(t) * rate
    zero_share = float(np.mean(gaps == 0))
    positive = gaps[gaps > 0]
    tick = float(np.median(positive)) / rate if positive.size else None
    ticks = zero_share >= TICK_ZERO_SHARE
    # on ticks the positive gaps are the tick's multiples: a silence is long against them, not against the mean gap
    judged = positive if ticks and positive.size >= 2 else gaps
    threshold_units = float(judged.mean()) * (math.log(judged.size) + math.log(SILENCE_ODDS))
    silent = gaps > threshold_units
    rest = gaps[~silent]
    without = float(rest.var() / rest.mean() ** 2) if silent.any() and rest.size >= 2 and rest.mean() > 0 else None
    return _Gaps(gaps, zero_share, tick, float(gaps.max()), ticks, threshold_units, silent, without)


def _findings(
    stats: ArrivalStatistics,
    n: int,
    shown: list[tuple[float, float]],
    disagrees: bool,
    gaps: _Gaps,
    tenths: tuple[int, int, float | None],
) -> list[str]:
    """The diagnosis in words: whether the gap SCV agrees with the dispersion, and each cause found (ticks,
    silences, a rate trend; else correlated arrivals where they disagree)."""
    rate = stats.arrival_rps
    findings: list[str] = []
    if shown:
        at = ", ".join(f"{e:.3g} at {s:g} s" for s, e in shown)
        findings.append(
            f"the gap SCV {stats.gap_scv:.3g} {'disagrees with' if disagrees else 'agrees with'} the dispersion at "
            f"the fleet's time scale (effective arrival SCV {at} of service)"
        )
    causes = 0
    if gaps.ticks:
        causes += 1
        tick = gaps.tick_s
        apart = f"about {tick:.3g} s apart, the median positive gap" if tick is not None else "all at one instant"
        findings.append(
            f"ticks: {gaps.zero_share:.0%} of the gaps are zero, the arrivals fall on a clock's ticks ({apart}): the "
            "gap SCV measures the recording; the index at time scales above the tick is the traffic's"
        )
    silent, without = gaps.silent, gaps.without
    if silent.any() and (without is None or without * DISAGREEMENT_RATIO < stats.gap_scv):
        causes += 1
        share = float(np.sum(gaps.units[silent] ** 2) / np.sum(gaps.units**2))
        plural = "s" if silent.sum() > 1 else ""
        without_words = "" if without is None else f": without them the gap SCV is {without:.3g}"
        findings.append(
            f"silences: {int(silent.sum())} gap{plural} longer than {gaps.threshold_units / rate:.3g} s (which the "
            f"longest gap of a Poisson stream of as many gaps passes once in {SILENCE_ODDS:g} traces; the longest "
            f"{gaps.longest_units / rate:.3g} s, {gaps.longest_units:.3g} mean gaps) hold {share:.0%} of the gaps' "
            f"second moment{without_words}"
        )
    first, last, trend = tenths
    mean_count = n / stats.windows
    peak_count = stats.peak_to_mean * mean_count
    climbs = (
        trend is not None
        and not 1.0 / TREND_RATIO <= trend <= TREND_RATIO
        and abs(last - first) > TREND_Z * math.sqrt(last + first)
    )
    peaks = stats.peak_to_mean > TREND_RATIO and peak_count - mean_count > TREND_Z * math.sqrt(mean_count)
    if climbs or peaks:
        causes += 1
        findings.append(
            "a rate trend: the last tenth of the span "
            + (f"holds {trend:.3g}x the requests of the first" if trend is not None else "has requests, the first none")
            + f", the busiest tenth {stats.peak_to_mean:.3g}x the mean: the index at long time scales counts the "
            "trend; cut the trace to one demand level (--start, --duration)"
        )
    if disagrees and causes == 0:
        findings.append(
            "correlated arrivals: the counts bunch over time scales longer than a gap (the index of dispersion grows "
            "with the time scale), which the gap SCV cannot see"
        )
    return findings
