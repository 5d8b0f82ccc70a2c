"""MLPerf results as YAML: each system's Offline, Server and Interactive results as operating points with their SLOs.

One entry per system and benchmark (round, submitter, platform, benchmark), with a scenario-ready ``provenance``
block (class ``vendor``: the submitter's own run), the accelerator, how many, the precision, and its operating points
in :data:`rackcost.importers.mlperf.MLPERF_SCENARIOS` order. Throughput is the whole system's OUTPUT tokens per
second (MLPerf's metric), latencies are the run's p99 (and p50) where its log was read, and power is the measured
wall power of the whole system (hosts included), not board power.
"""

from __future__ import annotations

from typing import Any

import yaml

from rackcost.importers.mlperf import MLPERF_SCENARIOS, SLO_PERCENTILE, MLPerfResult

__all__ = ["mlperf_entries", "mlperf_to_yaml", "operating_point"]

SIGNIFICANT_DIGITS = 6
"""Digits a written figure keeps."""


def _sig(x: float) -> float:
    return float(f"{x:.{SIGNIFICANT_DIGITS}g}")


def operating_point(result: MLPerfResult) -> dict[str, Any]:
    """One result as an operating point: its scenario, rate, latencies, SLO and power (what is known of it)."""
    point: dict[str, Any] = {"scenario": result.scenario, "throughput_tokens_per_s": _sig(result.tokens_per_s)}
    point["token_basis"] = "output"
    log = result.log
    if log is not None:
        point["request_rate_rps"] = _sig(log.request_rate_rps)
        for name in ("ttft_p99_ms", "tpot_p99_ms", "ttft_p50_ms", "tpot_p50_ms", "tpot_mean_ms"):
            value = getattr(log, name)
            if value is not None:
                point[name] = _sig(value)
        if (tokens := result.output_tokens_per_request) is not None:
            point["output_tokens_per_request"] = _sig(tokens)
        if (decoding := result.decoding_requests) is not None:
            point["decoding_requests"] = _sig(decoding)
    slo = result.slo
    if slo is not None:
        point["slo"] = {
            "ttft_limit_ms": _sig(slo.ttft_limit_ms),
            "tpot_limit_ms": _sig(slo.tpot_limit_ms),
            "percentile": SLO_PERCENTILE,
            "source": slo.source,
        }
    if result.power_w is not None:
        point["power_w_system"] = _sig(result.power_w)
        if (per := result.power_w_per_accelerator) is not None:
            point["power_w_per_accelerator_at_wall"] = _sig(per)
    if result.result_id:
        point["result_id"] = result.result_id
    return point


def mlperf_entries(results: list[MLPerfResult]) -> dict[str, dict[str, Any]]:
    """Results grouped by system and benchmark, each with its provenance and operating points (Offline first)."""
    groups: dict[tuple[str, str, str, str], list[MLPerfResult]] = {}
    for r in results:
        groups.setdefault(r.key, []).append(r)
    out: dict[str, dict[str, Any]] = {}
    for key, members in sorted(groups.items()):
        members.sort(key=lambda r: MLPERF_SCENARIOS.index(r.scenario))
        first = members[0]
        entry: dict[str, Any] = {
            "provenance": first.provenance(),
            "system": first.system or "unstated",
            "accelerator": first.accelerator or "unstated",
            "accelerators": first.accelerators,
            "precision": first.precision or "unstated",
            "benchmark": first.model,
            "operating_points": [operating_point(r) for r in members],
        }
        out[" ".join(key)] = entry
    return out


def mlperf_to_yaml(results: list[MLPerfResult], command: str = "rackcost import mlperf") -> str:
    """The YAML text ``rackcost import mlperf`` writes."""
    header = [
        f"# Written by `{command}`.",
        "# MLPerf Inference results (MLCommons), each the submitter's own run (provenance class vendor): one entry",
        "# per system and benchmark. throughput_tokens_per_s counts OUTPUT tokens of the whole system; latencies are",
        "# the run's percentiles (a Server or Interactive run's log); power_w_system is measured WALL power of the",
        "# whole system (hosts included), not board power. Offline has no latencies and no SLO.",
    ]
    body = yaml.safe_dump(mlperf_entries(results), sort_keys=False, allow_unicode=True, width=118)
    return "\n".join(header) + "\n" + body
