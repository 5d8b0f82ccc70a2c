"""The throughput interpolation's error: each interior measured point of a curve left out in turn and predicted
from the others (leave one out).

Between measured points the model interpolates the slot holding time ``S = c / mu`` and the latencies linearly in
concurrency (:func:`rackcost.model.replica.performance.interpolate_curve`) and derives throughput as ``c / S(c)``.
Leaving a point out and predicting it from its neighbours measures that assumption where it matters: between two
measured points. The outermost points cannot be left out (predicting them would be extrapolation, which the model never
does), so a curve of one or two points measures nothing."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rackcost.analysis.validation.sections import NamedCurve, SectionTable, ValidationContext, ValidationSection
from rackcost.model.replica.performance import Curve, build_curve, interpolate_curve
from rackcost.scenario.schema import Scenario
from rackcost.scenario.unpack import system_inputs

__all__ = [
    "COLUMNS",
    "FIGURES",
    "UNITS",
    "curve_errors",
    "curve_from_performance",
    "interpolation_section",
    "leave_one_out",
    "same_measurement",
    "scenario_curves",
]

UNITS = {"throughput": "rps", "tpot": "ms", "ttft": "ms", "power": "w"}
"""The figures predicted at a left-out point, with the unit of their columns: request throughput (tokens/s follow
from it in proportion), TPOT, TTFT, and measured accelerator power where every point of the curve has one."""
FIGURES = tuple(UNITS)
"""The figures' names, in column order."""
COLUMNS = ["concurrency"] + [
    f"{name}_{kind}"
    for name, unit in UNITS.items()
    for kind in (f"measured_{unit}", f"predicted_{unit}", "error_fraction")
]
"""The columns of :func:`leave_one_out`'s frame."""


def leave_one_out(curve: Curve) -> pd.DataFrame:
    """Predict each interior point of a curve from the other points.

    Parameters
    ----------
    curve
        Measured points, sorted by concurrency (:func:`rackcost.model.replica.performance.build_curve`).

    Returns
    -------
    DataFrame
        One row per interior point: ``concurrency`` [requests]; for each figure of :data:`FIGURES`, the measured and
        predicted value (``throughput_*_rps`` [requests/s], ``tpot_*_ms``, ``ttft_*_ms`` [ms], ``power_*_w`` [W];
        power NaN when the curve has none) and ``*_error_fraction``, (predicted - measured) / measured [-]. Empty
        when the curve has fewer than three points.

    Examples
    --------
    Three points whose service time grows linearly with concurrency: the middle one is predicted exactly.

    >>> c = build_curve([1.0, 2.0, 3.0], [10.0, 15.0, 18.0], "total", [10.0, 20.0, 30.0], [100.0, 200.0, 300.0], 9, 1)
    >>> float(leave_one_out(c)["throughput_error_fraction"].iloc[0])
    0.0
    """
    n = len(curve)
    rows = []
    for k in range(1, n - 1):
        rest = curve.take(np.delete(np.arange(n), k))
        at = interpolate_curve(rest, [float(curve.concurrency[k])])
        row: dict[str, float] = {"concurrency": float(curve.concurrency[k])}
        pairs = {
            "throughput": (curve.request_rps, at.request_rps),
            "tpot": (curve.tpot_ms, at.tpot_ms),
            "ttft": (curve.ttft_ms, at.ttft_ms),
        }
        if curve.power_w_per_accelerator is not None and at.power_w_per_accelerator is not None:
            pairs["power"] = (curve.power_w_per_accelerator, at.power_w_per_accelerator)
        for name, unit in UNITS.items():
            measured, predicted = (math.nan, math.nan)
            if name in pairs:
                measured, predicted = float(pairs[name][0][k]), float(pairs[name][1][0])
            row[f"{name}_measured_{unit}"] = measured
            row[f"{name}_predicted_{unit}"] = predicted
            row[f"{name}_error_fraction"] = _relative(predicted, measured)
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)


def _relative(predicted: float, measured: float) -> float:
    """(predicted - measured) / measured, NaN where either is missing or the measured value is 0 [-]."""
    if math.isnan(predicted) or math.isnan(measured) or measured == 0:
        return math.nan
    return (predicted - measured) / measured


def curve_errors(loo: pd.DataFrame) -> dict[str, float]:
    """Mean and largest absolute percentage error of each figure over a curve's left-out points.

    Parameters
    ----------
    loo
        :func:`leave_one_out`'s frame (of one curve, or several concatenated).

    Returns
    -------
    dict
        ``points_left_out`` [-] and, per figure, ``{figure}_mape_fraction`` and ``{figure}_max_ape_fraction`` [-]
        (NaN when no point has the figure).
    """
    out: dict[str, float] = {"points_left_out": float(len(loo))}
    for name in FIGURES:
        ape = loo[f"{name}_error_fraction"].abs().dropna() if len(loo) else pd.Series(dtype=float)
        out[f"{name}_mape_fraction"] = float(ape.mean()) if len(ape) else math.nan
        out[f"{name}_max_ape_fraction"] = float(ape.max()) if len(ape) else math.nan
    return out


def scenario_curves(scenarios: Sequence[tuple[str, Scenario]]) -> list[NamedCurve]:
    """The measured curve of every system of every scenario that has operating points (not a single claim, not an
    API), as the model builds it (:func:`rackcost.scenario.unpack.system_inputs`)."""
    out = []
    for file_name, scenario in scenarios:
        for system in scenario.systems:
            if system.performance is None or not system.performance.points:
                continue
            out.append(NamedCurve(f"scenarios/{file_name}", system.name, system_inputs(scenario, system).curve))
    return out


def curve_from_performance(performance: Mapping[str, Any]) -> Curve:
    """The model's curve from a scenario-ready ``performance`` mapping (an imported curve's): points with
    ``throughput_tokens_per_s``, ``tpot_ms``, ``ttft_ms`` and optionally ``concurrency`` and
    ``power_w_per_accelerator``, at the mapping's ``token_basis`` and benchmark lengths.

    Throughput is taken per replica as given; a uniform scale (per accelerator, a derate) changes no relative error.
    """
    points = performance["points"]
    concurrency = [p["concurrency"] for p in points] if all("concurrency" in p for p in points) else None
    power = [p.get("power_w_per_accelerator") for p in points]
    return build_curve(
        concurrency,
        [p["throughput_tokens_per_s"] for p in points],
        str(performance.get("token_basis", "total")),
        [p["tpot_ms"] for p in points],
        [p["ttft_ms"] for p in points],
        float(performance["benchmark_input_tokens"]),
        float(performance["benchmark_output_tokens"]),
        None if any(w is None for w in power) else power,
    )


SAME_MEASUREMENT_RTOL = 1e-2
"""Two curves are one measurement (counted once overall) when their concurrencies are equal and their service
times and latencies agree within this relative tolerance at every point (a scenario's rounded copy of a file) [-]."""


def same_measurement(a: Curve, b: Curve) -> bool:
    """Whether two curves are the same measurement (:data:`SAME_MEASUREMENT_RTOL`).

    Examples
    --------
    >>> c = build_curve([1.0, 2.0], [10.0, 15.0], "total", [10.0, 20.0], [100.0, 200.0], 9, 1)
    >>> d = build_curve([1.0, 2.0], [10.01, 15.0], "total", [10.0, 20.0], [100.0, 200.0], 9, 1)
    >>> same_measurement(c, d), same_measurement(c, c.take(np.array([0])))
    (True, False)
    """
    if len(a) != len(b) or not np.array_equal(a.concurrency, b.concurrency):
        return False
    return all(
        np.allclose(x, y, rtol=SAME_MEASUREMENT_RTOL, atol=0.0)
        for x, y in ((a.service_s, b.service_s), (a.tpot_ms, b.tpot_ms), (a.ttft_ms, b.ttft_ms))
    )


_HEADERS = {
    "source": "source",
    "curve": "curve",
    "points": "points",
    "points_left_out": "left out",
    "throughput_mape_fraction": "throughput MAPE",
    "throughput_max_ape_fraction": "throughput max",
    "tpot_mape_fraction": "TPOT MAPE",
    "tpot_max_ape_fraction": "TPOT max",
    "ttft_mape_fraction": "TTFT MAPE",
    "ttft_max_ape_fraction": "TTFT max",
    "power_mape_fraction": "power MAPE",
    "power_max_ape_fraction": "power max",
}
_PERCENT = {k: "{:.2%}" for k in _HEADERS if k.endswith("_fraction")}
_COUNTS = {"points": "{:.0f}", "points_left_out": "{:.0f}"}


def _distinct(curves: Sequence[NamedCurve]) -> tuple[list[NamedCurve], list[str]]:
    """The curves with each measurement once (:func:`same_measurement`), and a line for each repeat left out."""
    kept: list[NamedCurve] = []
    repeats = []
    for named in curves:
        first = next((k for k in kept if same_measurement(k.curve, named.curve)), None)
        if first is None:
            kept.append(named)
        else:
            repeats.append(f"{named.label} ({named.source}) is {first.label} ({first.source})")
    return kept, repeats


def _overall(name: str, curves: Sequence[NamedCurve]) -> dict[str, Any]:
    frames = [leave_one_out(c.curve) for c in curves]
    merged = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    return {"source": name, "curve": f"{len(frames)} distinct curves", "points": math.nan} | curve_errors(merged)


def interpolation_section(context: ValidationContext) -> ValidationSection:
    """Leave one measured point out, on every curve of the bundled scenarios and of the shared InferenceX files."""
    bundled = scenario_curves(context.scenarios)
    groups = [("bundled scenarios", bundled), ("shared InferenceX files", list(context.imported_curves))]
    tables, overall, notes = [], [], []
    per_group = 0
    for name, curves in groups:
        if not curves:
            continue
        distinct, repeats = _distinct(curves)
        per_group += len(distinct)
        overall.append(_overall(name, distinct))
        rows = [
            {"source": c.source, "curve": c.label, "points": len(c.curve)} | curve_errors(leave_one_out(c.curve))
            for c in curves
        ]
        frame = pd.DataFrame(rows, columns=list(_HEADERS))
        tables.append(SectionTable(f"Each curve of the {name}", frame, _HEADERS, _PERCENT | _COUNTS))
        if repeats:
            notes.append(
                f"In the {name}, a curve that is another's measurement counts once overall: " + "; ".join(repeats) + "."
            )
    if len(overall) > 1:
        everything, _ = _distinct([c for _, curves in groups for c in curves])
        overall.append(_overall("all", everything))
        notes.append(
            f'Overall, "all" counts each measurement once: {per_group - len(everything)} curves of the shared files '
            "are the same measurement as a bundled scenario's."
        )
    notes.insert(
        0,
        f"Two curves are the same measurement when their concurrencies are equal and their service times and "
        f"latencies agree within {SAME_MEASUREMENT_RTOL:.0%} at every point (a scenario's rounded copy of a file).",
    )
    summary = pd.DataFrame(overall, columns=list(_HEADERS))
    tables.insert(
        0,
        SectionTable(
            "Overall, over every left-out point of the distinct curves", summary, _HEADERS, _PERCENT | _COUNTS
        ),
    )
    total = overall[-1] if overall else curve_errors(pd.DataFrame(columns=COLUMNS))
    headline = (
        f"throughput predicted between measured points: mean absolute error {total['throughput_mape_fraction']:.1%}, "
        f"worst {total['throughput_max_ape_fraction']:.1%}, over {total['points_left_out']:.0f} left-out points of "
        "distinct curves"
    )
    text = [
        "Between measured points the model interpolates the slot holding time S = c / throughput and the "
        "latencies linearly in concurrency, and derives throughput as c / S(c) (docs/model.md). Each interior "
        "measured point of each curve is left out in turn and predicted from the remaining points; the error is "
        "(predicted - measured) / measured, and MAPE is the mean of its absolute value (max: the largest). "
        "Throughput is requests per second per replica (tokens per second are in proportion). Power is predicted "
        "only where every point of a curve carries measured power.",
        "The lowest and highest measured points cannot be left out: predicting them would be extrapolation, which "
        "the model never does, so a curve of one or two points (a claim, a single benchmark point) measures "
        "nothing and shows 0 points left out. A left-out point is predicted across the two gaps beside it joined "
        "into one, wider than either gap the model interpolates across with every point kept, so its error is a "
        "pessimistic estimate of the error at a concurrency the model reads.",
    ]
    if context.imported_note:
        text.append(f"Shared InferenceX files: {context.imported_note}")
    text += notes
    return ValidationSection(
        "interpolation",
        "Throughput interpolation, leave one measured point out",
        "measured",
        headline,
        "\n\n".join(text),
        tuple(tables),
        {"data folder": context.data_label},
    )
