"""InferenceX result files -> operating-point curves with provenance.

InferenceX (SemiAnalysis's open inference benchmark) writes six shapes of result file, told apart here by
content, never by file name:

- **stage A**, the raw benchmark client output: one JSON object with ``max_concurrency``,
  ``total_token_throughput`` (the whole deployment's tokens/s) and latencies ``{pct}_{ttft,tpot}_ms`` in **ms**;
- **stage B**, the per-point aggregate: one JSON object with ``hw``, ``conc``, ``tput_per_gpu`` (tokens/s **per
  GPU**), latencies ``{pct}_ttft`` in **seconds** and interactivity ``{pct}_intvty`` (output tokens/s per user);
- **stage C**, a JSON array of stage-B rows;
- **stage D**, one point with nested blocks (the B200 baseline runs): configuration at the top (``hw``, ``conc``,
  ``tp``...), the deployment's throughput and ``{median,p99}_{ttft,tpot}_ms`` under ``metrics``, and **measured**
  mean and peak board power per GPU under ``gpu``; read as ``metrics.NAME`` and ``gpu.NAME``;
- **stage E**, a raw client file whose latencies are in **seconds** without a unit suffix (``p99_ttft``) and which
  gives input and output throughput but no total (the token-position experiments);
- **stage F**, a JSON array of agentic aggregates with **mean/p75/p90/p95** statistics only (no median, no p99),
  ``offloading`` and ``scenario_type``: read only at a percentile the user names to stand in for the SLO's
  (``p95``, ``p90``, ``p75``), which the provenance and a warning say; never p95 silently as p99.

Each record is first renamed to our names through :data:`rackcost.importers.mapping.FIELD_MAP` (its ``stage_b`` or
``stage_a`` column; what a file name says through ``stage_b``), and only our names are read. Replica throughput =
per-GPU throughput x GPUs per replica (tp x pp; prefill + decode GPUs for disaggregated multi-node runs); stage A is
deployment-wide already. TTFT and TPOT are read at one percentile (``p99`` by default, or ``median``), TPOT = 1000 /
interactivity. Measured GPU power (``avg_power_w``) is kept as ``power_w_per_accelerator``: GPU **board** power,
never wall power. ISL/OSL come from the file, else from the file name (``1k1k`` = 1024/1024), else from the caller;
a row with none of these is skipped, never guessed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rackcost.files import InputFileError, read_regular_file
from rackcost.importers.curve_building import build_curves
from rackcost.importers.curves import (
    CurveKey,
    ImportedCurve,
    ImportResult,
    MeasuredLengths,
    Row,
    RunSignature,
    Skipped,
    names_from_file_name,
    parse_only,
    stand_in_warning,
)
from rackcost.importers.inferencex_points import (
    agentic_lengths,
    disaggregated_roles,
    expert_parallel,
    flatten,
    gpus_d,
    measured_lengths,
    power_into,
    power_over_serving,
    total_throughput,
)
from rackcost.importers.inferencex_stages import EXPECTED_SCHEMAS, describe_found, detect_stage, is_stage_b
from rackcost.importers.mapping import (
    ALL_PERCENTILES,
    FIELD_MAP,
    STAND_IN_PERCENTILES,
    Record,
    SkipError,
    number,
    rename_fields,
    seconds_to_ms,
    tpot_ms_from_interactivity,
    whole_number,
)

__all__ = ["MAX_FILE_BYTES", "detect_stage", "read_inferencex", "read_inferencex_paths"]

MAX_FILE_BYTES = 50_000_000
"""Files larger than this are skipped (the largest real result arrays are well under 1 MB) [bytes]."""

BYTES_PER_MB = 1_000_000
"""Bytes in a megabyte, for messages about file size (decimal, as file managers show it)."""

ISO_SECONDS_CHARS = len("YYYY-MM-DDTHH:MM:SS")
"""An ISO 8601 date-time is cut to whole seconds (InferenceX writes fractions no reader needs)."""

# Stage B/C is derived from stage A by exact arithmetic (division by the GPU count, ms -> s); a raw file and its
# aggregate agree to the last few bits, so 1e-9 relative tells "the same run" from any other run.
_SAME_RUN_RTOL = 1e-9


@dataclass(frozen=True)
class _Options:
    percentile: str
    isl: int | None
    osl: int | None
    gpus_per_replica: int | None


def _parse(name: str, data: bytes) -> Any:
    if len(data) > MAX_FILE_BYTES:
        raise SkipError("", f"larger than {MAX_FILE_BYTES // BYTES_PER_MB} MB; not an InferenceX result file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SkipError("", "not UTF-8 text; expected an InferenceX JSON result file") from None
    if not text.strip():
        raise SkipError("", "empty file; expected an InferenceX JSON result file")
    try:
        return json.loads(text)
    except RecursionError:
        raise SkipError("", "nested too deeply to be an InferenceX result file") from None
    except json.JSONDecodeError as exc:
        truncated = _unclosed(text)
        hint = " (the file ends early: truncated?)" if truncated else ""
        raise SkipError("", f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}") from None


def _unclosed(text: str) -> bool:
    """Whether JSON text ends inside a string, an object or an array (a truncated file)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return in_string or depth > 0


def _text(d: Record, ours: str) -> str | None:
    """A field as text (JSON ``true`` as ``true``), or ``None`` when missing or empty."""
    value = d.get(ours)
    if value is None or value == "":
        return None
    return str(value).lower() if isinstance(value, bool) else str(value)


def _iso_date(value: object) -> str | None:
    """``20260527-075026`` or ``2025-10-15T08:30:27.55`` -> ``2026-05-27T07:50:26`` / ``2025-10-15T08:30:27``."""
    if value is None:
        return None
    text = str(value)
    if m := re.fullmatch(r"(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})", text):
        y, mo, d, h, mi, s = m.groups()
        return f"{y}-{mo}-{d}T{h}:{mi}:{s}"
    return text[:ISO_SECONDS_CHARS] if re.match(r"\d{4}-\d{2}-\d{2}", text) else text


def _isl_osl(d: Record, name_sources: list[tuple[str, dict[str, Any]]], opts: _Options):
    """ISL, OSL and where they came from: the file, a file name, or the caller's options; else SkipError.

    ``name_sources`` are ``(label, names_from_file_name(...))`` pairs, in order of preference.
    """
    in_file = d.maps("benchmark_input_tokens")  # stage E names the lengths only in its file name
    isl_name = d.source_name("benchmark_input_tokens") if in_file else FIELD_MAP["benchmark_input_tokens"].stage_b
    osl_name = d.source_name("benchmark_output_tokens") if in_file else FIELD_MAP["benchmark_output_tokens"].stage_b
    if in_file and ("benchmark_input_tokens" in d or "benchmark_output_tokens" in d):
        isl, osl = whole_number(d, "benchmark_input_tokens"), whole_number(d, "benchmark_output_tokens")
        if isl is None or osl is None:
            raise SkipError(isl_name if isl is None else osl_name, "missing while the other one is given")
        return isl, osl, f"file ({isl_name}, {osl_name})"
    for label, raw in name_sources:
        names = rename_fields(raw, "stage_b")
        if "benchmark_input_tokens" in names:
            token = raw["isl_osl_token"]
            return names["benchmark_input_tokens"], names["benchmark_output_tokens"], f"{label} ({token})"
    if opts.isl is not None and opts.osl is not None:
        return opts.isl, opts.osl, "option --isl/--osl"
    raise SkipError(
        f"{isl_name}/{osl_name}",
        "not in the file and not in its file name (like 1k1k or 8k1k); give the ISL and OSL as options "
        "(--isl/--osl on the command line; rackcost never guesses the lengths a curve was measured at)",
    )


def _check_gpus(gpus: int, source: str, opts: _Options, field_name: str) -> None:
    """SkipError naming ``field_name`` when the file's GPU count contradicts ``--gpus-per-replica``."""
    if opts.gpus_per_replica is not None and opts.gpus_per_replica != gpus:
        raise SkipError(
            field_name,
            f"the file gives {gpus} GPUs per replica ({source}) but --gpus-per-replica says {opts.gpus_per_replica}",
        )


def _latency_b(d: Record, interactivity: bool = True) -> tuple[float, float]:
    """TTFT [ms] and TPOT [ms] of a renamed stage-B row (at the percentile it was renamed at).

    Stage B gives TTFT and TPOT in s (renamed, not yet converted) and interactivity, which is preferred for TPOT.
    Stage F's ``{pct}_intvty`` is a percentile of the interactivity distribution (its p95 is the fast tail), not
    one over the ``{pct}`` TPOT, so there (``interactivity=False``) TPOT is read as it is given.
    """
    ttft_ms = seconds_to_ms(number(d, "ttft_ms"))
    intvty = number(d, "interactivity_tokens_per_s", required=False) if interactivity else None
    if intvty is not None:
        return ttft_ms, tpot_ms_from_interactivity(intvty)
    tpot_s = number(d, "tpot_ms", required=False)
    if tpot_s is None:
        raise SkipError(
            d.source_name("interactivity_tokens_per_s"),
            f"missing (and no {d.source_name('tpot_ms')}): no time per output token",
        )
    return ttft_ms, seconds_to_ms(tpot_s)


def _row_b(file: str, idx: int | None, raw: Mapping[str, Any], stage: str, opts: _Options, notes: list[str]) -> Row:
    """One operating point of a stage-B record (or a stage-C or F row), renamed through the ``stage_b`` column: its
    latencies, what the file names say, the run's conditions, a replica's GPUs, the lengths and the point, read in
    that order (the first problem skips the row)."""
    d = rename_fields(raw, "stage_b", opts.percentile)
    agentic = stage == "F"
    concurrency = number(d, "concurrency")
    per_gpu = number(d, "throughput_tokens_per_s")  # per GPU in stage B: times GPUs per replica below
    ttft_ms, tpot_ms = _latency_b(d, interactivity=not agentic)
    source_file = _text(d, "source_file")
    name_sources = []
    if source_file:
        name_sources.append(("source_file name", names_from_file_name(source_file)))
    name_sources.append(("file name", names_from_file_name(file)))
    # what the file names say, the source_file's over the file's, renamed like a stage-B record
    named = rename_fields({k: v for _, names in reversed(name_sources) for k, v in names.items()}, "stage_b")
    extra: list[str] = []
    said = _from_names(d, named, extra)
    tp, ep = whole_number(d, "tensor_parallel"), expert_parallel(d, extra)
    replica = _replica_b(d, named, tp, opts)
    if ep is None and "expert_parallel" in named:
        ep = named["expert_parallel"]
    measured = agentic_lengths(d, per_gpu * replica.gpus) if agentic else None
    isl, osl, isl_source = _lengths_b(d, name_sources, opts, measured)
    if agentic and (scenario_type := _text(d, "scenario_type")):
        extra.append(f"{d.source_name('scenario_type')}: {scenario_type} (a multi-turn workload, not fixed ISL/OSL).")
    point = {
        "concurrency": concurrency,
        "throughput_tokens_per_s": per_gpu * replica.gpus,
        "tpot_ms": tpot_ms,
        "ttft_ms": ttft_ms,
    }
    out_per_gpu = number(d, "output_throughput_tokens_per_s", required=False)
    if out_per_gpu is not None:  # InferenceX divides the output by the decode GPUs of a disaggregated run
        decode_or_all = replica.decode_gpus if replica.decode_gpus is not None else replica.gpus
        point["output_throughput_tokens_per_s"] = out_per_gpu * decode_or_all
    power_into(d, point, f"{file}[row {idx}]" if idx is not None else file, notes)
    precision, roles = said["benchmark_precision"], replica.roles
    key = CurveKey(
        hardware=_text(d, "hardware"),
        model=_text(d, "benchmark_model"),
        precision=precision.lower() if precision else None,
        framework=said["framework"],
        tensor_parallel=replica.tp,
        expert_parallel=ep,
        dp_attention=said["dp_attention"],
        disaggregated=said["disaggregated"],
        gpus_per_replica=replica.gpus,
        input_tokens=isl,
        output_tokens=osl,
        speculative_decoding=said["speculative_decoding"],
        offloading=_text(d, "offloading"),
        decode_gpus_per_replica=replica.decode_gpus,
        prefill_workers=None if roles is None else roles[0],
        prefill_gpus_per_replica=None if roles is None else roles[1],
        decode_workers=None if roles is None else roles[2],
    )
    return Row(
        file=file,
        row=idx,
        stage=stage,
        key=key,
        point=point,
        isl_osl_source=isl_source,
        gpus_source=replica.gpus_source,
        date=_iso_date(d.get("date")),
        image=_text(d, "image"),
        source_file=source_file,
        extra_notes=extra,
        match=RunSignature(key.model, concurrency, per_gpu, ttft_ms),
        measured=measured,
    )


_FROM_NAMES = (
    ("benchmark_precision", "precision"),
    ("framework", "framework"),
    ("speculative_decoding", "speculative decoding"),
    ("dp_attention", "dp_attention"),
    ("disaggregated", "disaggregated"),
)
"""The run's conditions a stage-B record may leave to its file name: our field, and its word in the notes."""


def _from_names(d: Record, named: Mapping[str, Any], extra: list[str]) -> dict[str, str | None]:
    """The conditions of :data:`_FROM_NAMES` as the record gives them, else as the file names do (a note in
    ``extra`` for each so taken)."""
    said: dict[str, str | None] = {}
    for ours, word in _FROM_NAMES:
        value = _text(d, ours)
        if value is None and ours in named:
            value = str(named[ours])
            extra.append(f"{word} {value} from the file name.")
        said[ours] = value
    return said


@dataclass(frozen=True)
class _ReplicaB:
    """A stage-B run's replica: its tensor parallelism, GPUs and where that count comes from, and a disaggregated
    run's decode GPUs and roles (prefill workers and GPUs, decode workers and GPUs)."""

    tp: int | None
    gpus: int
    gpus_source: str
    decode_gpus: int | None = None
    roles: tuple[int, int, int, int] | None = None


def _replica_b(d: Record, named: Mapping[str, Any], tp: int | None, opts: _Options) -> _ReplicaB:
    """GPUs per replica: a disaggregated run's prefill plus decode GPUs, else tp x pp (x pcp), else the file name's
    tp, else the option; none of these skips the row."""
    tp_name = d.source_name("tensor_parallel")
    pp = whole_number(d, "pipeline_parallel")
    if "prefill_gpus" in d and "decode_gpus" in d:
        prefill, decode = whole_number(d, "prefill_gpus"), whole_number(d, "decode_gpus")
        if prefill is None or decode is None:  # given as null or empty: a Skipped entry, not a TypeError
            missing = "prefill_gpus" if prefill is None else "decode_gpus"
            raise SkipError(
                d.source_name(missing), "missing while the other GPU count of the disaggregated run is given"
            )
        gpus, gpus_source = prefill + decode, f"file: {prefill} prefill + {decode} decode GPUs"
        replica = _ReplicaB(tp, gpus, gpus_source, decode, disaggregated_roles(d, prefill, decode))
    elif tp is not None:
        gpus = tp * (pp or 1)
        gpus_source = f"file: tp {tp} x pp {pp or 1}"
        if (pcp := whole_number(d, "prefill_context_parallel")) is not None:
            gpus *= pcp
            gpus_source += f" x pcp {pcp}"
        replica = _ReplicaB(tp, gpus, gpus_source)
    elif "tensor_parallel" in named:
        tp = named["tensor_parallel"]
        replica = _ReplicaB(tp, named["tensor_parallel"], f"file name: tp{tp}")
    elif opts.gpus_per_replica is not None:
        replica = _ReplicaB(tp, opts.gpus_per_replica, "option --gpus-per-replica")
    else:
        raise SkipError(
            tp_name,
            "missing: GPUs per replica (tp x pp) turns tput_per_gpu into replica throughput; give --gpus-per-replica",
        )
    _check_gpus(replica.gpus, replica.gpus_source, opts, tp_name)
    return replica


def _lengths_b(
    d: Record, name_sources: list[tuple[str, dict[str, Any]]], opts: _Options, measured: MeasuredLengths | None
) -> tuple[int | None, int | None, str]:
    """The nominal ISL/OSL and where they come from; a stage-F row with measured means needs none."""
    try:
        return _isl_osl(d, name_sources, opts)
    except SkipError:
        if measured is None:
            raise
        return None, None, "the measured means (stage F: an agentic workload has no nominal ISL/OSL)"


def _row_d(file: str, raw: Mapping[str, Any], opts: _Options, notes: list[str]) -> Row:
    """The one operating point of a stage-D file (nested ``metrics``/``gpu``), through the ``stage_d`` column."""
    d = rename_fields(flatten(raw), "stage_d", opts.percentile)
    extra: list[str] = []
    concurrency = number(d, "concurrency")
    total = number(d, "throughput_tokens_per_s")  # the deployment's, like stage A
    ttft_ms, tpot_ms = number(d, "ttft_ms"), number(d, "tpot_ms")
    tp, ep = whole_number(d, "tensor_parallel"), expert_parallel(d, extra)
    host_gpus = whole_number(d, "accelerators_per_replica")
    gpus, gpus_source = gpus_d(d, tp, host_gpus, opts.gpus_per_replica)
    _check_gpus(gpus, gpus_source, opts, d.source_name("accelerators_per_replica"))
    isl, osl, isl_source = _isl_osl(d, [("file name", names_from_file_name(file))], opts)
    point = {"concurrency": concurrency, "throughput_tokens_per_s": total, "tpot_ms": tpot_ms, "ttft_ms": ttft_ms}
    out = number(d, "output_throughput_tokens_per_s", required=False)
    if out is not None:
        point["output_throughput_tokens_per_s"] = out
    power_into(d, point, file, notes)
    if host_gpus is not None and host_gpus != gpus:
        power_over_serving(d, point, host_gpus, gpus, extra)
    measured = measured_lengths(d, total, d.source_name("throughput_tokens_per_s"), extra)
    precision = _text(d, "benchmark_precision")
    key = CurveKey(
        hardware=_text(d, "hardware"),
        model=_text(d, "benchmark_model"),
        precision=precision.lower() if precision else None,
        framework=_text(d, "framework"),
        tensor_parallel=tp,
        expert_parallel=ep,
        gpus_per_replica=gpus,
        input_tokens=isl,
        output_tokens=osl,
    )
    return Row(
        file=file,
        row=None,
        stage="D",
        key=key,
        point=point,
        isl_osl_source=isl_source,
        gpus_source=gpus_source,
        date=_iso_date(d.get("date")),
        image=_text(d, "image"),
        extra_notes=extra,
        match=RunSignature(key.model, concurrency, total / gpus, ttft_ms),
        measured=measured,
    )


def _row_a(file: str, raw: Mapping[str, Any], opts: _Options, stage: str = "A") -> Row:
    """The one operating point of a stage-A file (or stage E: seconds, no total), through its map column."""
    raw_seconds = stage == "E"
    d = rename_fields(raw, "stage_e" if raw_seconds else "stage_a", opts.percentile)
    completed = number(d, "requests_completed", positive=False, required=False)
    if completed is not None and completed <= 0:
        raise SkipError(
            d.source_name("requests_completed"), f"{completed:g} requests completed: the run measured nothing"
        )
    concurrency = number(d, "concurrency")
    total, total_name = total_throughput(d)
    if raw_seconds:  # latencies in s
        ttft_ms, tpot_ms = seconds_to_ms(number(d, "ttft_ms")), seconds_to_ms(number(d, "tpot_ms"))
    else:
        ttft_ms = number(d, "ttft_ms")
        tpot_ms = number(d, "tpot_ms")
    from_file_name = names_from_file_name(file)
    names = rename_fields(from_file_name, "stage_b")  # a file name speaks stage B's names
    extra = []
    framework = names.get("framework")
    if framework is None and d.maps("framework") and (backend := _text(d, "framework")):
        framework = backend
        extra.append(f"framework {backend} from the client's {d.source_name('framework')} field.")
    tp_name = names.source_name("tensor_parallel")
    if "tensor_parallel" in names:
        tp = names["tensor_parallel"]
        gpus, gpus_source = tp, f"file name: tp{tp} (stage A: deployment-wide throughput)"
    elif opts.gpus_per_replica is not None:
        gpus, gpus_source = opts.gpus_per_replica, "option --gpus-per-replica (stage A: deployment-wide)"
    else:
        raise SkipError(
            tp_name,
            "stage A has no GPU count and the file name has no tpN: give --gpus-per-replica "
            "(GPUs of the deployment the throughput was measured on)",
        )
    _check_gpus(gpus, gpus_source, opts, tp_name)
    isl, osl, isl_source = _isl_osl(d, [("file name", from_file_name)], opts)
    runner = re.search(r"conc\d+_(.+?)(?:\.json)?$", file.rsplit("/", 1)[-1])
    extra.append(
        f"Stage {stage} files do not name the hardware"
        + (f" (runner in the file name: {runner.group(1)})." if runner else ".")
    )
    measured = measured_lengths(d, total, total_name, extra)
    key = CurveKey(
        hardware=None,
        model=_text(d, "benchmark_model"),
        precision=names.get("benchmark_precision"),
        framework=framework,
        tensor_parallel=names.get("tensor_parallel"),
        expert_parallel=names.get("expert_parallel"),
        dp_attention=names.get("dp_attention"),
        disaggregated=names.get("disaggregated"),
        gpus_per_replica=gpus,
        input_tokens=isl,
        output_tokens=osl,
        speculative_decoding=names.get("speculative_decoding"),
    )
    point = {"concurrency": concurrency, "throughput_tokens_per_s": total, "tpot_ms": tpot_ms, "ttft_ms": ttft_ms}
    out = number(d, "output_throughput_tokens_per_s", required=False)
    if out is not None:
        point["output_throughput_tokens_per_s"] = out
    return Row(
        file=file,
        row=None,
        stage=stage,
        key=key,
        point=point,
        isl_osl_source=isl_source,
        gpus_source=gpus_source,
        date=_iso_date(d.get("date")),
        extra_notes=extra,
        match=RunSignature(key.model, concurrency, total / gpus, ttft_ms),
        measured=measured,
    )


def _same_run(a: RunSignature | None, b: RunSignature | None) -> bool:
    """Whether two rows are one run: equal model and concurrency, throughput and TTFT equal to rounding.

    Every InferenceX row has a signature; a row without one (a CSV row) is no run's twin.
    """
    return (
        a is not None
        and b is not None
        and a.model == b.model
        and a.concurrency == b.concurrency
        and math.isclose(a.throughput_tokens_per_s_per_gpu, b.throughput_tokens_per_s_per_gpu, rel_tol=_SAME_RUN_RTOL)
        and math.isclose(a.ttft_ms, b.ttft_ms, rel_tol=_SAME_RUN_RTOL)
    )


def read_inferencex(
    files: Sequence[tuple[str, bytes]],
    *,
    percentile: str = "p99",
    isl: int | None = None,
    osl: int | None = None,
    gpus_per_replica: int | None = None,
    provenance_class: str = "independent",
    only: Mapping[str, str] | Iterable[str] | None = None,
) -> ImportResult:
    """Read InferenceX result files (stage A, B or C, detected by content) into operating-point curves.

    Parameters
    ----------
    files
        ``(file name, content)`` pairs, e.g. uploaded files. The name is used for messages and for what file
        names say (ISL/OSL like ``8k1k``, ``tp8``); the content decides the stage.
    percentile
        ``p99`` (default) or ``median``: TTFT and TPOT are both read at it; TPOT = 1000 / interactivity [ms].
        ``p95``, ``p90`` or ``p75`` stand in for the SLO's percentile in files without p99 (stage F, the agentic
        aggregates, which are read only at one of these): said in every curve's provenance and in ``warnings``.
    isl, osl
        ISL and OSL for rows whose file and file name do not give them [tokens].
    gpus_per_replica
        GPUs of one replica (deployment) for files that do not give it (stage A without ``tpN`` in its name,
        stage B without ``tp``); a file that gives a different count is skipped, naming both [GPUs].
    provenance_class
        ``provenance.class`` of every curve; InferenceX is an independent benchmark, so ``independent`` by
        default (say ``vendor`` or ``collaborative`` for a run a vendor did or took part in).
    only
        Keep only curves whose key matches, e.g. ``{"tp": "8", "precision": "fp8"}`` or ``["tp=8"]``.

    Returns
    -------
    ImportResult
        Curves and skipped items; never raises for bad file content.

    Raises
    ------
    ValueError
        For bad arguments (an unknown percentile, ``isl`` without ``osl``, an unknown ``only`` key).
    """
    if percentile not in ALL_PERCENTILES:
        raise ValueError(f"percentile must be one of {', '.join(ALL_PERCENTILES)}, got {percentile!r}")
    if (isl is None) != (osl is None):
        raise ValueError("give both isl and osl, or neither")
    for name, value in (("isl", isl), ("osl", osl), ("gpus_per_replica", gpus_per_replica)):
        if value is not None and value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    only_keys = parse_only(only)
    opts = _Options(percentile, isl, osl, gpus_per_replica)
    result = ImportResult()
    rows: list[Row] = []
    for file, data in files:
        try:
            obj = _parse(file, data)
            stage = detect_stage(obj)
            if stage is None:
                raise SkipError(
                    "", f"not an InferenceX result: found {describe_found(obj)}; expected {EXPECTED_SCHEMAS}"
                )
            if stage == "F" and percentile not in STAND_IN_PERCENTILES:
                raise SkipError(
                    "",
                    "an agentic aggregate (stage F) with mean/p75/p90/p95 statistics only, no median and no p99: name "
                    "the percentile that stands in for the SLO's with --percentile p95 (or p90, p75); rackcost never "
                    f"reads p95 as {percentile}",
                )
        except SkipError as exc:
            result.skipped.append(Skipped(file, None, exc.field, exc.reason))
            continue
        entries: list[tuple[int | None, Any]]
        entries = list(enumerate(obj)) if isinstance(obj, list) else [(None, obj)]
        for idx, d in entries:
            try:
                if stage in ("A", "E"):
                    rows.append(_row_a(file, d, opts, stage))
                elif stage == "D":
                    rows.append(_row_d(file, d, opts, result.notes))
                elif not is_stage_b(d):
                    raise SkipError("", "row is not an InferenceX aggregate (no conc/hw/tput_per_gpu with *_ttft)")
                else:
                    rows.append(_row_b(file, idx, d, stage, opts, result.notes))
            except SkipError as exc:
                result.skipped.append(Skipped(file, idx, exc.field, exc.reason))
    rows = _drop_raw_twins(rows, result.skipped)
    result.curves, result.filtered = build_curves(
        rows,
        result.skipped,
        percentile=percentile,
        provenance_class=provenance_class,
        importer="inferencex",
        only=only_keys,
    )
    result.notes.extend(_lengths_summary(result.curves))
    if percentile in STAND_IN_PERCENTILES:
        result.warnings.extend(f"{c.label}: {stand_in_warning(percentile)}" for c in result.curves)
    return result


def _lengths_summary(curves: list[ImportedCurve]) -> list[str]:
    """Summary lines: which curves carry measured mean tokens per request, and that the others are nominal."""
    lines = []
    for c in curves:
        if c.token_lengths == "measured":
            p = c.performance
            lines.append(
                f"{c.label}: tokens per request are the measured means {p['benchmark_input_tokens']:.1f} input + "
                f"{p['benchmark_output_tokens']:.1f} output, "
                + (
                    f"not the nominal {c.key.input_tokens}/{c.key.output_tokens}"
                    if c.key.input_tokens is not None
                    else "the files give no nominal ISL/OSL"
                )
                + "; the request rate is the measured one."
            )
    nominal = [c for c in curves if c.token_lengths == "nominal"]
    if nominal:
        fields = ", ".join(
            FIELD_MAP[n].stage_a for n in ("requests_completed", "input_tokens_measured", "output_tokens_measured")
        )
        lines.append(
            f"ISL/OSL nominal for {len(nominal)} curve(s): the request rate is throughput / (ISL + OSL) as the run "
            f"was configured, since the files give no measured tokens per request (stage A's {fields} or "
            f"{FIELD_MAP['request_rate_measured'].stage_a}); the runs' real requests may be shorter."
        )
    return lines


def _drop_raw_twins(rows: list[Row], skipped: list[Skipped]) -> list[Row]:
    """A stage-A file whose stage-B aggregate is also given is the same point: keep the aggregate, say so."""
    aggregates = [r for r in rows if r.stage != "A"]
    out = []
    for r in rows:
        twin = next((b for b in aggregates if _same_run(r.match, b.match)), None) if r.stage == "A" else None
        if twin is None:
            out.append(r)
            continue
        where = Path(twin.file).name + (f"[row {twin.row}]" if twin.row is not None else "")
        if twin.measured is None and r.measured is not None:  # stage B has no counts: its raw twin's are the run's
            twin.measured = replace(r.measured, source=f"{r.measured.source} of {Path(r.file).name}")
        if twin.date is None and r.date is not None:  # stage B has no date: its raw twin's is the run's
            twin.date = r.date
        skipped.append(
            Skipped(
                r.file,
                None,
                "",
                f"same run as {where} (its stage-B aggregate: equal concurrency, throughput and TTFT); "
                "the aggregate is kept because it names the hardware and image",
            )
        )
    return out


def read_inferencex_paths(paths: Iterable[str | Path], **options: Any) -> ImportResult:
    """:func:`read_inferencex` on files on disk; a directory stands for its ``*.json`` files.

    Files that cannot be read are reported in ``skipped`` like any other bad input.
    """
    files: list[tuple[str, bytes]] = []
    unreadable: list[Skipped] = []
    for path in _expand(paths):
        try:  # a regular file only (never a FIFO or device), its size checked before the bounded read
            data = read_regular_file(path, MAX_FILE_BYTES, "InferenceX JSON result file")
        except InputFileError as exc:
            unreadable.append(Skipped(str(path), None, "", str(exc).removeprefix(f"{path}: ")))
            continue
        files.append((str(path), data))
    result = read_inferencex(files, **options)
    result.skipped[:0] = unreadable
    return result


def _expand(paths: Iterable[str | Path]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        out.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    return out
