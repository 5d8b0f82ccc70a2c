"""MLPerf Inference's section of ``docs/validation.md``: the model's capacity at MLPerf's SLO against MLPerf's measured
Server rate, and the wall power a scenario's figures give against MLPerf's measured system power.

MLPerf's Server scenario is a measured capacity at SLO: the highest Poisson rate whose p99 TTFT and p99 TPOT stay
within the benchmark's limits, beside the Offline scenario's throughput with every query sent at once. Three tables:

1. **Measured** (:func:`measured_rows`): each Server and Interactive result beside its system's Offline result of the
   same benchmark: the share of Offline throughput kept at the SLO, and how close the run's p99 TTFT and p99 TPOT
   came to their limits (the one closer binds).
2. **Model** (:func:`model_rows`): for each Server and Interactive result, every bundled scenario's curve of the
   same model on the same accelerator: rackcost's capacity at the result's MLPerf SLO of one replica (the largest
   over the curve's integer concurrencies of the M/M/c capacity whose p99 wait fits in the TTFT limit less the
   point's TTFT, at points whose TPOT meets its limit: :func:`capacity_on_curve`), per accelerator, against MLPerf's
   rate per accelerator. The gap
   is split exactly, ``model / MLPerf = level x slo x queue / kept``: the curve's level (its top over MLPerf's
   Offline per accelerator), the SLO's cut (the rate at the chosen point over the curve's top), the queue's (the
   capacity over that rate) and MLPerf's kept share (its rate over Offline). :func:`verdict` names the largest part.
3. **Wall power** (:func:`power_rows`): MLPerf's measured system power per accelerator (hosts and fans included, at
   the system's inlets) against the scenario's busy accelerator power plus its host power per accelerator (what the
   same meter would see), and with its rack overhead per accelerator.

The published results come in as :class:`MLPerfPoint` (``rackcost validation`` reads the package's table with the
MLPerf importer); pure computation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rackcost.analysis.validation.sections import SectionTable, ValidationContext, ValidationSection
from rackcost.model.queues.queueing import capacity_at_slo
from rackcost.model.replica.operating_point import feasible, queueing_budget_s
from rackcost.model.replica.performance import Curve, interpolate_curve
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import system_inputs

__all__ = [
    "ACCELERATOR_FAMILIES",
    "MISS_FRACTION",
    "CurveCapacity",
    "MLPerfPoint",
    "accelerator_family",
    "capacity_on_curve",
    "measured_rows",
    "mlperf_section",
    "model_rows",
    "power_rows",
    "same_model",
    "verdict",
]

MISS_FRACTION = 0.01
"""MLPerf judges TTFT and TPOT at their 99th percentile: at most 1% of requests over a limit [-]."""
ACCELERATOR_FAMILIES = ("GB300", "GB200", "B300", "B200", "H200", "H100", "MI355X", "MI325X", "MI300X", "Gaudi 3")
"""Accelerator names matched between MLPerf's ``Accelerator`` and a scenario's ``hardware.accelerator`` (the longer
name first: ``GB200`` is not a ``B200``)."""
MAX_CANDIDATES = 20_000
"""Integer concurrencies a curve is evaluated at, at most (log-spaced above) [-]."""


@dataclass(frozen=True)
class MLPerfPoint:
    """What the section reads of one published MLPerf result.

    Attributes
    ----------
    result_id, round, submitter, platform
        Who and what, as published.
    benchmark, model
        MLPerf's benchmark (``deepseek-r1``) and its model's name (``DeepSeek-R1``).
    scenario
        ``Offline``, ``Server`` or ``Interactive``.
    accelerator, accelerators
        The accelerator's name and how many the system has.
    tokens_per_s
        Output tokens per second of the system [tokens/s].
    ttft_p99_ms, tpot_p99_ms, ttft_limit_ms, tpot_limit_ms
        The run's p99 latencies and its limits, where known [ms].
    power_w
        Measured mean wall power of the system, or None [W].
    url
        Where it is published.
    decoding_requests
        Requests decoding at once in the run, by Little's law (output tokens/s x mean TPOT), or None [requests].
    """

    result_id: str
    round: str
    submitter: str
    platform: str
    benchmark: str
    model: str
    scenario: str
    accelerator: str
    accelerators: int
    tokens_per_s: float
    ttft_p99_ms: float | None = None
    tpot_p99_ms: float | None = None
    ttft_limit_ms: float | None = None
    tpot_limit_ms: float | None = None
    power_w: float | None = None
    url: str = ""
    decoding_requests: float | None = None

    @property
    def per_accelerator(self) -> float:
        """Output tokens per second per accelerator [tokens/s]."""
        return self.tokens_per_s / self.accelerators

    @property
    def system_key(self) -> tuple[str, str, str, str]:
        """Round, submitter, platform and benchmark: one system's results of one benchmark."""
        return (self.round, self.submitter, self.platform, self.benchmark)


def accelerator_family(name: str | None) -> str | None:
    """The accelerator of :data:`ACCELERATOR_FAMILIES` a name holds (``NVIDIA B200-SXM-180GB`` -> ``B200``).

    Examples
    --------
    >>> accelerator_family("NVIDIA GB200"), accelerator_family("B200"), accelerator_family("TPU v6")
    ('GB200', 'B200', None)
    """
    if not name:
        return None
    upper = name.upper()
    for family in ACCELERATOR_FAMILIES:
        if re.search(r"(?<![A-Z0-9])" + family.upper().replace(" ", r"\s*") + r"(?![0-9])", upper):
            return family
    return None


def _flat(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def same_model(benchmark_model: str | None, mlperf_model: str) -> bool:
    """Whether a curve's ``benchmark_model`` is MLPerf's model (the organisation and punctuation aside; a later
    release of it, ``DeepSeek-R1-0528``, counts as the same model).

    Examples
    --------
    >>> same_model("deepseek-ai/DeepSeek-R1", "DeepSeek-R1"), same_model("Llama-3.3-70B-Instruct", "Llama-2-70B")
    (True, False)
    """
    if not benchmark_model:
        return False
    return _flat(benchmark_model.rsplit("/", 1)[-1]).startswith(_flat(mlperf_model))


@dataclass(frozen=True)
class CurveCapacity:
    """A replica's capacity at an SLO on its curve, and what bounds it.

    Attributes
    ----------
    capacity_rps
        Largest Poisson rate meeting the SLO [requests/s], 0 where no point is feasible.
    top_rps
        The curve's highest measured request rate [requests/s].
    point_rps
        Request rate of the curve at the chosen concurrency, without queueing [requests/s] (0 when none).
    concurrency
        The chosen concurrency [requests], NaN when none is feasible.
    """

    capacity_rps: float
    top_rps: float
    point_rps: float
    concurrency: float

    @property
    def slo_share(self) -> float:
        """The chosen point's rate over the curve's top: what the SLO's limits cut [-]."""
        return self.point_rps / self.top_rps

    @property
    def queue_share(self) -> float:
        """The capacity over the chosen point's rate: what the queue's p99 wait takes [-]; 0 when none is feasible."""
        return self.capacity_rps / self.point_rps if self.point_rps > 0 else 0.0


def _candidates(curve: Curve) -> np.ndarray:
    low, high = float(curve.concurrency[0]), float(curve.concurrency[-1])
    first, last = math.ceil(low), math.floor(high)
    if last < first:
        return np.asarray(curve.concurrency, dtype=float)
    if last - first + 1 <= MAX_CANDIDATES:
        return np.arange(first, last + 1, dtype=float)
    return np.unique(np.round(np.geomspace(first, last, MAX_CANDIDATES)))


def capacity_on_curve(curve: Curve, ttft_limit_ms: float, tpot_limit_ms: float) -> CurveCapacity:
    """One replica's capacity at a p99 TTFT and TPOT limit on its curve, as the model computes it.

    At each integer concurrency ``c`` of the curve's range (:mod:`rackcost.model.replica.operating_point`): the point
    is feasible when its TPOT meets the limit and its TTFT is under it; its capacity is the largest Poisson rate
    whose M/M/c wait exceeds the TTFT limit less the point's TTFT for at most 1% of requests
    (:func:`rackcost.model.queues.queueing.capacity_at_slo`, c slots of service time S = c / mu). The capacity is
    the largest over the feasible points.

    Parameters
    ----------
    curve
        The replica's measured points.
    ttft_limit_ms, tpot_limit_ms
        The SLO's p99 limits [ms].
    """
    grid = _candidates(curve)
    points = interpolate_curve(curve, grid)
    osl = float(np.mean(curve.output_tokens_per_s / curve.request_rps))
    ok = feasible(points.ttft_ms, points.tpot_ms, osl, ttft_limit_ms, tpot_limit_ms)
    top = float(np.max(curve.request_rps))
    if not ok.any():
        return CurveCapacity(0.0, top, 0.0, math.nan)
    budget = queueing_budget_s(points.ttft_ms[ok], points.tpot_ms[ok], osl, ttft_limit_ms)
    capacity = capacity_at_slo(grid[ok], points.service_s[ok], budget, MISS_FRACTION)
    best = int(np.argmax(capacity))
    return CurveCapacity(float(capacity[best]), top, float(points.request_rps[ok][best]), float(grid[ok][best]))


def verdict(level: float, model_kept: float, mlperf_kept: float, slo_share: float, queue_share: float) -> str:
    """What the gap between the model's rate and MLPerf's is mostly: ``the curve`` when the curve's level (its top
    over MLPerf's Offline, per accelerator) is further from 1 than the kept shares are from each other (model's
    capacity over its top, MLPerf's Server over Offline); else ``the SLO`` or ``the queueing``, whichever of the
    model's two cuts takes more.

    Examples
    --------
    >>> verdict(0.5, 0.8, 0.8, 0.9, 0.89), verdict(1.0, 0.2, 0.8, 0.25, 0.8), verdict(1.0, 0.5, 0.8, 0.9, 0.55)
    ('the curve', 'the SLO', 'the queueing')
    """
    if level <= 0 or model_kept <= 0:
        return "the SLO" if slo_share <= 0 else "the queueing"
    if abs(math.log(level)) > abs(math.log(model_kept / mlperf_kept)):
        return "the curve"
    return "the SLO" if slo_share < queue_share else "the queueing"


def _offline_of(points: Sequence[MLPerfPoint]) -> dict[tuple[str, str, str, str], MLPerfPoint]:
    return {p.system_key: p for p in points if p.scenario == "Offline"}


def measured_rows(points: Sequence[MLPerfPoint]) -> pd.DataFrame:
    """Each Server and Interactive result with its system's Offline result: the share kept and how close each
    latency came to its limit."""
    offline = _offline_of(points)
    rows = []
    for p in points:
        base = offline.get(p.system_key)
        if p.scenario == "Offline" or base is None:
            continue
        ttft = None if p.ttft_p99_ms is None or not p.ttft_limit_ms else p.ttft_p99_ms / p.ttft_limit_ms
        tpot = None if p.tpot_p99_ms is None or not p.tpot_limit_ms else p.tpot_p99_ms / p.tpot_limit_ms
        binds = "-" if ttft is None or tpot is None else ("TPOT" if tpot >= ttft else "TTFT")
        rows.append(
            {
                "result": f"{p.round} {p.result_id}",
                "system": f"{p.submitter} {p.platform}",
                "benchmark": p.benchmark,
                "scenario": p.scenario,
                "accelerators": f"{p.accelerators} x {p.accelerator}",
                "tokens_per_s_per_accelerator": p.per_accelerator,
                "offline_tokens_per_s_per_accelerator": base.per_accelerator,
                "kept": p.tokens_per_s / base.tokens_per_s,
                "ttft_of_limit": ttft,
                "tpot_of_limit": tpot,
                "binds": binds,
            }
        )
    return pd.DataFrame(rows)


def _curves(scenarios: Sequence[tuple[str, Scenario]]) -> list[tuple[str, str | None, str | None, int, Curve]]:
    """(systems, accelerator family, benchmark model, accelerators per replica, curve) of every measured curve of
    the bundled scenarios (two points or more), a curve that several systems share once, naming them all."""
    found: dict[tuple, tuple[list[str], str | None, str | None, int, Curve]] = {}
    for file_name, scenario in scenarios:
        for system in scenario.systems:
            perf, hardware = system.performance, system.hardware
            if perf is None or hardware is None or not perf.points or len(perf.points) < 2:
                continue
            curve = system_inputs(scenario, system).curve
            family = accelerator_family(hardware.accelerator)
            per = hardware.accelerators_per_replica
            key = (family, perf.benchmark_model, per, *(tuple(np.round(a, 9)) for a in _arrays(curve)))
            entry = found.setdefault(key, ([], family, perf.benchmark_model, per, curve))
            entry[0].append(f"{system.name} (scenarios/{file_name})")
    return [("; ".join(names), family, model, per, curve) for names, family, model, per, curve in found.values()]


def _arrays(curve: Curve) -> tuple[np.ndarray, ...]:
    return (curve.concurrency, curve.request_rps, curve.output_tokens_per_s, curve.tpot_ms, curve.ttft_ms)


def model_rows(points: Sequence[MLPerfPoint], scenarios: Sequence[tuple[str, Scenario]]) -> pd.DataFrame:
    """For each Server and Interactive result with its Offline result, every bundled curve of the same model and
    accelerator: the model's capacity at the result's SLO against the measured rate, the gap split into its parts."""
    offline = _offline_of(points)
    curves = _curves(scenarios)
    rows = []
    for p in points:
        base = offline.get(p.system_key)
        if p.scenario == "Offline" or base is None or not p.ttft_limit_ms or not p.tpot_limit_ms:
            continue
        for names, family, model, per_replica, curve in curves:
            if family != accelerator_family(p.accelerator) or not same_model(model, p.model):
                continue
            cap = capacity_on_curve(curve, p.ttft_limit_ms, p.tpot_limit_ms)
            osl = float(np.mean(curve.output_tokens_per_s / curve.request_rps))
            top = cap.top_rps * osl / per_replica
            model_rate = cap.capacity_rps * osl / per_replica
            level, kept = top / base.per_accelerator, p.tokens_per_s / base.tokens_per_s
            model_kept = cap.capacity_rps / cap.top_rps
            rows.append(
                {
                    "result": f"{p.round} {p.result_id}",
                    "system": f"{p.submitter} {p.platform}",
                    "scenario": p.scenario,
                    "curve": names,
                    "curve_top_per_accelerator": top,
                    "curve_concurrency_per_accelerator": float(curve.concurrency[-1]) / per_replica,
                    "mlperf_decoding_per_accelerator": (
                        None if p.decoding_requests is None else p.decoding_requests / p.accelerators
                    ),
                    "model_per_accelerator": model_rate,
                    "mlperf_per_accelerator": p.per_accelerator,
                    "gap": model_rate / p.per_accelerator - 1.0,
                    "level": level,
                    "slo_share": cap.slo_share,
                    "queue_share": cap.queue_share,
                    "model_kept": model_kept,
                    "mlperf_kept": kept,
                    "verdict": verdict(level, model_kept, kept, cap.slo_share, cap.queue_share),
                }
            )
    return pd.DataFrame(rows)


def power_rows(points: Sequence[MLPerfPoint], scenarios: Sequence[tuple[str, Scenario]]) -> pd.DataFrame:
    """Each result with measured power against every bundled system of the same accelerator (systems with the same
    power figures once): wall power per accelerator, measured and from the scenario's figures."""
    systems: dict[tuple[str | None, float, float, float], list[str]] = {}
    for file_name, scenario in scenarios:
        for system in scenario.systems:
            hw = system.hardware
            if hw is None:
                continue
            node = hw.accelerator_busy_w + hw.host_w_per_node / hw.accelerators_per_node
            rack = hw.rack_overhead_w / (hw.nodes_per_rack * hw.accelerators_per_node)
            key = (accelerator_family(hw.accelerator), node, rack, hw.accelerator_busy_w)
            systems.setdefault(key, []).append(f"{system.name} ({file_name})")
    rows = []
    for p in points:
        if p.power_w is None:
            continue
        measured = p.power_w / p.accelerators
        for (family, node, rack, busy), names in systems.items():
            if family != accelerator_family(p.accelerator):
                continue
            rows.append(
                {
                    "result": f"{p.round} {p.result_id}",
                    "system": f"{p.submitter} {p.platform}",
                    "benchmark": f"{p.benchmark} {p.scenario}",
                    "measured_w_per_accelerator": measured,
                    "scenario_systems": "; ".join(names),
                    "busy_w": busy,
                    "node_w_per_accelerator": node,
                    "with_rack_w_per_accelerator": node + rack,
                    "node_of_measured": node / measured,
                }
            )
    return pd.DataFrame(rows)


_MEASURED_HEADERS = {
    "tokens_per_s_per_accelerator": "output tokens/s per accelerator",
    "offline_tokens_per_s_per_accelerator": "Offline, per accelerator",
    "kept": "kept of Offline",
    "ttft_of_limit": "p99 TTFT / limit",
    "tpot_of_limit": "p99 TPOT / limit",
}
_MODEL_HEADERS = {
    "curve_top_per_accelerator": "curve's top, tokens/s per accelerator",
    "curve_concurrency_per_accelerator": "curve's largest concurrency per accelerator",
    "mlperf_decoding_per_accelerator": "MLPerf, requests decoding per accelerator",
    "model_per_accelerator": "model at the SLO, per accelerator",
    "mlperf_per_accelerator": "MLPerf's rate, per accelerator",
    "gap": "model / MLPerf - 1",
    "level": "level (top / MLPerf Offline)",
    "slo_share": "SLO cut (point / top)",
    "queue_share": "queue cut (capacity / point)",
    "model_kept": "model kept (capacity / top)",
    "mlperf_kept": "MLPerf kept (rate / Offline)",
}
_POWER_HEADERS = {
    "measured_w_per_accelerator": "MLPerf measured, W per accelerator",
    "scenario_systems": "bundled systems",
    "busy_w": "busy accelerator W",
    "node_w_per_accelerator": "+ host, W per accelerator",
    "with_rack_w_per_accelerator": "+ rack overhead",
    "node_of_measured": "scenario / measured",
}


def _kept_text(measured: pd.DataFrame) -> str:
    if measured.empty:
        return "no Server or Interactive result has its Offline result"
    parts = []
    for (benchmark, scenario), group in measured.groupby(["benchmark", "scenario"], sort=True):
        binds = group["binds"].value_counts()
        parts.append(
            f"{benchmark} {scenario}: median {group['kept'].median():.2f} of Offline kept over {len(group)} "
            f"(range {group['kept'].min():.2f}-{group['kept'].max():.2f}); binds on "
            + ", ".join(f"{k} {v}" for k, v in binds.items())
        )
    return "; ".join(parts)


def mlperf_section(context: ValidationContext) -> ValidationSection:
    """The MLPerf section: measured kept shares, the model's capacity at the SLO, wall power."""
    points = tuple(p for p in context.mlperf_results if isinstance(p, MLPerfPoint))
    if not points:
        return ValidationSection(
            "", "", "skipped", "skipped: no MLPerf results given", "Skipped: no MLPerf results were given."
        )
    measured = measured_rows(points)
    model = model_rows(points, context.scenarios)
    power = power_rows(points, context.scenarios)
    servers = measured[measured["scenario"].eq("Server")] if not measured.empty else measured
    headline = (
        f"MLPerf's Server runs keep {servers['kept'].median():.2f} of Offline (median of {len(servers)}, "
        f"{servers['kept'].min():.2f}-{servers['kept'].max():.2f})"
        if not servers.empty
        else "no MLPerf Server result beside its Offline one"
    )
    if not model.empty:
        worst = model.iloc[int(model["gap"].abs().to_numpy().argmax())]
        headline += (
            f"; the model at the SLO on the bundled curves: {model['gap'].min():+.0%} to {model['gap'].max():+.0%} "
            f"of MLPerf's measured rate per accelerator (largest gap: {worst['verdict']})"
        )
    if not power.empty:
        headline += (
            f"; scenario wall power {power['node_of_measured'].min():.2f}-{power['node_of_measured'].max():.2f} of "
            "MLPerf's measured"
        )
    text = _section_text(context, points, measured, model, power)
    tables = (
        SectionTable(
            "MLPerf measured: Server and Interactive against the same system's Offline",
            measured,
            _MEASURED_HEADERS,
            {k: "{:,.1f}" for k in list(_MEASURED_HEADERS)[:2]}
            | {"kept": "{:.3f}", "ttft_of_limit": "{:.2f}", "tpot_of_limit": "{:.2f}"},
        ),
        SectionTable(
            "The model's capacity at the result's MLPerf SLO on the bundled curves of the same model and accelerator",
            model,
            _MODEL_HEADERS,
            {k: "{:,.1f}" for k in list(_MODEL_HEADERS)[:5]}
            | {"gap": "{:+.1%}"}
            | {k: "{:.3f}" for k in list(_MODEL_HEADERS)[6:]},
        ),
        SectionTable(
            "Wall power per accelerator: MLPerf measured against the bundled scenarios' figures",
            power,
            _POWER_HEADERS,
            {k: "{:,.0f}" for k in _POWER_HEADERS if k.endswith("_w") or "w_per" in k} | {"node_of_measured": "{:.2f}"},
        ),
    )
    parameters = {"results": str(len(points)), "source": "MLCommons MLPerf Inference results (package table)"}
    return ValidationSection("", "", "measured", headline, text, tables, parameters)


def _section_text(
    context: ValidationContext,
    points: Sequence[MLPerfPoint],
    measured: pd.DataFrame,
    model: pd.DataFrame,
    power: pd.DataFrame,
) -> str:
    rounds = ", ".join(sorted({p.round for p in points}))
    paragraphs = [
        f"Published results: {len(points)} MLPerf Inference datacenter LLM results of round(s) {rounds} (MLCommons, "
        f"github.com/mlcommons/inference_results_v5.1, summary_results.json and each run's mlperf_log_summary.txt; "
        f"{context.mlperf_note or 'the package table'}), each the submitter's own run (provenance vendor). MLPerf's "
        "Server scenario sends Poisson arrivals at the highest rate whose p99 TTFT and p99 TPOT stay within the "
        "benchmark's limits (DeepSeek-R1: 2,000 / 80 ms; Llama-2-70B 2,000 / 200 ms; Llama-3.1-405B 6,000 / 175 ms; "
        "MLCommons, MLPerf Inference rules, v5.1): a measured capacity at SLO.",
        f"Measured: {_kept_text(measured)}.",
        "The model: a system's own Offline point gives no latencies (LoadGen sends every Offline query at once), so "
        "it bounds a curve but cannot form one with the Server point; the curves beside a result are the bundled "
        "scenarios' curves of the same model on the same accelerator (InferenceX measurements, closed-loop, at "
        "their own request lengths). On each, rackcost's capacity at the result's MLPerf SLO of one replica is the "
        "largest, over the curve's integer concurrencies, of the M/M/c rate whose p99 wait fits in the TTFT limit "
        "less the point's TTFT, at points whose TPOT meets its limit (docs/model.md, steps 3-4). The ratio to "
        "MLPerf's measured rate per accelerator splits exactly: level x SLO cut x queue cut / MLPerf kept. 'The "
        "curve' names a gap made by the curve's level (other software, other lengths); 'the SLO' one made by the "
        "curve's own closed-loop latencies passing the limits below its top; 'the queueing' one made by the "
        "queue's p99 wait.",
    ]
    if not model.empty:
        counts = model["verdict"].value_counts()
        decoding = model["mlperf_decoding_per_accelerator"].dropna()
        reach = (
            f" The curves reach {model['curve_concurrency_per_accelerator'].min():.1f}-"
            f"{model['curve_concurrency_per_accelerator'].max():.1f} requests in flight per accelerator, where "
            f"MLPerf's Server runs keep {decoding.min():.0f}-{decoding.max():.0f} decoding per accelerator (Little's "
            "law on each run's log: output tokens/s x mean TPOT): the model never extrapolates, so its rate stops at "
            "the curve's top."
            if not decoding.empty
            else ""
        )
        paragraphs.append(
            f"Model against MLPerf: {len(model)} pairs; the model's rate per accelerator is "
            f"{model['gap'].min():+.1%} to {model['gap'].max():+.1%} of MLPerf's; the model keeps "
            f"{model['model_kept'].min():.2f}-{model['model_kept'].max():.2f} of its curve's top where MLPerf keeps "
            f"{model['mlperf_kept'].min():.2f}-{model['mlperf_kept'].max():.2f} of Offline; the gap is "
            + ", ".join(f"{k} for {v}" for k, v in counts.items())
            + "."
            + reach
        )
    if not power.empty:
        benchmarks = ", ".join(sorted({b.split()[0] for b in power["benchmark"]}))
        paragraphs.append(
            f"Wall power: MLPerf measured {power['measured_w_per_accelerator'].min():,.0f}-"
            f"{power['measured_w_per_accelerator'].max():,.0f} W per accelerator (the whole system at its inlets "
            "over the run, divided by its accelerators); the bundled scenarios' busy accelerator power plus host "
            f"power per accelerator gives {power['node_w_per_accelerator'].min():,.0f}-"
            f"{power['node_w_per_accelerator'].max():,.0f} W ({power['node_of_measured'].min():.2f}-"
            f"{power['node_of_measured'].max():.2f} of measured), and "
            f"{power['with_rack_w_per_accelerator'].min():,.0f}-{power['with_rack_w_per_accelerator'].max():,.0f} "
            f"W with the rack overhead. MLPerf's power runs here are {benchmarks}; a bundled system's busy power is "
            "its own model's, so where the models differ the comparison bounds the scenario's figures, it does not "
            "test them."
        )
    return "\n\n".join(paragraphs)
