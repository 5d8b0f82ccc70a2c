"""MLPerf Inference results as curves for ``rackcost new``: a system's Server and Interactive runs, each an operating
point of the whole submitted system.

MLPerf's Server and Interactive scenarios are the highest Poisson rate whose p99 TTFT and p99 TPOT stay within the
benchmark's limits (MLCommons, *MLPerf Inference Rules*, LLM section): each run, with its
``mlperf_log_summary.txt``, gives a rate, its latencies at the percentile asked for, and, by Little's law on its mean
TPOT, the requests decoding at once (:attr:`rackcost.importers.mlperf.MLPerfResult.decoding_requests`): one
operating point. Offline runs report no latency and make no point. The submitted system is one replica (its
accelerators: nodes x accelerators per node), its throughput counts output tokens, and its mean output tokens per
request are the log's tokens/s over its requests/s; the input length is not in MLPerf's files and stays unstated
(the scenario's own is used). Each curve is named after the catalogue hardware its accelerator names
(:func:`hardware_key`), so it matches a ``rackcost new --system`` entry by itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rackcost.importers.curves import CurveKey, ImportedCurve, ImportResult, Skipped
from rackcost.importers.mlperf import (
    MLPerfImport,
    MLPerfResult,
    merge_logs,
    read_log_summary,
    read_summary_table,
)
from rackcost.scenario.catalog import catalog

__all__ = ["hardware_key", "mlperf_curve_files"]

_LATENCY = {"p99": ("ttft_p99_ms", "tpot_p99_ms"), "median": ("ttft_p50_ms", "tpot_p50_ms")}
"""The log's TTFT and TPOT at each percentile it reports."""


def hardware_key(accelerator: str | None) -> str | None:
    """The catalogue's hardware key an MLPerf accelerator name stands for: a word of the name that is an entry's
    InferenceX hardware key, else None.

    Examples
    --------
    >>> hardware_key("NVIDIA B200-SXM-180GB"), hardware_key("NVIDIA GB200"), hardware_key("AMD Instinct MI355X")
    ('b200', 'gb200', 'mi355x')
    >>> hardware_key("Some Accelerator") is None
    True
    """
    known = {key for entry in catalog().entries.values() for key in entry.inferencex_hardware}
    words = re.split(r"[^a-z0-9]+", (accelerator or "").lower())
    return next((w for w in words if w in known), None)


def _point(result: MLPerfResult, percentile: str) -> dict[str, float] | None:
    log = result.log
    ttft_name, tpot_name = _LATENCY.get(percentile, _LATENCY["p99"])
    if log is None or result.decoding_requests is None:
        return None
    ttft, tpot = getattr(log, ttft_name), getattr(log, tpot_name)
    if ttft is None or tpot is None:
        return None
    return {
        "concurrency": float(result.decoding_requests),
        "throughput_tokens_per_s": float(result.tokens_per_s),
        "tpot_ms": float(tpot),
        "ttft_ms": float(ttft),
    }


def _curve(results: list[MLPerfResult], percentile: str) -> ImportedCurve:
    first = results[0]
    points = sorted((p for r in results if (p := _point(r, percentile))), key=lambda p: p["concurrency"])
    output = [r.output_tokens_per_request for r in results if r.output_tokens_per_request]
    osl = round(sum(output) / len(output)) if output else None
    key = CurveKey(
        hardware=hardware_key(first.accelerator),
        model=first.model,
        precision=first.precision,
        framework=first.software,
        gpus_per_replica=first.accelerators,
        output_tokens=osl,
        token_basis="output",
    )
    performance: dict[str, object] = {"token_basis": "output", "throughput_per": "replica", "points": points}
    performance["benchmark_model"] = first.model
    if first.precision:
        performance["benchmark_precision"] = first.precision
    if osl is not None:
        performance["benchmark_output_tokens"] = osl
    return ImportedCurve(
        key=key,
        performance=performance,
        provenance=first.provenance(),
        percentile=percentile if percentile in _LATENCY else "p99",
        isl_osl_source="MLPerf log: output tokens per request = tokens/s over requests/s; input not stated",
        gpus_source="MLPerf: the submitted system (nodes x accelerators per node) as one replica",
        stages=["mlperf"],
        files=sorted({r.source_file for r in results}),
    )


def mlperf_curve_files(files: Sequence[tuple[str, bytes]], percentile: str = "p99") -> ImportResult:
    """MLPerf summary tables (``*.json``) and run logs (``*.txt``) given as bytes, read and paired, as one curve per
    system and benchmark with a point per Server or Interactive run that has its log.

    A result without a log (Offline, or a table row whose run folder was not given) is left out with why; a
    percentile the logs do not report (p95, p90, p75) reads p99, with a note.
    """
    read = MLPerfImport()
    table: list[MLPerfResult] = []
    logs: list[MLPerfResult] = []
    for name, data in files:
        if name.lower().endswith(".txt"):
            try:
                logs.append(read_log_summary(name, data))
            except ValueError as exc:
                read.skipped.append(Skipped(name, None, "", str(exc).removeprefix(f"{name}: ")))
            continue
        part = read_summary_table(name, data)
        table += part.results
        read.skipped += part.skipped
        read.notes += part.notes
    out = ImportResult(skipped=list(read.skipped), notes=list(read.notes))
    if percentile not in _LATENCY:
        out.notes.append(f"MLPerf logs report TTFT and TPOT at p99 and p50 only: read at p99, not {percentile}")
    groups: dict[tuple[str, str, str, str], list[MLPerfResult]] = {}
    for result in merge_logs(table, logs, read):
        groups.setdefault(result.key, []).append(result)
    out.skipped += [s for s in read.skipped if s not in out.skipped]
    for members in groups.values():
        curve = _curve(members, percentile)
        if curve.performance["points"]:
            out.curves.append(curve)
        else:
            label = f"{members[0].system or members[0].platform or '?'} {members[0].model}"
            out.skipped.append(
                Skipped(
                    ", ".join(sorted({m.source_file for m in members})),
                    None,
                    "",
                    f"{label}: no Server or Interactive run with its mlperf_log_summary.txt (its latencies); "
                    "Offline runs make no operating point",
                )
            )
    return out
