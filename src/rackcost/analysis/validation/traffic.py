"""Real traffic: every shared production trace, superposed to a bundled fleet's peak, replayed through the fleet
rackcost sizes with the burstiness ``rackcost trace --into`` measures, analytic beside replayed.

For each trace and each scenario of :data:`SCENARIOS`: the trace is superposed to the scenario's sizing rate
(:func:`rackcost.analysis.trace_scaling.superpose`: randomly shifted copies, thinned to the rate, seeded), its index of
dispersion and its rate in the windows of the hour measured (:func:`rackcost.analysis.trace_measures.measure_arrivals`)
and written into the sizing point as ``arrival_dispersion`` and ``sub_hour`` with the superposed rate, exactly as
``rackcost trace --scale-to R --into`` writes them; the scenario is evaluated (each system sized at the SCV its service
time reads) and the same superposed arrivals replayed through every system by :func:`rackcost.analysis.referee.simulate`
(``--trace``, lengths ``none``: the arrivals alone, each request the workload's mean request with the simulator's
default spread of output lengths, so the replay differs from the model only in its arrivals; no admission control: every
request is served however long it waits, as a real stack without SLO-aware shedding does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from rackcost.analysis.referee import simulate
from rackcost.analysis.trace_files import Trace
from rackcost.analysis.trace_measures import measure_arrivals
from rackcost.analysis.trace_scaling import superpose
from rackcost.analysis.validation.sections import SectionTable, ValidationContext, ValidationSection
from rackcost.scenario.loading import scenario_from_dict, scenario_to_data
from rackcost.scenario.schema import Scenario

__all__ = [
    "COLUMNS",
    "SCENARIOS",
    "TTFT_JUDGED_BELOW_FRACTION",
    "NamedTrace",
    "measured_scenario",
    "traffic_rows",
    "traffic_section",
]

SCENARIOS = ("deepseek-r1-b200-vs-gb200-inferencex.yaml", "deepseek-r1-jalapeno-vs-gb300.yaml")
"""The bundled scenarios every trace is replayed through: the InferenceX comparison and the default scenario."""
TTFT_JUDGED_BELOW_FRACTION = 0.05
"""p99 TTFT is judged only where the replay's 95% half-width is under this share of its value [-]."""

COLUMNS = [
    "trace",
    "scenario",
    "system",
    "replicas_x_slots",
    "arrival_rps",
    "arrival_scv_read",
    "gap_scv",
    "analytic_accepted_fraction",
    "replayed_accepted_fraction",
    "replayed_accepted_fraction_ci95_halfwidth",
    "accepted_gap_points",
    "analytic_ttft_p99_ms",
    "replayed_ttft_p99_ms",
    "replayed_ttft_p99_ms_ci95_halfwidth",
    "ttft_p99_relative_error_fraction",
]


@dataclass(frozen=True)
class NamedTrace:
    """A production trace read for the section.

    Attributes
    ----------
    name
        A short name (its file's).
    source
        Publisher, dataset, date and licence, as the section cites it.
    trace
        Its requests.
    """

    name: str
    source: str
    trace: Trace


def measured_scenario(scenario: Scenario, trace: Trace, seed: int) -> tuple[Scenario, Trace, float]:
    """The scenario with its sizing point measured from ``trace`` superposed to that point's rate, as ``rackcost
    trace --scale-to R --into`` writes it; the superposed trace; its gap SCV."""
    sizing = scenario.sizing_point
    scaled = superpose(trace, sizing.arrival_rps, seed).trace
    measures = measure_arrivals(scaled.arrival_s)
    data = scenario_to_data(scenario)
    j = [d.name for d in scenario.demand].index(sizing.name)
    point = data["demand"][j]
    point.pop("arrival_scv", None)
    point["arrival_rps"] = float(f"{measures.stats.arrival_rps:.6g}")
    source = f"superposed to {sizing.arrival_rps:g} rps, seed {seed}"
    point["arrival_dispersion"] = {
        "time_scales_s": list(measures.time_scales_s),
        "index": [float(f"{v:.6g}") for v in measures.index],
        "source": source,
    }
    if measures.hour_ratios:
        point["sub_hour"] = {
            "window_s": measures.hour_window_s,
            "rate_ratios": [float(f"{r:.4g}") for r in measures.hour_ratios],
            "source": source,
        }
    return scenario_from_dict(data, f"{scenario.name} (real traffic)"), scaled, measures.stats.gap_scv


def traffic_rows(
    file_name: str, scenario: Scenario, named: NamedTrace, seed: int, batches: int = 5
) -> list[dict[str, Any]]:
    """One trace through one scenario's systems at its sizing point (:data:`COLUMNS`)."""
    measured, scaled, gap_scv = measured_scenario(scenario, named.trace, seed)
    rows = simulate(
        measured,
        demand_point=measured.sizing_point.name,
        trace=scaled,
        trace_lengths="none",
        replications=batches,
        seed=seed,
    )
    read = _scvs_read(measured)
    out = []
    for r in rows:
        figures = {f["key"]: f for f in _figures(r)}
        accepted = figures["accepted_fraction"]
        ttft = figures["ttft_p99_ms"]
        half = ttft["ci95_halfwidth"]
        out.append(
            {
                "trace": named.name,
                "scenario": file_name,
                "system": r["system"],
                "replicas_x_slots": f"{r['replicas_serving']} x {r['slots_per_replica']}",
                "arrival_rps": float(r["arrival_rps"]),
                "arrival_scv_read": read[r["system"]],
                "gap_scv": gap_scv,
                "analytic_accepted_fraction": accepted["analytic"],
                "replayed_accepted_fraction": accepted["simulated"],
                "replayed_accepted_fraction_ci95_halfwidth": accepted["ci95_halfwidth"],
                "accepted_gap_points": 100.0 * (accepted["analytic"] - accepted["simulated"]),
                "analytic_ttft_p99_ms": ttft["analytic"],
                "replayed_ttft_p99_ms": ttft["simulated"],
                "replayed_ttft_p99_ms_ci95_halfwidth": half,
                "ttft_p99_relative_error_fraction": ttft["relative_error_fraction"],
            }
        )
    return out


def _figures(row: dict[str, Any]) -> list[dict[str, Any]]:
    from rackcost.analysis.referee import figure_rows

    return figure_rows(row)


def _scvs_read(scenario: Scenario) -> dict[str, float]:
    """The arrival SCV each system reads from the measured dispersion at the sizing point [-]."""
    import rackcost

    name = scenario.sizing_point.name
    points = rackcost.evaluate(scenario).records["points"]
    return {p["system"]: float(p["arrival_scv"]) for p in points if p["demand_point"] == name}


def traffic_section(context: ValidationContext) -> ValidationSection:
    """The section: every trace through every scenario of :data:`SCENARIOS` (module docstring)."""
    traces: Sequence[NamedTrace] = context.traces
    if not traces:
        return ValidationSection(
            "traffic",
            "",
            "skipped",
            "skipped: no shared traces",
            "Skipped: the shared data folder's traces/ is absent (give `rackcost validation --data DATA`).",
        )
    scenarios = dict(context.scenarios)
    rows = [
        row
        for named in traces
        for file_name in SCENARIOS
        if file_name in scenarios
        for row in traffic_rows(file_name, scenarios[file_name], named, context.seed)
    ]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    worst = float(frame["accepted_gap_points"].abs().max())
    low = float(frame["replayed_accepted_fraction"].min())
    judged = frame[
        frame["replayed_ttft_p99_ms_ci95_halfwidth"] < TTFT_JUDGED_BELOW_FRACTION * frame["replayed_ttft_p99_ms"]
    ]
    ttft_worst = float(judged["ttft_p99_relative_error_fraction"].abs().max()) if len(judged) else math.nan
    sources = "\n".join(f"- `{t.name}`: {t.source}; {t.trace.arrival_s.size:,} requests." for t in traces)
    text = (
        "Every shared production trace, superposed to the sizing rate of "
        + " and ".join(f"`{s}`" for s in SCENARIOS)
        + " (randomly shifted copies, thinned to the rate; seed "
        f"{context.seed}), its index of dispersion and its rate in the six ten-minute windows of the hour written "
        "into the sizing point as `rackcost trace --scale-to R --into` writes them, each fleet sized by rackcost at "
        "the SCV its service time reads from it and for the busiest window (`fleet.sub_hour_sizing`), and the same "
        "arrivals replayed through each fleet (`rackcost simulate --trace`, lengths `none`: the arrivals alone; no "
        "admission control; 95% half-widths from batch means). Accepted = served within the SLO.\n\n"
        f"Traces:\n{sources}\n\n"
        f"Largest gap between the analytic and the replayed accepted share: {worst:.2f} points; the lowest replayed "
        f"share {100 * low:.2f}%. p99 TTFT is compared where the replay's half-width is under "
        f"{100 * TTFT_JUDGED_BELOW_FRACTION:.0f}% of its value ({len(judged)} of {len(frame)} rows): "
        + ("none qualifies." if not len(judged) else f"largest relative error {100 * ttft_worst:.1f}%.")
    )
    table = SectionTable(
        "Analytic against replayed, at each scenario's sizing point",
        frame,
        headers={
            "replicas_x_slots": "replicas x slots",
            "arrival_scv_read": "SCV read",
            "analytic_accepted_fraction": "accepted, analytic",
            "replayed_accepted_fraction": "accepted, replayed",
            "replayed_accepted_fraction_ci95_halfwidth": "± 95%",
            "accepted_gap_points": "gap [points]",
            "analytic_ttft_p99_ms": "p99 TTFT analytic [ms]",
            "replayed_ttft_p99_ms": "p99 TTFT replayed [ms]",
            "replayed_ttft_p99_ms_ci95_halfwidth": "± 95% [ms]",
            "ttft_p99_relative_error_fraction": "p99 TTFT error",
        },
        formats={
            "arrival_rps": "{:.4g}",
            "arrival_scv_read": "{:.3g}",
            "gap_scv": "{:.3g}",
            "analytic_accepted_fraction": "{:.2%}",
            "replayed_accepted_fraction": "{:.2%}",
            "replayed_accepted_fraction_ci95_halfwidth": "{:.2%}",
            "accepted_gap_points": "{:+.2f}",
            "analytic_ttft_p99_ms": "{:,.0f}",
            "replayed_ttft_p99_ms": "{:,.0f}",
            "replayed_ttft_p99_ms_ci95_halfwidth": "{:,.0f}",
            "ttft_p99_relative_error_fraction": "{:+.1%}",
        },
    )
    return ValidationSection(
        "traffic",
        "",
        "measured",
        f"real traffic: analytic within {worst:.2f} points of the trace replay; replay at least {100 * low:.2f}%",
        text,
        (table,),
        {"seed": str(context.seed), "scenarios": ", ".join(SCENARIOS)},
    )
