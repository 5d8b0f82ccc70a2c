"""Imported curves as YAML that pastes into a scenario, with fill-in placeholders for what benchmarks do not say.

:func:`curves_to_yaml` writes one ``performance:`` and ``provenance:`` block per curve (to paste into a system);
with a system name, :func:`curve_to_yaml` writes a whole system entry whose hardware and costs are ``null  # FILL
IN`` placeholders, which a scenario refuses until they are filled. Operating points are written one per line,
numbers to :data:`SIGNIFICANT_DIGITS` significant digits (the curves themselves keep them exact).
"""

from __future__ import annotations

from typing import Any

import yaml

from rackcost.importers.curves import ImportedCurve, stand_in_warning
from rackcost.importers.mapping import STAND_IN_PERCENTILES

__all__ = ["COSTS_FILL_IN", "HARDWARE_FILL_IN", "SIGNIFICANT_DIGITS", "curve_to_yaml", "curves_to_yaml"]

SIGNIFICANT_DIGITS = 6
"""Digits a written point keeps: below any benchmark's run-to-run noise, and readable."""

LINE_WIDTH_CHARS = 118
"""Long YAML lines (a provenance note) wrap at this many characters: inside the 120-character lines the project's
files keep to (ruff's line-length), so pasted blocks read like the scenarios around them."""


def _sig(x: float) -> float:
    """``x`` to :data:`SIGNIFICANT_DIGITS` significant digits."""
    return float(f"{x:.{SIGNIFICANT_DIGITS}g}")


class _Flow(dict):
    """A mapping written on one line (operating points)."""


class _Dumper(yaml.SafeDumper):
    """Safe dumper with a representer for one-line mappings (registered below)."""


_Dumper.add_representer(_Flow, lambda d, data: d.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True))


def _dump(data: Any) -> str:
    return yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=LINE_WIDTH_CHARS, default_flow_style=False
    )


def _with_flow_points(performance: dict[str, Any]) -> dict[str, Any]:
    """Points on one line each, numbers to six significant digits (the API keeps them exact)."""
    points = [_Flow({k: v if k == "concurrency" else _sig(v) for k, v in p.items()}) for p in performance["points"]]
    lengths = {  # measured mean lengths (926.7) to the points' digits; nominal ones are whole and stay so
        k: _sig(performance[k])
        for k in ("benchmark_input_tokens", "benchmark_output_tokens")
        if isinstance(performance.get(k), float)
    }
    return {**performance, **lengths, "points": points}


HARDWARE_FILL_IN = [
    ("accelerators_per_node", "accelerators in one node (tray)"),
    ("nodes_per_rack", "node slots in one rack"),
    ("accelerator_rated_w", "rated (nameplate) power, provisioning only [W]"),
    ("accelerator_busy_w", "sustained power with every slot busy [W]"),
    ("accelerator_idle_w", "power when powered and idle [W]"),
    ("host_w_per_node", "CPUs, memory, NICs, fans of one node [W]"),
    ("rack_overhead_w", "switches, fans, CDU, conversion of one rack [W]"),
]
"""Hardware fields a system entry leaves ``null  # FILL IN`` (benchmark files do not give them), with what each is."""
COSTS_FILL_IN = [
    ("capex_usd_per_accelerator", "accelerator price [USD]"),
    ("capex_usd_per_node", "node chassis, CPUs, memory [USD]"),
    ("service_life_years", "years over which capex is recovered [years]"),
    ("cost_of_capital_fraction", "annual cost of capital [1/year]"),
]
"""Cost fields a system entry leaves ``null  # FILL IN``, with what each is."""


def _header(curves: list[ImportedCurve], command: str) -> list[str]:
    lines = [f"# Written by `{command}`." if command else "# Written by rackcost's importer."]
    for percentile in sorted({c.percentile for c in curves if c.percentile in STAND_IN_PERCENTILES}):
        lines.append(f"# WARNING: {stand_in_warning(percentile)}")
    if any(c.has_power for c in curves):
        lines.append(
            "# power_w_per_accelerator is MEASURED GPU BOARD POWER (mean; peak_power_w_per_accelerator the peak), not"
        )
        lines.append(
            "# wall power (provenance: measured board power; InferenceX avg_power_w or mean_power_per_gpu_w): hosts,"
        )
        lines.append("# rack overhead and PUE come on top from the scenario's hardware and facility blocks.")
    return lines


def curve_to_yaml(curve: ImportedCurve, system_name: str | None = None, command: str = "") -> str:
    """YAML text of one curve.

    Parameters
    ----------
    curve
        The curve.
    system_name
        Without it: a mapping ``{label: {performance, provenance}}`` whose two blocks paste into a system entry.
        With it: a one-item list holding a whole system entry (name, provenance, performance, and hardware and
        costs with ``null`` placeholders marked ``FILL IN``) that pastes under ``systems:``.
    command
        Command line to name in the header comment.
    """
    return curves_to_yaml([curve], system_name=system_name, command=command)


def curves_to_yaml(curves: list[ImportedCurve], system_name: str | None = None, command: str = "") -> str:
    """YAML text of several curves: one entry per curve (see :func:`curve_to_yaml`).

    Raises
    ------
    ValueError
        When ``system_name`` is given with more than one curve (one system holds one curve).
    """
    lines = _header(curves, command)
    if system_name is None:
        lines.append(
            "# One entry per curve: paste its `performance:` and `provenance:` blocks into a system of a scenario"
        )
        lines.append(
            "# (systems[].performance and systems[].provenance); hardware and costs are not in benchmark files."
        )
        body = {c.label: {"performance": _with_flow_points(c.performance), "provenance": c.provenance} for c in curves}
        return "\n".join(lines) + "\n" + _dump(body)
    if len(curves) != 1:
        raise ValueError(f"one system holds one curve, got {len(curves)}")
    (curve,) = curves
    lines.append("# One system entry: paste it under `systems:` of a scenario. Hardware and costs are NOT in benchmark")
    lines.append(
        "# files: replace every `null  # FILL IN` before the scenario loads (rackcost validate names each one)."
    )
    entry = {"name": system_name, "provenance": curve.provenance, "performance": _with_flow_points(curve.performance)}
    text = _dump([entry]).rstrip("\n") + "\n"
    gpus = curve.key.gpus_per_replica
    text += "  hardware:\n"
    if gpus is not None and curve.key.throughput_per == "replica":
        text += f"    accelerators_per_replica: {gpus}   # from the benchmark: {curve.gpus_source}\n"
    else:
        text += "    accelerators_per_replica: null   # FILL IN: accelerators one replica spans\n"
    for name, what in HARDWARE_FILL_IN:
        text += f"    {name}: null   # FILL IN: {what}\n"
    text += "  costs:\n"
    for name, what in COSTS_FILL_IN:
        text += f"    {name}: null   # FILL IN: {what}\n"
    return "\n".join(lines) + "\n" + text
