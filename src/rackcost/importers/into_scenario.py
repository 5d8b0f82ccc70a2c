"""An imported curve put into a scenario, as plain data: a system's operating points replaced, or a new system added
from a template, each with the curve's provenance (the dashboard's import page; :mod:`rackcost.scenario.edits` for
the plain edits these build on); and a demand point's rate and burstiness measured from an arrival trace
(``rackcost trace --into``). Each function returns a new dict and leaves its arguments untouched.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from rackcost.importers.curves import ImportedCurve
from rackcost.scenario.edits import set_at

__all__ = ["COPIED", "add_system", "curve_figure", "curve_gpus_per_replica", "measured_demand", "replace_points"]

COPIED = "copied in the rackcost dashboard from system"
"""Start of the ``source`` of a figure :func:`add_system` copies from the template system."""


# ---- imported curves -------------------------------------------------------------------------------------------


def curve_figure(curve: ImportedCurve) -> dict[str, str]:
    """The ``figures:`` entry of an imported performance block: the importer's class, the files and the run date.

    Parameters
    ----------
    curve
        An imported curve.

    Returns
    -------
    dict
        ``provenance`` (the curve's class, ``assumption`` when it has none), ``source`` and, for an assumption,
        ``why``.
    """
    prov = curve.provenance
    figure = {
        "provenance": str(prov.get("class", "assumption")),
        "source": f"{prov.get('source', 'uploaded result files')}; run date {prov.get('date', 'unstated')}; "
        f"curve {curve.label}, TTFT and TPOT {_at(curve.percentile)}; imported in the rackcost dashboard"
        + (
            "; power_w_per_accelerator and peak_power_w_per_accelerator: measured board power (GPU only, not wall)"
            if curve.has_power
            else ""
        ),
    }
    if figure["provenance"] == "assumption":
        figure["why"] = (
            "imported results that do not say who measured them (a CSV table, or the class chosen on import); "
            "set the provenance class when you know it"
        )
    return figure


def _at(percentile: str) -> str:
    return "as the table gives them" if percentile == "as given" else f"at {percentile}"


def curve_gpus_per_replica(curve: ImportedCurve) -> int | None:
    """GPUs per replica the curve's throughput is for, when it is per replica and the files say it [GPUs]."""
    return curve.key.gpus_per_replica if curve.key.throughput_per == "replica" else None


def _gpus_figure(curve: ImportedCurve) -> dict[str, str]:
    figure = curve_figure(curve)
    figure["source"] = f"GPUs per replica of the benchmark run ({curve.gpus_source}); " + figure["source"]
    return figure


def _under(key: str, path: str) -> bool:
    return key == path or key.startswith(path + ".") or key.startswith(path + "[")


def _systems(scenario: dict[str, Any]) -> list[Any]:
    systems = scenario.get("systems")
    return systems if isinstance(systems, list) else []


def _system_at(scenario: dict[str, Any], index: int, what: str) -> dict[str, Any]:
    systems = _systems(scenario)
    if not 0 <= index < len(systems) or not isinstance(systems[index], dict):
        raise IndexError(f"{what}: the scenario has {len(systems)} system(s), so there is no systems[{index}]")
    return systems[index]


def replace_points(scenario: dict[str, Any], index: int, curve: ImportedCurve) -> dict[str, Any]:
    """The scenario with system ``index``'s performance and provenance replaced by the curve's.

    Hardware, power, costs and the vendor claim (``performance.claim``, the vendor's headline, not an operating
    point) are kept; ``hardware.accelerators_per_replica`` becomes the benchmark's GPUs per replica when the
    curve gives it (:func:`curve_gpus_per_replica`), since its throughput is per replica of that many GPUs. The
    system's figures under ``performance`` (but its claim) and ``provenance`` give way to one entry for the
    curve (:func:`curve_figure`); other systems and their figures are untouched.

    Parameters
    ----------
    scenario
        A scenario dict; not modified.
    index
        Index of the system in ``systems``.
    curve
        The imported curve.

    Returns
    -------
    dict
        The edited copy.

    Raises
    ------
    IndexError
        The scenario has no system ``index``.
    """
    _system_at(scenario, index, "replace_points")
    data = copy.deepcopy(scenario)
    system = data["systems"][index]
    gpus = curve_gpus_per_replica(curve)
    prefix = f"systems[{index}]"
    old = given if isinstance(given := system.get("performance"), dict) else {}
    performance = copy.deepcopy(curve.performance)
    if old.get("claim") is not None:
        performance["claim"] = old["claim"]
    system["performance"] = performance
    system["provenance"] = copy.deepcopy(curve.provenance)
    if gpus is not None:
        data["systems"][index] = set_at(system, "hardware.accelerators_per_replica", gpus)
    figures = given if isinstance(given := data.get("figures"), dict) else {}
    figures = {
        k: v
        for k, v in figures.items()
        if not (_under(k, f"{prefix}.performance") and not _under(k, f"{prefix}.performance.claim"))
        and not _under(k, f"{prefix}.provenance")
        and not (gpus is not None and k == f"{prefix}.hardware.accelerators_per_replica")
    }
    figures[f"{prefix}.performance"] = curve_figure(curve)
    if gpus is not None:
        figures[f"{prefix}.hardware.accelerators_per_replica"] = _gpus_figure(curve)
    data["figures"] = figures
    return data


def add_system(
    scenario: dict[str, Any],
    curve: ImportedCurve,
    name: str,
    template: int,
    *,
    source: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The scenario with the curve added as a new last system, hardware and costs copied from a template system.

    The new system gets the curve's performance and provenance, and copies of the template's ``hardware``,
    ``costs`` and ``facility`` override (not its vendor claim); ``hardware.accelerators_per_replica`` is the
    benchmark's when the curve gives it. Benchmark results hold no hardware or costs, so every copied block, and
    every figure under it, gets a ``figures:`` entry under the new index labelled ``assumption``, "copied ... to
    be reviewed", citing the template's figure.

    Parameters
    ----------
    scenario
        A scenario dict; not modified.
    curve
        The imported curve.
    name
        Name of the new system.
    template
        Index of the system whose hardware and costs are copied, in ``source``.
    source
        The scenario the template system and its figures are read from; ``scenario`` by default. (The dashboard
        adds the system to the draft and to its baseline alike, both copying the draft's template, so that
        nothing reads as edited.)

    Returns
    -------
    dict
        The edited copy.

    Raises
    ------
    IndexError
        ``source`` has no system ``template``.
    """
    source = scenario if source is None else source
    base = _system_at(source, template, "add_system")
    template_name = str(base.get("name", f"system {template + 1}"))
    template_figures = given if isinstance(given := source.get("figures"), dict) else {}
    data = copy.deepcopy(scenario)
    if not isinstance(data.get("systems"), list):
        data["systems"] = []
    origin = f"systems[{template}]"
    target = f"systems[{len(data['systems'])}]"
    gpus = curve_gpus_per_replica(curve)
    why = (
        f"benchmark results hold no hardware or costs: copied from {template_name} as a starting point, to be reviewed"
    )

    def copied(fig: Any) -> dict[str, str]:
        was = f" (its figure: {fig.get('provenance')}, {fig.get('source')})" if isinstance(fig, dict) else ""
        return {"provenance": "assumption", "source": f"{COPIED} {template_name}{was}", "why": why}

    system: dict[str, Any] = {
        "name": name,
        "provenance": copy.deepcopy(curve.provenance),
        "performance": copy.deepcopy(curve.performance),
    }
    blocks = [b for b in ("hardware", "costs", "facility") if base.get(b) is not None]
    for block in blocks:
        system[block] = copy.deepcopy(base[block])
    if gpus is not None:
        system = set_at(system, "hardware.accelerators_per_replica", gpus)
    data["systems"].append(system)
    figures = given if isinstance(given := data.get("figures"), dict) else {}
    for block in blocks:
        covering = next((template_figures[k] for k in (f"{origin}.{block}", origin) if k in template_figures), None)
        figures[f"{target}.{block}"] = copied(covering)
        for key, fig in template_figures.items():
            if key.startswith(f"{origin}.{block}."):
                figures[target + key.removeprefix(origin)] = copied(fig)
    figures[f"{target}.performance"] = curve_figure(curve)
    if gpus is not None:
        figures[f"{target}.hardware.accelerators_per_replica"] = _gpus_figure(curve)
    data["figures"] = figures
    return data


# ---- measured arrivals -----------------------------------------------------------------------------------------


def measured_demand(
    scenario: dict[str, Any],
    point: str,
    arrival_rps: float,
    time_scales_s: Sequence[float],
    index: Sequence[float],
    source: str,
    keep_rate: bool = False,
    hour_window_s: float = 600.0,
    hour_ratios: Sequence[float] = (),
) -> dict[str, Any]:
    """A demand point's ``arrival_dispersion`` (and, unless ``keep_rate``, its ``arrival_rps`` and the ``sub_hour``
    windows of its rate) measured from a trace (``rackcost trace --into``), its ``arrival_scv`` (and with windows its
    ``rate_swing``) removed (each pair is exclusive), with a ``figures:`` entry naming the trace.

    The trace is the operator's own measurement of its traffic, so the entry's provenance is ``independent``; its
    source names the file, its format, the requests and span measured (and a window cut or a superposition), so a
    reader can tell how much the figure rests on.

    Parameters
    ----------
    scenario
        A scenario dict; not modified.
    point
        Name of the demand point to set.
    arrival_rps
        The trace's mean rate [requests/s].
    time_scales_s, index
        The index of dispersion of counts at each time scale measured [s], [-].
    source
        Where the figures came from (``<file>, <format>, <requests> requests over <span> s[, ...]``).
    keep_rate
        Keep the point's ``arrival_rps``; set its burstiness only (the trace is of another scale, e.g. one
        customer, or a day the fleet was not sized for): its windows are not written either.
    hour_window_s, hour_ratios
        The windows of the hour [s] and each one's rate over their mean
        (:func:`rackcost.analysis.trace_measures.hour_windows`); none: no ``sub_hour`` is written [-].

    Returns
    -------
    dict
        The edited copy.

    Raises
    ------
    ValueError
        No demand point has that name, or no time scale was measured (a trace too short for 8 windows of any).
    """
    points = scenario.get("demand")
    names = [p.get("name") for p in points] if isinstance(points, list) else []
    if point not in names:
        raise ValueError(f"no demand point named {point!r}; the scenario has: {', '.join(map(str, names)) or 'none'}")
    if not time_scales_s:
        raise ValueError(
            f"{source}: the span fits fewer than 8 windows of every time scale measured: no index of dispersion to "
            "put into a demand point"
        )
    index_of = names.index(point)
    at = f"demand[{index_of}]"
    dispersion = {
        "time_scales_s": [float(w) for w in time_scales_s],
        "index": [float(f"{i:.4g}") for i in index],
        "source": source,
    }
    out = set_at(set_at(scenario, f"{at}.arrival_scv", None), f"{at}.arrival_dispersion", dispersion)
    keys = [f"{at}.arrival_dispersion"]
    if not keep_rate:
        out = set_at(out, f"{at}.arrival_rps", float(f"{arrival_rps:.6g}"))
        keys.append(f"{at}.arrival_rps")
        if hour_ratios:
            windows = {
                "window_s": float(hour_window_s),
                "rate_ratios": [float(f"{r:.4g}") for r in hour_ratios],
                "source": source,
            }
            out = set_at(set_at(out, f"{at}.rate_swing", None), f"{at}.sub_hour", windows)
            keys.append(f"{at}.sub_hour")
    removed = (f"{at}.arrival_scv", f"{at}.rate_swing") if f"{at}.sub_hour" in keys else (f"{at}.arrival_scv",)
    figures = {
        k: v for k, v in (out.get("figures") or {}).items() if not any(k == r or k.startswith(r + ".") for r in removed)
    }
    for key in keys:
        figures[key] = {"provenance": "independent", "source": f"measured by rackcost trace from {source}"}
    out["figures"] = figures
    return out
