"""Measured power, expert parallelism, disaggregated roles, agentic and measured lengths and the total throughput of
one InferenceX record, shared by its stage readers.

Used by :mod:`rackcost.importers.inferencex`: each function reads a record already renamed through
:data:`rackcost.importers.mapping.FIELD_MAP`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rackcost.importers.curves import MeasuredLengths
from rackcost.importers.mapping import Record, SkipError, number, whole_number
from rackcost.units import W_PER_KW

__all__ = [
    "gpus_d",
    "power_over_serving",
    "RATE_CHECK_RTOL",
    "agentic_lengths",
    "disaggregated_roles",
    "expert_parallel",
    "flatten",
    "marked_invalid",
    "measured_lengths",
    "power_into",
    "total_throughput",
]

RATE_CHECK_RTOL = 1e-6
"""A measured request rate that differs from throughput / mean length by more than this is said in the notes: vLLM's
client computes both over one duration from the same completed requests, so they agree to rounding (1e-15); 1e-6
flags a file whose fields were edited or come from different windows without flagging float noise [-]."""
SHOWN_FLAG_CHARS = 24
"""A ``power_valid`` flag that is not a bool is quoted up to this many characters [-]."""


def marked_invalid(value: object) -> bool:
    """Whether a ``power_valid`` flag says the power is not valid: ``false``, ``0`` or the text ``false``/``0``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value == 0
    return isinstance(value, str) and value.strip().lower() in ("false", "0")


def expert_parallel(d: Record, notes: list[str]) -> int | None:
    """The expert-parallel size: ``0`` (written where there is no expert parallelism) is read as 1, and said."""
    x = number(d, "expert_parallel", positive=False, required=False)
    if x == 0:
        note = f"{d.source_name('expert_parallel')} 0 read as no expert parallelism (ep 1)."
        if note not in notes:
            notes.append(note)
        return 1
    return whole_number(d, "expert_parallel")


def power_into(d: Record, point: dict[str, float], where: str, notes: list[str]) -> None:
    """Measured mean and peak board power and energy per output token into ``point``, where the record gives them.

    A value marked invalid (``power_valid`` false or 0) or not a number is dropped and said in ``notes``; a peak
    below the mean is a :class:`SkipError` naming the peak's field (the point is not imported).
    """
    fields = [f for f in ("power_w_per_accelerator", "peak_power_w_per_accelerator") if d.maps(f)]
    given = [f for f in fields if d.get(f) is not None]
    if given and d.maps("power_valid") and marked_invalid(d.get("power_valid")):
        names = ", ".join(d.source_name(f) for f in given)
        flag = d["power_valid"]
        shown = str(flag).lower() if isinstance(flag, bool) else str(flag)[:SHOWN_FLAG_CHARS]
        notes.append(f"{where}: {names} ignored: the file marks it {d.source_name('power_valid')}: {shown}")
        return
    for f in given:
        try:
            point[f] = number(d, f)
        except SkipError as exc:
            notes.append(f"{where}: {d.source_name(f)} ignored: {exc.reason}")
    mean, peak = point.get("power_w_per_accelerator"), point.get("peak_power_w_per_accelerator")
    if mean is not None and peak is not None and peak < mean:
        raise SkipError(
            d.source_name("peak_power_w_per_accelerator"),
            f"{peak:g} W is below the mean {d.source_name('power_w_per_accelerator')} {mean:g} W: a peak cannot be "
            "below the mean (the point is not imported)",
        )
    if d.maps("energy_j_per_output_token") and d.get("energy_j_per_output_token") is not None:
        try:
            value = number(d, "energy_j_per_output_token")
        except SkipError as exc:
            notes.append(f"{where}: {d.source_name('energy_j_per_output_token')} ignored: {exc.reason}")
            return
        name = d.source_name("energy_j_per_output_token")
        # stage D gives output tokens/s per kW of board power: J per output token = 1000 W / that
        point["energy_j_per_output_token"] = W_PER_KW / value if name.endswith("tokens_per_kw") else value


def agentic_lengths(d: Record, total_tokens_per_s: float) -> MeasuredLengths | None:
    """Measured mean tokens per request of a stage-F row (``mean_input_tokens``, ``mean_output_tokens_actual``).

    These are the client's means over the successful requests, the ones its throughput counts (the server-side
    ``total_prompt_tokens`` count more); ``None`` when the row does not give both.
    """
    mean_in = number(d, "input_tokens_mean", required=False)
    mean_out = number(d, "output_tokens_mean", required=False)
    if mean_in is None or mean_out is None:
        return None
    requests = number(d, "requests_completed", required=False)
    source = f"{d.source_name('input_tokens_mean')} and {d.source_name('output_tokens_mean')}"
    return MeasuredLengths(mean_in, mean_out, requests, None, source)


def flatten(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A record with nested blocks as one level: ``{"metrics": {"x": 1}}`` -> ``{"metrics.x": 1}`` (stage D)."""
    out: dict[str, Any] = {}
    for k, v in raw.items():
        if isinstance(v, dict):
            out.update({f"{k}.{k2}": v2 for k2, v2 in v.items()})
        else:
            out[k] = v
    return out


def disaggregated_roles(d: Record, prefill_gpus: int, decode_gpus: int) -> tuple[int, int, int, int] | None:
    """A disaggregated row's workers and GPUs per role (``prefill_num_workers``, ``decode_num_workers``: 1 when
    absent); None for a row with no GPU in a role (an aggregated row that names its GPUs as decode GPUs, as
    InferenceX's database does with ``num_prefill_gpu: 0``)."""
    if prefill_gpus < 1 or decode_gpus < 1:
        return None
    out = []
    for name, role_gpus in (("prefill_workers", prefill_gpus), ("decode_workers", decode_gpus)):
        workers = whole_number(d, name) if name in d else None
        workers = 1 if workers is None else workers
        if workers < 1 or role_gpus % workers:
            raise SkipError(d.source_name(name), f"{workers} workers do not share the role's {role_gpus} GPUs evenly")
        out += [workers, role_gpus]
    return out[0], out[1], out[2], out[3]


def total_throughput(d: Record) -> tuple[float, str]:
    """A raw client file's total throughput [tokens/s, deployment-wide] and what the file calls it.

    Stage A (and D) give the total; stage E gives input and output throughput only, so its total is their sum,
    named as the sum of its two fields (a message may not name a field the source's map column lacks: reading one
    is :class:`~rackcost.importers.mapping.Record`'s ``KeyError``, a reader bug).
    """
    if d.maps("throughput_tokens_per_s"):
        return number(d, "throughput_tokens_per_s"), d.source_name("throughput_tokens_per_s")
    parts = ("input_throughput_tokens_per_s", "output_throughput_tokens_per_s")
    return sum(number(d, p) for p in parts), " + ".join(d.source_name(p) for p in parts)


def measured_lengths(d: Record, total_tokens_per_s: float, total_name: str, notes: list[str]) -> MeasuredLengths | None:
    """Mean tokens per request a stage-A run measured, or ``None`` when the file does not give them.

    From the token counts over the completed requests (``total_input_tokens / completed``), else from the measured
    rates (output tokens/s / requests/s). With both, a request rate that disagrees with throughput / mean length
    by more than :data:`RATE_CHECK_RTOL` is said in ``notes`` (the counts are kept: they are what was counted).
    ``total_name`` is what the file calls ``total_tokens_per_s`` (:func:`total_throughput`), for those notes.
    """

    def given(ours: str) -> float | None:
        return number(d, ours, required=False) if d.maps(ours) else None

    done = given("requests_completed")
    tin = given("input_tokens_measured")
    tout = given("output_tokens_measured")
    rate = given("request_rate_measured")
    out_tps = given("output_throughput_tokens_per_s")
    rate_name = d.source_name("request_rate_measured")
    if done and tin and tout:
        mean_in, mean_out = tin / done, tout / done
        source = (
            f"{d.source_name('input_tokens_measured')} and {d.source_name('output_tokens_measured')} / "
            f"{d.source_name('requests_completed')}"
        )
        if rate is not None:
            implied = total_tokens_per_s / (mean_in + mean_out)
            if not math.isclose(implied, rate, rel_tol=RATE_CHECK_RTOL):
                notes.append(
                    f"The file's {rate_name} {rate:.6g}/s differs from {total_name} / "
                    f"measured mean length = {implied:.6g}/s by {implied / rate - 1:+.2%}; the token counts are used."
                )
        return MeasuredLengths(mean_in, mean_out, done, rate, source)
    if rate is not None and out_tps is not None and out_tps < total_tokens_per_s:
        source = f"{total_name} and {d.source_name('output_throughput_tokens_per_s')} / {rate_name}"
        return MeasuredLengths((total_tokens_per_s - out_tps) / rate, out_tps / rate, None, rate, source)
    return None


def gpus_d(d: Record, tp: int | None, host_gpus: int | None, option: int | None) -> tuple[int, str]:
    """GPUs per replica of a stage-D run and where the count comes from: the run's parallelism, tp x pp, where the
    file gives tp; else the host's GPU count (``gpu.n_gpus``); else ``--gpus-per-replica``.

    The host's count is every GPU the host reports, not the GPUs that serve: a vLLM run at tp 4 on an 8-GPU host
    serves on 4 (InferenceX's own convention prices tp x pp GPUs), so reading the host's count halved its tokens per
    GPU. A host with more GPUs than serve is said in the point's notes (:func:`power_over_serving`). ``option``:
    ``--gpus-per-replica``, which the caller checks against the file's count.
    """
    pp = whole_number(d, "pipeline_parallel")
    if tp is not None:
        gpus, source = tp * (pp or 1), f"file: tp {tp} x pp {pp or 1} (the GPUs that serve)"
    elif host_gpus is not None:
        gpus, source = host_gpus, f"file: {d.source_name('accelerators_per_replica')} {host_gpus} (no tp given)"
    elif option is not None:
        gpus, source = option, "option --gpus-per-replica"
    else:
        raise SkipError(d.source_name("accelerators_per_replica"), "missing (and no tp): give --gpus-per-replica")
    return gpus, source


def power_over_serving(d: Record, point: dict[str, float], host_gpus: int, gpus: int, extra: list[str]) -> None:
    """A host that reports more GPUs than serve: the measured mean power per GPU is the host's total over the
    serving GPUs (``gpu.mean_power_per_gpu_w`` x host GPUs / serving GPUs), said in ``extra``.

    The host's mean is over every GPU it reports, idle ones included, so spread over them it understated a serving
    GPU's draw (284-335 W "per GPU" on InferenceX's B200 gpt-oss runs at tp 4 on 8-GPU hosts). The total still
    includes the idle GPUs' draw, an overstatement of at most their idle power each, the closer of the two readings
    a file allows. A per-GPU peak is one GPU's and stays as it is, unless it is now below the mean (then dropped).
    """
    counts = (
        f"{d.source_name('accelerators_per_replica')} {host_gpus} (the host's GPUs) differs from the run's "
        f"{gpus} GPUs that serve (tp x pp): {gpus} GPUs per replica imported"
    )
    mean = point.get("power_w_per_accelerator")
    if mean is None:
        extra.append(counts + ".")
        return
    point["power_w_per_accelerator"] = mean * host_gpus / gpus
    extra.append(
        f"{counts}; measured power per GPU = {d.source_name('power_w_per_accelerator')} {mean:g} W x {host_gpus} / "
        f"{gpus} = {point['power_w_per_accelerator']:.4g} W (the host's total over the serving GPUs, its idle GPUs' "
        "draw included)."
    )
    peak = point.get("peak_power_w_per_accelerator")
    if peak is not None and peak < point["power_w_per_accelerator"]:
        del point["peak_power_w_per_accelerator"]
        extra.append(f"{d.source_name('peak_power_w_per_accelerator')} {peak:g} W dropped: below the serving mean.")
