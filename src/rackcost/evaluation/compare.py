"""Claim vs decision, and comparability warnings (docs/model.md, steps 9 and 10).

For each system against the baseline the comparison puts the vendor's headline ratio (peak tokens/s per kW on
the benchmark's own power basis) beside the modelled ratios: tokens per facility kWh at the SLO operating point,
and cost per accepted request at each demand point and blended over the day. ``advantage_ratio`` reads the same
way on every row: how many times better the system is than the baseline (more tokens, or lower cost).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackcost.evaluation.columns import column_names, in_order

if TYPE_CHECKING:
    from rackcost.scenario.schema import Scenario, System

__all__ = ["comparability_warnings", "comparison_rows", "headline_sentences"]

COMPARISON_NAMES = column_names("comparison")


def comparison_rows(
    scenario: Scenario, systems: list[dict[str, Any]], points: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Claim-vs-decision table: one row per (system, metric) for every system other than the baseline.

    Parameters
    ----------
    scenario
        The scenario (for the baseline and the demand points).
    systems, points
        Rows of the ``systems`` and ``points`` tables.

    Returns
    -------
    list of dict
        Rows with the ``comparison`` columns of :mod:`rackcost.evaluation.columns`. ``kind`` is ``claim`` for the
        headline row when both systems state a vendor claim, ``derived`` when a headline had to be derived from a
        curve, and ``modelled`` for the model's own ratios.
    """
    base = scenario.baseline_name
    by_name = {row["system"]: row for row in systems}
    cost = {(p["system"], p["demand_point"]): p["usd_per_accepted_request"] for p in points}
    rows = []
    b = by_name[base]
    for name in by_name:
        if name == base:
            continue
        s = by_name[name]
        hardware_pair = "api" not in (s["payment"], b["payment"])
        basis = s["headline_power_basis"]
        if basis != b["headline_power_basis"]:
            basis = f"{basis} vs {b['headline_power_basis']}"
        # an API system has no power figure: it is compared on cost alone
        if hardware_pair:
            rows.append(
                _row(
                    name,
                    base,
                    f"headline peak tokens/s per kW ({basis})",
                    "tokens/s/kW",
                    s["headline_tokens_per_s_per_kw"],
                    b["headline_tokens_per_s_per_kw"],
                    True,
                    "claim" if s["headline_is_vendor_claim"] and b["headline_is_vendor_claim"] else "derived",
                )
            )
            rows.append(
                _row(
                    name,
                    base,
                    "tokens per facility kWh at the SLO operating point",
                    "tokens/kWh",
                    s["slo_point_total_tokens_per_facility_kwh"],
                    b["slo_point_total_tokens_per_facility_kwh"],
                    True,
                    "modelled",
                )
            )
        for d in scenario.demand:
            sv, bv = cost[name, d.name], cost[base, d.name]
            rows.append(
                _row(
                    name,
                    base,
                    f"cost per accepted request at {d.name}",
                    "USD/request",
                    sv,
                    bv,
                    False,
                    "modelled",
                )
            )
        rows.append(
            _row(
                name,
                base,
                "blended cost per accepted request over the day",
                "USD/request",
                s["blended_usd_per_accepted_request"],
                b["blended_usd_per_accepted_request"],
                False,
                "modelled",
            )
        )
    return rows


def _row(
    system: str,
    base: str,
    metric: str,
    unit: str,
    sv: float | None,
    bv: float | None,
    higher_is_better: bool,
    kind: str,
) -> dict[str, object]:
    """One comparison row; a value that is undefined (None: a cost per accepted request where nothing was
    accepted) leaves the ratio undefined too."""
    sv, bv = (None if x is None else float(x) for x in (sv, bv))
    ratio = None
    if sv is not None and bv is not None:
        ratio = sv / bv if higher_is_better else bv / sv
    row = {
        "system": system,
        "baseline": base,
        "metric": metric,
        "unit": unit,
        "system_value": sv,
        "baseline_value": bv,
        "advantage_ratio": ratio,
        "kind": kind,
    }
    return in_order(row, COMPARISON_NAMES)


def _conditions(scenario: Scenario, system: System) -> dict[str, str]:
    """What a system's figures were measured on, defaulting to the scenario's workload."""
    # a disaggregated system's pools carry what their curves were measured on, as a performance block does
    w, p = scenario.workload, system.pools if system.pools is not None else system.hardware_blocks()[0]
    isl = p.benchmark_input_tokens or w.input_tokens_per_request
    osl = p.benchmark_output_tokens or w.output_tokens_per_request
    return {
        "model": p.benchmark_model or w.model,
        "model revision": p.benchmark_revision or w.revision or "unstated",
        "precision": (p.benchmark_precision or w.precision).lower(),
        "ISL/OSL": f"{isl:g}/{osl:g}",
        "framework": p.framework or "unstated",
        "speculative decoding": p.speculative_decoding or "unstated",
        "provenance class": system.provenance.provenance_class.value,
    }


def comparability_warnings(scenario: Scenario) -> list[str]:
    """Differences that make two systems' results not like for like, said next to the result.

    Each system is compared with the baseline on model, revision, precision, ISL/OSL, framework, speculative
    decoding, provenance class and the claim's power basis; each curve is compared with the scenario's workload;
    gains that depend on proprietary software are named.
    """
    w = scenario.workload
    base = next(s for s in scenario.systems if s.name == scenario.baseline_name)
    base_cond = None if base.api is not None else _conditions(scenario, base)
    workload_isl_osl = f"{w.input_tokens_per_request:g}/{w.output_tokens_per_request:g}"
    out = []
    for system in scenario.systems:
        if system.api is not None:  # no curve: nothing measured to compare
            continue
        out.extend(_power_above_rated(system))
        cond = _conditions(scenario, system)
        if cond["ISL/OSL"] != workload_isl_osl and w.classes is not None:
            out.append(
                f"{system.name}: curve measured at ISL/OSL {cond['ISL/OSL']}, the request classes' mean is "
                f"{workload_isl_osl}; each class's TTFT and service time are scaled from that measurement "
                "(docs/model.md, Request classes)"
            )
        elif cond["ISL/OSL"] != workload_isl_osl:
            out.append(
                f"{system.name}: curve measured at ISL/OSL {cond['ISL/OSL']}, the workload is "
                f"{workload_isl_osl}; its request rates are taken as they were measured"
            )
        if cond["model"] != w.model:
            out.append(f"{system.name}: curve measured on model {cond['model']}, the workload is {w.model}")
        if system.provenance.proprietary_software:
            out.append(
                f"{system.name}: its results depend on proprietary software; buying the hardware alone "
                "may not reproduce them"
            )
        if system.name == base.name or base_cond is None:
            continue
        for key, value in cond.items():
            if value != base_cond[key] and "unstated" not in (value, base_cond[key]):
                out.append(f"{system.name} vs {base.name}: different {key} ({value} vs {base_cond[key]})")
        if (system.pools is None) != (base.pools is None):
            split, whole = (system, base) if system.pools is not None else (base, system)
            out.append(
                f"{system.name} vs {base.name}: {split.name} serves disaggregated (a prefill and a decode pool, each "
                f"sized for its part of the SLO), {whole.name} aggregated: the comparison is of the two ways to "
                "serve the model (the pools table has each pool's share)"
            )
            continue
        if system.pools is not None or base.pools is not None:  # two disaggregated systems: no claims to compare
            continue
        sc, bc = system.hardware_blocks()[0].claim, base.hardware_blocks()[0].claim
        if sc is not None and bc is not None and sc.power_basis != bc.power_basis:
            out.append(
                f"{system.name} vs {base.name}: headline claims use different power bases "
                f"({sc.power_basis} vs {bc.power_basis})"
            )
    return out


def _power_above_rated(system: System) -> list[str]:
    """A warning per operating point whose measured board power exceeds the accelerator's rated power.

    A measured mean above the nameplate is a unit or a per-node/per-GPU mix-up far more often than a real
    reading; the model takes it as given, so the reader is told (naming both figures).
    """
    # each curve's (concurrency, measured power) per point, against its hardware's rating
    curves: list[tuple[str, list[tuple[float | None, float | None]], float, str]] = []
    if system.pools is not None:  # each pool's points against its own hardware's rating
        for role, pool in (("prefill", system.pools.prefill), ("decode", system.pools.decode)):
            hw = pool.hardware if pool is not None and pool.hardware is not None else system.hardware
            if pool is not None and hw is not None:
                own = "" if pool.hardware is None else f"pools.{role}."
                powers: list[tuple[float | None, float | None]] = [
                    (p.concurrency, p.power_w_per_accelerator) for p in pool.points
                ]
                curves.append((f"pools.{role}.", powers, hw.accelerator_rated_w, own))
    else:
        perf, hw = system.hardware_blocks()
        measured: list[tuple[float | None, float | None]] = [
            (p.concurrency, p.power_w_per_accelerator) for p in perf.points
        ]
        curves.append(("performance.", measured, hw.accelerator_rated_w, ""))
    out = []
    for at_points, points, rated, at_hw in curves:
        for i, (c, w) in enumerate(points):
            if w is not None and w > rated:
                at = f"concurrency {c:g}" if c is not None else f"points[{i}]"
                out.append(
                    f"{system.name}: measured power {w:g} W per accelerator at {at} "
                    f"({at_points}points[{i}].power_w_per_accelerator) is above the accelerator's rated power "
                    f"{rated:g} W ({at_hw}hardware.accelerator_rated_w); check the file's units and GPU count, or the "
                    "rating"
                )
    return out


def headline_sentences(comparison: list[dict]) -> list[str]:
    """One sentence per system that a buyer reads in ten seconds: the headline ratio and what survives of it.

    Parameters
    ----------
    comparison
        Rows of the comparison table (``Result.records["comparison"]``).
    """
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for r in comparison:
        by_pair.setdefault((r["system"], r["baseline"]), []).append(r)
    out = []
    prefix = "cost per accepted request at "
    for (system, baseline), rows in by_pair.items():
        headline = next((r for r in rows if r["kind"] in ("claim", "derived")), None)
        parts = [
            f"{_ratio_words(r['advantage_ratio'])} at {r['metric'].removeprefix(prefix)}"
            for r in rows
            if r["metric"].startswith(prefix)
        ]
        blended = _ratio_words(next(r for r in rows if r["metric"].startswith("blended"))["advantage_ratio"])
        words = {r_words for r_words, _, _ in (part.partition(" at ") for part in parts)}
        if words == {blended}:  # the same at every point: said once, not once per point
            ratios = f"{blended} at every demand point and blended over the day"
        else:
            ratios = f"{', '.join(parts)} and {blended} blended over the day"
        if headline is None:  # an API on either side: no tokens per kW to start from
            out.append(f"{system} vs {baseline}: {ratios}, in cost per accepted request.")
            continue
        out.append(
            f"{system} vs {baseline}: {headline['advantage_ratio']:.2f}x the headline tokens per kW at peak becomes "
            f"{ratios}, in cost per accepted request."
        )
    return out


def _ratio_words(advantage: float | None) -> str:
    if advantage is None:  # a side that accepts nothing: its cost per accepted request is undefined
        return "undefined (no request accepted)"
    if advantage >= 1:
        return f"{advantage:.2f}x lower"
    return f"{1 / advantage:.2f}x higher"
